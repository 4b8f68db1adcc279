// Tests for core/exact_average: every closed-form block mean against brute-force float64 (long
// double where positions reach 2^31) averaging, the pictures against area_average of core's own
// grids, and every error path.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <vector>

#include "core/alibi.hpp"
#include "core/area_average.hpp"
#include "core/exact_average.hpp"
#include "core/random.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

using namespace posviz;

namespace {

constexpr long long kTop = (1ll << 31) - 1;  // the largest position the views reach
constexpr long double kTwoPiL = 6.283185307179586476925286766559005768L;

// Brute force: sum over the run in long double, each angle reduced by sinl/cosl/fmodl themselves.
SinCosMean bruteRun(double w, long long p0, long long p1) {
  long double c = 0, s = 0;
  for (long long p = p0; p < p1; ++p) {
    const long double a = static_cast<long double>(w) * static_cast<long double>(p);
    c += std::cos(a);
    s += std::sin(a);
  }
  const auto n = static_cast<long double>(p1 - p0);
  return {static_cast<double>(c / n), static_cast<double>(s / n)};
}

double bruteAngle(double theta, long long p0, long long p1) {
  long double sum = 0;
  for (long long p = p0; p < p1; ++p) sum += std::fmod(static_cast<long double>(theta) * p, kTwoPiL);
  return static_cast<double>(sum / static_cast<long double>(p1 - p0));
}

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

// Max |a - b| over two pictures of the same shape, NaN matching NaN.
double maxDiff(const Grid& a, const Grid& b) {
  REQUIRE(a.rows == b.rows);
  REQUIRE(a.cols == b.cols);
  double m = 0.0;
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    if (std::isnan(a.values[i]) || std::isnan(b.values[i])) {
      CHECK(std::isnan(a.values[i]) == std::isnan(b.values[i]));
      continue;
    }
    m = std::max(m, std::fabs(static_cast<double>(a.values[i]) - b.values[i]));
  }
  return m;
}

}  // namespace

TEST_CASE("exact average: run means of cos and sin match brute force, up to 2^31") {
  struct Case {
    double w;
    long long p0, p1;
  };
  const Case cases[] = {{1.0, 0, 1},           {1.0, 0, 1000},        {1e-12, 5, 70000},
                        {0.0, 3, 9},           {3.14159, 100, 20000}, {std::acos(-1.0), 0, 1001},
                        {2 * std::acos(-1.0), 7, 4000}, {1.0, kTop - 1000000, kTop}, {0.001, kTop - 300000, kTop + 1},
                        {1e-9, 0, kTop},       {5e-10, kTop / 2, kTop}};
  for (const Case& c : cases) {
    CAPTURE(c.w);
    CAPTURE(c.p0);
    CAPTURE(c.p1);
    const SinCosMean got = sinCosRunMean(c.w, c.p0, c.p1);
    SinCosMean want{};
    if (c.p1 - c.p0 > 5000000) {
      // Tiny w over ~2^31 positions, too many to sum: the sum differs from the integral of
      // cos/sin over [p0, p1 - 1] by endpoint terms of order 1/n ~ 5e-10, far inside 1e-6.
      const long double a = static_cast<long double>(c.w) * c.p0, b = static_cast<long double>(c.w) * (c.p1 - 1);
      want = {static_cast<double>((std::sin(b) - std::sin(a)) / (b - a)),
              static_cast<double>((std::cos(a) - std::cos(b)) / (b - a))};
      CHECK(got.cos == doctest::Approx(want.cos).epsilon(1e-6));
      CHECK(got.sin == doctest::Approx(want.sin).epsilon(1e-6));
      continue;
    }
    want = bruteRun(c.w, c.p0, c.p1);
    CHECK(std::fabs(got.cos - want.cos) < 1e-9);
    CHECK(std::fabs(got.sin - want.sin) < 1e-9);
  }
  // By hand: w = pi/2 over p = 0..3 visits 1, i, -1, -i: the mean is 0.
  const SinCosMean quarter = sinCosRunMean(std::acos(-1.0) / 2, 0, 4);
  CHECK(std::fabs(quarter.cos) < 1e-15);
  CHECK(std::fabs(quarter.sin) < 1e-15);
}

