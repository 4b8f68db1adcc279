#include "core/area_average.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "core/parallel.hpp"

namespace posviz {

namespace {

// Rejects a window that is not well formed, naming the field: rows and cols >= 1, display cells
// between 1 and the logical cells they cover, non-negative origin.
void requireWellFormed(const char* fn, const GridWindow& w) {
  requirePositiveInt(fn, "w.rows", w.rows);
  requirePositiveInt(fn, "w.cols", w.cols);
  if (w.outRows < 1 || w.outRows > w.rows)
    failArgument(fn, "w.outRows must be in [1, w.rows = " + std::to_string(w.rows) + "], got " + std::to_string(w.outRows));
  if (w.outCols < 1 || w.outCols > w.cols)
    failArgument(fn, "w.outCols must be in [1, w.cols = " + std::to_string(w.cols) + "], got " + std::to_string(w.outCols));
  requireNonNegativeInt(fn, "w.row0", w.row0);
  requireNonNegativeInt(fn, "w.col0", w.col0);
}

bool wellFormed(const GridWindow& w) {
  return w.rows > 0 && w.cols > 0 && w.outRows > 0 && w.outCols > 0 && w.outRows <= w.rows && w.outCols <= w.cols &&
         w.row0 >= 0 && w.col0 >= 0;
}

// Maps each logical column of the window to its display column.
std::vector<int> columnBins(const GridWindow& w) {
  std::vector<int> bin(static_cast<std::size_t>(w.cols));
  for (int j = 0; j < w.outCols; ++j) {
    const long long a = areaCellBegin(w.cols, w.outCols, j);
    const long long b = areaCellBegin(w.cols, w.outCols, j + 1);
    for (long long c = a; c < b; ++c) bin[static_cast<std::size_t>(c)] = j;
  }
  return bin;
}

// Sums and finite-cell counts of one display row, fed one logical row at a time.
struct Accumulator {
  std::vector<double> sum;
  std::vector<long long> count;
  void reset(int n) {
    sum.assign(static_cast<std::size_t>(n), 0.0);
    count.assign(static_cast<std::size_t>(n), 0);
  }
  void add(const float* row, long long col0, const std::vector<int>& bin) {
    const std::size_t n = bin.size();
    for (std::size_t c = 0; c < n; ++c) {
      const float v = row[static_cast<std::size_t>(col0) + c];
      if (!std::isfinite(v)) continue;
      sum[static_cast<std::size_t>(bin[c])] += v;
      ++count[static_cast<std::size_t>(bin[c])];
    }
  }
  void store(float* dst) const {
    for (std::size_t j = 0; j < sum.size(); ++j)
      dst[j] = count[j] > 0 ? static_cast<float>(sum[j] / static_cast<double>(count[j]))
                            : std::numeric_limits<float>::quiet_NaN();
  }
};

}  // namespace

long long areaCellBegin(long long n, int out, int i) {
  requireNonNegativeInt("areaCellBegin", "n", n);
  requirePositiveInt("areaCellBegin", "out", out);
  if (i < 0 || i > out)
    failArgument("areaCellBegin", "i must be in [0, out = " + std::to_string(out) + "], got " + std::to_string(i));
  // i * n stays far below 2^63 for the sizes grids reach (n < 2^40 cells, out < 2^20 pixels).
  return static_cast<long long>(i) * n / out;
}

int areaCellIndex(long long n, int out, long long j) {
  requirePositiveInt("areaCellIndex", "n", n);
  if (out < 1 || out > n)
    failArgument("areaCellIndex", "out must be in [1, n = " + std::to_string(n) + "], got " + std::to_string(out));
  requireIndex("areaCellIndex", "j", j, n);
  // b(i) <= j  <=>  i * n / out <= j  <=>  i <= ((j + 1) * out - 1) / n, floors throughout.
  return static_cast<int>(((j + 1) * out - 1) / n);
}

GridWindow fullWindow(long long rows, long long cols, int outRows, int outCols) {
  requireNonNegativeInt("fullWindow", "rows", rows);
  requireNonNegativeInt("fullWindow", "cols", cols);
  GridWindow w;
  w.rows = rows;
  w.cols = cols;
  w.outRows = static_cast<int>(std::clamp<long long>(outRows, rows > 0 ? 1 : 0, rows));
  w.outCols = static_cast<int>(std::clamp<long long>(outCols, cols > 0 ? 1 : 0, cols));
  return w;
}

bool windowInside(const GridWindow& w, long long rows, long long cols) {
  return wellFormed(w) && w.row0 + w.rows <= rows && w.col0 + w.cols <= cols;
}

void areaAverageWindow(const Grid& full, const GridWindow& w, Grid& out) {
  const char* fn = "areaAverageWindow";
  requireWellFormed(fn, w);
  if (w.row0 + w.rows > full.rows)
    failArgument(fn, "w.row0 + w.rows must be <= full.rows = " + std::to_string(full.rows) + ", got " +
                         std::to_string(w.row0 + w.rows));
  if (w.col0 + w.cols > full.cols)
    failArgument(fn, "w.col0 + w.cols must be <= full.cols = " + std::to_string(full.cols) + ", got " +
                         std::to_string(w.col0 + w.cols));
  out = Grid(w.outRows, w.outCols);
  if (w.rows == w.outRows && w.cols == w.outCols) {   // one cell a pixel: its value, or NaN where masked
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (int i = 0; i < w.outRows; ++i) {
      const float* src = full.row(static_cast<int>(w.row0 + i)) + w.col0;
      std::transform(src, src + w.cols, out.row(i), [nan](float v) { return v - v == 0.0f ? v : nan; });
    }
    return;
  }
  const std::vector<int> bin = columnBins(w);
  Accumulator acc;
  for (int i = 0; i < w.outRows; ++i) {
    acc.reset(w.outCols);
    const long long a = areaCellBegin(w.rows, w.outRows, i);
    const long long b = areaCellBegin(w.rows, w.outRows, i + 1);
    for (long long r = a; r < b; ++r) acc.add(full.row(static_cast<int>(w.row0 + r)), w.col0, bin);
    acc.store(out.row(i));
  }
}

bool areaAverageDiagonals(std::span<const double> f, long long offset, const GridWindow& w, Grid& out,
                          const std::function<bool()>& cancelled) {
  const char* fn = "areaAverageDiagonals";
  requireWellFormed(fn, w);
  const long long lowest = w.row0 - (w.col0 + w.cols - 1) + offset;   // m - n + offset at its smallest
  const long long highest = w.row0 + w.rows - 1 - w.col0 + offset;    // and at its largest
  if (lowest < 0 || highest >= static_cast<long long>(f.size()))
    failArgument(fn, "m - n + offset spans [" + std::to_string(lowest) + ", " + std::to_string(highest) +
                         "] over the window, but f has indices [0, " + std::to_string(f.size()) + ")");
  std::vector<double> prefix(f.size() + 1, 0.0);
  for (std::size_t i = 0; i < f.size(); ++i) prefix[i + 1] = prefix[i] + f[i];
  const auto at = [&](long long t) { return prefix[static_cast<std::size_t>(t)]; };
  out = Grid(w.outRows, w.outCols);
  for (int r = 0; r < w.outRows; ++r) {
    if (cancelled && cancelled()) return false;
    const long long r0 = w.row0 + areaCellBegin(w.rows, w.outRows, r);
    const long long r1 = w.row0 + areaCellBegin(w.rows, w.outRows, r + 1);
    for (int c = 0; c < w.outCols; ++c) {
      const long long c0 = w.col0 + areaCellBegin(w.cols, w.outCols, c);
      const long long c1 = w.col0 + areaCellBegin(w.cols, w.outCols, c + 1);
      double sum = 0.0;
      for (long long m = r0; m < r1; ++m) sum += at(m - c0 + offset + 1) - at(m - c1 + offset + 1);
      out.at(r, c) = static_cast<float>(sum / static_cast<double>((r1 - r0) * (c1 - c0)));
    }
  }
  return true;
}

bool areaAverageComputed(const GridWindow& w, long long logicalCols,
                         const std::function<void(long long firstRow, int numRows, float* dst)>& computeRows,
                         Grid& out, const std::function<bool()>& cancelled,
                         const std::function<void(float)>& progress) {
  const char* fn = "areaAverageComputed";
  requireWellFormed(fn, w);
  if (w.col0 + w.cols > logicalCols)
    failArgument(fn, "w.col0 + w.cols must be <= logicalCols = " + std::to_string(logicalCols) + ", got " +
                         std::to_string(w.col0 + w.cols));
  if (!computeRows) failArgument(fn, "computeRows must be a function, got an empty one");
  out = Grid(w.outRows, w.outCols);
  const std::vector<int> bin = columnBins(w);
  // Chunks of about 4 Mi floats of logical rows, never splitting the work per display row; big
  // windows split their display rows over the cores (computeRows is a pure core function).
  const long long chunkRows = std::max<long long>(1, (4ll << 20) / std::max<long long>(1, logicalCols));
  const auto bytes = static_cast<std::size_t>(w.rows) * static_cast<std::size_t>(logicalCols) * sizeof(float);
  std::atomic<long long> done{0};
  std::atomic<bool> stopped{false};
  std::mutex progressMutex;   // progress() and cancelled() are called from one thread at a time
  parallelFor(w.outRows, threadsForBytes(bytes, 0), 1, [&](long long firstOut, long long endOut) {
    std::vector<float> buf;
    Accumulator acc;
    for (long long i = firstOut; i < endOut; ++i) {
      acc.reset(w.outCols);
      const long long a = areaCellBegin(w.rows, w.outRows, static_cast<int>(i));
      const long long b = areaCellBegin(w.rows, w.outRows, static_cast<int>(i) + 1);
      for (long long r = a; r < b; r += chunkRows) {
        if (stopped.load()) return;
        if (cancelled) {
          std::lock_guard lock(progressMutex);
          if (cancelled()) {
            stopped.store(true);
            return;
          }
        }
        const int n = static_cast<int>(std::min(chunkRows, b - r));
        buf.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(logicalCols));
        computeRows(w.row0 + r, n, buf.data());
        for (int k = 0; k < n; ++k) acc.add(buf.data() + static_cast<std::size_t>(k) * logicalCols, w.col0, bin);
        const long long total = done.fetch_add(n) + n;
        if (progress) {
          std::lock_guard lock(progressMutex);
          progress(static_cast<float>(static_cast<double>(total) / static_cast<double>(w.rows)));
        }
      }
      acc.store(out.row(static_cast<int>(i)));
    }
  });
  return !stopped.load();
}

}  // namespace posviz

