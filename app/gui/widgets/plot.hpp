// plot.hpp: the small plotting module (ImPlot is not packaged for Debian 12).
//
// Line and scatter series on linear or log axes, with ticks, axis titles, a legend, vertical
// markers (e.g. the original context length), shaded x-bands (regimes), and a hover readout
// of the nearest point of each series. All drawing goes through ImDrawList here, nowhere else.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace posviz::app {

struct PlotSeries {
  std::string label;
  std::vector<double> x;
  std::vector<double> y;
  unsigned int color = 0;       // ImU32; 0 = next from the palette
  bool scatter = false;         // points instead of a line
  float thickness = 2.0f;
  bool dots = false;            // a line with a dot on each point (a few points, e.g. one per bin)
};

struct PlotMarker {             // vertical line at x
  double x = 0.0;
  std::string label;
  unsigned int color = 0;
};

struct PlotBand {               // shaded x-range [x0, x1]
  double x0 = 0.0, x1 = 0.0;
  std::string label;
  unsigned int color = 0;       // with alpha
};

struct PlotTick {               // an x tick placed by the caller
  double x = 0.0;
  std::string label;
};

struct PlotSpec {
  std::string title;
  std::string note;             // drawn live at the right end of the title row ("[previous value]"), so it
  std::string noteSlot;         // can come and go without redrawing the plot; noteSlot: its longest text,
                                // the room the title leaves for it (empty: no note)
  std::string xTitle;           // plain words ("distance between the two tokens")
  std::string yTitle;
  std::string xTip;             // shown when the x title is hovered: the formula or symbol behind it
  std::string yTip;             // (a title with a tip is drawn with a dotted underline)
  bool legendOutside = false;   // legend right of the data area and y title above it: neither covers a point
  bool legendAbove = false;     // legend in rows between the title and the data area (wrapped to the width),
                                // y title above the data area: for plots too narrow to give the legend a column
  bool hideLegend = false;      // no legend (the title names the one series; the hover readout names each)
  bool logX = false;
  bool logY = false;
  bool fixedX = false;          // use xMin/xMax instead of the data range
  double xMin = 0.0, xMax = 1.0;
  bool fixedY = false;          // use yMin/yMax instead of the data range
  double yMin = 0.0, yMax = 1.0;
  std::vector<PlotTick> xTicks; // non-empty: these x ticks instead of automatic ones (a label that would
                                // overlap the one left of it is left out; the grid line stays)
  std::function<std::string(double)> xReadout;  // the hover readout's text for an x value (empty: the number)
  std::vector<PlotSeries> series;
  std::vector<PlotMarker> markers;
  std::vector<PlotBand> bands;
};

struct PlotHover {
  bool active = false;
  double x = 0.0;               // data x under the mouse
  int series = -1;              // nearest series / point
  int index = -1;
};

// Draws into the current ImGui window (size 0 = remaining width, 260 px high).
PlotHover drawPlot(const char* id, const PlotSpec& spec, float width = 0.0f, float height = 0.0f);

// Palette colour i (ImU32), distinguishable and colour-blind friendly (Okabe-Ito).
unsigned int plotColor(int i);

// "Nice" tick values (1, 2, 5 x 10^k steps) inside [lo, hi], at most about maxTicks of them.
std::vector<double> niceTicks(double lo, double hi, int maxTicks);
// Decades (and 2, 5 when few decades) inside [lo, hi], lo > 0, for log axes.
std::vector<double> logTicks(double lo, double hi, int maxTicks);
// An axis range that hugs data in [lo, hi] with a small margin so points on the ends are not cut:
// on a log axis (lo > 0) a factor of 1.3 either side; on a linear one from 0 when the data are
// non-negative (a slope, a weight) and 6% of the span above. Never a decade of empty room.
struct AxisRange {
  double lo = 0.0, hi = 1.0;
};
AxisRange fittedAxis(double lo, double hi, bool log);

// A line denser than the pixels is drawn, where it oscillates, as a filled band: each pixel
// column px covers rows [top, bottom). bandRects returns rectangles (columns [x0, x1), rows
// [y0, y1)) that cover those cells exactly once, as few and as wide as it can: a software
// rasterizer shades whole 4 x 4 pixel blocks, so one thin bar per column would cost about four
// times the band's area. Columns are in increasing px; a gap in px starts a new run.
struct BandColumn {
  int px;
  float top, bottom;
};
struct BandRect {
  int x0, x1;
  float y0, y1;
};
std::vector<BandRect> bandRects(std::span<const BandColumn> columns);

// A dense scatter series snaps its dots to a grid of cells, gw columns of gh cells stored column
// by column: taken[gx * gh + gy] != 0 where a dot is. cellRects returns rectangles of cells
// (columns [gx0, gx1), rows [gy0, gy1)) that cover exactly the taken cells: each column's
// vertical runs, a run that repeats in the next columns widened over them, so a flat stretch of
// dots (cos near 1 over thousands of slow dims) is one rectangle, not one per column.
struct CellRect {
  int gx0, gx1, gy0, gy1;
};
std::vector<CellRect> cellRects(std::span<const char> taken, int gw, int gh);

// Tick label: integers plainly, others with 3 significant digits, 1e+04 style when large.
std::string formatTick(double v, double step);

}  // namespace posviz::app
