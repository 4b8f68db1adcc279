// The Train tab: runs of a tiny model on worker threads, each encoding x seed; what they show is
// core's (the same accuracy as a Trainer trained here); Stop and Resume give the uninterrupted
// run's bytes; a learned table past its rows says "no row"; saved runs load back; settings
// round-trip; every view draws in a real window.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <thread>

#include "app/gui/panels/panel_train.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/shell/app_shell.hpp"
#include "core/npy.hpp"
#include "tests/gui/export_check.hpp"
#include "tests/gui/test_shell.hpp"

using namespace posviz;
using namespace posviz::app;
using train::PositionScheme;

namespace {

// L = 2, a one-layer d_model 16 model, a few steps: each run takes milliseconds.
void tinyInputs(TrainPanelState& s, std::initializer_list<PositionScheme> schemes, int steps, int seeds) {
  s.encodings.fill(false);
  for (PositionScheme p : schemes)
    for (std::size_t e = 0; e < s.encodings.size(); ++e)
      if (train::kAllSchemes[e] == p) s.encodings[e] = true;
  s.trainLength = 2;
  s.steps = steps;
  s.seeds = seeds;
  s.dModel = 16;
  s.layers = 1;
  s.heads = 2;
  s.batch = 4;
}

bool waitIdle(const TrainPanelState& s, double seconds = 60.0) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (trainingActive(s)) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

const TrainJob& jobOf(const TrainPanelState& s, PositionScheme p, int seedIndex) {
  for (const auto& job : s.session->jobs())
    if (job->config.model.position.scheme == p && job->seedIndex == seedIndex) return *job;
  FAIL("no job for " << train::positionSchemeName(p) << " seed " << seedIndex);
  return *s.session->jobs().front();
}

bool sameBytes(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::string outDir(const std::string& name) {
  const std::string dir = std::string(POSVIZ_TEST_OUT) + "/train/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_SUITE("views") {

TEST_CASE("train tab: every encoding x seed trains and is evaluated at 1x..8x L with core's numbers") {
  TrainPanelState s;
  tinyInputs(s, {PositionScheme::Learned, PositionScheme::Alibi}, 30, 2);
  REQUIRE(startTraining(s));
  REQUIRE(waitIdle(s));
  REQUIRE(s.session->jobs().size() == 4);
  for (const auto& job : s.session->jobs()) {
    std::lock_guard lock(job->mutex);
    CAPTURE(train::positionSchemeName(job->config.model.position.scheme));
    CHECK(job->status == TrainJobStatus::Done);
    CHECK(job->step == 30);
    CHECK(job->losses.size() == 30);
    REQUIRE(job->result);
    CHECK(job->result->lengths.size() == static_cast<std::size_t>(kTrainEvalMultiples));
    CHECK(job->result->attention.size() == (job->seedIndex == 0 ? kTrainAttentionMultiples.size() : 0));
  }
  // The accuracy shown is core's: a Trainer of the same config, trained and evaluated here.
  train::Trainer ref(trainConfigOf(s, PositionScheme::Alibi, 1));
  ref.train(30);
  train::EvalOptions o;
  o.examples = kTrainEvalExamples;
  const TrainJob& alibi = jobOf(s, PositionScheme::Alibi, 1);
  CHECK(sameBytes(ref.model().parameters(), alibi.trainer->model().parameters()));
  CHECK(*alibi.result->lengths[1].accuracy == *ref.evaluate({4}, o)[0].accuracy);
  CHECK(alibi.result->lengths[1].length == 4);
  // ALiBi's biases are core's grid, by distance from the last query.
  const TrainRunResult& a0 = *jobOf(s, PositionScheme::Alibi, 0).result;
  REQUIRE(a0.biasByDistance.size() == 2);
  const int tokens = train::taskInputTokens(s.session->config().task, kTrainBiasMultiple * 2);
  CHECK(a0.biasTokens == tokens);
  const Grid g = jobOf(s, PositionScheme::Alibi, 0).trainer->positionBias(0, 1, tokens);
  CHECK(a0.biasByDistance[1][3] == doctest::Approx(g.at(tokens - 1, tokens - 4)));
  // The learned table, and its rows' cosines (1 on the diagonal).
  const TrainRunResult& l0 = *jobOf(s, PositionScheme::Learned, 0).result;
  REQUIRE(l0.learnedTable);
  CHECK(l0.learnedTable->rows == train::taskInputTokens(s.session->config().task, 2));
  CHECK(l0.learnedSimilarity->at(3, 3) == doctest::Approx(1.0).epsilon(1e-6));
  // Summaries: one row per encoding, in core's order, over both seeds.
  const std::vector<TrainAccuracy> acc = summarizeAccuracy(*s.session);
  REQUIRE(acc.size() == 2);
  CHECK(acc[0].scheme == PositionScheme::Learned);
  CHECK(acc[1].runs == 2);
  CHECK(acc[1].lengths == std::vector<int>{2, 4, 6, 8, 10, 12, 14, 16});
  CHECK(acc[1].min[0] <= acc[1].mean[0]);
  CHECK(acc[1].mean[0] <= acc[1].max[0]);
  CHECK(accuracyCellText(acc[1], 0).find('[') != std::string::npos);
}

TEST_CASE("train tab: a learned table past its rows shows no row, never a number") {
  TrainPanelState s;
  tinyInputs(s, {PositionScheme::Learned}, 10, 1);
  REQUIRE(startTraining(s));
  REQUIRE(waitIdle(s));
  const TrainRunResult& r = *jobOf(s, PositionScheme::Learned, 0).result;
  CHECK(r.lengths[0].status == train::EvalStatus::Ok);
  for (std::size_t i = 1; i < r.lengths.size(); ++i) {
    CAPTURE(i);
    CHECK(r.lengths[i].status == train::EvalStatus::NoRow);
    CHECK_FALSE(r.lengths[i].accuracy.has_value());
  }
  CHECK(r.attention[0].status == train::EvalStatus::Ok);
  CHECK(r.attention[1].status == train::EvalStatus::NoRow);
  CHECK(r.attention[2].status == train::EvalStatus::NoRow);
  const TrainAccuracy a = summarizeAccuracy(*s.session).front();
  CHECK_FALSE(a.noRow[0]);
  CHECK(accuracyCellText(a, 0).find("no row") == std::string::npos);
  CHECK(accuracyCellText(a, 0).find('[') == std::string::npos);   // one seed: no spread
  for (std::size_t i = 1; i < a.lengths.size(); ++i) {
    CHECK(a.noRow[i]);
    CHECK(std::isnan(a.mean[i]));
    CHECK(accuracyCellText(a, i) == "no row");
  }
}

TEST_CASE("train tab: Stop, then Resume, ends with the uninterrupted run's bytes") {
  TrainPanelState s;
  tinyInputs(s, {PositionScheme::Rope}, 4000, 1);
  REQUIRE(startTraining(s));
  const TrainJob& job = *s.session->jobs().front();
  for (int i = 0; i < 20000; ++i) {
    std::lock_guard lock(job.mutex);
    if (job.step > 0) break;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  stopTraining(s);
  REQUIRE(waitIdle(s));
  long long stoppedAt = 0;
  {
    std::lock_guard lock(job.mutex);
    CHECK(job.status == TrainJobStatus::Stopped);
    stoppedAt = job.step;
  }
  CHECK(stoppedAt > 0);
  CHECK(stoppedAt < 4000);
  CHECK_FALSE(trainingActive(s));
  resumeTraining(s);
  REQUIRE(waitIdle(s));
  {
    std::lock_guard lock(job.mutex);
    CHECK(job.status == TrainJobStatus::Done);
    CHECK(job.step == 4000);
    CHECK(job.losses.size() == 4000);
  }
  train::Trainer whole(trainConfigOf(s, PositionScheme::Rope, 0));
  whole.train(4000);
  CHECK(sameBytes(whole.model().parameters(), job.trainer->model().parameters()));
}

TEST_CASE("train tab: saved runs load back and give the same results; a bad folder says why") {
  TrainPanelState s;
  tinyInputs(s, {PositionScheme::None, PositionScheme::Learned}, 20, 2);
  REQUIRE(startTraining(s));
  REQUIRE(waitIdle(s));
  const std::string dir = outDir("saved");
  REQUIRE(saveTrainRuns(s, dir));
  CHECK(std::filesystem::is_regular_file(dir + "/learned/seed-2/model.safetensors"));
  CHECK(std::filesystem::is_regular_file(dir + "/nope/seed-1/config.json"));

  TrainPanelState t;
  REQUIRE(loadTrainRuns(t, dir));
  CHECK(t.message.find("loaded 4 runs") != std::string::npos);
  // Each run's loss curve comes back with it, from step 1 (float32 as saved).
  for (const PositionScheme p : {PositionScheme::None, PositionScheme::Learned}) {
    const TrainJob& saved = jobOf(s, p, 1);
    const TrainJob& loaded = jobOf(t, p, 1);
    CHECK(loaded.firstLossStep == 1);
    REQUIRE(loaded.losses.size() == 20);
    CHECK(loaded.losses.back() == static_cast<double>(static_cast<float>(saved.losses.back())));
  }
  CHECK(t.trainLength == 2);
  CHECK(t.encodings[0]);   // nope
  CHECK(t.encodings[2]);   // learned
  CHECK_FALSE(t.encodings[3]);
  REQUIRE(waitIdle(t));
  const std::vector<TrainAccuracy> before = summarizeAccuracy(*s.session), after = summarizeAccuracy(*t.session);
  REQUIRE(after.size() == before.size());
  for (std::size_t e = 0; e < after.size(); ++e) {
    CAPTURE(e);
    CHECK(after[e].runs == 2);
    CHECK(after[e].noRow == before[e].noRow);
    for (std::size_t i = 0; i < after[e].mean.size(); ++i)
      if (!before[e].noRow[i]) CHECK(after[e].mean[i] == before[e].mean[i]);
  }
  // One run's own folder loads as one run.
  TrainPanelState one;
  REQUIRE(loadTrainRuns(one, dir + "/learned/seed-1"));
  CHECK(one.session->jobs().size() == 1);
  REQUIRE(waitIdle(one));

  TrainPanelState bad;
  CHECK_FALSE(loadTrainRuns(bad, dir + "/no-such-folder"));
  CHECK(bad.error.find("no saved run") != std::string::npos);
  CHECK_FALSE(bad.session);
  std::filesystem::resize_file(dir + "/nope/seed-1/model.safetensors", 12);
  CHECK_FALSE(loadTrainRuns(bad, dir));
  CHECK(bad.error.find("model.safetensors") != std::string::npos);
}

TEST_CASE("train tab: inputs core refuses say why and start nothing") {
  TrainPanelState s;
  tinyInputs(s, {PositionScheme::Rope}, 10, 1);
  s.dModel = 18;
  s.heads = 4;   // 18 is not a multiple of 4
  CHECK_FALSE(startTraining(s));
  CHECK(s.error.find("dModel") != std::string::npos);
  CHECK_FALSE(s.session);
  s.encodings.fill(false);
  CHECK_FALSE(startTraining(s));
  CHECK(s.error.find("tick at least one") != std::string::npos);
}

TEST_CASE("train tab: settings round-trip; bad values are ignored") {
  TrainPanelState s;
  s.task = train::TaskKind::Count;
  s.encodings.fill(false);
  s.encodings[3] = s.encodings[6] = true;
  s.trainLength = 12;
  s.steps = 1234;
  s.seeds = 4;
  s.dModel = 64;
  s.layers = 3;
  s.heads = 8;
  s.batch = 16;
  s.learningRate = 0.004;
  s.runFolder = "/tmp/runs";
  s.attentionScheme = PositionScheme::Alibi;
  s.attentionLayer = 2;
  s.attentionHead = 5;
  s.view = TrainView::Biases;
  nlohmann::json j;
  saveTrainPanel(s, j);
  CHECK(j["task"] == "count");
  CHECK(j["encodings"] == nlohmann::json::array({"rope", "fire"}));
  TrainPanelState t;
  loadTrainPanel(t, j);
  CHECK(t.task == train::TaskKind::Count);
  CHECK(t.encodings == s.encodings);
  CHECK(t.trainLength == 12);
  CHECK(t.steps == 1234);
  CHECK(t.seeds == 4);
  CHECK(t.dModel == 64);
  CHECK(t.layers == 3);
  CHECK(t.heads == 8);
  CHECK(t.batch == 16);
  CHECK(t.learningRate == 0.004);
  CHECK(t.runFolder == "/tmp/runs");
  CHECK(t.attentionScheme == PositionScheme::Alibi);
  CHECK(t.attentionLayer == 2);
  CHECK(t.attentionHead == 5);
  CHECK(t.view == TrainView::Biases);
  CHECK(t.selectView);

  // Outside the ranges `posviz train` allows too (app/cli/params/train.hpp).
  const nlohmann::json bad = {{"task", "sort"},          {"encodings", {"rope", "wavelets"}}, {"train_length", 65},
                              {"steps", 0},              {"seeds", "two"},                    {"d_model", 512},
                              {"layers", 0},             {"heads", 9},                        {"lr", 1.5},
                              {"run_folder", 3},         {"attention_encoding", "sideways"},      {"view", "table"}};
  TrainPanelState u, fresh;
  loadTrainPanel(u, bad);
  CHECK(u.task == fresh.task);
  CHECK(u.encodings == fresh.encodings);
  CHECK(u.trainLength == fresh.trainLength);
  CHECK(u.steps == fresh.steps);
  CHECK(u.seeds == fresh.seeds);
  CHECK(u.dModel == fresh.dModel);
  CHECK(u.layers == fresh.layers);
  CHECK(u.heads == fresh.heads);
  CHECK(u.learningRate == fresh.learningRate);
  CHECK(u.runFolder.empty());
  CHECK(u.attentionScheme == fresh.attentionScheme);
  CHECK(u.view == TrainView::Curves);
}

TEST_CASE("train tab: during and after a run, every view draws in the window") {
  auto app = testing::makeTestShell(1280, 800);
  if (!app) return;
  const std::string dir = outDir("window");
  app->selectPanel(findPanel("train"));
  TrainPanelState& s = app->state().train;
  REQUIRE(app->renderUntilIdle(3, 30.0));
  std::string error;
  CHECK(app->frame(dir + "/empty.png", &error));
  tinyInputs(s, {PositionScheme::None, PositionScheme::Learned, PositionScheme::Rope, PositionScheme::Alibi,
                 PositionScheme::T5}, 60, 2);
  REQUIRE(startTraining(s));
  app->frame();
  CHECK(app->frame(dir + "/during.png", &error));
  // Training does not keep the window busy (it draws at the idle rate meanwhile): frames go on
  // until the runs are done.
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (trainingActive(s) && std::chrono::steady_clock::now() < end) app->frame();
  CHECK_FALSE(trainingActive(s));
  const std::pair<TrainView, const char*> views[] = {{TrainView::Curves, "curves"},
                                                     {TrainView::Attention, "attention"},
                                                     {TrainView::LearnedTable, "learned-table"},
                                                     {TrainView::Biases, "biases"}};
  s.attentionScheme = PositionScheme::Rope;
  for (const auto& [view, name] : views) {
    CAPTURE(name);
    s.view = view;
    s.selectView = true;
    REQUIRE(app->renderUntilIdle(3, 30.0));
    CHECK(s.view == view);
    CHECK(app->frame(dir + "/" + name + ".png", &error));
    CAPTURE(error);
  }
  s.attentionScheme = PositionScheme::Learned;   // 2x and 4x L: no row
  s.view = TrainView::Attention;
  s.selectView = true;
  REQUIRE(app->renderUntilIdle(3, 30.0));
  CHECK(app->frame(dir + "/attention-learned.png", &error));
}

TEST_CASE("train tab: a saved learned run opens in the Learned tab, which exports its trained table") {
  auto app = testing::makeTestShell(1280, 800);
  if (!app) return;
  TrainPanelState& s = app->state().train;
  tinyInputs(s, {PositionScheme::Learned}, 20, 1);
  app->selectPanel(findPanel("train"));
  REQUIRE(startTraining(s));
  REQUIRE(waitIdle(s));
  const std::string dir = outDir("to-learned");
  REQUIRE(saveTrainRuns(s, dir));
  const TrainJob& job = jobOf(s, PositionScheme::Learned, 0);
  CHECK(job.folder == dir + "/learned/seed-1");
  REQUIRE(job.result);
  REQUIRE(job.result->learnedTable);
  const Grid& trained = *job.result->learnedTable;

  std::string error;
  s.view = TrainView::LearnedTable;
  s.selectView = true;
  REQUIRE(app->renderUntilIdle(3, 30.0));
  CHECK(app->frame(dir + "/train-table.png", &error));
  // What the button does: the Train tab hands the folder over, the Learned tab opens on it.
  s.openInLearned = job.folder;
  REQUIRE(app->renderUntilIdle(4, 60.0));
  CHECK(app->state().activePanel == findPanel("learned"));
  CHECK(s.openInLearned.empty());
  const LearnedPanelState& l = app->state().learned;
  REQUIRE(l.table);
  CHECK(l.loadError.empty());
  CHECK(l.tableName == "trained run learned/seed-1 (" + std::to_string(trained.rows) + " x " + std::to_string(trained.cols) + ")");
  CHECK(sameBytes(l.table->values, trained.values));
  CHECK(app->frame(dir + "/learned-tab.png", &error));

  // File > Export on the Learned tab: the command names the run's folder, and writes its table.
  const ExportableView v = app->activeExports();
  REQUIRE(v.call);
  const std::filesystem::path out = std::filesystem::path(dir) / "export";
  std::filesystem::create_directories(out);
  const std::string command = test::sameAsCommand(v, ViewExportKind::HeatmapNpy, out, "table");
  CHECK(test::contains(command, "--table " + job.folder));
  const posviz::NpyArray exported = readNpy((out / "table-cli.npy").string());
  REQUIRE(exported.shape == std::vector<std::int64_t>{trained.rows, trained.cols});
  CHECK(sameBytes(exported.data, trained.values));

  // A run without a learned table says so.
  TrainPanelState other;
  tinyInputs(other, {PositionScheme::Rope}, 5, 1);
  REQUIRE(startTraining(other));
  REQUIRE(waitIdle(other));
  REQUIRE(saveTrainRuns(other, dir + "/other"));
  LearnedPanelState& learned = app->state().learned;
  openLearnedSource(learned, dir + "/other/rope/seed-1");
  REQUIRE(app->renderUntilIdle(4, 60.0));
  CHECK(test::contains(learned.loadError, "a rope run has no learned position table"));
  CHECK(sameBytes(learned.table->values, trained.values));   // the last good table stays
}

TEST_CASE("train tab: Extrapolation and Compare cite the measured accuracies of the finished runs") {
  auto app = testing::makeTestShell(1440, 900);
  if (!app) return;
  TrainPanelState& s = app->state().train;
  const std::string dir = outDir("cited");
  std::string error;
  // Before any run: the cells say how to get them.
  app->selectPanel(findPanel("compare"));
  REQUIRE(app->renderUntilIdle(3, 60.0));
  CHECK(app->state().compare.measured.setup.empty());
  CHECK(app->state().compare.measured.cells.empty());

  tinyInputs(s, {PositionScheme::Learned, PositionScheme::Alibi}, 30, 2);
  REQUIRE(startTraining(s));
  REQUIRE(waitIdle(s));
  const std::vector<TrainAccuracy> acc = summarizeAccuracy(*s.session);
  REQUIRE(acc.size() == 2);
  for (const std::string tab : {"compare", "extrapolation"}) {
    CAPTURE(tab);
    app->selectPanel(findPanel(tab));
    REQUIRE(app->renderUntilIdle(3, 120.0));
    const TrainCitation& c = tab == "compare" ? app->state().compare.measured : app->state().extrapolation.measured;
    CHECK(c.setup == "copy, trained at L = 2, 2 seeds x 30 steps");
    REQUIRE(c.cells.size() == 2);
    for (const TrainAccuracy& a : acc) {
      std::string want;
      for (const std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
        char cell[48];
        if (a.noRow[i]) std::snprintf(cell, sizeof cell, "%zux no row", i + 1);
        else std::snprintf(cell, sizeof cell, "%zux %.2f", i + 1, a.mean[i]);
        want += (want.empty() ? "" : ", ") + std::string(cell);
      }
      CHECK(c.cells.at(a.scheme) == want);
    }
    // A learned table of L = 2's inputs has no row at 2x and 4x; ALiBi has a number everywhere.
    CHECK(c.cells.at(PositionScheme::Learned).ends_with("2x no row, 4x no row"));
    CHECK(c.cells.at(PositionScheme::Alibi).find("no row") == std::string::npos);
    CHECK(app->frame(dir + "/" + tab + ".png", &error));
  }
  // A new Start empties the citation until its runs finish.
  tinyInputs(s, {PositionScheme::Rope}, 2000, 1);
  REQUIRE(startTraining(s));
  app->frame();
  CHECK(app->state().extrapolation.measured.cells.empty());
  stopTraining(s);
  REQUIRE(waitIdle(s));
}

}  // TEST_SUITE
