// core/pixel_stats (RoPE pair grids, grids constant along diagonals, ALiBi): every block's least,
// greatest, mean and RMS checked against visiting each of its cells; the closed forms' errors
// named.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/pixel_stats.hpp"
#include "core/alibi.hpp"
#include "core/random.hpp"

using namespace posviz;

namespace {

struct Visited {
  double min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
  double sum = 0.0, squares = 0.0;
  long long count = 0;
  void add(double v) {
    if (!std::isfinite(v)) return;
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
    squares += v * v;
    ++count;
  }
  double of(PixelStat s) const {
    if (count == 0) return std::numeric_limits<double>::quiet_NaN();
    if (s == PixelStat::Min) return min;
    if (s == PixelStat::Max) return max;
    if (s == PixelStat::Rms) return std::sqrt(squares / static_cast<double>(count));
    return sum / static_cast<double>(count);
  }
};

std::vector<long long> bounds(long long origin, long long n, int out) {
  std::vector<long long> b;
  for (int i = 0; i <= out; ++i) b.push_back(origin + areaCellBegin(n, out, i));
  return b;
}

// Every display cell of pic against visit(r0, r1, c0, c1, stat) of its block.
template <class Visit>
void checkEveryBlock(const ExactPicture& pic, const GridWindow& w, PixelStat stat, double eps, Visit&& visit) {
  REQUIRE(pic.rows == w.outRows);
  REQUIRE(pic.cols == w.outCols);
  const std::vector<long long> rb = bounds(w.row0, w.rows, w.outRows), cb = bounds(w.col0, w.cols, w.outCols);
  for (int i = 0; i < w.outRows; ++i)
    for (int j = 0; j < w.outCols; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      const double want = visit(rb[static_cast<std::size_t>(i)], rb[static_cast<std::size_t>(i) + 1],
                                cb[static_cast<std::size_t>(j)], cb[static_cast<std::size_t>(j) + 1], stat);
      const double got = pic.values[static_cast<std::size_t>(i * w.outCols + j)];
      if (std::isnan(want)) CHECK(std::isnan(got));
      else CHECK(got == doctest::Approx(want).epsilon(eps).scale(1.0));
    }
}

RopeParams yarnParams() {
  RopeParams p;
  p.headDim = 16;
  p.base = 10000.0;
  p.scaling.method = ScalingMethod::Yarn;
  p.scaling.factor = 4.0;
  p.scaling.originalMaxPositions = 2048;
  return p;
}

}  // namespace

TEST_CASE("pixel stats: a run's least and greatest angle are those of visiting every position") {
  for (double theta : {2.9, 1.0, 0.031, 1.0e-4, 6.283185307179586 / 3.0 + 1e-10}) {
    for (long long p0 : {0LL, 777LL, (1LL << 31) - 300000}) {
      for (long long n : {1LL, 64LL, 65LL, 5000LL, 300000LL}) {
        CAPTURE(theta);
        CAPTURE(p0);
        CAPTURE(n);
        double lo = 10, hi = -10;
        for (long long p = p0; p < p0 + n; ++p) {
          lo = std::min(lo, exactAngle(theta, p));
          hi = std::max(hi, exactAngle(theta, p));
        }
        const AngleRunExtremes e = angleRunExtremes(theta, p0, p0 + n);
        CHECK(e.least == lo);
        CHECK(e.greatest == hi);
      }
    }
  }
  CHECK(exactAngle(1.0, 7) == doctest::Approx(7.0 - 6.283185307179586).epsilon(1e-15));
  CHECK_THROWS_WITH_AS(angleRunExtremes(0.0, 0, 5), doctest::Contains("theta"), std::invalid_argument);
}

