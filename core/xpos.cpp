#include "core/xpos.hpp"

#include <cmath>
#include <string>

#include "core/check.hpp"

namespace posviz {

namespace {

void requireVector(const char* fn, const char* param, std::span<const double> v, int headDim) {
  if (static_cast<int>(v.size()) != headDim) {
    failArgument(fn, std::string(param) + " has " + std::to_string(v.size()) + " values, expected headDim = " +
                         std::to_string(headDim));
  }
  for (double x : v) requireFinite(fn, param, x);
}

}  // namespace

void validateXpos(const char* fn, const XposParams& p) {
  requireEven(fn, "headDim", p.headDim);
  requireGreater(fn, "base", p.base, 1.0);
  requirePositive(fn, "scaleBase", p.scaleBase);
}

double xposZeta(const XposParams& p, int pair) {
  validateXpos("xposZeta", p);
  requireIndex("xposZeta", "pair", pair, p.headDim / 2);
  return (2.0 * pair + 0.4 * p.headDim) / (1.4 * p.headDim);
}

double xposQueryScale(const XposParams& p, int pair, double pos) {
  requireFinite("xposQueryScale", "pos", pos);
  return std::pow(xposZeta(p, pair), pos / p.scaleBase);
}

double xposKeyScale(const XposParams& p, int pair, double pos) {
  requireFinite("xposKeyScale", "pos", pos);
  return std::pow(xposZeta(p, pair), -pos / p.scaleBase);
}

const char* xposSideName(XposSide s) { return s == XposSide::Key ? "key" : "query"; }

Grid xposScaleGrid(const XposParams& p, XposSide side, int numPositions, long long firstPos) {
  static constexpr const char* kFn = "xposScaleGrid";
  validateXpos(kFn, p);
  requirePositiveInt(kFn, "numPositions", numPositions);
  constexpr long long kLimit = 1LL << 53;   // positions stay exact in a double
  if (firstPos < -kLimit || firstPos > kLimit - numPositions) {
    failArgument(kFn, "firstPos must keep every position within +-2^53, got " + std::to_string(firstPos));
  }
  const int pairs = p.headDim / 2;
  requireBudget(kFn, static_cast<std::uint64_t>(numPositions) * static_cast<std::uint64_t>(pairs), 4, "scale grid");
  const double sign = side == XposSide::Key ? -1.0 : 1.0;   // downscale: 1 / scale
  Grid g(numPositions, pairs);
  for (int i = 0; i < pairs; ++i) {
    const double logZeta = std::log((2.0 * i + 0.4 * p.headDim) / (1.4 * p.headDim));
    for (int r = 0; r < numPositions; ++r) {
      g.at(r, i) = static_cast<float>(std::exp(sign * logZeta * static_cast<double>(firstPos + r) / p.scaleBase));
    }
  }
  return g;
}

long long xposTorchscaleFirstPosition(long long length, long long offset) {
  static constexpr const char* kFn = "xposTorchscaleFirstPosition";
  if (length < 1 || offset < 0 || length > (1LL << 52) || offset > (1LL << 52)) {
    failArgument(kFn, "length must be >= 1 and offset >= 0 (each at most 2^52), got " + std::to_string(length) + " and " +
                          std::to_string(offset));
  }
  const long long total = length + offset;
  const long long minPos = -((total + 1) / 2);   // Python's -(total) // 2 rounds toward -infinity
  return minPos + offset;                         // scale[-length:] drops the first `offset` rows
}

namespace {

// Pair i of xPos on q and k: its RoPE frequency, its decay base zeta_i, and the rotated dot product
// as a cos(d theta) - b sin(d theta) at offset d.
struct PairTerms {
  double theta, zeta, a, b;
};

PairTerms pairTerms(const XposParams& p, std::span<const double> q, std::span<const double> k, int i) {
  const double qa = q[2 * static_cast<std::size_t>(i)], qb = q[2 * static_cast<std::size_t>(i) + 1];
  const double ka = k[2 * static_cast<std::size_t>(i)], kb = k[2 * static_cast<std::size_t>(i) + 1];
  return {std::pow(p.base, -2.0 * i / p.headDim), (2.0 * i + 0.4 * p.headDim) / (1.4 * p.headDim), qa * ka + qb * kb,
          qb * ka - qa * kb};
}

}  // namespace

double xposScore(const XposParams& p, std::span<const double> q, std::span<const double> k, double n, double m) {
  static constexpr const char* kFn = "xposScore";
  validateXpos(kFn, p);
  requireVector(kFn, "q", q, p.headDim);
  requireVector(kFn, "k", k, p.headDim);
  requireFinite(kFn, "n", n);
  requireFinite(kFn, "m", m);
  const double delta = n - m;
  double s = 0.0;
  for (int i = 0; i < p.headDim / 2; ++i) {
    const PairTerms t = pairTerms(p, q, k, i);
    const double rot = t.a * std::cos(delta * t.theta) - t.b * std::sin(delta * t.theta);
    s += std::pow(t.zeta, delta / p.scaleBase) * rot;
  }
  return s;
}

std::vector<double> xposScoreByOffset(const XposParams& p, std::span<const double> q, std::span<const double> k,
                                      int maxOffset) {
  static constexpr const char* kFn = "xposScoreByOffset";
  validateXpos(kFn, p);
  requireVector(kFn, "q", q, p.headDim);
  requireVector(kFn, "k", k, p.headDim);
  requireNonNegativeInt(kFn, "maxOffset", maxOffset);
  // xposScore's sum at every offset d, pair by pair: zeta^(d / scale_base) and the angle d theta
  // advance by one multiplication and one rotation per offset, set again from pow, cos and sin
  // every kRestart offsets so the rounding of the steps stays near 1e-14 of each term.
  constexpr int kRestart = 256;
  std::vector<double> out(static_cast<std::size_t>(maxOffset) + 1, 0.0);
  for (int i = 0; i < p.headDim / 2; ++i) {
    const PairTerms t = pairTerms(p, q, k, i);
    const double stepG = std::pow(t.zeta, 1.0 / p.scaleBase), stepC = std::cos(t.theta), stepS = std::sin(t.theta);
    double g = 1.0, c = 1.0, sn = 0.0;
    for (int d = 0; d <= maxOffset; ++d) {
      if (d % kRestart == 0) {
        const double delta = static_cast<double>(d);
        g = std::pow(t.zeta, delta / p.scaleBase);
        c = std::cos(delta * t.theta);
        sn = std::sin(delta * t.theta);
      }
      out[static_cast<std::size_t>(d)] += g * (t.a * c - t.b * sn);
      const double next = c * stepC - sn * stepS;
      sn = sn * stepC + c * stepS;
      c = next;
      g *= stepG;
    }
  }
  return out;
}

}  // namespace posviz
