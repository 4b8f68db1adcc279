// xPos (core/xpos.hpp). Scales restate torchscale's XPOS buffer and its power per position
// (torchscale/component/xpos_relative_position.py), evaluated with torch 1.13 in float32 (8 dims)
// and float64 (64 dims); the score is cross-checked against core's own interleaved RoPE rotation.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/rope.hpp"
#include "core/xpos.hpp"

using posviz::XposParams;

TEST_CASE("xpos: zeta and the query scales match torchscale's XPOS") {
  const XposParams p{8, 10000.0, 512.0};
  const double zeta[4] = {0.2857142984867096, 0.4642857015132904, 0.6428571343421936, 0.8214285969734192};
  for (int i = 0; i < 4; ++i) CHECK(posviz::xposZeta(p, i) == doctest::Approx(zeta[i]).epsilon(1e-7));
  const posviz::Grid g = posviz::xposScaleGrid(p, posviz::XposSide::Query, 1024);
  const std::vector<std::pair<int, std::vector<double>>> rows = {
      {0, {1.0, 1.0, 1.0, 1.0}},
      {1, {0.997556209564209, 0.9985025525093079, 0.9991374015808105, 0.9996158480644226}},
      {100, {0.7829548120498657, 0.8608331680297852, 0.9173231720924377, 0.9623087048530579}},
      {1023, {0.0818326473236084, 0.2158844769001007, 0.41362208127975464, 0.675004243850708}}};
  for (const auto& [n, expected] : rows) {
    const int position = n;   // CAPTURE's lambda cannot take a structured binding in clang 14
    for (int i = 0; i < 4; ++i) {
      CAPTURE(position);
      CAPTURE(i);
      CHECK(g.at(n, i) == doctest::Approx(expected[static_cast<std::size_t>(i)]).epsilon(2e-6));   // torch: float32
    }
  }
  const XposParams wide{64, 10000.0, 512.0};
  CHECK(posviz::xposQueryScale(wide, 0, 4096.0) == doctest::Approx(4.4407430542702215e-05).epsilon(1e-12));
  CHECK(posviz::xposQueryScale(wide, 31, 4096.0) == doctest::Approx(0.8347737271460449).epsilon(1e-12));
  CHECK(posviz::xposKeyScale(wide, 5, 300.0) * posviz::xposQueryScale(wide, 5, 300.0) == doctest::Approx(1.0));
}

TEST_CASE("xpos: the score is RoPE's rotated product scaled by zeta^((n - m)/scaleBase), pair by pair") {
  const XposParams p{8, 100.0, 64.0};
  const std::vector<double> q = {0.3, -1.2, 0.8, 0.5, -0.7, 1.1, 0.2, -0.4};
  const std::vector<double> k = {1.0, 0.4, -0.6, 0.9, 0.5, -0.3, 1.3, 0.7};
  posviz::RopeParams rope;
  rope.headDim = 8;
  rope.base = 100.0;
  rope.layout = posviz::RopeLayout::Interleaved;
  for (const auto& [n, m] : std::vector<std::pair<double, double>>{{0, 0}, {5, 2}, {40, 3}, {7, 30}, {500, 100}}) {
    const std::vector<double> qr = posviz::ropeRotate(rope, std::span<const double>(q), n);
    const std::vector<double> kr = posviz::ropeRotate(rope, std::span<const double>(k), m);
    double expected = 0.0;
    for (int i = 0; i < 4; ++i) {
      const double pair = qr[2 * i] * kr[2 * i] + qr[2 * i + 1] * kr[2 * i + 1];
      expected += posviz::xposQueryScale(p, i, n) * posviz::xposKeyScale(p, i, m) * pair;
    }
    const double queryPos = n, keyPos = m;   // CAPTURE's lambda cannot take a structured binding in clang 14
    CAPTURE(queryPos);
    CAPTURE(keyPos);
    CHECK(posviz::xposScore(p, q, k, n, m) == doctest::Approx(expected).epsilon(1e-12));
    // Only the offset matters, as in RoPE.
    CHECK(posviz::xposScore(p, q, k, n + 11, m + 11) == doctest::Approx(expected).epsilon(1e-9));
  }
}

