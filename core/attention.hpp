// attention.hpp: scaled dot-product attention over a tiny deterministic toy model, to show why
// order matters.
//
// FORMULA
//   Attn(X) = softmax(Q K^T / sqrt(d) + B) V,  Q = X W_q, K = X W_k, V = X W_v
//   Without position information, for a permutation matrix P: Attn(P X) = P Attn(X)
//   (permutation equivariance). Adding a position encoding (sinusoidal or learned to X, RoPE on
//   Q and K, ALiBi as B) breaks it.
//
// TOY MODEL
//   Each token string gets a fixed embedding: randomNormalVector(dModel, seed ^ fnv1a(token)),
//   so "dog" is the same vector wherever it appears. W_q, W_k, W_v are dModel x dModel normals
//   scaled by 1/sqrt(dModel), from randomNormalVector(dModel^2, seed ^ fnv1a("W q"|"W k"|"W v"))
//   (names with a space, which no token can be). Everything is float64 inside; the Grids out are
//   rounded to float32.
//
// ENCODINGS (position t = 0..T-1)
//   Sinusoidal  X[t] += PE(t), interleaved, base 10000 (sinusoidal.hpp).
//   Learned     X[t] += row t of learnedInit(T, dModel, seed + 1, 1.0). Std 1 instead of GPT-2's
//               0.02: the table stands in for a trained one whose rows are as large as the
//               token embeddings; at 0.02 the effect would be invisible.
//   Rope        Q[t], K[t] rotated to position t: RopeParams{headDim = dModel}, half-split,
//               base 10000.
//   Alibi       B = alibiBias(0.5, i, j, causal): one head with slope 1/2 (the steepest of the
//               paper's 8 heads; one head by the paper's rule would get 2^-8, nearly invisible).
//   model.causal masks j > i for every encoding; the mask is positional, so a causal model is
//   not equivariant even without an encoding.
//   Note: symmetric ALiBi depends only on |i - j|, which the reversal permutation keeps, so
//   reversing the sequence stays equivariant under ALiBi; any other shuffle breaks it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/grid.hpp"

namespace posviz {

enum class PositionEncoding { None, Sinusoidal, Learned, Rope, Alibi };
const char* positionEncodingName(PositionEncoding e);  // "none", "sinusoidal", "learned", "rope", "alibi"

inline constexpr int kMaxToyDim = 4096;  // the widest toy model (dModel)

struct ToyModel {
  int dModel = 8;                 // even, 2 .. kMaxToyDim
  std::uint64_t seed = 0;
  bool causal = false;
};

struct AttentionResult {
  Grid weights;   // T x T softmax weights, row = query
  Grid output;    // T x dModel
};

// Generic SDPA on row-major matrices: q (T x d), k (T x d), v (T x dv); bias may be empty or T x T.
AttentionResult scaledDotProductAttention(const Grid& q, const Grid& k, const Grid& v, const Grid& bias, bool causal);

// Embedding of a token string in the toy model (1 x dModel).
std::vector<float> toyEmbedding(const ToyModel& m, const std::string& token);

// Attention over tokens with the chosen encoding (positions 0..T-1).
AttentionResult toyAttention(const ToyModel& m, const std::vector<std::string>& tokens, PositionEncoding enc);

struct PermutationCheck {
  std::vector<int> perm;                 // shuffled[t] = tokens[perm[t]]
  double maxDifference = 0.0;            // max |Attn(P X) - P Attn(X)| over outputs
  bool equivariant = false;              // maxDifference <= 1e-9
};
// Compares attention on the shuffled sequence with the shuffled attention of the original.
PermutationCheck checkPermutation(const ToyModel& m, const std::vector<std::string>& tokens,
                                  const std::vector<int>& perm, PositionEncoding enc);

// The toy model's pieces, for views that run it over more positions than a T x T grid allows
// (core/extrapolation.hpp): W_q, W_k, W_v exactly as toyAttention draws them (dModel x dModel,
// applied as x W), and its fixed choices.
enum class ToyMatrix { Query, Key, Value };
Grid toyProjection(const ToyModel& m, ToyMatrix which);
struct ToyConstants {
  double alibiSlope;              // ALiBi: the one head's slope (1/2)
  double learnedStd;              // Learned: std of the table's entries (1)
  std::uint64_t learnedSeedOffset;  // Learned: the table is learnedInit(T, dModel, seed + this, learnedStd)
  double sinusoidalBase;          // Sinusoidal: base of the interleaved PE (10000)
};
ToyConstants toyConstants();

// Split "the cat sat" on whitespace.
std::vector<std::string> splitTokens(const std::string& text);

}  // namespace posviz
