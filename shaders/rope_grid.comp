// rope_grid.comp: RoPE angle / cos / sin grids (positions x pairs), the mirror of core's
// ropeAngleGrid, ropeCosGrid and ropeSinGrid.
//   angle = pos * theta'_pair with theta' core's scaled inverse frequencies (computeRopeFrequencies:
//   every scaling method happens on the CPU in float64 and arrives here as (hi, lo) floats).
//   kind 0: angle mod 2 pi in [0, 2 pi); kind 1: cos(angle) * attentionFactor; kind 2: sin.
layout(local_size_x = POSVIZ_LOCAL_SIZE, local_size_y = POSVIZ_LOCAL_SIZE) in;

#include "precise_angle.glsl"

layout(std430, binding = POSVIZ_BINDING_FREQUENCIES) readonly buffer Frequencies { vec2 invFreq[]; };
layout(r32f, binding = POSVIZ_IMAGE_OUTPUT) writeonly uniform image2D outTile;

uniform ivec2 tileOrigin;       // (row0, col0) of this tile in the whole grid
uniform ivec2 tileSize;         // (rows, cols) of this tile
uniform uint firstPos;          // position of grid row 0
uniform int kind;               // 0 angle, 1 cos, 2 sin
uniform float attentionFactor;  // core's RopeFrequencies::attentionFactor

// pos * theta'_pair, radians, not wrapped (a two-float).
vec2 ropeAngle(uint pos, int pair) { return preciseAngle(pos, invFreq[pair]); }

void main() {
  ivec2 local = ivec2(gl_GlobalInvocationID.yx);
  if (local.x >= tileSize.x || local.y >= tileSize.y) return;
  ivec2 cell = tileOrigin + local;
  vec2 angle = ropeAngle(firstPos + uint(cell.x), cell.y);
  float v;
  if (kind == 0) {
    v = wrapTwoPi(angle);
  } else {
    vec2 sc = preciseSinCos(angle);
    v = (kind == 1 ? sc.y : sc.x) * attentionFactor;
  }
  imageStore(outTile, ivec2(local.y, local.x), vec4(v, 0.0, 0.0, 0.0));
}
