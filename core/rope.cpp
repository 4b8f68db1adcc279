#include "core/rope.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/check.hpp"
#include "core/kernels.hpp"
#include "core/parallel.hpp"

// [SECTION] helpers: validation pieces, float64 rotation, pair grids
// [SECTION] names and parameters
// [SECTION] rotation and the KV-cache offset
// [SECTION] scores
// [SECTION] positions x pairs grids
// [SECTION] decay bound

namespace posviz {

// ---------------------------------------------------------------------------------------------
// [SECTION] helpers: validation pieces, float64 rotation, pair grids
// ---------------------------------------------------------------------------------------------

namespace {

// Positions are carried as doubles; past 2^53 consecutive integers are no longer distinct.
constexpr long long kMaxExactPos = 1LL << 53;

void requirePos(const char* fn, const char* param, double pos) { requireAtLeast(fn, param, pos, 0.0); }

void requireSize(const char* fn, const char* param, std::size_t size, int headDim) {
  if (static_cast<long long>(size) != headDim)
    failArgument(fn, std::string(param) + " has " + std::to_string(size) + " values, need headDim = " +
                         std::to_string(headDim));
}

void requirePositionRange(const char* fn, int numPositions, long long firstPos, const char* countName = "numPositions") {
  requirePositiveInt(fn, countName, numPositions);
  requireNonNegativeInt(fn, "firstPos", firstPos);
  if (firstPos > kMaxExactPos - numPositions)
    failArgument(fn, std::string("firstPos + ") + countName + " must be <= 2^53 (exact in float64), got firstPos " +
                         std::to_string(firstPos) + " with " + countName + " " + std::to_string(numPositions));
}

// Rotates x (headDim values) to position pos in place; freq from ropeFrequencies(p).
template <typename T>
void rotateInPlace(const RopeParams& p, const RopeFrequencies& f, T* x, double pos) {
  const int numPairs = static_cast<int>(f.invFreq.size());
  const double af = f.attentionFactor;
  for (int i = 0; i < numPairs; ++i) {
    const DimPair d = p.layout == RopeLayout::HalfSplit ? DimPair{i, i + numPairs} : DimPair{2 * i, 2 * i + 1};
    const double angle = pos * f.invFreq[static_cast<std::size_t>(i)];
    const double c = std::cos(angle) * af;
    const double s = std::sin(angle) * af;
    const double a = static_cast<double>(x[d.a]);
    const double b = static_cast<double>(x[d.b]);
    x[d.a] = static_cast<T>(a * c - b * s);
    x[d.b] = static_cast<T>(a * s + b * c);
  }
}

template <typename T>
std::vector<T> rotateVector(const char* fn, const RopeParams& p, std::span<const T> x, double pos) {
  validateRope(fn, p);
  requireSize(fn, "x", x.size(), p.headDim);
  for (std::size_t j = 0; j < x.size(); ++j) {
    if (!std::isfinite(static_cast<double>(x[j])))
      failArgument(fn, "x[" + std::to_string(j) + "] must be finite, got " + formatValue(static_cast<double>(x[j])));
  }
  requirePos(fn, "pos", pos);
  const RopeFrequencies f = ropeFrequencies(p);
  std::vector<T> out(x.begin(), x.end());
  rotateInPlace(p, f, out.data(), pos);
  return out;
}

void requireFiniteVector(const char* fn, const char* param, std::span<const float> v) {
  for (std::size_t j = 0; j < v.size(); ++j) {
    if (!std::isfinite(v[j]))
      failArgument(fn, std::string(param) + "[" + std::to_string(j) + "] must be finite, got " +
                           formatValue(static_cast<double>(v[j])));
  }
}

void requireQk(const char* fn, const RopeParams& p, std::span<const float> q, std::span<const float> k) {
  if (q.size() != k.size())
    failArgument(fn, "q and k must have the same size, got " + std::to_string(q.size()) + " and " +
                         std::to_string(k.size()));
  requireSize(fn, "q", q.size(), p.headDim);
  requireSize(fn, "k", k.size(), p.headDim);
  requireFiniteVector(fn, "q", q);
  requireFiniteVector(fn, "k", k);
}

enum class PairGrid { Angle, Cos, Sin };

Grid pairGrid(const char* fn, const RopeParams& p, int numPositions, long long firstPos, PairGrid which) {
  validateRope(fn, p);
  requirePositionRange(fn, numPositions, firstPos);
  const int numPairs = ropeNumPairs(p);
  requireBudget(fn, static_cast<std::uint64_t>(numPositions) * static_cast<std::uint64_t>(numPairs), sizeof(float),
                "a grid of " + std::to_string(numPositions) + " x " + std::to_string(numPairs) + " x float32");
  const RopeFrequencies f = ropeFrequencies(p);
  Grid g(numPositions, numPairs);
  float* out = g.values.data();
  switch (which) {
    case PairGrid::Angle: kernels::ropeAngleInto(f.invFreq.data(), numPairs, numPositions, firstPos, out); break;
    case PairGrid::Cos:
      kernels::ropeCosSinInto(f.invFreq.data(), numPairs, numPositions, firstPos, f.attentionFactor, out, nullptr);
      break;
    case PairGrid::Sin:
      kernels::ropeCosSinInto(f.invFreq.data(), numPairs, numPositions, firstPos, f.attentionFactor, nullptr, out);
      break;
  }
  return g;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] names and parameters
// ---------------------------------------------------------------------------------------------

const char* ropeLayoutName(RopeLayout l) {
  switch (l) {
    case RopeLayout::HalfSplit: return "half-split";
    case RopeLayout::Interleaved: return "interleaved";
  }
  return "unknown";
}

std::optional<RopeLayout> parseRopeLayoutName(const std::string& name) {
  for (RopeLayout l : {RopeLayout::HalfSplit, RopeLayout::Interleaved})
    if (name == ropeLayoutName(l)) return l;
  return std::nullopt;
}

void validateRope(const char* fn, const RopeParams& p) {
  requireEven(fn, "headDim", p.headDim);
  requireGreater(fn, "base", p.base, 1.0);
  if (!std::isfinite(p.rotaryFraction) || !(p.rotaryFraction > 0.0) || p.rotaryFraction > 1.0)
    failArgument(fn, "rotaryFraction must be in (0, 1], got " + formatValue(p.rotaryFraction));
  if (p.layout != RopeLayout::HalfSplit && p.layout != RopeLayout::Interleaved)
    failArgument(fn, "layout must be HalfSplit or Interleaved, got " + std::to_string(static_cast<int>(p.layout)));
  const int rotaryDims = ropeRotaryDims(p);
  if (rotaryDims < 2)
    failArgument(fn, "rotaryFraction must leave at least 2 rotary dims (int(headDim * rotaryFraction) rounded down "
                     "to even), got " +
                         formatValue(p.rotaryFraction) + " with headDim " + std::to_string(p.headDim) + " (" +
                         std::to_string(rotaryDims) + " dims)");
  validateRopeScaling(fn, rotaryDims, p.scaling);
}

int ropeRotaryDims(const RopeParams& p) {
  // HF: dim = int(head_dim * partial_rotary_factor); rounded down to even so pairs are whole.
  if (!std::isfinite(p.rotaryFraction) || !(p.rotaryFraction > 0.0) || p.rotaryFraction > 1.0 || p.headDim <= 0)
    return 0;
  const int dims = static_cast<int>(static_cast<double>(p.headDim) * p.rotaryFraction);
  return dims - dims % 2;
}

int ropeNumPairs(const RopeParams& p) { return ropeRotaryDims(p) / 2; }

RopeFrequencies ropeFrequencies(const RopeParams& p) {
  validateRope("ropeFrequencies", p);
  return computeRopeFrequencies(ropeRotaryDims(p), p.base, p.scaling);
}

DimPair ropePairDims(const RopeParams& p, int pair) {
  const char* fn = "ropePairDims";
  validateRope(fn, p);
  const int numPairs = ropeNumPairs(p);
  requireIndex(fn, "pair", pair, numPairs);
  return p.layout == RopeLayout::HalfSplit ? DimPair{pair, pair + numPairs} : DimPair{2 * pair, 2 * pair + 1};
}

// ---------------------------------------------------------------------------------------------
// [SECTION] rotation and the KV-cache offset
// ---------------------------------------------------------------------------------------------

double ropeAngle(const RopeParams& p, double pos, int pair) {
  const char* fn = "ropeAngle";
  validateRope(fn, p);
  requirePos(fn, "pos", pos);
  requireIndex(fn, "pair", pair, ropeNumPairs(p));
  return pos * ropeFrequencies(p).invFreq[static_cast<std::size_t>(pair)];
}

std::vector<float> ropeRotate(const RopeParams& p, std::span<const float> x, double pos) {
  return rotateVector<float>("ropeRotate", p, x, pos);
}

std::vector<double> ropeRotate(const RopeParams& p, std::span<const double> x, double pos) {
  return rotateVector<double>("ropeRotate", p, x, pos);
}

void ropeApplyInto(const RopeParams& p, const float* in, float* out, int numTokens, long long firstPos) {
  const char* fn = "ropeApplyInto";
  validateRope(fn, p);
  if (in == nullptr) failArgument(fn, "in must not be null");
  if (out == nullptr) failArgument(fn, "out must not be null");
  requirePositionRange(fn, numTokens, firstPos, "numTokens");
  const RopeFrequencies f = ropeFrequencies(p);
  const auto headDim = static_cast<std::size_t>(p.headDim);
  const std::size_t total = static_cast<std::size_t>(numTokens) * headDim;
  for (std::size_t j = 0; j < total; ++j) {
    if (!std::isfinite(in[j]))
      failArgument(fn, "in[" + std::to_string(j / headDim) + "][" + std::to_string(j % headDim) + "] must be finite, got " +
                           formatValue(static_cast<double>(in[j])));
  }
  // One head of numTokens rows; the kernel copies the pass-through dims unscaled.
  const int numPairs = static_cast<int>(f.invFreq.size());
  if (p.layout == RopeLayout::HalfSplit)
    kernels::ropeApplyHalfSplitInto(f.invFreq.data(), numPairs, f.attentionFactor, p.headDim, numTokens, 1, firstPos,
                                    in, out);
  else
    kernels::ropeApplyInterleavedInto(f.invFreq.data(), numPairs, f.attentionFactor, p.headDim, numTokens, 1,
                                      firstPos, in, out);
}

std::vector<int> ropeLayoutPermutation(int d) {
  requireEven("ropeLayoutPermutation", "d", d);
  const int half = d / 2;
  std::vector<int> perm(static_cast<std::size_t>(d));
  for (int i = 0; i < half; ++i) {
    perm[static_cast<std::size_t>(2 * i)] = i;
    perm[static_cast<std::size_t>(2 * i + 1)] = i + half;
  }
  return perm;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] scores
// ---------------------------------------------------------------------------------------------

double ropeScore(const RopeParams& p, std::span<const float> q, std::span<const float> k, double m, double n) {
  const char* fn = "ropeScore";
  validateRope(fn, p);
  requireQk(fn, p, q, k);
  requirePos(fn, "m", m);
  requirePos(fn, "n", n);
  // The definition: rotate each vector to its own position, then take the dot product.
  const RopeFrequencies f = ropeFrequencies(p);
  std::vector<double> qr(q.begin(), q.end());
  std::vector<double> kr(k.begin(), k.end());
  rotateInPlace(p, f, qr.data(), m);
  rotateInPlace(p, f, kr.data(), n);
  double s = 0.0;
  for (std::size_t j = 0; j < qr.size(); ++j) s += qr[j] * kr[j];
  return s;
}

RopeScoreSeries ropeScoreSeries(const RopeParams& p, std::span<const float> q, std::span<const float> k) {
  const RopeFrequencies f = ropeFrequencies(p);
  const int numPairs = static_cast<int>(f.invFreq.size());
  const double af2 = f.attentionFactor * f.attentionFactor;
  RopeScoreSeries s;
  s.invFreq = f.invFreq;
  // Per pair (a, b) of q and (c, e) of k: <R(alpha) q, R(beta) k> = (ac + be) cos(r theta) + (ae - bc) sin(r theta)
  // with r = m - n. Pass-through dims add a constant.
  s.cosCoef.resize(static_cast<std::size_t>(numPairs));
  s.sinCoef.resize(static_cast<std::size_t>(numPairs));
  for (int i = 0; i < numPairs; ++i) {
    const DimPair d = p.layout == RopeLayout::HalfSplit ? DimPair{i, i + numPairs} : DimPair{2 * i, 2 * i + 1};
    const double a = q[static_cast<std::size_t>(d.a)], b = q[static_cast<std::size_t>(d.b)];
    const double c = k[static_cast<std::size_t>(d.a)], e = k[static_cast<std::size_t>(d.b)];
    s.cosCoef[static_cast<std::size_t>(i)] = (a * c + b * e) * af2;
    s.sinCoef[static_cast<std::size_t>(i)] = (a * e - b * c) * af2;
  }
  for (std::size_t j = static_cast<std::size_t>(2 * numPairs); j < q.size(); ++j)
    s.passThrough += static_cast<double>(q[j]) * static_cast<double>(k[j]);
  return s;
}

namespace {

// ropeScoreSeries for this file's functions: p and q, k checked, and coefficients that a huge
// attention factor would overflow refused.
RopeScoreSeries scoreSeries(const char* fn, const RopeParams& p, std::span<const float> q, std::span<const float> k) {
  validateRope(fn, p);
  requireQk(fn, p, q, k);
  RopeScoreSeries s = ropeScoreSeries(p, q, k);
  for (std::size_t i = 0; i < s.cosCoef.size(); ++i) {
    // q and k are finite floats, so only a huge attention factor overflows the products.
    if (!std::isfinite(s.cosCoef[i]) || !std::isfinite(s.sinCoef[i]))
      failArgument(fn, "attentionFactor^2 times the q, k products of pair " + std::to_string(i) +
                           " must be finite, got attentionFactor " + formatValue(ropeFrequencies(p).attentionFactor));
  }
  return s;
}

}  // namespace

std::vector<double> ropeScoreByOffset(const RopeParams& p, std::span<const float> q, std::span<const float> k,
                                      int numPositions) {
  const char* fn = "ropeScoreByOffset";
  const RopeScoreSeries s = scoreSeries(fn, p, q, k);
  requirePositiveInt(fn, "numPositions", numPositions);
  const auto count = 2 * static_cast<std::uint64_t>(numPositions) - 1;
  requireBudget(fn, count, sizeof(double), std::to_string(count) + " offsets x float64");
  std::vector<double> out(static_cast<std::size_t>(count));
  kernels::ropeScoreOffsetsInto(s.invFreq.data(), s.cosCoef.data(), s.sinCoef.data(), static_cast<int>(s.invFreq.size()),
                                s.passThrough, numPositions, out.data());
  return out;
}

double ropeScoreBound(const RopeParams& p, std::span<const float> q, std::span<const float> k) {
  const RopeScoreSeries s = scoreSeries("ropeScoreBound", p, q, k);
  double bound = std::fabs(s.passThrough);
  for (std::size_t i = 0; i < s.invFreq.size(); ++i) bound += std::hypot(s.cosCoef[i], s.sinCoef[i]);
  return bound;
}

std::vector<double> ropeScoreAtOffsets(const RopeParams& p, std::span<const float> q, std::span<const float> k,
                                       long long firstOffset, long long count) {
  const char* fn = "ropeScoreAtOffsets";
  const RopeScoreSeries s = scoreSeries(fn, p, q, k);
  if (count < 1 || firstOffset < -kMaxScoreOffset || firstOffset > kMaxScoreOffset - (count - 1))
    failArgument(fn, "offsets [firstOffset, firstOffset + count) must be non-empty and within +-" +
                         std::to_string(kMaxScoreOffset) + ", got firstOffset " + std::to_string(firstOffset) +
                         ", count " + std::to_string(count));
  requireBudget(fn, static_cast<std::uint64_t>(count), sizeof(double), std::to_string(count) + " offsets x float64");
  std::vector<double> out(static_cast<std::size_t>(count));
  kernels::trigSeriesInto(s.invFreq.data(), s.cosCoef.data(), s.sinCoef.data(), static_cast<int>(s.invFreq.size()),
                          s.passThrough, firstOffset, count, out.data());
  return out;
}

Grid ropeScoreGrid(const RopeParams& p, std::span<const float> q, std::span<const float> k, int numPositions,
                   long long firstPos) {
  const char* fn = "ropeScoreGrid";
  validateRope(fn, p);
  requireQk(fn, p, q, k);
  requirePositionRange(fn, numPositions, firstPos);
  const auto cells = static_cast<std::uint64_t>(numPositions) * static_cast<std::uint64_t>(numPositions);
  requireBudget(fn, cells, sizeof(float),
                "a grid of " + std::to_string(numPositions) + " x " + std::to_string(numPositions) + " x float32");
  // s(m, n) depends only on m - n, so firstPos shifts nothing: 2T-1 distinct values fill T^2 cells.
  const std::vector<double> byOffset = ropeScoreByOffset(p, q, k, numPositions);
  Grid g(numPositions, numPositions);
  kernels::ropeScoreFillInto(byOffset.data(), numPositions, g.values.data());
  return g;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] positions x pairs grids
// ---------------------------------------------------------------------------------------------

Grid ropeAngleGrid(const RopeParams& p, int numPositions, long long firstPos) {
  return pairGrid("ropeAngleGrid", p, numPositions, firstPos, PairGrid::Angle);
}

Grid ropeCosGrid(const RopeParams& p, int numPositions, long long firstPos) {
  return pairGrid("ropeCosGrid", p, numPositions, firstPos, PairGrid::Cos);
}

Grid ropeSinGrid(const RopeParams& p, int numPositions, long long firstPos) {
  return pairGrid("ropeSinGrid", p, numPositions, firstPos, PairGrid::Sin);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] decay bound
// ---------------------------------------------------------------------------------------------

namespace {

// The bound at distances [r0, r1), kLanes distances at a time: each pair's e^{i r theta_k} is
// seeded exactly (cos, sin of r theta_k) every kDecayReseed distances and advanced between seeds
// by one complex product with e^{i kLanes theta_k}, so a million distances cost products, not
// sines (error ~kDecayReseed / kLanes roundings, ~1e-14, far below the 1e-11 the tests hold).
constexpr int kLanes = 8;
constexpr long long kDecayReseed = 512;   // a multiple of kLanes

void decayBoundRun(const std::vector<double>& theta, long long r0, long long r1, double* out) {
  const std::size_t np = theta.size();
  std::vector<double> re(np * kLanes), im(np * kLanes), stepRe(np), stepIm(np);
  for (std::size_t i = 0; i < np; ++i) {
    stepRe[i] = std::cos(kLanes * theta[i]);
    stepIm[i] = std::sin(kLanes * theta[i]);
  }
  for (long long seed = r0; seed < r1; seed += kDecayReseed) {
    for (std::size_t i = 0; i < np; ++i)
      for (int l = 0; l < kLanes; ++l) {
        const double angle = static_cast<double>(seed + l) * theta[i];
        re[i * kLanes + l] = std::cos(angle);
        im[i * kLanes + l] = std::sin(angle);
      }
    const long long end = std::min(r1, seed + kDecayReseed);
    for (long long r = seed; r < end; r += kLanes) {
      double sumRe[kLanes] = {}, sumIm[kLanes] = {}, total[kLanes] = {};
      for (std::size_t i = 0; i < np; ++i) {
        double* zr = &re[i * kLanes];
        double* zi = &im[i * kLanes];
        for (int l = 0; l < kLanes; ++l) {   // S_{i+1} = S_i + z_i; then z_i <- z_i e^{i kLanes theta_i}
          sumRe[l] += zr[l];
          sumIm[l] += zi[l];
          total[l] += std::sqrt(sumRe[l] * sumRe[l] + sumIm[l] * sumIm[l]);
          const double nr = zr[l] * stepRe[i] - zi[l] * stepIm[i];
          zi[l] = zr[l] * stepIm[i] + zi[l] * stepRe[i];
          zr[l] = nr;
        }
      }
      for (int l = 0; l < kLanes && r + l < end; ++l) out[r + l - r0] = total[l] / static_cast<double>(np);
    }
  }
}

}  // namespace

std::vector<double> ropeDecayBound(const RopeParams& p, int maxDistance) {
  const char* fn = "ropeDecayBound";
  validateRope(fn, p);
  requireNonNegativeInt(fn, "maxDistance", maxDistance);
  const auto count = static_cast<std::uint64_t>(maxDistance) + 1;
  requireBudget(fn, count, sizeof(double), std::to_string(count) + " distances x float64");
  const RopeFrequencies f = ropeFrequencies(p);
  std::vector<double> out(static_cast<std::size_t>(count));
  // S_j = sum_{k<j} e^{i r theta_k}, j = 1 .. d/2; the bound's distance term is sum_j |S_j|.
  const auto n = static_cast<long long>(count);
  const std::size_t work = static_cast<std::size_t>(count) * f.invFreq.size() * sizeof(double);
  parallelFor(n, threadsForBytes(work, 0), kDecayReseed,
              [&](long long begin, long long end) { decayBoundRun(f.invFreq, begin, end, out.data() + begin); });
  return out;
}

}  // namespace posviz
