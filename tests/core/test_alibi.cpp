// Tests for core/alibi: Press et al.'s slopes, the document's 4-token bias matrix, causal masking.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/alibi.hpp"
#include "core/grid.hpp"

using namespace posviz;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

TEST_CASE("alibi: slopes for 8 heads are 1/2 .. 1/256 exactly") {
  const std::vector<double> s = alibiSlopes(8);
  REQUIRE(s.size() == 8);
  for (int h = 0; h < 8; ++h) {
    CAPTURE(h);
    CHECK(s[static_cast<std::size_t>(h)] == std::ldexp(1.0, -(h + 1)));
  }
}

TEST_CASE("alibi: slopes for 12 heads are the 8-head slopes then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5") {
  const std::vector<double> s = alibiSlopes(12);
  REQUIRE(s.size() == 12);
  for (int h = 0; h < 8; ++h) CHECK(s[static_cast<std::size_t>(h)] == std::ldexp(1.0, -(h + 1)));
  CHECK(s[8] == doctest::Approx(0.7071067811865476).epsilon(1e-15));
  CHECK(s[9] == doctest::Approx(0.3535533905932738).epsilon(1e-15));
  CHECK(s[10] == doctest::Approx(0.1767766952966369).epsilon(1e-15));
  CHECK(s[11] == doctest::Approx(0.08838834764831845).epsilon(1e-15));
}

TEST_CASE("alibi: other head counts follow get_slopes") {
  CHECK(alibiSlopes(1) == std::vector<double>{1.0 / 256});  // 2^(-8/1)
  const std::vector<double> two = alibiSlopes(2);
  CHECK(two == std::vector<double>{1.0 / 16, 1.0 / 256});
  // 3 heads: the 2-head slopes, then the first of 4 heads' [0::2] = 2^-2.
  CHECK(alibiSlopes(3) == std::vector<double>{1.0 / 16, 1.0 / 256, 0.25});
  // 16 heads: 2^(-h/2).
  const std::vector<double> s16 = alibiSlopes(16);
  for (int h = 0; h < 16; ++h) CHECK(s16[static_cast<std::size_t>(h)] == doctest::Approx(std::pow(2.0, -(h + 1) / 2.0)).epsilon(1e-15));
  // 24 heads: 16 heads' slopes then 32 heads' 1st, 3rd, ... : 2^(-8*(2k+1)/32).
  const std::vector<double> s24 = alibiSlopes(24);
  REQUIRE(s24.size() == 24);
  for (int k = 0; k < 8; ++k) CHECK(s24[static_cast<std::size_t>(16 + k)] == doctest::Approx(std::pow(2.0, -(2 * k + 1) / 4.0)).epsilon(1e-15));
  // Every slope is in (0, 1) and the first p are decreasing.
  for (int n = 1; n <= 40; ++n) {
    CAPTURE(n);
    const std::vector<double> s = alibiSlopes(n);
    REQUIRE(s.size() == static_cast<std::size_t>(n));
    for (double m : s) CHECK((m > 0.0 && m < 1.0));
  }
}

TEST_CASE("alibi: the 4-token bias with slope 0.5 is the document's matrix") {
  const double expected[4][4] = {{0, -0.5, -1.0, -1.5}, {-0.5, 0, -0.5, -1.0}, {-1.0, -0.5, 0, -0.5}, {-1.5, -1.0, -0.5, 0}};
  const Grid g = alibiBiasGrid(0.5, 4, false);
  REQUIRE(g.rows == 4);
  REQUIRE(g.cols == 4);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK(g.at(i, j) == static_cast<float>(expected[i][j]));
      CHECK(alibiBias(0.5, i, j, false) == expected[i][j]);
    }
  }
}

