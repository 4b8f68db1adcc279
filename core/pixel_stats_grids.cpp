// pixel_stats_grids.cpp: the envelope and RMS of the RoPE pair grids, of grids constant along
// diagonals (RoPE scores) and of ALiBi (core/pixel_stats.hpp says how).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "core/parallel.hpp"
#include "core/pixel_stats.hpp"

// [SECTION] shared: combining a block's columns
// [SECTION] grids held whole
// [SECTION] RoPE pair grids
// [SECTION] grids constant along diagonals
// [SECTION] ALiBi

namespace posviz {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------------------------------------
// [SECTION] shared: combining a block's columns
// ---------------------------------------------------------------------------------------------

ExactPicture emptyPicture(const GridWindow& w) {
  return {w.outRows, w.outCols, std::vector<double>(static_cast<std::size_t>(w.outRows) * static_cast<std::size_t>(w.outCols))};
}

// One display row from per-column values (an extreme, or a mean square for Rms): the least or the
// greatest of a column block's, or the square root of their mean.
void combineColumns(PixelStat stat, const std::vector<double>& perColumn, const std::vector<long long>& cb,
                    long long col0, double* dst) {
  for (std::size_t j = 0; j + 1 < cb.size(); ++j) {
    double acc = stat == PixelStat::Min ? kInf : (stat == PixelStat::Max ? -kInf : 0.0);
    for (long long c = cb[j]; c < cb[j + 1]; ++c) {
      const double v = perColumn[static_cast<std::size_t>(c - col0)];
      acc = stat == PixelStat::Min ? std::min(acc, v) : (stat == PixelStat::Max ? std::max(acc, v) : acc + v);
    }
    dst[j] = stat == PixelStat::Rms ? std::sqrt(acc / static_cast<double>(cb[j + 1] - cb[j])) : acc;
  }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] grids held whole
// ---------------------------------------------------------------------------------------------

}  // namespace

ExactPicture gridStatPicture(const Grid& g, const GridWindow& w, PixelStat stat, long long logicalRows) {
  const char* fn = "gridStatPicture";
  const long long rows = std::max<long long>(g.rows, logicalRows);
  if (!windowInside(w, rows, g.cols))
    failArgument(fn, "window must be well formed and inside the " + std::to_string(rows) + " x " + std::to_string(g.cols) + " grid");
  const std::vector<long long> rb = blockBounds(w.row0, w.rows, w.outRows), cb = blockBounds(w.col0, w.cols, w.outCols);
  ExactPicture out = emptyPicture(w);
  const int threads = threadsForBytes(static_cast<std::size_t>(w.rows) * static_cast<std::size_t>(w.cols) * 4, 0, std::size_t{1} << 22);
  parallelFor(w.outRows, threads, 1, [&](long long begin, long long end) {
    std::vector<double> acc(static_cast<std::size_t>(w.outCols));
    std::vector<long long> count(acc.size());
    for (long long i = begin; i < end; ++i) {
      std::fill(acc.begin(), acc.end(), stat == PixelStat::Min ? kInf : (stat == PixelStat::Max ? -kInf : 0.0));
      std::fill(count.begin(), count.end(), 0);
      const long long rEnd = std::min<long long>(rb[static_cast<std::size_t>(i) + 1], g.rows);   // past: no cells
      for (long long r = rb[static_cast<std::size_t>(i)]; r < rEnd; ++r) {
        const float* row = g.values.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(g.cols);
        for (std::size_t j = 0; j < acc.size(); ++j)
          for (long long c = cb[j]; c < cb[j + 1]; ++c) {
            const double v = row[c];
            if (!std::isfinite(v)) continue;
            ++count[j];
            acc[j] = stat == PixelStat::Min ? std::min(acc[j], v)
                     : stat == PixelStat::Max ? std::max(acc[j], v)
                                              : acc[j] + (stat == PixelStat::Rms ? v * v : v);
          }
      }
      double* dst = out.values.data() + i * w.outCols;
      for (std::size_t j = 0; j < acc.size(); ++j) {
        const auto n = static_cast<double>(count[j]);
        dst[j] = count[j] == 0 ? kNaN
                 : stat == PixelStat::Rms ? std::sqrt(acc[j] / n)
                 : stat == PixelStat::Mean ? acc[j] / n
                                           : acc[j];
      }
    }
  });
  return out;
}

