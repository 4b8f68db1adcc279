// panel_train.hpp: the Train tab: a small transformer trained live on a synthetic task, once per
// positional scheme and seed, and what each learned (issue #28, after TensorFlow Playground).
//
// WHAT IT SHOWS
//   The runs' training loss as they train (one line per scheme: the mean over seeds, thin lines
//   their min and max); when they finish, accuracy against length at 1x .. 8x the trained length
//   L (a learned table has no row past its length: a gap and "no row", never a number); one
//   example's attention at 1x, 2x and 4x L; the trained learned table and the cosine similarity of
//   its rows; the trained biases of ALiBi, T5, FIRE and KERPLE heads against distance. Every
//   number comes from core/train (the similarity is the cosine of the table's rows).
//
// RUNS
//   Start makes one job per scheme x seed and runs them on at most hardware threads - 1 worker
//   threads (one thread per run, at least one), so the window keeps a core. Stop asks every
//   running job to stop after its step; Resume queues the stopped ones again, and their Trainers
//   go on exactly where they stopped (the same bytes as an uninterrupted run). A run that reaches
//   its last step is evaluated on its thread. Save writes each run as core's saveRun does, to
//   DIR/<scheme>/seed-<n>/ (`posviz train --save-weights`'s layout); Load reads such a folder (or
//   one run's folder) back and evaluates the finished runs again.
//
// THREADS
//   A job's Trainer belongs to the thread running it; everything the window reads of a job is
//   guarded by the job's mutex. The state's destructor stops and joins every thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/cli/params/train.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/base/panel_def.hpp"
#include "app/gui/panels/train_citation.hpp"
#include "app/gui/widgets/heatmap.hpp"
#include "app/gui/widgets/path_field.hpp"
#include "core/grid.hpp"
#include "core/train/train.hpp"

namespace posviz::app {

constexpr int kTrainEvalMultiples = 8;                         // accuracy at n = L, 2L, .., 8L
constexpr std::array<int, 3> kTrainAttentionMultiples = {1, 2, 4};   // attention maps at n = L, 2L, 4L
constexpr int kTrainEvalExamples = 128;                        // examples per evaluated length
constexpr int kTrainBiasMultiple = 4;                          // biases drawn over the tokens of n = 4L
constexpr int kTrainLossPoints = 120;                          // points of a loss line, each the mean of its steps
constexpr int kTrainSchemes = static_cast<int>(std::size(train::kAllSchemes));

enum class TrainJobStatus { Queued, Running, Evaluating, Stopped, Done, Failed };
const char* trainJobStatusName(TrainJobStatus s);   // "queued", "training", "evaluating", "stopped", "done", "failed"

// What a trained run shows, computed from its model on its own thread.
struct TrainRunResult {
  std::vector<train::LengthResult> lengths;          // n = L, 2L, .., 8L
  std::vector<train::AttentionMaps> attention;       // n = kTrainAttentionMultiples x L (the first seed only)
  std::optional<Grid> learnedTable;                  // learned: maxPositions x d_model
  std::optional<Grid> learnedSimilarity;             // cos(P[a], P[b]) of its rows
  int biasTokens = 0;                                // biases: their query is the last of biasTokens
  std::vector<std::vector<double>> biasByDistance;   // [layer * heads + head][d], d = 0 .. biasTokens-1
};

// One run: a scheme and a seed.
struct TrainJob {
  train::TrainConfig config;                         // resolved (vocabulary and positions filled in)
  int seedIndex = 0;                                 // 0 .. seeds-1 within its scheme
  std::unique_ptr<train::Trainer> trainer;           // the worker's while the job runs
  std::atomic<bool> stop{false};
  mutable std::mutex mutex;                          // guards what follows
  TrainJobStatus status = TrainJobStatus::Queued;
  long long step = 0;
  std::vector<double> losses;                        // every step's training loss (this session's steps)
  long long firstLossStep = 1;                       // the step of losses[0] (a loaded run starts later)
  std::string error;
  std::shared_ptr<const TrainRunResult> result;
  std::string folder;                                // where Save wrote it or Load read it, "" if never
  long long folderStep = -1;                         // the step the folder holds (stale once it trains on)
};

// The jobs of one Start (or one Load) and the threads that run them.
class TrainSession {
 public:
  TrainSession(std::vector<std::unique_ptr<TrainJob>> jobs, int maxThreads);
  ~TrainSession();
  TrainSession(const TrainSession&) = delete;
  TrainSession& operator=(const TrainSession&) = delete;

  void start();           // runs the queued jobs (joining threads that have stopped)
  void stop();            // every running job stops after its step; queued ones wait
  void resume();          // stopped jobs are queued again, then start()
  void runSlice(double millis);   // without threads (platform::kThreads): trains for millis, else nothing
  bool active() const;    // a job is queued, running or evaluating (and not stopped)
  bool anyRunning() const;   // a worker thread is still at work
  double progress() const;   // steps done / steps of every job, 0 .. 1
  int maxThreads() const { return maxThreads_; }
  const std::vector<std::unique_ptr<TrainJob>>& jobs() const { return jobs_; }
  const train::TrainConfig& config() const { return jobs_.front()->config; }

