// shaw_relative.cpp: see shaw_relative.hpp.
#include "core/shaw_relative.hpp"

#include <algorithm>
#include <cstddef>
#include <string>

#include "core/check.hpp"
#include "core/random.hpp"

namespace posviz {

namespace {

std::size_t at(long long row, int dim) { return static_cast<std::size_t>(row) * static_cast<std::size_t>(dim); }

double dotRows(const std::vector<double>& a, long long ra, const std::vector<double>& b, long long rb, int dim) {
  double s = 0.0;
  for (int c = 0; c < dim; ++c) s += a[at(ra, dim) + static_cast<std::size_t>(c)] * b[at(rb, dim) + static_cast<std::size_t>(c)];
  return s;
}

void requireSize(const char* fn, const char* what, const std::vector<double>& v, std::size_t want) {
  if (v.size() != want) {
    failArgument(fn, std::string(what) + " must have " + std::to_string(want) + " entries, got " + std::to_string(v.size()));
  }
}

bool bertVariant(ShawVariant v) { return v == ShawVariant::RelativeKey || v == ShawVariant::RelativeKeyQuery; }

// The row (i, j) reads in the variant's table.
int variantRow(ShawVariant variant, long long i, long long j, int clip, int rightClip, int tableRows) {
  switch (variant) {
    case ShawVariant::Shaw: return shawTableRow(i, j, clip);
    case ShawVariant::ClampedKey: return clampedKeyRow(i, j, clip, rightClip);
    case ShawVariant::RelativeKey:
    case ShawVariant::RelativeKeyQuery: break;
  }
  return bertDistanceRow(i, j, (tableRows + 1) / 2);
}

void validateInputs(const char* fn, ShawVariant variant, const ShawInputs& in, int clip, int rightClip) {
  requirePositiveInt(fn, "positions", in.positions);
  requirePositiveInt(fn, "dim", in.dim);
  if (!bertVariant(variant)) requireNonNegativeInt(fn, "clip", clip);
  if (variant == ShawVariant::ClampedKey) requireNonNegativeInt(fn, "rightClip", rightClip);
  requireSize(fn, "q", in.q, at(in.positions, in.dim));
  requireSize(fn, "k", in.k, at(in.positions, in.dim));
  if (in.table.empty() || in.table.size() % static_cast<std::size_t>(in.dim) != 0) {
    failArgument(fn, "table must hold whole rows of dim " + std::to_string(in.dim) + " entries, got " +
                         std::to_string(in.table.size()));
  }
  const auto rows = static_cast<long long>(in.table.size() / static_cast<std::size_t>(in.dim));
  const long long want = variant == ShawVariant::Shaw ? 2LL * clip + 1 : variant == ShawVariant::ClampedKey ? 1LL + clip + rightClip : rows;
  if (rows != want || (bertVariant(variant) && rows % 2 == 0)) {
    failArgument(fn, "table has " + std::to_string(rows) + " rows, expected " +
                         (variant == ShawVariant::Shaw         ? std::to_string(want) + " (2 clip + 1)"
                          : variant == ShawVariant::ClampedKey ? std::to_string(want) + " (left + right + 1)"
                                                               : std::string("an odd count (2 max_position_embeddings - 1)")));
  }
  if (bertVariant(variant) && in.positions > (rows + 1) / 2) {
    failArgument(fn, "positions " + std::to_string(in.positions) + " exceed max_position_embeddings " + std::to_string((rows + 1) / 2));
  }
}

}  // namespace

const char* shawVariantName(ShawVariant v) {
  switch (v) {
    case ShawVariant::Shaw: return "shaw";
    case ShawVariant::RelativeKey: return "relative_key";
    case ShawVariant::RelativeKeyQuery: return "relative_key_query";
    case ShawVariant::ClampedKey: return "relative_key_clamped";
  }
  return "?";
}

long long shawClippedDistance(long long i, long long j, int k) {
  requireNonNegativeInt("shawClippedDistance", "k", k);
  return std::clamp(j - i, -static_cast<long long>(k), static_cast<long long>(k));
}

int shawTableRow(long long i, long long j, int k) { return static_cast<int>(shawClippedDistance(i, j, k) + k); }

int clampedKeyRow(long long i, long long j, int left, int right) {
  requireNonNegativeInt("clampedKeyRow", "left", left);
  requireNonNegativeInt("clampedKeyRow", "right", right);
  return static_cast<int>(std::clamp(j - i, -static_cast<long long>(left), static_cast<long long>(right)) + left);
}

int bertDistanceRow(long long i, long long j, int maxPositions) {
  requirePositiveInt("bertDistanceRow", "maxPositions", maxPositions);
  const long long d = i - j;
  if (d <= -maxPositions || d >= maxPositions) {
    failArgument("bertDistanceRow", "|i - j| = " + std::to_string(d < 0 ? -d : d) + " must be below max_position_embeddings " +
                                        std::to_string(maxPositions) + " (the table has no row for it)");
  }
  return static_cast<int>(d + maxPositions - 1);
}

std::vector<double> shawSeededTable(int rows, int dim, std::uint64_t seed, double stddev) {
  requirePositiveInt("shawSeededTable", "rows", rows);
  requirePositiveInt("shawSeededTable", "dim", dim);
  requirePositive("shawSeededTable", "stddev", stddev);
  Rng rng(seed);
  std::vector<double> t(at(rows, dim));
  for (double& x : t) x = stddev * rng.normal();
  return t;
}

int shawTableRows(ShawVariant variant, int positions, int clip, int rightClip) {
  if (variant == ShawVariant::ClampedKey) return clip + rightClip + 1;
  return variant == ShawVariant::Shaw ? 2 * clip + 1 : 2 * positions - 1;
}

ShawInputs shawSeededInputs(ShawVariant variant, int positions, int dim, int clip, std::uint64_t seed, int rightClip) {
  requirePositiveInt("shawSeededInputs", "positions", positions);
  requirePositiveInt("shawSeededInputs", "dim", dim);
  requireNonNegativeInt("shawSeededInputs", "clip", clip);
  requireNonNegativeInt("shawSeededInputs", "rightClip", rightClip);
  ShawInputs in;
  in.positions = positions;
  in.dim = dim;
  in.q = shawSeededTable(positions, dim, seed);
  in.k = shawSeededTable(positions, dim, seed + 1);
  in.table = shawSeededTable(shawTableRows(variant, positions, clip, rightClip), dim, seed + 2);
  return in;
}

ShawScoreTerms shawScoreTerms(ShawVariant variant, const ShawInputs& in, int clip, int i, int j, int rightClip) {
  const char* fn = "shawScoreTerms";
  validateInputs(fn, variant, in, clip, rightClip);
  requireIndex(fn, "i", i, in.positions);
  requireIndex(fn, "j", j, in.positions);
  ShawScoreTerms t;
  t.content = dotRows(in.q, i, in.k, j, in.dim);
  const auto rows = static_cast<int>(in.table.size() / static_cast<std::size_t>(in.dim));
  const int row = variantRow(variant, i, j, clip, rightClip, rows);
  t.relQuery = dotRows(in.q, i, in.table, row, in.dim);
  if (variant == ShawVariant::RelativeKeyQuery) t.relKey = dotRows(in.k, j, in.table, row, in.dim);
  return t;
}

Grid shawScoreGrid(ShawVariant variant, const ShawInputs& in, int clip, int rightClip) {
  validateInputs("shawScoreGrid", variant, in, clip, rightClip);
  Grid g(in.positions, in.positions);
  for (int i = 0; i < in.positions; ++i) {
    for (int j = 0; j < in.positions; ++j) g.at(i, j) = static_cast<float>(shawScoreTerms(variant, in, clip, i, j, rightClip).total());
  }
  return g;
}

Grid shawIndexGrid(ShawVariant variant, int positions, int clip, int rightClip) {
  requirePositiveInt("shawIndexGrid", "positions", positions);
  requireNonNegativeInt("shawIndexGrid", "clip", clip);
  requireNonNegativeInt("shawIndexGrid", "rightClip", rightClip);
  Grid g(positions, positions);
  for (int i = 0; i < positions; ++i) {
    for (int j = 0; j < positions; ++j) g.at(i, j) = static_cast<float>(variantRow(variant, i, j, clip, rightClip, 2 * positions - 1));
  }
  return g;
}

std::vector<double> shawOutput(const std::vector<double>& alpha, const std::vector<double>& v, const std::vector<double>& aV,
                               int dim, int clip, int i) {
  const char* fn = "shawOutput";
  requirePositiveInt(fn, "dim", dim);
  requireNonNegativeInt(fn, "clip", clip);
  const auto positions = static_cast<long long>(alpha.size());
  requirePositiveInt(fn, "alpha's length", positions);
  requireSize(fn, "v", v, at(positions, dim));
  requireSize(fn, "aV", aV, at(2LL * clip + 1, dim));
  requireIndex(fn, "i", i, positions);
  std::vector<double> z(static_cast<std::size_t>(dim), 0.0);
  for (long long j = 0; j < positions; ++j) {
    const int row = shawTableRow(i, j, clip);
    for (int c = 0; c < dim; ++c) {
      const auto cc = static_cast<std::size_t>(c);
      z[cc] += alpha[static_cast<std::size_t>(j)] * (v[at(j, dim) + cc] + aV[at(row, dim) + cc]);
    }
  }
  return z;
}

}  // namespace posviz
