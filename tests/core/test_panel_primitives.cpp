// Primitives the panels once computed themselves, now in core, each against a brute-force
// computation: wrapAngle (every angle mod 2 pi), learnedRowNorm, areaAverageDiagonals (the RoPE
// score picture from s by offset) and sinusoidalOffsetResidual (the M_k check).
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "core/angle.hpp"
#include "core/area_average.hpp"
#include "core/learned.hpp"
#include "core/random.hpp"
#include "core/sinusoidal.hpp"

using namespace posviz;

TEST_CASE("wrapAngle reduces into [0, 2 pi) and agrees with the textbook formula") {
  const double twoPi = 2.0 * std::numbers::pi;
  CHECK(kTwoPi == twoPi);
  CHECK(wrapAngle(0.0) == 0.0);
  CHECK(wrapAngle(twoPi) == 0.0);
  CHECK(wrapAngle(-1.0) == doctest::Approx(twoPi - 1.0).epsilon(1e-15));
  CHECK(wrapAngle(7.0) == doctest::Approx(7.0 - twoPi).epsilon(1e-15));
  // The documents' example: pair 1 of d_model 8 at position 3 turns by 3 * 10000^(-2/8) = 0.3 rad.
  CHECK(wrapAngle(3.0 * std::pow(10000.0, -0.25)) == doctest::Approx(0.3).epsilon(1e-12));
  Rng rng(7);
  for (int i = 0; i < 10000; ++i) {
    const double a = (rng.uniform() - 0.5) * 1e6;
    const double w = wrapAngle(a);
    CHECK(w >= 0.0);
    CHECK(w < twoPi);
    const double brute = a - twoPi * std::floor(a / twoPi);  // the textbook a mod 2 pi
    CHECK(std::fabs(w - brute) < 1e-9);
  }
}

TEST_CASE("wrapAngle's quotient path gives fmod's bits exactly") {
  // For 0 <= a < 2^52 wrapAngle takes a - floor(a / 2pi) 2pi with one fma instead of fmod; the
  // two must agree to the bit: positions to 2^31 times frequencies 1 .. 1e-4, exact multiples of
  // 2 pi and the doubles just below them (where a / 2pi rounds up to the integer).
  Rng rng(11);
  long long differ = 0;
  auto viaFmod = [](double a) {
    const double r = std::fmod(a, kTwoPi);
    return r < 0.0 ? r + kTwoPi : r;
  };
  for (int i = 0; i < 300000; ++i) {
    const double p = std::floor(rng.uniform() * (i % 2 == 0 ? 2147483647.0 : 65536.0));
    const double w = std::pow(10000.0, -rng.uniform());
    const double multiple = kTwoPi * std::floor(rng.uniform() * 1e6);
    for (double a : {p * w, multiple, std::nextafter(multiple, 0.0), std::nextafter(multiple, 1e300)})
      differ += wrapAngle(a) == viaFmod(a) ? 0 : 1;
  }
  CHECK(differ == 0);
  CHECK(wrapAngle(std::nextafter(kTwoPi, 0.0)) == std::nextafter(kTwoPi, 0.0));
  CHECK(std::isnan(wrapAngle(std::nan(""))));
  CHECK(wrapAngle(0x1p60) == viaFmod(0x1p60));   // past 2^52: fmod itself
}

TEST_CASE("learnedRowNorm is the Euclidean length of the row") {
  const Grid t = learnedInit(50, 24, 3);
  for (int r = 0; r < t.rows; ++r) {
    double brute = 0.0;
    for (float v : learnedLookup(t, r)) brute += static_cast<double>(v) * static_cast<double>(v);
    CHECK(learnedRowNorm(t, r) == doctest::Approx(std::sqrt(brute)).epsilon(1e-14));
  }
  Grid g(2, 2);
  g.values = {3.0f, 4.0f, 0.0f, 0.0f};
  CHECK(learnedRowNorm(g, 0) == 5.0);  // a 3-4-5 triangle
  CHECK(learnedRowNorm(g, 1) == 0.0);
  CHECK_THROWS_WITH_AS(learnedRowNorm(g, 2), doctest::Contains("pos 2 has no row"), std::out_of_range);
}

TEST_CASE("areaAverageDiagonals equals areaAverageWindow over the grid built whole") {
  Rng rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    const int T = 1 + static_cast<int>(rng.uniform() * 90);
    std::vector<double> f(static_cast<std::size_t>(2 * T - 1));
    for (double& v : f) v = rng.uniform() * 200.0 - 100.0;
    Grid full(T, T);
    for (int m = 0; m < T; ++m)
      for (int n = 0; n < T; ++n) full.at(m, n) = static_cast<float>(f[static_cast<std::size_t>(m - n + T - 1)]);
    GridWindow w;
    w.row0 = static_cast<long long>(rng.uniform() * T * 0.5);
    w.col0 = static_cast<long long>(rng.uniform() * T * 0.5);
    w.rows = 1 + static_cast<long long>(rng.uniform() * static_cast<double>(T - w.row0 - 1));
    w.cols = 1 + static_cast<long long>(rng.uniform() * static_cast<double>(T - w.col0 - 1));
    w.outRows = 1 + static_cast<int>(rng.uniform() * static_cast<double>(w.rows - 1));
    w.outCols = 1 + static_cast<int>(rng.uniform() * static_cast<double>(w.cols - 1));
    CAPTURE(T);
    CAPTURE(trial);
    Grid brute, fast;
    areaAverageWindow(full, w, brute);
    REQUIRE(areaAverageDiagonals(f, T - 1, w, fast));
    REQUIRE(fast.rows == brute.rows);
    REQUIRE(fast.cols == brute.cols);
    for (std::size_t i = 0; i < fast.values.size(); ++i) CHECK(fast.values[i] == doctest::Approx(brute.values[i]).epsilon(1e-5));
  }
  GridWindow w = fullWindow(4, 4, 2, 2);
  Grid out;
  const std::vector<double> shortF(6, 1.0);  // a 4 x 4 grid needs 7 offsets
  CHECK_THROWS_WITH_AS(areaAverageDiagonals(shortF, 3, w, out), doctest::Contains("spans [0, 6]"), std::invalid_argument);
  const std::vector<double> f(7, 1.0);
  CHECK_FALSE(areaAverageDiagonals(f, 3, w, out, [] { return true; }));  // cancelled at once
}

TEST_CASE("sinusoidalOffsetResidual: M_k carries PE(pos) to PE(pos + k) to rounding") {
  SinusoidalParams p;
  p.dModel = 16;
  for (double k : {-3.0, 0.0, 1.0, 7.0, 100.0}) {
    const std::vector<double> mk = sinusoidalOffsetMatrix(p, k);
    const double pos = 20.0;
    const std::vector<double> pe = sinusoidalVector(p, pos), peK = sinusoidalVector(p, pos + k);
    CHECK(sinusoidalOffsetResidual(mk, pe, peK) < 1e-12);
    // Brute force against a target off by 0.25 in one dimension.
    std::vector<double> off = peK;
    off[5] += 0.25;
    CHECK(sinusoidalOffsetResidual(mk, pe, off) == doctest::Approx(0.25).epsilon(1e-9));
  }
  CHECK_THROWS_AS(sinusoidalOffsetResidual(std::vector<double>(15), std::vector<double>(4), std::vector<double>(4)),
                  std::invalid_argument);
  CHECK_THROWS_AS(sinusoidalOffsetResidual(std::vector<double>(16), std::vector<double>(4), std::vector<double>(3)),
                  std::invalid_argument);
}