TEST_CASE("pixel stats: RoPE pair pictures are the blocks' cells, attention factor included") {
  const RopeParams p = yarnParams();
  const RopeFrequencies f = ropeFrequencies(p);
  REQUIRE(f.attentionFactor > 1.01);   // yarn at factor 4: 0.1 ln 4 + 1
  const GridWindow w{9000, 2500, 1, 6, 5, 4};
  for (RopePairValue v : {RopePairValue::Angle, RopePairValue::Cos, RopePairValue::Sin}) {
    for (PixelStat stat : {PixelStat::Min, PixelStat::Max, PixelStat::Rms}) {
      if (v == RopePairValue::Angle && stat == PixelStat::Rms) continue;
      CAPTURE(static_cast<int>(v));
      CAPTURE(pixelStatName(stat));
      checkEveryBlock(ropePairStatPicture(p, v, w, stat), w, stat, 1e-12,
                      [&](long long r0, long long r1, long long c0, long long c1, PixelStat s) {
                        Visited b;
                        for (long long r = r0; r < r1; ++r)
                          for (long long c = c0; c < c1; ++c) {
                            const double a = exactAngle(f.invFreq[static_cast<std::size_t>(c)], r);
                            b.add(v == RopePairValue::Angle ? a
                                                            : f.attentionFactor * (v == RopePairValue::Cos ? std::cos(a) : std::sin(a)));
                          }
                        return b.of(s);
                      });
    }
  }
  // The hover's four numbers are the one-pixel pictures'.
  const GridWindow one{9000, 2500, 1, 6, 1, 1};
  const BlockStats b = ropePairBlockStats(p, RopePairValue::Cos, 9000, 11500, 1, 7);
  CHECK(b.min == ropePairStatPicture(p, RopePairValue::Cos, one, PixelStat::Min).values[0]);
  CHECK(b.max == ropePairStatPicture(p, RopePairValue::Cos, one, PixelStat::Max).values[0]);
  CHECK(b.rms == doctest::Approx(ropePairStatPicture(p, RopePairValue::Cos, one, PixelStat::Rms).values[0]).epsilon(1e-14));
  CHECK(b.mean == doctest::Approx(ropePairExactPicture(p, RopePairValue::Cos, one).values[0]).epsilon(1e-14));
  CHECK(std::isnan(ropePairBlockStats(p, RopePairValue::Angle, 0, 100, 0, 2).rms));
  CHECK_THROWS_WITH_AS(ropePairStatPicture(p, RopePairValue::Angle, w, PixelStat::Rms), doctest::Contains("no RMS"),
                       std::invalid_argument);
  // At 2^31 positions the fast pairs' cos swings fully: greatest = the attention factor.
  const GridWindow huge{0, 1LL << 31, 0, 8, 64, 8};
  const ExactPicture top = ropePairStatPicture(p, RopePairValue::Cos, huge, PixelStat::Max);
  CHECK(top.values[0] == doctest::Approx(f.attentionFactor).epsilon(1e-12));
}

TEST_CASE("pixel stats: a grid constant along diagonals, each block's stats by its offsets") {
  std::vector<double> f(400);
  Rng rng(5);
  for (double& x : f) x = rng.normal();
  const long long firstOffset = -180;
  auto cell = [&](long long m, long long n) { return f[static_cast<std::size_t>(m - n - firstOffset)]; };
  // Uneven blocks, tall and wide, and one cell a pixel.
  for (const GridWindow w : {GridWindow{30, 170, 10, 200, 7, 9}, GridWindow{0, 150, 5, 40, 3, 40}, GridWindow{20, 9, 30, 9, 9, 9}}) {
    for (PixelStat stat : {PixelStat::Mean, PixelStat::Min, PixelStat::Max, PixelStat::Rms}) {
      CAPTURE(pixelStatName(stat));
      checkEveryBlock(diagonalStatPicture(f, firstOffset, w, stat), w, stat, 1e-12,
                      [&](long long r0, long long r1, long long c0, long long c1, PixelStat s) {
                        Visited b;
                        for (long long m = r0; m < r1; ++m)
                          for (long long n = c0; n < c1; ++n) b.add(cell(m, n));
                        return b.of(s);
                      });
    }
  }
  const BlockStats b = diagonalBlockStats(f, firstOffset, 40, 90, 12, 150);
  Visited v;
  for (long long m = 40; m < 90; ++m)
    for (long long n = 12; n < 150; ++n) v.add(cell(m, n));
  CHECK(b.mean == doctest::Approx(v.of(PixelStat::Mean)).epsilon(1e-12));
  CHECK(b.min == v.min);
  CHECK(b.max == v.max);
  CHECK(b.rms == doctest::Approx(v.of(PixelStat::Rms)).epsilon(1e-12));
  const OffsetSpan span = windowOffsets(GridWindow{30, 170, 10, 200, 7, 9});
  CHECK(span.first == 30 - 209);
  CHECK(span.count == 199 - 10 - (30 - 209) + 1);
  CHECK_THROWS_WITH_AS(diagonalStatPicture(f, firstOffset, GridWindow{0, 300, 0, 10, 3, 2}, PixelStat::Max),
                       doctest::Contains("the blocks need"), std::invalid_argument);
}

