// xpos.hpp: xPos, RoPE with a per-pair exponential scale (Sun et al. 2022, "A Length-
// Extrapolatable Transformer", arXiv:2212.10554).
//
// FORMULA (torchscale, torchscale/component/xpos_relative_position.py, class XPOS)
//   zeta_i = (2i + 0.4 d) / (1.4 d) = (2i/d + 0.4) / 1.4,  i = 0 .. d/2 - 1   (each in [0.2857, 1))
//   query at position n: pair i rotated as RoPE and multiplied by zeta_i^( n / scaleBase)
//   key   at position m: pair i rotated as RoPE and multiplied by zeta_i^(-m / scaleBase)
//   so a query-key product over pair i carries zeta_i^((n - m) / scaleBase): the further back
//   the key, the smaller its weight, on top of RoPE's rotation. torchscale centres n on the
//   middle of the sequence (positions -L/2 .. L/2) to keep the factors near 1 in float16; the
//   product, and so every score, is the same.
// KEY SIDE / TORCHSCALE'S POSITIONS (XPOS.forward(x, offset=0, downscale=False))
//   The key side is the same table with downscale=True: scale = 1 / zeta^(n / scale_base). The
//   positions run from min_pos = -(length + offset) // 2 (Python's floor division) to
//   length + offset + min_pos - 1, of which the last `length` rows are kept: a 5-token call
//   scales by n = -3 .. 1 (the rotation itself still uses 0 .. 4). So query and key factors
//   stay within zeta^(+-L/(2 scale_base)) instead of growing to zeta^(-L/scale_base).
// SCORE
//   s(n, m) = sum_i zeta_i^((n - m)/scaleBase) * [ (q_a k_a + q_b k_b) cos((n-m) theta_i)
//                                                 - (q_b k_a - q_a k_b) sin((n-m) theta_i) ]
//   with (a, b) the dims of pair i in the interleaved layout torchscale uses (2i, 2i + 1) and
//   theta_i = base^(-2i/d), as core/rope.hpp's interleaved RoPE.
// UNITS / LAYOUT
//   positions in tokens; scale grids row = position n, col = pair i.
// ERRORS
//   std::invalid_argument naming function and parameter: headDim even >= 2, scaleBase > 0,
//   base > 1, vectors of headDim finite numbers.
#pragma once

#include <span>
#include <vector>

#include "core/grid.hpp"

namespace posviz {

struct XposParams {
  int headDim = 64;            // even, >= 2
  double base = 10000.0;       // RoPE base, > 1
  double scaleBase = 512.0;    // torchscale's scale_base, > 0
};

void validateXpos(const char* fn, const XposParams& p);
double xposZeta(const XposParams& p, int pair);                    // (2i/d + 0.4) / 1.4
double xposQueryScale(const XposParams& p, int pair, double pos);  // zeta^(pos / scaleBase)
double xposKeyScale(const XposParams& p, int pair, double pos);    // zeta^(-pos / scaleBase)
enum class XposSide { Query, Key };
const char* xposSideName(XposSide s);  // "query", "key"
// numPositions x headDim/2 scales of one side for positions firstPos, firstPos + 1, ... (any sign).
Grid xposScaleGrid(const XposParams& p, XposSide side, int numPositions, long long firstPos = 0);
// The first position torchscale scales a call of `length` tokens by: -(length + offset) // 2 + offset.
long long xposTorchscaleFirstPosition(long long length, long long offset = 0);
// s(n, m) for query q at n and key k at m (float64), as above.
double xposScore(const XposParams& p, std::span<const double> q, std::span<const double> k, double n, double m);
// s for n - m = 0 .. maxOffset, keys behind the query: the decay xPos adds to RoPE's curve.
std::vector<double> xposScoreByOffset(const XposParams& p, std::span<const double> q, std::span<const double> k,
                                      int maxOffset);

}  // namespace posviz