TEST_CASE("exact average: sawtooth angle means match brute force, up to 2^31") {
  struct Case {
    double theta;
    long long p0, p1;
  };
  const Case cases[] = {{1.0, 0, 1},        {1.0, 0, 100000},   {0.01, 10, 50000},       {1e-4, 0, 70000},
                        {1e-9, 0, 1000},    {6.5, 3, 9000},     {1.0, kTop - 500000, kTop}, {0.37, kTop - 200000, kTop + 1},
                        {3e-5, kTop - 400000, kTop}};
  for (const Case& c : cases) {
    CAPTURE(c.theta);
    CAPTURE(c.p0);
    CAPTURE(c.p1);
    CHECK(std::fabs(angleRunMean(c.theta, c.p0, c.p1) - bruteAngle(c.theta, c.p0, c.p1)) < 1e-6);
  }
  // By hand: theta = pi over p = 0..3 is 0, pi, 0, pi: mean pi/2.
  CHECK(angleRunMean(std::acos(-1.0), 0, 4) == doctest::Approx(std::acos(-1.0) / 2).epsilon(1e-12));
}

TEST_CASE("exact average: sinusoidal pictures equal area_average of sinusoidalGrid, both layouts") {
  for (SinusoidalLayout layout : {SinusoidalLayout::Interleaved, SinusoidalLayout::Tensor2Tensor}) {
    CAPTURE(static_cast<int>(layout));
    SinusoidalParams p;
    p.dModel = 64;
    p.layout = layout;
    for (long long first : {0ll, kTop - 4096 + 1}) {
      CAPTURE(first);
      const Grid g = sinusoidalGrid(p, 4096, first);
      Grid want;
      areaAverageWindow(g, window(0, 4096, 0, 64, 37, 10), want);
      const Grid got = sinusoidalExactAverage(p, window(first, 4096, 0, 64, 37, 10));
      CHECK(maxDiff(got, want) < 1e-6);
      // A window of columns, as the GUI pans.
      Grid wantPart;
      areaAverageWindow(g, window(100, 3000, 5, 40, 13, 7), wantPart);
      CHECK(maxDiff(sinusoidalExactAverage(p, window(first + 100, 3000, 5, 40, 13, 7)), wantPart) < 1e-6);
    }
  }
}

TEST_CASE("exact average: a 2^31 x 64 sinusoidal picture matches brute force on large blocks") {
  SinusoidalParams p;
  p.dModel = 64;
  const Grid pic = sinusoidalExactAverage(p, window(0, kTop, 0, 64, 2048, 8));
  // Display cell (2047, j) covers about 2^20 rows x 8 dims (8.4e6 cells); check two of them.
  for (int j : {0, 7}) {
    CAPTURE(j);
    const long long r0 = areaCellBegin(kTop, 2048, 2047), r1 = kTop;
    const int c0 = j * 8, c1 = c0 + 8;
    long double sum = 0;
    const long long rows = 40000;  // the last 40000 rows of the block, 320,000 cells, brute force
    for (int d = c0; d < c1; ++d) {
      const double w = sinusoidalFrequency(p, sinusoidalPairOfDim(p, d));
      const SinCosMean m = bruteRun(w, r1 - rows, r1);
      sum += sinusoidalDimIsSin(p, d) ? m.sin : m.cos;
    }
    CHECK(std::fabs(sinusoidalBlockMean(p, r1 - rows, r1, c0, c1) - static_cast<double>(sum / 8)) < 1e-6);
    // The whole block, dim by dim, through the run means already checked against brute force.
    CHECK(pic.values[static_cast<std::size_t>(2047 * 8 + j)] ==
          doctest::Approx(sinusoidalBlockMean(p, r0, r1, c0, c1)).epsilon(1e-6));
  }
  // Pair 31's wavelength is ~ 2 pi * 10^4 * 0.74, far below a block: its means are near 0.
  CHECK(std::fabs(sinusoidalBlockMean(p, 0, kTop, 63, 64)) < 1e-3);
  // Pair 0 averages sin(p) over 2^31 positions: also near 0, cos likewise.
  CHECK(std::fabs(sinusoidalBlockMean(p, 0, kTop, 0, 2)) < 1e-8);
}

