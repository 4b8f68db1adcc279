#include "core/alibi.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "core/check.hpp"
#include "core/kernels.hpp"

namespace posviz {

namespace {

// Slopes of n heads, n a power of two: 2^(-8h/n), h = 1..n. Exact powers of two whenever 8h/n
// is an integer (the paper's start * ratio^i can be one ulp off; the rule is the powers).
void powerOfTwoSlopes(int n, int count, int stride, std::vector<double>& out) {
  for (int k = 0; k < count; ++k) {
    const int h = 1 + k * stride;
    out.push_back(std::exp2(-8.0 * h / n));
  }
}

void validateSlope(const char* fn, double slope) { requireAtLeast(fn, "slope", slope, 0.0); }

}  // namespace

// Press et al., get_slopes: a power of two n is geometric from 2^(-8/n); otherwise the slopes
// of the closest lower power of two p, then slopes[0::2] of 2p heads for the remaining heads.
std::vector<double> alibiSlopes(int numHeads) {
  requirePositiveInt("alibiSlopes", "numHeads", numHeads);
  constexpr int kMaxHeads = 1 << 20;
  if (numHeads > kMaxHeads)
    failArgument("alibiSlopes", "numHeads must be <= " + std::to_string(kMaxHeads) + ", got " + std::to_string(numHeads));
  int p = 1;
  while (p * 2 <= numHeads) p *= 2;
  std::vector<double> slopes;
  slopes.reserve(static_cast<std::size_t>(numHeads));
  powerOfTwoSlopes(p, p, 1, slopes);
  if (p != numHeads) powerOfTwoSlopes(2 * p, numHeads - p, 2, slopes);
  return slopes;
}

double alibiBias(double slope, long long i, long long j, bool causal) {
  validateSlope("alibiBias", slope);
  requireNonNegativeInt("alibiBias", "i", i);
  requireNonNegativeInt("alibiBias", "j", j);
  if (causal && j > i) return -std::numeric_limits<double>::infinity();
  const long long dist = causal ? i - j : (i >= j ? i - j : j - i);
  return dist == 0 ? 0.0 : -slope * static_cast<double>(dist);
}

Grid alibiBiasGrid(double slope, int numPositions, bool causal) {
  validateSlope("alibiBiasGrid", slope);
  requirePositiveInt("alibiBiasGrid", "numPositions", numPositions);
  const auto n = static_cast<std::uint64_t>(numPositions);
  requireBudget("alibiBiasGrid", n * n, sizeof(float),
                "a grid of " + std::to_string(numPositions) + " x " + std::to_string(numPositions) + " x float32");
  Grid g(numPositions, numPositions);
  alibiBiasGridInto(slope, numPositions, causal, g.values.data());
  return g;
}

void alibiBiasGridInto(double slope, int numPositions, bool causal, float* out) {
  validateSlope("alibiBiasGridInto", slope);
  requirePositiveInt("alibiBiasGridInto", "numPositions", numPositions);
  if (out == nullptr) failArgument("alibiBiasGridInto", "out must not be null");
  kernels::alibiBiasInto(slope, numPositions, causal, out);
}

std::vector<float> alibiBiasVolume(int numHeads, int numPositions, bool causal) {
  requirePositiveInt("alibiBiasVolume", "numHeads", numHeads);
  requirePositiveInt("alibiBiasVolume", "numPositions", numPositions);
  const auto n = static_cast<std::uint64_t>(numPositions);
  requireBudget("alibiBiasVolume", static_cast<std::uint64_t>(numHeads) * n * n, sizeof(float),
                "a volume of " + std::to_string(numHeads) + " x " + std::to_string(numPositions) + " x " +
                    std::to_string(numPositions) + " x float32");
  const std::vector<double> slopes = alibiSlopes(numHeads);
  std::vector<float> v(static_cast<std::size_t>(numHeads) * static_cast<std::size_t>(n * n));
  kernels::alibiVolumeInto(slopes.data(), numHeads, numPositions, causal, v.data());
  return v;
}

}  // namespace posviz
