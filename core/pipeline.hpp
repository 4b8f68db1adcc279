// pipeline.hpp: where position enters a transformer, and two of the documents' claims about it
// computed on the toy model of attention.hpp.
//
// STAGES
//   tokens -> embedding -> +PE -> blocks [ Q, K, V -> scores -> softmax -> output ]
//   sinusoidal, learned: +PE (added to the embedding before the stack, 002 section 8.5.6)
//   RoPE: Q and K (rotated after the projections; V is not, 001 "Apply RoPE to Q and K (not V!)")
//   ALiBi: scores (a bias before softmax);  none: nowhere.
//
// ADD VS CONCATENATE (002 section 8.5.3: "the dimension becomes 2 d_model")
//   x = toyEmbedding(token), p = PE(pos) (sinusoidal, interleaved, base 10000) or row pos of
//   learnedInit(pos + 1, dModel, seed + 1, 1.0) (the toy model's learned table).
//   add:         z = x + p,   dim dModel,     ||z||^2 = ||x||^2 + ||p||^2 + 2 x.p
//   concatenate: z = [x; p],  dim 2 dModel,   ||z||^2 = ||x||^2 + ||p||^2   (no cross term)
//
// ROTATE V TOO (004 interview question 7: "rotating V would not change the softmax weights")
//   The toy attention with RoPE on Q and K (toyAttention(m, tokens, Rope)), and the same with
//   row t of V rotated to position t as well. Weights are softmax(Q K^T / sqrt(d)) and do not
//   read V, so they are identical; outputs sum_j w_ij R_j v_j differ from sum_j w_ij v_j.
//   The toy model is rebuilt here from its definition in attention.hpp (embeddings, seeded W_q,
//   W_k, W_v) and checked against toyAttention in the tests.
//
// ERRORS
//   std::invalid_argument naming the function and the parameter (as toyAttention: dModel even,
//   tokens non-empty; pos in [0, 4096]; an encoding that adds nothing for addVsConcat).
#pragma once

#include <string>
#include <vector>

#include "core/attention.hpp"

namespace posviz {

enum class PipelineStage { Tokens, Embedding, AddPE, Blocks, Query, Key, Value, Scores, Softmax, Output };
const char* pipelineStageName(PipelineStage s);   // "tokens", "embedding", "+PE", "blocks", "Q", "K", "V", ...
const std::vector<PipelineStage>& pipelineStages();  // in data-flow order
// Where an encoding acts; rotateValues adds Value for RoPE. Empty for None.
std::vector<PipelineStage> stagesWhereApplied(PositionEncoding e, bool rotateValues = false);

struct AddVsConcat {
  int addedDim = 0;          // dModel
  int concatDim = 0;         // 2 dModel
  double tokenNorm = 0.0;    // ||x||
  double positionNorm = 0.0; // ||p||
  double crossTerm = 0.0;    // x . p
  double addedNorm = 0.0;    // ||x + p||
  double concatNorm = 0.0;   // ||[x; p]||, from its 2 dModel entries
  double addedGap = 0.0;     // | ||x+p||^2 - (||x||^2 + ||p||^2 + 2 x.p) |, rounding only
  double concatGap = 0.0;    // | ||[x;p]||^2 - (||x||^2 + ||p||^2) |, rounding only
};
// enc: Sinusoidal or Learned (the encodings that are added).
AddVsConcat addVsConcat(const ToyModel& m, const std::string& token, long long pos, PositionEncoding enc);

struct RotateValuesResult {
  AttentionResult plain;     // RoPE on Q and K
  AttentionResult rotated;   // RoPE on Q, K and V
  double maxWeightDelta = 0.0;  // max |w_rotated - w_plain|
  double maxOutputDelta = 0.0;  // max |out_rotated - out_plain|
};
RotateValuesResult ropeRotateValues(const ToyModel& m, const std::vector<std::string>& tokens);

}  // namespace posviz
