// relative_bias.hpp: T5's relative position buckets and their learned per-head bias
// (Raffel et al. 2020, "Exploring the Limits of Transfer Learning", arXiv:1910.10683, section 2.1).
//
// FORMULA (HF transformers, modeling_t5.py, T5Attention._relative_position_bucket)
//   r = j - i                    (key position minus query position)
//   bidirectional: half the buckets for r > 0:  b0 = (r > 0) * N/2,  N' = N/2,  a = |r|
//                  (N/2 in integers, as HF's num_buckets //= 2: an odd N uses the buckets of N - 1,
//                  and the table's last row is never looked up)
//   causal:        only the past counts:        b0 = 0,              N' = N,    a = max(-r, 0)
//   exact part:    a < N'/2           -> bucket b0 + a
//   log part:      otherwise          -> b0 + min(N'/2 + trunc(log(a / (N'/2)) / log(D / (N'/2)) * (N' - N'/2)), N' - 1)
//   with N = numBuckets and D = maxDistance. The log part is evaluated as the reference evaluates
//   it: a / (N'/2) and the logarithm in float32, divided by log(D / (N'/2)) computed in float64 and
//   rounded to float32, times (N' - N'/2) in float32, truncated toward zero; so bucket boundaries
//   land where T5 puts them, not where exact arithmetic would.
// BIAS
//   bias_h(i, j) = table[bucket(j - i)][h], table of numBuckets rows x numHeads columns (HF's
//   relative_attention_bias.weight), added to q.k before softmax; T5 does not scale q.k.
// LAYOUT
//   Bucket and bias grids: row = query position i, col = key position j, row-major.
// ERRORS
//   std::invalid_argument naming the function and parameter: numBuckets >= 2 (>= 4 when
//   bidirectional, for an exact bucket each way), maxDistance > the exact range, positions >= 1.
#pragma once

#include <cstdint>
#include <vector>

#include "core/grid.hpp"

namespace posviz {

struct T5BucketParams {
  int numBuckets = 32;        // T5's relative_attention_num_buckets
  int maxDistance = 128;      // relative_attention_max_distance: beyond it every distance shares a bucket
  bool bidirectional = true;  // encoder (true) or decoder self-attention (false, "causal")
};

void validateT5Buckets(const char* fn, const T5BucketParams& p);
// The bucket of relative position r = key - query, in [0, numBuckets).
int t5RelativePositionBucket(const T5BucketParams& p, long long relativePosition);
// numPositions x numPositions bucket ids (as floats, exact up to 2^24) for query i, key j.
Grid t5BucketGrid(const T5BucketParams& p, int numPositions);
// A seeded table like T5's initialisation: N(0, stddev^2), numBuckets x numHeads.
Grid t5BiasTable(int numBuckets, int numHeads, std::uint64_t seed, double stddev = 1.0);
// bias of head h: table(bucket(j - i), h), numPositions x numPositions.
Grid t5BiasGrid(const T5BucketParams& p, const Grid& table, int head, int numPositions);

}  // namespace posviz
