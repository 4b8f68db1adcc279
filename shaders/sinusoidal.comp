// sinusoidal.comp: the sinusoidal PE matrix, the mirror of core's sinusoidalGrid.
//   PE(pos, dim) = sin or cos(pos * omega_pair), which pair and which function per layout:
//   Interleaved (layout 0): pair = dim / 2, sin at even dims. Tensor2Tensor (layout 1):
//   pair = dim % (dModel/2), sines in the first half. omega comes from core's
//   sinusoidalFrequency (float64, as (hi, lo)); nothing about the frequencies is recomputed here.
// Output: one R32F tile, row = position - firstPos - tileOrigin.x, col = dim - tileOrigin.y.
layout(local_size_x = POSVIZ_LOCAL_SIZE, local_size_y = POSVIZ_LOCAL_SIZE) in;

#include "precise_angle.glsl"

layout(std430, binding = POSVIZ_BINDING_FREQUENCIES) readonly buffer Frequencies { vec2 omega[]; };
layout(r32f, binding = POSVIZ_IMAGE_OUTPUT) writeonly uniform image2D outTile;

uniform ivec2 tileOrigin;  // (row0, col0) of this tile in the whole grid
uniform ivec2 tileSize;    // (rows, cols) of this tile
uniform uint firstPos;     // position of grid row 0
uniform int dModel;
uniform int sinusoidalLayout;  // 0 Interleaved, 1 Tensor2Tensor

int sinusoidalPairOfDim(int dim) { return sinusoidalLayout == 0 ? dim / 2 : dim % (dModel / 2); }
bool sinusoidalDimIsSin(int dim) { return sinusoidalLayout == 0 ? (dim % 2) == 0 : dim < dModel / 2; }

float sinusoidalValue(uint pos, int dim) {
  vec2 sc = preciseSinCos(preciseAngle(pos, omega[sinusoidalPairOfDim(dim)]));
  return sinusoidalDimIsSin(dim) ? sc.x : sc.y;
}

void main() {
  ivec2 local = ivec2(gl_GlobalInvocationID.yx);  // (row, col) inside the tile
  if (local.x >= tileSize.x || local.y >= tileSize.y) return;
  ivec2 cell = tileOrigin + local;
  float v = sinusoidalValue(firstPos + uint(cell.x), cell.y);
  imageStore(outTile, ivec2(local.y, local.x), vec4(v, 0.0, 0.0, 0.0));
}
