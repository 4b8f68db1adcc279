#include "core/attn_temperature.hpp"

#include <cmath>

#include "core/check.hpp"
#include "core/grid.hpp"

namespace posviz {

namespace {

void validate(const char* fn, const AttnTemperatureParams& p) {
  requirePositive(fn, "floorScale", p.floorScale);
  requirePositive(fn, "attnScale", p.attnScale);
}

double scaleAt(const AttnTemperatureParams& p, long long pos) {
  // The reference divides in float32 (cache_position.float()); below 2^24 both are exact.
  return std::log(std::floor((static_cast<double>(pos) + 1.0) / p.floorScale) + 1.0) * p.attnScale + 1.0;
}

}  // namespace

double llama4AttnScale(const AttnTemperatureParams& p, long long pos) {
  const char* fn = "llama4AttnScale";
  validate(fn, p);
  requireNonNegativeInt(fn, "pos", pos);
  return scaleAt(p, pos);
}

std::vector<double> llama4AttnScales(const AttnTemperatureParams& p, long long firstPos, long long numPositions) {
  const char* fn = "llama4AttnScales";
  validate(fn, p);
  requireNonNegativeInt(fn, "firstPos", firstPos);
  requirePositiveInt(fn, "numPositions", numPositions);
  requireBudget(fn, static_cast<std::uint64_t>(numPositions), sizeof(double), "positions x float64");
  std::vector<double> out(static_cast<std::size_t>(numPositions));
  for (long long i = 0; i < numPositions; ++i) out[static_cast<std::size_t>(i)] = scaleAt(p, firstPos + i);
  return out;
}

}  // namespace posviz