namespace posviz {

std::vector<std::size_t> lineExtremes(std::span<const double> values, std::size_t buckets) {
  const char* fn = "lineExtremes";
  if (buckets < 1 || buckets > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    failArgument(fn, "buckets must be in [1, 2^31 - 1], got " + std::to_string(buckets));
  const std::size_t n = values.size();
  std::vector<std::size_t> out;
  if (n <= 2 * buckets) {
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = i;
    return out;
  }
  out.reserve(2 * buckets + 16);
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t i0 = static_cast<std::size_t>(areaCellBegin(static_cast<long long>(n), static_cast<int>(buckets), static_cast<int>(b)));
    const std::size_t i1 = static_cast<std::size_t>(areaCellBegin(static_cast<long long>(n), static_cast<int>(buckets), static_cast<int>(b + 1)));
    std::size_t lo = n, hi = n;
    for (std::size_t i = i0; i < i1; ++i) {
      if (!std::isfinite(values[i])) {   // a break in the line: keep it where it is
        if (lo != n) out.push_back(std::min(lo, hi));
        if (hi != n && hi != lo) out.push_back(std::max(lo, hi));
        out.push_back(i);
        lo = hi = n;
        continue;
      }
      if (lo == n || values[i] < values[lo]) lo = i;
      if (hi == n || values[i] > values[hi]) hi = i;
    }
    if (lo == n) continue;
    out.push_back(std::min(lo, hi));
    if (hi != lo) out.push_back(std::max(lo, hi));
  }
  return out;
}

}  // namespace posviz
