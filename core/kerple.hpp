// kerple.hpp: KERPLE, kernelized relative positional biases (Chi et al. 2022, "KERPLE: Kernelized
// Relative Positional Embedding for Length Extrapolation", arXiv:2205.09921, section 4.2).
//
// FORMULA (the paper's two conditionally positive definite kernels, as biases on q.k)
//   log:    b(i, j) = -r1 * log(1 + r2 * |i - j|)        r1, r2 > 0
//   power:  b(i, j) = -r1 * |i - j|^r2                   r1 > 0, 0 < r2 <= 2
//   r1 and r2 are learned per head; power with r2 = 1 is ALiBi with slope r1.
// SOURCE
//   chijames/KERPLE, megatron/mpu/layers.py: ParallelKerpleLog.forward
//   (bias = -bias_p * log(1 + bias_a * diff): bias_p is r1, bias_a is r2) and
//   ParallelKerplePower.forward (bias = -bias_a * diff^bias_p, bias_p clamped to (0, 2]:
//   bias_a is r1, bias_p is r2), with diff = i - j below the diagonal (a causal decoder).
// LAYOUT
//   numPositions x numPositions, row = query position i, col = key position j.
//   symmetric: |i - j| everywhere; causal: j > i masked with -inf, as core/alibi.hpp.
// ERRORS
//   std::invalid_argument naming function and parameter: r1 > 0, r2 > 0 (power: <= 2), finite.
#pragma once

#include "core/grid.hpp"

namespace posviz {

enum class KerpleKernel { Log, Power };

struct KerpleParams {
  KerpleKernel kernel = KerpleKernel::Log;
  double r1 = 1.0;   // scale, > 0
  double r2 = 1.0;   // log: inside the log, > 0; power: the exponent, in (0, 2]
};

void validateKerple(const char* fn, const KerpleParams& p);
const char* kerpleKernelName(KerpleKernel k);   // "log" | "power"
double kerpleBias(const KerpleParams& p, long long i, long long j, bool causal);   // -inf when masked
Grid kerpleBiasGrid(const KerpleParams& p, int numPositions, bool causal);

}  // namespace posviz
