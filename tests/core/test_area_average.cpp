// Tests for core/area_average: how display cells split the logical cells, block means by hand and
// by brute force, masks, the chunked variant, and every error path.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/area_average.hpp"
#include "core/random.hpp"

using namespace posviz;

namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

GridWindow window(long long row0, long long rows, long long col0, long long cols, int outRows, int outCols) {
  GridWindow w;
  w.row0 = row0;
  w.rows = rows;
  w.col0 = col0;
  w.cols = cols;
  w.outRows = outRows;
  w.outCols = outCols;
  return w;
}

// value(r, c) = 10 r + c: every block mean is easy to compute by hand.
Grid rampGrid(int rows, int cols) {
  Grid g(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) g.at(r, c) = static_cast<float>(10 * r + c);
  return g;
}

// The definition, cell by cell: the mean of the finite cells of each block, NaN when none.
Grid bruteForce(const Grid& g, const GridWindow& w) {
  Grid out(w.outRows, w.outCols);
  for (int i = 0; i < w.outRows; ++i)
    for (int j = 0; j < w.outCols; ++j) {
      const long long r0 = w.row0 + i * w.rows / w.outRows, r1 = w.row0 + (i + 1) * w.rows / w.outRows;
      const long long c0 = w.col0 + j * w.cols / w.outCols, c1 = w.col0 + (j + 1) * w.cols / w.outCols;
      double sum = 0.0;
      long long n = 0;
      for (long long r = r0; r < r1; ++r)
        for (long long c = c0; c < c1; ++c) {
          const float v = g.at(static_cast<int>(r), static_cast<int>(c));
          if (!std::isfinite(v)) continue;
          sum += v;
          ++n;
        }
      out.at(i, j) = n > 0 ? static_cast<float>(sum / static_cast<double>(n)) : kNan;
    }
  return out;
}

// computeRows for a grid held whole: copies the requested logical rows.
auto rowsOf(const Grid& g) {
  return [&g](long long first, int n, float* dst) {
    for (int k = 0; k < n; ++k)
      for (int c = 0; c < g.cols; ++c) dst[static_cast<std::size_t>(k) * g.cols + c] = g.at(static_cast<int>(first + k), c);
  };
}

}  // namespace

TEST_CASE("area average: display cell i covers floor(i n / out) .. floor((i + 1) n / out)") {
  // 10 cells as 4 display cells: 0, 2, 5, 7, 10 (sizes 2, 3, 2, 3).
  const long long expected[] = {0, 2, 5, 7, 10};
  for (int i = 0; i <= 4; ++i) {
    CAPTURE(i);
    CHECK(areaCellBegin(10, 4, i) == expected[i]);
  }
  CHECK(areaCellBegin(0, 3, 3) == 0);
  // A display cell per logical cell is the identity.
  for (int i = 0; i <= 9; ++i) CHECK(areaCellBegin(9, 9, i) == i);
}

TEST_CASE("area average: areaCellIndex finds the display cell holding each logical cell") {
  for (long long n : {1LL, 7LL, 10LL, 131072LL}) {
    for (int out : {1, 3, 7}) {
      if (out > n) continue;
      for (long long j = 0; j < n; j += std::max<long long>(1, n / 97)) {
        CAPTURE(n);
        CAPTURE(out);
        CAPTURE(j);
        const int i = areaCellIndex(n, out, j);
        REQUIRE(i >= 0);
        REQUIRE(i < out);
        CHECK(areaCellBegin(n, out, i) <= j);
        CHECK(j < areaCellBegin(n, out, i + 1));
      }
    }
  }
  CHECK(areaCellIndex(10, 4, 4) == 1);   // cells 2, 3, 4
  CHECK(areaCellIndex(10, 4, 5) == 2);   // cells 5, 6
}