TEST_CASE("exact average: a sinusoidal picture's phase steps agree with each block's own closed form") {
  // The picture advances each pair's phase from block to block (seeded every 128 rows); every cell
  // must still equal sinusoidalBlockMean, which reduces each block's angle afresh. 300 display rows
  // walk from 3 seeds; 2^31 - 1 - 5 rows over 300 gives blocks of both lengths, so all three steps run.
  for (SinusoidalLayout layout : {SinusoidalLayout::Interleaved, SinusoidalLayout::Tensor2Tensor}) {
    CAPTURE(static_cast<int>(layout));
    SinusoidalParams p;
    p.dModel = 512;
    p.layout = layout;
    // Interleaved columns are summed by whole pairs plus a half pair at either end: blocks of
    // 5 or 6 dims from an odd column, of one dim each (a lone sin, a lone cos), of two dims from
    // an odd column (a cos and the next pair's sin, no whole pair), and the last dim alone.
    for (const GridWindow& w : {window(5, kTop - 5, 0, 512, 300, 64), window(1000003, 977777, 37, 101, 300, 17),
                                window(7, 4099, 3, 9, 300, 9), window(7, 4099, 101, 40, 300, 20),
                                window(0, 4099, 511, 1, 300, 1)}) {
      CAPTURE(w.row0);
      const ExactPicture pic = sinusoidalExactPicture(p, w);
      double worst = 0.0;
      for (int i = 0; i < w.outRows; ++i)
        for (int j = 0; j < w.outCols; ++j) {
          const long long r0 = w.row0 + areaCellBegin(w.rows, w.outRows, i), r1 = w.row0 + areaCellBegin(w.rows, w.outRows, i + 1);
          const auto c0 = static_cast<int>(w.col0 + areaCellBegin(w.cols, w.outCols, j));
          const auto c1 = static_cast<int>(w.col0 + areaCellBegin(w.cols, w.outCols, j + 1));
          const double want = sinusoidalBlockMean(p, r0, r1, c0, c1);
          worst = std::max(worst, std::fabs(pic.values[static_cast<std::size_t>(i * w.outCols + j)] - want));
        }
      CHECK(worst < 1e-12);
    }
  }
}

TEST_CASE("exact average: RoPE angle, cos and sin pictures equal area_average of core's grids") {
  RopeParams p;
  p.headDim = 32;
  SUBCASE("no scaling") {}
  SUBCASE("yarn") {
    p.scaling.method = ScalingMethod::Yarn;
    p.scaling.factor = 8.0;
  }
  SUBCASE("linear") {
    p.scaling.method = ScalingMethod::Linear;
    p.scaling.factor = 4.0;
  }
  for (long long first : {0ll, kTop - 2048 + 1}) {
    CAPTURE(first);
    const struct {
      RopePairValue v;
      Grid g;
    } grids[] = {{RopePairValue::Angle, ropeAngleGrid(p, 2048, first)},
                 {RopePairValue::Cos, ropeCosGrid(p, 2048, first)},
                 {RopePairValue::Sin, ropeSinGrid(p, 2048, first)}};
    for (const auto& g : grids) {
      CAPTURE(static_cast<int>(g.v));
      Grid want;
      areaAverageWindow(g.g, window(0, 2048, 0, 16, 29, 5), want);
      // Angles near 0 and 2 pi: float32 grid cells of angles up to 2 pi round by 2.4e-7.
      CHECK(maxDiff(ropePairExactAverage(p, g.v, window(first, 2048, 0, 16, 29, 5)), want) < 1e-6);
    }
  }
  // One big block of the angle view against brute force (fmodl per cell).
  const RopeFrequencies f = ropeFrequencies(p);
  long double sum = 0;
  for (int c = 0; c < 4; ++c) sum += bruteAngle(f.invFreq[static_cast<std::size_t>(c)], kTop - 250000, kTop);
  CHECK(std::fabs(ropePairBlockMean(p, RopePairValue::Angle, kTop - 250000, kTop, 0, 4) -
                  static_cast<double>(sum / 4)) < 1e-6);
}

