// sinusoidal.hpp: the fixed sinusoidal position encoding of "Attention Is All You Need".
//
// FORMULA (interleaved, the paper and the documents' code)
//   omega_i      = base^(-2i/dModel)                       i = pair in [0, dModel/2)
//   PE(pos, 2i)   = sin(pos * omega_i)
//   PE(pos, 2i+1) = cos(pos * omega_i)
//   wavelength_i = 2*pi / omega_i = 2*pi * base^(2i/dModel)   (positions per full turn)
//   Vaswani et al. 2017, arXiv:1706.03762, section 3.5.
//
// FORMULA (Tensor2Tensor, get_timing_signal_1d)
//   n = dModel/2 timescales, log-spaced from minTimescale to maxTimescale (= base):
//   inv_timescale_i = minTimescale * exp(-i * log(maxTimescale/minTimescale) / max(n-1, 1))
//   PE(pos, i) = sin(pos * inv_timescale_i), PE(pos, n+i) = cos(pos * inv_timescale_i)
//   A block of sines then a block of cosines, and the spacing divides by n-1, not n: this is
//   not a column permutation of the interleaved matrix.
//
// OFFSET PROPERTY
//   For every k there is a block-diagonal M_k, independent of pos, with PE(pos+k) = M_k PE(pos).
//   Interleaved block for pair i: [[cos(k w), sin(k w)], [-sin(k w), cos(k w)]] acting on
//   (sin, cos). sinusoidalOffsetMatrix returns the full dModel x dModel matrix in the layout's
//   own dim order.
//
// LAYOUT / UNITS
//   Grids are positions x dModel, row-major float32; angles are computed in float64 and only the
//   result is rounded. Positions are token indices (>= 0), frequencies in rad/position.
#pragma once

#include <span>
#include <vector>

#include "core/grid.hpp"

namespace posviz {

// Halves: the paper's frequencies, all sines then all cosines (HF MarianSinusoidalPositionalEmbedding
// and Pegasus: out[:, :d/2] = sin, out[:, d/2:] = cos of pos / 10000^(2i/d)). A column permutation
// of Interleaved, unlike Tensor2Tensor.
enum class SinusoidalLayout { Interleaved, Tensor2Tensor, Halves };

struct SinusoidalParams {
  int dModel = 128;                                 // even, >= 2
  double base = 10000.0;                            // > 1; Tensor2Tensor: the max timescale
  SinusoidalLayout layout = SinusoidalLayout::Interleaved;
  double minTimescale = 1.0;                        // Tensor2Tensor only, > 0 and < base
  bool operator==(const SinusoidalParams&) const = default;
};

// Throws std::invalid_argument naming fn when p is invalid.
void validateSinusoidal(const char* fn, const SinusoidalParams& p);

double sinusoidalFrequency(const SinusoidalParams& p, int pair);   // omega_i, rad/position
double sinusoidalWavelength(const SinusoidalParams& p, int pair);  // 2*pi/omega_i, positions
int sinusoidalPairOfDim(const SinusoidalParams& p, int dim);       // which pair a dim belongs to
bool sinusoidalDimIsSin(const SinusoidalParams& p, int dim);       // sin (true) or cos (false)
double sinusoidalValue(const SinusoidalParams& p, double pos, int dim);   // float64, pos >= 0

// The per-pair and per-dim facts above for every pair and dim at once, p checked once: what a
// view of all d_model dims needs every time base or d_model moves (at d_model 4096, thousands of
// calls of the one-at-a-time functions). Each entry equals its one-at-a-time function's value.
struct SinusoidalTable {
  std::vector<double> frequency;    // per pair: sinusoidalFrequency
  std::vector<double> wavelength;   // per pair: sinusoidalWavelength
  std::vector<int> pairOfDim;       // per dim: sinusoidalPairOfDim
  std::vector<char> dimIsSin;       // per dim: sinusoidalDimIsSin (1 sin, 0 cos)
};
SinusoidalTable sinusoidalTable(const SinusoidalParams& p);
std::vector<double> sinusoidalVector(const SinusoidalParams& p, double pos);  // dModel values
// The same values from a table already built (a position drag reuses one table per params).
std::vector<double> sinusoidalVector(const SinusoidalTable& t, double pos);

// Rows firstPos .. firstPos+numPositions-1, all dModel columns.
Grid sinusoidalGrid(const SinusoidalParams& p, int numPositions, long long firstPos = 0);
// Same values into caller memory of numPositions * dModel floats.
void sinusoidalGridInto(const SinusoidalParams& p, int numPositions, long long firstPos, float* out);

// M_k (dModel x dModel, row-major, float64) with PE(pos+k) = M_k PE(pos). k may be negative.
std::vector<double> sinusoidalOffsetMatrix(const SinusoidalParams& p, double k);

// How well M_k carries pe to peK: max over rows r of |(M pe)_r - peK_r|, in float64. With
// pe = PE(pos) and peK = PE(pos + k) it is the rounding error of the identity PE(pos+k) = M_k PE(pos)
// (about 1e-15 per unit of |pos w|). mk is dModel x dModel row-major; throws unless
// pe.size() == peK.size() = dModel > 0 and mk.size() == dModel^2.
double sinusoidalOffsetResidual(std::span<const double> mk, std::span<const double> pe, std::span<const double> peK);

// PE(a) . PE(b) = sum_i cos((a-b) omega_i): depends only on a-b.
double sinusoidalSimilarity(const SinusoidalParams& p, double posA, double posB);
// numPositions x numPositions grid of PE(a).PE(b).
Grid sinusoidalSimilarityGrid(const SinusoidalParams& p, int numPositions);

}  // namespace posviz