TEST_CASE("area average: block means of a 4 x 6 ramp, by hand") {
  const Grid g = rampGrid(4, 6);   // rows 0..3: 0..5, 10..15, 20..25, 30..35
  Grid out;
  areaAverageWindow(g, fullWindow(4, 6, 2, 3), out);
  REQUIRE(out.rows == 2);
  REQUIRE(out.cols == 3);
  // Block (0, 0) = {0, 1, 10, 11}: 5.5. Block (1, 2) = {24, 25, 34, 35}: 29.5.
  CHECK(out.at(0, 0) == 5.5f);
  CHECK(out.at(0, 1) == 7.5f);
  CHECK(out.at(0, 2) == 9.5f);
  CHECK(out.at(1, 0) == 25.5f);
  CHECK(out.at(1, 2) == 29.5f);

  // Unequal blocks: 3 rows as 2 display rows are rows {0} and {1, 2}; 6 cols as 4 are
  // {0}, {1, 2}, {3}, {4, 5}.
  areaAverageWindow(g, window(0, 3, 0, 6, 2, 4), out);
  CHECK(out.at(0, 0) == 0.0f);
  CHECK(out.at(0, 1) == 1.5f);
  CHECK(out.at(0, 3) == 4.5f);
  CHECK(out.at(1, 0) == 15.0f);   // {10, 20}
  CHECK(out.at(1, 1) == 16.5f);   // {11, 12, 21, 22}
  CHECK(out.at(1, 3) == 19.5f);   // {14, 15, 24, 25}

  // Everything into one cell: the mean of 0..35 over the ramp, 17.5.
  areaAverageWindow(g, fullWindow(4, 6, 1, 1), out);
  CHECK(out.at(0, 0) == 17.5f);
}

TEST_CASE("area average: edge windows (last rows and cols) and windows at full resolution copy cells") {
  const Grid g = rampGrid(5, 7);
  Grid out;
  // The bottom-right corner, rows 3..4 x cols 4..6, as one cell: {34, 35, 36, 44, 45, 46}, mean 40.
  areaAverageWindow(g, window(3, 2, 4, 3, 1, 1), out);
  REQUIRE(out.rows == 1);
  CHECK(out.at(0, 0) == 40.0f);
  // The last row alone, at full resolution: a copy.
  areaAverageWindow(g, window(4, 1, 0, 7, 1, 7), out);
  for (int c = 0; c < 7; ++c) CHECK(out.at(0, c) == g.at(4, c));
  // The last column alone, halved: rows {0, 1}, {2, 3, 4} of col 6.
  areaAverageWindow(g, window(0, 5, 6, 1, 2, 1), out);
  CHECK(out.at(0, 0) == 11.0f);   // {6, 16}
  CHECK(out.at(1, 0) == 36.0f);   // {26, 36, 46}
}

TEST_CASE("area average: masked cells are left out; an all-masked block is NaN") {
  Grid g = rampGrid(2, 4);
  g.at(0, 0) = -kInf;
  g.at(1, 1) = kNan;
  g.at(0, 2) = kNan;
  g.at(0, 3) = kInf;
  g.at(1, 2) = kNan;
  g.at(1, 3) = -kInf;
  Grid out;
  areaAverageWindow(g, fullWindow(2, 4, 1, 2), out);
  CHECK(out.at(0, 0) == 5.5f);   // {1, 10}
  CHECK(std::isnan(out.at(0, 1)));
}