TEST_CASE("exact average: RoPE score block means match brute force, incl. 1e8-cell blocks at 2^31") {
  RopeParams p;
  p.headDim = 16;
  p.rotaryFraction = 0.75;  // 12 rotary dims, 4 pass-through
  p.scaling.method = ScalingMethod::Yarn;
  p.scaling.factor = 4.0;
  const std::vector<float> q = randomNormalVector(16, 1), k = randomNormalVector(16, 2);
  // Picture vs area_average of ropeScoreGrid near 2^31.
  const long long first = kTop - 1024 + 1;
  const Grid g = ropeScoreGrid(p, q, k, 1024, first);
  Grid want;
  areaAverageWindow(g, window(0, 1024, 0, 1024, 31, 17), want);
  const Grid got = ropeScoreExactAverage(p, q, k, window(first, 1024, first, 1024, 31, 17));
  CHECK(maxDiff(got, want) < 1e-5 * 16);  // scores ~ |q||k| ~ 16; float32 cells round by 1e-6 relative
  // A 10^4 x 10^4 block (1e8 cells) with queries near 2^31 and keys near 0: brute force over the
  // 2 * 10^4 - 1 offsets with their triangular weights, each s(r) by ropeScore's rotation.
  const long long m0 = kTop - 10000, n0 = 0, side = 10000;
  long double sum = 0;
  for (long long r = m0 - n0 - (side - 1); r <= m0 - n0 + (side - 1); ++r) {
    const long long weight = side - std::llabs(r - (m0 - n0));
    sum += static_cast<long double>(weight) * ropeScore(p, q, k, static_cast<double>(r), 0.0);
  }
  const double brute = static_cast<double>(sum / (static_cast<long double>(side) * side));
  CHECK(std::fabs(ropeScoreBlockMean(p, q, k, m0, m0 + side, n0, n0 + side) - brute) < 1e-6);
}

TEST_CASE("exact average: a RoPE score picture's phase steps agree with each block's own closed form") {
  // Rows and columns advance their phases block to block (seeded every 128); every cell must equal
  // ropeScoreBlockMean, which reduces each block's angles afresh. 300 x 300 blocks walk from 3
  // seeds on both axes, with blocks of both lengths (2^31 - 6 rows and 1,000,003 columns over 300).
  RopeParams p;
  p.headDim = 32;
  p.base = 500000.0;
  const std::vector<float> q = randomNormalVector(32, 7), k = randomNormalVector(32, 8);
  const GridWindow w = window(5, kTop - 5, 123, 1000003, 300, 300);
  const ExactPicture pic = ropeScoreExactPicture(p, q, k, w);
  double worst = 0.0;
  for (int i = 0; i < w.outRows; ++i)
    for (int j = 0; j < w.outCols; ++j) {
      const long long m0 = w.row0 + areaCellBegin(w.rows, w.outRows, i), m1 = w.row0 + areaCellBegin(w.rows, w.outRows, i + 1);
      const long long n0 = w.col0 + areaCellBegin(w.cols, w.outCols, j), n1 = w.col0 + areaCellBegin(w.cols, w.outCols, j + 1);
      worst = std::max(worst, std::fabs(pic.values[static_cast<std::size_t>(i * w.outCols + j)] -
                                        ropeScoreBlockMean(p, q, k, m0, m1, n0, n1)));
    }
  CHECK(worst < 1e-11);   // scores ~ |q||k| ~ 32
}

