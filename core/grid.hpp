// grid.hpp: the one result type of posviz_core, and the memory budget every grid obeys.
//
// LAYOUT
//   Grid is row-major float32: values[row * cols + col]. Rows are positions (or query
//   positions, or heads), cols are dims (or pairs, or key positions). This is how ImPlot, a
//   std430 float[] and numpy's C order read it. Never a glm matrix (those are column-major).
//
// BUDGET
//   Every function that allocates a grid first calls requireBudget(); a request whose result
//   would exceed memoryBudgetBytes() throws std::invalid_argument giving the size it would need,
//   before anything is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace posviz {

struct Grid {
  int rows = 0;
  int cols = 0;
  std::vector<float> values;  // rows * cols, row-major

  Grid() = default;
  Grid(int r, int c) : rows(r), cols(c), values(static_cast<std::size_t>(r) * static_cast<std::size_t>(c), 0.0f) {}
  float at(int r, int c) const { return values[static_cast<std::size_t>(r) * cols + c]; }
  float& at(int r, int c) { return values[static_cast<std::size_t>(r) * cols + c]; }
  const float* row(int r) const { return values.data() + static_cast<std::size_t>(r) * cols; }
  float* row(int r) { return values.data() + static_cast<std::size_t>(r) * cols; }
  std::size_t size() const { return values.size(); }
};

// Finite min/max over a grid (non-finite cells, e.g. -inf masks, are skipped). {0,0} when empty.
struct ValueRange {
  float min = 0.0f;
  float max = 0.0f;
};
ValueRange finiteRange(const Grid& g);
ValueRange finiteRange(std::span<const double> values);   // the same over doubles, rounded to float

// Memory budget for one result, in bytes (default 8 GiB; this machine class has 24 GiB).
constexpr std::uint64_t kDefaultMemoryBudgetBytes = 8ull << 30;
std::uint64_t memoryBudgetBytes();
void setMemoryBudgetBytes(std::uint64_t bytes);  // > 0

// Throws std::invalid_argument "fn: a grid of R x C x float32 needs N MiB, over the memory
// budget of B MiB" when count * bytesPerElement exceeds the budget (or overflows).
void requireBudget(const char* fn, std::uint64_t count, std::uint64_t bytesPerElement, const std::string& what);

// Human-readable byte count: "512 B", "3.0 MiB", "1.50 GiB".
std::string formatBytes(std::uint64_t bytes);

}  // namespace posviz