BlockStats gridBlockStats(const Grid& g, long long r0, long long r1, long long c0, long long c1) {
  const GridWindow w{r0, r1 - r0, c0, c1 - c0, 1, 1};
  const long long rows = std::max<long long>(g.rows, r1);
  auto one = [&](PixelStat st) { return gridStatPicture(g, w, st, rows).values[0]; };
  return {one(PixelStat::Mean), one(PixelStat::Min), one(PixelStat::Max), one(PixelStat::Rms)};
}

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] RoPE pair grids
// ---------------------------------------------------------------------------------------------

// One pair's stat over rows [r0, r1): an extreme, or the mean square for Rms (attention factor f
// > 0, so it scales the extremes without swapping them).
double pairColumnStat(double theta, double f, RopePairValue v, PixelStat stat, long long r0, long long r1) {
  if (v == RopePairValue::Angle) {
    const AngleRunExtremes e = angleRunExtremes(theta, r0, r1);
    return stat == PixelStat::Min ? e.least : e.greatest;
  }
  if (stat == PixelStat::Rms) {
    const double c2 = sinCosRunMean(2.0 * theta, r0, r1).cos;   // mean cos(2 theta p)
    const double square = v == RopePairValue::Cos ? (1.0 + c2) / 2.0 : (1.0 - c2) / 2.0;
    return f * f * std::max(0.0, square);
  }
  const SinCosRunExtremes e = sinCosRunExtremes(theta, r0, r1);
  if (v == RopePairValue::Cos) return f * (stat == PixelStat::Min ? e.minCos : e.maxCos);
  return f * (stat == PixelStat::Min ? e.minSin : e.maxSin);
}

void requirePairStat(const char* fn, RopePairValue v, PixelStat stat) {
  if (v != RopePairValue::Angle && v != RopePairValue::Cos && v != RopePairValue::Sin)
    failArgument(fn, "v must be Angle, Cos or Sin, got " + std::to_string(static_cast<int>(v)));
  if (v == RopePairValue::Angle && stat == PixelStat::Rms)
    failArgument(fn, "the angle grid has no RMS picture (angles wrap at 2 pi); use mean, min or max");
}

}  // namespace

ExactPicture ropePairStatPicture(const RopeParams& p, RopePairValue v, const GridWindow& w, PixelStat stat) {
  const char* fn = "ropePairStatPicture";
  requirePairStat(fn, v, stat);
  if (stat == PixelStat::Mean) return ropePairExactPicture(p, v, w);
  validateRope(fn, p);
  requireExactWindow(fn, w, kMaxExactPosition, ropeNumPairs(p));
  const RopeFrequencies f = ropeFrequencies(p);
  const std::vector<long long> rb = blockBounds(w.row0, w.rows, w.outRows), cb = blockBounds(w.col0, w.cols, w.outCols);
  ExactPicture out = emptyPicture(w);
  const int threads = threadsForBytes(static_cast<std::size_t>(w.outRows) * static_cast<std::size_t>(w.cols) * 64, 0,
                                      std::size_t{1} << 20);
  parallelFor(w.outRows, threads, 1, [&](long long begin, long long end) {
    std::vector<double> perColumn(static_cast<std::size_t>(w.cols));
    for (long long i = begin; i < end; ++i) {
      const long long r0 = rb[static_cast<std::size_t>(i)], r1 = rb[static_cast<std::size_t>(i) + 1];
      for (long long c = 0; c < w.cols; ++c)
        perColumn[static_cast<std::size_t>(c)] =
            pairColumnStat(f.invFreq[static_cast<std::size_t>(w.col0 + c)], f.attentionFactor, v, stat, r0, r1);
      combineColumns(stat, perColumn, cb, w.col0, out.values.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(w.outCols));
    }
  });
  return out;
}