TEST_CASE("exact average: ALiBi block means match brute force, symmetric and causal") {
  auto brute = [](double slope, bool causal, long long i0, long long i1, long long j0, long long j1) {
    long double s = 0;
    long long n = 0;
    for (long long i = i0; i < i1; ++i)
      for (long long j = j0; j < j1; ++j) {
        if (causal && j > i) continue;
        s += causal ? i - j : std::llabs(i - j);
        ++n;
      }
    return n == 0 ? std::numeric_limits<double>::quiet_NaN() : -slope * static_cast<double>(s / n);
  };
  struct Case {
    long long i0, i1, j0, j1;
  };
  const Case cases[] = {{0, 1, 0, 1},       {0, 7, 0, 7},       {3, 40, 10, 90},     {50, 60, 0, 5},
                        {0, 5, 50, 60},     {kTop - 300, kTop, kTop - 500, kTop + 1},
                        {kTop - 3000, kTop, 0, 3000}, {0, 3000, 0, 3000}};
  for (bool causal : {false, true}) {
    for (const Case& c : cases) {
      CAPTURE(causal);
      CAPTURE(c.i0);
      CAPTURE(c.j0);
      const double want = brute(0.5, causal, c.i0, c.i1, c.j0, c.j1);
      const double got = alibiBlockMean(0.5, causal, c.i0, c.i1, c.j0, c.j1);
      if (std::isnan(want)) {
        CHECK(std::isnan(got));
        continue;
      }
      CHECK(std::fabs(got - want) <= 1e-6 + 1e-15 * std::fabs(want));  // exact integer sums on both sides
    }
  }
  // By hand: [0, 2) x [0, 2) symmetric holds 0, 1, 1, 0: mean -slope/2; causal 0, -, 1, 0: -slope/3.
  CHECK(alibiBlockMean(1.0, false, 0, 2, 0, 2) == doctest::Approx(-0.5));
  CHECK(alibiBlockMean(1.0, true, 0, 2, 0, 2) == doctest::Approx(-1.0 / 3.0));
  // Pictures vs area_average of alibiBiasGrid (masked blocks are NaN in both).
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    const Grid g = alibiBiasGrid(0.25, 300, causal);
    Grid want;
    areaAverageWindow(g, window(0, 300, 0, 300, 23, 41), want);
    CHECK(maxDiff(alibiExactAverage(0.25, causal, window(0, 300, 0, 300, 23, 41)), want) < 1e-4);
    Grid wantPart;
    areaAverageWindow(g, window(10, 200, 150, 140, 9, 11), wantPart);
    CHECK(maxDiff(alibiExactAverage(0.25, causal, window(10, 200, 150, 140, 9, 11)), wantPart) < 1e-4);
  }
}

TEST_CASE("exact average: every head's ALiBi picture at once is each head's own, bit for bit") {
  // 12 heads (both halves of get_slopes' rule) and a zero slope; a window of odd blocks.
  std::vector<double> slopes = alibiSlopes(12);
  slopes.push_back(0.0);
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    const GridWindow w = window(3, 250, 7, 240, 37, 29);
    const std::vector<ExactPicture> all = alibiExactPictures(slopes, causal, w);
    REQUIRE(all.size() == slopes.size());
    for (std::size_t h = 0; h < slopes.size(); ++h) {
      CAPTURE(h);
      const ExactPicture one = alibiExactPicture(slopes[h], causal, w);
      REQUIRE(all[h].values.size() == one.values.size());
      int same = 0, masked = 0;
      for (std::size_t c = 0; c < one.values.size(); ++c) {
        if (std::isnan(one.values[c])) masked += std::isnan(all[h].values[c]) ? 1 : 0;
        else same += all[h].values[c] == one.values[c] ? 1 : 0;
      }
      CHECK(same + masked == static_cast<int>(one.values.size()));
      // Causal: blocks wholly above the diagonal are masked (NaN) in both; symmetric has none.
      CHECK((masked > 0) == causal);
    }
  }
  CHECK(alibiExactPictures({}, true, window(0, 4, 0, 4, 2, 2)).empty());
  const std::vector<double> bad = {0.5, -0.25};
  CHECK_THROWS_WITH_AS(alibiExactPictures(bad, true, window(0, 4, 0, 4, 2, 2)), doctest::Contains("slopes[1]"),
                       std::invalid_argument);
}

