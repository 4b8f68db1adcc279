// pixel_stats.hpp: what a display cell of a huge grid says besides its mean: the least and the
// greatest of its cells (the envelope) and their root mean square, in closed form for the
// analytic grids, so a picture of 2^31 positions still costs O(pixels).
//
// WHY
//   The exact mean of a sinusoid over a block of many periods is about 0, so a picture of the
//   sinusoidal table at 2^31 positions is almost uniformly the colour of 0 although every cell
//   swings between -1 and 1. The RMS (1/sqrt 2 for a full swing) and the envelope say that.
//
// FORMULAS (p over a run of positions [p0, p1), n = p1 - p0)
//   RMS      mean sin^2(w p) = (1 - mean cos(2 w p)) / 2, mean cos^2 = (1 + mean cos(2 w p)) / 2,
//            with the run mean of core/exact_average.hpp (sinCosRunMean): O(1). A block of
//            dims: the square root of the mean over its dims of their mean squares.
//   Envelope sin(w p) is greatest at the p whose angle w p (mod 2 pi) lies nearest to pi/2, and
//            least nearest to 3 pi/2 (cos: 0 and pi). In turns, angle(p) = frac(p a), a = w / 2 pi,
//            held as a 62-bit fixed-point fraction A / 2^62; the nearest angle above a target T
//            over p0 + x, x in [0, n), is the least value of (A x + B) mod 2^62 (B = A p0 - T),
//            found by walking its successive minima: from a minimum v at x, the next lower one is at
//            the least step y with (A y) mod 2^62 >= 2^62 - v (firstInRange, a Euclid-like
//            recursion), repeated while it still lowers v. O(log^2) per run, not O(n). The nearest
//            below is the same for -A. The value is then sin or cos of that p's exact angle
//            (p w as a float64 pair, hi + lo; |lo| <= 2.4e-7, so cos lo = 1 - lo^2/2 and sin lo = lo
//            hold to 1e-20). Runs of at most 64
//            positions are visited.
//   Exact means at the exact angles, as exact_average.hpp's means: the float64 grid itself rounds
//   p w (by up to 2.4e-7 rad at p = 2^31), so its cells can differ from these by that much. The
//   fixed-point angle is off by at most p 2^-62 turns (< 1e-8 rad at p < 2^32): it can only pick
//   a neighbour whose value differs from the extreme's by less than 1e-15.
//
// THE OTHER GRIDS
//   RoPE cos / sin: the sinusoidal forms at the pair's frequency, times the attention factor.
//   RoPE angle (p theta mod 2 pi): least and greatest at the positions nearest above and below a
//            whole turn (the same walk, target 0). Its RMS is not offered: angles wrap, and their
//            mean and envelope already say how they fill [0, 2 pi).
//   Grids constant along diagonals, v(m, n) = f(m - n) (RoPE scores): a block's cells take the
//            offsets [m0 - n1 + 1, m1 - 1 - n0], offset d as often as min(u, R, C, R + C - u)
//            (u = d - first + 1, R x C the block): a rise, a flat top and a fall. The mean square
//            is three sums of (a + b d) f(d)^2, from prefix sums of f^2 and d f^2 (long double):
//            O(1) a block.
//            The envelope scans the range by chunks of 64 offsets (their least and greatest kept):
//            O(range / 64 + 128) a block. f comes from ropeScoreAtOffsets, exact in float64.
//   ALiBi -m |i - j| (causal: -m (i - j) for j <= i): the envelope at the block's corners and
//            nearest diagonal cell; the mean square of i - j over a block is (mean i - mean j)^2 +
//            (R^2 - 1)/12 + (C^2 - 1)/12, and over the part of a block on and below the diagonal a
//            sum of sums of squares in closed form (long double): O(1) a block.
//
// LAYOUT
//   Pictures as core/exact_average.hpp's: outRows x outCols float64, blocks split as areaCellBegin.
//
// ERRORS
//   std::invalid_argument naming function, parameter and value (as exact_average.hpp).
#pragma once

#include <functional>
#include <span>

#include "core/exact_average.hpp"

