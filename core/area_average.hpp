// area_average.hpp: a window of a grid shrunk to a picture by area averaging.
//
// WHAT
//   A heatmap wider than the screen shows each pixel as the mean of the logical cells it covers,
//   never one sampled cell (sampling aliases into moire). These functions split a window of a
//   logical grid into display cells and average each, from a grid held whole or from rows
//   computed chunk by chunk for grids too large to hold.
//
// FORMULA
//   Along an axis of n logical cells shown as `out` display cells, display cell i covers the
//   logical cells [b(i), b(i + 1)) with b(i) = floor(i * n / out): every logical cell lies in
//   exactly one display cell, and a display cell covers floor(n/out) or ceil(n/out) of them.
//   The value of display cell (i, j) is the mean of the finite cells of its block, each with
//   weight 1. Non-finite cells (masks: -inf, NaN) are left out of the mean; a block with no finite
//   cell is NaN. Sums are accumulated in float64.
//
// LAYOUT
//   A GridWindow covers logical rows [row0, row0 + rows) and cols [col0, col0 + cols) and is
//   shown as outRows x outCols display cells. Grids are row-major (grid.hpp); the output is
//   outRows x outCols, display cell (i, j) at values[i * outCols + j].
//
// UNITS
//   Indices are logical cell indices (positions, dims, pairs, heads); counts are cells.
//
// ERRORS
//   Functions that average throw std::invalid_argument naming the function, parameter and value
//   when the window is not well formed (rows, cols >= 1; 1 <= outRows <= rows; 1 <= outCols <=
//   cols; row0, col0 >= 0) or does not lie inside the grid; nothing is written then.
//   windowInside() is the test callers use to avoid that.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "core/grid.hpp"

namespace posviz {

// A window of a logical grid and the display resolution wanted for it.
struct GridWindow {
  long long row0 = 0, rows = 0;      // logical rows covered: [row0, row0 + rows)
  long long col0 = 0, cols = 0;      // logical cols covered: [col0, col0 + cols)
  int outRows = 0, outCols = 0;      // display cells, 1 .. rows and 1 .. cols when well formed
  bool operator==(const GridWindow&) const = default;
};

// b(i) = floor(i * n / out): the first logical cell of display cell i, for 0 <= i <= out
// (b(out) = n). Throws unless n >= 0, out >= 1 and 0 <= i <= out.
long long areaCellBegin(long long n, int out, int i);

// The display cell holding logical cell j: the largest i with areaCellBegin(n, out, i) <= j.
// Throws unless n >= 1, out in [1, n] and 0 <= j < n.
int areaCellIndex(long long n, int out, long long j);

// The whole rows x cols grid at outRows x outCols display cells, each clamped to [1, rows]
// (to 0 when rows is 0) and [1, cols]. Throws when rows or cols is negative.
GridWindow fullWindow(long long rows, long long cols, int outRows, int outCols);

// True when w is well formed and lies inside a rows x cols grid. Never throws.
bool windowInside(const GridWindow& w, long long rows, long long cols);

// out = the area average of window w of `full` (outRows x outCols). Throws when w is not a
// well-formed window inside full.
void areaAverageWindow(const Grid& full, const GridWindow& w, Grid& out);

// The same average for grids never held whole: computeRows(firstRow, numRows, dst) writes numRows
// logical rows of all logicalCols columns (row-major) into dst. Rows come in chunks of about
// 4 Mi floats; windows over 32 MiB of logical rows call computeRows from several threads at once,
// so it must be thread-safe (core's grid functions are). cancelled() (optional) is polled between
// chunks: once it returns true the function stops and returns false (out is then incomplete).
// progress (optional) gets the fraction of logical rows done, 0..1. cancelled and progress are
// never called from two threads at once. Throws when w is not well formed, when
// w.col0 + w.cols > logicalCols, or when computeRows is empty.
bool areaAverageComputed(const GridWindow& w, long long logicalCols,
                         const std::function<void(long long firstRow, int numRows, float* dst)>& computeRows,
                         Grid& out, const std::function<bool()>& cancelled = {},
                         const std::function<void(float)>& progress = {});

// DIAGONALS: the same average of a grid whose cell (m, n) is f[m - n + offset], constant along
// its diagonals (a RoPE score of q and k that depends on m - n only), without the grid: with the
// prefix sums P[t] = f[0] + ... + f[t - 1], logical row m of a display cell covering columns
// [c0, c1) sums to P[m - c0 + offset + 1] - P[m - c1 + offset + 1]. O(rows x outCols) instead of
// O(rows x cols); cells split exactly as areaAverageWindow splits them. f must be finite (the
// prefix sums cannot leave out a masked cell). cancelled (optional) is polled once per display
// row; on true the function returns false and out is incomplete. Throws when w is not well formed
// or some m - n + offset of the window falls outside [0, f.size()).
bool areaAverageDiagonals(std::span<const double> f, long long offset, const GridWindow& w, Grid& out,
                          const std::function<bool()>& cancelled = {});

// LINES: a curve of n samples drawn at most `buckets` pixels wide. Split the samples into
// `buckets` runs as above (run i = [b(i), b(i + 1))) and keep, per run, the indices of its
// smallest and largest finite sample in index order (one index when they coincide), plus the
// non-finite samples (they break a line). The kept samples are real samples: a line through them
// has every run's extremes, so it looks like the whole curve at that width, and a hover on it
// reports exact values. O(n) once; then drawing costs O(buckets) instead of O(n).
// Returns all indices when n <= 2 * buckets. Throws unless 1 <= buckets <= 2^31 - 1.
std::vector<std::size_t> lineExtremes(std::span<const double> values, std::size_t buckets);

}  // namespace posviz
