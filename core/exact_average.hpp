// exact_average.hpp: block means of posviz's grids in closed form, so a picture of a grid costs
// the same at 512 or 2^31 positions.
//
// WHAT
//   area_average.hpp shows a window of a grid as display cells, each the mean of the logical cells
//   of its block, by visiting every cell. The grids here are analytic, so each block mean has a
//   closed form costing O(1) per row block and column (sinusoidal, RoPE cos/sin/angle), O(pairs)
//   per display cell (RoPE scores) or O(1) per display cell (ALiBi, summed-area tables). The
//   pictures split a window into blocks exactly as area_average does (areaCellBegin), so the two
//   agree cell for cell up to float rounding.
//
// FORMULA
//   Runs of positions p in [p0, p1), n = p1 - p0, midpoint c = p0 + (n - 1)/2:
//     (1/n) sum_p e^{i w p} = D_n(w) e^{i w c},  D_n(w) = sin(n w/2) / (n sin(w/2))  (Dirichlet
//     kernel; D = +-1 where sin(w/2) = 0). w c is formed exactly as a double pair (fma) and reduced
//     mod 2 pi by a three-part 2 pi (Cody-Waite): error ~1e-16 rad up to p = 2^32.
//   Angle view, a(p) = p theta mod 2 pi: with alpha = theta / 2 pi rounded to a double M 2^-E,
//     sum_p frac(p alpha) = (M sum_p p - 2^E sum_p floor(p M / 2^E)) / 2^E, the floor sum taken
//     exactly in 128-bit integers (Euclid-like floor_sum, as in AtCoder Library's math.hpp), plus
//     p (theta - 2 pi alpha) for the rounding of alpha.
//   RoPE scores: s(m, n) = sum_i C_i cos((m-n) t_i) + S_i sin((m-n) t_i) + P (rope.hpp). A block is
//     a product of runs, so the mean of e^{i t (m - n)} over it is A_rows(t) * conj(A_cols(t)), with
//     A the run mean above: O(pairs) per block.
//   ALiBi: sum |i - j| over [0, a) x [0, b) is (a^3 - a)/3 + a b (b - a)/2 for a <= b; causal sums
//     over j <= i are (k-1) k (k+1)/6 + [a > b] a b (a - b)/2 (k = min(a, b)), with count
//     k (k+1)/2 + [a > b] (a - b) b. Any block follows by inclusion-exclusion, in exact integers.
//   Summed-area tables (learned tables, loaded grids): T(r, c) = sum of the finite cells above
//   and left of (r, c), in float64; a block is four lookups.
//
// MASKED CELLS
//   As area_average: non-finite cells (causal ALiBi's -inf) are left out of a block's mean; a
//   block with no finite cell is NaN.
//
// LAYOUT / UNITS
//   Blocks are rows [r0, r1) x cols [c0, c1) of the grid's logical cells (grid.hpp layouts: rows
//   are positions; sinusoidal cols are dims in the layout's order, RoPE pair grids cols are pairs,
//   scores and ALiBi cols are key positions). Frequencies in rad/position, angles in radians.
//   Pictures are GridWindow.outRows x outCols float32 (area_average.hpp); the *ExactPicture
//   functions return the same means in float64 (exports with --dtype f64).
//
// ERRORS
//   std::invalid_argument naming function, parameter and value: empty or reversed blocks, columns
//   outside the grid, positions past kMaxExactPosition, windows not well formed
//   (area_average.hpp), invalid params (validateSinusoidal, validateRope), q/k sizes.
#pragma once

#include <span>
#include <vector>

#include "core/alibi.hpp"
#include "core/area_average.hpp"
#include "core/grid.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

