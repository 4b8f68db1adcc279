// panel_alibi.hpp: the ALiBi view. State is a plain struct owned by AppState.
//
// The slopes of 1..128 heads in the order get_slopes produces them (the two groups of
// a non-power-of-two count coloured apart), per-head bias grids as small multiples on one colour
// scale, causal or symmetric, and a toy sentence's attention weights through softmax without
// and with the selected head's bias. Numbers come from core/alibi.hpp and core/attention.hpp;
// each head's picture is core's exact mean over its display cells (exact_average.hpp), made on a
// worker: 128 heads at T = 256 never hold 8 million cells, and a drag of the head count keeps
// the last pictures on screen until the next are ready.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/gui/base/panel_def.hpp"
#include "app/cli/model_config.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/widgets/heatmap.hpp"
#include "app/gui/base/config_notes.hpp"
#include "app/gui/widgets/worker.hpp"

namespace posviz::app {

// Every shown head's picture for the windows their views asked for, coloured for the scale they
// were made with (the widget recolours when the scale changed since).
struct AlibiPictures {
  std::vector<HeatmapImage> images;  // per head of the count they were made for; empty cells for hidden ones
};

struct AlibiPanelState {
  bool dirty = true;                 // recompute on the next frame

  // Parameters (defaults and ranges: cli::params::alibi, toy)
  int numHeads = static_cast<int>(cli::params::alibi::kTabHeads.defaultInt());
  int numPositions = static_cast<int>(cli::params::alibi::kTabPositions.defaultInt());   // T of each bias grid
  bool causal = true;                // causal -m(i-j), j > i masked; else symmetric -m|i-j|
  bool showAll = true;               // small multiples for every head, else the first smallCount
  int smallCount = static_cast<int>(cli::params::alibi::kTabFirstHeads.defaultInt());
  int selectedHead = 0;              // 0-based, for the toy attention
  int scrolledToHead = -1;           // the selected head the small multiples last scrolled to
  bool logSlopes = true;             // slopes plot on a log axis
  bool sharedScale = true;           // small multiples on one colour scale (else each its own)
  std::string sentence = "the cat sat on the mat because it was tired";
  int toyDModel = static_cast<int>(cli::params::toy::kDModel.defaultInt());   // even
  int toySeed = static_cast<int>(cli::params::toy::kSeed.defaultInt());

  // Derived
  std::vector<double> slopes;        // core alibiSlopes(numHeads)
  ValueRange sharedRange;            // one colour scale over the shown heads
  std::vector<HeatmapState> smallMaps;
  std::vector<HeatmapImage> smallImages;   // per head (index = head); empty cells for hidden ones
  // One drawn head's label + grid (at layout cell headCellFor), the place kept by one out of sight.
  float headCellW = 0.0f, headCellH = 0.0f, headCellFor = 0.0f;
  bool picturesDirty = true;         // a head's view asked for another window: new pictures
  AsyncResult<AlibiPictures> pictures;     // the window's path: pictures made on a worker
  double computeMs = 0.0;
  std::string error;
  long long version = 0;
  int viewPositions = 0, viewTokens = 0;  // grid sizes the heatmap views were set up for

  // Toy attention of the selected head
  std::vector<std::string> tokens;
  Grid weightsPlain, toyBias, weightsBiased;
  HeatmapState plainMap, biasMap, biasedMap;
  HeatmapImage plainImage, biasImage, biasedImage;
  std::string toyError;
};

void drawAlibiPanel(AlibiPanelState& s, AppContext& ctx);

// Settings kept between runs (unknown or out-of-range values are ignored). For the panels table.
void saveAlibiPanel(const AlibiPanelState& s, nlohmann::json& j);
void loadAlibiPanel(AlibiPanelState& s, const nlohmann::json& j);

// An ALiBi model's config: its head count (more than the tab draws is said in a note). Other
// encodings leave the panel alone.
void applyAlibiConfig(AlibiPanelState& s, const cli::ModelConfig& c, ConfigNotes& notes);

// Small multiples: count square grids of `cell` pixels (label line included), perRow to a row, in
// a width x height region with `gap` pixels between them. The largest cell in [minCell, maxCell]
// with which all of them fit; when none does, minCell-sized (or wider, to fill the row) grids
// and rows past the region scroll. Every one of the count grids is always placed.
struct SmallMultipleLayout {
  float cell = 0.0f;   // pixels, side of one grid with its label
  int perRow = 1;
  int rows = 0;
};
SmallMultipleLayout smallMultipleLayout(int count, float width, float height, float gap, float minCell, float maxCell);

// Recomputes when dirty, every picture at once (tests). The window's path makes the pictures on a
// worker instead.
void updateAlibiPanel(AlibiPanelState& s, AppContext& ctx);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kAlibiPanel;

}  // namespace posviz::app
