// export.hpp: writing numbers and heatmaps to files (PNG, .npy, .csv, .json). Used by the CLI
// and the app's File > Export (app/gui/shell/view_export.hpp).
//
// SAFETY
//   Every writer goes through writeFileAtomically (core/atomic_file.hpp): the file appears
//   complete or not at all. I/O failures throw std::runtime_error naming the path and the OS
//   reason; bad options (scale < 1, an image over the memory budget) throw std::invalid_argument
//   before anything is written.
//
// PNG
//   renderHeatmapImage draws the grid at native resolution: cell (r, c) fills the
//   cellScale x cellScale pixels whose top-left corner is (heatmapX + c*cellScale,
//   heatmapY + r*cellScale), row 0 at the top, coloured with mapValue(scale, value)
//   (core/colormap.hpp; masked and non-finite cells get kMaskColor). Without decorations the
//   image is exactly cols*cellScale x rows*cellScale. The optional colorbar (right), axis titles
//   with the first and last index (left and below) and the caption (top) are drawn with
//   stb_truetype in DejaVu Sans on a white margin, never over cells. Encoded by libspng, RGB8,
//   zlib level 1, no filtering (2.7x faster on large heatmaps, which compress well anyway);
//   writePng streams the encoder's output into the file.
//
// SVG
//   writeSvg: the PNG's layout as a vector document (text stays text); see below.
//
// CSV
//   writeCsvGrid: one line per row, values separated by ',', shortest round-trip text ("-inf"
//   for masked cells), preceded by '#' comment lines (numpy.loadtxt(f, delimiter=",") skips
//   them). writeCsvColumns: a header line of names, then one line per index.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/colormap.hpp"
#include "core/grid.hpp"

namespace posviz::cli {

// fraction done in [0, 1]; may be empty.
using ExportProgress = std::function<void(double fraction)>;

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;   // width * height * 3, row-major, top row first
  int heatmapX = 0, heatmapY = 0;  // top-left pixel of cell (0, 0)
  std::uint8_t* pixel(int x, int y) { return rgb.data() + (static_cast<std::size_t>(y) * width + x) * 3; }
  const std::uint8_t* pixel(int x, int y) const { return rgb.data() + (static_cast<std::size_t>(y) * width + x) * 3; }
};

// An animation's encoder, fed one frame at a time: each frame is encoded into the output stream
// when it is given, so an animation holds one frame's picture at a time, never all of them.
class FrameWriter {
 public:
  virtual ~FrameWriter() = default;
  virtual void add(const RgbImage& frame) = 0;   // width x height as the writer was made; throws otherwise
  virtual void finish() = 0;                     // after the last frame: the file's end
};

struct PngOptions {
  ColorScale scale;              // colormap and value range (see colormap.hpp)
  int cellScale = 1;             // >= 1: pixels per cell side (autoCellScale for a readable picture)
  bool colorbar = false;         // colorbar with min / centre / max labels on the right
  bool axisTitles = false;       // row title (left) and column title (below) with index labels
  std::string rowTitle = "row";  // "position", "query position m", "head"
  std::string colTitle = "col";  // "dimension", "pair", "key position n"
  std::string valueName;         // label above the colorbar: "PE", "bias", "angle (rad)"
  std::string caption;           // one line above the heatmap; empty = none
  float textScale = 1.0f;        // text size against 15 px (--text-scale; the window's text size), 0.5..4
  // Index labels at the ends of each axis; empty: 0 and rows - 1 (cols - 1). A picture of a
  // window or an averaged grid labels the grid's own first and last index.
  std::string rowFirst, rowLast, colFirst, colLast;
};

inline constexpr float kMinTextScale = 0.5f, kMaxTextScale = 4.0f;