TEST_CASE("xpos: the score by offset, stepped along d, is xposScore at every offset") {
  // Steps of one rotation and one factor per offset, restarted every 256: checked against the
  // direct sum (a pow, a cos and a sin per pair and offset) across several restarts.
  const XposParams p{48, 500.0, 64.0};
  std::vector<double> q(48), k(48);
  for (std::size_t i = 0; i < 48; ++i) {
    q[i] = std::sin(0.7 * static_cast<double>(i) + 0.3);
    k[i] = std::cos(1.3 * static_cast<double>(i)) - 0.2;
  }
  const std::vector<double> s = posviz::xposScoreByOffset(p, q, k, 1000);
  REQUIRE(s.size() == 1001);
  double scale = 0.0;
  for (std::size_t i = 0; i < 48; ++i) scale += std::fabs(q[i] * k[i]) * 2.0;
  for (int d = 0; d <= 1000; ++d) {
    CAPTURE(d);
    CHECK(std::fabs(s[static_cast<std::size_t>(d)] - posviz::xposScore(p, q, k, d, 0.0)) <= 1e-13 * scale);
  }
  CHECK_THROWS_AS(posviz::xposScoreByOffset(p, q, std::vector<double>(47, 1.0), 10), std::invalid_argument);
  CHECK_THROWS_AS(posviz::xposScoreByOffset(p, q, k, -1), std::invalid_argument);
}

TEST_CASE("xpos: with q = k = 1 the score is sum 2 zeta_i^(d/scaleBase) cos(d theta_i), inside a decaying envelope") {
  const XposParams p{64, 10000.0, 512.0};
  const std::vector<double> ones(64, 1.0);
  const std::vector<double> s = posviz::xposScoreByOffset(p, ones, ones, 4096);
  CHECK(s[0] == doctest::Approx(64.0));   // every pair: 2 * zeta^0 * cos 0
  double lastEnvelope = 65.0;
  for (int d : {0, 1, 100, 512, 2048, 4096}) {
    double closed = 0.0, envelope = 0.0;
    for (int i = 0; i < 32; ++i) {
      const double zeta = (2.0 * i + 0.4 * 64) / (1.4 * 64);
      closed += 2.0 * std::pow(zeta, d / 512.0) * std::cos(d * std::pow(10000.0, -2.0 * i / 64));
      envelope += 2.0 * std::pow(zeta, d / 512.0);
    }
    CAPTURE(d);
    CHECK(s[static_cast<std::size_t>(d)] == doctest::Approx(closed).epsilon(1e-12));
    CHECK(std::fabs(s[static_cast<std::size_t>(d)]) <= envelope + 1e-12);
    CHECK(envelope < lastEnvelope);   // RoPE's envelope stays 64; xPos's shrinks with distance
    lastEnvelope = envelope;
  }
  // At d = 4096 every pair is damped at least as much as the slowest, zeta_31 = 87.6 / 89.6, to the 8th.
  CHECK(lastEnvelope < 64.0 * std::pow(87.6 / 89.6, 8.0));
}

TEST_CASE("xpos: torchscale's first position, -(length + offset) // 2 + offset, and the key side's reciprocal") {
  // XPOS.forward: min_pos = -(length + offset) // 2 (floor), the last `length` rows kept.
  CHECK(posviz::xposTorchscaleFirstPosition(5) == -3);
  CHECK(posviz::xposTorchscaleFirstPosition(4) == -2);
  CHECK(posviz::xposTorchscaleFirstPosition(1) == -1);
  CHECK(posviz::xposTorchscaleFirstPosition(3, 2) == -1);   // arange(-3, 2)[-3:] = -1, 0, 1
  const XposParams p{8, 10000.0, 4.0};
  const posviz::Grid q = posviz::xposScaleGrid(p, posviz::XposSide::Query, 5, -3);
  const posviz::Grid k = posviz::xposScaleGrid(p, posviz::XposSide::Key, 5, -3);
  for (int n = 0; n < 5; ++n) {
    for (int i = 0; i < 4; ++i) {
      CAPTURE(n);
      CAPTURE(i);
      CHECK(q.at(n, i) * k.at(n, i) == doctest::Approx(1.0));
      CHECK(q.at(n, i) == doctest::Approx(std::pow(posviz::xposZeta(p, i), (n - 3) / 4.0)));
    }
  }
  CHECK_THROWS_WITH_AS(posviz::xposTorchscaleFirstPosition(0), doctest::Contains("length must be >= 1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::xposScaleGrid(p, posviz::XposSide::Key, 4, -(1LL << 53) - 1), doctest::Contains("firstPos"),
                       std::invalid_argument);
}

TEST_CASE("xpos: bad input names itself") {
  const XposParams p{64, 10000.0, 512.0};
  const std::vector<double> ones(64, 1.0);
  CHECK_THROWS_WITH_AS(posviz::xposZeta({63, 10000.0, 512.0}, 0), doctest::Contains("headDim"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::xposZeta({64, 10000.0, 0.0}, 0), doctest::Contains("scaleBase"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::xposZeta(p, 32), doctest::Contains("pair"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::xposScore(p, std::vector<double>(8, 1.0), ones, 1, 0), doctest::Contains("q has 8 values"),
                       std::invalid_argument);
}
