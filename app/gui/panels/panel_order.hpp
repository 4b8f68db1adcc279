// panel_order.hpp: the "why order matters" view. State is a plain struct owned by AppState.
//
// A sentence and a rearrangement of it ("dog bites man" / "man bites dog", the documents'
// "The cat sat on the mat" / "mat the on sat cat The", or any words typed in) go through the
// toy attention of core/attention.hpp. Without position the shuffled sentence's weights and
// outputs are the original's, permuted (max |Attn(PX) - P Attn(X)| = 0); with each encoding they
// are not. Heatmaps of W(X), W(PX) and P W(X) P^T for the selected encoding, the outputs
// Attn(PX) and P Attn(X), and a table of both differences for every encoding. Numbers come
// from core/order.hpp (compareOrder).
//
// The "causal, no positions (NoPE)" section (core/nope.hpp) shows what the causal mask alone
// lets a decoder without any position encoding tell apart: the outputs of the two orders differ
// beyond the permutation, and a uniform head over <bos> + the sentence counts positions
// (weight on <bos> = 1/(t+1), so t = 1/weight - 1).
#pragma once

#include <string>
#include <vector>

#include "app/gui/base/panel_def.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/widgets/heatmap.hpp"
#include "core/nope.hpp"
#include "app/gui/widgets/worker.hpp"
#include "core/order.hpp"

namespace posviz::app {

constexpr int kOrderMaxTokens = 48;
constexpr int kOrderTextSize = 512;

// One recompute's outcome, made on a worker from the inputs alone (computeOrder).
struct OrderComputed {
  std::string error;                      // "" or the inline input error
  std::vector<OrderComparison> results;   // empty when the inputs were refused: the last good stay
  bool nopeValid = false;
  NopeOrder nope;
  NopeCounting counting;
};

struct OrderPanelState {
  bool dirty = true;                      // recompute on the next frame

  // Parameters
  char sentence[kOrderTextSize] = "The cat sat on the mat";  // whitespace-separated tokens
  char shuffled[kOrderTextSize] = "mat the on sat cat The";  // must rearrange the same tokens
  int encoding = 0;                       // index into orderEncodings()
  bool causal = false;                    // causal mask in the toy attention
  int toyDModel = static_cast<int>(cli::params::toy::kDModel.defaultInt());   // even (cli::params::toy)
  int toySeed = static_cast<int>(cli::params::toy::kSeed.defaultInt());
  bool nopeView = false;                  // show the NoPE section instead of the encoding's maps
  // Which of the encoding's maps File > Export writes (cli::params::order::kMatrix; the NoPE
  // section exports its counting head).
  int exportMatrix = static_cast<int>(cli::params::order::kMatrix.defaultInt());

  // Derived
  std::string error;                      // inline input error ("type at least one word", ...)
  std::vector<OrderComparison> results;   // one per orderEncodings() entry
  bool nopeValid = false;                 // nope and counting hold the current sentence
  NopeOrder nope;                         // no encoding, without and with the causal mask
  NopeCounting counting;                  // uniform counting head over <bos> + sentence
  HeatmapState mapNopeCount, mapNopeToy;
  HeatmapImage imgNopeCount, imgNopeToy;
  HeatmapState mapOriginal, mapShuffled, mapExpected, mapOutShuffled, mapOutExpected;
  HeatmapImage imgOriginal, imgShuffled, imgExpected, imgOutShuffled, imgOutExpected;
  long long version = 0;
  AsyncResult<OrderComputed> job;         // the recompute, off the frame: 48 words x 5 encodings take ~25 ms
};

// none, sinusoidal, learned, rope, alibi: the selector's entries.
const std::vector<PositionEncoding>& orderEncodings();

void drawOrderPanel(OrderPanelState& s, AppContext& ctx);

// Recomputes when dirty, at once (exposed for tests). Leaves results empty and sets error on bad input.
void updateOrderPanel(OrderPanelState& s);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kOrderPanel;

}  // namespace posviz::app