BlockStats ropePairBlockStats(const RopeParams& p, RopePairValue v, long long r0, long long r1, int c0, int c1) {
  const char* fn = "ropePairBlockStats";
  BlockStats b;
  b.mean = ropePairBlockMean(p, v, r0, r1, c0, c1);   // validates p, v, the run and the pairs
  requirePairStat(fn, v, PixelStat::Mean);
  const RopeFrequencies f = ropeFrequencies(p);
  b.min = kInf;
  b.max = -kInf;
  double squares = 0.0;
  for (int c = c0; c < c1; ++c) {
    const double theta = f.invFreq[static_cast<std::size_t>(c)];
    b.min = std::min(b.min, pairColumnStat(theta, f.attentionFactor, v, PixelStat::Min, r0, r1));
    b.max = std::max(b.max, pairColumnStat(theta, f.attentionFactor, v, PixelStat::Max, r0, r1));
    if (v != RopePairValue::Angle) squares += pairColumnStat(theta, f.attentionFactor, v, PixelStat::Rms, r0, r1);
  }
  b.rms = v == RopePairValue::Angle ? kNaN : std::sqrt(squares / static_cast<double>(c1 - c0));
  return b;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] grids constant along diagonals
// ---------------------------------------------------------------------------------------------

namespace {

constexpr std::size_t kChunk = 64;

// f over a range of offsets, with what any block's stat needs: prefix sums of g and i g (g = f^2
// for Rms, f for Mean; i = index into f) and each chunk of kChunk offsets' least and greatest.
// The prefix sums are long double: a block's weights (index - first) cancel the large index of
// a block far along f, which in double would cost ~1e-16 x the sum of i g over all of f.
class DiagonalIndex {
 public:
  DiagonalIndex(std::span<const double> f, PixelStat stat) : f_(f) {
    if (stat == PixelStat::Mean || stat == PixelStat::Rms) {
      p0_.assign(f.size() + 1, 0.0L);
      p1_.assign(f.size() + 1, 0.0L);
      for (std::size_t i = 0; i < f.size(); ++i) {
        const long double g = stat == PixelStat::Rms ? static_cast<long double>(f[i]) * f[i] : f[i];
        p0_[i + 1] = p0_[i] + g;
        p1_[i + 1] = p1_[i] + static_cast<long double>(i) * g;
      }
    } else {
      const std::size_t chunks = (f.size() + kChunk - 1) / kChunk;
      lo_.assign(chunks, kInf);
      hi_.assign(chunks, -kInf);
      for (std::size_t i = 0; i < f.size(); ++i) {
        lo_[i / kChunk] = std::min(lo_[i / kChunk], f[i]);
        hi_[i / kChunk] = std::max(hi_[i / kChunk], f[i]);
      }
    }
  }

  // sum over i in [a, b] of (c0 + c1 i) g_i; empty when b < a.
  long double weighted(long long a, long long b, long double c0, long double c1) const {
    if (b < a) return 0.0L;
    const auto ia = static_cast<std::size_t>(a), ib = static_cast<std::size_t>(b) + 1;
    return c0 * (p0_[ib] - p0_[ia]) + c1 * (p1_[ib] - p1_[ia]);
  }

  // Least and greatest of f over indices [a, b].
  void extremes(long long a, long long b, double& lo, double& hi) const {
    lo = kInf;
    hi = -kInf;
    auto i = static_cast<std::size_t>(a);
    const auto end = static_cast<std::size_t>(b) + 1;
    for (; i < end && i % kChunk != 0; ++i) visit(f_[i], lo, hi);
    for (; i + kChunk <= end; i += kChunk) {
      lo = std::min(lo, lo_[i / kChunk]);
      hi = std::max(hi, hi_[i / kChunk]);
    }
    for (; i < end; ++i) visit(f_[i], lo, hi);
  }

