#include <doctest/doctest.h>

#include <limits>

#include "core/alibi.hpp"
#include "gpu_test_support.hpp"

using namespace posviz;
using namespace posviz::gpu;

TEST_SUITE("gpu") {

TEST_CASE("gpu: alibi bias grids match core, symmetric and causal, masks exactly -inf") {
  POSVIZ_REQUIRE_GPU(gpu);
  // 12 heads: powers of two (exact products) and 2^-0.5 .. 2^-3.5 (rounded ones).
  const std::vector<double> slopes = alibiSlopes(12);
  const int sizes[] = {1, 17, 257};
  for (bool causal : {false, true}) {
    for (int n : sizes) {
      for (std::size_t h : {std::size_t{0}, std::size_t{7}, std::size_t{8}, std::size_t{11}}) {
        CAPTURE(causal);
        CAPTURE(n);
        CAPTURE(h);
        std::optional<GpuGrid> g = gpu->alibiBiasGrid(slopes[h], n, causal);
        REQUIRE_MESSAGE(g.has_value(), gpu->lastError());
        const Grid got = g->readBack();
        const Grid cpu = alibiBiasGrid(slopes[h], n, causal);
        const std::string kindName = causal ? "causal" : "symmetric";
        POSVIZ_CHECK_GRIDS_MATCH("alibi " << kindName << " slope " << slopes[h], got, cpu,
                                 false);
        int masked = 0, wrongMask = 0, notIdentical = 0;
        for (int i = 0; i < n; ++i) {
          for (int j = 0; j < n; ++j) {
            const float v = got.at(i, j);
            if (causal && j > i) {
              ++masked;
              if (!(v == -std::numeric_limits<float>::infinity())) ++wrongMask;
            } else if (v != cpu.at(i, j)) {
              ++notIdentical;
            }
          }
        }
        CHECK(masked == (causal ? n * (n - 1) / 2 : 0));
        CHECK(wrongMask == 0);
        // The two-float product rounds as core's float64 does: identical, not just close.
        CHECK(notIdentical == 0);
      }
    }
  }
}

TEST_CASE("gpu: alibi bias at 4096 positions keeps float32 exactness where |bias| is in the thousands") {
  POSVIZ_REQUIRE_GPU(gpu);
  // One ulp at |bias| ~ 2900 is ~2.4e-4, so only identical rounding meets 1e-4 there.
  const double slope = std::exp2(-0.5);
  const int n = 4096;
  std::optional<GpuGrid> g = gpu->alibiBiasGrid(slope, n, true);
  REQUIRE_MESSAGE(g.has_value(), gpu->lastError());
  const Grid got = g->readBack();
  const Grid cpu = alibiBiasGrid(slope, n, true);
  POSVIZ_CHECK_GRIDS_MATCH("alibi causal slope 2^-0.5", got, cpu, false);
  CHECK(got.at(n - 1, 0) == doctest::Approx(-slope * (n - 1)).epsilon(1e-7));
  CHECK(got.at(0, n - 1) == -std::numeric_limits<float>::infinity());
}

TEST_CASE("gpu: alibi rejects bad input exactly as core does") {
  POSVIZ_REQUIRE_GPU(gpu);
  CHECK_THROWS_WITH_AS(gpu->alibiBiasGrid(-0.5, 4, false), "alibiBiasGrid: slope must be a finite number >= 0, got -0.5",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(gpu->alibiBiasGrid(0.5, 0, false), "alibiBiasGrid: numPositions must be > 0, got 0",
                       std::invalid_argument);
  CHECK_THROWS_AS(alibiBiasGrid(-0.5, 4, false), std::invalid_argument);
}

}  // TEST_SUITE