TEST_CASE("alibi: causal bias is -m(i-j) on and below the diagonal, -inf above") {
  const Grid g = alibiBiasGrid(0.25, 5, true);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      if (j > i) {
        CHECK(g.at(i, j) == -std::numeric_limits<float>::infinity());
        CHECK(alibiBias(0.25, i, j, true) == -kInf);
      } else {
        CHECK(g.at(i, j) == static_cast<float>(-0.25 * (i - j)));
        CHECK(alibiBias(0.25, i, j, true) == -0.25 * (i - j));
      }
    }
  }
  CHECK(alibiBias(0.5, 1000000, 3, true) == -0.5 * 999997);
}

TEST_CASE("alibi: the volume is head-major with each head's slope") {
  const int heads = 3, n = 4;
  const std::vector<float> v = alibiBiasVolume(heads, n, true);
  REQUIRE(v.size() == static_cast<std::size_t>(heads * n * n));
  const std::vector<double> s = alibiSlopes(heads);
  for (int h = 0; h < heads; ++h) {
    const Grid g = alibiBiasGrid(s[static_cast<std::size_t>(h)], n, true);
    for (int k = 0; k < n * n; ++k) CHECK(v[static_cast<std::size_t>(h * n * n + k)] == g.values[static_cast<std::size_t>(k)]);
  }
  std::vector<float> buf(16);
  alibiBiasGridInto(0.5, 4, false, buf.data());
  CHECK(buf == alibiBiasGrid(0.5, 4, false).values);
}

TEST_CASE("alibi: bad arguments and the budget") {
  CHECK_THROWS_WITH_AS(alibiSlopes(0), "alibiSlopes: numHeads must be > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(alibiSlopes(-3), "alibiSlopes: numHeads must be > 0, got -3", std::invalid_argument);
  CHECK_THROWS_WITH_AS(alibiSlopes(1 << 21), "alibiSlopes: numHeads must be <= 1048576, got 2097152", std::invalid_argument);
  CHECK_THROWS_WITH_AS(alibiBias(-0.5, 1, 0, false), "alibiBias: slope must be a finite number >= 0, got -0.5", std::invalid_argument);
  CHECK_THROWS_WITH_AS(alibiBias(std::nan(""), 1, 0, false), "alibiBias: slope must be a finite number >= 0, got nan", std::invalid_argument);
  CHECK_THROWS_WITH_AS(alibiBias(0.5, -1, 0, false), "alibiBias: i must be >= 0, got -1", std::invalid_argument);
  CHECK_THROWS_WITH_AS(alibiBias(0.5, 0, -2, false), "alibiBias: j must be >= 0, got -2", std::invalid_argument);
  CHECK_THROWS_WITH_AS(alibiBiasGrid(kInf, 4, false), "alibiBiasGrid: slope must be a finite number >= 0, got inf", std::invalid_argument);
  CHECK_THROWS_WITH_AS(alibiBiasGrid(0.5, 0, false), "alibiBiasGrid: numPositions must be > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(alibiBiasGridInto(0.5, 4, false, nullptr), "alibiBiasGridInto: out must not be null", std::invalid_argument);
  CHECK_THROWS_WITH_AS(alibiBiasVolume(0, 4, false), "alibiBiasVolume: numHeads must be > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(alibiBiasVolume(2, -1, false), "alibiBiasVolume: numPositions must be > 0, got -1", std::invalid_argument);
  const std::uint64_t saved = memoryBudgetBytes();
  setMemoryBudgetBytes(1 << 20);
  CHECK_THROWS_WITH_AS(alibiBiasGrid(0.5, 1024, false),
                       "alibiBiasGrid: a grid of 1024 x 1024 x float32 needs 4.0 MiB, over the memory budget of 1.0 MiB", std::invalid_argument);
  CHECK_THROWS_WITH_AS(alibiBiasVolume(8, 512, true),
                       "alibiBiasVolume: a volume of 8 x 512 x 512 x float32 needs 8.0 MiB, over the memory budget of 1.0 MiB", std::invalid_argument);
  setMemoryBudgetBytes(saved);
}
