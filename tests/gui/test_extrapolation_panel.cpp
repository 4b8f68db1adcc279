// State logic of the Extrapolation view: inputs start one background job whose runs are core's;
// choosing the length or the encodings shown only rebuilds the plots; bad input keeps the last
// good result; settings round-trip. updateExtrapolationPanel() makes no ImGui calls.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include <filesystem>

#include "app/gui/panels/panel_extrapolation.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/shell/app_shell.hpp"
#include "tests/gui/test_shell.hpp"
#include "core/extrapolation.hpp"

using namespace posviz;
using namespace posviz::app;

namespace {

ExtrapolationPanelState smallState() {
  ExtrapolationPanelState s;
  s.trainedLength = 32;
  s.headDim = 8;
  return s;
}

// Until every length is in: a change right after another is a drag, whose other lengths are
// asked for once the inputs have rested kExtrapolationRestSeconds.
void settle(ExtrapolationPanelState& s) {
  for (int i = 0; i < 100; ++i) {
    updateExtrapolationPanel(s);
    REQUIRE(s.lab.waitIdle(60.0));
    updateExtrapolationPanel(s);
    if (!extrapolationBusy(s)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  FAIL("the lab did not settle");
}

}  // namespace

TEST_SUITE("views") {

TEST_CASE("extrapolation view: every encoding at 1x..8x L0 from core, plots of the chosen length") {
  ExtrapolationPanelState s = smallState();
  settle(s);
  const ExtrapolationLabResult* r = s.lab.result();
  REQUIRE(r != nullptr);
  REQUIRE(r->runs.size() == kExtrapolationMultiples.size());
  ExtrapolationSetup setup;
  setup.model.dModel = 8;
  setup.trainedLength = 32;
  for (std::size_t m = 0; m < r->runs.size(); ++m) {
    REQUIRE(r->runs[m].size() == allExtrapolationEncodings().size());
    for (std::size_t e = 0; e < r->runs[m].size(); ++e) {
      CAPTURE(m);
      CAPTURE(e);
      const int length = kExtrapolationMultiples[m] * 32;
      const ExtrapolationRun ref = runExtrapolation(setup, allExtrapolationEncodings()[e], length);
      CHECK(r->runs[m][e].length == length);
      CHECK(r->runs[m][e].weights == ref.weights);
      CHECK(r->runs[m][e].error == ref.error);
    }
  }
  // 4x (the default): the learned run has no row, so 7 curves and the uniform reference, one point
  // per log-distance bin (core's): L = 128 has bins [0], [1], [2,3], ..., [64,127]. The trained
  // distances 0..31 are shaded, up to the edge between bins [16,31] and [32,63].
  REQUIRE(s.weightsPlot.series.size() == 8);
  REQUIRE(s.weightsPlot.bands.size() == 1);
  CHECK(s.weightsPlot.bands[0].x1 == 5.5);
  REQUIRE(s.weightsPlot.markers.size() == 1);
  CHECK(s.weightsPlot.markers[0].x == 5.5);
  CHECK(s.weightsPlot.xTicks.size() == 9);    // the bins' edges 0, 1, 2, 4, ..., 64, and L = 128
  CHECK(s.weightsPlot.xTicks.back().label == "128");
  CHECK(s.weightsPlot.xReadout(3.0) == "distances 4-7");
  const std::vector<DistanceBin> sinusoidal = logDistanceBins(r->runs[2][0].weights);
  REQUIRE(s.weightsPlot.series[1].label == "Sinusoidal");
  REQUIRE(s.weightsPlot.series[1].y.size() == 8);
  for (std::size_t k = 0; k < sinusoidal.size(); ++k) CHECK(s.weightsPlot.series[1].y[k] == sinusoidal[k].sum);
  CHECK(s.weightsPlot.series[0].y[7] == 64.0 / 128.0);   // uniform: the bin's width / L
  REQUIRE(s.weightsSmall.size() == 7);                   // one small plot per curve, with the reference
  CHECK(s.weightsSmall[0].series.size() == 2);
  CHECK(s.weightsSmall[0].title == "Sinusoidal");
  CHECK(s.weightsSmall[0].series[1].y == s.weightsPlot.series[1].y);
  CHECK(s.entropyPlot.series.size() == 9);   // ln L and every encoding
  CHECK(s.entropyPlot.series[0].y[3] == doctest::Approx(std::log(256.0)));
  CHECK(std::isnan(s.entropyPlot.series[2].y[1]));   // learned at 2x: no value
  CHECK(s.unseenPlot.series.size() == 5);            // the RoPE variants

  // Length and encodings shown: plots only, no new job.
  s.multiple = 0;
  s.show[0] = false;
  s.plotsDirty = true;
  updateExtrapolationPanel(s);
  CHECK_FALSE(s.lab.busy());
  CHECK(s.weightsPlot.series.size() == 8);   // learned is back at 1x, sinusoidal hidden; the reference
  CHECK(s.weightsPlot.series[1].label == "Learned");
  CHECK(s.weightsPlot.series[1].x.size() == 6);   // L = 32: [0] .. [16,31]
  CHECK(s.weightsPlot.markers.empty());           // L = L0: every distance trained
  CHECK(s.weightsSmall.size() == 7);
}

TEST_CASE("extrapolation view: an L0 drag reuses the learned table it drew; the runs stay core's own") {
  ExtrapolationPanelState s = smallState();
  s.trainedLength = 20;
  settle(s);
  // Drawn with room: L0 = 20 draws the 32 rows up to the next power of two.
  REQUIRE(s.learnedTable != nullptr);
  CHECK(s.learnedTable->rows == 32);
  CHECK(s.learnedTable->cols == 8);
  const Grid* drawn = s.learnedTable.get();
  ExtrapolationSetup setup;
  setup.model.dModel = 8;
  for (int l0 : {31, 32, 17}) {
    CAPTURE(l0);
    s.trainedLength = l0;
    s.dirty = true;
    settle(s);
    CHECK(s.learnedTable.get() == drawn);   // no new table
    setup.trainedLength = l0;
    const ExtrapolationRun ref = runExtrapolation(setup, ExtrapolationEncoding::Learned, l0);   // draws its own
    CHECK(s.lab.result()->runs[0][1].weights == ref.weights);
  }
  // Past its rows, or for another seed, a new table is drawn.
  s.trainedLength = 33;
  s.dirty = true;
  settle(s);
  CHECK(s.learnedTable.get() != drawn);
  CHECK(s.learnedTable->rows == 64);
  drawn = s.learnedTable.get();
  s.seed += 1;
  s.dirty = true;
  settle(s);
  CHECK(s.learnedTable.get() != drawn);
  CHECK(s.lab.error().empty());
}

TEST_CASE("extrapolation view: a change computes the length shown first; the others follow at rest, core's own") {
  ExtrapolationPanelState s = smallState();
  settle(s);
  REQUIRE(s.lab.result()->complete());
  const std::vector<double> entropyBefore = s.entropyPlot.series[1].y;
  REQUIRE(entropyBefore.size() == 4);
  // A change: the length shown first, alone (4 x 24 = 96 keys); the entropy plot keeps its points.
  s.trainedLength = 24;
  s.dirty = true;
  updateExtrapolationPanel(s);
  REQUIRE(s.lab.waitIdle(60.0));
  updateExtrapolationPanel(s);
  const ExtrapolationLabResult* r = s.lab.result();
  REQUIRE(r != nullptr);
  CHECK(r->trainedLength == 24);
  if (s.pacer.sinceChange() < kExtrapolationRestSeconds) {   // a slow machine may have rested already
    CHECK_FALSE(r->complete());
    CHECK(extrapolationBusy(s));                  // the other lengths are owed
    for (std::size_t m = 0; m < r->runs.size(); ++m) CHECK(r->runs[m].empty() == (m != 2));
    CHECK(s.weightsPlot.xTicks.back().label == "96");
    CHECK(s.entropyPlot.series[1].y == entropyBefore);
    CHECK(s.entropyPlot.title.find("updating") != std::string::npos);
  }
  // While the lab pauses after a job, changes wait; the latest is taken, the ones between dropped,
  // once no change has come for DragPacer::kQuietSeconds (or the pause ends). First nothing may be
  // computing: a change takes over a job computing the other lengths at once (a loaded machine
  // could still be at it here), and a job ending would set its own pause.
  settle(s);
  s.pacer.freeAt = steadySeconds() + 60.0;
  const long long asked = s.requests;
  const double t0 = steadySeconds();
  for (int l0 : {23, 22, 20}) {
    s.trainedLength = l0;
    s.dirty = true;
    updateExtrapolationPanel(s);
  }
  if (steadySeconds() - t0 < DragPacer::kQuietSeconds) {   // a stalled machine may have gone quiet already
    CHECK(s.pacer.pending);
    CHECK(s.requests == asked);
    CHECK(extrapolationBusy(s));
  }
  s.pacer.changedAt -= DragPacer::kQuietSeconds;   // the drag has rested (no waiting on the clock)
  updateExtrapolationPanel(s);
  CHECK_FALSE(s.pacer.pending);
  CHECK(s.requests == asked + 1);   // L0 = 20's length shown
  ExtrapolationSetup setup;
  setup.model.dModel = 8;
  setup.trainedLength = 20;
  settle(s);
  r = s.lab.result();
  REQUIRE(r->complete());
  for (std::size_t m = 0; m < r->runs.size(); ++m)
    for (std::size_t e = 0; e < r->runs[m].size(); ++e) {
      CAPTURE(m);
      CAPTURE(e);
      const ExtrapolationRun ref = runExtrapolation(setup, allExtrapolationEncodings()[e], kExtrapolationMultiples[m] * 20);
      CHECK(r->runs[m][e].weights == ref.weights);
      CHECK(((std::isnan(ref.entropy) && std::isnan(r->runs[m][e].entropy)) || r->runs[m][e].entropy == ref.entropy));
    }
  CHECK(s.entropyPlot.title.find("updating") == std::string::npos);
  REQUIRE(s.entropyPlot.series[1].y.size() == 4);
  CHECK(s.entropyPlot.series[1].y[3] == r->runs[3][0].entropy);
  CHECK(s.entropyPlot.markers[0].x == 20.0);
  CHECK(s.requests == asked + 2);   // L0 = 20's length shown, then the others

  // A change while the other lengths are computed stops that job: no complete result for the
  // earlier inputs lands after it; the new length shown comes first.
  s.trainedLength = 8192;
  s.headDim = 128;
  settle(s);
  s.trainedLength = 8190;
  s.dirty = true;
  updateExtrapolationPanel(s);
  REQUIRE(s.lab.waitIdle(60.0));
  updateExtrapolationPanel(s);
  std::this_thread::sleep_for(std::chrono::duration<double>(kExtrapolationRestSeconds));
  updateExtrapolationPanel(s);   // asks for the other lengths
  REQUIRE(s.lab.busy());
  for (int i = 0; i < 20000 && s.lab.progress() <= 0.0f; ++i) std::this_thread::sleep_for(std::chrono::microseconds(100));
  REQUIRE(s.lab.progress() > 0.0f);   // running: its first run is done
  const long long stale = s.inputVersion;
  s.trainedLength = 8188;
  s.dirty = true;
  updateExtrapolationPanel(s);
  for (int i = 0; i < 3000 && extrapolationBusy(s); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    updateExtrapolationPanel(s);
    CHECK_FALSE((s.lab.result()->inputVersion == stale && s.lab.result()->complete()));
  }
  CHECK(s.lab.result()->complete());
  CHECK(s.lab.result()->trainedLength == 8188);
  CHECK(s.lab.error().empty());

  // A bad sentence typed right after a change: nothing is owed, the tab is not left busy.
  s.trainedLength = 28;
  s.dirty = true;
  updateExtrapolationPanel(s);
  std::strcpy(s.sentence, "   ");
  s.dirty = true;
  settle(s);
  CHECK_FALSE(s.inputError.empty());
  CHECK_FALSE(extrapolationBusy(s));
}

TEST_CASE("extrapolation view: an empty sentence keeps the last result and says why") {
  ExtrapolationPanelState s = smallState();
  settle(s);
  const ExtrapolationLabResult* before = s.lab.result();
  REQUIRE(before != nullptr);
  std::strcpy(s.sentence, "   ");
  s.dirty = true;
  settle(s);
  CHECK(s.inputError == "sentence: type at least one word");
  CHECK(s.lab.result() == before);
  std::strcpy(s.sentence, "dog bites man");
  s.dirty = true;
  settle(s);
  CHECK(s.inputError.empty());
}

TEST_CASE("extrapolation view: settings round-trip; bad values are ignored") {
  ExtrapolationPanelState s;
  s.trainedLength = 4096;
  s.headDim = 128;
  s.autoFactor = false;
  s.factor = 4.0f;
  s.multiple = 3;
  s.show[1] = false;
  s.smallMultiples = true;
  std::strcpy(s.sentence, "a b c");
  nlohmann::json j;
  saveExtrapolationPanel(s, j);
  ExtrapolationPanelState t;
  t.dirty = false;
  loadExtrapolationPanel(t, j);
  CHECK(t.dirty);
  CHECK(t.trainedLength == 4096);
  CHECK(t.headDim == 128);
  CHECK_FALSE(t.autoFactor);
  CHECK(t.factor == 4.0f);
  CHECK(t.multiple == 3);
  CHECK(t.smallMultiples);
  CHECK_FALSE(t.show[1]);
  CHECK(std::string(t.sentence) == "a b c");
  j["trained_length"] = 1;
  j["head_dim"] = "wide";
  j["multiple"] = 9;
  j["show"] = {true};
  ExtrapolationPanelState u;
  loadExtrapolationPanel(u, j);
  CHECK(u.trainedLength == ExtrapolationSetup{}.trainedLength);
  CHECK(u.headDim == ExtrapolationSetup{}.model.dModel);
  CHECK(u.multiple == 2);
  CHECK(u.show[1]);
}

TEST_CASE("extrapolation view: Llama-2 sizes at 4x L0 with YaRN x4 render, the result drawn is core's") {
  auto app = testing::makeTestShell(1440, 900);
  if (!app) return;
  ExtrapolationPanelState& s = app->state().extrapolation;
  s.headDim = 128;
  s.trainedLength = 4096;
  s.autoFactor = false;
  s.factor = 4.0f;
  s.multiple = 2;
  s.dirty = true;
  app->selectPanel(findPanel("extrapolation"));
  CHECK(app->renderUntilIdle(4, 120.0));
  const std::string dir = std::string(POSVIZ_TEST_OUT) + "/views";
  std::filesystem::create_directories(dir);
  std::string error;
  CHECK(app->frame(dir + "/extrapolation-llama2-yarn4.png", &error));
  const ExtrapolationLabResult* r = s.lab.result();
  REQUIRE(r != nullptr);
  const ExtrapolationRun& yarn = r->runs[2][static_cast<std::size_t>(ExtrapolationEncoding::RopeYarn)];
  CHECK(yarn.length == 16384);
  CHECK(yarn.factor == 4.0);
  // tests/reference/hf_extrapolation_reference.py: 18 slow pairs x 3/16384 / 64 pairs
  CHECK(yarn.unseenShareMean == doctest::Approx(5.14984130859e-05).epsilon(1e-10));
  MESSAGE("Llama-2 lab computed in " << s.lab.millis() << " ms (8 encodings x 4 lengths)");

  // An L0 change: the length shown lands first, drawn with the entropy plot marked as updating.
  s.trainedLength = 2048;
  s.dirty = true;
  bool shownAlone = false;
  for (int i = 0; i < 2000 && !shownAlone; ++i) {
    CHECK(app->frame());
    const ExtrapolationLabResult* now = s.lab.result();
    shownAlone = now->trainedLength == 2048 && !now->complete() && s.plottedId == now->id;
  }
  if (shownAlone) {   // else the other lengths came within the frame that took it (a fast machine)
    CHECK(app->frame(dir + "/extrapolation-l0-change-updating.png", &error));
    CHECK(s.entropyPlot.title.find("updating") != std::string::npos);
    CHECK(s.weightsPlot.title.find("L = 8,192") != std::string::npos);
  }
  CHECK(app->renderUntilIdle(2, 120.0));
  CHECK(s.lab.result()->complete());
  CHECK(s.entropyPlot.title.find("updating") == std::string::npos);
  CHECK(s.entropyPlot.markers[0].x == 2048.0);
}

}  // TEST_SUITE
