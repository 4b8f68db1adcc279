// averaged.cpp: `posviz export VIEW --size WxH` for the grid views: the W x H picture of the
// whole grid, each value the exact mean of its block of cells (core/exact_average.hpp), split
// into blocks as the window's heatmap splits them (core/area_average.hpp: display row i covers
// rows floor(i N / H) .. floor((i + 1) N / H) - 1). The cost follows the picture, not the grid:
// 2^31 positions cost what 2^14 do. .png is the W x H picture; .npy/.csv/.json the H x W means.
//
// Each grid view defines its own averaged compute beside its whole one (views/*.cpp), describing
// both with one function; this file holds what they share and makes --size choose between them.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/untrusted_text.hpp"
#include "app/cli/params/picture.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/views/view_support.hpp"

namespace posviz::cli {

namespace {

int parseSide(const std::string& text, const std::string& what, const std::string& all) {
  const bool digits = !text.empty() && text.size() <= 9 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) throw UsageError("--size: expected WxH such as 1024x768, got " + quotedText(all));
  const long long v = std::stoll(text);
  if (v < 1 || v > kMaxExportSize)
    throw UsageError("--size: " + what + " must be 1.." + std::to_string(kMaxExportSize) + ", got " + text);
  return static_cast<int>(v);
}

std::string gridViewList() {
  std::string out;
  for (const ViewDef& v : viewTable())
    if (v.computeAveraged != nullptr) out += (out.empty() ? "" : ", ") + v.name;
  return out;
}

}  // namespace

std::uint64_t requireFits(const Request& r, GridShape g, ExportSize s, long long lastPosition) {
  if (s.width > g.cols)
    throw UsageError("--size: width " + std::to_string(s.width) + " exceeds the grid's " + std::to_string(g.cols) +
                     " columns (" + r.view->name + "); use a width of at most " + std::to_string(g.cols));
  if (s.height > g.rows)
    throw UsageError("--size: height " + std::to_string(s.height) + " exceeds the grid's " + std::to_string(g.rows) +
                     " rows (" + r.view->name + "); use a height of at most " + std::to_string(g.rows));
  if (lastPosition > kMaxExactPosition)
    throw UsageError("--size: exact means cover positions below 2^32; --position + --positions reach " +
                     std::to_string(lastPosition));
  return static_cast<std::uint64_t>(s.width) * static_cast<std::uint64_t>(s.height);
}

void describeAveraged(Dataset& d, const Request& r, GridShape g, ExportSize s, long long row0, long long col0,
                      PixelStat stat) {
  d.shape = {d.grid.rows, d.grid.cols};
  labelAxes(d, row0, g.rows, col0, g.cols);
  const std::string what = pixelStatTitle(stat), name = pixelStatName(stat);
  d.document["params"]["size"] = {s.width, s.height};
  d.document["averaged"] = {{"grid_rows", g.rows}, {"grid_cols", g.cols},
                            {"values", "each value is the exact " + what + " of its block of grid cells; display row i "
                                       "covers rows floor(i*N/H) .. floor((i+1)*N/H)-1, columns alike"}};
  d.csvComments.push_back("averaged to " + std::to_string(s.height) + " x " + std::to_string(s.width) + " from " +
                          std::to_string(g.rows) + " x " + std::to_string(g.cols) + " cells (" + r.view->name +
                          "): each value is the exact " + what + " of its block; row i covers rows floor(i*N/H)..");
  d.rowTitle += " (block " + name + ")";
  d.colTitle += " (block " + name + ")";
}

ChosenPicture chosenExportPicture(const Request& r, const GridWindow& w, double bound,
                                  const std::function<ExactPicture(PixelStat)>& statPicture) {
  auto choice = static_cast<PixelChoice>(r.pixel);
  if (choice == PixelChoice::Auto && !isPicture(r.format)) choice = PixelChoice::Mean;
  try {
    return choosePicture(choice, w, bound, statPicture);
  } catch (const std::invalid_argument& e) {   // a stat the grid does not offer, or cannot afford
    throw UsageError("--pixel " + std::string(params::picture::kPixel.choiceName(r.pixel)) + ": " + e.what());
  }
}

void describePixel(Dataset& d, const Request& r, const ChosenPicture& c, ValueRange gridRange) {
  d.document["pixel"] = {{"choice", std::string(params::picture::kPixel.choiceName(r.pixel))}, {"shows", pixelStatName(c.stat)}};
  if (c.automatic) d.document["pixel"]["mean_peak"] = c.meanPeak;
  if (c.stat == PixelStat::Mean) return;
  d.valueName += std::string(" (") + pixelStatName(c.stat) + ")";
  d.colorRange = gridRange;
}

void setPicture(Dataset& d, const Request& r, ExactPicture pic) {
  d.grid = narrowPicture(pic);
  if (r.dtype == DType::F64) d.exact = std::move(pic.values);
}

GridWindow wholeWindow(long long row0, long long col0, GridShape g, ExportSize s) {
  GridWindow w = fullWindow(g.rows, g.cols, s.height, s.width);
  w.row0 = row0;
  w.col0 = col0;
  return w;
}

namespace {

// The compute every grid view gets: the averaged picture with --size, else the view's own.
Dataset computeSizedOrWhole(const Request& r, const ExportProgress& progress) {
  if (const std::optional<ExportSize> s = parseExportSize(r)) return r.view->computeAveraged(r, s->width, s->height, progress);
  return r.view->computeWhole(r, progress);
}

}  // namespace

std::optional<ExportSize> parseExportSize(const Request& r) {
  if (!r.sizeText) return std::nullopt;
  if (r.view == nullptr || r.view->computeAveraged == nullptr)
    throw UsageError("--size: applies to the grid views (" + gridViewList() + "), not " +
                     (r.view ? r.view->name : std::string("this view")));
  const std::string& t = *r.sizeText;
  const std::size_t x = t.find_first_of("xX");
  if (x == std::string::npos) throw UsageError("--size: expected WxH such as 1024x768, got " + quotedText(t));
  return ExportSize{parseSide(t.substr(0, x), "width", t), parseSide(t.substr(x + 1), "height", t)};
}

void attachAveragedViews(std::vector<ViewDef>& views) {
  for (ViewDef& v : views) {
    if (v.computeAveraged == nullptr) continue;
    v.computeWhole = v.compute;
    v.compute = computeSizedOrWhole;
  }
}

}  // namespace posviz::cli
