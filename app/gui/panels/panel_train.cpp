// panel_train.cpp: the Train tab.
//
// [SECTION] Jobs: one run's training and evaluation, on a worker thread
// [SECTION] Session: the worker threads, Stop and Resume
// [SECTION] Summaries: loss lines and accuracy over seeds
// [SECTION] Start, Save, Load
// [SECTION] Drawing: controls
// [SECTION] Drawing: progress and the empty state
// [SECTION] Drawing: loss and accuracy
// [SECTION] Drawing: attention, learned table, biases
// [SECTION] Settings and the tab's entry in the panel list
#include "app/gui/panels/panel_train.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/widgets/figure_export.hpp"

#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>

#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/app_state.hpp"
#include "app/gui/panels/panels.hpp"
#include "core/learned.hpp"
#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "app/gui/platform/jobs.hpp"
#include "app/gui/platform/platform.hpp"
#include "app/gui/widgets/worker.hpp"
#include "core/parallel.hpp"

namespace posviz::app {

namespace table = cli::params::training;
using train::PositionScheme;

const char* trainJobStatusName(TrainJobStatus s) {
  switch (s) {
    case TrainJobStatus::Queued: return "queued";
    case TrainJobStatus::Running: return "training";
    case TrainJobStatus::Evaluating: return "evaluating";
    case TrainJobStatus::Stopped: return "stopped";
    case TrainJobStatus::Done: return "done";
    case TrainJobStatus::Failed: return "failed";
  }
  return "?";
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Jobs: one run's training and evaluation, on a worker thread
// -----------------------------------------------------------------------------------------------

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The bias of every layer and head against distance, for the last query of `tokens` tokens.
void collectBiases(const train::Trainer& t, int tokens, TrainRunResult& r) {
  const train::ModelConfig& m = t.model().config();
  r.biasTokens = tokens;
  for (int l = 0; l < m.numLayers; ++l) {
    for (int h = 0; h < m.numHeads; ++h) {
      const Grid g = t.positionBias(l, h, tokens);
      std::vector<double> byDistance(static_cast<std::size_t>(tokens));
      for (int d = 0; d < tokens; ++d) byDistance[static_cast<std::size_t>(d)] = g.at(tokens - 1, tokens - 1 - d);
      r.biasByDistance.push_back(std::move(byDistance));
    }
  }
}

// What a trained run shows. Null when asked to stop between lengths.
std::shared_ptr<const TrainRunResult> evaluateRun(train::Trainer& t, bool attention, const std::atomic<bool>& stop) {
  auto r = std::make_shared<TrainRunResult>();
  const train::TaskConfig& task = t.config().task;
  const int l = task.trainLength;
  train::EvalOptions o;
  o.examples = kTrainEvalExamples;
  o.threads = 1;
  for (int m = 1; m <= kTrainEvalMultiples; ++m) {
    if (stop.load()) return nullptr;
    r->lengths.push_back(t.evaluate({m * l}, o).front());
  }
  if (attention)
    for (int m : kTrainAttentionMultiples) r->attention.push_back(t.attentionMaps(m * l, 0, o));
  const PositionScheme scheme = t.config().model.position.scheme;
  if (scheme == PositionScheme::Learned) {
    r->learnedTable = t.learnedTable();
    r->learnedSimilarity = learnedSimilarity(*r->learnedTable);
  }
  if (train::schemeHasBias(scheme)) collectBiases(t, train::taskInputTokens(task, kTrainBiasMultiple * l), *r);
  return r;
}

void setStatus(TrainJob& job, TrainJobStatus s) {
  std::lock_guard lock(job.mutex);
  job.status = s;
}

// Trains the job to its last step (or until asked to stop), then evaluates it. With a deadline
// (steadySeconds(); the page without threads) it returns after the step that passes it, the job
// still Running, and the next call goes on from there.
void runJob(TrainJob& job, double deadline = std::numeric_limits<double>::infinity()) {
  try {
    if (!job.trainer) job.trainer = std::make_unique<train::Trainer>(job.config);
    train::Trainer& t = *job.trainer;
    bool sliceOver = false;
    t.train(job.config.steps, [&job, deadline, &sliceOver](const train::StepReport& r) {
      std::lock_guard lock(job.mutex);
      job.losses.push_back(r.loss);
      job.step = r.step;
      sliceOver = steadySeconds() >= deadline;
      return !job.stop.load() && !sliceOver;
    });
    if (!t.finished() && sliceOver && !job.stop.load()) return;   // the next slice goes on
    if (!t.finished()) return setStatus(job, TrainJobStatus::Stopped);
    setStatus(job, TrainJobStatus::Evaluating);
    std::shared_ptr<const TrainRunResult> r = evaluateRun(t, job.seedIndex == 0, job.stop);
    std::lock_guard lock(job.mutex);
    job.result = std::move(r);
    job.status = job.result ? TrainJobStatus::Done : TrainJobStatus::Stopped;
  } catch (const std::exception& e) {
    std::lock_guard lock(job.mutex);
    job.status = TrainJobStatus::Failed;
    job.error = e.what();
  }
}

}  // namespace

// -----------------------------------------------------------------------------------------------
// [SECTION] Session: the worker threads, Stop and Resume
// -----------------------------------------------------------------------------------------------

TrainSession::TrainSession(std::vector<std::unique_ptr<TrainJob>> jobs, int maxThreads)
    : jobs_(std::move(jobs)), maxThreads_(std::max(1, maxThreads)) {}

TrainSession::~TrainSession() {
  stop();
  join();
}

TrainJob* TrainSession::takeNext() {
  std::lock_guard queue(queueMutex_);
  if (paused_) return nullptr;
  for (const auto& job : jobs_) {
    std::lock_guard lock(job->mutex);
    if (job->status == TrainJobStatus::Queued) {
      job->status = TrainJobStatus::Running;
      return job.get();
    }
  }
  return nullptr;
}

void TrainSession::runWorker() {
  while (TrainJob* job = takeNext()) runJob(*job);
  --working_;
}

void TrainSession::start() {
  join();
  int queued = 0;
  for (const auto& job : jobs_) {
    std::lock_guard lock(job->mutex);
    queued += job->status == TrainJobStatus::Queued;
  }
  if constexpr (!platform::kThreads) {
    working_ = queued > 0 ? 1 : 0;   // runSlice() does the work
    return;
  }
  const int n = std::min(maxThreads_, queued);
  working_ += n;
  for (int i = 0; i < n; ++i) pool_.emplace_back([this] { runWorker(); });
}

// Without threads: the running job (or the next queued one) trains for `millis`, then the page
// draws a frame.
void TrainSession::runSlice(double millis) {
  if (platform::kThreads || working_.load() == 0) return;
  const double deadline = steadySeconds() + millis / 1000.0;
  while (steadySeconds() < deadline) {
    TrainJob* job = nullptr;
    for (const auto& j : jobs_) {
      std::lock_guard lock(j->mutex);
      if (j->status == TrainJobStatus::Running || j->status == TrainJobStatus::Evaluating) job = j.get();
    }
    if (!job) job = takeNext();
    if (!job) {
      working_ = 0;
      return;
    }
    runJob(*job, deadline);
  }
}

void TrainSession::stop() {
  std::lock_guard queue(queueMutex_);
  paused_ = true;
  for (const auto& job : jobs_) {
    job->stop = true;
    std::lock_guard lock(job->mutex);
    if (job->status == TrainJobStatus::Queued) job->status = TrainJobStatus::Stopped;
  }
}

void TrainSession::resume() {
  join();
  {
    std::lock_guard queue(queueMutex_);
    paused_ = false;
    for (const auto& job : jobs_) {
      job->stop = false;
      std::lock_guard lock(job->mutex);
      if (job->status == TrainJobStatus::Stopped) job->status = TrainJobStatus::Queued;
    }
  }
  start();
}

void TrainSession::join() {
  for (std::thread& t : pool_)
    if (t.joinable()) t.join();
  pool_.clear();
}

bool TrainSession::active() const {
  for (const auto& job : jobs_) {
    std::lock_guard lock(job->mutex);
    if (job->status == TrainJobStatus::Queued || job->status == TrainJobStatus::Running ||
        job->status == TrainJobStatus::Evaluating)
      return true;
  }
  return false;
}

bool TrainSession::anyRunning() const { return working_.load() > 0; }

double TrainSession::progress() const {
  double done = 0.0, total = 0.0;
  for (const auto& job : jobs_) {
    std::lock_guard lock(job->mutex);
    done += static_cast<double>(job->step);
    total += static_cast<double>(job->config.steps);
  }
  return total > 0.0 ? done / total : 0.0;
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Summaries: loss lines and accuracy over seeds
// -----------------------------------------------------------------------------------------------

namespace {

// The schemes of a session, in core's order.
std::vector<PositionScheme> sessionSchemes(const TrainSession& s) {
  std::vector<PositionScheme> out;
  for (PositionScheme p : train::kAllSchemes)
    for (const auto& job : s.jobs())
      if (job->config.model.position.scheme == p && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  return out;
}

int schemeIndex(PositionScheme p) {
  for (int i = 0; i < kTrainSchemes; ++i)
    if (train::kAllSchemes[i] == p) return i;
  return 0;
}

// Distinct for the default five (nope a neutral grey, as it has no position); the palette has eight
// colours, so xpos, RoPE's relative, gets one of its own.
unsigned int schemeColor(PositionScheme p) {
  constexpr int kPaletteIndex[kTrainSchemes] = {7, 1, 2, 3, 5, 0, 6, 4, -1};   // kAllSchemes' order
  const int i = kPaletteIndex[schemeIndex(p)];
  return i >= 0 ? plotColor(i) : themed(IM_COL32(150, 120, 230, 255));
}
unsigned int faded(unsigned int color) { return (color & 0x00ffffffu) | 0x80000000u; }

struct Stats {
  double mean = kNaN, min = kNaN, max = kNaN;
};
Stats statsOf(const std::vector<double>& v) {
  Stats s;
  if (v.empty()) return s;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  double sum = 0.0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

// A job's loss averaged over buckets of `width` steps: bucket b covers steps b*width+1 .. (b+1)*width
// (the last one ends at the run's last step); only buckets whose every step is in this session's losses.
void addLossBuckets(const TrainJob& job, long long width, std::map<long long, std::vector<double>>& buckets) {
  std::lock_guard lock(job.mutex);
  const long long first = job.firstLossStep, last = job.step, steps = job.config.steps;
  for (long long b = (first - 1 + width - 1) / width;; ++b) {
    const long long from = b * width + 1, to = std::min((b + 1) * width, steps);
    if (from > steps || to > last) break;
    double sum = 0.0;
    for (long long st = from; st <= to; ++st) sum += job.losses[static_cast<std::size_t>(st - first)];
    buckets[to].push_back(sum / static_cast<double>(to - from + 1));
  }
}

// One loss line per scheme (the mean over seeds) and, with several seeds, their min and max.
std::vector<PlotSeries> lossSeries(const TrainSession& s) {
  std::vector<PlotSeries> out;
  const long long width = std::max(1LL, (s.config().steps + kTrainLossPoints - 1) / kTrainLossPoints);
  for (PositionScheme p : sessionSchemes(s)) {
    std::map<long long, std::vector<double>> buckets;
    int seeds = 0;
    for (const auto& job : s.jobs()) {
      if (job->config.model.position.scheme != p) continue;
      ++seeds;
      addLossBuckets(*job, width, buckets);
    }
    const std::string name = train::positionSchemeName(p);
    PlotSeries mean{name, {}, {}, schemeColor(p), false, 2.0f}, lo{name + " min", {}, {}, faded(schemeColor(p)), false, 1.0f},
        hi{name + " max", {}, {}, faded(schemeColor(p)), false, 1.0f};
    for (const auto& [step, values] : buckets) {
      const Stats st = statsOf(values);
      for (PlotSeries* line : {&mean, &lo, &hi}) line->x.push_back(static_cast<double>(step));
      mean.y.push_back(st.mean);
      lo.y.push_back(values.size() > 1 ? st.min : kNaN);   // a spread needs two seeds there
      hi.y.push_back(values.size() > 1 ? st.max : kNaN);
    }
    if (seeds > 1) {
      out.push_back(std::move(lo));
      out.push_back(std::move(hi));
    }
    out.push_back(std::move(mean));
  }
  return out;
}

}  // namespace

std::vector<TrainAccuracy> summarizeAccuracy(const TrainSession& s) {
  std::vector<TrainAccuracy> out;
  const int l = s.config().task.trainLength;
  for (PositionScheme p : sessionSchemes(s)) {
    TrainAccuracy a;
    a.scheme = p;
    std::vector<std::vector<double>> values(kTrainEvalMultiples);
    a.noRow.assign(kTrainEvalMultiples, false);
    for (const auto& job : s.jobs()) {
      if (job->config.model.position.scheme != p) continue;
      std::shared_ptr<const TrainRunResult> r;
      {
        std::lock_guard lock(job->mutex);
        r = job->result;
      }
      if (!r) continue;
      ++a.runs;
      for (std::size_t i = 0; i < r->lengths.size() && i < values.size(); ++i) {
        if (r->lengths[i].status == train::EvalStatus::NoRow) a.noRow[i] = true;
        else if (r->lengths[i].accuracy) values[i].push_back(*r->lengths[i].accuracy);
      }
    }
    for (int m = 1; m <= kTrainEvalMultiples; ++m) {
      a.lengths.push_back(m * l);
      const Stats st = a.noRow[static_cast<std::size_t>(m - 1)] ? Stats{} : statsOf(values[static_cast<std::size_t>(m - 1)]);
      a.mean.push_back(st.mean);
      a.min.push_back(st.min);
      a.max.push_back(st.max);
    }
    out.push_back(std::move(a));
  }
  return out;
}

namespace {

std::string twoDecimals(double v) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

bool refreshTrainCitation(TrainCitation& c, const TrainSession* session) {
  int finished = 0;
  if (session != nullptr) {
    for (const auto& job : session->jobs()) {
      std::lock_guard lock(job->mutex);
      finished += job->result != nullptr;
    }
  }
  if (c.session == session && c.finished == finished) return false;
  c = TrainCitation{};
  c.session = session;
  c.finished = finished;
  if (session == nullptr || finished == 0) return true;
  const train::TrainConfig& cfg = session->config();
  int seeds = 0;
  for (const TrainAccuracy& a : summarizeAccuracy(*session)) {
    if (a.runs == 0) continue;
    seeds = std::max(seeds, a.runs);
    std::string cell;
    for (const std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {  // 1x, 2x, 4x L
      if (i >= a.mean.size()) break;
      cell += (cell.empty() ? "" : ", ") + std::to_string(i + 1) + "x " + (a.noRow[i] ? std::string("no row") : twoDecimals(a.mean[i]));
    }
    c.cells[a.scheme] = cell;
  }
  c.setup = std::string(train::taskName(cfg.task.kind)) + ", trained at L = " + std::to_string(cfg.task.trainLength) + ", " +
            std::to_string(seeds) + (seeds == 1 ? " seed x " : " seeds x ") + std::to_string(cfg.steps) + " steps";
  return true;
}

std::string accuracyCellText(const TrainAccuracy& a, std::size_t i) {
  if (i >= a.lengths.size()) return "-";
  if (a.noRow[i]) return "no row";
  if (std::isnan(a.mean[i])) return "-";
  std::string t = formatShort(a.mean[i], 3);
  if (a.runs > 1) t += " [" + formatShort(a.min[i], 3) + ", " + formatShort(a.max[i], 3) + "]";
  return t;
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Start, Save, Load
// -----------------------------------------------------------------------------------------------

namespace {

int workerThreads(const TrainPanelState& s) { return s.maxThreads > 0 ? s.maxThreads : std::max(1, hardwareThreads() - 1); }

}  // namespace

train::TrainConfig trainConfigOf(const TrainPanelState& s, PositionScheme scheme, int seedIndex) {
  train::TrainConfig c;
  c.task.kind = s.task;
  c.task.trainLength = s.trainLength;
  c.model.dModel = s.dModel;
  c.model.numLayers = s.layers;
  c.model.numHeads = s.heads;
  c.model.position.scheme = scheme;
  c.optim.learningRate = s.learningRate;
  c.batchSize = s.batch;
  c.steps = s.steps;
  c.seed = static_cast<std::uint64_t>(seedIndex + 1);
  c.threads = 1;
  return train::resolvedConfig(c);
}

bool startTraining(TrainPanelState& s) {
  std::vector<std::unique_ptr<TrainJob>> jobs;
  try {
    for (int e = 0; e < kTrainSchemes; ++e) {
      if (!s.encodings[static_cast<std::size_t>(e)]) continue;
      for (int seed = 0; seed < s.seeds; ++seed) {
        auto job = std::make_unique<TrainJob>();
        job->config = trainConfigOf(s, train::kAllSchemes[e], seed);
        job->seedIndex = seed;
        jobs.push_back(std::move(job));
      }
    }
  } catch (const std::invalid_argument& e) {
    s.error = e.what();
    return false;
  }
  if (jobs.empty()) {
    s.error = "tick at least one encoding";
    return false;
  }
  s.error.clear();
  s.message.clear();
  s.session.reset();   // stops and joins the last session's threads
  s.session = std::make_unique<TrainSession>(std::move(jobs), workerThreads(s));
  s.session->start();
  return true;
}

void stopTraining(TrainPanelState& s) {
  if (s.session) s.session->stop();
}

void resumeTraining(TrainPanelState& s) {
  if (s.session) s.session->resume();
}

bool trainingActive(const TrainPanelState& s) { return s.session && (s.session->active() || s.session->anyRunning()); }

bool saveTrainRuns(TrainPanelState& s, const std::string& dir) {
  if (!s.session || s.session->anyRunning()) {
    s.error = !s.session ? "nothing to save: train or load runs first" : "stop the runs before saving them";
    return false;
  }
  int saved = 0;
  try {
    for (const auto& job : s.session->jobs()) {
      if (!job->trainer) continue;
      const std::filesystem::path path = std::filesystem::path(dir) / train::positionSchemeName(job->config.model.position.scheme) /
                                         ("seed-" + std::to_string(job->config.seed));
      std::filesystem::create_directories(path);
      train::saveRun(path.string(), *job->trainer);
      {
        std::lock_guard lock(job->mutex);
        job->folder = path.string();
        job->folderStep = job->trainer->step();
      }
      ++saved;
    }
  } catch (const std::exception& e) {
    s.error = std::string("save: ") + e.what();
    return false;
  }
  s.error.clear();
  s.message = "saved " + std::to_string(saved) + (saved == 1 ? " run to " : " runs to ") + dir;
  return true;
}

namespace {

// The run folders under dir: dir itself when it holds a run, else dir/<scheme>/seed-<n>/, in
// core's scheme order and by seed.
std::vector<std::filesystem::path> runFolders(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  if (fs::is_regular_file(dir / train::kConfigFileName)) return {dir};
  std::vector<fs::path> out;
  for (PositionScheme p : train::kAllSchemes) {
    const fs::path schemeDir = dir / train::positionSchemeName(p);
    if (!fs::is_directory(schemeDir)) continue;
    std::vector<fs::path> seeds;
    for (const fs::directory_entry& e : fs::directory_iterator(schemeDir))
      if (e.is_directory() && fs::is_regular_file(e.path() / train::kConfigFileName)) seeds.push_back(e.path());
    std::sort(seeds.begin(), seeds.end());
    out.insert(out.end(), seeds.begin(), seeds.end());
  }
  return out;
}

// A loaded run as a job: its Trainer rebuilt on one thread, its optimiser's moments kept.
std::unique_ptr<TrainJob> loadedJob(const std::filesystem::path& dir) {
  train::Trainer loaded = train::loadRun(dir.string());
  train::TrainConfig c = loaded.config();
  c.threads = 1;
  auto job = std::make_unique<TrainJob>();
  job->config = c;
  job->trainer = std::make_unique<train::Trainer>(c, loaded.model(), loaded.step());
  job->trainer->optimizer().setMoments(loaded.optimizer().firstMoment(), loaded.optimizer().secondMoment());
  job->step = loaded.step();
  job->folder = dir.string();
  job->folderStep = loaded.step();
  // The saved loss curve (history.safetensors), so a loaded run's curve starts at step 1; a run
  // saved without one starts at the loaded step.
  const std::vector<train::StepReport>& history = loaded.history();
  job->firstLossStep = history.empty() ? loaded.step() + 1 : history.front().step;
  for (const train::StepReport& r : history) job->losses.push_back(r.loss);
  job->trainer->restoreHistory(history);
  job->status = loaded.finished() ? TrainJobStatus::Queued : TrainJobStatus::Stopped;
  return job;
}

// The inputs follow a loaded run where a control can show its values.
void takeInputs(TrainPanelState& s, const train::TrainConfig& c) {
  auto take = [](const cli::Param& p, double v, auto& field) {
    if (cli::fitsParam(p, v)) field = static_cast<std::remove_reference_t<decltype(field)>>(v);
  };
  s.task = c.task.kind;
  take(table::kTrainLength, c.task.trainLength, s.trainLength);
  take(table::kSteps, static_cast<double>(c.steps), s.steps);
  take(table::kDModel, c.model.dModel, s.dModel);
  take(table::kLayers, c.model.numLayers, s.layers);
  take(table::kHeads, c.model.numHeads, s.heads);
  take(table::kBatch, c.batchSize, s.batch);
  take(table::kLearningRate, c.optim.learningRate, s.learningRate);
}

}  // namespace

bool loadTrainRuns(TrainPanelState& s, const std::string& dir) {
  std::vector<std::unique_ptr<TrainJob>> jobs;
  int skipped = 0;
  try {
    for (const std::filesystem::path& p : runFolders(dir)) {
      std::unique_ptr<TrainJob> job = loadedJob(p);
      const train::TaskConfig& t = job->config.task;
      if (!jobs.empty() && (t.kind != jobs.front()->config.task.kind || t.trainLength != jobs.front()->config.task.trainLength)) {
        ++skipped;   // another task or length: not comparable with the first run
        continue;
      }
      int seedIndex = 0;
      for (const auto& other : jobs) seedIndex += other->config.model.position.scheme == job->config.model.position.scheme;
      job->seedIndex = seedIndex;
      jobs.push_back(std::move(job));
    }
  } catch (const std::exception& e) {
    s.error = std::string("load: ") + e.what();
    return false;
  }
  if (jobs.empty()) {
    s.error = "load: no saved run in " + dir + " (a run's folder holds config.json and model.safetensors)";
    return false;
  }
  takeInputs(s, jobs.front()->config);
  for (int e = 0; e < kTrainSchemes; ++e) {
    bool present = false;
    for (const auto& job : jobs) present = present || job->config.model.position.scheme == train::kAllSchemes[e];
    s.encodings[static_cast<std::size_t>(e)] = present;
  }
  s.error.clear();
  s.message = "loaded " + std::to_string(jobs.size()) + (jobs.size() == 1 ? " run" : " runs") + " from " + dir +
              (skipped > 0 ? " (" + std::to_string(skipped) + " of another task or length left out)" : "");
  s.session.reset();
  s.session = std::make_unique<TrainSession>(std::move(jobs), workerThreads(s));
  s.session->start();
  return true;
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Drawing: controls
// -----------------------------------------------------------------------------------------------

namespace {

// A group's title over a line (ImGui 1.86 has no SeparatorText).
void heading(const char* text) {
  ImGui::Spacing();
  ImGui::TextDisabled("%s", text);
  ImGui::Separator();
}

// The chosen task in one sentence (shown under the control), then every task.
std::string taskTeach(train::TaskKind k) {
  const char* first = "";
  switch (k) {
    case train::TaskKind::Copy: first = "Copy: after SEP, repeat the n symbols in order."; break;
    case train::TaskKind::Reverse: first = "Reverse: after SEP, the n symbols backwards."; break;
    case train::TaskKind::Retrieve: first = "Retrieve: after SEP and @p, the symbol at position p (absolute position)."; break;
    case train::TaskKind::Assoc: first = "Assoc: n key-value pairs, then a key: answer its value (content, not position)."; break;
    case train::TaskKind::Count: first = "Count: after SEP and a symbol, how often it occurs among the n (#c)."; break;
  }
  return std::string(first) +
         "\ncopy: BOS x1 .. xn SEP x1 .. xn. reverse: BOS x1 .. xn SEP xn .. x1. retrieve: BOS x1 .. xn SEP @p xp. "
         "assoc: BOS k1 v1 .. kn vn SEP kq vq. count: BOS x1 .. xn SEP s #c. Loss and accuracy count the answer tokens only.";
}

bool drawTaskChoice(TrainPanelState& s) {
  int index = static_cast<int>(s.task);
  const std::string current(table::kTask.choiceName(index));
  bool changed = false;
  if (ImGui::BeginCombo(std::string(table::kTask.label).c_str(), current.c_str())) {
    for (int i = 0; i < table::kTask.choiceCount(); ++i) {
      const std::string name(table::kTask.choiceName(i));
      if (ImGui::Selectable(name.c_str(), i == index)) {
        index = i;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  HelpMarker(paramHelpText(table::kTask, taskTeach(s.task).c_str()).c_str());
  if (changed) s.task = static_cast<train::TaskKind>(index);
  return changed;
}

// One checkbox per scheme core trains, three to a row.
void drawEncodingChecks(TrainPanelState& s) {
  ImGui::TextUnformatted("encodings");
  HelpMarker(paramHelpText(table::kEncodings,
                           "One model per ticked encoding and seed.\nnope: no position, the causal mask only. sinusoidal and learned are added to the tokens; "
                           "rope and xpos rotate q and k; alibi, t5, fire and kerple add a bias to the scores (t5, fire "
                           "and kerple learn theirs).").c_str());
  const float column = ImGui::GetFontSize() * 7.0f;
  for (int e = 0; e < kTrainSchemes; ++e) {
    if (e % 3 != 0) ImGui::SameLine(static_cast<float>(e % 3) * column);
    bool on = s.encodings[static_cast<std::size_t>(e)];
    if (ImGui::Checkbox(train::positionSchemeName(train::kAllSchemes[e]), &on)) s.encodings[static_cast<std::size_t>(e)] = on;
  }
}

void drawRunButtons(TrainPanelState& s) {
  const int schemes = static_cast<int>(std::count(s.encodings.begin(), s.encodings.end(), true));
  const int runs = schemes * s.seeds, threads = std::min(runs, workerThreads(s));
  const bool running = s.session && s.session->active();
  if (ImGui::Button("Start")) startTraining(s);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("train new runs with these settings (the runs shown are replaced)");
  ImGui::SameLine();
  ImGui::BeginDisabled(!running);
  if (ImGui::Button("Stop")) stopTraining(s);
  ImGui::EndDisabled();
  ImGui::SameLine();
  bool stopped = false;
  if (s.session && !running)
    for (const auto& job : s.session->jobs()) {
      std::lock_guard lock(job->mutex);
      stopped = stopped || job->status == TrainJobStatus::Stopped;
    }
  ImGui::BeginDisabled(!stopped);
  if (ImGui::Button("Resume")) resumeTraining(s);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("go on from the step each run stopped at: the same weights as a run never stopped");
  ImGui::TextWrapped("%d runs (%d encodings x %d seeds), %d at a time, %s steps each", runs, schemes, s.seeds,
                     std::max(threads, 1), formatCount(s.steps).c_str());
}

void drawRunFolder(TrainPanelState& s) {
  heading("saved runs");
  const bool chosen = PathAsked::Chosen == pathField({"##run-folder", "", {}, true, 0.0f}, s.runFolder, s.runFolderPick);
  HelpMarker(paramHelpText(table::kRunFolder, nullptr).c_str());
  const bool busy = s.session && s.session->anyRunning();
  ImGui::BeginDisabled(s.runFolder.empty() || busy || !s.session);
  if (ImGui::Button("Save") && saveTrainRuns(s, s.runFolder)) platform::folderSaved(s.runFolder);
  platform::noteButton("run-folder-save", ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y, ImGui::GetItemRectSize().x,
                       ImGui::GetItemRectSize().y);
  ImGui::EndDisabled();
  if (!platform::saveOffersFolders() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("kept in the page for Load and the Learned tab, and downloaded as one .tar (tar xf unpacks it for posviz)");
  ImGui::SameLine();
  ImGui::BeginDisabled(s.runFolder.empty());
  if (ImGui::Button("Load") || (chosen && !s.runFolder.empty())) loadTrainRuns(s, s.runFolder);
  ImGui::EndDisabled();
  if (!s.message.empty()) ImGui::TextWrapped("%s", s.message.c_str());
}

void drawControls(TrainPanelState& s) {
  drawRunButtons(s);
  if (!s.error.empty()) ErrorText(s.error);
  heading("task");
  drawTaskChoice(s);
  paramSlider(table::kTrainLength, s.trainLength, "Lengths up to L are trained; 2L .. 8L are never seen in training.");
  heading("model");
  drawEncodingChecks(s);
  paramSlider(table::kDModel, s.dModel);
  paramSlider(table::kLayers, s.layers);
  paramSlider(table::kHeads, s.heads);
  heading("training");
  paramSlider(table::kSteps, s.steps);
  paramSlider(table::kSeeds, s.seeds, "The spread over seeds shows what is the scheme and what is luck.");
  paramSlider(table::kBatch, s.batch);
  paramSlider(table::kLearningRate, s.learningRate);
  drawRunFolder(s);
}

}  // namespace

// -----------------------------------------------------------------------------------------------
// [SECTION] Drawing: progress and the empty state
// -----------------------------------------------------------------------------------------------

namespace {

// A swatch of the scheme's colour, then its name.
void schemeLabel(PositionScheme p) {
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 pos = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(pos.x, pos.y + h * 0.2f), ImVec2(pos.x + h * 0.6f, pos.y + h * 0.8f),
                                            schemeColor(p));
  ImGui::Dummy(ImVec2(h * 0.7f, h));
  ImGui::SameLine(0.0f, 0.0f);
  ImGui::TextUnformatted(train::positionSchemeName(p));
}

// One run's progress bar: its steps, and what it is doing.
void drawJobCell(const TrainJob& job) {
  std::lock_guard lock(job.mutex);
  const float fraction = static_cast<float>(static_cast<double>(job.step) / static_cast<double>(job.config.steps));
  std::string overlay = formatCount(job.step) + " / " + formatCount(job.config.steps);
  if (job.status != TrainJobStatus::Running) overlay += std::string("  ") + trainJobStatusName(job.status);
  ImU32 color = themed(IM_COL32(66, 130, 200, 255));   // training
  if (job.status == TrainJobStatus::Done) color = themed(IM_COL32(60, 125, 85, 255));
  else if (job.status == TrainJobStatus::Stopped) color = themed(IM_COL32(150, 120, 50, 255));
  else if (job.status == TrainJobStatus::Failed) color = themed(IM_COL32(190, 60, 60, 255));
  ImGui::PushStyleColor(ImGuiCol_PlotHistogram, color);
  ImGui::ProgressBar(job.status == TrainJobStatus::Failed ? 1.0f : fraction, ImVec2(-1.0f, 0.0f), overlay.c_str());
  ImGui::PopStyleColor();
  if (job.status == TrainJobStatus::Failed) {
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", job.error.c_str());
  } else if (ImGui::IsItemHovered() && !job.losses.empty()) {
    ImGui::SetTooltip("seed %llu: step %lld, last loss %s", static_cast<unsigned long long>(job.config.seed), job.step,
                      formatShort(job.losses.back(), 4).c_str());
  }
}

// Rows: schemes; columns: seeds.
void drawProgress(const TrainSession& s) {
  int seeds = 1;
  for (const auto& job : s.jobs()) seeds = std::max(seeds, job->seedIndex + 1);
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame;
  if (!ImGui::BeginTable("train-progress", seeds + 1, flags)) return;
  ImGui::TableSetupColumn("encoding", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 8.0f);
  for (int i = 0; i < seeds; ++i) ImGui::TableSetupColumn(("seed " + std::to_string(i + 1)).c_str());
  ImGui::TableHeadersRow();
  for (PositionScheme p : sessionSchemes(s)) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    schemeLabel(p);
    for (int i = 0; i < seeds; ++i) {
      ImGui::TableNextColumn();
      for (const auto& job : s.jobs())
        if (job->config.model.position.scheme == p && job->seedIndex == i) {
          ImGui::PushID(job.get());
          drawJobCell(*job);
          ImGui::PopID();
        }
    }
  }
  ImGui::EndTable();
}

// Tokens as chips: the input grey, the answer in colour (core's example of length n).
void drawExample(const train::TaskConfig& t, int n) {
  const train::Example ex = train::makeExample(t, n, 7);
  ImGui::Text("n = %d:", n);
  const float pad = ImGui::GetFontSize() * 0.25f, right = ImGui::GetContentRegionMax().x;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (std::size_t i = 0; i < ex.sequence.size(); ++i) {
    const std::string name = train::tokenName(t, ex.sequence[i]);
    const ImVec2 size = ImGui::CalcTextSize(name.c_str());
    const float w = size.x + 2.0f * pad;
    ImGui::SameLine(0.0f, pad);
    if (ImGui::GetCursorPosX() + w > right) ImGui::NewLine();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const bool answer = static_cast<int>(i) >= ex.answerStart;
    dl->AddRectFilled(p, ImVec2(p.x + w, p.y + size.y + pad), answer ? themed(IM_COL32(40, 110, 170, 255)) : themed(IM_COL32(70, 70, 78, 255)),
                      pad);
    dl->AddText(ImVec2(p.x + pad, p.y + pad * 0.5f), themed(IM_COL32(240, 240, 240, 255)), name.c_str());
    ImGui::Dummy(ImVec2(w, size.y + pad));
  }
}

void drawEmptyState(const TrainPanelState& s) {
  ImGui::TextWrapped("Nothing trained yet. Start trains a small transformer on the task once per ticked encoding and "
                     "seed, all on the same data. Lengths up to L = %d are trained; accuracy is then measured up to "
                     "8 L = %d, where the model has never been. Examples of the task (answer tokens in blue):",
                     s.trainLength, kTrainEvalMultiples * s.trainLength);
  train::TaskConfig t;
  t.kind = s.task;
  t.trainLength = s.trainLength;
  try {
    drawFigure("task-examples", {"The task: example sequences at the trained length and twice it", ""},
               ImVec2(ImGui::GetContentRegionAvail().x, 0.0f), [&](ImVec2) {
                 for (int m : {1, 2}) drawExample(t, m * s.trainLength);
               });
  } catch (const std::invalid_argument& e) {
    ErrorText(e.what());
  }
  ImGui::Spacing();
  ImGui::TextWrapped("Press Start (top left). While the runs train: each run's progress and the loss curves, one line per "
                     "encoding. When they finish: accuracy at n = L, 2L, .., 8L per encoding with its spread over seeds; "
                     "one example's attention at 1x, 2x and 4x L; a learned table and how alike its rows are; the biases "
                     "ALiBi, T5, FIRE and KERPLE heads ended with.");
}

}  // namespace

// -----------------------------------------------------------------------------------------------
// [SECTION] Drawing: loss and accuracy
// -----------------------------------------------------------------------------------------------

namespace {

void drawLossPlot(const TrainSession& s, float w, float h) {
  PlotSpec p;
  p.title = "training loss (mean over seeds; thin: min and max)";
  p.xTitle = "step";
  p.yTitle = "loss (nats)";
  p.yTip = "cross-entropy of the answer tokens, each point the mean of its steps";
  p.logY = true;
  p.hideLegend = true;
  p.fixedX = true;
  p.xMin = 0.0;
  p.xMax = static_cast<double>(s.config().steps);
  p.series = lossSeries(s);
  bool any = false;
  for (const PlotSeries& line : p.series) any = any || !line.x.empty();
  if (!any) p.note = "waiting for the first steps";
  if (!p.note.empty()) p.noteSlot = p.note;
  drawPlot("train-loss", p, w, h);
}

PlotSpec accuracySpec(const std::vector<TrainAccuracy>& acc, int l) {
  PlotSpec p;
  p.title = "accuracy against length (mean over seeds; thin: min and max)";
  p.xTitle = "length n (symbols)";
  p.yTitle = "accuracy";
  p.yTip = "answer tokens predicted right / answer tokens, " + std::to_string(kTrainEvalExamples) + " examples per length";
  p.hideLegend = true;
  p.fixedY = true;
  p.yMin = 0.0;
  p.yMax = 1.02;
  p.fixedX = true;
  p.xMin = 0.5 * l;
  p.xMax = (kTrainEvalMultiples + 0.5) * l;
  for (int m = 1; m <= kTrainEvalMultiples; ++m) p.xTicks.push_back({static_cast<double>(m * l), std::to_string(m * l)});
  p.markers.push_back({static_cast<double>(l), "trained L", 0});
  for (const TrainAccuracy& a : acc) {
    const unsigned int c = schemeColor(a.scheme);
    const std::string name = train::positionSchemeName(a.scheme);
    std::vector<double> x(a.lengths.begin(), a.lengths.end());
    if (a.runs > 1) {
      p.series.push_back({name + " min", x, a.min, faded(c), false, 1.0f});
      p.series.push_back({name + " max", x, a.max, faded(c), false, 1.0f});
    }
    p.series.push_back({name, x, a.mean, c, false, 2.0f, true});
    const auto first = std::find(a.noRow.begin(), a.noRow.end(), true);
    if (first != a.noRow.end()) {
      const double from = a.lengths[static_cast<std::size_t>(first - a.noRow.begin())] - 0.5 * l;
      p.bands.push_back({from, p.xMax, name + ": no row", 0x30a0a0a0u});
    }
  }
  return p;
}

void drawAccuracyTable(const std::vector<TrainAccuracy>& acc) {
  if (acc.empty()) return;
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("train-accuracy", kTrainEvalMultiples + 1, flags)) return;
  ImGui::TableSetupColumn("accuracy at n =", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 8.0f);   // mean over seeds
  for (int m = 0; m < kTrainEvalMultiples; ++m)
    ImGui::TableSetupColumn((std::to_string(acc.front().lengths[static_cast<std::size_t>(m)]) + (m == 0 ? " (L)" : "")).c_str());
  ImGui::TableHeadersRow();
  for (const TrainAccuracy& a : acc) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    schemeLabel(a.scheme);
    for (std::size_t i = 0; i < a.lengths.size(); ++i) {
      ImGui::TableNextColumn();
      if (a.noRow[i]) ImGui::TextDisabled("no row");
      else ImGui::TextUnformatted(std::isnan(a.mean[i]) ? "-" : formatShort(a.mean[i], 3).c_str());
      if (!ImGui::IsItemHovered()) continue;
      if (a.noRow[i])
        ImGui::SetTooltip("a learned table has one row per trained position: an input of n = %d has positions it has no row for, "
                          "so there is no number to show", a.lengths[i]);
      else if (!std::isnan(a.mean[i]))
        ImGui::SetTooltip("%s at n = %d: %s%s", train::positionSchemeName(a.scheme), a.lengths[i], accuracyCellText(a, i).c_str(),
                          a.runs > 1 ? (" (mean [min, max] over " + std::to_string(a.runs) + " seeds)").c_str() : "");
    }
  }
  ImGui::EndTable();
}

void drawCurves(const TrainSession& s) {
  const std::vector<TrainAccuracy> acc = summarizeAccuracy(s);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float rowH = ImGui::GetTextLineHeight() + 2.0f * style.CellPadding.y;
  const float tableH = rowH * static_cast<float>(acc.size() + 1) + style.ItemSpacing.y;
  const float h = std::max(180.0f, ImGui::GetContentRegionAvail().y - tableH - style.ItemSpacing.y);
  const float w = (ImGui::GetContentRegionAvail().x - style.ItemSpacing.x) * 0.5f;
  drawLossPlot(s, w, h);
  ImGui::SameLine();
  bool any = false;
  for (const TrainAccuracy& a : acc) any = any || a.runs > 0;
  PlotSpec p = accuracySpec(acc, s.config().task.trainLength);
  if (!any) {
    p.note = "when the first run has finished";
    p.noteSlot = p.note;
  }
  drawPlot("train-accuracy", p, w, h);
  drawFigure("accuracy-table", {"Answer accuracy by length, per encoding", ""}, ImVec2(ImGui::GetContentRegionAvail().x, 0.0f),
             [&](ImVec2) { drawAccuracyTable(acc); });
}

}  // namespace

// -----------------------------------------------------------------------------------------------
// [SECTION] Drawing: attention, learned table, biases
// -----------------------------------------------------------------------------------------------

namespace {

// The first seed's job of a scheme (null when the session has none).
const TrainJob* firstJob(const TrainSession& s, PositionScheme p) {
  for (const auto& job : s.jobs())
    if (job->config.model.position.scheme == p && job->seedIndex == 0) return job.get();
  return nullptr;
}

// The first seed's result of a scheme (null when it has not finished).
std::shared_ptr<const TrainRunResult> firstResult(const TrainSession& s, PositionScheme p) {
  const TrainJob* job = firstJob(s, p);
  if (job == nullptr) return nullptr;
  std::lock_guard lock(job->mutex);
  return job->result;
}

// The folder that holds the first seed's run of scheme p as it is now, "" when it is not on disk
// (never saved, or trained on since).
std::string savedFolder(const TrainSession& s, PositionScheme p) {
  const TrainJob* job = firstJob(s, p);
  if (job == nullptr) return "";
  std::lock_guard lock(job->mutex);
  return job->folderStep == job->step ? job->folder : std::string();
}

// A framed box saying why a view has nothing to show.
void emptyBox(const char* id, const std::string& text, float w, float h) {
  ImGui::BeginChild(id, ImVec2(w, h), true);
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::EndChild();
}

void drawAttentionChoice(TrainPanelState& s, const TrainSession& session) {
  const std::vector<PositionScheme> schemes = sessionSchemes(session);
  if (std::find(schemes.begin(), schemes.end(), s.attentionScheme) == schemes.end()) s.attentionScheme = schemes.front();
  ImGui::TableNextColumn();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
  if (ImGui::BeginCombo("encoding", train::positionSchemeName(s.attentionScheme))) {
    for (PositionScheme p : schemes)
      if (ImGui::Selectable(train::positionSchemeName(p), p == s.attentionScheme)) s.attentionScheme = p;
    ImGui::EndCombo();
  }
  const train::ModelConfig& m = session.config().model;
  ImGui::TableNextColumn();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
  paramSlider(table::kLayer, s.attentionLayer, nullptr, SliderSpan{0, static_cast<double>(m.numLayers - 1)});
  ImGui::TableNextColumn();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
  paramSlider(table::kHead, s.attentionHead, nullptr, SliderSpan{0, static_cast<double>(m.numHeads - 1)});
  s.attentionLayer = std::clamp(s.attentionLayer, 0, m.numLayers - 1);
  s.attentionHead = std::clamp(s.attentionHead, 0, m.numHeads - 1);
}

void drawAttentionMap(TrainPanelState& s, const train::AttentionMaps& a, std::size_t i, bool fresh, float w, float h) {
  const int l = a.length / kTrainAttentionMultiples[i];
  ImGui::BeginGroup();
  ImGui::Text("n = %d (%dx L): %d tokens", a.length, kTrainAttentionMultiples[i], a.tokens);
  if (a.status == train::EvalStatus::NoRow) {
    emptyBox(("no-row-" + std::to_string(i)).c_str(),
             "no row: the learned table has a row for each position of the trained inputs (n <= " + std::to_string(l) +
                 "); this input has " + std::to_string(a.tokens) + " tokens, so its later positions have no vector at all.",
             w, h);
    ImGui::EndGroup();
    return;
  }
  const Grid& g = a.maps[static_cast<std::size_t>(s.attentionLayer * a.heads + s.attentionHead)];
  HeatmapState& hs = s.attentionMaps[i];
  if (fresh) refreshImage(g, hs, s.attentionImages[i], s.version, true, 256);
  HeatmapSpec spec = attentionWeightSpec(g, a.labels, a.labels, "attention weight");
  spec.rowTip = "query token i: the token that attends (row i sums to 1)";
  spec.colTip = "key token j; the scored predictions are those of queries " + std::to_string(a.answerStart) + " on";
  if (drawHeatmap(("train-attention-" + std::to_string(i)).c_str(), hs, spec, s.attentionImages[i], w, h))
    refreshImage(g, hs, s.attentionImages[i], s.version, false, 256);
  ImGui::EndGroup();
}

// The example the maps show, at n = L: its tokens, the answer's marked.
void drawExampleTokens(const train::AttentionMaps& a) {
  std::string text;
  for (std::size_t i = 0; i < a.labels.size(); ++i) {
    const bool first = i == static_cast<std::size_t>(a.answerStart);
    text += (i > 0 ? " " : "") + (first ? "[" + a.labels[i] + "]" : a.labels[i]);
  }
  ImGui::TextWrapped("seed 1, the example at n = %d (the predictions from [%s] on are scored): %s", a.length,
                     a.labels[static_cast<std::size_t>(a.answerStart)].c_str(), text.c_str());
}

void drawAttention(TrainPanelState& s, const TrainSession& session) {
  if (ImGui::BeginTable("attention-controls", 3)) {
    drawAttentionChoice(s, session);
    ImGui::EndTable();
  }
  const std::shared_ptr<const TrainRunResult> r = firstResult(session, s.attentionScheme);
  if (r && !r->attention.empty()) drawExampleTokens(r->attention.front());
  const float avail = ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing();
  if (!r || r->attention.size() != kTrainAttentionMultiples.size()) {
    emptyBox("attention-wait", "The attention maps appear when this encoding's first seed has finished.", 0.0f, avail);
    return;
  }
  const int key = s.attentionLayer * 8 + s.attentionHead;
  const bool fresh = r != s.attentionShown || key != s.attentionShownMap;
  s.attentionShown = r;
  s.attentionShownMap = key;
  const float w = (ImGui::GetContentRegionAvail().x - 2.0f * ImGui::GetStyle().ItemSpacing.x) / 3.0f;
  const float h = std::min(avail, w * 1.1f);
  for (std::size_t i = 0; i < kTrainAttentionMultiples.size(); ++i) {
    if (i > 0) ImGui::SameLine();
    drawAttentionMap(s, r->attention[i], i, fresh, w, h);
  }
}

HeatmapSpec tableSpec(const std::shared_ptr<const TrainRunResult>& r) {
  const Grid& t = *r->learnedTable;
  HeatmapSpec spec;
  spec.logicalRows = t.rows;
  spec.logicalCols = t.cols;
  spec.rowAxis = {"position", 0.0, 1.0};
  spec.colAxis = {"dimension", 0.0, 1.0};
  spec.valueName = "P[pos][dim]";
  spec.colormap = Colormap::RdBu;
  spec.symmetricRange = true;
  spec.exactValue = [r](long long row, long long col) {
    return static_cast<double>(r->learnedTable->at(static_cast<int>(row), static_cast<int>(col)));
  };
  return spec;
}

HeatmapSpec similaritySpec(const std::shared_ptr<const TrainRunResult>& r) {
  const Grid& g = *r->learnedSimilarity;
  HeatmapSpec spec;
  spec.logicalRows = g.rows;
  spec.logicalCols = g.cols;
  spec.rowAxis = {"position a", 0.0, 1.0};
  spec.colAxis = {"position b", 0.0, 1.0};
  spec.rowTip = "cos(P[a], P[b]) = P[a].P[b] / (|P[a]| |P[b]|)";
  spec.valueName = "cosine";
  spec.colormap = Colormap::RdBu;
  spec.fixedRange = true;
  spec.rangeMin = -1.0f;
  spec.rangeMax = 1.0f;
  spec.exactValue = [r](long long a, long long b) {
    return static_cast<double>(r->learnedSimilarity->at(static_cast<int>(a), static_cast<int>(b)));
  };
  return spec;
}

void drawLearnedTable(TrainPanelState& s, const TrainSession& session) {
  const std::shared_ptr<const TrainRunResult> r = firstResult(session, PositionScheme::Learned);
  const float avail = ImGui::GetContentRegionAvail().y;
  if (!r || !r->learnedTable) {
    emptyBox("table-wait", "The trained table appears when a learned run (seed 1) has finished: tick learned and Start.", 0.0f,
             avail);
    return;
  }
  const bool fresh = r != s.tableShown;
  s.tableShown = r;
  if (fresh) {
    refreshImage(*r->learnedTable, s.tableMap, s.tableImage, s.version, true);
    refreshImage(*r->learnedSimilarity, s.similarityMap, s.similarityImage, s.version, true);
  }
  ImGui::TextWrapped("The learned table of seed 1 after training: one row per position of the trained inputs (%d rows), "
                     "nothing past them. Right: how alike two positions' rows are.", r->learnedTable->rows);
  const std::string folder = savedFolder(session, PositionScheme::Learned);
  ImGui::BeginDisabled(folder.empty());
  if (ImGui::Button("Open in the Learned tab")) s.openInLearned = folder;
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::TextDisabled("%s", folder.empty() ? "Save the runs first: the Learned tab reads the table from the run's folder, as "
                                             "posviz export learned --table does"
                                           : folder.c_str());
  const float w = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
  const float h = ImGui::GetContentRegionAvail().y;
  if (drawHeatmap("train-table", s.tableMap, tableSpec(r), s.tableImage, w, h))
    refreshImage(*r->learnedTable, s.tableMap, s.tableImage, s.version, false);
  ImGui::SameLine();
  if (drawHeatmap("train-similarity", s.similarityMap, similaritySpec(r), s.similarityImage, w, h))
    refreshImage(*r->learnedSimilarity, s.similarityMap, s.similarityImage, s.version, false);
}

const char* biasNote(PositionScheme p) {
  switch (p) {
    case PositionScheme::Alibi: return "fixed slopes, not trained: -m_h * distance";
    case PositionScheme::T5: return "a learned bias per distance bucket, shared by the layers";
    case PositionScheme::Fire: return "a learned MLP of the normalized distance, per layer and head";
    case PositionScheme::Kerple: return "-r1 log(1 + r2 distance), r1 and r2 learned per layer and head";
    default: return "";
  }
}

void drawBiasPlot(const TrainPanelState& s, PositionScheme p, const TrainRunResult& r, int heads, int trainedTokens, float w,
                  float h) {
  PlotSpec spec;
  spec.title = std::string(train::positionSchemeName(p)) + ", layer " + std::to_string(s.attentionLayer) + ": " + biasNote(p);
  spec.xTitle = "distance i - j (query at the last of " + std::to_string(r.biasTokens) + " tokens)";
  spec.yTitle = "bias";
  spec.legendOutside = true;
  for (int hd = 0; hd < heads; ++hd) {
    const std::vector<double>& b = r.biasByDistance[static_cast<std::size_t>(s.attentionLayer * heads + hd)];
    PlotSeries line{"head " + std::to_string(hd), {}, b, plotColor(hd), false, 1.5f};
    for (std::size_t d = 0; d < b.size(); ++d) line.x.push_back(static_cast<double>(d));
    spec.series.push_back(std::move(line));
  }
  spec.markers.push_back({static_cast<double>(trainedTokens - 1), "longest trained distance", 0});
  drawPlot(("train-bias-" + std::string(train::positionSchemeName(p))).c_str(), spec, w, h);
}

void drawBiases(TrainPanelState& s, const TrainSession& session) {
  std::vector<PositionScheme> schemes;
  for (PositionScheme p : sessionSchemes(session))
    if (train::schemeHasBias(p)) schemes.push_back(p);
  if (schemes.empty()) {
    emptyBox("bias-wait", "No encoding with a bias was trained: tick alibi, t5, fire or kerple and Start.", 0.0f,
             ImGui::GetContentRegionAvail().y);
    return;
  }
  const train::ModelConfig& m = session.config().model;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
  paramSlider(table::kLayer, s.attentionLayer, nullptr, SliderSpan{0, static_cast<double>(m.numLayers - 1)});
  s.attentionLayer = std::clamp(s.attentionLayer, 0, m.numLayers - 1);
  const int trainedTokens = train::taskInputTokens(session.config().task, session.config().task.trainLength);
  const float h = std::max(160.0f, (ImGui::GetContentRegionAvail().y - ImGui::GetStyle().ItemSpacing.y * static_cast<float>(schemes.size())) /
                                       static_cast<float>(schemes.size()));
  for (PositionScheme p : schemes) {
    const std::shared_ptr<const TrainRunResult> r = firstResult(session, p);
    if (!r || r->biasByDistance.empty()) {
      emptyBox(train::positionSchemeName(p), std::string(train::positionSchemeName(p)) + ": its biases appear when seed 1 has finished.",
               0.0f, h);
      continue;
    }
    drawBiasPlot(s, p, *r, m.numHeads, trainedTokens, 0.0f, h);
  }
}

}  // namespace

namespace {

void viewTab(TrainPanelState& s, const char* title, TrainView v, void (*draw)(TrainPanelState&, const TrainSession&)) {
  const ImGuiTabItemFlags flags = s.selectView && s.view == v ? ImGuiTabItemFlags_SetSelected : 0;
  if (!ImGui::BeginTabItem(title, nullptr, flags)) return;
  if (!s.selectView) s.view = v;
  if (s.view == v) s.selectView = false;
  draw(s, *s.session);
  ImGui::EndTabItem();
}

void drawResults(TrainPanelState& s) {
  if (!s.session) {
    drawEmptyState(s);
    return;
  }
  drawProgress(*s.session);
  if (!ImGui::BeginTabBar("train-views")) return;
  viewTab(s, "Loss and accuracy", TrainView::Curves, [](TrainPanelState&, const TrainSession& t) { drawCurves(t); });
  viewTab(s, "Attention", TrainView::Attention, drawAttention);
  viewTab(s, "Learned table", TrainView::LearnedTable, drawLearnedTable);
  viewTab(s, "Biases", TrainView::Biases, drawBiases);
  ImGui::EndTabBar();
}

}  // namespace

void drawTrainPanel(TrainPanelState& s, AppContext& ctx) {
  const float fh = ImGui::GetFontSize();
  ImGui::BeginChild("train-controls", ImVec2(std::min(fh * 22.0f, std::floor(ImGui::GetContentRegionAvail().x * 0.4f)), 0), true);
  ImGui::PushItemWidth(fh * 10.0f);
  drawControls(s);
  ImGui::PopItemWidth();
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("train-results", ImVec2(0, 0), false);
  drawResults(s);
  ImGui::EndChild();
  if (s.session) s.session->runSlice(platform::kSliceMillis);
  // Training is not reported as busy: a busy view makes the window draw as fast as it can, and on
  // two cores the frames would take the time the runs need. Idle, the window still draws ten
  // frames a second (the shell's idle wait), enough for the loss lines to move.
  (void)ctx;
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Settings and the tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

constexpr std::array<const char*, 4> kViewNames = {"curves", "attention", "learned-table", "biases"};

}  // namespace

// Every parameter the tab keeps with the member that holds it: save and load walk this one list.
template <class State, class Visit>
void eachTrainPanelParam(State& s, Visit&& visit) {
  visit(table::kTrainLength, s.trainLength);
  visit(table::kSteps, s.steps);
  visit(table::kSeeds, s.seeds);
  visit(table::kDModel, s.dModel);
  visit(table::kLayers, s.layers);
  visit(table::kHeads, s.heads);
  visit(table::kBatch, s.batch);
  visit(table::kLearningRate, s.learningRate);
  visit(table::kLayer, s.attentionLayer);
  visit(table::kHead, s.attentionHead);
}

void saveTrainPanel(const TrainPanelState& s, nlohmann::json& j) {
  eachTrainPanelParam(s, ParamSaver{j});
  cli::saveParam(j, table::kTask, static_cast<int>(s.task));
  nlohmann::json names = nlohmann::json::array();
  for (int e = 0; e < kTrainSchemes; ++e)
    if (s.encodings[static_cast<std::size_t>(e)]) names.push_back(train::positionSchemeName(train::kAllSchemes[e]));
  j[std::string(table::kEncodings.key)] = names;
  j[std::string(table::kRunFolder.key)] = s.runFolder;
  j["attention_encoding"] = train::positionSchemeName(s.attentionScheme);
  j["view"] = kViewNames[static_cast<std::size_t>(s.view)];
}

void loadTrainPanel(TrainPanelState& s, const nlohmann::json& j) {
  eachTrainPanelParam(s, ParamLoader{j});
  if (int t = 0; cli::loadParam(j, table::kTask, t)) s.task = static_cast<train::TaskKind>(t);
  if (const auto it = j.find(std::string(table::kEncodings.key)); it != j.end() && it->is_array()) {
    std::array<bool, kTrainSchemes> on{};
    bool valid = true;
    for (const nlohmann::json& name : *it) {
      const std::optional<PositionScheme> p = name.is_string() ? train::parsePositionScheme(name.get<std::string>()) : std::nullopt;
      if (p) on[static_cast<std::size_t>(schemeIndex(*p))] = true;
      else valid = false;
    }
    if (valid) s.encodings = on;
  }
  readSetting(j, std::string(table::kRunFolder.key).c_str(), s.runFolder);
  if (std::string name; readSetting(j, "attention_encoding", name))
    if (const std::optional<PositionScheme> p = train::parsePositionScheme(name)) s.attentionScheme = *p;
  if (std::string name; readSetting(j, "view", name))
    for (std::size_t v = 0; v < kViewNames.size(); ++v)
      if (name == kViewNames[v]) {
        s.view = static_cast<TrainView>(v);
        s.selectView = true;
      }
}

namespace {

// A visible change for the tests: the trained length, which the task examples show.
void tweakTrain(AppState& a) { a.train.trainLength = a.train.trainLength == 8 ? 16 : 8; }

}  // namespace

namespace {

void drawTrainTab(AppState& a, AppContext& c) {
  drawTrainPanel(a.train, c);
  if (a.train.openInLearned.empty()) return;
  openLearnedSource(a.learned, a.train.openInLearned);
  a.train.openInLearned.clear();
  a.requestedPanel = findPanel("learned");
}

}  // namespace

const PanelDef kTrainPanel{"train", drawTrainTab, nullptr,
                           [](const AppState& a, nlohmann::json& j) { saveTrainPanel(a.train, j); },
                           [](AppState& a, const nlohmann::json& j) { loadTrainPanel(a.train, j); }, tweakTrain};

}  // namespace posviz::app
