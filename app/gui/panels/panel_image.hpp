// panel_image.hpp: the "Image & multimodal RoPE" view. State is a plain struct owned by AppState.
//
// 2-D axial RoPE on a grid of image patches (core/axial_rope.hpp): the score of one query patch
// against every key patch, the score against the row and column offsets, and the angle of every
// pair at every patch. M-RoPE (core/mrope.hpp) for a text + image + text sequence: the (t, h, w)
// position ids of each token and the angle grid they give. All grids are small (at most 64 x 64
// patches) and computed whole, only the part whose inputs moved; in the window the axial grids
// (4096 patches x 128 pairs of angles at the largest setting) are made on a worker.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/gui/base/panel_def.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/widgets/heatmap.hpp"
#include "app/gui/widgets/worker.hpp"
#include "app/cli/model_config.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/base/config_notes.hpp"
#include "core/axial_rope.hpp"
#include "core/mrope.hpp"
#include "core/grid.hpp"

namespace posviz::app {

// The axial grids of one set of parameters (made on a worker in the window), coloured there.
struct AxialComputed {
  Grid offsetScores, angles;
  HeatmapImage offsetImage, angleImage;
};

// Parameters and their ranges: cli::params::axial and cli::params::mrope.
struct ImagePanelState {
  bool dirty = true;
  // Axial RoPE (core's AxialRopeParams: rope-vit's head_dim 64, theta 100)
  int headDim = AxialRopeParams{}.headDim;   // a multiple of 4
  double base = AxialRopeParams{}.base;
  AxialRopeVariant variant = AxialRopeVariant::RopeVit;   // rope-vit's halves, or Pixtral's
  int rows = static_cast<int>(cli::params::axial::kPatchRows.defaultInt());   // patches
  int cols = static_cast<int>(cli::params::axial::kPatchCols.defaultInt());
  int queryRow = static_cast<int>(cli::params::axial::kQueryRow.defaultInt());
  int queryCol = static_cast<int>(cli::params::axial::kQueryCol.defaultInt());
  // M-RoPE: text, one image (merged patches), text
  int textBefore = static_cast<int>(cli::params::mrope::kTextBefore.defaultInt());
  int imageH = static_cast<int>(cli::params::mrope::kImageRows.defaultInt());
  int imageW = static_cast<int>(cli::params::mrope::kImageCols.defaultInt());
  int textAfter = static_cast<int>(cli::params::mrope::kTextAfter.defaultInt());
  int mropeHeadDim = 128;      // Qwen2-VL: 128 with mrope_section 16, 24, 24 and base 1e6
  double mropeBase = 1.0e6;
  int sectionT = static_cast<int>(cli::params::mrope::kSectionT.defaultInt());
  int sectionH = static_cast<int>(cli::params::mrope::kSectionH.defaultInt());
  int sectionW = 24;
  bool mropeInterleaved = false;  // Qwen3-VL / Qwen3.5: axes alternate pair by pair instead of in blocks
  // A video after the image (same merged grid, videoGrids temporal grids; 0 = none), and the
  // get_rope_index rule that gives its tokens time ids (core/mrope.hpp).
  int videoGrids = static_cast<int>(cli::params::mrope::kVideoFrames.defaultInt());
  double secondsPerGrid = cli::params::mrope::kSecondsPerGrid.def;
  MropeIndexRule indexRule = static_cast<MropeIndexRule>(cli::params::mrope::kIndexRule.defaultInt());
  double tokensPerSecond = cli::params::mrope::kTokensPerSecond.def;
  int timestampTokens = static_cast<int>(cli::params::mrope::kTimestampTokens.defaultInt());
  std::string ruleNote;           // a config's family whose own rule posviz does not model

  // Derived
  Grid queryScores, offsetScores, angles, mropeIds, mropeAngles;
  std::vector<int> pairAxis;   // M-RoPE: 0 t, 1 h, 2 w per pair
  std::string error, mropeError;
  long long version = 0;
  HeatmapState queryMap, offsetMap, angleMap, idsMap, mropeMap;
  HeatmapImage queryImage, offsetImage, angleImage, idsImage, mropeImage;
  // What each part was last computed from: a drag redoes only the part whose inputs moved.
  std::uint64_t axialKey = 0, queryKey = 0, mropeKey = 0;
  AsyncResult<AxialComputed> axialJob;   // the window's path: axial grids off the frame
};

void drawImagePanel(ImagePanelState& s, AppContext& ctx);
void updateImagePanel(ImagePanelState& s);   // recompute when dirty (drawImagePanel calls it)
void saveImagePanel(const ImagePanelState& s, nlohmann::json& j);
void loadImagePanel(ImagePanelState& s, const nlohmann::json& j);

// A config with M-RoPE (mrope_section) sets the M-RoPE half: head_dim, base, the three sections
// and the interleaved layout, as `posviz export mrope-angles --config` reads them. Others leave it.
void applyImageConfig(ImagePanelState& s, const cli::ModelConfig& c, ConfigNotes& notes);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kImagePanel;

}  // namespace posviz::app
