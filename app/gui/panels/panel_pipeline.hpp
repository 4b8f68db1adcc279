// panel_pipeline.hpp: where position enters the network.
//
// A diagram tokens -> embedding -> +PE -> blocks [Q, K, V -> scores -> softmax -> output] with
// the chosen encoding highlighted where it acts (core/pipeline.hpp stagesWhereApplied). Two
// toggles: "add vs concatenate" (002: the dimension becomes 2 d_model; the norms of the token
// embedding, the position vector and their sum or concatenation, from core addVsConcat) and
// "rotate V too" (004 question 7: the toy model with RoPE on V as well; weights unchanged,
// outputs changed, from core ropeRotateValues).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/gui/base/panel_def.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/widgets/heatmap.hpp"
#include "core/pipeline.hpp"

namespace posviz::app {

constexpr int kPipelineTextSize = 256;
constexpr int kPipelineMaxTokens = 32;

struct PipelinePanelState {
  bool dirty = true;                      // recompute on the next frame

  // Parameters
  int encoding = 0;                       // index into pipelineEncodings()
  bool concatenate = false;               // show [x; p] instead of x + p
  bool rotateValues = false;              // RoPE on V as well
  char sentence[kPipelineTextSize] = "The cat sat on the mat";
  // Defaults and ranges: cli::params::toy.
  int token = static_cast<int>(cli::params::toy::kToken.defaultInt());         // whose embedding the norms use
  int toyDModel = static_cast<int>(cli::params::toy::kDModel.defaultInt());    // even
  int toySeed = static_cast<int>(cli::params::toy::kSeed.defaultInt());
  bool causal = false;

  // Derived
  std::string error;
  std::vector<std::string> tokens;
  std::optional<AddVsConcat> addConcat;   // for the additive encoding shown (sinusoidal when none is chosen)
  PositionEncoding addConcatEncoding = PositionEncoding::Sinusoidal;
  std::optional<RotateValuesResult> rotate;
  HeatmapState mapPlain, mapRotated;
  HeatmapImage imgPlain, imgRotated;
  long long version = 0;
};

// sinusoidal, learned, rope, alibi, none: the selector's entries.
const std::vector<PositionEncoding>& pipelineEncodings();

void updatePipelinePanel(PipelinePanelState& s);
void drawPipelinePanel(PipelinePanelState& s, AppContext& ctx);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kPipelinePanel;

}  // namespace posviz::app
