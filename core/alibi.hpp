// alibi.hpp: attention with linear biases (Press et al. 2022, arXiv:2108.12409).
//
// SLOPES (the paper's get_slopes)
//   numHeads a power of two n: m_h = 2^(-8h/n), h = 1..n (geometric from 2^(-8/n)).
//   Otherwise: with p = the largest power of two below numHeads, the p slopes of p heads,
//   followed by every other slope of 2p heads (the 1st, 3rd, 5th, ...) until numHeads slopes.
//   For 12 heads: the 8-head slopes 1/2 .. 1/256, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
//
// BIAS (added to q.k/sqrt(d) before softmax)
//   symmetric: B_h(i, j) = -m_h * |i - j|
//   causal:    B_h(i, j) = -m_h * (i - j) for j <= i, and -inf (masked) for j > i.
//
// LAYOUT
//   One grid per head, numPositions x numPositions, row = query position i, col = key position j.
#pragma once

#include <vector>

#include "core/grid.hpp"

namespace posviz {

std::vector<double> alibiSlopes(int numHeads);  // numHeads >= 1
double alibiBias(double slope, long long i, long long j, bool causal);  // -inf when masked
Grid alibiBiasGrid(double slope, int numPositions, bool causal);
void alibiBiasGridInto(double slope, int numPositions, bool causal, float* out);
// All heads: numHeads * numPositions * numPositions floats, head-major (heads, i, j).
std::vector<float> alibiBiasVolume(int numHeads, int numPositions, bool causal);

}  // namespace posviz
