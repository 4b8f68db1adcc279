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

inline double wrapAngle(double radians) {
  const double r = std::fmod(radians, kTwoPi);
  return r < 0.0 ? r + kTwoPi : r;
}

}  // namespace posviz
