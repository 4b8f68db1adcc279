// Tests for core/grid: layout, finite range, the memory budget and byte formatting.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>
#include <stdexcept>

#include "core/grid.hpp"

using namespace posviz;

TEST_CASE("grid: row-major layout, values[row * cols + col]") {
  Grid g(2, 3);
  CHECK(g.size() == 6);
  g.at(1, 2) = 7.0f;
  g.at(0, 1) = -1.0f;
  CHECK(g.values[1 * 3 + 2] == 7.0f);
  CHECK(g.values[1] == -1.0f);
  CHECK(g.row(1)[2] == 7.0f);
  CHECK(g.row(1) == g.values.data() + 3);
}

TEST_CASE("grid: finiteRange skips -inf, +inf and NaN; empty is {0, 0}") {
  Grid g(1, 5);
  g.values = {-std::numeric_limits<float>::infinity(), 2.5f, std::numeric_limits<float>::quiet_NaN(), -1.25f,
              std::numeric_limits<float>::infinity()};
  const ValueRange r = finiteRange(g);
  CHECK(r.min == -1.25f);
  CHECK(r.max == 2.5f);
  const ValueRange e = finiteRange(Grid{});
  CHECK(e.min == 0.0f);
  CHECK(e.max == 0.0f);
  Grid allMasked(1, 2);
  allMasked.values = {-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()};
  CHECK(finiteRange(allMasked).min == 0.0f);
  CHECK(finiteRange(allMasked).max == 0.0f);
}

TEST_CASE("grid: finiteRange over doubles skips the same and rounds the ends to float") {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v{inf, 0.1, std::numeric_limits<double>::quiet_NaN(), -3.0000001, -inf, 7.5};
  const ValueRange r = finiteRange(v);
  CHECK(r.min == static_cast<float>(-3.0000001));
  CHECK(r.max == 7.5f);
  CHECK(finiteRange(std::vector<double>{}).min == 0.0f);
  CHECK(finiteRange(std::vector<double>{-inf, inf}).max == 0.0f);
}

TEST_CASE("grid: formatBytes picks the unit") {
  CHECK(formatBytes(512) == "512 B");
  CHECK(formatBytes(1023) == "1023 B");
  CHECK(formatBytes(1536) == "1.5 KiB");
  CHECK(formatBytes(3ull << 20) == "3.0 MiB");
  CHECK(formatBytes(3ull << 29) == "1.50 GiB");
}

TEST_CASE("grid: requireBudget throws over the budget and on overflow, naming the size") {
  const std::uint64_t saved = memoryBudgetBytes();
  CHECK(saved == kDefaultMemoryBudgetBytes);
  setMemoryBudgetBytes(1ull << 20);
  CHECK(memoryBudgetBytes() == (1ull << 20));
  CHECK_NOTHROW(requireBudget("f", 262144, 4, "a grid of 512 x 512 x float32"));  // exactly 1 MiB
  CHECK_THROWS_WITH_AS(requireBudget("f", 262145, 4, "x"), "f: x needs 1.0 MiB, over the memory budget of 1.0 MiB",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(requireBudget("f", 1ull << 20, 4, "a grid of 1024 x 1024 x float32"),
                       "f: a grid of 1024 x 1024 x float32 needs 4.0 MiB, over the memory budget of 1.0 MiB",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(requireBudget("f", std::numeric_limits<std::uint64_t>::max(), 8, "y"),
                       "f: y needs more than 16 EiB, over the memory budget of 1.0 MiB", std::invalid_argument);
  setMemoryBudgetBytes(saved);
  CHECK(memoryBudgetBytes() == saved);
  CHECK_THROWS_WITH_AS(setMemoryBudgetBytes(0), "setMemoryBudgetBytes: bytes must be > 0, got 0", std::invalid_argument);
  CHECK(memoryBudgetBytes() == saved);
}
