// exact_average.cpp: the closed forms of exact_average.hpp.
//
// [SECTION] checks and block bounds shared with core/pixel_stats
// [SECTION] runs of positions (Dirichlet kernel, sawtooth floor sums)
// [SECTION] pictures (parallel fill)
// [SECTION] sinusoidal and RoPE pair grids
// [SECTION] RoPE scores
// [SECTION] ALiBi
// [SECTION] float32 pictures
// [SECTION] summed-area tables
#include "core/exact_average.hpp"
#include "core/floor_sum.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <utility>

#include "core/check.hpp"
#include "core/kernels.hpp"
#include "core/parallel.hpp"

namespace posviz {

// [SECTION] checks and block bounds shared with core/pixel_stats ------------------------------

void requireExactRun(const char* fn, const char* p0Name, const char* p1Name, long long p0, long long p1) {
  requireNonNegativeInt(fn, p0Name, p0);
  if (p1 <= p0)
    failArgument(fn, std::string(p1Name) + " must be > " + p0Name + " = " + std::to_string(p0) + ", got " +
                         std::to_string(p1));
  if (p1 > kMaxExactPosition)
    failArgument(fn, std::string(p1Name) + " must be <= 2^32 (kMaxExactPosition), got " + std::to_string(p1));
}

void requireExactWindow(const char* fn, const GridWindow& w, long long rows, long long cols) {
  // area_average's own checks name the field; a window outside the grid is named here.
  if (!windowInside(w, rows, cols))
    failArgument(fn, "w must be a well-formed window inside " + std::to_string(rows) + " x " + std::to_string(cols) +
                         ", got rows [" + std::to_string(w.row0) + ", +" + std::to_string(w.rows) + ") cols [" +
                         std::to_string(w.col0) + ", +" + std::to_string(w.cols) + ") at " +
                         std::to_string(w.outRows) + " x " + std::to_string(w.outCols));
}

std::vector<long long> blockBounds(long long origin, long long n, int out) {
  std::vector<long long> b(static_cast<std::size_t>(out) + 1);
  for (int i = 0; i <= out; ++i) b[static_cast<std::size_t>(i)] = origin + areaCellBegin(n, out, i);
  return b;
}

namespace {

__extension__ typedef __int128 I128;

constexpr long double kTwoPiL = 6.283185307179586476925286766559005768L;
constexpr long double kPiL = 3.141592653589793238462643383279502884L;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// [SECTION] runs of positions --------------------------------------------------------------

void requireCols(const char* fn, int c0, int c1, int cols, const char* what = "columns [c0, c1)") {
  if (c0 < 0 || c1 <= c0 || c1 > cols)
    failArgument(fn, std::string(what) + " must satisfy 0 <= begin < end <= " + std::to_string(cols) + ", got [" +
                         std::to_string(c0) + ", " + std::to_string(c1) + ")");
}

// 2 pi split Cody-Waite style: kC1 and kC2 hold 22 significant bits each, so k * kC1 and k * kC2
// are exact for |k| < 2^31; kC3 is the rest, rounded. Together ~97 bits of 2 pi.
struct TwoPiSplit {
  double c1, c2, c3;
};
TwoPiSplit splitTwoPi() {
  const long double c1 = std::ldexp(std::floor(std::ldexp(kTwoPiL, 19)), -19);
  const long double c2 = std::ldexp(std::floor(std::ldexp(kTwoPiL - c1, 41)), -41);
  return {static_cast<double>(c1), static_cast<double>(c2), static_cast<double>(kTwoPiL - c1 - c2)};
}
const TwoPiSplit kTwoPiParts = splitTwoPi();

// w * x mod 2 pi (in [-pi, pi] give or take rounding): w x is formed exactly as hi + lo (fma),
// hi is reduced by the three-part 2 pi. Error ~1e-16 rad for |w x| < 2^32, all in double.
double reducedAngle(double w, double x) {
  const double hi = w * x;
  const double lo = std::fma(w, x, -hi);
  const double k = std::nearbyint(hi * (1.0 / 6.283185307179586));
  if (std::fabs(k) >= 2147483648.0) return static_cast<double>(std::fmod(static_cast<long double>(w) * x, kTwoPiL));
  double r = std::fma(-k, kTwoPiParts.c1, hi);
  r = std::fma(-k, kTwoPiParts.c2, r);
  r = std::fma(-k, kTwoPiParts.c3, r);
  return r + lo;
}

// D_n(w) = sin(n w / 2) / (n sin(w / 2)), with w/2 reduced to delta in [-pi/2, pi/2] around k pi:
// D = (-1)^(k (n - 1)) sin(n delta) / (n sin delta), and +-1 when delta is 0.
double dirichletKernel(double w, long long n) {
  if (n == 1) return 1.0;
  const double halfW = w / 2.0;  // exact
  if (std::fabs(halfW) < 1.5) {    // k = 0: every frequency the views use
    if (halfW == 0.0) return 1.0;
    return std::sin(reducedAngle(halfW, static_cast<double>(n))) / (static_cast<double>(n) * std::sin(halfW));
  }
  const long double k = std::nearbyint(static_cast<long double>(halfW) / kPiL);
  const double delta = k == 0.0L ? halfW : static_cast<double>(static_cast<long double>(halfW) - k * kPiL);
  const bool flip = std::fmod(std::fabs(k), 2.0L) == 1.0L && (n - 1) % 2 == 1;
  const double sign = flip ? -1.0 : 1.0;
  if (delta == 0.0) return sign;
  const double num = std::sin(reducedAngle(delta, static_cast<double>(n)));
  return sign * num / (static_cast<double>(n) * std::sin(delta));
}

// (1/n) sum_{p=p0}^{p1-1} frac(p alpha), alpha >= 0 a double, in long double.
long double meanFrac(double alpha, long long p0, long long p1) {
  const long long n = p1 - p0;
  const long double meanPos = static_cast<long double>(p0) + static_cast<long double>(n - 1) / 2.0L;
  if (alpha * static_cast<double>(p1 - 1) < 1.0) return static_cast<long double>(alpha) * meanPos;
  int e = 0;
  const double f = std::frexp(alpha, &e);  // alpha = f 2^e, f in [0.5, 1)
  const auto mant = static_cast<U128>(std::ldexp(f, 53));
  const int shift = 53 - e;  // alpha = mant 2^-shift
  if (shift <= 0) return 0.0L;  // alpha is an integer: every frac is 0
  // alpha >= 1/(p1 - 1) >= 2^-32 here, so shift <= 85 and every product below fits in 128 bits.
  const U128 m = U128{1} << shift;
  const U128 floors = floorSum(static_cast<U128>(n), m, mant, mant * static_cast<U128>(p0));
  const U128 sumPos = static_cast<U128>(n) * static_cast<U128>(p0) + static_cast<U128>(n) * static_cast<U128>(n - 1) / 2;
  const U128 fracNumer = mant * sumPos - m * floors;  // sum_p (p mant mod 2^shift)
  return std::ldexp(static_cast<long double>(fracNumer), -shift) / static_cast<long double>(n);
}

}  // namespace

SinCosMean sinCosRunMean(double w, long long p0, long long p1) {
  const char* fn = "sinCosRunMean";
  requireFinite(fn, "w", w);
  requireExactRun(fn, "p0", "p1", p0, p1);
  const long long n = p1 - p0;
  const double d = dirichletKernel(w, n);
  // The midpoint is an integer or half-integer below 2^32: exact in double.
  const double mid = static_cast<double>(p0) + static_cast<double>(n - 1) / 2.0;
  const double a = reducedAngle(w, mid);
  return {d * std::cos(a), d * std::sin(a)};
}

double exactAngle(double w, long long p) {
  const double a = reducedAngle(w, static_cast<double>(p));
  constexpr double kTwoPi = 6.283185307179586;
  if (a < 0.0) return a + kTwoPi < kTwoPi ? a + kTwoPi : 0.0;
  return a < kTwoPi ? a : a - kTwoPi;
}

double angleRunMean(double theta, long long p0, long long p1) {
  const char* fn = "angleRunMean";
  requirePositive(fn, "theta", theta);
  requireExactRun(fn, "p0", "p1", p0, p1);
  const double alpha = static_cast<double>(static_cast<long double>(theta) / kTwoPiL);
  // a(p) = 2 pi frac(p alpha) + p (theta - 2 pi alpha): the second term is the rounding of alpha.
  const long double drift = static_cast<long double>(theta) - kTwoPiL * static_cast<long double>(alpha);
  const long double meanPos = static_cast<long double>(p0) + static_cast<long double>(p1 - p0 - 1) / 2.0L;
  return static_cast<double>(kTwoPiL * meanFrac(alpha, p0, p1) + drift * meanPos);
}

namespace {

// [SECTION] pictures -------------------------------------------------------------------------

// Threads for a picture of outRows display rows costing ~costPerRow each: all cores once it is
// big enough to pay for them, else the calling thread alone.
int pictureThreads(int outRows, long long costPerRow) {
  const auto work = static_cast<std::size_t>(outRows) * static_cast<std::size_t>(std::max<long long>(costPerRow, 1));
  return threadsForBytes(work * 8, 0, std::size_t{4} << 20);
}

// Calls rowFn(i, rowBegin, rowEnd, dst) for every display row, split over the cores when the
// picture is big enough to pay for threads (cost ~ cellsPerRow per display row).
template <class RowFn>
void fillRows(ExactPicture& out, const std::vector<long long>& rb, long long costPerRow, RowFn&& rowFn) {
  parallelFor(out.rows, pictureThreads(out.rows, costPerRow), 1, [&](long long b, long long e) {
    for (long long i = b; i < e; ++i) {
      const auto r = static_cast<std::size_t>(i);
      rowFn(static_cast<int>(i), rb[r], rb[r + 1], out.values.data() + r * static_cast<std::size_t>(out.cols));
    }
  });
}

// From per-column means of one row block (cols of the window) to display cells: equal rows per
// column, so a column block's mean is the mean of its columns' means. colMean(k) is the mean of
// the window's column k (column col0 + k).
template <class ColMean>
void columnBlocks(ColMean&& colMean, const std::vector<long long>& cb, long long col0, double* dst) {
  const std::size_t n = cb.size() - 1;
  for (std::size_t j = 0; j < n; ++j) {
    double s = 0.0;
    for (long long c = cb[j]; c < cb[j + 1]; ++c) s += colMean(static_cast<std::size_t>(c - col0));
    dst[j] = s / static_cast<double>(cb[j + 1] - cb[j]);
  }
}

// [SECTION] sinusoidal and RoPE pair grids ----------------------------------------------------


// Run means of e^{i w p} over the consecutive blocks of one picture axis, for a few frequencies.
// The blocks are areaCellBegin's, all q = floor(n / out) or q + 1 long, so each frequency's
// Dirichlet factor takes two values, and the phase at the block middles, mid_r = b_r + (n_r - 1) / 2,
// steps by (n_r + n_{r+1}) / 2 = q, q + 1/2 or q + 1: one of three rotations. All are computed
// once; a block's means then cost a complex product per frequency instead of a reduction, a sine
// and a cosine. The walk restarts from an exact phase every kPhaseSeedBlocks blocks, at indices
// that do not depend on where a caller starts (nor, then, do the bits), so rounding builds up over
// at most that many products (below 1e-13 rad). A seed costs a reduction, a sine and a cosine
// per frequency: every 32 blocks, seeds took a sixth of a 2^31 x 4096 picture's time.
constexpr long long kPhaseSeedBlocks = 128;

class BlockPhases {
 public:
  struct Walk {   // where one thread's walk stands
    std::vector<double> zc, zs;
    long long at = -1;
    std::vector<double> row;   // the thread's scratch for one row's means
  };

