// panel_sinusoidal.hpp: the Sinusoidal view: PE heatmap, wavelengths, clocks, similarity, M_k.
// State is a plain struct owned by AppState.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/gui/base/panel_def.hpp"
#include "app/cli/model_config.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/widgets/heatmap.hpp"
#include "app/gui/widgets/worker.hpp"
#include "core/colormap.hpp"
#include "core/sinusoidal.hpp"
#include "app/gui/base/config_notes.hpp"

namespace posviz::app {

// Slider ranges, shared with the settings loader (panels.cpp) so a saved value is read back
// exactly when a slider could have set it.
constexpr int kSinusoidalMaxPositions = 2147483647;   // 2^31 - 1: the window is averaged in closed form

enum class SinusoidalView { Encoding, Clock, Similarity, Offset };

// The Offset tab's M_k (d_model x d_model) and its checks, kept until their inputs change.
struct SinusoidalOffsetCache {
  bool valid = false;                     // false: compute on the next draw
  SinusoidalParams params;                // inputs of `matrix` and `image`
  int offsetK = 0;
  int pos = -1;                           // input of pe, peK and worst (with the above)
  std::shared_ptr<const std::vector<double>> matrix;  // M_k row-major (core); null above d_model 1024
  HeatmapImage image;                     // M_k as a picture; empty above d_model 256
  std::vector<double> pe, peK;            // PE(pos), PE(pos + k) (core)
  double worst = 0.0;                     // max over dims of |M_k PE(pos) - PE(pos + k)|
};

// The Encoding and Similarity tabs' curves, rebuilt only when what they show changes (never per
// frame: at d_model 4096 they are thousands of core calls).
struct SinusoidalCurves {
  SinusoidalParams params;
  int pos = -1, simRef = -1, simCount = -1;   // what the curves were built for
  SinusoidalTable table;                                         // core's, for params: per pair w_i, 2pi/w_i
  std::vector<double> pair;                                      // 0 .. dModel/2 - 1, the plots' x
  std::vector<double> sinDims, sinValues, cosDims, cosValues;    // PE(pos) across dims
  std::vector<double> offset, fromA, fromB;                      // PE(a).PE(a+k), two a's
};

struct SinusoidalPanelState {
  bool dirty = true;                      // recompute on the next frame
  SinusoidalParams params;                // cli::params::sinusoidal: d_model, base, layout
  int numPositions = static_cast<int>(cli::params::sinusoidal::kPositions.defaultInt());   // heatmap rows
  // The window's own parameters (cli::params::sinusoidal: range, default, help).
  int pos = static_cast<int>(cli::params::sinusoidal::kPos.defaultInt());          // clock view, M_k check
  int offsetK = static_cast<int>(cli::params::sinusoidal::kOffsetK.defaultInt());  // k of M_k
  int pair = static_cast<int>(cli::params::sinusoidal::kPair.defaultInt());        // the pair whose 2x2 block is shown
  int simPositions = static_cast<int>(cli::params::sinusoidal::kSimilarityPositions.defaultInt());   // similarity size
  int simRef = static_cast<int>(cli::params::sinusoidal::kSimilarityRef.defaultInt());  // similarity vs offset from a
  int clockThin = 0;                      // show every n-th pair in the clock view; 0 = auto
  bool playing = false;                   // advance pos over time (clock view)
  float playSpeed = static_cast<float>(cli::params::sinusoidal::kPlaySpeed.def);   // positions per second
  double playAccum = 0.0;
  Colormap colormap = Colormap::RdBu;
  int pixel = static_cast<int>(cli::params::sinusoidal::kPixel.defaultInt());   // PixelChoice: what a pixel of many rows shows
  SinusoidalView view = SinusoidalView::Encoding;
  bool selectView = true;                 // show `view` on the next frame (set with view)

  HeatmapState peMap, simMap, offsetMap;
  AsyncResult<HeatmapImage> peImage, simImage;
  long long version = 0;                  // bumps per request (texture re-upload)
  int simRequestedN = -1;
  SinusoidalParams simRequestedParams;
  std::string error;                      // last rejected input, shown inline
  SinusoidalParams accepted;              // the last params core accepted; bad ones revert to it
  int backendEpoch = 0;                   // AppContext::backendEpoch the image was requested under
  bool lastOnGpu = false;                 // the heatmap's rows came from the GPU
  std::string gpuNotice;                  // why the GPU was wanted but the CPU answered
  SinusoidalOffsetCache offset;           // the Offset tab's M_k
  SinusoidalCurves curves;
};

void drawSinusoidalPanel(SinusoidalPanelState& s, AppContext& ctx);

// A sinusoidal model's config: d_model from hidden_size, positions from max_position_embeddings.
// Other encodings leave the panel alone.
void applySinusoidalConfig(SinusoidalPanelState& s, const cli::ModelConfig& c, ConfigNotes& notes);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kSinusoidalPanel;

}  // namespace posviz::app
