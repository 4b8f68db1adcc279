// panel_learned.hpp: the Learned view: a learned position table (seeded or loaded from .npy)
// and what happens past its last row. State is a plain struct owned by AppState.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/base/panel_def.hpp"
#include "app/cli/model_config.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/widgets/heatmap.hpp"
#include "app/gui/widgets/path_field.hpp"
#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/worker.hpp"
#include "core/colormap.hpp"
#include "core/grid.hpp"
#include "app/gui/base/config_notes.hpp"

namespace posviz::app {

// The largest table the window builds, in values: max_len x d_model (131072 x 4096, 2 GiB as
// float32), or what the memory budget holds twice over (a new table is built while the old one is
// shown): the page's 1 GiB, 2^27 values. The sliders stop there; a config or settings file asking
// for more is told so.
constexpr long long kLearnedMaxCells = 1LL << 29;
long long learnedMaxCells();

// What the table job delivers: the table plus what the view draws from it.
struct LearnedTableResult {
  struct Source {
    bool fromFile = false;
    std::string path;
    int maxLen = 0, dModel = 0;
    std::uint64_t seed = 0;
    double stddev = 0.0;
  } source;
  std::shared_ptr<const Grid> table;
  std::string name;                       // "seeded: N(0, 0.02^2), seed 0" or "gpt2_wpe.npy (1,024 x 768)"
  ValueRange range;                       // finite range of the whole table
  std::vector<double> rowNorm;            // |P[pos]| per row
};

struct LearnedPanelState {
  bool dirty = true;                      // recompute on the next frame
  // Seeded table (learnedInit): N(0, stddev^2). Defaults and ranges: cli::params::learned.
  int maxLen = static_cast<int>(cli::params::learned::kMaxLen.defaultInt());     // rows of the table
  int dModel = static_cast<int>(cli::params::learned::kDModel.defaultInt());     // cols
  std::uint64_t seed = static_cast<std::uint64_t>(cli::params::learned::kSeed.defaultInt());
  double stddev = cli::params::learned::kStd.def;                                // GPT-2's initializer std
  bool fromFile = false;                  // the table came from a .npy
  // A config's rows before position 0 (BART, OPT: 2, on top of max_position_embeddings;
  // RoBERTa: padding_idx + 1 = 2, out of them): said above the table, 0 = none.
  int offsetRows = 0;
  bool offsetRowsAdded = false;
  std::string path;                       // the .npy path typed or opened
  PathPick pathPick;                      // the page's chooser for it
  std::string loadError;                  // last failed load, shown inline; the last good table stays
  bool openRequested = false;             // File > Open table: focus the path field
  int numPositions = static_cast<int>(cli::params::learned::kTabPositions.defaultInt());  // may exceed maxLen
  int lookupPos = static_cast<int>(cli::params::learned::kTabLookup.defaultInt());        // looked up row by row
  Colormap colormap = Colormap::RdBu;
  // What a pixel of many cells shows (cli::params::picture::kPixel, core PixelChoice): auto turns
  // to the RMS where every block mean is near 0, as a seeded table's are.
  int pixel = static_cast<int>(cli::params::learned::kPixel.defaultInt());

  std::shared_ptr<const Grid> table;      // the current good table
  std::string tableName;                  // "seeded (seed 0, std 0.02)" or the file name
  bool tableDirty = true;                 // rebuild the seeded table
  AsyncResult<LearnedTableResult> tableJob;
  // A large seeded table (seconds to draw) is asked for once its parameters have held still for a
  // moment: a dragged seed or size shows coarse previews meanwhile instead of starting and
  // cancelling a 2 GiB table every frame.
  bool tablePending = false;
  std::chrono::steady_clock::time_point tableChangedAt{};
  HeatmapState map;
  AsyncResult<HeatmapImage> image;
  long long version = 0;
  // The row-norm plot (up to 131,072 points), built when its table, the positions or the theme
  // change, not every frame.
  PlotSpec normPlot;
  std::weak_ptr<const Grid> normPlotTable;
  int normPlotPositions = -1;
  bool normPlotLight = false;
};

void drawLearnedPanel(LearnedPanelState& s, AppContext& ctx);

// A learned-position model's config: a seeded table of max_position_embeddings x hidden_size,
// shown a quarter past its last row, looked up at max_len. Other encodings leave the panel alone.
void applyLearnedConfig(LearnedPanelState& s, const cli::ModelConfig& c, ConfigNotes& notes);

// Starts building the table in the background: from s.path when s.fromFile, else learnedInit with
// the seeded parameters. A failure lands in s.loadError on a later frame; the last good table stays.
void requestLearnedTable(LearnedPanelState& s);

// Shows the table at path (a .npy or a trained learned run's folder, cli::loadLearnedSource), as
// typing it in the tab's file field and pressing Load would: the Train tab's "Open in the Learned
// tab" comes here.
void openLearnedSource(LearnedPanelState& s, const std::string& path);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kLearnedPanel;

}  // namespace posviz::app
