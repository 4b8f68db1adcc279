#include "core/angle.hpp"
#include "core/axial_rope.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "core/check.hpp"

namespace posviz {

namespace {


void requireQk(const char* fn, const AxialRopeParams& p, std::span<const float> q, std::span<const float> k) {
  if (q.size() != static_cast<std::size_t>(p.headDim) || k.size() != static_cast<std::size_t>(p.headDim))
    failArgument(fn, "q and k must hold headDim = " + std::to_string(p.headDim) + " values, got " +
                         std::to_string(q.size()) + " and " + std::to_string(k.size()));
}

constexpr long long kMaxRows = 2147483647;   // a Grid's rows are an int

// One axis's half of the score: pairs [first, first + D/4) rotated by offset * f.
double halfScore(std::span<const float> q, std::span<const float> k, const std::vector<double>& f, int first, double offset) {
  double s = 0.0;
  for (std::size_t j = 0; j < f.size(); ++j) {
    const std::size_t d = 2 * (static_cast<std::size_t>(first) + j);
    const auto a = static_cast<double>(q[d]), b = static_cast<double>(q[d + 1]);
    const auto c = static_cast<double>(k[d]), e = static_cast<double>(k[d + 1]);
    const double delta = offset * f[j];
    s += (a * c + b * e) * std::cos(delta) + (a * e - b * c) * std::sin(delta);
  }
  return s;
}

}  // namespace

void validateAxialRope(const char* fn, const AxialRopeParams& p) {
  if (p.headDim < 4 || p.headDim % 4 != 0)
    failArgument(fn, "headDim must be a positive multiple of 4 (half the pairs per axis), got " + std::to_string(p.headDim));
  requireGreater(fn, "base", p.base, 1.0);
}

std::vector<double> axialRopeFrequencies(const AxialRopeParams& p) {
  validateAxialRope("axialRopeFrequencies", p);
  const int quarter = p.headDim / 4;
  std::vector<double> f(static_cast<std::size_t>(quarter));
  // torch.arange(0, dim, 4)[:dim // 4] / dim: exponents 4j / D.
  for (int j = 0; j < quarter; ++j) f[static_cast<std::size_t>(j)] = 1.0 / std::pow(p.base, 4.0 * j / p.headDim);
  return f;
}

double axialRopeAngle(const AxialRopeParams& p, int pair, double row, double col) {
  const char* fn = "axialRopeAngle";
  validateAxialRope(fn, p);
  requireIndex(fn, "pair", pair, p.headDim / 2);
  requireFinite(fn, "row", row);
  requireFinite(fn, "col", col);
  const int quarter = p.headDim / 4;
  const double f = 1.0 / std::pow(p.base, 4.0 * (pair % quarter) / p.headDim);
  return (pair < quarter ? col : row) * f;
}

Grid axialRopeAngleGrid(const AxialRopeParams& p, int rows, int cols) {
  const char* fn = "axialRopeAngleGrid";
  validateAxialRope(fn, p);
  requirePositiveInt(fn, "rows", rows);
  requirePositiveInt(fn, "cols", cols);
  const int pairs = p.headDim / 2, quarter = p.headDim / 4;
  const auto patches = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  if (patches > static_cast<std::uint64_t>(kMaxRows))
    failArgument(fn, "rows * cols must be at most " + std::to_string(kMaxRows) + ", got " + std::to_string(patches));
  requireBudget(fn, patches * static_cast<std::uint64_t>(pairs), sizeof(float), "patches x pairs angles");
  const std::vector<double> f = axialRopeFrequencies(p);
  Grid g(static_cast<int>(patches), pairs);
  for (int t = 0; t < g.rows; ++t) {
    const double x = t % cols, y = t / cols;   // init_t_xy
    float* out = g.row(t);
    for (int i = 0; i < pairs; ++i) {
      const double a = (i < quarter ? x : y) * f[static_cast<std::size_t>(i % quarter)];
      out[i] = static_cast<float>(wrapAngle(a));
    }
  }
  return g;
}

double axialRopeScore(const AxialRopeParams& p, std::span<const float> q, std::span<const float> k, double dr, double dc) {
  const char* fn = "axialRopeScore";
  validateAxialRope(fn, p);
  requireQk(fn, p, q, k);
  requireFinite(fn, "dr", dr);
  requireFinite(fn, "dc", dc);
  const std::vector<double> f = axialRopeFrequencies(p);
  return halfScore(q, k, f, 0, dc) + halfScore(q, k, f, p.headDim / 4, dr);
}

Grid axialRopeOffsetScores(const AxialRopeParams& p, std::span<const float> q, std::span<const float> k, int rows, int cols) {
  const char* fn = "axialRopeOffsetScores";
  validateAxialRope(fn, p);
  requireQk(fn, p, q, k);
  requirePositiveInt(fn, "rows", rows);
  requirePositiveInt(fn, "cols", cols);
  if (rows > kMaxRows / 2 || cols > kMaxRows / 2)
    failArgument(fn, "rows and cols must be at most " + std::to_string(kMaxRows / 2) + ", got " + std::to_string(rows) +
                         " and " + std::to_string(cols));
  const int outR = 2 * rows - 1, outC = 2 * cols - 1;
  requireBudget(fn, static_cast<std::uint64_t>(outR) * static_cast<std::uint64_t>(outC), sizeof(float), "offset scores");
  // Each axis contributes its own half: s(dr, dc) = sRow(dr) + sCol(dc).
  const std::vector<double> f = axialRopeFrequencies(p);
  std::vector<double> byCol(static_cast<std::size_t>(outC)), byRow(static_cast<std::size_t>(outR));
  for (int dc = -(cols - 1); dc <= cols - 1; ++dc) byCol[static_cast<std::size_t>(dc + cols - 1)] = halfScore(q, k, f, 0, dc);
  for (int dr = -(rows - 1); dr <= rows - 1; ++dr)
    byRow[static_cast<std::size_t>(dr + rows - 1)] = halfScore(q, k, f, p.headDim / 4, dr);
  Grid g(outR, outC);
  for (int r = 0; r < outR; ++r)
    for (int c = 0; c < outC; ++c) g.at(r, c) = static_cast<float>(byRow[static_cast<std::size_t>(r)] + byCol[static_cast<std::size_t>(c)]);
  return g;
}

}  // namespace posviz