 private:
  static void visit(double v, double& lo, double& hi) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  std::span<const double> f_;
  std::vector<long double> p0_, p1_;
  std::vector<double> lo_, hi_;
};

// The block's offsets as indices into f: u = 1 .. R + C - 1 at index first + u - 1, each counted
// min(u, R, C, R + C - u) times.
long double blockWeightedSum(const DiagonalIndex& ix, long long first, long long R, long long C) {
  const long long lo = std::min(R, C), hi = std::max(R, C), base = first - 1;   // index = base + u
  // rise: u in [1, lo], weight u = index - base
  long double s = ix.weighted(base + 1, base + lo, -static_cast<long double>(base), 1.0L);
  // top: u in [lo + 1, hi - 1], weight lo
  s += ix.weighted(base + lo + 1, base + hi - 1, static_cast<long double>(lo), 0.0L);
  // fall: u in [max(hi, lo + 1), R + C - 1], weight R + C - u = R + C + base - index
  s += ix.weighted(base + std::max(hi, lo + 1), base + R + C - 1, static_cast<long double>(R + C + base), -1.0L);
  return s;
}

double diagonalStat(const DiagonalIndex& ix, long long firstOffset, PixelStat stat, long long m0, long long m1,
                    long long n0, long long n1) {
  const long long first = m0 - n1 + 1 - firstOffset, last = m1 - 1 - n0 - firstOffset;   // indices into f
  if (stat == PixelStat::Min || stat == PixelStat::Max) {
    double lo = 0.0, hi = 0.0;
    ix.extremes(first, last, lo, hi);
    return stat == PixelStat::Min ? lo : hi;
  }
  const long double cells = static_cast<long double>(m1 - m0) * static_cast<long double>(n1 - n0);
  const auto mean = static_cast<double>(blockWeightedSum(ix, first, m1 - m0, n1 - n0) / cells);
  return stat == PixelStat::Rms ? std::sqrt(std::max(0.0, mean)) : mean;
}

void requireOffsetsGiven(const char* fn, std::span<const double> f, long long firstOffset, long long first, long long last) {
  if (first < firstOffset || last - firstOffset >= static_cast<long long>(f.size()))
    failArgument(fn, "f holds offsets [" + std::to_string(firstOffset) + ", " +
                         std::to_string(firstOffset + static_cast<long long>(f.size()) - 1) + "], the blocks need [" +
                         std::to_string(first) + ", " + std::to_string(last) + "]");
}

}  // namespace

OffsetSpan windowOffsets(const GridWindow& w) {
  const long long first = w.row0 - (w.col0 + w.cols - 1);
  return {first, w.row0 + w.rows - 1 - w.col0 - first + 1};
}

ExactPicture diagonalStatPicture(std::span<const double> f, long long firstOffset, const GridWindow& w, PixelStat stat) {
  const char* fn = "diagonalStatPicture";
  requireExactWindow(fn, w, kMaxExactPosition, kMaxExactPosition);
  const OffsetSpan span = windowOffsets(w);
  requireOffsetsGiven(fn, f, firstOffset, span.first, span.first + span.count - 1);
  const DiagonalIndex ix(f, stat);
  const std::vector<long long> rb = blockBounds(w.row0, w.rows, w.outRows), cb = blockBounds(w.col0, w.cols, w.outCols);
  ExactPicture out = emptyPicture(w);
  const long long perRow = static_cast<long long>(w.outCols) * (2 + (w.rows + w.cols) / w.outRows / 32);
  parallelFor(w.outRows, threadsForBytes(static_cast<std::size_t>(w.outRows * perRow), 0, std::size_t{1} << 20), 1,
              [&](long long begin, long long end) {
                for (long long i = begin; i < end; ++i) {
                  double* dst = out.values.data() + i * w.outCols;
                  for (int j = 0; j < w.outCols; ++j)
                    dst[j] = diagonalStat(ix, firstOffset, stat, rb[static_cast<std::size_t>(i)],
                                          rb[static_cast<std::size_t>(i) + 1], cb[static_cast<std::size_t>(j)],
                                          cb[static_cast<std::size_t>(j) + 1]);
                }
              });
  return out;
}

