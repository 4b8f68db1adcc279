// heatmap.hpp: the one heatmap widget every view uses.
//
// WHAT IT DRAWS
//   A grid as an image with axis titles and ticks in the data's units, a colorbar with tick
//   values sharing the image's {min, max}, zoom (mouse wheel) and pan (drag) over the logical
//   grid, and a hover tooltip with the indices, the exact value and the formula filled in.
//
// DATA
//   HeatmapImage is what is on screen: a Grid of display cells covering the logical window
//   [row0, row0 + rows*rowStep) x [col0, col0 + cols*colStep). When a display cell covers
//   several logical cells (rowStep or colStep > 1) its value is the AREA AVERAGE of those cells
//   (never one sampled cell: that aliases into moire; core/area_average.hpp). The view computes
//   it (with core, on a worker or the GPU) for the window the widget asks for in
//   HeatmapState::wanted.
//   Hover values are always exact: the widget calls HeatmapSpec::exactValue(row, col) with
//   logical indices, which calls core.
//
// LAYOUT
//   Rows go down the screen (row 0 at the top, like a matrix), cols go right.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "app/cli/session.hpp"
#include "core/area_average.hpp"
#include "core/colormap.hpp"
#include "core/grid.hpp"

namespace posviz::app {

struct HeatmapAxis {
  std::string title;          // "position", "dimension", "pair", "head", "key position n"
  double origin = 0.0;        // label of logical index 0
  double scale = 1.0;         // label = origin + index * scale
};

// The logical window of the full grid and the display resolution wanted for it (core's type:
// core/area_average.hpp splits and averages it).
using HeatmapWindow = GridWindow;

struct HeatmapImage {
  HeatmapWindow window;       // what `cells` covers
  Grid cells;                 // outRows x outCols, area-averaged
  ValueRange range;           // finite range of the FULL logical grid when known, else of cells
  long long version = 0;      // bumps when the content changes (re-upload)
  // Optional: `cells` already coloured (colorHeatmapImage, on the worker that computed them), so
  // that a new picture costs the UI thread only its upload. Used when made with the scale the
  // widget would use now; otherwise the widget colours the cells itself.
  std::vector<Rgba8> colors;
  ColorScale colorScale;
  // What a display cell of several logical cells shows of them: "mean" (the default), "RMS",
  // "greatest", "least"; the hint line and the hover say it.
  std::string pixelStat = "mean";
  std::string pixelNote;   // why, when the stat was picked for the user: "auto: the mean flattens out ..."
  // The grid's size when the picture was made (0 = not said). A picture of a grid of another size
  // (a positions slider mid-drag) is drawn stretched over the new one until its own arrives, so
  // the view never goes grey; it is marked as updating meanwhile.
  long long logicalRows = 0, logicalCols = 0;
};

struct HeatmapSpec {
  std::string title;                             // what the figure shows, for File > Export figure and present
                                                 // mode; empty: "<valueName> by <row title> and <col title>"
  long long logicalRows = 0;
  long long logicalCols = 0;
  HeatmapAxis rowAxis;
  HeatmapAxis colAxis;
  std::string rowTip, colTip;                    // shown when an axis title is hovered: the symbol or formula
                                                 // behind its plain words (the title is then dot-underlined)
  std::string valueName;                         // "PE", "bias", "s(m,n)", "angle (rad)"
  Colormap colormap = Colormap::Viridis;
  bool symmetricRange = false;                   // diverging data: colorbar centred on 0
  bool isAngle = false;                          // cyclic data in [0, 2*pi)
  std::function<double(long long row, long long col)> exactValue;     // core, for hover
  std::function<std::string(long long row, long long col)> formula;   // "sin(3 * 0.1) = 0.2955"
  // Optional: what a display cell's block [r0, r1) x [c0, c1) holds besides what it shows, for the
  // hover ("mean 0.0002, least -1, greatest 1, RMS 0.707"); from core.
  std::function<std::string(long long r0, long long r1, long long c0, long long c1)> blockStats;
  std::string maskedReason;                      // tooltip text for non-finite cells
  std::function<void(long long row, long long col)> onClick;          // optional
  long long noDataRowsFrom = -1;                 // >= 0: rows from here on have no data (drawn hatched)
  std::string noDataLabel;                       // drawn over the hatched region, e.g. "no row: max_len 512"
  bool fixedRange = false;                       // use rangeMin/rangeMax instead of image.range
  float rangeMin = 0.0f, rangeMax = 1.0f;
};

struct HeatmapState {
  // View: the logical window shown (zoom/pan). Full grid when zero-sized.
  double viewRow0 = 0, viewRows = 0, viewCol0 = 0, viewCols = 0;
  HeatmapWindow wanted;       // set by drawHeatmap each frame: what the view should compute
  long long hoverRow = -1, hoverCol = -1;   // logical cell under the mouse, -1 when none
  long long highlightRow = -1, highlightCol = -1;  // drawn as an outlined cell (worked examples)
  bool showColorbar = true;
  unsigned int texture = 0;   // GL texture owned by the widget
  long long uploadedVersion = -1;
  void resetView() { viewRow0 = viewRows = viewCol0 = viewCols = 0; }
  // Widget internals (not for views).
  unsigned long long uploadedKey = 0;   // version + colour scale of the texture
  int textureRows = 0, textureCols = 0;   // the picture in the texture, from its top-left corner
  int storageRows = 0, storageCols = 0;   // the texture's size (powers of two when padded)
  float imageX0 = 0, imageY0 = 0, imageX1 = 0, imageY1 = 0;   // where the picture was drawn last (screen px)
  bool dragging = false;
  bool clickCandidate = false;
  int viewsRestored = 0;      // the restoreHeatmapViews call this state has taken its view from
};

// Draws into the current ImGui window, filling `size` (pixels; 0 = remaining region).
// Returns true when the wanted window changed (zoom, pan, resize) so the view can recompute.
bool drawHeatmap(const char* id, HeatmapState& state, const HeatmapSpec& spec, const HeatmapImage& image,
                 float width = 0.0f, float height = 0.0f);

// Fills image.colors for spec's colour fields (colormap, symmetricRange, isAngle, fixedRange,
// rangeMin/Max; nothing else of spec is read), as drawHeatmap would colour the image. For the
// worker that computed the image; the rest of a spec (callbacks) need not be set.
void colorHeatmapImage(HeatmapImage& image, const HeatmapSpec& spec);

// Convenience for small grids that are computed whole: the image is the grid itself.
HeatmapImage wholeGridImage(const Grid& g, long long version);

// The widget width that makes cells square for a widget of `height` pixels (margins included),
// for a grid of rows x cols; never more than maxWidth.
float heatmapWidthForSquareCells(float height, long long rows, long long cols, bool colorbar, float maxWidth);

// "1 px = mean of 35,520,825 cells (3.49e+06 x 10.2)" when a display cell of w averages several
// logical cells, else "". The heatmap's hint line and the panels' status bar text both use it.
std::string averagedCellsNote(const HeatmapWindow& w, const std::string& stat = "mean");

// Sessions (app/cli/session.hpp): the views of zoomed heatmaps by figure key (the figure's ImGui
// id, 8 hex digits), as each was last drawn; and views each heatmap takes when it is next drawn
// (one not listed goes back to the whole grid).
std::map<std::string, cli::FigureView> zoomedHeatmapViews();
void restoreHeatmapViews(const std::map<std::string, cli::FigureView>& views);
// A new window forgets the views of the last one (nothing restored, nothing kept).
void forgetHeatmapViews();

// Frees the widget's GL texture.
void releaseHeatmap(HeatmapState& state);

// For a small grid held whole: img = the area-averaged window the widget asked for (else the whole
// grid, at most fallbackOut x fallbackOut cells when fallbackOut > 0), range from the grid's finite
// values (or knownRange, when the caller has it from core); nothing is done when that window is
// already shown, unless force.
void refreshImage(const Grid& g, const HeatmapState& hs, HeatmapImage& img, long long& version, bool force,
                  int fallbackOut = 0, const ValueRange* knownRange = nullptr);

}  // namespace posviz::app
