// core/axial_rope: 2-D axial RoPE, against naver-ai/rope-vit (models/vit_rope.py, init_t_xy and
// compute_axial_cis, theta = 100): numbers below were computed with that code in torch (float32
// frequencies, so agreement is to ~1e-7 relative) for dim 8 on a 2-row x 3-column patch grid.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "core/axial_rope.hpp"

using namespace posviz;

namespace {
const std::vector<float> kQ = {1.0f, 0.5f, -0.25f, 2.0f, 0.75f, -1.0f, 0.5f, 0.125f};
const std::vector<float> kK = {0.3f, -0.7f, 1.1f, 0.2f, -0.4f, 0.9f, 0.6f, -1.3f};
}  // namespace

TEST_SUITE("axial rope") {

TEST_CASE("frequencies: base^(-4j/D), shared by the column and row halves") {
  AxialRopeParams p;
  p.headDim = 8;
  const std::vector<posviz::AxialPair> f = posviz::axialRopePairs(p);
  REQUIRE(f.size() == 4);
  CHECK(f[0].freq == 1.0);
  CHECK(f[1].freq == doctest::Approx(0.1).epsilon(1e-15));   // 100^(-1/2)
  CHECK(f[2].freq == f[0].freq);   // the row half repeats the column half's frequencies
  CHECK(f[3].freq == f[1].freq);
}

TEST_CASE("angles: pairs 0..D/4-1 follow the column, the rest the row (rope-vit patch 5 of a 2 x 3 grid)") {
  AxialRopeParams p;
  p.headDim = 8;
  const Grid g = axialRopeAngleGrid(p, 2, 3);
  REQUIRE(g.rows == 6);
  REQUIRE(g.cols == 4);
  // Patch t = 5: x = 5 % 3 = 2, y = 5 / 3 = 1; rope-vit: [2.0, 0.2, 1.0, 0.1].
  CHECK(g.at(5, 0) == doctest::Approx(2.0).epsilon(1e-7));
  CHECK(g.at(5, 1) == doctest::Approx(0.2).epsilon(1e-7));
  CHECK(g.at(5, 2) == doctest::Approx(1.0).epsilon(1e-7));
  CHECK(g.at(5, 3) == doctest::Approx(0.1).epsilon(1e-7));
  // Patch 0 does not rotate; patch 3 (row 1, col 0) rotates only the row half.
  for (int i = 0; i < 4; ++i) CHECK(g.at(0, i) == 0.0f);
  CHECK(g.at(3, 0) == 0.0f);
  CHECK(g.at(3, 2) == doctest::Approx(1.0));
  CHECK(axialRopeAngle(p, 2, 1.0, 2.0) == doctest::Approx(1.0));
  CHECK(axialRopeAngle(p, 0, 1.0, 2.0) == doctest::Approx(2.0));
}

TEST_CASE("scores: equal rope-vit's <R q, R k> and depend on the offsets only") {
  AxialRopeParams p;
  p.headDim = 8;
  // rope-vit: q at patch 5 (row 1, col 2), k at patch 0: -1.429117494635284.
  CHECK(axialRopeScore(p, kQ, kK, 1.0, 2.0) == doctest::Approx(-1.429117494635284).epsilon(1e-6));
  // q at patch 3 (row 1, col 0), k at patch 2 (row 0, col 2): dr = 1, dc = -2: 1.0107000784948466.
  CHECK(axialRopeScore(p, kQ, kK, 1.0, -2.0) == doctest::Approx(1.0107000784948466).epsilon(1e-6));
  // q at patch 4, k at patch 1: dr = 1, dc = 0: -0.27752436798889635.
  CHECK(axialRopeScore(p, kQ, kK, 1.0, 0.0) == doctest::Approx(-0.27752436798889635).epsilon(1e-6));
  // At offset 0 the score is the plain dot product.
  double dot = 0.0;
  for (std::size_t i = 0; i < kQ.size(); ++i) dot += static_cast<double>(kQ[i]) * static_cast<double>(kK[i]);
  CHECK(axialRopeScore(p, kQ, kK, 0.0, 0.0) == doctest::Approx(dot).epsilon(1e-12));
}

TEST_CASE("offset-score grid: entry (dr + rows - 1, dc + cols - 1), separable by axis") {
  AxialRopeParams p;
  p.headDim = 8;
  const Grid g = axialRopeOffsetScores(p, kQ, kK, 2, 3);
  REQUIRE(g.rows == 3);
  REQUIRE(g.cols == 5);
  for (int dr = -1; dr <= 1; ++dr)
    for (int dc = -2; dc <= 2; ++dc)
      CHECK(g.at(dr + 1, dc + 2) == doctest::Approx(axialRopeScore(p, kQ, kK, dr, dc)).epsilon(1e-6));
  // Separable: s(dr, dc) - s(dr, 0) does not depend on dr.
  CHECK(g.at(0, 4) - g.at(0, 2) == doctest::Approx(g.at(2, 4) - g.at(2, 2)).epsilon(1e-5));
}

TEST_CASE("pixtral: row pairs first at the even frequencies, column pairs at the odd ones, rotate_half dims") {
  // modeling_pixtral.py PixtralRotaryEmbedding: freqs = base^(-2k/D); freqs[::2] for the row,
  // freqs[1::2] for the column; apply_rotary_pos_emb pairs dim i with i + D/2.
  AxialRopeParams p;
  p.headDim = 8;
  p.base = 10000.0;
  p.variant = posviz::AxialRopeVariant::Pixtral;
  const std::vector<posviz::AxialPair> pairs = posviz::axialRopePairs(p);
  REQUIRE(pairs.size() == 4);
  CHECK(pairs[0].byRow);
  CHECK(pairs[1].byRow);
  CHECK_FALSE(pairs[2].byRow);
  CHECK(pairs[1].freq == doctest::Approx(std::pow(1e4, -4.0 / 8)));   // freqs[2]
  CHECK(pairs[2].freq == doctest::Approx(std::pow(1e4, -2.0 / 8)));   // freqs[1]
  CHECK(pairs[3].freq == doctest::Approx(std::pow(1e4, -6.0 / 8)));   // freqs[3]
  CHECK(pairs[3].dimA == 3);
  CHECK(pairs[3].dimB == 7);
  CHECK(posviz::axialRopeAngle(p, 2, 5.0, 3.0) == doctest::Approx(3.0 * std::pow(1e4, -0.25)));
  // With q = k the score is a sum of cosines either way; the variants differ in which axis is
  // faster: at the same offset along the row and the column, rope-vit's halves agree, Pixtral's do not.
  const std::vector<float> v(8, 1.0f);
  CHECK(posviz::axialRopeScore(p, v, v, 2.0, 0.0) != doctest::Approx(posviz::axialRopeScore(p, v, v, 0.0, 2.0)));
  p.variant = posviz::AxialRopeVariant::RopeVit;
  CHECK(posviz::axialRopeScore(p, v, v, 2.0, 0.0) == doctest::Approx(posviz::axialRopeScore(p, v, v, 0.0, 2.0)));
}

TEST_CASE("errors name the function and the parameter") {
  AxialRopeParams p;
  p.headDim = 6;
  CHECK_THROWS_WITH_AS(posviz::axialRopePairs(p), doctest::Contains("headDim must be a positive multiple of 4"), std::invalid_argument);
  p.headDim = 8;
  p.base = 1.0;
  CHECK_THROWS_WITH_AS(axialRopeAngleGrid(p, 2, 2), doctest::Contains("base"), std::invalid_argument);
  p.base = 100.0;
  CHECK_THROWS_WITH_AS(axialRopeAngleGrid(p, 0, 2), doctest::Contains("rows"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(axialRopeScore(p, std::vector<float>(4, 1.0f), kK, 0, 0), doctest::Contains("headDim = 8"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(axialRopeAngle(p, 4, 0, 0), doctest::Contains("pair"), std::invalid_argument);
}

}  // TEST_SUITE
