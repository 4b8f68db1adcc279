// panel_extrapolation.hpp: the Extrapolation lab. State is a plain struct owned by AppState.
//
// The toy sentence of the Word order and ALiBi views, tiled to L0 x {1, 2, 4, 8} tokens, for
// every encoding (core/extrapolation.hpp): the last query's attention against distance, summed in
// log-distance bins [0], [1], [2,3], [4,7], ... (core's logDistanceBins; one plot, or one small
// plot per encoding) with the trained distances shaded, attention entropy against length with ln L (uniform) for
// reference, and the share of never-seen rotation angles per pair for the RoPE variants.
// Background jobs compute every encoding at every length when an input changes: first the length
// shown alone, so that during a drag the attention plot and the table follow the slider, then the
// other lengths (the entropy plot's points) once the inputs have rested kExtrapolationRestSeconds;
// until then the entropy plot shows the last complete result, marked as updating. A drag's jobs
// are paced (DragPacer, worker.hpp): a change's job waits for the one before it and a pause after
// it, and the latest change is the one taken. Choosing the length or the encodings shown only
// redraws.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/gui/base/panel_def.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/worker.hpp"
#include "app/cli/model_config.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/base/config_notes.hpp"
#include "app/gui/panels/train_citation.hpp"
#include "core/extrapolation.hpp"

namespace posviz::app {

constexpr int kExtrapolationEncodings = 8;        // allExtrapolationEncodings()
constexpr std::array<int, 4> kExtrapolationMultiples = {1, 2, 4, 8};
constexpr int kExtrapolationTextSize = 256;
// Parameters and their ranges: cli::params::extrapolation (L0, head_dim), rope::kBase,
// scaling::kFactor, alibi::kSlope, toy::kSeed. The tab runs L0 x 8, which must be a run core takes,
// and rope-ntk needs two pairs: controls, saved settings and a loaded config keep to these.
constexpr int kLabMaxTrainedLength = kMaxExtrapolationLength / kExtrapolationMultiples.back();
constexpr int kLabMinHeadDim = 4;
constexpr double kExtrapolationRestSeconds = 0.15;

// What the job hands back: runs[m][e] = encoding e at L0 x kExtrapolationMultiples[m]; runs[m]
// is empty for a length a drag's job left out.
struct ExtrapolationLabResult {
  long long id = 0;                       // the request it answers (ExtrapolationPanelState::requests)
  long long inputVersion = 0;             // ExtrapolationPanelState::inputVersion it was computed for
  int trainedLength = 0;
  std::vector<std::vector<ExtrapolationRun>> runs;
  std::vector<std::vector<std::vector<DistanceBin>>> bins;   // bins[m][e]: logDistanceBins(runs[m][e].weights)
  std::vector<std::vector<DistanceBin>> uniform;             // uniform[m]: L keys weighted 1/L each, binned
  bool complete() const {
    return std::none_of(runs.begin(), runs.end(), [](const std::vector<ExtrapolationRun>& row) { return row.empty(); });
  }
  std::shared_ptr<const Grid> learnedTable;   // the learned run's P, kept for the next L0
  std::uint64_t learnedSeed = 0;              // the toy model's seed it was drawn for
};

struct ExtrapolationPanelState {
  bool dirty = true;                      // inputs changed: recompute
  DragPacer pacer;                        // a drag's changes: when each may start its job (labFree)
  TrainCitation measured;                 // the Train tab's results, cited in the table
  bool plotsDirty = true;                 // length or encodings shown changed: rebuild the plots

  // Inputs
  int trainedLength = ExtrapolationSetup{}.trainedLength;   // L0, 2..kLabMaxTrainedLength
  int headDim = ExtrapolationSetup{}.model.dModel;          // toy d_model = head_dim, even, 4..4096
  double base = ExtrapolationSetup{}.base;                  // RoPE theta, > 1
  RopeScaling scaling;                    // a loaded model's YaRN betas and Llama 3 bands (method,
                                          // factor and L0 are set per run)
  bool autoFactor = true;                 // scaled RoPE's factor = L / L0 at each length
  float factor = 4.0f;                    // else this factor at every length (the parameter's default, 1, is no scaling)
  float alibiSlope = static_cast<float>(cli::params::alibi::kSlope.def);   // the toy model's slope
  int seed = static_cast<int>(cli::params::toy::kSeed.defaultInt());
  char sentence[kExtrapolationTextSize] = "The cat sat on the mat";

  // Display
  int multiple = 2;                       // index into kExtrapolationMultiples: the length of the curves
  std::array<bool, kExtrapolationEncodings> show{true, true, true, true, true, true, true, true};
  bool logWeights = true;                 // weight axis logarithmic
  bool binMean = false;                   // distance bins: mean weight of their keys, else the sum
  bool smallMultiples = false;            // one small attention plot per encoding instead of one plot

  // Derived
  std::string inputError;                 // shown inline; the last good result stays
  AsyncResult<ExtrapolationLabResult> lab;
  // The learned table of the last result: reused while L0 stays within its rows (an L0 drag draws
  // no table), for the width and seed it was drawn for.
  std::shared_ptr<const Grid> learnedTable;
  std::uint64_t learnedSeed = 0;
  long long requests = 0;                 // jobs requested
  long long inputVersion = 0;             // input changes taken (each starts a job)
  long long restRequest = -1;             // the last request (requests) that asked for the other lengths
  long long plottedId = -1;               // the result the plots show
  PlotSpec weightsPlot, entropyPlot, unseenPlot;
  std::vector<PlotSpec> weightsSmall;     // one per encoding shown that has weights, in weightsPlot's order
};

void drawExtrapolationPanel(ExtrapolationPanelState& s, AppContext& ctx);

// Starts the job when inputs changed (the length shown; the others once the inputs rest)
// and rebuilds the plots when a result or the display changed. Exposed for tests: call it until
// extrapolationBusy() turns false.
void updateExtrapolationPanel(ExtrapolationPanelState& s);
// A job runs, or the lengths a drag left out are still to be asked for.
bool extrapolationBusy(const ExtrapolationPanelState& s);

// A loaded config runs as itself (cli::labModelOf, as `export extrapolation --config` does): its
// encoding alone is shown, with its head_dim, base, L0, scaling or slope; what a slider cannot show
// is said in notes. A model the lab cannot run leaves the tab as it was, with a note.
void applyExtrapolationConfig(ExtrapolationPanelState& s, const cli::ModelConfig& c, ConfigNotes& notes);

// Settings kept between runs (unknown or out-of-range values are ignored). For the panels table.
void saveExtrapolationPanel(const ExtrapolationPanelState& s, nlohmann::json& j);
void loadExtrapolationPanel(ExtrapolationPanelState& s, const nlohmann::json& j);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kExtrapolationPanel;

}  // namespace posviz::app
