// fast_trig.hpp: sin/cos that vectorize, for the grid kernels (core/kernels.hpp).
//
// TWO TOOLS
//   sinCos(x)     float64 sin and cos of one angle without a libm call and without branches in
//                 the common range, so a loop over pairs vectorizes. Cody-Waite reduction by
//                 pi/2 in three parts (fdlibm's split), then fdlibm's degree-13/14 kernels on
//                 |r| <= pi/4. Within 2 ulp of std::sin/std::cos for |x| <= kSinCosFastLimit;
//                 beyond it falls back to std::sin/std::cos.
//   SinCosRotor   the angle-addition recurrence for a position sweep: with (s, c) = (sin, cos)
//                 of p*w, the next position is (s cw + c sw, c cw - s sw) with (sw, cw) =
//                 (sin, cos) of w. Six float64 operations per step instead of two libm calls.
//                 Each step adds about 2 ulp of rounding, so the kernels restart it from sinCos
//                 at every position that is a multiple of kRotorRestart (and step up to a
//                 window's first position from the multiple below it): the error stays below
//                 1e-13, far inside the 1e-6 promised for float32 grids, and the value at a
//                 position never depends on where a window or a thread's block starts.
//
// UNITS
//   Radians. Angles are pos * omega computed in float64, as core computes them.
#pragma once

#include <cmath>

namespace posviz::fasttrig {

// Past this |x| the three-part reduction loses bits (k * pio2_1 stops being exact).
constexpr double kSinCosFastLimit = 1048576.0 * 1.5707963267948966;  // 2^20 * pi/2

// Positions between restarts of a rotor from exact values (see the header comment).
constexpr int kRotorRestart = 256;

// The restart at or below pos (pos may be negative).
constexpr long long rotorRestartBase(long long pos) {
  const long long q = pos / kRotorRestart - (pos % kRotorRestart < 0 ? 1 : 0);
  return q * kRotorRestart;
}

struct SinCos {
  double s;
  double c;
};

// Polynomials of fdlibm's __kernel_sin / __kernel_cos on [-pi/4, pi/4].
inline double sinKernel(double r) {
  constexpr double s1 = -1.66666666666666324348e-01, s2 = 8.33333333332248946124e-03,
                   s3 = -1.98412698298579493134e-04, s4 = 2.75573137070700676789e-06,
                   s5 = -2.50507602534068634195e-08, s6 = 1.58969099521155010221e-10;
  const double z = r * r;
  return r + r * z * (s1 + z * (s2 + z * (s3 + z * (s4 + z * (s5 + z * s6)))));
}

inline double cosKernel(double r) {
  constexpr double c1 = 4.16666666666666019037e-02, c2 = -1.38888888888741095749e-03,
                   c3 = 2.48015872894767294178e-05, c4 = -2.75573143513906633035e-07,
                   c5 = 2.08757232129817482790e-09, c6 = -1.13596475577881948265e-11;
  const double z = r * r;
  const double hz = 0.5 * z;
  const double w = 1.0 - hz;
  // fdlibm's compensation: w + ((1 - w) - hz) recovers the bits lost in 1 - hz.
  return w + (((1.0 - w) - hz) + z * z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * c6))))));
}

// sin and cos of x, branch-free (selects, not jumps) for |x| <= kSinCosFastLimit.
inline SinCos sinCos(double x) {
  if (!(std::fabs(x) <= kSinCosFastLimit)) return {std::sin(x), std::cos(x)};
  constexpr double invPio2 = 6.36619772367581382433e-01;
  constexpr double pio2a = 1.57079632673412561417e+00;  // first 33 bits of pi/2
  constexpr double pio2b = 6.07710050630396597660e-11;  // next 33 bits
  constexpr double pio2c = 2.02226624871116645580e-21;  // the rest
  const double k = std::nearbyint(x * invPio2);
  const double r = ((x - k * pio2a) - k * pio2b) - k * pio2c;
  const double sr = sinKernel(r);
  const double cr = cosKernel(r);
  // Quadrant q = k mod 4: (sin, cos) = (sr, cr), (cr, -sr), (-sr, -cr), (-cr, sr).
  const long long q = static_cast<long long>(k) & 3;
  const double s = (q & 1) ? cr : sr;
  const double c = (q & 1) ? sr : cr;
  const double sSign = (q & 2) ? -1.0 : 1.0;
  const double cSign = ((q + 1) & 2) ? -1.0 : 1.0;
  return {s * sSign, c * cSign};
}

// Sweep of sin/cos(p * w) over consecutive p, one step per call to next().
struct SinCosRotor {
  double s = 0.0, c = 1.0;    // sin, cos of the current angle
  double sw = 0.0, cw = 1.0;  // sin, cos of the step w

  SinCosRotor() = default;
  SinCosRotor(double startAngle, double step) {
    const SinCos a = sinCos(startAngle);
    const SinCos b = sinCos(step);
    s = a.s;
    c = a.c;
    sw = b.s;
    cw = b.c;
  }
  void next() {
    const double ns = s * cw + c * sw;
    const double nc = c * cw - s * sw;
    s = ns;
    c = nc;
  }
};

}  // namespace posviz::fasttrig