TEST_CASE("pixel stats: RoPE score pictures of min, max and RMS are those of s(m, n) at every cell") {
  const RopeParams p = yarnParams();
  const std::vector<float> q = randomNormalVector(p.headDim, 3), k = randomNormalVector(p.headDim, 4);
  const GridWindow w{1000, 300, 900, 260, 6, 5};
  for (PixelStat stat : {PixelStat::Min, PixelStat::Max, PixelStat::Rms}) {
    CAPTURE(pixelStatName(stat));
    checkEveryBlock(ropeScoreStatPicture(p, q, k, w, stat), w, stat, 1e-9,
                    [&](long long r0, long long r1, long long c0, long long c1, PixelStat s) {
                      Visited b;
                      for (long long m = r0; m < r1; ++m)
                        for (long long n = c0; n < c1; ++n)
                          b.add(ropeScore(p, q, k, static_cast<double>(m), static_cast<double>(n)));
                      return b.of(s);
                    });
  }
  // The mean from offsets agrees with the closed-form picture the mean choice draws.
  const OffsetSpan span = windowOffsets(w);
  const std::vector<double> s = ropeScoreAtOffsets(p, q, k, span.first, span.count);
  const ExactPicture viaOffsets = diagonalStatPicture(s, span.first, w, PixelStat::Mean);
  const ExactPicture closed = ropeScoreExactPicture(p, q, k, w);
  for (std::size_t i = 0; i < closed.values.size(); ++i) CHECK(viaOffsets.values[i] == doctest::Approx(closed.values[i]).epsilon(1e-9).scale(1.0));
  // ropeScoreAtOffsets is ropeScoreByOffset's series at any offsets.
  const std::vector<double> byOffset = ropeScoreByOffset(p, q, k, 50);
  const std::vector<double> same = ropeScoreAtOffsets(p, q, k, -49, 99);
  for (std::size_t i = 0; i < same.size(); ++i) CHECK(same[i] == doctest::Approx(byOffset[i]).epsilon(1e-12).scale(1.0));
  CHECK_THROWS_WITH_AS(ropeScoreStatPicture(p, q, k, GridWindow{0, 1LL << 30, 0, 1LL << 30, 64, 64}, PixelStat::Max),
                       doctest::Contains("at most 8388608"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(ropeScoreAtOffsets(p, q, k, 0, 0), doctest::Contains("count 0"), std::invalid_argument);
}

TEST_CASE("pixel stats: ALiBi envelope and RMS in closed form, causal blocks on the diagonal included") {
  const double slope = 0.125;
  for (bool causal : {false, true}) {
    // Blocks above, on and below the diagonal; uneven splits.
    for (const GridWindow w : {GridWindow{0, 97, 0, 97, 7, 6}, GridWindow{50, 31, 0, 120, 4, 11}, GridWindow{3, 40, 60, 50, 5, 5}}) {
      for (PixelStat stat : {PixelStat::Mean, PixelStat::Min, PixelStat::Max, PixelStat::Rms}) {
        CAPTURE(causal);
        CAPTURE(pixelStatName(stat));
        checkEveryBlock(alibiStatPicture(slope, causal, w, stat), w, stat, 1e-12,
                        [&](long long r0, long long r1, long long c0, long long c1, PixelStat s) {
                          Visited b;
                          for (long long i = r0; i < r1; ++i)
                            for (long long j = c0; j < c1; ++j) b.add(alibiBias(slope, i, j, causal));
                          return b.of(s);
                        });
      }
    }
  }
  // Far out (near 2^32) a small block is still exact: RMS = slope x |distance| for one cell.
  const long long far = (1LL << 32) - 10;
  CHECK(alibiBlockStats(1.0, false, far, far + 1, 3, 4).rms == doctest::Approx(static_cast<double>(far - 3)).epsilon(1e-15));
  const BlockStats whole = alibiBlockStats(1.0, true, 0, 1LL << 32, 0, 1LL << 32);
  CHECK(whole.max == 0.0);
  CHECK(whole.min == -static_cast<double>((1LL << 32) - 1));
  // Causal, keys [0, N) against queries [0, N): mean square of i - j over j <= i is (N^2 - 1) / 6 ... for N = 2^32
  // its leading term N^2 / 6.
  CHECK(whole.rms == doctest::Approx(std::ldexp(1.0, 32) / std::sqrt(6.0)).epsilon(1e-9));
  CHECK(std::isnan(alibiBlockStats(1.0, true, 0, 5, 10, 20).min));
  CHECK_THROWS_WITH_AS(alibiStatPicture(-1.0, false, GridWindow{0, 4, 0, 4, 2, 2}, PixelStat::Max), doctest::Contains("slope"),
                       std::invalid_argument);
}

TEST_CASE("pixel stats: a grid held whole, each block's finite cells visited; ALiBi's closed forms agree") {
  const Grid g = alibiBiasGrid(0.25, 90, true);   // masked cells -inf above the diagonal
  const GridWindow w{5, 80, 3, 87, 9, 7};
  for (PixelStat stat : {PixelStat::Mean, PixelStat::Min, PixelStat::Max, PixelStat::Rms}) {
    CAPTURE(pixelStatName(stat));
    const ExactPicture held = gridStatPicture(g, w, stat), closed = alibiStatPicture(0.25, true, w, stat);
    for (std::size_t i = 0; i < held.values.size(); ++i) {
      if (std::isnan(closed.values[i])) CHECK(std::isnan(held.values[i]));
      else CHECK(held.values[i] == doctest::Approx(closed.values[i]).epsilon(1e-12).scale(1.0));
    }
  }
  CHECK_THROWS_WITH_AS(gridStatPicture(g, GridWindow{0, 91, 0, 90, 3, 3}, PixelStat::Max), doctest::Contains("inside the 90 x 90"),
                       std::invalid_argument);
}

TEST_CASE("pixel stats: a table shown past its last row: those rows hold no cells") {
  // A 7 x 5 table of 1 .. 35 shown as 12 rows: blocks of rows [0, 4), [4, 8), [8, 12) over all 5
  // columns. The second block keeps rows 4..6 only (16 .. 35 less nothing: cells 21 .. 35), the
  // third has none.
  Grid g(7, 5);
  for (std::size_t i = 0; i < g.values.size(); ++i) g.values[i] = static_cast<float>(i + 1);
  const GridWindow w{0, 12, 0, 5, 3, 1};
  const ExactPicture mean = gridStatPicture(g, w, PixelStat::Mean, 12);
  CHECK(mean.values[0] == doctest::Approx(10.5));   // 1 .. 20
  CHECK(mean.values[1] == doctest::Approx(28.0));   // 21 .. 35
  CHECK(std::isnan(mean.values[2]));
  CHECK(gridStatPicture(g, w, PixelStat::Max, 12).values[1] == 35.0);
  CHECK(gridStatPicture(g, w, PixelStat::Min, 12).values[1] == 21.0);
  double squares = 0.0;
  for (int v = 21; v <= 35; ++v) squares += v * v;
  CHECK(gridStatPicture(g, w, PixelStat::Rms, 12).values[1] == doctest::Approx(std::sqrt(squares / 15.0)));
  // The same as a grid whose missing rows are NaN.
  Grid padded(12, 5);
  for (std::size_t i = 0; i < padded.values.size(); ++i)
    padded.values[i] = i < g.values.size() ? g.values[i] : std::numeric_limits<float>::quiet_NaN();
  const ExactPicture viaNaN = gridStatPicture(padded, w, PixelStat::Rms);
  CHECK(viaNaN.values[1] == gridStatPicture(g, w, PixelStat::Rms, 12).values[1]);
  // A block's four numbers for a hover; none past the table.
  const BlockStats b = gridBlockStats(g, 5, 9, 1, 3);   // rows 5, 6: cells 27, 28, 32, 33
  CHECK(b.mean == doctest::Approx(30.0));
  CHECK(b.min == 27.0);
  CHECK(b.max == 33.0);
  CHECK(b.rms == doctest::Approx(std::sqrt((27.0 * 27 + 28.0 * 28 + 32.0 * 32 + 33.0 * 33) / 4.0)));
  CHECK(std::isnan(gridBlockStats(g, 8, 10, 0, 5).mean));
  // Without logicalRows the window must lie inside the table.
  CHECK_THROWS_WITH_AS(gridStatPicture(g, w, PixelStat::Mean), doctest::Contains("inside the 7 x 5"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(gridStatPicture(g, w, PixelStat::Mean, 11), doctest::Contains("inside the 11 x 5"), std::invalid_argument);
}

TEST_CASE("pixel stats: auto picks the RMS only where the grid's bound is known and the mean flattens") {
  const GridWindow w{0, 1000, 0, 10, 10, 10};
  const auto flat = [&](PixelStat s) {
    ExactPicture pic{10, 10, std::vector<double>(100, s == PixelStat::Mean ? 0.01 : 0.7)};
    return pic;
  };
  CHECK(choosePicture(PixelChoice::Auto, w, 1.0, flat).stat == PixelStat::Rms);
  CHECK(choosePicture(PixelChoice::Auto, w, 0.0, flat).stat == PixelStat::Mean);   // bound unknown
  CHECK(choosePicture(PixelChoice::Auto, w, 0.05, flat).stat == PixelStat::Mean);  // 0.01 is a fifth of 0.05
  CHECK(choosePicture(PixelChoice::Min, w, 1.0, flat).stat == PixelStat::Min);
  CHECK(statOfChoice(PixelChoice::Rms) == PixelStat::Rms);
  CHECK(statOfChoice(PixelChoice::Auto) == PixelStat::Mean);
}
