// fire.hpp: FIRE, functional interpolation for relative positions (Li et al. 2023, "Functional
// Interpolation for Relative Positions Improves Long Context Transformers", arXiv:2310.04418,
// section 3, eq. (2)-(4)).
//
// FORMULA (causal: query i attends to keys j <= i)
//   b(i, j) = f_theta( psi(i - j) / (psi(max(L, i)) + eps) ),   psi(x) = log(c x + 1)
//   The input is a relative distance normalised by the query's own position, so it lies in
//   [0, 1] for every sequence length; L (> 0) keeps short prefixes from being stretched, c (> 0)
//   sets how strongly psi compresses large distances. f_theta is a small learned MLP per head (here
//   one hidden layer: 1 -> hidden, ReLU, -> 1); c and L are learned too. eps = 1e-6 keeps the
//   normaliser off zero.
// DEFAULTS
//   The reference implementation's (the PyTorch FIRE module listed with the paper): c = 0.1
//   (init_c), L = 512 (init_L), 32 hidden units (mlp_width), eps = 1e-6. Every default in posviz
//   (the CLI's flags, the Relative tab, settings) is FireParams{} and kFireHidden.
// SEEDED WEIGHTS
//   No trained FIRE weights are published, so fireSeededMlp draws them as PyTorch's nn.Linear
//   initialises a layer (weights and biases uniform in +-1/sqrt(fan_in): +-1 for the first layer,
//   +-1/sqrt(hidden) for the second) from core/random's Rng, the same on every machine.
// LAYOUT
//   numPositions x numPositions, row = query position i, col = key position j, j > i masked -inf.
// ERRORS
//   std::invalid_argument naming function and parameter: c > 0, L > 0, hidden >= 1, an MLP whose
//   vectors have one entry per hidden unit, finite.
#pragma once

#include <cstdint>
#include <vector>

#include "core/grid.hpp"

namespace posviz {

inline constexpr double kFireEpsilon = 1e-6;  // added to the normaliser psi(max(L, i))
inline constexpr int kFireHidden = 32;         // the MLP's hidden units by default

struct FireParams {
  double c = 0.1;            // psi(x) = log(c x + 1), > 0
  double threshold = 512.0;  // L in psi(max(L, i)), > 0, in tokens
};

// f_theta(x) = b2 + sum_k w2[k] * max(0, w1[k] x + b1[k]).
struct FireMlp {
  std::vector<double> w1, b1, w2;   // one entry per hidden unit
  double b2 = 0.0;
};

void validateFire(const char* fn, const FireParams& p);
FireMlp fireSeededMlp(int hidden, std::uint64_t seed);
double fireMlpEval(const FireMlp& f, double x);
// psi(i - j) / (psi(max(L, i)) + eps) for j <= i, in [0, 1).
double fireInput(const FireParams& p, long long i, long long j);
double fireBias(const FireParams& p, const FireMlp& f, long long i, long long j);   // -inf for j > i
Grid fireBiasGrid(const FireParams& p, const FireMlp& f, int numPositions);

}  // namespace posviz
