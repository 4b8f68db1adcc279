// rope.hpp: rotary position embedding (RoFormer, Su et al. 2021, arXiv:2104.09864).
//
// FORMULA
//   theta_i = base^(-2i/d) for pair i in [0, d/2), d = rotary dims (see context_extension.hpp
//   for the scaled variants). A vector x at position m has each pair (a, b) rotated by m*theta_i:
//     a' = a cos(m theta_i) - b sin(m theta_i),  b' = a sin(m theta_i) + b cos(m theta_i)
//   then multiplied by the attention factor (1 unless Yarn/LongRope; HF multiplies cos and sin
//   by attention_scaling). Dims past the rotary dims (partial rotary) pass through unchanged
//   and unscaled.
//   <R_m q, R_n k> depends only on m - n: per pair (a, b) of q and (c, e) of k it is
//   af^2 * ((ac + be) cos(r theta_i) + (ae - bc) sin(r theta_i)), r = m - n, plus the dot
//   product of the pass-through dims.
//
// LAYOUTS (which dims form pair i)
//   HalfSplit   (i, i + d/2)   GPT-NeoX, Hugging Face LLaMA ("rotate_half")
//   Interleaved (2i, 2i + 1)   RoFormer, Meta's LLaMA (complex view)
//   ropeLayoutPermutation(d) gives perm with interleaved[k] = halfSplit[perm[k]], i.e.
//   perm[2i] = i, perm[2i+1] = i + d/2: applying it to q and k (and to the W_q, W_k rows) maps
//   one convention onto the other with identical scores.
//
// PARTIAL ROTARY
//   rotaryDims = 2 * floor(rotaryFraction * headDim / 2) (GPT-NeoX rotary_pct, HF
//   partial_rotary_factor: int(head_dim * factor), rounded down to even), frequencies computed
//   over the rotary dims only. In HalfSplit the pairs are (i, i + rotaryDims/2).
//
// KV-CACHE OFFSET
//   Rotating tokens t at positions offset + t equals slicing the full pass: ropeApply with
//   firstPos = offset.
//
// DECAY BOUND (RoFormer section 3.4.3)
//   |sum_i h_i e^{i r theta_i}| <= (max_i |h_{i+1} - h_i|) * sum_{j=1}^{d/2} |S_j|,
//   S_j = sum_{k<j} e^{i r theta_k}. ropeDecayBound returns (1/(d/2)) * sum_j |S_j| against r,
//   with the scaled theta'_i; at r = 0, |S_j| = j so the value is (d/2 + 1)/2.
//
// UNITS / LAYOUT
//   Positions are token indices (m, n may be any finite value >= 0; integer positions up to
//   2^53), angles in radians computed in float64 (HF uses float32; see context_extension.hpp).
//   Grids: positions x pairs (angle/cos/sin), positions x positions (scores, row = query
//   position m, col = key position n), tokens x headDim (apply).
//
// ERRORS
//   Every function validates p (validateRope: headDim even > 0, base > 1, rotaryFraction in
//   (0, 1] leaving >= 2 rotary dims, the scaling per context_extension.hpp), positions (finite,
//   >= 0), counts (> 0), vector sizes (== headDim, q and k alike) and values (finite), and
//   grid sizes against the memory budget, and throws std::invalid_argument before writing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/context_extension.hpp"
#include "core/grid.hpp"

