// rope_score.comp: the RoPE score grid s(m, n) = <R_m q, R_n k>, the second pass of
// ropeScoreGrid (rope_rotate.comp wrote R_t q and R_t k for every token t). O(T^2 headDim): one
// invocation per cell sums headDim products, Kahan-compensated (at headDim 128 within one ulp
// of core's float64 instead of ~8, at no measurable cost). Rotary dims carry attentionFactor
// each, so the rotary part of s scales by its square; pass-through dims add q.k unchanged.
// A plain loop: on Mesa llvmpipe it ran 2x faster than staging 16-row blocks of R q and R k
// in shared memory (2048^2 cells, headDim 128: 4.3 s vs 9.1 s), the caches already share rows.
// Output: row = query token m, col = key token n (of this tile).
layout(local_size_x = POSVIZ_LOCAL_SIZE, local_size_y = POSVIZ_LOCAL_SIZE) in;

layout(std430, binding = POSVIZ_BINDING_ROTATED_Q) readonly buffer RotatedQuery { float rotatedQ[]; };
layout(std430, binding = POSVIZ_BINDING_ROTATED_K) readonly buffer RotatedKey { float rotatedK[]; };
layout(r32f, binding = POSVIZ_IMAGE_OUTPUT) writeonly uniform image2D outTile;

uniform ivec2 tileOrigin;  // (row0, col0) of this tile in the whole grid
uniform ivec2 tileSize;    // (rows, cols) of this tile
uniform int headDim;

// s(m, n) for query token m and key token n (grid indices; positions firstPos + m, firstPos + n).
float ropeScore(int m, int n) {
  int qRow = m * headDim;
  int kRow = n * headDim;
  // Kahan-compensated: the plain float sum drifts by ~sqrt(headDim) ulps of |s|.
  precise float sum = 0.0;
  precise float carry = 0.0;
  for (int d = 0; d < headDim; ++d) {
    precise float y = rotatedQ[qRow + d] * rotatedK[kRow + d] - carry;
    precise float t = sum + y;
    carry = (t - sum) - y;
    sum = t;
  }
  return sum;
}

void main() {
  ivec2 local = ivec2(gl_GlobalInvocationID.yx);
  if (local.x >= tileSize.x || local.y >= tileSize.y) return;
  ivec2 cell = tileOrigin + local;
  imageStore(outTile, ivec2(local.y, local.x), vec4(ropeScore(cell.x, cell.y), 0.0, 0.0, 0.0));
}
