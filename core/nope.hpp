// nope.hpp: what a causal decoder without any positional signal (NoPE) can still tell apart.
//
// WHAT
//   Bidirectional attention without position is permutation equivariant (order.hpp): shuffle
//   the tokens and the outputs are the same rows, moved. A causal mask changes that although no
//   position is ever added: query t averages over the t+1 tokens 0..t, so
//   (a) compareNopeOrder: "dog bites man" and "man bites dog" give outputs that differ beyond
//       the permutation (max |Attn(PX) - P Attn(X)| > 0 with the mask, 0 without), and
//   (b) nopeCounting: position becomes countable. A head whose scores are uniform (its query
//       projection is zero, W_q = 0, so q_t . k_j = 0 for every key) puts weight 1/(t+1) on each
//       visible token; with a BOS token first and a value that reads "is BOS" (v_j = 1 for BOS,
//       0 otherwise) its output at t is the weight on BOS, 1/(t+1), and t = 1/weight - 1.
//       Without the mask the same head gives 1/T everywhere: every token reads T - 1.
//   Haviv et al. 2022, "Transformer Language Models without Positional Encodings Still Learn
//   Positional Information", arXiv:2203.16634 (section 5: the causal mask lets attention count);
//   Kazemnejad et al. 2023, "The Impact of Positional Encoding on Length Generalization in
//   Transformers", arXiv:2305.19466 (NoPE, Theorem 1: the first layer can recover absolute
//   position from a causal uniform head).
//
// LAYOUT
//   Token lists as in order.hpp (shuffled[t] = tokens[perm[t]]). nopeCounting's lists start with
//   kNopeBosToken; weights is the (T+1) x (T+1) counting head's weights, row = query. Per-token
//   vectors are indexed like that list (index 0 = BOS).
//
// UNITS / ERRORS
//   Weights in [0, 1], positions in tokens, float64 inside (Grids are float32). std::invalid_argument
//   naming the function: empty token list, a perm that is not a permutation, an input token equal
//   to kNopeBosToken (it would be counted as a second BOS), and the toy model's own checks.
#pragma once

#include <string>
#include <vector>

#include "core/grid.hpp"
#include "core/order.hpp"

namespace posviz {

constexpr const char* kNopeBosToken = "<bos>";

struct NopeOrder {
  OrderComparison bidirectional;  // no mask, no encoding: equivariant, outputs differ by ~1e-16
  OrderComparison causal;         // causal mask, no encoding: the outputs differ beyond P
};
// Runs compareOrder with PositionEncoding::None twice, m.causal forced off and on.
NopeOrder compareNopeOrder(const ToyModel& m, const std::vector<std::string>& tokens, const std::vector<int>& perm);

struct NopeCounting {
  std::vector<std::string> tokens;          // kNopeBosToken, then the input tokens
  Grid weights;                             // counting head, causal: w[t][j] = 1/(t+1) for j <= t
  std::vector<double> bosWeight;            // causal counting head: weight of query t on BOS
  std::vector<double> recoveredPosition;    // 1 / bosWeight - 1 (= t)
  std::vector<double> bidirectionalBosWeight;  // same head without the mask (= 1/T)
  std::vector<double> bidirectionalRecovered;  // 1 / weight - 1 (= T - 1 for every t)
  Grid toyWeights;                          // the toy model's own causal head on the same list
  std::vector<double> toyBosWeight;         // its weight of query t on BOS (content scores)
  std::vector<double> toyRecovered;         // 1 / toyBosWeight - 1: position, blurred by content
  double maxPositionError = 0.0;            // max_t |recoveredPosition[t] - t|
  double maxToyPositionError = 0.0;         // max_t |toyRecovered[t] - t|
};
// The counting head on kNopeBosToken + tokens, and the toy model m's causal head (no encoding)
// on the same list for comparison. m.causal is ignored.
NopeCounting nopeCounting(const ToyModel& m, const std::vector<std::string>& tokens);

// Softmax of the uniform scores q . k = 0 over the keys a query sees: row t of the result is
// 1/(t+1) over j <= t (causal) or 1/T over all j. numTokens >= 1.
std::vector<std::vector<double>> uniformHeadWeights(int numTokens, bool causal);

}  // namespace posviz
