// view_support.hpp: small helpers the view definitions in app/cli/views/ share.
#pragma once

#include <functional>

#include <string>
#include <vector>

#include "app/cli/view_table.hpp"
#include "core/area_average.hpp"
#include "core/exact_average.hpp"
#include "core/pixel_stats.hpp"

namespace posviz::cli {

// --dtype f64 to a numeric format of a view that core computes in double.
inline bool wantsDouble(const Request& r) {
  return !isPicture(r.format) && r.dtype == DType::F64 && r.view->exactDouble;
}

inline std::vector<double> finiteList(const std::string& flag, const std::string& text) {
  return parseRealListOption(flag, text, RealRange{});
}

// The context-extension knobs the RoPE views and the extrapolation lab both take, from the scaling
// table (app/cli/params/rope.hpp): --factor, YaRN's --beta-fast/--beta-slow/--mscale/
// --mscale-all-dim, Llama 3's --low-freq-factor/--high-freq-factor, --attention-factor and
// --no-truncate. True when --factor was given.
bool readScalingKnobs(const ParsedOptions& o, RopeScaling& s);
// What no single option's range can refuse: beta_fast >= beta_slow when YaRN's betas are in use,
// high_freq_factor > low_freq_factor when Llama 3's are.
void checkScalingOrder(const RopeScaling& s, bool yarnBetas, bool llama3Factors);

// --size WxH pictures (averaged.cpp). A grid view's averaged compute describes its result with
// the same function as its whole compute, then adds describeAveraged's note.
struct GridShape {
  long long rows = 0, cols = 0;
};
// Refuses a picture larger than the grid along either axis, and positions past core's exact range;
// returns the picture's element count.
std::uint64_t requireFits(const Request& r, GridShape g, ExportSize s, long long lastPosition);
// The whole grid from (row0, col0) at the picture's size.
GridWindow wholeWindow(long long row0, long long col0, GridShape g, ExportSize s);
// The picture as float32, and as float64 too when --dtype f64 asks for it.
void setPicture(Dataset& d, const Request& r, ExactPicture pic);
// Shape, the averaging note in .json and .csv, "(block mean)" (or the stat) in the axis titles, and the grid's
// own first and last indices (from row0, col0) at the ends of the picture's axes.
// stat: what each value is of its block (core/pixel_stats.hpp), "mean" unless a view offers more.
void describeAveraged(Dataset& d, const Request& r, GridShape g, ExportSize s, long long row0 = 0, long long col0 = 0,
                      PixelStat stat = PixelStat::Mean);

// --pixel for a --size picture: the chosen stat's picture (core's choosePicture). Auto decides for
// pictures only; numbers (.npy/.csv/.json) stay the mean unless a stat is named. bound: the grid's
// largest |value| (<= 0: unknown, auto keeps the mean).
ChosenPicture chosenExportPicture(const Request& r, const GridWindow& w, double bound,
                                  const std::function<ExactPicture(PixelStat)>& statPicture);
// Says in d what its pixels show: .json "pixel" {choice, shows[, mean_peak]}, "(min)" after the
// value name, and for a stat the colour range of the grid (gridRange) rather than the picture's.
void describePixel(Dataset& d, const Request& r, const ChosenPicture& c, ValueRange gridRange);

// A picture's axis ends labelled with grid indices: rows row0 .. row0 + rows - 1, cols alike.
inline void labelAxes(Dataset& d, long long row0, long long rows, long long col0, long long cols) {
  d.rowFirst = std::to_string(row0);
  d.rowLast = std::to_string(row0 + rows - 1);
  d.colFirst = std::to_string(col0);
  d.colLast = std::to_string(col0 + cols - 1);
}

}  // namespace posviz::cli