BlockStats diagonalBlockStats(std::span<const double> f, long long firstOffset, long long m0, long long m1, long long n0,
                              long long n1) {
  const char* fn = "diagonalBlockStats";
  requireExactRun(fn, "m0", "m1", m0, m1);
  requireExactRun(fn, "n0", "n1", n0, n1);
  requireOffsetsGiven(fn, f, firstOffset, m0 - n1 + 1, m1 - 1 - n0);
  // One block: its own offsets only, so the indexes cover just those.
  const long long first = m0 - n1 + 1;
  const std::span<const double> part = f.subspan(static_cast<std::size_t>(first - firstOffset),
                                                 static_cast<std::size_t>(m1 - m0 + n1 - n0 - 1));
  BlockStats b;
  b.mean = diagonalStat(DiagonalIndex(part, PixelStat::Mean), first, PixelStat::Mean, m0, m1, n0, n1);
  b.rms = diagonalStat(DiagonalIndex(part, PixelStat::Rms), first, PixelStat::Rms, m0, m1, n0, n1);
  const DiagonalIndex ext(part, PixelStat::Min);
  b.min = diagonalStat(ext, first, PixelStat::Min, m0, m1, n0, n1);
  b.max = diagonalStat(ext, first, PixelStat::Max, m0, m1, n0, n1);
  return b;
}

ExactPicture ropeScoreStatPicture(const RopeParams& p, std::span<const float> q, std::span<const float> k,
                                  const GridWindow& w, PixelStat stat) {
  const char* fn = "ropeScoreStatPicture";
  if (stat == PixelStat::Mean) return ropeScoreExactPicture(p, q, k, w);
  requireExactWindow(fn, w, kMaxExactPosition, kMaxExactPosition);
  const OffsetSpan span = windowOffsets(w);
  if (span.count > kMaxStatOffsets)
    failArgument(fn, std::string("the ") + pixelStatTitle(stat) + " of score blocks needs s at each of the window's " +
                         std::to_string(span.count) + " offsets m - n; at most " + std::to_string(kMaxStatOffsets) +
                         " (a window of at most " + std::to_string((kMaxStatOffsets + 1) / 2) + " positions a side)");
  const std::vector<double> f = ropeScoreAtOffsets(p, q, k, span.first, span.count);
  return diagonalStatPicture(f, span.first, w, stat);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] ALiBi
// ---------------------------------------------------------------------------------------------

