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

// One axis's half of the score: the pairs that follow that axis, rotated by offset * freq.
double halfScore(std::span<const float> q, std::span<const float> k, const std::vector<AxialPair>& pairs, bool byRow, double offset) {
  double s = 0.0;
  for (const AxialPair& pr : pairs) {
    if (pr.byRow != byRow) continue;
    const auto da = static_cast<std::size_t>(pr.dimA), db = static_cast<std::size_t>(pr.dimB);
    const auto a = static_cast<double>(q[da]), b = static_cast<double>(q[db]);
    const auto c = static_cast<double>(k[da]), e = static_cast<double>(k[db]);
    const double delta = offset * pr.freq;
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

const char* axialRopeVariantName(AxialRopeVariant v) { return v == AxialRopeVariant::Pixtral ? "pixtral" : "rope-vit"; }

std::vector<AxialPair> axialRopePairs(const AxialRopeParams& p) {
  validateAxialRope("axialRopePairs", p);
  const int pairs = p.headDim / 2, quarter = p.headDim / 4;
  std::vector<AxialPair> out(static_cast<std::size_t>(pairs));
  for (int i = 0; i < pairs; ++i) {
    AxialPair& pr = out[static_cast<std::size_t>(i)];
    const int j = i % quarter;
    if (p.variant == AxialRopeVariant::RopeVit) {  // compute_axial_cis: x (column) first, t_x then t_y
      pr.byRow = i >= quarter;
      pr.freq = 1.0 / std::pow(p.base, 4.0 * j / p.headDim);
      pr.dimA = 2 * i;
      pr.dimB = 2 * i + 1;
    } else {  // Pixtral: freqs[::2] by the row, then freqs[1::2] by the column; rotate_half pairs
      pr.byRow = i < quarter;
      const int k = i < quarter ? 2 * j : 2 * j + 1;
      pr.freq = 1.0 / std::pow(p.base, 2.0 * k / p.headDim);
      pr.dimA = i;
      pr.dimB = i + pairs;
    }
  }
  return out;
}

double axialRopeAngle(const AxialRopeParams& p, int pair, double row, double col) {
  const char* fn = "axialRopeAngle";
  validateAxialRope(fn, p);
  requireIndex(fn, "pair", pair, p.headDim / 2);
  requireFinite(fn, "row", row);
  requireFinite(fn, "col", col);
  const AxialPair pr = axialRopePairs(p)[static_cast<std::size_t>(pair)];
  return (pr.byRow ? row : col) * pr.freq;
}

Grid axialRopeAngleGrid(const AxialRopeParams& p, int rows, int cols) {
  const char* fn = "axialRopeAngleGrid";
  validateAxialRope(fn, p);
  requirePositiveInt(fn, "rows", rows);
  requirePositiveInt(fn, "cols", cols);
  const int pairs = p.headDim / 2;
  const auto patches = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  if (patches > static_cast<std::uint64_t>(kMaxRows))
    failArgument(fn, "rows * cols must be at most " + std::to_string(kMaxRows) + ", got " + std::to_string(patches));
  requireBudget(fn, patches * static_cast<std::uint64_t>(pairs), sizeof(float), "patches x pairs angles");
  const std::vector<AxialPair> prs = axialRopePairs(p);
  Grid g(static_cast<int>(patches), pairs);
  for (int t = 0; t < g.rows; ++t) {
    const double x = t % cols, y = t / cols;   // init_t_xy; Pixtral's meshgrid ids h * width + w
    float* out = g.row(t);
    for (int i = 0; i < pairs; ++i) {
      const AxialPair& pr = prs[static_cast<std::size_t>(i)];
      out[i] = static_cast<float>(wrapAngle((pr.byRow ? y : x) * pr.freq));
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
  const std::vector<AxialPair> prs = axialRopePairs(p);
  return halfScore(q, k, prs, false, dc) + halfScore(q, k, prs, true, dr);
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
  const std::vector<AxialPair> prs = axialRopePairs(p);
  std::vector<double> byCol(static_cast<std::size_t>(outC)), byRow(static_cast<std::size_t>(outR));
  for (int dc = -(cols - 1); dc <= cols - 1; ++dc) byCol[static_cast<std::size_t>(dc + cols - 1)] = halfScore(q, k, prs, false, dc);
  for (int dr = -(rows - 1); dr <= rows - 1; ++dr) byRow[static_cast<std::size_t>(dr + rows - 1)] = halfScore(q, k, prs, true, dr);
  Grid g(outR, outC);
  for (int r = 0; r < outR; ++r)
    for (int c = 0; c < outC; ++c) g.at(r, c) = static_cast<float>(byRow[static_cast<std::size_t>(r)] + byCol[static_cast<std::size_t>(c)]);
  return g;
}

}  // namespace posviz
