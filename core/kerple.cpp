#include "core/kerple.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/check.hpp"

namespace posviz {

void validateKerple(const char* fn, const KerpleParams& p) {
  requirePositive(fn, "r1", p.r1);
  requirePositive(fn, "r2", p.r2);
  if (p.kernel == KerpleKernel::Power && p.r2 > 2.0) {
    failArgument(fn, "r2 must be in (0, 2] for the power kernel (conditionally positive definite only there), got " +
                         std::to_string(p.r2));
  }
}

const char* kerpleKernelName(KerpleKernel k) { return k == KerpleKernel::Log ? "log" : "power"; }

namespace {

// Distance 0 gives +0, not -r1 * 0 = -0 (which files and labels would print as "-0").
double kernelOf(const KerpleParams& p, double distance) {
  if (distance == 0.0) return 0.0;
  return p.kernel == KerpleKernel::Log ? -p.r1 * std::log1p(p.r2 * distance) : -p.r1 * std::pow(distance, p.r2);
}

}  // namespace

double kerpleBias(const KerpleParams& p, long long i, long long j, bool causal) {
  validateKerple("kerpleBias", p);
  if (causal && j > i) return -std::numeric_limits<double>::infinity();
  return kernelOf(p, static_cast<double>(i > j ? i - j : j - i));
}

Grid kerpleBiasGrid(const KerpleParams& p, int numPositions, bool causal) {
  static constexpr const char* kFn = "kerpleBiasGrid";
  validateKerple(kFn, p);
  requirePositiveInt(kFn, "numPositions", numPositions);
  requireBudget(kFn, static_cast<std::uint64_t>(numPositions) * static_cast<std::uint64_t>(numPositions), 4, "bias grid");
  // The bias depends on |i - j| only: one kernel value per distance.
  std::vector<float> byDistance(static_cast<std::size_t>(numPositions));
  for (int d = 0; d < numPositions; ++d) byDistance[static_cast<std::size_t>(d)] = static_cast<float>(kernelOf(p, d));
  Grid g(numPositions, numPositions);
  const float masked = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < numPositions; ++i) {
    float* row = g.row(i);
    for (int j = 0; j < numPositions; ++j) {
      row[j] = causal && j > i ? masked : byDistance[static_cast<std::size_t>(j > i ? j - i : i - j)];
    }
  }
  return g;
}

}  // namespace posviz
