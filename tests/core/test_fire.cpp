// FIRE (core/fire.hpp). The values below are worked by hand from the paper's eq. (2)-(4) (Li et
// al. 2023, arXiv:2310.04418) as its PyTorch FIRE module computes them,
// b(i, j) = f(psi(i - j) / (psi(max(L, i)) + 1e-6)), psi(x) = log(c x + 1), with a two-unit MLP
// whose weights are chosen to make each ReLU's contribution visible:
//   f(x) = -1 + 2 max(0, x) + 3 max(0, 0.5 - x).
// The module's defaults (init_c = 0.1, init_L = 512., mlp_width = 32, eps = 1e-6) are FireParams{}.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/fire.hpp"

using posviz::FireMlp;
using posviz::FireParams;

namespace {

FireMlp handMlp() { return FireMlp{{1.0, -1.0}, {0.0, 0.5}, {2.0, 3.0}, -1.0}; }

}  // namespace

TEST_CASE("fire: the normalised log distance and the bias, by hand") {
  const FireParams p{1.0, 2.0};   // c = 1, L = 2
  // i = 4 > L: log(1 + 3) / (log(1 + 4) + 1e-6)
  CHECK(posviz::fireInput(p, 4, 1) == doctest::Approx(std::log(4.0) / (std::log(5.0) + 1e-6)).epsilon(1e-15));
  CHECK(posviz::fireInput(p, 4, 1) == doctest::Approx(0.8613525809583367).epsilon(1e-14));
  CHECK(posviz::fireBias(p, handMlp(), 4, 1) == doctest::Approx(0.7227051619166733).epsilon(1e-14));
  // i = 1 < L: the threshold normalises, log 2 / (log 3 + 1e-6)
  CHECK(posviz::fireInput(p, 1, 0) == doctest::Approx(0.6309291792749692).epsilon(1e-14));
  CHECK(posviz::fireBias(p, handMlp(), 1, 0) == doctest::Approx(0.26185835854993833).epsilon(1e-14));
  CHECK(posviz::fireBias(p, handMlp(), 0, 0) == doctest::Approx(0.5));   // distance 0: only the second unit
  CHECK(posviz::fireBias(p, handMlp(), 9, 0) == doctest::Approx(1.0));   // the first key of i >= L: input 1 - 4e-7
  CHECK(posviz::fireBias(p, handMlp(), 9, 4) == doctest::Approx(0.5563018248739922).epsilon(1e-14));
  CHECK(posviz::fireBias(p, handMlp(), 3, 4) == -std::numeric_limits<double>::infinity());
}

TEST_CASE("fire: the defaults are the reference module's") {
  const FireParams p;
  CHECK(p.c == 0.1);           // init_c
  CHECK(p.threshold == 512.0); // init_L
  CHECK(posviz::kFireHidden == 32);       // mlp_width
  CHECK(posviz::kFireEpsilon == 1e-6);    // eps, added to the normaliser
  // Below L every query is normalised by psi(L): the input is log(0.1 d + 1) / (log(0.1 * 512 + 1) + 1e-6).
  CHECK(posviz::fireInput(p, 100, 0) == doctest::Approx(std::log(11.0) / (std::log(52.2) + 1e-6)).epsilon(1e-14));
}

TEST_CASE("fire: the grid is causal, and every row past L spans inputs 1 .. 0 whatever the length") {
  const FireParams p{0.5, 8.0};
  const FireMlp f = posviz::fireSeededMlp(16, 3);
  const posviz::Grid g = posviz::fireBiasGrid(p, f, 40);
  for (int i = 0; i < 40; ++i) {
    for (int j = 0; j < 40; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      if (j > i) {
        CHECK(g.at(i, j) == -std::numeric_limits<float>::infinity());
      } else {
        // Bit for bit each cell's own evaluation, rows at or below L (one MLP run per distance)
        // and past it alike.
        CHECK(g.at(i, j) == static_cast<float>(posviz::fireBias(p, f, i, j)));
        const double x = posviz::fireInput(p, i, j);
        CHECK(x >= 0.0);
        CHECK(x <= 1.0);
      }
    }
  }
  // Every query past the threshold sees its first key at f(1) and itself at f(0).
  for (int i : {8, 20, 39}) {
    CHECK(g.at(i, 0) == doctest::Approx(posviz::fireMlpEval(f, 1.0)).epsilon(1e-6));
    CHECK(g.at(i, i) == doctest::Approx(posviz::fireMlpEval(f, 0.0)).epsilon(1e-6));
  }
}

TEST_CASE("fire: seeded weights are reproducible and within nn.Linear's initialisation bounds") {
  const FireMlp a = posviz::fireSeededMlp(32, 7);
  const FireMlp b = posviz::fireSeededMlp(32, 7);
  CHECK(a.w1 == b.w1);
  CHECK(a.w2 == b.w2);
  CHECK(a.b2 == b.b2);
  CHECK(posviz::fireSeededMlp(32, 8).w1 != a.w1);
  REQUIRE(a.w1.size() == 32);
  for (std::size_t k = 0; k < 32; ++k) {
    CHECK(std::fabs(a.w1[k]) <= 1.0);
    CHECK(std::fabs(a.b1[k]) <= 1.0);
    CHECK(std::fabs(a.w2[k]) <= 1.0 / std::sqrt(32.0));
  }
  CHECK(std::fabs(a.b2) <= 1.0 / std::sqrt(32.0));
}

TEST_CASE("fire: bad parameters name themselves") {
  CHECK_THROWS_WITH_AS(posviz::fireInput({0.0, 2.0}, 1, 0), doctest::Contains("fireInput: c must be"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::fireInput({1.0, -2.0}, 1, 0), doctest::Contains("fireInput: threshold must be"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::fireInput({1.0, 2.0}, 1, 3), doctest::Contains("FIRE is causal"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::fireSeededMlp(0, 1), doctest::Contains("fireSeededMlp: hidden"), std::invalid_argument);
  FireMlp bad = handMlp();
  bad.w2.pop_back();
  CHECK_THROWS_WITH_AS(posviz::fireBias({1.0, 2.0}, bad, 1, 0), doctest::Contains("one entry per hidden unit"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::fireBiasGrid({1.0, 2.0}, handMlp(), 0), doctest::Contains("numPositions"), std::invalid_argument);
}
