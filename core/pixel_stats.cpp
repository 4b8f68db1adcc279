#include "core/pixel_stats.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>

#include "core/check.hpp"
#include "core/parallel.hpp"

// [SECTION] names
// [SECTION] nearest angle: successive minima of (A x + B) mod 2^62
// [SECTION] one run's extremes
// [SECTION] pictures

namespace posviz {

// ---------------------------------------------------------------------------------------------
// [SECTION] names
// ---------------------------------------------------------------------------------------------

const char* pixelStatName(PixelStat s) {
  switch (s) {
    case PixelStat::Mean: return "mean";
    case PixelStat::Min: return "min";
    case PixelStat::Max: return "max";
    case PixelStat::Rms: return "rms";
  }
  return "unknown";
}

const char* pixelStatTitle(PixelStat s) {
  switch (s) {
    case PixelStat::Mean: return "mean";
    case PixelStat::Min: return "least (envelope)";
    case PixelStat::Max: return "greatest (envelope)";
    case PixelStat::Rms: return "RMS";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] nearest angle: successive minima of (A x + B) mod 2^62
// ---------------------------------------------------------------------------------------------

namespace {

__extension__ typedef unsigned __int128 U128;

constexpr int kFracBits = 62;
constexpr U128 kOne = U128{1} << kFracBits;   // one turn
constexpr long long kVisitMax = 64;           // runs this short are visited position by position

// The least y >= 0 with l <= (a y) mod m <= r (0 <= l <= r < m, 0 <= a < m), or -1 when none.
// Either a multiple of a lands in [l, r] before the first wrap, or the wrap count t solves the
// same problem one Euclid step down: (m t) mod a in [(-r) mod a, (-l) mod a].
long long firstInRange(U128 a, U128 m, U128 l, U128 r) {
  if (l == 0) return 0;
  if (a == 0) return -1;
  const U128 y = (l + a - 1) / a;
  if (a * y <= r) return static_cast<long long>(y);
  const long long t = firstInRange(m % a, a, (a - r % a) % a, (a - l % a) % a);
  if (t < 0) return -1;
  return static_cast<long long>((l + m * static_cast<U128>(t) + a - 1) / a);
}

// The x in [0, n) with the least (a x + b) mod 2^62 (a, b < 2^62): the first x, then each next
// lower value at the least step that wraps below the current one, repeated while it still does.
long long argMinModLinear(U128 a, U128 b, long long n) {
  long long x = 0;
  U128 v = b;
  while (v > 0) {
    const long long y = firstInRange(a, kOne, kOne - v, kOne - 1);
    if (y < 0 || y > n - 1 - x) break;
    const U128 delta = kOne - (a * static_cast<U128>(y)) % kOne;   // how much one step lowers v
    const U128 k = std::min<U128>(v / delta, static_cast<U128>((n - 1 - x) / y));
    x += static_cast<long long>(k) * y;
    v -= k * delta;
  }
  return x;
}

// w / 2 pi as a fraction of a turn in 62-bit fixed point, reduced to [0, 1).
U128 turnsFixed(double w) {
  long double t = static_cast<long double>(w) / 6.283185307179586476925286766559005768L;
  t -= std::floor(t);
  const auto v = static_cast<U128>(std::ldexp(t, kFracBits));
  return v % kOne;
}

// The positions in [p0, p0 + n) whose angle is nearest above and nearest below `target` turns.
void nearestToTarget(U128 a, long long p0, long long n, U128 target, long long& above, long long& below) {
  const U128 start = (a * static_cast<U128>(p0)) % kOne;   // p0 < 2^32: the product fits
  const U128 b = (start + kOne - target) % kOne;
  above = p0 + argMinModLinear(a, b, n);
  const U128 negA = (kOne - a) % kOne;
  below = p0 + argMinModLinear(negA, (kOne - b) % kOne, n);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] one run's extremes
// ---------------------------------------------------------------------------------------------

namespace {

// The extremes at the positions nearest the given quarter turns (0: cos max, 1: sin max, 2: cos
// min, 3: sin min), from either side; the others are left at +-infinity.
SinCosRunExtremes runExtremes(double w, long long p0, long long p1, std::initializer_list<int> quarters) {
  const char* fn = "sinCosRunExtremes";
  requireFinite(fn, "w", w);
  requireExactRun(fn, "p0", "p1", p0, p1);
  SinCosRunExtremes e{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                      std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  auto visit = [&](long long p) {
    // The angle p w exactly, as hi + lo (p < 2^53 is exact, so fma gives the product's rounding
    // error): the value at the exact angle, not at p w rounded (off by up to 2.4e-7 rad at 2^31).
    const double hi = static_cast<double>(p) * w, lo = std::fma(static_cast<double>(p), w, -hi);
    const double sh = std::sin(hi), ch = std::cos(hi), cl = 1.0 - 0.5 * lo * lo;   // cos lo, sin lo = lo
    const double s = sh * cl + lo * ch, c = ch * cl - lo * sh;
    e.minSin = std::min(e.minSin, s);
    e.maxSin = std::max(e.maxSin, s);
    e.minCos = std::min(e.minCos, c);
    e.maxCos = std::max(e.maxCos, c);
  };
  const long long n = p1 - p0;
  if (n <= kVisitMax) {
    for (long long p = p0; p < p1; ++p) visit(p);
    return e;
  }
  // The extremes of both lie at the positions nearest the four quarter turns, from either side.
  const U128 a = turnsFixed(w);
  for (int quarter : quarters) {
    long long above = 0, below = 0;
    nearestToTarget(a, p0, n, static_cast<U128>(quarter) * (kOne / 4), above, below);
    visit(above);
    visit(below);
  }
  return e;
}

}  // namespace

SinCosRunExtremes sinCosRunExtremes(double w, long long p0, long long p1) { return runExtremes(w, p0, p1, {0, 1, 2, 3}); }

AngleRunExtremes angleRunExtremes(double theta, long long p0, long long p1) {
  const char* fn = "angleRunExtremes";
  requirePositive(fn, "theta", theta);
  requireExactRun(fn, "p0", "p1", p0, p1);
  AngleRunExtremes e{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  auto visit = [&](long long p) {
    const double a = exactAngle(theta, p);
    e.least = std::min(e.least, a);
    e.greatest = std::max(e.greatest, a);
  };
  const long long n = p1 - p0;
  if (n <= kVisitMax) {
    for (long long p = p0; p < p1; ++p) visit(p);
    return e;
  }
  // The least angle is nearest above a whole turn (0 itself included), the greatest nearest below
  // it (0 excluded: the target is one fixed-point step short of the turn).
  const U128 a = turnsFixed(theta);
  long long above = 0, below = 0, unused = 0;
  nearestToTarget(a, p0, n, 0, above, unused);
  visit(above);
  nearestToTarget(a, p0, n, kOne - 1, unused, below);
  visit(below);
  return e;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] pictures
// ---------------------------------------------------------------------------------------------

namespace {

// Per display row block and pair, the two values a stat combines over dims: the sin dim's and the
// cos dim's (extreme or mean square).
struct PairStat {
  double sinValue = 0.0, cosValue = 0.0;
};

PairStat pairStat(double w, long long r0, long long r1, PixelStat stat) {
  if (stat == PixelStat::Rms) {
    const double c2 = sinCosRunMean(2.0 * w, r0, r1).cos;   // mean cos(2 w p)
    return {std::max(0.0, (1.0 - c2) / 2.0), std::max(0.0, (1.0 + c2) / 2.0)};
  }
  if (stat == PixelStat::Min) {
    const SinCosRunExtremes e = runExtremes(w, r0, r1, {2, 3});
    return {e.minSin, e.minCos};
  }
  const SinCosRunExtremes e = runExtremes(w, r0, r1, {0, 1});
  return {e.maxSin, e.maxCos};
}

// The largest |value| of a picture's finite cells.
double peakOf(const ExactPicture& pic) {
  double most = 0.0;
  for (double v : pic.values)
    if (std::isfinite(v)) most = std::max(most, std::fabs(v));
  return most;
}

// Whether a mean picture with this peak has flattened out (meanFlattens).
bool flattens(double peak, const GridWindow& w, double bound, double share) {
  return w.outRows > 0 && w.rows > w.outRows && peak <= share * bound;   // averaged, and near 0 everywhere
}

}  // namespace

ExactPicture sinusoidalStatPicture(const SinusoidalParams& p, const GridWindow& w, PixelStat stat) {
  const char* fn = "sinusoidalStatPicture";
  if (stat == PixelStat::Mean) return sinusoidalExactPicture(p, w);
  if (stat == PixelStat::Rms) return sinusoidalRmsPicture(p, w);
  validateSinusoidal(fn, p);
  requireExactWindow(fn, w, kMaxExactPosition, p.dModel);
  const SinusoidalTable t = sinusoidalTable(p);
  const std::vector<long long> rb = blockBounds(w.row0, w.rows, w.outRows), cb = blockBounds(w.col0, w.cols, w.outCols);
  const std::size_t pairs = t.frequency.size();
  ExactPicture out{w.outRows, w.outCols, std::vector<double>(static_cast<std::size_t>(w.outRows) * static_cast<std::size_t>(w.outCols))};
  const int threads = threadsForBytes(static_cast<std::size_t>(w.outRows) * pairs * 64, 0, std::size_t{1} << 20);
  parallelFor(w.outRows, threads, 1, [&](long long begin, long long end) {
    std::vector<PairStat> row(pairs);
    for (long long i = begin; i < end; ++i) {
      const long long r0 = rb[static_cast<std::size_t>(i)], r1 = rb[static_cast<std::size_t>(i) + 1];
      for (std::size_t k = 0; k < pairs; ++k) row[k] = pairStat(t.frequency[k], r0, r1, stat);
      double* dst = out.values.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(w.outCols);
      for (int j = 0; j < w.outCols; ++j) {
        double acc = stat == PixelStat::Min ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
        const long long c0 = cb[static_cast<std::size_t>(j)], c1 = cb[static_cast<std::size_t>(j) + 1];
        for (long long c = c0; c < c1; ++c) {
          const PairStat& ps = row[static_cast<std::size_t>(t.pairOfDim[static_cast<std::size_t>(c)])];
          const double v = t.dimIsSin[static_cast<std::size_t>(c)] != 0 ? ps.sinValue : ps.cosValue;
          acc = stat == PixelStat::Min ? std::min(acc, v) : std::max(acc, v);
        }
        dst[j] = acc;
      }
    }
  });
  return out;
}

BlockStats sinusoidalBlockStats(const SinusoidalParams& p, long long r0, long long r1, int c0, int c1) {
  BlockStats b;
  b.mean = sinusoidalBlockMean(p, r0, r1, c0, c1);   // validates p, the run and the dims
  const SinusoidalTable t = sinusoidalTable(p);
  b.min = std::numeric_limits<double>::infinity();
  b.max = -b.min;
  double squares = 0.0;
  for (int c = c0; c < c1; ++c) {
    const double w = t.frequency[static_cast<std::size_t>(t.pairOfDim[static_cast<std::size_t>(c)])];
    const bool isSin = t.dimIsSin[static_cast<std::size_t>(c)] != 0;
    const SinCosRunExtremes e = sinCosRunExtremes(w, r0, r1);
    b.min = std::min(b.min, isSin ? e.minSin : e.minCos);
    b.max = std::max(b.max, isSin ? e.maxSin : e.maxCos);
    const PairStat sq = pairStat(w, r0, r1, PixelStat::Rms);
    squares += isSin ? sq.sinValue : sq.cosValue;
  }
  b.rms = std::sqrt(squares / static_cast<double>(c1 - c0));
  return b;
}

bool meanFlattens(const ExactPicture& mean, const GridWindow& w, double bound, double share) {
  return flattens(peakOf(mean), w, bound, share);
}

PixelStat statOfChoice(PixelChoice choice) {
  return choice == PixelChoice::Auto ? PixelStat::Mean : static_cast<PixelStat>(static_cast<int>(choice) - 1);
}

ChosenPicture choosePicture(PixelChoice choice, const GridWindow& w, double bound,
                            const std::function<ExactPicture(PixelStat)>& statPicture) {
  ChosenPicture c;
  c.stat = statOfChoice(choice);
  c.picture = statPicture(c.stat);
  if (choice != PixelChoice::Auto) return c;
  c.automatic = true;
  c.meanPeak = peakOf(c.picture);
  if (bound > 0.0 && flattens(c.meanPeak, w, bound, kFlattenShare)) {
    c.stat = PixelStat::Rms;
    c.picture = statPicture(PixelStat::Rms);
  }
  return c;
}

ChosenPicture sinusoidalChosenPicture(const SinusoidalParams& p, const GridWindow& w, PixelChoice choice) {
  return choosePicture(choice, w, 1.0, [&](PixelStat stat) { return sinusoidalStatPicture(p, w, stat); });
}

}  // namespace posviz
