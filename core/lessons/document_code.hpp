// document_code.hpp: the documents' own code, transcribed, so the lessons can run it.
//
// WHAT
//   Each function restates one snippet of the articles' code line for line (PyTorch/NumPy semantics
//   on one vector, in float64), bugs included: the lessons compare it with core's reference and
//   report where it differs. inv_freq is 1 / base^(arange(0, d, 2) / d) in every snippet.
//
// LAYOUT
//   x: one vector of d = x.size() values (d even); pos in positions; the result has d values.
//
// ERRORS
//   std::invalid_argument naming the function: an odd or empty x, base <= 1, numHeads <= 0,
//   shapes that do not broadcast.
#pragma once

#include <vector>

namespace posviz {

// 004's RotaryPE.forward on one vector: cos/sin tables of d/2 columns tiled with
// repeat(1,1,1,2), then x*cos + rotate_interleaved(x)*sin. headDim even.
std::vector<double> doc004RotaryPe(const std::vector<double>& x, double pos, double base = 10000.0);
// 001's RotaryPositionalEmbedding: freqs cat([f, f]), x*cos + rotate_half(x)*sin.
std::vector<double> doc001RotaryPe(const std::vector<double>& x, double pos, double base = 10000.0);
// 003's ApplyRoPE: even/odd split, rotate, stack and flatten.
std::vector<double> doc003ApplyRope(const std::vector<double>& x, double pos, double base = 10000.0);
// 001's ALiBi slope rule 1 / 2^(8h/H), h = 1..H.
std::vector<double> doc001AlibiSlopes(int numHeads);
// 004's ALiBiBias: ratio = 2^(-(2^-(log2(H) - 3))), slopes ratio^h, h = 1..H.
std::vector<double> doc004AlibiSlopes(int numHeads);

// 001's SinusoidalPositionalEncoding (and 004's SinusoidalPE, the same code) row pos:
// div_term = exp(arange(0, d, 2) * (-log(10000) / d)); pe[2i] = sin(pos * div), pe[2i+1] = cos.
// d even (001 asserts it; 004 fails on an odd d: core/lessons/code_listings.hpp).
std::vector<double> doc001SinusoidalRow(double pos, int d);
// 002's SinusoidalPositionalEncoding row pos: div_term = 10000^(arange(0, d, 2) / d);
// pe[0::2] = sin(pos / div_term), pe[1::2] = cos(pos / div_term[:n_odd]): any d >= 1, odd too.
std::vector<double> doc002SinusoidalRow(double pos, int d);

// NumPy-style broadcast of two shapes (003's (2, 4, 8) + (4, 8)); throws std::invalid_argument
// when they do not broadcast.
std::vector<int> broadcastShapes(const std::vector<int>& a, const std::vector<int>& b);

}  // namespace posviz
