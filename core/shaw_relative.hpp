// shaw_relative.hpp: relative position representations of Shaw, Uszkoreit & Vaswani 2018
// ("Self-Attention with Relative Position Representations", arXiv:1803.02155, section 3) and the
// two variants HF BERT ships as `position_embedding_type`.
//
// SHAW (eq. 3-5)
//   clip(x, k) = max(-k, min(k, x)); query i and key j use the learned vectors
//     a^K_ij = w^K_{clip(j - i, k)},  a^V_ij = w^V_{clip(j - i, k)}
//   from two tables of 2k + 1 rows (row index clip(j - i, k) + k). The score (eq. 5, before the
//   1/sqrt(d) scale) is the content term plus the relative term:
//     e_ij = q_i . k_j + q_i . a^K_ij
//   and the output (eq. 3) z_i = sum_j alpha_ij (v_j + a^V_ij).
// HF BERT (transformers src/transformers/models/bert/modeling_bert.py, BertSelfAttention.forward)
//   distance = position_ids_l - position_ids_r = i - j (note: the opposite sign of Shaw's j - i),
//   row = distance + max_position_embeddings - 1 of a table of 2 * max_position_embeddings - 1 rows
//   (no clipping: |i - j| must stay below max_position_embeddings), then
//     relative_key:        scores += q_i . E[row]
//     relative_key_query:  scores += q_i . E[row] + k_j . E[row]
//   again before the division by sqrt(head_dim).
// WAV2VEC2-BERT (transformers src/transformers/models/wav2vec2_bert/modeling_wav2vec2_bert.py,
// Wav2Vec2BertSelfAttention, position_embeddings_type "relative_key", the class default)
//   Shaw's clipping with its own maximum on each side: distance = j - i clamped to
//   [-left_max_position_embeddings, right_max_position_embeddings] (64 and 8 by default: more
//   of the past than of the future), row = distance + left of a table of left + right + 1 rows,
//     relative_key_clamped:  scores += q_i . E[row]   (both terms then divided by sqrt(head_size))
//   Here `clip` is the left maximum and `rightClip` the right one.
// SEEDED TABLES
//   No trained tables are published with the paper, so shawSeededTable draws one N(0, stddev^2) per
//   entry from core/random's Rng (the same on every machine).
// LAYOUT
//   Vectors and tables are row-major std::vector<double>; score grids are T x T, row = query i,
//   col = key j.
// ERRORS
//   std::invalid_argument naming the function and the parameter: k >= 0, dim >= 1, positions >= 1,
//   vectors of the stated sizes, |i - j| < max_position_embeddings, finite values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/grid.hpp"

namespace posviz {

enum class ShawVariant { Shaw, RelativeKey, RelativeKeyQuery, ClampedKey };
// "shaw", "relative_key", "relative_key_query", "relative_key_clamped"
const char* shawVariantName(ShawVariant v);

// clip(j - i, k) and its row in the (2k + 1)-row table.
long long shawClippedDistance(long long i, long long j, int k);
int shawTableRow(long long i, long long j, int k);
// Wav2Vec2-BERT's row clamp(j - i, -left, right) + left of the (left + right + 1)-row table.
int clampedKeyRow(long long i, long long j, int left, int right);
// HF BERT's row i - j + maxPositions - 1 in the (2 * maxPositions - 1)-row table.
int bertDistanceRow(long long i, long long j, int maxPositions);

// rows x dim, each entry N(0, stddev^2) from Rng(seed).
std::vector<double> shawSeededTable(int rows, int dim, std::uint64_t seed, double stddev = 1.0);

// A sequence's queries and keys (positions x dim each) and the relative table (rows x dim).
struct ShawInputs {
  int positions = 0, dim = 0;
  std::vector<double> q, k, table;
};
// Seeded q and k (N(0, 1), seeds seed and seed + 1) and a table of the rows `variant` needs
// (2 clip + 1 for Shaw, 2 positions - 1 for BERT's: max_position_embeddings = positions), seed + 2.
// rightClip: ClampedKey's right maximum (ignored by the others).
ShawInputs shawSeededInputs(ShawVariant variant, int positions, int dim, int clip, std::uint64_t seed, int rightClip = 0);
int shawTableRows(ShawVariant variant, int positions, int clip, int rightClip = 0);

struct ShawScoreTerms {
  double content = 0.0;    // q_i . k_j
  double relQuery = 0.0;   // q_i . table[row]
  double relKey = 0.0;     // k_j . table[row] (relative_key_query only; else 0)
  double total() const { return content + relQuery + relKey; }
};
// The score of query i and key j; `clip` is k for Shaw (unused for BERT's variants, whose
// max_position_embeddings is the table's (rows + 1) / 2).
ShawScoreTerms shawScoreTerms(ShawVariant variant, const ShawInputs& in, int clip, int i, int j, int rightClip = 0);
// T x T of total() (or, with indexOnly, of the table row each (i, j) reads).
Grid shawScoreGrid(ShawVariant variant, const ShawInputs& in, int clip, int rightClip = 0);
Grid shawIndexGrid(ShawVariant variant, int positions, int clip, int rightClip = 0);

// Shaw eq. 3 for query i: z_i = sum_j alpha_ij (v_j + aV[clip(j - i) + k]), alpha a row of weights
// (positions entries), v positions x dim, aV (2k + 1) x dim.
std::vector<double> shawOutput(const std::vector<double>& alpha, const std::vector<double>& v,
                               const std::vector<double>& aV, int dim, int clip, int i);

}  // namespace posviz