TEST_CASE("area average: random grids and windows agree with the cell-by-cell definition") {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    Rng rng(seed);
    auto pick = [&](long long lo, long long hi) {   // uniform in [lo, hi]
      return lo + static_cast<long long>(rng.uniform() * static_cast<double>(hi - lo + 1));
    };
    const int rows = static_cast<int>(pick(1, 60)), cols = static_cast<int>(pick(1, 60));
    Grid g(rows, cols);
    for (float& v : g.values) v = static_cast<float>(rng.normal());
    if (seed % 3 == 0) g.values[g.values.size() / 2] = kNan;   // some masks too
    const long long r0 = pick(0, rows - 1), c0 = pick(0, cols - 1);
    const GridWindow w = window(r0, rows - r0, c0, cols - c0, static_cast<int>(pick(1, rows - r0)),
                                static_cast<int>(pick(1, cols - c0)));
    CAPTURE(rows);
    CAPTURE(cols);
    Grid a, b;
    areaAverageWindow(g, w, a);
    const Grid expected = bruteForce(g, w);
    REQUIRE(areaAverageComputed(w, cols, rowsOf(g), b));
    REQUIRE(a.rows == expected.rows);
    REQUIRE(a.cols == expected.cols);
    REQUIRE(b.rows == expected.rows);
    for (std::size_t i = 0; i < a.values.size(); ++i) {
      CAPTURE(i);
      if (std::isnan(expected.values[i])) {
        CHECK(std::isnan(a.values[i]));
        CHECK(std::isnan(b.values[i]));
      } else {
        // Both sum in float64 in the same order: bit-equal to each other, and to the definition
        // up to float rounding of the mean.
        CHECK(a.values[i] == b.values[i]);
        CHECK(a.values[i] == doctest::Approx(expected.values[i]).epsilon(1e-6));
      }
    }
  }
}

TEST_CASE("area average: the chunked variant reports progress and stops when cancelled") {
  const Grid g = rampGrid(300, 5);
  const GridWindow w = fullWindow(300, 5, 30, 5);
  Grid out;
  float last = 0.0f;
  int calls = 0;
  REQUIRE(areaAverageComputed(w, 5, rowsOf(g), out, {}, [&](float f) {
    CHECK(f >= last);
    last = f;
    ++calls;
  }));
  CHECK(calls >= 30);
  CHECK(last == 1.0f);
  CHECK(out.at(0, 0) == 45.0f);   // rows 0..9 of col 0: mean of 0, 10, .., 90
  int polls = 0;
  CHECK_FALSE(areaAverageComputed(w, 5, rowsOf(g), out, [&] { return ++polls > 3; }));
}

TEST_CASE("area average: windows that are malformed or outside the grid are rejected") {
  const Grid g = rampGrid(4, 4);
  Grid out;
  CHECK_THROWS_WITH_AS(areaAverageWindow(g, window(0, 0, 0, 4, 1, 1), out),
                       "areaAverageWindow: w.rows must be > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaAverageWindow(g, window(0, 4, 0, -2, 1, 1), out),
                       "areaAverageWindow: w.cols must be > 0, got -2", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaAverageWindow(g, window(0, 4, 0, 4, 5, 1), out),
                       "areaAverageWindow: w.outRows must be in [1, w.rows = 4], got 5", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaAverageWindow(g, window(0, 4, 0, 4, 2, 0), out),
                       "areaAverageWindow: w.outCols must be in [1, w.cols = 4], got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaAverageWindow(g, window(-1, 2, 0, 4, 1, 1), out),
                       "areaAverageWindow: w.row0 must be >= 0, got -1", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaAverageWindow(g, window(0, 2, -3, 2, 1, 1), out),
                       "areaAverageWindow: w.col0 must be >= 0, got -3", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaAverageWindow(g, window(2, 3, 0, 4, 1, 1), out),
                       "areaAverageWindow: w.row0 + w.rows must be <= full.rows = 4, got 5", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaAverageWindow(g, window(0, 4, 1, 4, 1, 1), out),
                       "areaAverageWindow: w.col0 + w.cols must be <= full.cols = 4, got 5", std::invalid_argument);
  CHECK(out.values.empty());   // nothing written by a rejected call

  CHECK_THROWS_WITH_AS(areaAverageComputed(window(0, 4, 2, 4, 1, 1), 5, rowsOf(g), out),
                       "areaAverageComputed: w.col0 + w.cols must be <= logicalCols = 5, got 6", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaAverageComputed(window(0, 4, 0, 4, 0, 1), 4, rowsOf(g), out),
                       "areaAverageComputed: w.outRows must be in [1, w.rows = 4], got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaAverageComputed(fullWindow(4, 4, 2, 2), 4, {}, out),
                       "areaAverageComputed: computeRows must be a function, got an empty one", std::invalid_argument);
}

