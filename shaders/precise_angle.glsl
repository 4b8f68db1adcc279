// precise_angle.glsl: pos * theta reduced exactly enough for float32 sin/cos, shared by every
// kernel that turns a position into an angle.
//
// WHY
//   float32 pos * theta at pos = 131072 has an ulp of ~0.008 rad, so sin/cos of it would be off
//   by up to ~4e-3. Instead theta arrives as a two-float (hi + lo = core's float64 inverse
//   frequency to ~48 bits), the product is formed as a two-float with error-free transforms
//   (Dekker's split product, Knuth's two-sum), and the multiple of pi/2 is removed with a
//   three-float pi/2 (Cody-Waite). What is left lies in [-pi/4, pi/4] with an absolute error
//   below 1e-8 for pos * theta < 2^30, and sin/cos of it come from Cephes' sinf/cosf
//   polynomials (~1e-7), not from the builtins, whose GLSL error bound is only 2^-11.
//   `precise` keeps the compiler from reassociating or fusing the transforms, which would
//   silently drop their error terms.
//
// UNITS
//   Positions are integers < 2^24 (exact in float32), angles in radians.

// pi/2 = kHalfPi1 + kHalfPi2 + kHalfPi3, and 2/pi, as exact float bit patterns.
const float kHalfPi1 = uintBitsToFloat(0x3fc90fdbu);  //  1.5707963705062866
const float kHalfPi2 = uintBitsToFloat(0xb33bbd2eu);  // -4.371138828673793e-08
const float kHalfPi3 = uintBitsToFloat(0xa6f72cedu);  // -1.7151245100058819e-15
const float kTwoOverPi = uintBitsToFloat(0x3f22f983u);  // 0.6366197466850281
const float kTwoPiFloat = uintBitsToFloat(0x40c90fdbu); // float32(2 pi), rounds up past 2 pi

// s + e == a + b exactly (Knuth).
vec2 twoSum(float a, float b) {
  precise float s = a + b;
  precise float bv = s - a;
  precise float av = s - bv;
  precise float e = (a - av) + (b - bv);
  return vec2(s, e);
}

// s + e == a + b exactly when |a| >= |b| (Dekker).
vec2 quickTwoSum(float a, float b) {
  precise float s = a + b;
  precise float e = b - (s - a);
  return vec2(s, e);
}

// hi + lo == a, each with at most 12 significant bits (Veltkamp).
vec2 splitFloat(float a) {
  precise float c = 4097.0 * a;
  precise float hi = c - (c - a);
  precise float lo = a - hi;
  return vec2(hi, lo);
}

// p + e == a * b exactly (Dekker). No fma: GLSL lets fma() round twice.
vec2 twoProd(float a, float b) {
  precise vec2 as = splitFloat(a);
  precise vec2 bs = splitFloat(b);
  precise float p = a * b;
  precise float e = ((as.x * bs.x - p) + as.x * bs.y + as.y * bs.x) + as.y * bs.y;
  return vec2(p, e);
}

// Two-float sum, ~2^-44 relative.
vec2 dfAdd(vec2 a, vec2 b) {
  precise vec2 s = twoSum(a.x, b.x);
  precise vec2 t = twoSum(a.y, b.y);
  precise float e = s.y + t.x;
  precise vec2 u = quickTwoSum(s.x, e);
  precise float f = u.y + t.y;
  return quickTwoSum(u.x, f);
}

// x * (hi + lo) for an exact float x, as a two-float.
vec2 dfMulFloat(vec2 theta, float x) {
  precise vec2 p = twoProd(x, theta.x);
  precise float e = p.y + x * theta.y;
  return quickTwoSum(p.x, e);
}

// x - k * pi/2 for an integer-valued float k.
vec2 subtractQuarterTurns(vec2 x, float k) {
  precise vec2 a = twoProd(k, kHalfPi1);
  precise vec2 b = twoProd(k, kHalfPi2);
  precise vec2 r = dfAdd(x, vec2(-a.x, -a.y));
  r = dfAdd(r, vec2(-b.x, -b.y));
  precise float c = k * kHalfPi3;
  return dfAdd(r, vec2(-c, 0.0));
}

// The angle pos * theta as a two-float; theta = (hi, lo) from core's float64 frequency.
vec2 preciseAngle(uint pos, vec2 theta) {
  return dfMulFloat(theta, float(pos));
}

// angle = quadrant * pi/2 + r with r in [-pi/4, pi/4] and quadrant in 0..3. Two passes: the
// first k can be a few units off (its float product), the second is exact.
float reduceQuarterTurns(vec2 angle, out int quadrant) {
  precise float k1 = round(angle.x * kTwoOverPi);
  precise vec2 r = subtractQuarterTurns(angle, k1);
  precise float k2 = round(r.x * kTwoOverPi);
  r = subtractQuarterTurns(r, k2);
  quadrant = (int(mod(k1, 4.0)) + int(k2) + 8) & 3;
  return r.x + r.y;
}

// Cephes sinf/cosf kernels, |x| <= pi/4, ~1e-7 absolute.
float sinKernel(float x) {
  float z = x * x;
  return ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * x + x;
}
float cosKernel(float x) {
  float z = x * x;
  return ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z - 0.5 * z + 1.0;
}

// (sin, cos) of a two-float angle.
vec2 preciseSinCos(vec2 angle) {
  int quadrant;
  float r = reduceQuarterTurns(angle, quadrant);
  float s = sinKernel(r);
  float c = cosKernel(r);
  if (quadrant == 0) return vec2(s, c);
  if (quadrant == 1) return vec2(c, -s);
  if (quadrant == 2) return vec2(-s, -c);
  return vec2(-c, s);
}

// The angle wrapped into [0, 2 pi) as core's ropeAngleGrid does it, including its rule that a
// value rounding up to float32(2 pi) is the angle 0.
float wrapTwoPi(vec2 angle) {
  int quadrant;
  float r = reduceQuarterTurns(angle, quadrant);
  precise vec2 turns = dfMulFloat(vec2(kHalfPi1, kHalfPi2), float(quadrant));
  precise vec2 a = dfAdd(turns, vec2(r, 0.0));
  if (a.x < 0.0) a = dfAdd(a, vec2(4.0 * kHalfPi1, 4.0 * kHalfPi2));
  float v = a.x + a.y;
  return v >= kTwoPiFloat ? 0.0 : v;
}