  BlockPhases(std::vector<double> freq, std::vector<long long> bounds) : freq_(std::move(freq)), bounds_(std::move(bounds)) {
    const std::size_t n = freq_.size();
    q_ = (bounds_.back() - bounds_.front()) / static_cast<long long>(bounds_.size() - 1);
    shortD_.resize(n);
    longD_.resize(n);
    stepCos_.resize(3 * n);
    stepSin_.resize(3 * n);
    for (std::size_t u = 0; u < n; ++u) {
      shortD_[u] = dirichletKernel(freq_[u], q_);
      longD_[u] = dirichletKernel(freq_[u], q_ + 1);
      for (std::size_t k = 0; k < 3; ++k) {
        const double a = reducedAngle(freq_[u], static_cast<double>(q_) + 0.5 * static_cast<double>(k));
        stepCos_[k * n + u] = std::cos(a);
        stepSin_[k * n + u] = std::sin(a);
      }
    }
  }

  // Walks to block r and returns its Dirichlet factors: the means over block r are then
  // d[u] walk.zc[u] of cos(freq[u] p) and d[u] walk.zs[u] of sin. Cheapest with r rising by one.
  const double* advance(long long r, Walk& walk) const {
    const std::size_t n = freq_.size();
    if (walk.at < 0 || r < walk.at || r / kPhaseSeedBlocks != walk.at / kPhaseSeedBlocks) seed(r - r % kPhaseSeedBlocks, walk);
    for (; walk.at < r; ++walk.at) {
      const auto k = static_cast<std::size_t>(length(walk.at) + length(walk.at + 1) - 2 * q_);   // 0, 1 or 2
      kernels::rotatePhasesInPlace(walk.zc.data(), walk.zs.data(), &stepCos_[k * n], &stepSin_[k * n], n);
    }
    return length(r) == q_ ? shortD_.data() : longD_.data();
  }

