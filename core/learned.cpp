#include "core/learned.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/check.hpp"
#include "core/kernels.hpp"
#include "core/npy.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"

namespace posviz {

namespace {

void validateTable(const char* fn, const Grid& table) {
  requirePositiveInt(fn, "table.rows", table.rows);
  requirePositiveInt(fn, "table.cols", table.cols);
  const std::size_t want = static_cast<std::size_t>(table.rows) * static_cast<std::size_t>(table.cols);
  if (table.values.size() != want)
    failArgument(fn, "table.values must hold rows * cols = " + std::to_string(want) + " values, got " +
                         std::to_string(table.values.size()));
}

[[noreturn]] void noRow(const char* fn, long long pos, int rows) {
  throw std::out_of_range(std::string(fn) + ": pos " + std::to_string(pos) + " has no row: the table has max_len " +
                          std::to_string(rows) + " (rows 0.." + std::to_string(rows - 1) + ")");
}

}  // namespace

Grid learnedInit(int maxLen, int dModel, std::uint64_t seed, double stddev) {
  requirePositiveInt("learnedInit", "maxLen", maxLen);
  requirePositiveInt("learnedInit", "dModel", dModel);
  requireAtLeast("learnedInit", "stddev", stddev, 0.0);
  requireBudget("learnedInit", static_cast<std::uint64_t>(maxLen) * static_cast<std::uint64_t>(dModel), sizeof(float),
                "a grid of " + std::to_string(maxLen) + " x " + std::to_string(dModel) + " x float32");
  // Row-major draws: row t is the same for every maxLen > t with the same dModel and seed. Large
  // tables are drawn in pieces on several threads, each from its place in the one stream
  // (Rng::skipNormals): the same bits.
  Grid g(maxLen, dModel);
  const long long count = static_cast<long long>(g.values.size());
  const int threads = threadsForBytes(g.values.size() * sizeof(float), 0, std::size_t{8} << 20);
  parallelFor(count, threads, 1LL << 16, [&](long long begin, long long end) {
    Rng rng(seed);
    rng.skipNormals(static_cast<std::uint64_t>(begin));
    for (long long i = begin; i < end; ++i)
      g.values[static_cast<std::size_t>(i)] = static_cast<float>(rng.normal() * stddev);
  });
  return g;
}

void learnedInitRowsInto(int dModel, std::uint64_t seed, double stddev, long long rowBegin, long long rowEnd, float* out) {
  const char* fn = "learnedInitRowsInto";
  requirePositiveInt(fn, "dModel", dModel);
  requireAtLeast(fn, "stddev", stddev, 0.0);
  requireNonNegativeInt(fn, "rowBegin", rowBegin);
  if (rowEnd < rowBegin) failArgument(fn, "rowEnd must be >= rowBegin = " + std::to_string(rowBegin) + ", got " + std::to_string(rowEnd));
  if (rowEnd > std::numeric_limits<int>::max()) failArgument(fn, "rowEnd must be <= 2^31 - 1, got " + std::to_string(rowEnd));
  if (rowEnd > rowBegin && out == nullptr) failArgument(fn, "out must not be null");
  const auto first = static_cast<std::uint64_t>(rowBegin) * static_cast<std::uint64_t>(dModel);
  const auto count = static_cast<std::uint64_t>(rowEnd - rowBegin) * static_cast<std::uint64_t>(dModel);
  Rng rng(seed);
  rng.skipNormals(first);
  for (std::uint64_t i = 0; i < count; ++i) out[i] = static_cast<float>(rng.normal() * stddev);
}

float learnedInitCell(int dModel, std::uint64_t seed, double stddev, long long row, int col) {
  const char* fn = "learnedInitCell";
  requirePositiveInt(fn, "dModel", dModel);
  requireAtLeast(fn, "stddev", stddev, 0.0);
  requireNonNegativeInt(fn, "row", row);
  if (col < 0 || col >= dModel) failArgument(fn, "col must be in [0, " + std::to_string(dModel) + "), got " + std::to_string(col));
  const std::uint64_t index = static_cast<std::uint64_t>(row) * static_cast<std::uint64_t>(dModel) + static_cast<std::uint64_t>(col);
  Rng rng(seed);
  rng.skipNormals(index);
  return static_cast<float>(rng.normal() * stddev);
}

std::vector<float> learnedLookup(const Grid& table, long long pos) {
  validateTable("learnedLookup", table);
  requireNonNegativeInt("learnedLookup", "pos", pos);
  if (pos >= table.rows) noRow("learnedLookup", pos, table.rows);
  const float* r = table.row(static_cast<int>(pos));
  return std::vector<float>(r, r + table.cols);
}

double learnedRowNorm(const Grid& table, long long pos) {
  validateTable("learnedRowNorm", table);
  requireNonNegativeInt("learnedRowNorm", "pos", pos);
  if (pos >= table.rows) noRow("learnedRowNorm", pos, table.rows);
  const float* r = table.row(static_cast<int>(pos));
  double acc = 0.0;
  for (int c = 0; c < table.cols; ++c) acc += static_cast<double>(r[c]) * r[c];
  return std::sqrt(acc);
}

Grid learnedSimilarity(const Grid& table) {
  validateTable("learnedSimilarity", table);
  const auto n = static_cast<std::uint64_t>(table.rows);
  requireBudget("learnedSimilarity", n * n, sizeof(float),
                "a grid of " + std::to_string(table.rows) + " x " + std::to_string(table.rows) + " x float32");
  std::vector<double> norm(static_cast<std::size_t>(table.rows));
  for (int a = 0; a < table.rows; ++a) norm[static_cast<std::size_t>(a)] = learnedRowNorm(table, a);
  Grid out(table.rows, table.rows);
  for (int a = 0; a < table.rows; ++a) {
    const float* ra = table.row(a);
    for (int b = a; b < table.rows; ++b) {
      const float* rb = table.row(b);
      double dot = 0.0;
      for (int c = 0; c < table.cols; ++c) dot += static_cast<double>(ra[c]) * rb[c];
      const double lengths = norm[static_cast<std::size_t>(a)] * norm[static_cast<std::size_t>(b)];
      const float v = lengths > 0.0 ? static_cast<float>(dot / lengths) : 0.0f;
      out.at(a, b) = v;
      out.at(b, a) = v;
    }
  }
  return out;
}

Grid learnedSlice(const Grid& table, long long firstPos, int numPositions) {
  validateTable("learnedSlice", table);
  requireNonNegativeInt("learnedSlice", "firstPos", firstPos);
  requirePositiveInt("learnedSlice", "numPositions", numPositions);
  if (firstPos >= table.rows) noRow("learnedSlice", firstPos, table.rows);
  const long long last = firstPos + numPositions - 1;
  if (last >= table.rows) noRow("learnedSlice", last, table.rows);
  requireBudget("learnedSlice", static_cast<std::uint64_t>(numPositions) * static_cast<std::uint64_t>(table.cols),
                sizeof(float), "a grid of " + std::to_string(numPositions) + " x " + std::to_string(table.cols) + " x float32");
  Grid g(numPositions, table.cols);
  kernels::learnedLookupInto(table.values.data(), table.rows, table.cols, firstPos, numPositions, g.values.data());
  return g;
}

Grid loadLearnedTable(const std::string& path) {
  NpyArray a = readNpy(path);
  std::string shape = "(";
  for (std::size_t i = 0; i < a.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(a.shape[i]);
  shape += a.shape.size() == 1 ? ",)" : ")";
  if (a.shape.size() != 2)
    throw NpyError(path + ": a learned table must be 2-D (max_len x d_model), got shape " + shape);
  constexpr auto kIntMax = static_cast<std::int64_t>(std::numeric_limits<int>::max());
  if (a.shape[0] <= 0 || a.shape[1] <= 0)
    throw NpyError(path + ": a learned table needs at least one row and one column, got shape " + shape);
  if (a.shape[0] > kIntMax || a.shape[1] > kIntMax)
    throw NpyError(path + ": shape " + shape + " has a dimension over " + std::to_string(kIntMax));
  // A position table is a list of vectors a model adds to its embeddings: NaN or infinity there
  // is a broken file, and every picture and number made from it would be garbage.
  const auto bad = std::find_if(a.data.begin(), a.data.end(), [](auto v) { return !std::isfinite(v); });
  if (bad != a.data.end()) {
    const auto at = static_cast<std::int64_t>(bad - a.data.begin());
    throw NpyError(path + ": holds " + formatValue(static_cast<double>(*bad)) + " at row " + std::to_string(at / a.shape[1]) +
                   ", column " + std::to_string(at % a.shape[1]) + " (element " + std::to_string(at) +
                   "); a learned table must hold finite numbers only");
  }
  Grid g;
  g.rows = static_cast<int>(a.shape[0]);
  g.cols = static_cast<int>(a.shape[1]);
  g.values = std::move(a.data);
  return g;
}

void saveLearnedTable(const std::string& path, const Grid& table) {
  validateTable("saveLearnedTable", table);
  writeNpy(path, {table.rows, table.cols}, table.values.data(), DType::F32);
}

}  // namespace posviz
