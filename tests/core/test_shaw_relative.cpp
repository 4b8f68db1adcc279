// Shaw et al. 2018 relative positions and HF BERT's relative_key / relative_key_query
// (core/shaw_relative.hpp): clipped distances, table rows, the score terms by hand and against
// the reference code restated in torch.
#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "core/shaw_relative.hpp"

using namespace posviz;

namespace {

// Three positions, dim 2, by hand.
ShawInputs handInputs(std::vector<double> table) {
  ShawInputs in;
  in.positions = 3;
  in.dim = 2;
  in.q = {1, 0, 0, 1, 1, 1};
  in.k = {1, 2, 0, 1, 2, 0};
  in.table = std::move(table);
  return in;
}

}  // namespace

TEST_SUITE("shaw_relative") {

TEST_CASE("clip(j - i, k) and its row in the 2k + 1 table") {
  CHECK(shawClippedDistance(0, 5, 2) == 2);
  CHECK(shawClippedDistance(5, 0, 2) == -2);
  CHECK(shawClippedDistance(3, 4, 2) == 1);
  CHECK(shawClippedDistance(4, 3, 2) == -1);
  CHECK(shawClippedDistance(7, 7, 0) == 0);
  CHECK(shawTableRow(0, 5, 2) == 4);
  CHECK(shawTableRow(5, 0, 2) == 0);
  CHECK(shawTableRow(2, 2, 2) == 2);
  // k = 0: every pair reads the single row.
  CHECK(shawTableRow(0, 9, 0) == 0);
  CHECK_THROWS_AS(shawClippedDistance(0, 1, -1), std::invalid_argument);
}

TEST_CASE("the index grid: Shaw's is a clipped Toeplitz band, BERT's i - j + M - 1 with no clipping") {
  const Grid s = shawIndexGrid(ShawVariant::Shaw, 5, 1);
  CHECK(s.at(0, 0) == 1.0f);
  CHECK(s.at(0, 1) == 2.0f);
  CHECK(s.at(0, 4) == 2.0f);
  CHECK(s.at(4, 0) == 0.0f);
  const Grid b = shawIndexGrid(ShawVariant::RelativeKey, 5, 1);
  CHECK(b.at(0, 0) == 4.0f);   // i - j + 5 - 1
  CHECK(b.at(4, 0) == 8.0f);   // the last of 2 * 5 - 1 rows
  CHECK(b.at(0, 4) == 0.0f);
  CHECK(bertDistanceRow(2, 0, 3) == 4);
  CHECK_THROWS_AS(bertDistanceRow(3, 0, 3), std::invalid_argument);   // |i - j| = M has no row
}

TEST_CASE("Shaw's score: content q_i.k_j plus q_i.a^K[clip(j - i)], by hand") {
  // rows for clip(j - i) = -1, 0, +1
  const ShawInputs in = handInputs({1, 0, 0, 1, -1, 1});
  // (0, 2): q0.k2 = 2, clip(2) = 1 -> row 2 = (-1, 1), q0.row = -1.
  ShawScoreTerms t = shawScoreTerms(ShawVariant::Shaw, in, 1, 0, 2);
  CHECK(t.content == 2.0);
  CHECK(t.relQuery == -1.0);
  CHECK(t.relKey == 0.0);
  CHECK(t.total() == 1.0);
  // (2, 0): q2.k0 = 3, clip(-2) = -1 -> row 0 = (1, 0), q2.row = 1.
  t = shawScoreTerms(ShawVariant::Shaw, in, 1, 2, 0);
  CHECK(t.total() == 4.0);
  // (1, 1): 1 + 1.
  CHECK(shawScoreTerms(ShawVariant::Shaw, in, 1, 1, 1).total() == 2.0);
  const Grid g = shawScoreGrid(ShawVariant::Shaw, in, 1);
  CHECK(g.at(0, 2) == 1.0f);
  CHECK(g.at(2, 0) == 4.0f);
  CHECK_THROWS_AS(shawScoreGrid(ShawVariant::Shaw, in, 2), std::invalid_argument);   // table has 3 rows, not 5
}

// Expected values: HF transformers src/transformers/models/bert/modeling_bert.py,
// BertSelfAttention.forward, restated in torch (float64): distance = position_ids_l -
// position_ids_r (= i - j), distance_embedding(distance + max_position_embeddings - 1) with
// max_position_embeddings 4 and table arange(14).reshape(7, 2) * 0.5 - 3, then
// scores = q k^T + einsum("bhld,lrd->bhlr", q, E) [+ einsum("bhrd,lrd->bhlr", k, E)].
TEST_CASE("BERT relative_key and relative_key_query match modeling_bert.py") {
  std::vector<double> table;
  for (int n = 0; n < 14; ++n) table.push_back(n * 0.5 - 3.0);
  const ShawInputs in = handInputs(table);
  const double key[3][3] = {{1.0, -1.0, 0.0}, {3.5, 1.5, -0.5}, {7.5, 3.5, 2.5}};
  const double keyQuery[3][3] = {{2.0, -1.5, -4.0}, {7.5, 2.0, -2.5}, {14.5, 5.0, 2.5}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      CHECK(shawScoreTerms(ShawVariant::RelativeKey, in, 0, i, j).total() == doctest::Approx(key[i][j]));
      CHECK(shawScoreTerms(ShawVariant::RelativeKeyQuery, in, 0, i, j).total() == doctest::Approx(keyQuery[i][j]));
    }
  }
  // The sign: (0, 2) reads row i - j + 3 = 1 = (-2, -1.5): q0 = (1, 0) gives -2, k2 = (2, 0) gives
  // -4, total 2 - 2 - 4 = -4 as torch has it; a Shaw-style j - i would read row 5 = (2, 2.5).
  const ShawScoreTerms t = shawScoreTerms(ShawVariant::RelativeKeyQuery, in, 0, 0, 2);
  CHECK(t.content == 2.0);
  CHECK(t.relQuery == -2.0);
  CHECK(t.relKey == -4.0);
  ShawInputs tooLong = in;
  tooLong.positions = 5;
  tooLong.q.resize(10, 0.0);
  tooLong.k.resize(10, 0.0);
  CHECK_THROWS_AS(shawScoreGrid(ShawVariant::RelativeKey, tooLong, 0), std::invalid_argument);
}

