// floor_sum.hpp: sum_{i=0}^{n-1} floor((a i + b) / m), exactly, in 128-bit unsigned integers.
//
// FORMULA  the Euclid-like reduction of the AtCoder Library's floor_sum_unsigned (atcoder/math.hpp):
//          O(log m) steps. Every partial sum is <= the result, so nothing overflows while the
//          callers keep a n + b below 2^120 (exact_average.cpp, extrapolation.cpp do).
// UNITS    plain integers; m > 0.
#pragma once

#include <utility>

namespace posviz {

__extension__ typedef unsigned __int128 U128;

inline U128 floorSum(U128 n, U128 m, U128 a, U128 b) {
  U128 sum = 0;
  while (true) {
    if (a >= m) {
      sum += n * (n - 1) / 2 * (a / m);
      a %= m;
    }
    if (b >= m) {
      sum += n * (b / m);
      b %= m;
    }
    const U128 yMax = a * n + b;
    if (yMax < m) break;
    n = yMax / m;
    b = yMax % m;
    std::swap(m, a);
  }
  return sum;
}

}  // namespace posviz
