// elementwise.hpp: the model's row-wise loops: GELU and its derivative, softmax rows, LayerNorm.
//
// float: vectorised approximations, 8 lanes at a time (GCC vector extensions, with the same
//   x86-64-v3/v4 clones as matmul.hpp). exp: Cody-Waite reduction to |r| <= ln2/2, degree-7
//   Taylor polynomial, scaled by 2^n through the exponent bits (relative error below 2e-7; inputs
//   below -87 give e^-87). erf: Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7), whose
//   exp(-x^2) is also GELU's density, so the backward pass needs one exponential per value.
// double: std::erf and std::exp, for gradient checks and the PyTorch comparison.
#pragma once

#include <cstddef>

namespace posviz::train {

// g = u Phi(u) = u (1 + erf(u / sqrt 2)) / 2.
void geluForward(std::size_t n, const float* u, float* g);
void geluForward(std::size_t n, const double* u, double* g);
// du = dg (Phi(u) + u phi(u)); du may equal dg.
void geluBackward(std::size_t n, const float* u, const float* dg, float* du);
void geluBackward(std::size_t n, const double* u, const double* dg, double* du);
// row[0 .. count) = softmax(row * scale + bias) (bias may be null), count >= 1. float: row and bias
// must stay readable up to the next multiple of 8 past count (kSoftmaxSlack more floats at a
// buffer's end); those lanes keep their values.
inline constexpr int kSoftmaxSlack = 8;
void softmaxRow(float* row, int count, float scale, const float* bias);
void softmaxRow(double* row, int count, double scale, const double* bias);

// LayerNorm of rows of d floats (model_detail.hpp's layerNormForward/Backward), 8 lanes at a time;
// false (nothing done) unless d is a multiple of 8.
bool layerNormForward(int rows, int d, const float* x, const float* w, const float* b, float* xhat, float* h, float* rstd, float eps);
bool layerNormBackward(int rows, int d, const float* dh, const float* xhat, const float* rstd, const float* w, float* dx, float* dw, float* db);

}  // namespace posviz::train
