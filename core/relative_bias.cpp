#include "core/relative_bias.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/check.hpp"
#include "core/random.hpp"

namespace posviz {

void validateT5Buckets(const char* fn, const T5BucketParams& p) {
  if (p.numBuckets < 2) failArgument(fn, "numBuckets must be >= 2, got " + std::to_string(p.numBuckets));
  const int perSide = p.bidirectional ? p.numBuckets / 2 : p.numBuckets;
  const int maxExact = perSide / 2;
  if (maxExact < 1) failArgument(fn, "numBuckets " + std::to_string(p.numBuckets) + " leaves no exact bucket per direction");
  if (p.maxDistance <= maxExact) {
    failArgument(fn, "maxDistance must be > the exact range " + std::to_string(maxExact) + ", got " + std::to_string(p.maxDistance));
  }
}

int t5RelativePositionBucket(const T5BucketParams& p, long long relativePosition) {
  validateT5Buckets("t5RelativePositionBucket", p);
  int buckets = p.numBuckets;
  int bucket = 0;
  long long a = 0;
  if (p.bidirectional) {
    buckets /= 2;
    if (relativePosition > 0) bucket += buckets;
    a = relativePosition < 0 ? -relativePosition : relativePosition;
  } else {
    a = relativePosition < 0 ? -relativePosition : 0;
  }
  const int maxExact = buckets / 2;
  if (a < maxExact) return bucket + static_cast<int>(a);
  // float32 as torch evaluates relative_position.float() / max_exact, log, / math.log(...) * n.
  const float ratio = static_cast<float>(a) / static_cast<float>(maxExact);
  const float logDistance = static_cast<float>(std::log(static_cast<double>(p.maxDistance) / maxExact));
  const float scaled = std::log(ratio) / logDistance * static_cast<float>(buckets - maxExact);
  const long long large = maxExact + static_cast<long long>(scaled);  // .to(torch.long) truncates
  return bucket + static_cast<int>(std::min<long long>(large, buckets - 1));
}

Grid t5BucketGrid(const T5BucketParams& p, int numPositions) {
  static constexpr const char* kFn = "t5BucketGrid";
  validateT5Buckets(kFn, p);
  requirePositiveInt(kFn, "numPositions", numPositions);
  requireBudget(kFn, static_cast<std::uint64_t>(numPositions) * static_cast<std::uint64_t>(numPositions), 4, "bucket grid");
  // Every cell depends on j - i only: one bucket per offset, then a copy per row.
  std::vector<float> byOffset(2 * static_cast<std::size_t>(numPositions) - 1);
  for (long long r = -(numPositions - 1); r <= numPositions - 1; ++r) {
    byOffset[static_cast<std::size_t>(r + numPositions - 1)] = static_cast<float>(t5RelativePositionBucket(p, r));
  }
  Grid g(numPositions, numPositions);
  for (int i = 0; i < numPositions; ++i) {
    float* row = g.row(i);
    for (int j = 0; j < numPositions; ++j) row[j] = byOffset[static_cast<std::size_t>(j - i + numPositions - 1)];
  }
  return g;
}

Grid t5BiasTable(int numBuckets, int numHeads, std::uint64_t seed, double stddev) {
  static constexpr const char* kFn = "t5BiasTable";
  requirePositiveInt(kFn, "numBuckets", numBuckets);
  requirePositiveInt(kFn, "numHeads", numHeads);
  requirePositive(kFn, "stddev", stddev);
  Grid t(numBuckets, numHeads);
  Rng rng(seed);
  for (float& v : t.values) v = static_cast<float>(stddev * rng.normal());
  return t;
}

Grid t5BiasGrid(const T5BucketParams& p, const Grid& table, int head, int numPositions) {
  static constexpr const char* kFn = "t5BiasGrid";
  validateT5Buckets(kFn, p);
  if (table.rows != p.numBuckets) {
    failArgument(kFn, "table has " + std::to_string(table.rows) + " rows, expected numBuckets = " + std::to_string(p.numBuckets));
  }
  requireIndex(kFn, "head", head, table.cols);
  Grid g = t5BucketGrid(p, numPositions);
  for (float& v : g.values) v = table.at(static_cast<int>(v), head);
  return g;
}

}  // namespace posviz