 private:
  void runWorker();
  TrainJob* takeNext();
  void join();

  std::vector<std::unique_ptr<TrainJob>> jobs_;
  int maxThreads_ = 1;
  std::mutex queueMutex_;
  bool paused_ = false;
  std::atomic<int> working_{0};
  std::vector<std::thread> pool_;
};

// Accuracy against length of one scheme over its seeds (finished runs only).
struct TrainAccuracy {
  train::PositionScheme scheme = train::PositionScheme::None;
  int runs = 0;                                      // finished runs averaged
  std::vector<int> lengths;                          // n
  std::vector<bool> noRow;                           // a learned table has no row for n
  std::vector<double> mean, min, max;                // over seeds (NaN where noRow or no run)
};
std::vector<TrainAccuracy> summarizeAccuracy(const TrainSession& s);
// The table's cell: "0.953 [0.94, 0.97]", "0.953" for one run, "no row", or "-".
std::string accuracyCellText(const TrainAccuracy& a, std::size_t i);

enum class TrainView { Curves, Attention, LearnedTable, Biases };

// Rebuilds c from the session's finished runs when they changed since c was built (a run
// finished, a new Start or Load); true when it did. An absent session empties it.
bool refreshTrainCitation(TrainCitation& c, const TrainSession* session);

struct TrainPanelState {
  // Inputs (cli::params::training: ranges, defaults, help)
  train::TaskKind task = static_cast<train::TaskKind>(cli::params::training::kTask.defaultInt());
  std::array<bool, kTrainSchemes> encodings{true, true, true, true, true, false, false, false, false};   // kAllSchemes' order
  int trainLength = static_cast<int>(cli::params::training::kTrainLength.defaultInt());
  int steps = static_cast<int>(cli::params::training::kSteps.defaultInt());
  int seeds = static_cast<int>(cli::params::training::kSeeds.defaultInt());
  int dModel = static_cast<int>(cli::params::training::kDModel.defaultInt());
  int layers = static_cast<int>(cli::params::training::kLayers.defaultInt());
  int heads = static_cast<int>(cli::params::training::kHeads.defaultInt());
  int batch = static_cast<int>(cli::params::training::kBatch.defaultInt());
  double learningRate = cli::params::training::kLearningRate.def;
  int maxThreads = 0;                                // worker threads; 0 = hardware threads - 1 (at least 1)
  std::string runFolder;                             // Save / Load
  PathPick runFolderPick;                            // the page's chooser for a folder to load

  // Display
  TrainView view = TrainView::Curves;
  bool selectView = false;                           // show `view` on the next frame
  train::PositionScheme attentionScheme = train::PositionScheme::Rope;   // whose attention is shown
  int attentionLayer = 0, attentionHead = 0;         // also the biases' layer

  // Runs
  std::unique_ptr<TrainSession> session;             // null before the first Start or Load
  std::string error;                                 // a config core refused, a folder that did not load
  std::string message;                               // what Save or Load did
  std::string openInLearned;                         // a learned run's folder to show in the Learned tab
  std::array<HeatmapState, kTrainAttentionMultiples.size()> attentionMaps;
  std::array<HeatmapImage, kTrainAttentionMultiples.size()> attentionImages;
  std::shared_ptr<const TrainRunResult> attentionShown;   // the result, layer and head the images hold
  int attentionShownMap = -1;
  HeatmapState tableMap, similarityMap;
  HeatmapImage tableImage, similarityImage;
  std::shared_ptr<const TrainRunResult> tableShown;  // the result the table images hold
  long long version = 0;                             // texture versions of the images
};

void drawTrainPanel(TrainPanelState& s, AppContext& ctx);

// The TrainConfig of one run of the tab's inputs (resolved: throws std::invalid_argument naming
// the field when core refuses it).
train::TrainConfig trainConfigOf(const TrainPanelState& s, train::PositionScheme scheme, int seedIndex);
// Start: replaces the runs with one job per ticked scheme x seed and starts them. False (and
// s.error set) when core refuses the inputs or no scheme is ticked.
bool startTraining(TrainPanelState& s);
void stopTraining(TrainPanelState& s);
void resumeTraining(TrainPanelState& s);
bool trainingActive(const TrainPanelState& s);
// Save: every run that is not running to dir/<scheme>/seed-<n>/. Load: dir's runs (or the run in
// dir) as a new session; finished runs are evaluated again. False with s.error set on failure.
bool saveTrainRuns(TrainPanelState& s, const std::string& dir);
bool loadTrainRuns(TrainPanelState& s, const std::string& dir);

// Settings kept between runs (unknown or out-of-range values are ignored).
void saveTrainPanel(const TrainPanelState& s, nlohmann::json& j);
void loadTrainPanel(TrainPanelState& s, const nlohmann::json& j);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kTrainPanel;

}  // namespace posviz::app
