#include "core/fire.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>
#include <string>

#include "core/check.hpp"
#include "core/random.hpp"

namespace posviz {

namespace {

void validateMlp(const char* fn, const FireMlp& f) {
  if (f.w1.empty()) failArgument(fn, "the MLP must have at least one hidden unit");
  if (f.b1.size() != f.w1.size() || f.w2.size() != f.w1.size()) {
    failArgument(fn, "the MLP's w1, b1, w2 must have one entry per hidden unit, got " + std::to_string(f.w1.size()) + ", " +
                         std::to_string(f.b1.size()) + ", " + std::to_string(f.w2.size()));
  }
  for (const auto* v : {&f.w1, &f.b1, &f.w2}) {
    for (double x : *v) requireFinite(fn, "MLP weight", x);
  }
  requireFinite(fn, "b2", f.b2);
}

double psi(double c, double x) { return std::log1p(c * x); }

double evalUnchecked(const FireMlp& f, double x) {
  double y = f.b2;
  for (std::size_t k = 0; k < f.w1.size(); ++k) y += f.w2[k] * std::max(0.0, f.w1[k] * x + f.b1[k]);
  return y;
}

}  // namespace

void validateFire(const char* fn, const FireParams& p) {
  requirePositive(fn, "c", p.c);
  requirePositive(fn, "threshold", p.threshold);
}

FireMlp fireSeededMlp(int hidden, std::uint64_t seed) {
  requirePositiveInt("fireSeededMlp", "hidden", hidden);
  Rng rng(seed);
  auto uniform = [&](double bound) { return bound * (2.0 * rng.uniform() - 1.0); };
  FireMlp f;
  const auto n = static_cast<std::size_t>(hidden);
  f.w1.resize(n);
  f.b1.resize(n);
  f.w2.resize(n);
  for (double& w : f.w1) w = uniform(1.0);   // fan_in 1
  for (double& b : f.b1) b = uniform(1.0);
  const double bound2 = 1.0 / std::sqrt(static_cast<double>(hidden));
  for (double& w : f.w2) w = uniform(bound2);
  f.b2 = uniform(bound2);
  return f;
}

double fireMlpEval(const FireMlp& f, double x) {
  validateMlp("fireMlpEval", f);
  requireFinite("fireMlpEval", "x", x);
  return evalUnchecked(f, x);
}

double fireInput(const FireParams& p, long long i, long long j) {
  validateFire("fireInput", p);
  requireNonNegativeInt("fireInput", "i", i);
  requireNonNegativeInt("fireInput", "j", j);
  if (j > i) failArgument("fireInput", "key j must be <= query i (FIRE is causal), got i = " + std::to_string(i) + ", j = " + std::to_string(j));
  return psi(p.c, static_cast<double>(i - j)) / (psi(p.c, std::max(p.threshold, static_cast<double>(i))) + kFireEpsilon);
}

double fireBias(const FireParams& p, const FireMlp& f, long long i, long long j) {
  validateMlp("fireBias", f);
  if (j > i) return -std::numeric_limits<double>::infinity();
  return evalUnchecked(f, fireInput(p, i, j));
}

Grid fireBiasGrid(const FireParams& p, const FireMlp& f, int numPositions) {
  static constexpr const char* kFn = "fireBiasGrid";
  validateFire(kFn, p);
  validateMlp(kFn, f);
  requirePositiveInt(kFn, "numPositions", numPositions);
  requireBudget(kFn, static_cast<std::uint64_t>(numPositions) * static_cast<std::uint64_t>(numPositions), 4, "bias grid");
  Grid g(numPositions, numPositions);
  const float masked = -std::numeric_limits<float>::infinity();
  // Queries i <= L share one normaliser psi(L): their cells depend on i - j alone, so the MLP runs
  // once per distance for all of them (the same value, bit for bit, as evaluating each cell).
  const double sharedNorm = psi(p.c, p.threshold) + kFireEpsilon;
  std::vector<float> byDistance;
  for (int i = 0; i < numPositions; ++i) {
    float* row = g.row(i);
    const bool shared = static_cast<double>(i) <= p.threshold;
    while (shared && static_cast<int>(byDistance.size()) <= i)
      byDistance.push_back(static_cast<float>(evalUnchecked(f, psi(p.c, static_cast<double>(byDistance.size())) / sharedNorm)));
    const double norm = shared ? sharedNorm : psi(p.c, static_cast<double>(i)) + kFireEpsilon;
    for (int j = 0; j < numPositions; ++j) {
      if (j > i) row[j] = masked;
      else if (shared) row[j] = byDistance[static_cast<std::size_t>(i - j)];
      else row[j] = static_cast<float>(evalUnchecked(f, psi(p.c, static_cast<double>(i - j)) / norm));
    }
  }
  return g;
}

}  // namespace posviz
