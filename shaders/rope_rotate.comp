// rope_rotate.comp: q and k rotated to every position of a score grid, the first pass of
// ropeScoreGrid. Mirrors core's ropeRotate:
//   pair i with dims (a, b) (HalfSplit: (i, i + numPairs), Interleaved: (2i, 2i + 1)):
//   a' = (a cos - b sin) * attentionFactor, b' = (a sin + b cos) * attentionFactor;
//   dims past the rotary dims (partial rotary) pass through unchanged.
// Invocation (x, y) = (slot, token): slot < numPairs rotates pair slot, a slot past them copies
// two pass-through dims. Output rows are token-major: rotated[token * headDim + dim].
layout(local_size_x = POSVIZ_LOCAL_SIZE, local_size_y = POSVIZ_LOCAL_SIZE) in;

#include "precise_angle.glsl"

layout(std430, binding = POSVIZ_BINDING_FREQUENCIES) readonly buffer Frequencies { vec2 invFreq[]; };
layout(std430, binding = POSVIZ_BINDING_Q) readonly buffer Query { float q[]; };
layout(std430, binding = POSVIZ_BINDING_K) readonly buffer Key { float k[]; };
layout(std430, binding = POSVIZ_BINDING_ROTATED_Q) writeonly buffer RotatedQuery { float rotatedQ[]; };
layout(std430, binding = POSVIZ_BINDING_ROTATED_K) writeonly buffer RotatedKey { float rotatedK[]; };

uniform int numTokens;
uniform uint firstPos;          // position of token 0
uniform int headDim;
uniform int numPairs;           // rotary dims / 2
uniform int ropeLayout;         // 0 HalfSplit, 1 Interleaved
uniform float attentionFactor;

ivec2 ropePairDims(int pair) { return ropeLayout == 0 ? ivec2(pair, pair + numPairs) : ivec2(2 * pair, 2 * pair + 1); }

// (a, b) rotated by the angle of pair at pos, times the attention factor.
vec2 ropeRotate(vec2 ab, uint pos, int pair) {
  vec2 sc = preciseSinCos(preciseAngle(pos, invFreq[pair]));
  return vec2(ab.x * sc.y - ab.y * sc.x, ab.x * sc.x + ab.y * sc.y) * attentionFactor;
}

void main() {
  int slot = int(gl_GlobalInvocationID.x);
  int token = int(gl_GlobalInvocationID.y);
  if (token >= numTokens || slot >= headDim / 2) return;
  int row = token * headDim;
  if (slot < numPairs) {
    ivec2 d = ropePairDims(slot);
    uint pos = firstPos + uint(token);
    vec2 rq = ropeRotate(vec2(q[d.x], q[d.y]), pos, slot);
    vec2 rk = ropeRotate(vec2(k[d.x], k[d.y]), pos, slot);
    rotatedQ[row + d.x] = rq.x;
    rotatedQ[row + d.y] = rq.y;
    rotatedK[row + d.x] = rk.x;
    rotatedK[row + d.y] = rk.y;
  } else {
    int dim = 2 * numPairs + 2 * (slot - numPairs);
    rotatedQ[row + dim] = q[dim];
    rotatedQ[row + dim + 1] = q[dim + 1];
    rotatedK[row + dim] = k[dim];
    rotatedK[row + dim + 1] = k[dim + 1];
  }
}
