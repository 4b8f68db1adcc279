// angle.hpp: one definition of "an angle mod 2 pi".
//
// wrapAngle(a) is a reduced into [0, 2 pi): fmod(a, 2 pi), plus 2 pi when that is negative. Every
// picture, table and readout that shows an angle mod 2 pi uses it (RoPE, M-RoPE and 2-D RoPE angle
// grids, the kernels' phase walks, the panels' readouts), so they agree to the last bit. Inline:
// the kernels call it once per cell.
#pragma once

#include <cmath>

namespace posviz {

inline constexpr double kTwoPi = 6.283185307179586476925286766559;  // 2 pi, rounded to double

// fmod of a large angle is a long division bit by bit (45 ns at 1e6 rad, the kernels' restarts'
// whole cost). For 0 <= a < 2^52 the same number comes from the quotient: with q = floor(a / 2pi)
// (exact in a double), a - q 2pi is fmod's exact result, so one fma, which rounds only once,
// gives it without rounding. a / 2pi may round across an integer, so a result outside [0, 2pi)
// moves q by one and takes the fma again. Negative, huge or non-finite angles keep fmod.
inline double wrapAngle(double radians) {
  if (radians >= 0.0 && radians < 0x1p52) {
    double q = std::floor(radians / kTwoPi);
    double r = std::fma(-q, kTwoPi, radians);
    if (r < 0.0) {
      q -= 1.0;
      r = std::fma(-q, kTwoPi, radians);
    } else if (r >= kTwoPi) {
      q += 1.0;
      r = std::fma(-q, kTwoPi, radians);
    }
    return r;
  }
  const double r = std::fmod(radians, kTwoPi);
  return r < 0.0 ? r + kTwoPi : r;
}

}  // namespace posviz