namespace posviz {

enum class RopeLayout { HalfSplit, Interleaved };
const char* ropeLayoutName(RopeLayout l);  // "half-split", "interleaved"
std::optional<RopeLayout> parseRopeLayoutName(const std::string& name);  // inverse of ropeLayoutName

struct RopeParams {
  int headDim = 128;                       // even, >= 2
  double base = 10000.0;                   // > 1
  double rotaryFraction = 1.0;             // (0, 1]; rotaryDims must come out >= 2
  RopeLayout layout = RopeLayout::HalfSplit;
  RopeScaling scaling;                     // None by default
};

void validateRope(const char* fn, const RopeParams& p);
int ropeRotaryDims(const RopeParams& p);
int ropeNumPairs(const RopeParams& p);                     // rotaryDims / 2
RopeFrequencies ropeFrequencies(const RopeParams& p);      // after scaling
// The two dims of pair i in p.layout.
struct DimPair { int a; int b; };
DimPair ropePairDims(const RopeParams& p, int pair);

double ropeAngle(const RopeParams& p, double pos, int pair);  // pos * theta'_i, radians, not wrapped

// One vector (headDim values) rotated to position pos. Throws on size mismatch.
std::vector<float> ropeRotate(const RopeParams& p, std::span<const float> x, double pos);
std::vector<double> ropeRotate(const RopeParams& p, std::span<const double> x, double pos);
// numTokens (> 0) rows of headDim, row t rotated to position firstPos + t; in may equal out.
// The caller owns numTokens * headDim floats at in and out; in and out either coincide or do
// not overlap. Rotates in float32 (core/kernels.hpp): within 2e-6 * attentionFactor * max|x| of
// ropeRotate; a row's bits depend only on its position, so firstPos = offset gives exactly the
// full pass's rows.
void ropeApplyInto(const RopeParams& p, const float* in, float* out, int numTokens, long long firstPos);

// Interleaved <-> half-split dim permutation for a rotary width of d dims (even).
std::vector<int> ropeLayoutPermutation(int d);

// Score <R_m q, R_n k> (no 1/sqrt(d) scaling) in float64, by rotating both and taking the dot.
double ropeScore(const RopeParams& p, std::span<const float> q, std::span<const float> k, double m, double n);
// numPositions x numPositions grid of s(m, n) for fixed q and k, positions firstPos.. on both
// axes. Filled from the 2T-1 values of ropeScoreByOffset: O(T*d + T^2).
Grid ropeScoreGrid(const RopeParams& p, std::span<const float> q, std::span<const float> k, int numPositions, long long firstPos = 0);
// s as a function of r = m - n for r in [-(numPositions-1), numPositions-1] (2T-1 values,
// index r + numPositions - 1), from the closed form above.
std::vector<double> ropeScoreByOffset(const RopeParams& p, std::span<const float> q, std::span<const float> k, int numPositions);
// The series every fixed-q, fixed-k score sums: s(r) = passThrough + sum_i cosCoef_i cos(r w_i) +
// sinCoef_i sin(r w_i), r = m - n, w_i = ropeFrequencies(p).invFreq. For pair i = dims (a, b) and
// attention factor f: cosCoef_i = (q_a k_a + q_b k_b) f^2, sinCoef_i = (q_a k_b - q_b k_a) f^2;
// passThrough = the pass-through dims' dot product. p must be valid and q, k headDim long: the
// callers check, each in its own words.
struct RopeScoreSeries {
  std::vector<double> invFreq, cosCoef, sinCoef;
  double passThrough = 0.0;
};
RopeScoreSeries ropeScoreSeries(const RopeParams& p, std::span<const float> q, std::span<const float> k);
// s at the offsets r = firstOffset .. firstOffset + count - 1 (any window's distances m - n), the
// same series as ropeScoreByOffset's; |r| <= kMaxScoreOffset.
// The most |s(m, n)| can be for these q, k: sum over pairs of |q_pair| |k_pair| f^2, plus the
// pass-through dims' |q . k| (each pair's term is a sinusoid of that amplitude).
double ropeScoreBound(const RopeParams& p, std::span<const float> q, std::span<const float> k);
constexpr long long kMaxScoreOffset = (1ll << 32) - 1;
std::vector<double> ropeScoreAtOffsets(const RopeParams& p, std::span<const float> q, std::span<const float> k,
                                       long long firstOffset, long long count);

// positions x pairs grids, rows firstPos .. firstPos+numPositions-1.
Grid ropeAngleGrid(const RopeParams& p, int numPositions, long long firstPos = 0);  // radians mod 2*pi in [0, 2pi)
Grid ropeCosGrid(const RopeParams& p, int numPositions, long long firstPos = 0);    // cos(angle) * attentionFactor
Grid ropeSinGrid(const RopeParams& p, int numPositions, long long firstPos = 0);    // sin(angle) * attentionFactor

// RoFormer's relative upper bound (1/(d/2)) sum_j |S_j| for r = 0 .. maxDistance.
std::vector<double> ropeDecayBound(const RopeParams& p, int maxDistance);

}  // namespace posviz
