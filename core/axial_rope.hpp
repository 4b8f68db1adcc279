// axial_rope.hpp: 2-D axial RoPE for image patches (Heo et al. 2024, "Rotary Position Embedding
// for Vision Transformer", arXiv:2403.13298, section 3.2 "Axial frequency").
//
// FORMULA (naver-ai/rope-vit, models/vit_rope.py: init_t_xy, compute_axial_cis)
//   A grid of rows x cols patches; patch t = row * cols + col has x = t % cols (its column) and
//   y = t // cols (its row). With D = headDim (divisible by 4) and f_j = base^(-4j / D),
//   j = 0 .. D/4 - 1:
//     pair i <  D/4 rotates by x * f_i            (half of the pairs follow the column)
//     pair i >= D/4 rotates by y * f_{i - D/4}    (the other half follow the row)
//   Pairs are adjacent dims (2i, 2i + 1), as torch.view_as_complex pairs them. rope-vit's
//   default base (theta) is 100.
// SCORE
//   For q at patch (r1, c1) and k at patch (r2, c2), pair i of q = (a, b), of k = (c, e):
//     <R q, R k> = sum_i (ac + be) cos(delta_i) + (ae - bc) sin(delta_i),
//   delta_i = (c1 - c2) f_i for column pairs and (r1 - r2) f_{i - D/4} for row pairs: the score
//   depends on the row and column offsets only, each axis on its own half of the pairs.
// PIXTRAL (HF transformers d6a6c826, models/pixtral/modeling_pixtral.py:
// PixtralRotaryEmbedding.compute_default_rope_parameters, position_ids_in_meshgrid, rotate_half)
//   The same idea with three differences. With g_k = base^(-2k/D), k = 0 .. D/2 - 1 (Llama's
//   frequencies):
//     pair i <  D/4 rotates by row * g_{2i}                (freqs[::2]: the row comes first)
//     pair i >= D/4 rotates by col * g_{2(i - D/4) + 1}    (freqs[1::2]: the column's are the odd
//                                                            ones, each a little slower)
//   and pair i is dims (i, i + D/2), as rotate_half pairs them. Pixtral's base is rope_theta,
//   10000; its grid is image_size / patch_size patches a side (1024 / 16 = 64).
// LAYOUT / UNITS
//   Angle grid: rows = patches (row-major, t = row * cols + col), cols = pairs, radians mod 2 pi
//   in [0, 2 pi). Offset-score grid: (2 rows - 1) x (2 cols - 1), entry (dr + rows - 1,
//   dc + cols - 1) for dr = r1 - r2, dc = c1 - c2.
// ERRORS
//   std::invalid_argument naming function, parameter and value: headDim not a positive multiple
//   of 4, base <= 1 or not finite, rows or cols < 1, q or k not headDim long, results over the
//   memory budget.
#pragma once

#include <span>
#include <vector>

#include "core/grid.hpp"

namespace posviz {

enum class AxialRopeVariant { RopeVit, Pixtral };
const char* axialRopeVariantName(AxialRopeVariant v);  // "rope-vit", "pixtral"

struct AxialRopeParams {
  int headDim = 64;     // D, a multiple of 4
  double base = 100.0;  // rope-vit's theta
  AxialRopeVariant variant = AxialRopeVariant::RopeVit;
};

// What pair i of a variant does: the axis it follows, its frequency, and its two dims.
struct AxialPair {
  bool byRow = false;
  double freq = 0.0;
  int dimA = 0, dimB = 0;
};
std::vector<AxialPair> axialRopePairs(const AxialRopeParams& p);

void validateAxialRope(const char* fn, const AxialRopeParams& p);


// Angle of pair i (0 .. D/2 - 1) for a patch at (row, col), not reduced.
double axialRopeAngle(const AxialRopeParams& p, int pair, double row, double col);

// (rows * cols) x (D/2) angles mod 2 pi.
Grid axialRopeAngleGrid(const AxialRopeParams& p, int rows, int cols);

// <R(r1, c1) q, R(r2, c2) k> for row offset dr = r1 - r2 and column offset dc = c1 - c2.
double axialRopeScore(const AxialRopeParams& p, std::span<const float> q, std::span<const float> k, double dr, double dc);

// The score for every offset between two patches of a rows x cols grid.
Grid axialRopeOffsetScores(const AxialRopeParams& p, std::span<const float> q, std::span<const float> k, int rows, int cols);

}  // namespace posviz