namespace posviz {

// What one display cell shows of its block of cells.
enum class PixelStat { Mean, Min, Max, Rms };
const char* pixelStatName(PixelStat s);   // "mean", "min", "max", "rms"
const char* pixelStatTitle(PixelStat s);  // "mean", "least (envelope)", "greatest (envelope)", "RMS"

// Least and greatest of sin(w p) and cos(w p) over integer p in [p0, p1); w finite,
// 0 <= p0 < p1 <= kMaxExactPosition.
struct SinCosRunExtremes {
  double minSin = 0.0, maxSin = 0.0, minCos = 0.0, maxCos = 0.0;
};
SinCosRunExtremes sinCosRunExtremes(double w, long long p0, long long p1);

// Window w of the sinusoidal grid (either layout), each display cell its block's stat.
// PixelStat::Mean is sinusoidalExactPicture. O(outRows * pairs) closed forms, plus O(w.cols)
// per display row.
ExactPicture sinusoidalStatPicture(const SinusoidalParams& p, const GridWindow& w, PixelStat stat);

// All four stats of one block of the sinusoidal grid: rows [r0, r1) x dims [c0, c1). For a
// hover readout: O(c1 - c0) closed forms.
struct BlockStats {
  double mean = 0.0, min = 0.0, max = 0.0, rms = 0.0;
};
BlockStats sinusoidalBlockStats(const SinusoidalParams& p, long long r0, long long r1, int c0, int c1);

// The mean "flattens out" when a picture of averaged blocks keeps less than `share` of the
// grid's value range: every display cell's |mean| <= share * bound (bound = the grid's largest
// |value|, 1 for sinusoids). False when no block has more than one row (nothing is averaged).
constexpr double kFlattenShare = 0.1;
bool meanFlattens(const ExactPicture& mean, const GridWindow& w, double bound, double share = kFlattenShare);

// The positions of a run [p0, p1) (0 <= p0 < p1 <= kMaxExactPosition) with the least and the
// greatest exact angle p theta mod 2 pi, and those angles in [0, 2 pi).
struct AngleRunExtremes {
  double least = 0.0, greatest = 0.0;
};
AngleRunExtremes angleRunExtremes(double theta, long long p0, long long p1);

// RoPE pair grids (exact_average.hpp's ropePairExactPicture): each display cell its block's stat.
// Angle with PixelStat::Rms throws std::invalid_argument.
ExactPicture ropePairStatPicture(const RopeParams& p, RopePairValue v, const GridWindow& w, PixelStat stat);
BlockStats ropePairBlockStats(const RopeParams& p, RopePairValue v, long long r0, long long r1, int c0, int c1);

// A grid v(m, n) = f(m - n), f given at offsets firstOffset, firstOffset + 1, ...: each display
// cell of w its block's stat (PixelStat::Mean included). Every offset of w must be given.
ExactPicture diagonalStatPicture(std::span<const double> f, long long firstOffset, const GridWindow& w, PixelStat stat);
BlockStats diagonalBlockStats(std::span<const double> f, long long firstOffset, long long m0, long long m1, long long n0,
                              long long n1);
// The offsets w's cells take: [row0 - (col0 + cols - 1), row0 + rows - 1 - col0].
struct OffsetSpan {
  long long first = 0, count = 0;
};
OffsetSpan windowOffsets(const GridWindow& w);
// RoPE scores (exact_average.hpp's ropeScoreExactPicture for the mean): s by offset over w's span
// (at most kMaxStatOffsets offsets, else std::invalid_argument saying so), then diagonalStatPicture.
constexpr long long kMaxStatOffsets = 1ll << 23;   // 32 bytes an offset for the RMS: 256 MiB at most
ExactPicture ropeScoreStatPicture(const RopeParams& p, std::span<const float> q, std::span<const float> k,
                                  const GridWindow& w, PixelStat stat);

// ALiBi (exact_average.hpp's alibiExactPicture for the mean): closed forms, O(1) a block; a block
// with every cell masked is NaN.
ExactPicture alibiStatPicture(double slope, bool causal, const GridWindow& w, PixelStat stat);
BlockStats alibiBlockStats(double slope, bool causal, long long i0, long long i1, long long j0, long long j1);

// Any grid held whole (the RoPE tab's pair grids, a loaded table): each display cell the stat of
// its block's finite cells, visiting each (O(cells in w)); NaN where a block has none. Mean is
// area_average.hpp's areaAverageWindow in float64. logicalRows > g.rows: the grid as a view counts
// it, whose rows g.rows .. logicalRows - 1 hold no cells (a learned table shown past max_len); w
// must lie inside that.
ExactPicture gridStatPicture(const Grid& g, const GridWindow& w, PixelStat stat, long long logicalRows = 0);
// All four of one block, rows [r0, r1) x cols [c0, c1) of such a grid (rows past g.rows hold no
// cells; every stat NaN when the block has no finite cell). For a hover: O(block).
BlockStats gridBlockStats(const Grid& g, long long r0, long long r1, long long c0, long long c1);

// What the user picks: a stat, or Auto: the mean, unless it flattens out (meanFlattens with
// kFlattenShare), then the RMS.
enum class PixelChoice { Auto, Mean, Min, Max, Rms };
struct ChosenPicture {
  ExactPicture picture;
  PixelStat stat = PixelStat::Mean;   // what the picture shows
  bool automatic = false;             // Auto picked it
  double meanPeak = 0.0;              // Auto: the mean picture's largest |value| (why it switched)
};
ChosenPicture sinusoidalChosenPicture(const SinusoidalParams& p, const GridWindow& w, PixelChoice choice);
// The same choice for any grid: statPicture(stat) draws a stat (called with Mean first under Auto);
// bound is the grid's largest |value| (<= 0: unknown, so Auto keeps the mean).
ChosenPicture choosePicture(PixelChoice choice, const GridWindow& w, double bound,
                            const std::function<ExactPicture(PixelStat)>& statPicture);
PixelStat statOfChoice(PixelChoice choice);   // Mean for Auto

}  // namespace posviz
