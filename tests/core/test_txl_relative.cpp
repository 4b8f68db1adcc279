// Transformer-XL relative attention (core/txl_relative.hpp): the relative sinusoid's layout and
// the four score terms against the reference code restated in torch.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/txl_relative.hpp"

using namespace posviz;

namespace {

TxlWeights handWeights() {
  TxlWeights w;
  w.dModel = 4;
  w.dHead = 2;
  w.wq = {0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8};
  w.wkE = {-0.2, 0.3, 0.1, -0.4, 0.6, 0.1, -0.5, 0.2};
  w.wkR = {0.3, -0.1, 0.2, 0.5, -0.4, 0.6, 0.1, -0.3};
  w.u = {0.25, -0.5};
  w.v = {-0.75, 1.0};
  return w;
}

const std::vector<double> kEmb = {0.5, -1.0, 0.25, 2.0, 1.5, 0.5, -0.5, 1.0, -1.0, 0.75, 1.0, -0.25};

}  // namespace

TEST_SUITE("txl_relative") {

// kimiyoung/transformer-xl pytorch/mem_transformer.py, PositionalEmbedding.forward:
// cat([sin(p inv_freq), cos(p inv_freq)]), inv_freq = 1 / 10000^(arange(0, 4, 2) / 4) = (1, 0.01).
TEST_CASE("relative sinusoid: all sines, then all cosines") {
  const std::vector<double> r = txlRelativeSinusoid(2.0, 4);
  CHECK(r[0] == doctest::Approx(0.9092974268256817));   // sin 2
  CHECK(r[1] == doctest::Approx(0.01999866669333308));  // sin 0.02
  CHECK(r[2] == doctest::Approx(-0.4161468365471424));  // cos 2
  CHECK(r[3] == doctest::Approx(0.9998000066665778));   // cos 0.02
  const std::vector<double> z = txlRelativeSinusoid(0.0, 4);
  CHECK(z == std::vector<double>{0, 0, 1, 1});
  // Negative distances: sin is odd, cos even.
  const std::vector<double> m = txlRelativeSinusoid(-2.0, 4);
  CHECK(m[0] == doctest::Approx(-r[0]));
  CHECK(m[2] == doctest::Approx(r[2]));
  CHECK_THROWS_AS(txlRelativeSinusoid(1.0, 3), std::invalid_argument);
}

// Expected values: kimiyoung/transformer-xl pytorch/mem_transformer.py,
// RelPartialLearnableMultiHeadAttn.forward (mems none, one head, one batch) restated in torch
// float64 with these weights: AC = (Wq E_i + r_w_bias).(Wk,E E_j) split into (a) and (c),
// BD = _rel_shift((Wq E_i + r_r_bias).(Wk,R r)) with r = PositionalEmbedding(arange(T-1, -1, -1))
// split into (b) and (d); the shifted BD holds distance i - j for j <= i (j > i is masked there).
TEST_CASE("the four terms match RelPartialLearnableMultiHeadAttn for j <= i") {
  const TxlWeights w = handWeights();
  const double a[3][3] = {{0.57125}, {-0.5125, 0.78}, {0.1975, -0.42, 0.265}};
  const double b[3][3] = {{-0.1225}, {0.16869248167797035, 0.38}, {0.07136250627525118, -0.04137240216443949, -0.155}};
  const double c[3][3] = {{-0.53125}, {-0.53125, -0.85}, {-0.53125, -0.85, 0.69375}};
  const double d[3][3] = {{-0.725}, {-1.2211508435790288, -0.725}, {-1.208869454420634, -1.2211508435790288, -0.725}};
  const Grid g = txlTermGrid(w, kEmb);
  const Grid sum = txlSumGrid(w, kEmb);
  REQUIRE(g.rows == 12);
  REQUIRE(g.cols == 3);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j <= i; ++j) {
      const TxlTerms t = txlTerms(w, kEmb, i, j);
      CHECK(t[0] == doctest::Approx(a[i][j]));
      CHECK(t[1] == doctest::Approx(b[i][j]));
      CHECK(t[2] == doctest::Approx(c[i][j]));
      CHECK(t[3] == doctest::Approx(d[i][j]));
      for (int k = 0; k < 4; ++k) CHECK(g.at(k * 3 + i, j) == doctest::Approx(t[static_cast<std::size_t>(k)]).epsilon(1e-6));
      CHECK(sum.at(i, j) == doctest::Approx(t[0] + t[1] + t[2] + t[3]).epsilon(1e-6));
    }
  }
}

TEST_CASE("structure: (c) depends on the key only, (d) on i - j only") {
  const TxlWeights w = txlSeededWeights(8, 4, 3);
  const std::vector<double> e = txlSeededEmbeddings(6, 8, 4);
  const Grid g = txlTermGrid(w, e);
  for (int i = 1; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) CHECK(g.at(2 * 6 + i, j) == doctest::Approx(g.at(2 * 6, j)));
    for (int j = 1; j < 6; ++j) CHECK(g.at(3 * 6 + i, j) == doctest::Approx(g.at(3 * 6 + i - 1, j - 1)));
  }
  CHECK(txlSeededWeights(8, 4, 3).wq == w.wq);
  CHECK_THROWS_AS(txlTerms(w, e, 6, 0), std::invalid_argument);
  CHECK_THROWS_AS(txlTermGrid(w, std::vector<double>(7, 0.0)), std::invalid_argument);
}

}  // TEST_SUITE