  // Means over block r: c[u] of cos(freq[u] p), s[u] of sin.
  void means(long long r, Walk& walk, double* c, double* s) const {
    const double* d = advance(r, walk);
    kernels::multiplyInto(c, d, walk.zc.data(), freq_.size());
    kernels::multiplyInto(s, d, walk.zs.data(), freq_.size());
  }

 private:
  long long length(long long r) const { return bounds_[static_cast<std::size_t>(r) + 1] - bounds_[static_cast<std::size_t>(r)]; }

  void seed(long long r, Walk& walk) const {
    const double mid = static_cast<double>(bounds_[static_cast<std::size_t>(r)]) + static_cast<double>(length(r) - 1) / 2.0;   // exact: below 2^32, halves
    walk.zc.resize(freq_.size());
    walk.zs.resize(freq_.size());
    for (std::size_t u = 0; u < freq_.size(); ++u) {
      const double a = reducedAngle(freq_[u], mid);
      walk.zc[u] = std::cos(a);
      walk.zs[u] = std::sin(a);
    }
    walk.at = r;
  }

  std::vector<double> freq_;
  std::vector<long long> bounds_;
  long long q_ = 1;
  std::vector<double> shortD_, longD_, stepCos_, stepSin_;   // step*_[k * n + u]: a step of q + k/2
};

// Calls rowFn(i, walk) for every display row, split over the cores in blocks of whole phase
// chunks when the picture is big enough to pay for threads (cost ~ costPerRow per display row).
template <class RowFn>
void fillRowsWalking(int outRows, long long costPerRow, RowFn&& rowFn) {
  parallelFor(outRows, pictureThreads(outRows, costPerRow), kPhaseSeedBlocks, [&](long long b, long long e) {
    BlockPhases::Walk walk;
    for (long long i = b; i < e; ++i) rowFn(static_cast<int>(i), walk);
  });
}

// Mean of each column c in [c0, c1) over one run of rows, one closed form per column:
// runMean(pair) is the run's SinCosMean for that pair's frequency.
template <class RunMean>
void sinusoidalColumnMeans(const SinusoidalTable& s, long long c0, long long c1, std::vector<double>& out,
                           RunMean&& runMean) {
  out.resize(static_cast<std::size_t>(c1 - c0));
  // A pair's sin and cos dims share one run mean (adjacent when interleaved).
  int lastPair = -1;
  SinCosMean m;
  for (long long c = c0; c < c1; ++c) {
    const auto d = static_cast<std::size_t>(c);
    if (s.pairOfDim[d] != lastPair) {
      lastPair = s.pairOfDim[d];
      m = runMean(lastPair);
    }
    out[static_cast<std::size_t>(c - c0)] = s.dimIsSin[d] ? m.sin : m.cos;
  }
}

// The pairs behind columns [c0, c1), each once.
std::vector<int> pairsOfColumns(const SinusoidalTable& s, long long c0, long long c1) {
  std::vector<char> seen(s.frequency.size(), 0);
  std::vector<int> used;
  for (long long c = c0; c < c1; ++c) {
    const int pair = s.pairOfDim[static_cast<std::size_t>(c)];
    if (!seen[static_cast<std::size_t>(pair)]) used.push_back(pair);
    seen[static_cast<std::size_t>(pair)] = 1;
  }
  return used;
}

// The interleaved layout puts pair u's sin and cos in dims 2u and 2u + 1, so a block of columns
// is its whole pairs plus at most a cos dim before them and a sin dim after. A row then adds one
// value d_u (cos + sin) per whole pair, read in order, instead of looking up each dim's mean:
// the same sum with half the terms and no lookups (2^31 x 4096 at 498 x 716 on one core: 1.95
// against 2.3 ms).
struct PairBlocks {
  long long firstPair = 0;                        // slot u of a row's arrays is pair firstPair + u
  std::size_t pairs = 0;
  std::vector<std::uint32_t> begin, end;          // per display column: whole pairs [begin, end)
  std::vector<std::uint32_t> head, tail;          // the pairs of its first (cos) and last (sin) half pairs
  std::vector<double> headOn, tailOn;             // 1 where it has that half pair, else 0
  std::vector<double> count;                      // its dims
};

PairBlocks pairBlocks(const std::vector<long long>& cb) {
  PairBlocks b;
  b.firstPair = cb.front() / 2;
  b.pairs = static_cast<std::size_t>((cb.back() + 1) / 2 - b.firstPair);
  for (std::size_t j = 0; j + 1 < cb.size(); ++j) {
    const long long c0 = cb[j] - 2 * b.firstPair, c1 = cb[j + 1] - 2 * b.firstPair;   // dims from slot 0's sin
    const long long first = (c0 + 1) / 2;
    b.begin.push_back(static_cast<std::uint32_t>(first));
    b.end.push_back(static_cast<std::uint32_t>(std::max(first, c1 / 2)));
    b.head.push_back(static_cast<std::uint32_t>(c0 / 2));
    b.headOn.push_back(c0 % 2 == 1 ? 1.0 : 0.0);
    b.tail.push_back(static_cast<std::uint32_t>(std::max(c1 - 1, 0ll) / 2));
    b.tailOn.push_back(c1 % 2 == 1 ? 1.0 : 0.0);
    b.count.push_back(static_cast<double>(c1 - c0));
  }
  return b;
}

ExactPicture interleavedPicture(const SinusoidalParams& p, const GridWindow& w) {
  const PairBlocks b = pairBlocks(blockBounds(w.col0, w.cols, w.outCols));
  std::vector<double> freq;
  for (std::size_t u = 0; u < b.pairs; ++u) freq.push_back(sinusoidalFrequency(p, static_cast<int>(b.firstPair) + static_cast<int>(u)));
  const BlockPhases rows(std::move(freq), blockBounds(w.row0, w.rows, w.outRows));
  ExactPicture out{w.outRows, w.outCols, std::vector<double>(static_cast<std::size_t>(w.outRows) * static_cast<std::size_t>(w.outCols))};
  fillRowsWalking(w.outRows, w.cols, [&](int i, BlockPhases::Walk& walk) {
    const double* d = rows.advance(i, walk);
    const double *zc = walk.zc.data(), *zs = walk.zs.data();
    walk.row.resize(b.pairs);
    double* pairSum = walk.row.data();
    kernels::multiplySumInto(pairSum, d, zc, zs, b.pairs);
    double* dst = out.values.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(w.outCols);
    for (std::size_t j = 0; j < b.count.size(); ++j) {
      const std::uint32_t h = b.head[j], t = b.tail[j];
      double sum = b.headOn[j] * (d[h] * zc[h]);
      for (std::uint32_t u = b.begin[j]; u < b.end[j]; ++u) sum += pairSum[u];
      sum += b.tailOn[j] * (d[t] * zs[t]);
      dst[j] = sum / b.count[j];
    }
  });
  return out;
}

double meanOf(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

struct RopePairColumns {
  std::vector<double> invFreq;
  double attentionFactor = 1.0;
};

double ropePairValueMean(const RopePairColumns& f, RopePairValue v, std::size_t pair, long long r0, long long r1) {
  if (v == RopePairValue::Angle) return angleRunMean(f.invFreq[pair], r0, r1);
  const SinCosMean m = sinCosRunMean(f.invFreq[pair], r0, r1);
  return f.attentionFactor * (v == RopePairValue::Cos ? m.cos : m.sin);
}

void requireRopePairValue(const char* fn, RopePairValue v) {
  if (v != RopePairValue::Angle && v != RopePairValue::Cos && v != RopePairValue::Sin)
    failArgument(fn, "v must be Angle, Cos or Sin, got " + std::to_string(static_cast<int>(v)));
}

RopePairColumns ropePairColumns(const RopeParams& p) {
  const RopeFrequencies f = ropeFrequencies(p);
  return {f.invFreq, f.attentionFactor};
}

}  // namespace

double sinusoidalBlockMean(const SinusoidalParams& p, long long r0, long long r1, int c0, int c1) {
  const char* fn = "sinusoidalBlockMean";
  validateSinusoidal(fn, p);
  requireExactRun(fn, "r0", "r1", r0, r1);
  requireCols(fn, c0, c1, p.dModel);
  const SinusoidalTable s = sinusoidalTable(p);
  std::vector<double> means;
  sinusoidalColumnMeans(s, c0, c1, means,
                        [&](int pair) { return sinCosRunMean(s.frequency[static_cast<std::size_t>(pair)], r0, r1); });
  return meanOf(means);
}

ExactPicture sinusoidalExactPicture(const SinusoidalParams& p, const GridWindow& w) {
  const char* fn = "sinusoidalExactAverage";
  validateSinusoidal(fn, p);
  requireExactWindow(fn, w, kMaxExactPosition, p.dModel);
  if (p.layout == SinusoidalLayout::Interleaved) return interleavedPicture(p, w);
  // Tensor2Tensor (all sins, then all cosines): each column's mean is looked up.
  const SinusoidalTable s = sinusoidalTable(p);
  const std::vector<long long> cb = blockBounds(w.col0, w.cols, w.outCols);
  const std::vector<int> used = pairsOfColumns(s, w.col0, w.col0 + w.cols);
  std::vector<double> usedFreq;
  for (int pair : used) usedFreq.push_back(s.frequency[static_cast<std::size_t>(pair)]);
  const std::size_t n = used.size();
  const BlockPhases rows(std::move(usedFreq), blockBounds(w.row0, w.rows, w.outRows));
  // Where a row's means hold column c's: used pair u's cos at u, its sin at n + u.
  std::vector<int> slot(s.frequency.size(), 0);
  for (std::size_t u = 0; u < n; ++u) slot[static_cast<std::size_t>(used[u])] = static_cast<int>(u);
  std::vector<std::uint32_t> from(static_cast<std::size_t>(w.cols));   // 2n <= 65536 dims
  for (long long c = w.col0; c < w.col0 + w.cols; ++c) {
    const auto d = static_cast<std::size_t>(c);
    from[static_cast<std::size_t>(c - w.col0)] =
        static_cast<std::uint32_t>(static_cast<std::size_t>(slot[static_cast<std::size_t>(s.pairOfDim[d])]) + (s.dimIsSin[d] ? n : 0));
  }
  ExactPicture out{w.outRows, w.outCols, std::vector<double>(static_cast<std::size_t>(w.outRows) * static_cast<std::size_t>(w.outCols))};
  fillRowsWalking(w.outRows, w.cols, [&](int i, BlockPhases::Walk& walk) {
    walk.row.resize(2 * n);
    const double* means = walk.row.data();
    rows.means(i, walk, walk.row.data(), walk.row.data() + n);
    columnBlocks([&](std::size_t c) { return means[from[c]]; }, cb, w.col0,
                 out.values.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(w.outCols));
  });
  return out;
}

ExactPicture sinusoidalRmsPicture(const SinusoidalParams& p, const GridWindow& w) {
  const char* fn = "sinusoidalRmsPicture";
  validateSinusoidal(fn, p);
  requireExactWindow(fn, w, kMaxExactPosition, p.dModel);
  // sin^2(w p) = (1 - cos(2 w p)) / 2 and cos^2(w p) = (1 + cos(2 w p)) / 2: a block's mean
  // squares are its mean of cos at twice each frequency (2 w is exact), walked block by block.
  const SinusoidalTable s = sinusoidalTable(p);
  const std::vector<long long> cb = blockBounds(w.col0, w.cols, w.outCols);
  const std::vector<int> used = pairsOfColumns(s, w.col0, w.col0 + w.cols);
  std::vector<double> doubled;
  for (int pair : used) doubled.push_back(2.0 * s.frequency[static_cast<std::size_t>(pair)]);
  const std::size_t n = used.size();
  const BlockPhases rows(std::move(doubled), blockBounds(w.row0, w.rows, w.outRows));
  std::vector<int> slot(s.frequency.size(), 0);
  for (std::size_t u = 0; u < n; ++u) slot[static_cast<std::size_t>(used[u])] = static_cast<int>(u);
  std::vector<std::uint32_t> from(static_cast<std::size_t>(w.cols));   // dim -> its pair's slot
  std::vector<double> sign(static_cast<std::size_t>(w.cols));           // -1: a sin dim, +1: a cos dim
  for (long long c = w.col0; c < w.col0 + w.cols; ++c) {
    const auto d = static_cast<std::size_t>(c), at = static_cast<std::size_t>(c - w.col0);
    from[at] = static_cast<std::uint32_t>(slot[static_cast<std::size_t>(s.pairOfDim[d])]);
    sign[at] = s.dimIsSin[d] ? -1.0 : 1.0;
  }
  ExactPicture out{w.outRows, w.outCols, std::vector<double>(static_cast<std::size_t>(w.outRows) * static_cast<std::size_t>(w.outCols))};
  fillRowsWalking(w.outRows, w.cols, [&](int i, BlockPhases::Walk& walk) {
    walk.row.resize(2 * n);
    const double* cos2 = walk.row.data();
    rows.means(i, walk, walk.row.data(), walk.row.data() + n);
    double* dst = out.values.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(w.outCols);
    columnBlocks([&](std::size_t c) { return std::max(0.0, (1.0 + sign[c] * cos2[from[c]]) / 2.0); }, cb, w.col0, dst);
    for (int j = 0; j < w.outCols; ++j) dst[j] = std::sqrt(dst[j]);
  });
  return out;
}

double ropePairBlockMean(const RopeParams& p, RopePairValue v, long long r0, long long r1, int c0, int c1) {
  const char* fn = "ropePairBlockMean";
  validateRope(fn, p);
  requireRopePairValue(fn, v);
  requireExactRun(fn, "r0", "r1", r0, r1);
  requireCols(fn, c0, c1, ropeNumPairs(p));
  const RopePairColumns f = ropePairColumns(p);
  double s = 0.0;
  for (int c = c0; c < c1; ++c) s += ropePairValueMean(f, v, static_cast<std::size_t>(c), r0, r1);
  return s / static_cast<double>(c1 - c0);
}

ExactPicture ropePairExactPicture(const RopeParams& p, RopePairValue v, const GridWindow& w) {
  const char* fn = "ropePairExactAverage";
  validateRope(fn, p);
  requireRopePairValue(fn, v);
  requireExactWindow(fn, w, kMaxExactPosition, ropeNumPairs(p));
  const RopePairColumns f = ropePairColumns(p);
  const std::vector<long long> rb = blockBounds(w.row0, w.rows, w.outRows);
  const std::vector<long long> cb = blockBounds(w.col0, w.cols, w.outCols);
  ExactPicture out{w.outRows, w.outCols, std::vector<double>(static_cast<std::size_t>(w.outRows) * static_cast<std::size_t>(w.outCols))};
  fillRows(out, rb, w.cols * 8, [&](int, long long r0, long long r1, double* dst) {
    std::vector<double> means(static_cast<std::size_t>(w.cols));
    for (long long c = 0; c < w.cols; ++c)
      means[static_cast<std::size_t>(c)] = ropePairValueMean(f, v, static_cast<std::size_t>(w.col0 + c), r0, r1);
    columnBlocks([&](std::size_t c) { return means[c]; }, cb, w.col0, dst);
  });
  return out;
}

namespace {

// [SECTION] RoPE scores -----------------------------------------------------------------------

// ropeScoreSeries (rope.hpp) with this file's checks and wording.
RopeScoreSeries scoreForm(const char* fn, const RopeParams& p, std::span<const float> q, std::span<const float> k) {
  validateRope(fn, p);
  const auto headDim = static_cast<std::size_t>(p.headDim);
  if (q.size() != headDim || k.size() != headDim)
    failArgument(fn, "q and k must have headDim = " + std::to_string(headDim) + " values, got " +
                         std::to_string(q.size()) + " and " + std::to_string(k.size()));
  return ropeScoreSeries(p, q, k);
}

}  // namespace

double ropeScoreBlockMean(const RopeParams& p, std::span<const float> q, std::span<const float> k, long long m0,
                          long long m1, long long n0, long long n1) {
  const char* fn = "ropeScoreBlockMean";
  const RopeScoreSeries s = scoreForm(fn, p, q, k);
  requireExactRun(fn, "m0", "m1", m0, m1);
  requireExactRun(fn, "n0", "n1", n0, n1);
  double total = s.passThrough;
  for (std::size_t i = 0; i < s.invFreq.size(); ++i) {
    const SinCosMean a = sinCosRunMean(s.invFreq[i], m0, m1);
    const SinCosMean b = sinCosRunMean(s.invFreq[i], n0, n1);
    // mean e^{i t (m - n)} = A_m conj(A_n)
    total += s.cosCoef[i] * (a.cos * b.cos + a.sin * b.sin) + s.sinCoef[i] * (a.sin * b.cos - a.cos * b.sin);
  }
  return total;
}

ExactPicture ropeScoreExactPicture(const RopeParams& p, std::span<const float> q, std::span<const float> k,
                           const GridWindow& w) {
  const char* fn = "ropeScoreExactAverage";
  const RopeScoreSeries s = scoreForm(fn, p, q, k);
  requireExactWindow(fn, w, kMaxExactPosition, kMaxExactPosition);
  const std::size_t np = s.invFreq.size();
  // Column blocks once, pair-major: B_c, B_s of pair i for every display column in a row, so
  // that a picture row is a sum of np scaled rows (long contiguous loops a compiler vectorizes).
  const std::size_t nc = static_cast<std::size_t>(w.outCols);
  std::vector<double> bc(nc * np), bs(bc.size());
  {
    const BlockPhases cols(s.invFreq, blockBounds(w.col0, w.cols, w.outCols));
    BlockPhases::Walk colWalk;
    std::vector<double> c(np), sn(np);
    for (std::size_t j = 0; j < nc; ++j) {
      cols.means(static_cast<int>(j), colWalk, c.data(), sn.data());
      for (std::size_t i = 0; i < np; ++i) {
        bc[i * nc + j] = c[i];
        bs[i * nc + j] = sn[i];
      }
    }
  }
  const BlockPhases rows(s.invFreq, blockBounds(w.row0, w.rows, w.outRows));
  ExactPicture out{w.outRows, w.outCols, std::vector<double>(static_cast<std::size_t>(w.outRows) * nc)};
  fillRowsWalking(w.outRows, static_cast<long long>(w.outCols) * static_cast<long long>(np), [&](int r, BlockPhases::Walk& walk) {
    double* dst = out.values.data() + static_cast<std::size_t>(r) * nc;
    walk.row.resize(2 * np);
    const double* ac = walk.row.data();
    const double* as = ac + np;
    rows.means(r, walk, walk.row.data(), walk.row.data() + np);
    std::fill(dst, dst + nc, s.passThrough);
    // cosCoef Re(A conj B) + sinCoef Im(A conj B) = B_c x_i + B_s y_i
    for (std::size_t i = 0; i < np; ++i) {
      const double x = s.cosCoef[i] * ac[i] + s.sinCoef[i] * as[i];
      const double y = s.cosCoef[i] * as[i] - s.sinCoef[i] * ac[i];
      kernels::addScaledPairInto(dst, &bc[i * nc], &bs[i * nc], x, y, nc);
    }
  });
  return out;
}

namespace {

// [SECTION] ALiBi -----------------------------------------------------------------------------

// sum of |i - j| over [0, a) x [0, b).
I128 absDiffSum(I128 a, I128 b) {
  if (a > b) std::swap(a, b);
  return (a * a * a - a) / 3 + a * b * (b - a) / 2;
}

// Unmasked causal cells (j <= i) of [0, a) x [0, b): their count and sum of i - j.
struct CausalSums {
  I128 count = 0, sum = 0;
};
CausalSums causalSums(I128 a, I128 b) {
  const I128 k = std::min(a, b);
  CausalSums s{k * (k + 1) / 2, (k - 1) * k * (k + 1) / 6};
  if (a > b) {
    s.count += (a - b) * b;
    s.sum += a * b * (a - b) / 2;
  }
  return s;
}

double alibiMean(double slope, bool causal, long long i0, long long i1, long long j0, long long j1) {
  if (!causal) {
    const I128 sum = absDiffSum(i1, j1) - absDiffSum(i0, j1) - absDiffSum(i1, j0) + absDiffSum(i0, j0);
    const I128 cells = static_cast<I128>(i1 - i0) * (j1 - j0);
    return -slope * static_cast<double>(static_cast<long double>(sum) / static_cast<long double>(cells));
  }
  const CausalSums a = causalSums(i1, j1), b = causalSums(i0, j1), c = causalSums(i1, j0), d = causalSums(i0, j0);
  const I128 count = a.count - b.count - c.count + d.count;
  if (count == 0) return kNaN;
  const I128 sum = a.sum - b.sum - c.sum + d.sum;
  return -slope * static_cast<double>(static_cast<long double>(sum) / static_cast<long double>(count));
}

}  // namespace

double alibiBlockMean(double slope, bool causal, long long i0, long long i1, long long j0, long long j1) {
  const char* fn = "alibiBlockMean";
  requireAtLeast(fn, "slope", slope, 0.0);
  requireExactRun(fn, "i0", "i1", i0, i1);
  requireExactRun(fn, "j0", "j1", j0, j1);
  return alibiMean(slope, causal, i0, i1, j0, j1);
}

ExactPicture alibiExactPicture(double slope, bool causal, const GridWindow& w) {
  const char* fn = "alibiExactAverage";
  requireAtLeast(fn, "slope", slope, 0.0);
  requireExactWindow(fn, w, kMaxExactPosition, kMaxExactPosition);
  const std::vector<long long> rb = blockBounds(w.row0, w.rows, w.outRows);
  const std::vector<long long> cb = blockBounds(w.col0, w.cols, w.outCols);
  ExactPicture out{w.outRows, w.outCols, std::vector<double>(static_cast<std::size_t>(w.outRows) * static_cast<std::size_t>(w.outCols))};
  fillRows(out, rb, w.outCols * 4, [&](int, long long r0, long long r1, double* dst) {
    for (std::size_t j = 0; j + 1 < cb.size(); ++j)
      dst[j] = alibiMean(slope, causal, r0, r1, cb[j], cb[j + 1]);
  });
  return out;
}

std::vector<ExactPicture> alibiExactPictures(std::span<const double> slopes, bool causal, const GridWindow& w) {
  for (std::size_t h = 0; h < slopes.size(); ++h)
    requireAtLeast("alibiExactPictures", ("slopes[" + std::to_string(h) + "]").c_str(), slopes[h], 0.0);
  std::vector<ExactPicture> out;
  if (slopes.empty()) return out;
  const ExactPicture unit = alibiExactPicture(1.0, causal, w);   // -1 times each block's mean distance
  out.reserve(slopes.size());
  for (const double m : slopes) {
    ExactPicture p{unit.rows, unit.cols, unit.values};
    for (double& v : p.values) v *= m;   // -(m d) = m (-d): one rounding either way
    out.push_back(std::move(p));
  }
  return out;
}

// [SECTION] float32 pictures ------------------------------------------------------------------

Grid narrowPicture(const ExactPicture& pic) {
  Grid g(pic.rows, pic.cols);
  for (std::size_t i = 0; i < pic.values.size(); ++i) g.values[i] = static_cast<float>(pic.values[i]);
  return g;
}

Grid sinusoidalExactAverage(const SinusoidalParams& p, const GridWindow& w) { return narrowPicture(sinusoidalExactPicture(p, w)); }

Grid ropePairExactAverage(const RopeParams& p, RopePairValue v, const GridWindow& w) {
  return narrowPicture(ropePairExactPicture(p, v, w));
}

Grid ropeScoreExactAverage(const RopeParams& p, std::span<const float> q, std::span<const float> k,
                           const GridWindow& w) {
  return narrowPicture(ropeScoreExactPicture(p, q, k, w));
}

Grid alibiExactAverage(double slope, bool causal, const GridWindow& w) { return narrowPicture(alibiExactPicture(slope, causal, w)); }

// [SECTION] summed-area tables ------------------------------------------------------------------

SummedAreaTable::SummedAreaTable(const Grid& g) : rows_(g.rows), cols_(g.cols) {
  const char* fn = "SummedAreaTable";
  requirePositiveInt(fn, "g.rows", g.rows);
  requirePositiveInt(fn, "g.cols", g.cols);
  const auto stride = static_cast<std::size_t>(cols_) + 1;
  const bool allFinite = std::all_of(g.values.begin(), g.values.end(), [](float v) { return std::isfinite(v); });
  sum_.assign((static_cast<std::size_t>(rows_) + 1) * stride, 0.0);
  if (!allFinite) count_.assign(sum_.size(), 0);
  for (int r = 0; r < rows_; ++r) {
    const float* src = g.row(r);
    double rowSum = 0.0;
    long long rowCount = 0;
    for (int c = 0; c < cols_; ++c) {
      const bool finite = std::isfinite(src[c]);
      rowSum += finite ? static_cast<double>(src[c]) : 0.0;
      rowCount += finite ? 1 : 0;
      const std::size_t at = (static_cast<std::size_t>(r) + 1) * stride + static_cast<std::size_t>(c) + 1;
      sum_[at] = sum_[at - stride] + rowSum;
      if (!allFinite) count_[at] = count_[at - stride] + rowCount;
    }
  }
}

long long SummedAreaTable::finiteCount(int r0, int r1, int c0, int c1) const {
  const char* fn = "SummedAreaTable::finiteCount";
  requireCols(fn, r0, r1, rows_, "rows [r0, r1)");
  requireCols(fn, c0, c1, cols_);
  if (count_.empty()) return static_cast<long long>(r1 - r0) * (c1 - c0);
  const auto stride = static_cast<std::size_t>(cols_) + 1;
  auto at = [&](int r, int c) { return count_[static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(c)]; };
  return at(r1, c1) - at(r0, c1) - at(r1, c0) + at(r0, c0);
}

double SummedAreaTable::blockMean(int r0, int r1, int c0, int c1) const {
  const long long n = finiteCount(r0, r1, c0, c1);  // validates the block
  if (n == 0) return kNaN;
  const auto stride = static_cast<std::size_t>(cols_) + 1;
  auto at = [&](int r, int c) { return sum_[static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(c)]; };
  return (at(r1, c1) - at(r0, c1) - at(r1, c0) + at(r0, c0)) / static_cast<double>(n);
}

Grid SummedAreaTable::average(const GridWindow& w) const { return narrowPicture(averagePicture(w)); }

ExactPicture SummedAreaTable::averagePicture(const GridWindow& w) const {
  requireExactWindow("SummedAreaTable::averagePicture", w, rows_, cols_);
  const std::vector<long long> rb = blockBounds(w.row0, w.rows, w.outRows);
  const std::vector<long long> cb = blockBounds(w.col0, w.cols, w.outCols);
  ExactPicture out{w.outRows, w.outCols, std::vector<double>(static_cast<std::size_t>(w.outRows) * static_cast<std::size_t>(w.outCols))};
  fillRows(out, rb, w.outCols * 4, [&](int, long long r0, long long r1, double* dst) {
    for (std::size_t j = 0; j + 1 < cb.size(); ++j)
      dst[j] = blockMean(static_cast<int>(r0), static_cast<int>(r1), static_cast<int>(cb[j]), static_cast<int>(cb[j + 1]));
  });
  return out;
}

}  // namespace posviz
