// KERPLE (core/kerple.hpp). Expected rows restate chijames/KERPLE, megatron/mpu/layers.py,
// ParallelKerpleLog.forward and ParallelKerplePower.forward (bias from the tril'd diff matrix),
// evaluated with torch 1.13 in float32 for 5 positions; the single values are worked by hand from
// the paper's kernels (Chi et al. 2022, arXiv:2205.09921, section 4.2).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/alibi.hpp"
#include "core/kerple.hpp"

using posviz::KerpleKernel;
using posviz::KerpleParams;

TEST_CASE("kerple: log and power kernels by hand") {
  // -2 * log(1 + 0.5 * 3) = -2 log 2.5
  CHECK(posviz::kerpleBias({KerpleKernel::Log, 2.0, 0.5}, 3, 0, false) == doctest::Approx(-1.8325814637483102).epsilon(1e-14));
  CHECK(posviz::kerpleBias({KerpleKernel::Log, 2.0, 0.5}, 0, 3, false) == doctest::Approx(-1.8325814637483102).epsilon(1e-14));
  // -0.5 * 4^1.5 = -4; the other side, -0.5 * 9^1.5 = -13.5
  CHECK(posviz::kerpleBias({KerpleKernel::Power, 0.5, 1.5}, 4, 0, false) == doctest::Approx(-4.0).epsilon(1e-14));
  CHECK(posviz::kerpleBias({KerpleKernel::Power, 0.5, 1.5}, 0, 9, false) == doctest::Approx(-13.5).epsilon(1e-14));
  CHECK(posviz::kerpleBias({KerpleKernel::Log, 2.0, 0.5}, 7, 7, false) == 0.0);
  CHECK_FALSE(std::signbit(posviz::kerpleBias({KerpleKernel::Power, 2.0, 0.5}, 7, 7, false)));   // +0, not -0
  CHECK(posviz::kerpleBias({KerpleKernel::Log, 2.0, 0.5}, 2, 3, true) == -std::numeric_limits<double>::infinity());
}

TEST_CASE("kerple: the causal grid's last row matches the reference's float32 bias") {
  const posviz::Grid logGrid = posviz::kerpleBiasGrid({KerpleKernel::Log, 1.3, 0.7}, 5, true);
  const double logRow[5] = {-1.7355014085769653, -1.4708226919174194, -1.1381093263626099, -0.6898167133331299, 0.0};
  // ParallelKerplePower: bias_p is the exponent (r2 = 1.5), bias_a the scale (r1 = 0.25).
  const posviz::Grid powGrid = posviz::kerpleBiasGrid({KerpleKernel::Power, 0.25, 1.5}, 5, true);
  const double powRow[5] = {-2.0, -1.299038052558899, -0.7071067690849304, -0.25, 0.0};
  for (int j = 0; j < 5; ++j) {
    CAPTURE(j);
    CHECK(logGrid.at(4, j) == doctest::Approx(logRow[j]).epsilon(1e-6));
    CHECK(powGrid.at(4, j) == doctest::Approx(powRow[j]).epsilon(1e-6));
  }
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      if (j > i) CHECK(logGrid.at(i, j) == -std::numeric_limits<float>::infinity());
      else CHECK(logGrid.at(i, j) == logGrid.at(4, 4 - (i - j)));   // a function of i - j only
    }
  }
}

TEST_CASE("kerple: power with r2 = 1 is ALiBi with slope r1, and the symmetric grid mirrors") {
  const posviz::Grid k = posviz::kerpleBiasGrid({KerpleKernel::Power, 0.25, 1.0}, 9, false);
  const posviz::Grid a = posviz::alibiBiasGrid(0.25, 9, false);
  CHECK(k.values == a.values);
  const posviz::Grid s = posviz::kerpleBiasGrid({KerpleKernel::Log, 1.0, 3.0}, 7, false);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 7; ++j) CHECK(s.at(i, j) == s.at(j, i));
  // The log kernel decays slower than any power: at distance 1000 it is still above -r1 log(3001).
  CHECK(posviz::kerpleBias({KerpleKernel::Log, 1.0, 3.0}, 1000, 0, false) == doctest::Approx(-std::log(3001.0)));
}

TEST_CASE("kerple: bad parameters name themselves") {
  CHECK_THROWS_WITH_AS(posviz::kerpleBias({KerpleKernel::Log, 0.0, 1.0}, 1, 0, false), doctest::Contains("kerpleBias: r1 must be"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::kerpleBias({KerpleKernel::Log, 1.0, -1.0}, 1, 0, false), doctest::Contains("kerpleBias: r2 must be"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::kerpleBiasGrid({KerpleKernel::Power, 1.0, 2.5}, 4, false),
                       doctest::Contains("kerpleBiasGrid: r2 must be in (0, 2] for the power kernel"), std::invalid_argument);
  CHECK_NOTHROW(posviz::kerpleBiasGrid({KerpleKernel::Log, 1.0, 2.5}, 4, false));   // log: any r2 > 0
  CHECK_THROWS_WITH_AS(posviz::kerpleBiasGrid({KerpleKernel::Log, 1.0, 1.0}, 0, false), doctest::Contains("numPositions"),
                       std::invalid_argument);
}
