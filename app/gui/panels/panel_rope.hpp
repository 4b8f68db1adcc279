// panel_rope.hpp: the RoPE view. State is a plain struct owned by AppState.
//
// Shows q and k (seeded or typed), the dim pairing of both layouts and the permutation between
// them, every pair as a rotating vector at positions m and n, the positions x pairs angle / cos /
// sin grids, the score grid s(m, n) = <R_m q, R_n k> (up to kRopeMaxPositions per axis, area-
// averaged windows computed on a worker from core's ropeScoreByOffset), s against m - n, and
// RoFormer's decay bound. Every number comes from core/rope.hpp (and the GPU mirror for the
// positions x pairs grids).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/gui/base/panel_def.hpp"
#include "app/cli/model_config.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/widgets/heatmap.hpp"
#include "app/gui/widgets/worker.hpp"
#include "core/rope.hpp"
#include "app/gui/base/config_notes.hpp"

namespace posviz::app {

// Parameters and their ranges: cli::params::rope. What this tab can draw caps two of them:
constexpr int kRopeMaxPositions = 1 << 20;   // score pictures are closed-form block means at any T
constexpr int kRopePairGridMaxPositions = 16384;   // angle / cos / sin grids are computed whole
// Above this T the two curves (s by offset, the decay bound: O(T) each) are computed once the
// inputs have rested for kRopeCurveRestSeconds, so that a drag keeps the O(pixels) picture live
// and the worker idle between pictures; below it they follow every change.
constexpr int kRopeLiveCurvePositions = 65536;
constexpr double kRopeCurveRestSeconds = 0.15;

enum class RopeGridKind { Score, Angle, Cos, Sin };

// What the worker hands back for the score grid: s by offset (core), the decay bound (core) and
// the area-averaged window of s(m, n) that the heatmap asked for.
struct RopeScoreResult {
  long long inputVersion = 0;                            // RopePanelState::inputVersion it used
  long long curvesVersion = -1;                          // inputVersion the curves below belong to
  std::shared_ptr<const std::vector<double>> byOffset;   // s(r), r = -(T-1) .. T-1
  std::shared_ptr<const std::vector<double>> decayBound; // r = 0 .. T-1
  // The two curves as drawn: every run's extremes (core lineExtremes), so a frame costs the same
  // at 512 or 2^20 positions. Shared with later results for the same inputs.
  struct Curve {
    std::vector<double> x, y;
  };
  std::shared_ptr<const Curve> offsetCurve, boundCurve;
  HeatmapImage image;
};

struct RopePanelState {
  bool dirty = true;                 // recompute on the next frame
  bool posDirty = false;             // only m or n changed: re-rotate, s(m, n) stays

  // Parameters (cli::params::rope: head_dim, base, rotary fraction, layout, T, m, n, seed)
  RopeParams params;                 // core's defaults
  int numPositions = static_cast<int>(cli::params::rope::kPositions.defaultInt());   // T, both axes of s(m, n); rows of the pair grids
  int posM = static_cast<int>(cli::params::rope::kQueryPosition.defaultInt());       // query position m, 0 .. T-1
  int posN = static_cast<int>(cli::params::rope::kKeyPosition.defaultInt());         // key position n, 0 .. T-1
  bool typedVectors = false;         // q, k typed in instead of seeded
  int seed = static_cast<int>(cli::params::rope::kSeed.defaultInt());   // q = randomNormalVector(d, seed), k = ... (seed + 1)
  std::string qText, kText;          // comma lists when typed
  std::string qError, kError;        // parse errors; the last good q, k stay in use
  RopeGridKind gridKind = RopeGridKind::Score;
  int pixel = static_cast<int>(cli::params::rope::kPixel.defaultInt());   // PixelChoice: what a pixel of many cells shows
  int backendEpoch = 0;              // ctx.backendEpoch the grids were computed under

  // Derived (recomputed when dirty)
  std::vector<float> q, k;           // headDim each, the last good values
  std::vector<float> qRot, kRot;     // R_m q, R_n k (core ropeRotate)
  RopeFrequencies freqs;             // theta_i per pair, after scaling
  RopeParams shown;                  // the last accepted params: what
                                     // the diagrams and grids describe while `error` is set
  std::string error;                 // core's message when the parameters were rejected
  long long inputVersion = 0;        // bumps whenever params, q, k or T change
  double inputChangedAt = 0.0;       // steady-clock seconds of the last bump
  int viewPositions = 0, viewPairs = 0;  // grid sizes the heatmap views were set up for

  // Score grid (worker)
  AsyncResult<RopeScoreResult> score;
  HeatmapWindow requestedWindow;     // window of the last score request
  long long requestedVersion = -1;   // inputVersion of the last score request
  bool requestedCurves = false;      // ... and whether it asked for the curves too
  int requestedPixel = -1;           // ... and the pixel choice it drew
  HeatmapState scoreHeatmap;

  // Positions x pairs grid (GPU or CPU via the backend chooser)
  Grid pairGrid;                     // full grid of gridKind (Angle / Cos / Sin)
  RopeGridKind pairGridKind = RopeGridKind::Angle;
  long long pairGridVersion = -1;    // inputVersion it was computed for
  bool pairGridOnGpu = false;
  std::string pairGridNotice;
  double pairGridMs = 0.0;
  HeatmapImage pairImage;
  int pairImagePixel = -1;           // the pixel choice pairImage was drawn with
  HeatmapState pairHeatmap;
  long long imageVersion = 0;
};

void drawRopePanel(RopePanelState& s, AppContext& ctx);

// A RoPE model's config: its RopeParams (typed q, k give way to seeded ones when head_dim
// changes). Other encodings leave the panel alone.
void applyRopeConfig(RopePanelState& s, const cli::ModelConfig& c, ConfigNotes& notes);

// Settings kept between runs (unknown or out-of-range values are ignored). For the panels table.
void saveRopePanel(const RopePanelState& s, nlohmann::json& j);
void loadRopePanel(RopePanelState& s, const nlohmann::json& j);

// Applies dirty state: parses typed vectors, regenerates seeded ones, recomputes the derived
// values and requests the score window. Called by drawRopePanel; exposed for tests.
void updateRopePanel(RopePanelState& s, AppContext& ctx);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kRopePanel;

}  // namespace posviz::app
