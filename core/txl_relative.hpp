// txl_relative.hpp: Transformer-XL's relative attention score (Dai et al. 2019, "Transformer-XL:
// Attentive Language Models Beyond a Fixed-Length Context", arXiv:1901.02860, section 3.3).
//
// FORMULA (before the 1/sqrt(d_head) scale), query i, key j, token embeddings E_x (d_model each):
//   A_ij = (a) E_xi^T Wq^T Wk,E E_xj        content
//        + (b) E_xi^T Wq^T Wk,R R_{i-j}     content-dependent position
//        + (c) u^T Wk,E E_xj                global content bias
//        + (d) v^T Wk,R R_{i-j}             global position bias
//   R_{i-j} is the relative sinusoid of the distance i - j, in the layout of kimiyoung/transformer-xl
//   pytorch/mem_transformer.py, PositionalEmbedding.forward:
//     inv_freq = 1 / 10000^(arange(0, d, 2) / d),  R(p) = cat(sin(p inv_freq), cos(p inv_freq))
//   (all sines first, then all cosines; not interleaved). RelPartialLearnableMultiHeadAttn computes
//   (a) + (c) as AC = (Wq E_xi + r_w_bias) . (Wk,E E_xj) and (b) + (d) as
//   BD = (Wq E_xi + r_r_bias) . (Wk,R R), so u = r_w_bias and v = r_r_bias live in the head space.
// SEEDED WEIGHTS
//   Wq, Wk,E, Wk,R (d_head x d_model), u, v (d_head) and the embeddings (positions x d_model) are
//   drawn from core/random's Rng: matrices N(0, 1/d_model) (unit-scale projections), the rest N(0, 1).
// LAYOUT
//   txlTermGrid: (4 T) x T, rows [t T, (t + 1) T) hold term t = a, b, c, d for query row i - t T, col
//   key j (the .npy (4, T, T)); txlSumGrid: T x T of a + b + c + d. Keys j > i are kept (no causal
//   mask): the relative sinusoid is defined for negative distances too.
// ERRORS
//   std::invalid_argument naming function and parameter: dims >= 1, d_model even for the sinusoid,
//   sizes that match, indices in range.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/grid.hpp"

namespace posviz {

// cat(sin(p inv_freq), cos(p inv_freq)), d entries (d even).
std::vector<double> txlRelativeSinusoid(double p, int d);

struct TxlWeights {
  int dModel = 0, dHead = 0;
  std::vector<double> wq, wkE, wkR;   // dHead x dModel, row-major
  std::vector<double> u, v;           // dHead
};
TxlWeights txlSeededWeights(int dModel, int dHead, std::uint64_t seed);
std::vector<double> txlSeededEmbeddings(int positions, int dModel, std::uint64_t seed);   // positions x dModel

using TxlTerms = std::array<double, 4>;   // (a), (b), (c), (d)
// The four terms for query i and key j; emb is positions x dModel.
TxlTerms txlTerms(const TxlWeights& w, const std::vector<double>& emb, int i, int j);
Grid txlTermGrid(const TxlWeights& w, const std::vector<double>& emb);
Grid txlSumGrid(const TxlWeights& w, const std::vector<double>& emb);

}  // namespace posviz