TEST_CASE("exact average: a summed-area table gives area_average's block means") {
  Grid g(301, 157);
  const std::vector<float> v = randomNormalVector(301 * 157, 7);
  g.values = v;
  SUBCASE("every cell finite") {}
  SUBCASE("masked cells") {
    for (int r = 0; r < 301; ++r)
      for (int c = r % 7; c < 157; c += 7) g.values[static_cast<std::size_t>(r * 157 + c)] = -INFINITY;
    for (int c = 0; c < 157; ++c) g.values[static_cast<std::size_t>(5 * 157 + c)] = NAN;  // a fully masked row
  }
  const SummedAreaTable t(g);
  for (const GridWindow& w : {window(0, 301, 0, 157, 301, 157), window(0, 301, 0, 157, 17, 9),
                              window(5, 1, 3, 100, 1, 10), window(40, 200, 20, 120, 33, 7)}) {
    CAPTURE(w.row0);
    CAPTURE(w.outRows);
    Grid want;
    areaAverageWindow(g, w, want);
    CHECK(maxDiff(t.average(w), want) < 1e-6);
  }
  CHECK(std::isnan(t.blockMean(5, 6, 0, 157)) == (t.finiteCount(5, 6, 0, 157) == 0));
  CHECK(t.finiteCount(0, 301, 0, 157) <= 301ll * 157);
}

TEST_CASE("exact average: every error names function, parameter and value") {
  SinusoidalParams sp;
  sp.dModel = 8;
  RopeParams rp;
  rp.headDim = 8;
  const std::vector<float> q(8, 1.0f), k3(3, 1.0f);
  CHECK_THROWS_WITH_AS(sinCosRunMean(1.0, 5, 5), "sinCosRunMean: p1 must be > p0 = 5, got 5", std::invalid_argument);
  CHECK_THROWS_WITH_AS(sinCosRunMean(1.0, -1, 5), doctest::Contains("sinCosRunMean: p0"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(sinCosRunMean(1.0, 0, kMaxExactPosition + 1),
                       doctest::Contains("p1 must be <= 2^32 (kMaxExactPosition), got 4294967297"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(sinCosRunMean(NAN, 0, 5), doctest::Contains("sinCosRunMean: w"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(angleRunMean(0.0, 0, 5), doctest::Contains("angleRunMean: theta"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(sinusoidalBlockMean(sp, 0, 4, 3, 9),
                       "sinusoidalBlockMean: columns [c0, c1) must satisfy 0 <= begin < end <= 8, got [3, 9)",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(sinusoidalExactAverage(sp, window(0, 10, 0, 9, 2, 2)),
                       doctest::Contains("sinusoidalExactAverage: w must be a well-formed window inside"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(ropePairBlockMean(rp, static_cast<RopePairValue>(7), 0, 4, 0, 1),
                       "ropePairBlockMean: v must be Angle, Cos or Sin, got 7", std::invalid_argument);
  CHECK_THROWS_WITH_AS(ropeScoreBlockMean(rp, q, k3, 0, 1, 0, 1),
                       "ropeScoreBlockMean: q and k must have headDim = 8 values, got 8 and 3", std::invalid_argument);
  CHECK_THROWS_WITH_AS(alibiBlockMean(-1.0, false, 0, 1, 0, 1), doctest::Contains("alibiBlockMean: slope"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(SummedAreaTable(Grid{}), doctest::Contains("SummedAreaTable: g.rows"), std::invalid_argument);
  const SummedAreaTable t(Grid(2, 2));
  CHECK_THROWS_WITH_AS(t.blockMean(0, 3, 0, 1),
                       "SummedAreaTable::finiteCount: rows [r0, r1) must satisfy 0 <= begin < end <= 2, got [0, 3)",
                       std::invalid_argument);
}
