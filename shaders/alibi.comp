// alibi.comp: one ALiBi bias grid, the mirror of core's alibiBiasGrid (Press et al. 2022).
//   symmetric: B(i, j) = -slope * |i - j|; causal: -slope * (i - j) for j <= i, -inf for j > i.
// The slope arrives as (hi, lo) floats and the product is formed as a two-float, so the result
// is float32(-slope * dist) as core rounds it from float64, even where |B| is in the thousands.
// Row = query position i, col = key position j; distances are exact (< 2^24).
layout(local_size_x = POSVIZ_LOCAL_SIZE, local_size_y = POSVIZ_LOCAL_SIZE) in;

#include "precise_angle.glsl"

layout(r32f, binding = POSVIZ_IMAGE_OUTPUT) writeonly uniform image2D outTile;

uniform ivec2 tileOrigin;  // (row0, col0) of this tile in the whole grid
uniform ivec2 tileSize;    // (rows, cols) of this tile
uniform vec2 slope;        // (hi, lo), slope >= 0
uniform bool causal;

float alibiBias(int i, int j) {
  if (causal && j > i) return uintBitsToFloat(0xff800000u);  // IEEE -inf: masked
  int dist = causal ? i - j : abs(i - j);
  if (dist == 0) return 0.0;
  precise vec2 p = dfMulFloat(slope, float(dist));
  return -(p.x + p.y);
}

void main() {
  ivec2 local = ivec2(gl_GlobalInvocationID.yx);
  if (local.x >= tileSize.x || local.y >= tileSize.y) return;
  ivec2 cell = tileOrigin + local;
  imageStore(outTile, ivec2(local.y, local.x), vec4(alibiBias(cell.x, cell.y), 0.0, 0.0, 0.0));
}