TEST_CASE("area average: bad counts and indices are rejected; windowInside never throws") {
  CHECK_THROWS_WITH_AS(areaCellBegin(-1, 2, 0), "areaCellBegin: n must be >= 0, got -1", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaCellBegin(10, 0, 0), "areaCellBegin: out must be > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaCellBegin(10, 4, 5), "areaCellBegin: i must be in [0, out = 4], got 5", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaCellBegin(10, 4, -1), "areaCellBegin: i must be in [0, out = 4], got -1", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaCellIndex(0, 1, 0), "areaCellIndex: n must be > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaCellIndex(4, 5, 0), "areaCellIndex: out must be in [1, n = 4], got 5", std::invalid_argument);
  CHECK_THROWS_WITH_AS(areaCellIndex(4, 2, 4), "areaCellIndex: j must be in [0, 3], got 4", std::invalid_argument);
  CHECK_THROWS_WITH_AS(fullWindow(-1, 4, 1, 1), "fullWindow: rows must be >= 0, got -1", std::invalid_argument);
  CHECK_THROWS_WITH_AS(fullWindow(4, -1, 1, 1), "fullWindow: cols must be >= 0, got -1", std::invalid_argument);

  // fullWindow clamps the display size into [1, rows] x [1, cols].
  const GridWindow w = fullWindow(4, 6, 100, 0);
  CHECK(w == window(0, 4, 0, 6, 4, 1));
  CHECK(fullWindow(0, 0, 3, 3) == window(0, 0, 0, 0, 0, 0));

  CHECK(windowInside(window(1, 3, 2, 4, 3, 2), 4, 6));
  CHECK_FALSE(windowInside(window(1, 4, 2, 4, 3, 2), 4, 6));    // one row past the end
  CHECK_FALSE(windowInside(window(0, 4, 0, 6, 0, 2), 4, 6));    // no display rows
  CHECK_FALSE(windowInside(window(0, 2, 0, 6, 3, 2), 4, 6));    // more display rows than rows
  CHECK_FALSE(windowInside(window(-1, 2, 0, 6, 1, 1), 4, 6));
  CHECK_FALSE(windowInside(GridWindow{}, 4, 6));
}

TEST_CASE("lineExtremes: each run's smallest and largest sample, in order; breaks kept") {
  using posviz::lineExtremes;
  // 12 samples in 3 runs of 4: [0..3], [4..7], [8..11].
  const std::vector<double> v = {1, 5, -2, 3, 0, 0, 0, 0, 9, std::nan(""), 4, 7};
  const std::vector<std::size_t> idx = lineExtremes(v, 3);
  // Run 0: min at 2, max at 1 -> 1, 2. Run 1: all equal -> 4 once. Run 2: 8 (max so far), the NaN
  // break at 9, then min 10 and max 11.
  CHECK(idx == std::vector<std::size_t>{1, 2, 4, 8, 9, 10, 11});
  // Few samples: every index.
  CHECK(lineExtremes(std::vector<double>{3, 1, 2}, 2) == std::vector<std::size_t>{0, 1, 2});
  // A long curve keeps its global extremes and at most two samples per run.
  std::vector<double> s(1'000'000);
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = std::sin(0.001 * static_cast<double>(i)) + (i == 777'777 ? 5.0 : 0.0);
  const std::vector<std::size_t> keep = lineExtremes(s, 1000);
  CHECK(keep.size() <= 2000);
  CHECK(std::find(keep.begin(), keep.end(), std::size_t{777'777}) != keep.end());
  CHECK(std::is_sorted(keep.begin(), keep.end()));
  CHECK_THROWS_AS(lineExtremes(s, 0), std::invalid_argument);
}