namespace {

// T(K) = sum_{k=1}^{K} S(k), S(k) = sum_{d=0}^{k-1} d^2: (K - 1) K^2 (K + 1) / 12.
long double sumOfSquareSums(long long K) {
  const auto k = static_cast<long double>(K);
  return (k - 1.0L) * k * k * (k + 1.0L) / 12.0L;
}

// Mean of (i - j)^2 over the cells of rows [i0, i1) x cols [j0, j1) with j <= i (causal) or all.
double meanSquareDistance(bool causal, long long i0, long long i1, long long j0, long long j1) {
  const long long R = i1 - i0, C = j1 - j0;
  if (!causal || j1 - 1 <= i0) {   // every cell: (mean i - mean j)^2 + var i + var j
    const double gap = (static_cast<double>(i0) + static_cast<double>(R - 1) / 2.0) -
                       (static_cast<double>(j0) + static_cast<double>(C - 1) / 2.0);
    const double r = static_cast<double>(R), c = static_cast<double>(C);
    return gap * gap + (r * r - 1.0) / 12.0 + (c * c - 1.0) / 12.0;
  }
  if (i1 - 1 < j0) return kNaN;   // every cell masked
  // Rows i in [max(i0, j0), min(i1, j1)) keep j in [j0, i]: S(i - j0 + 1). Rows i in [max(i0, j1),
  // i1) keep the whole [j0, j1): S(i - j0 + 1) - S(i - j1 + 1).
  const long long a0 = std::max(i0, j0), a1 = std::min(i1, j1), b0 = std::max(i0, j1);
  long double sum = 0.0L, count = 0.0L;
  if (a1 > a0) {
    sum += sumOfSquareSums(a1 - j0) - sumOfSquareSums(a0 - j0);
    const auto lo = static_cast<long double>(a0 - j0 + 1), hi = static_cast<long double>(a1 - j0);
    count += (lo + hi) * (hi - lo + 1.0L) / 2.0L;
  }
  if (i1 > b0) {
    sum += sumOfSquareSums(i1 - j0) - sumOfSquareSums(b0 - j0) - (sumOfSquareSums(i1 - j1) - sumOfSquareSums(b0 - j1));
    count += static_cast<long double>(i1 - b0) * static_cast<long double>(C);
  }
  return static_cast<double>(sum / count);
}

// The least and the greatest distance |i - j| over a block's unmasked cells (false: none).
bool distanceRange(bool causal, long long i0, long long i1, long long j0, long long j1, long long& least, long long& most) {
  if (causal) {
    if (i1 - 1 < j0) return false;
    most = i1 - 1 - j0;
    least = std::max(0LL, i0 - (j1 - 1));
    return true;
  }
  most = std::max(i1 - 1 - j0, j1 - 1 - i0);
  least = std::max({0LL, j0 - (i1 - 1), i0 - (j1 - 1)});
  return true;
}

double alibiStat(double slope, bool causal, PixelStat stat, long long i0, long long i1, long long j0, long long j1) {
  if (stat == PixelStat::Mean) return alibiBlockMean(slope, causal, i0, i1, j0, j1);
  if (stat == PixelStat::Rms) return slope * std::sqrt(meanSquareDistance(causal, i0, i1, j0, j1));
  long long least = 0, most = 0;
  if (!distanceRange(causal, i0, i1, j0, j1, least, most)) return kNaN;
  // The bias is -slope x distance: least at the farthest cell, greatest at the nearest.
  return -slope * static_cast<double>(stat == PixelStat::Min ? most : least);
}

}  // namespace

ExactPicture alibiStatPicture(double slope, bool causal, const GridWindow& w, PixelStat stat) {
  const char* fn = "alibiStatPicture";
  requireAtLeast(fn, "slope", slope, 0.0);
  requireExactWindow(fn, w, kMaxExactPosition, kMaxExactPosition);
  if (stat == PixelStat::Mean) return alibiExactPicture(slope, causal, w);
  const std::vector<long long> rb = blockBounds(w.row0, w.rows, w.outRows), cb = blockBounds(w.col0, w.cols, w.outCols);
  ExactPicture out = emptyPicture(w);
  for (int i = 0; i < w.outRows; ++i)
    for (int j = 0; j < w.outCols; ++j)
      out.values[static_cast<std::size_t>(i) * static_cast<std::size_t>(w.outCols) + static_cast<std::size_t>(j)] =
          alibiStat(slope, causal, stat, rb[static_cast<std::size_t>(i)], rb[static_cast<std::size_t>(i) + 1],
                    cb[static_cast<std::size_t>(j)], cb[static_cast<std::size_t>(j) + 1]);
  return out;
}

BlockStats alibiBlockStats(double slope, bool causal, long long i0, long long i1, long long j0, long long j1) {
  BlockStats b;
  b.mean = alibiBlockMean(slope, causal, i0, i1, j0, j1);   // validates the slope and the runs
  b.min = alibiStat(slope, causal, PixelStat::Min, i0, i1, j0, j1);
  b.max = alibiStat(slope, causal, PixelStat::Max, i0, i1, j0, j1);
  b.rms = alibiStat(slope, causal, PixelStat::Rms, i0, i1, j0, j1);
  return b;
}

}  // namespace posviz