// The cell scale of a picture made for people: the smallest integer that makes the heatmap's
// longer side at least kReadableSide pixels and its shorter side at least kReadableShortSide, so
// a d_model = 8 x 4 grid becomes 512 x 256 and a 2 x 64 one 2048 x 64 rather than 512 x 16; but
// never so large that a scaled side passes kMaxAutoSide. 1 for grids already that large (a
// 131072 x 128 grid stays one pixel per cell). So the scaled heatmap holds at most
// kMaxAutoScaledPixels pixels, or rows * cols when that is more. rows, cols >= 1.
constexpr int kReadableSide = 512;
constexpr int kReadableShortSide = 64;
constexpr int kMaxAutoSide = 2048;
constexpr std::uint64_t kMaxAutoScaledPixels = static_cast<std::uint64_t>(kMaxAutoSide) * kMaxAutoSide;
int autoCellScale(long long rows, long long cols);

// A colour scale for g: map (or defaultColormapFor the data when unset), range = finiteRange(g),
// centred on 0 for diverging maps, period 2*pi for cyclic ones.
ColorScale autoColorScale(const Grid& g, const Colormap* map, bool isAngle);
// The same for a value range [min, max] (an animation's range over all its frames).
ColorScale colorScaleFor(float min, float max, const Colormap* map, bool isAngle);

RgbImage renderHeatmapImage(const Grid& g, const PngOptions& options, const ExportProgress& progress = {});
// The width and height renderHeatmapImage gives a rows x cols grid with these options, without
// drawing it.
std::pair<long long, long long> heatmapImageSize(int rows, int cols, const PngOptions& options);
std::vector<std::uint8_t> encodePng(const RgbImage& image);       // throws std::runtime_error on failure
void writePngImage(const std::string& path, const RgbImage& image);
void writePng(const std::string& path, const Grid& g, const PngOptions& options, const ExportProgress& progress = {});

// The same picture as SVG, laid out exactly as the PNG (same size, margins, text positions): text,
// axes and colorbar are vector; grids of at most 4096 cells (64 x 64) are one rectangle per cell,
// larger ones one embedded PNG at one pixel per cell, drawn pixelated. For slides and papers.
void writeSvg(const std::string& path, const Grid& g, const PngOptions& options, const ExportProgress& progress = {});

// The SVG font-size (an em) of DejaVu Sans drawn `linePixels` high from ascent to descent, as
// stb_truetype (and so ImGui) sizes a font: about 0.86 of it.
float svgFontSize(float linePixels);

// Standard base64 (RFC 4648, with padding): a PNG inside an SVG's data: URL.
std::string base64(const std::vector<std::uint8_t>& bytes);

// Shortest text that reads back to the same value ("0.1", "-inf", "nan").
std::string formatNumber(double v);
std::string formatNumber(float v);

void writeCsvGrid(const std::string& path, const Grid& g, const std::vector<std::string>& commentLines,
                  const ExportProgress& progress = {});
// Same for float64 data of rows x cols.
void writeCsvGrid(const std::string& path, const std::vector<double>& values, std::int64_t rows, std::int64_t cols,
                  const std::vector<std::string>& commentLines, const ExportProgress& progress = {});
// names.size() == columns.size(); every column has the same length.
void writeCsvColumns(const std::string& path, const std::vector<std::string>& names,
                     const std::vector<std::vector<double>>& columns);

// Pretty-printed (2-space indent) JSON; non-finite numbers are written as null.
void writeJson(const std::string& path, const nlohmann::json& document);
// The same text as writeJson(document with document[valuesKey] = the values nested by shape, C
// order, each widened to double), written as it is generated: memory stays that of document, not
// of the values. values holds the product of shape numbers.
void writeJsonWithValues(const std::string& path, const nlohmann::json& document, const std::string& valuesKey,
                         const std::vector<std::int64_t>& shape, const float* values, const ExportProgress& progress = {});
void writeJsonWithValues(const std::string& path, const nlohmann::json& document, const std::string& valuesKey,
                         const std::vector<std::int64_t>& shape, const double* values, const ExportProgress& progress = {});

}  // namespace posviz::cli