TEST_CASE("seeded inputs: the same seed gives the same table, tables have the variant's rows") {
  const ShawInputs a = shawSeededInputs(ShawVariant::Shaw, 6, 4, 2, 7);
  const ShawInputs b = shawSeededInputs(ShawVariant::Shaw, 6, 4, 2, 7);
  CHECK(a.table == b.table);
  CHECK(a.q == b.q);
  CHECK(a.q != a.k);
  CHECK(a.table.size() == 5u * 4u);
  CHECK(shawSeededInputs(ShawVariant::RelativeKey, 6, 4, 2, 7).table.size() == 11u * 4u);
  // Beyond the clip every key reads the same row: q_i.a^K is constant along a row past i + k.
  const Grid g = shawScoreGrid(ShawVariant::Shaw, a, 2);
  for (int j = 3; j < 6; ++j) {
    CHECK(shawScoreTerms(ShawVariant::Shaw, a, 2, 0, j).relQuery == shawScoreTerms(ShawVariant::Shaw, a, 2, 0, 2).relQuery);
  }
  CHECK(g.at(1, 4) == doctest::Approx(shawScoreTerms(ShawVariant::Shaw, a, 2, 1, 4).total()));
}

TEST_CASE("Shaw eq. 3: z_i = sum_j alpha_ij (v_j + a^V[clip(j - i)])") {
  const std::vector<double> alpha = {0.5, 0.25, 0.25};
  const std::vector<double> v = {1, 0, 0, 2, 4, 4};
  const std::vector<double> aV = {10, 0, 0, 10, 20, 20};   // rows for -1, 0, +1
  // i = 0: j = 0 row 1 (0, 10), j = 1 and 2 row 2 (20, 20):
  // 0.5 (1, 10) + 0.25 (20, 22) + 0.25 (24, 24) = (0.5 + 5 + 6, 5 + 5.5 + 6)
  const std::vector<double> z = shawOutput(alpha, v, aV, 2, 1, 0);
  CHECK(z[0] == doctest::Approx(11.5));
  CHECK(z[1] == doctest::Approx(16.5));
  CHECK_THROWS_AS(shawOutput(alpha, v, aV, 2, 2, 0), std::invalid_argument);
}

}  // TEST_SUITE