namespace posviz {

// Positions (rows, and score/ALiBi cols) must lie in [0, kMaxExactPosition): 2^32 keeps the
// exact integer sums inside 128 bits.
constexpr long long kMaxExactPosition = 1ll << 32;

// (1/n) sum_{p=p0}^{p1-1} (cos(w p), sin(w p)); w finite, 0 <= p0 < p1 <= kMaxExactPosition.
struct SinCosMean {
  double cos = 0.0;
  double sin = 0.0;
};
SinCosMean sinCosRunMean(double w, long long p0, long long p1);

// p w mod 2 pi in [0, 2 pi), from p w formed exactly (error ~1e-16 rad for |p w| < 2^32).
double exactAngle(double w, long long p);

// (1/n) sum_{p=p0}^{p1-1} (p theta mod 2 pi), radians in [0, 2 pi); theta > 0 rad/position.
double angleRunMean(double theta, long long p0, long long p1);

// A picture in float64: rows x cols means, row-major (the float32 Grid functions narrow it).
struct ExactPicture {
  int rows = 0;
  int cols = 0;
  std::vector<double> values;
};

// Sinusoidal (sinusoidal.hpp, either layout): the mean of rows [r0, r1) x dims [c0, c1). O(c1 - c0).
double sinusoidalBlockMean(const SinusoidalParams& p, long long r0, long long r1, int c0, int c1);
// Window w of the positions x dModel grid (cols <= dModel), each display cell its block's mean.
// O(outRows * w.cols).
Grid sinusoidalExactAverage(const SinusoidalParams& p, const GridWindow& w);
ExactPicture sinusoidalExactPicture(const SinusoidalParams& p, const GridWindow& w);
// The same window, each display cell its block's RMS (root of the mean square over the block),
// in closed form at the same cost as the mean: pixel_stats.hpp's PixelStat::Rms.
ExactPicture sinusoidalRmsPicture(const SinusoidalParams& p, const GridWindow& w);

// RoPE positions x pairs grids (rope.hpp): angle mod 2 pi, cos * attentionFactor, sin * attentionFactor.
enum class RopePairValue { Angle, Cos, Sin };
double ropePairBlockMean(const RopeParams& p, RopePairValue v, long long r0, long long r1, int c0, int c1);
Grid ropePairExactAverage(const RopeParams& p, RopePairValue v, const GridWindow& w);  // cols <= pairs
ExactPicture ropePairExactPicture(const RopeParams& p, RopePairValue v, const GridWindow& w);

// RoPE scores s(m, n) = <R_m q, R_n k> (ropeScore) over query rows [m0, m1) x key cols [n0, n1).
// O(pairs) per block.
double ropeScoreBlockMean(const RopeParams& p, std::span<const float> q, std::span<const float> k, long long m0,
                          long long m1, long long n0, long long n1);
Grid ropeScoreExactAverage(const RopeParams& p, std::span<const float> q, std::span<const float> k,
                           const GridWindow& w);
ExactPicture ropeScoreExactPicture(const RopeParams& p, std::span<const float> q, std::span<const float> k,
                                   const GridWindow& w);

// ALiBi bias (alibi.hpp) for one head's slope: mean over query rows [i0, i1) x key cols [j0, j1)
// of the unmasked cells; NaN when causal and every cell is masked. slope finite and >= 0.
double alibiBlockMean(double slope, bool causal, long long i0, long long i1, long long j0, long long j1);
Grid alibiExactAverage(double slope, bool causal, const GridWindow& w);
ExactPicture alibiExactPicture(double slope, bool causal, const GridWindow& w);
// Every head's picture over one window: the bias is -m times the distance, so each is the slope-1
// picture times its slope. The same values, bit for bit, as alibiExactPicture per slope (which
// rounds -m times the same mean once), for the cost of one picture and a multiply a cell.
std::vector<ExactPicture> alibiExactPictures(std::span<const double> slopes, bool causal, const GridWindow& w);

// A float64 picture as the float32 grid of the same cells (every *ExactAverage is this of its
// *ExactPicture).
Grid narrowPicture(const ExactPicture& pic);

// Checks and block bounds every exact picture shares (core/pixel_stats.hpp too). Throws
// std::invalid_argument naming fn: a run [p0, p1) must have 0 <= p0 < p1 <= kMaxExactPosition; a
// window must be well formed and inside rows x cols.
void requireExactRun(const char* fn, const char* p0Name, const char* p1Name, long long p0, long long p1);
void requireExactWindow(const char* fn, const GridWindow& w, long long rows, long long cols);
// Block boundaries of one axis, absolute: b[i] .. b[i + 1] is display cell i (areaCellBegin).
std::vector<long long> blockBounds(long long origin, long long n, int out);

// Any grid, built once in O(rows * cols) (16 bytes a cell when some cell is not finite, else 8);
// every block mean after that is O(1).
class SummedAreaTable {
 public:
  explicit SummedAreaTable(const Grid& g);
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  // Mean of the finite cells of rows [r0, r1) x cols [c0, c1); NaN when none is finite.
  double blockMean(int r0, int r1, int c0, int c1) const;
  long long finiteCount(int r0, int r1, int c0, int c1) const;
  Grid average(const GridWindow& w) const;  // w inside rows() x cols()
  ExactPicture averagePicture(const GridWindow& w) const;  // the same in float64

 private:
  int rows_ = 0, cols_ = 0;
  std::vector<double> sum_;        // (rows + 1) x (cols + 1)
  std::vector<long long> count_;   // same shape; empty when every cell is finite
};

}  // namespace posviz
