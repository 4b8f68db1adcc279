// Tests for core/rope: hand-computed rotations, the relative-position property, layouts and
// their permutation, partial rotary, the KV-cache offset, grids, the decay bound, bad input.
//
// [SECTION] hand-computed values (2-D rotation, frequencies, pairs, rotary dims)
// [SECTION] properties (norm, relative position, grid vs direct score, layout permutation, KV cache)
// [SECTION] grids and the decay bound
// [SECTION] bad input
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "core/grid.hpp"
#include "core/rope.hpp"

using namespace posviz;

namespace {

constexpr double kPi = std::numbers::pi;

// Deterministic, non-trivial test vectors (no RNG dependency).
std::vector<float> testVector(int n, float phase) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) v[static_cast<std::size_t>(j)] = static_cast<float>(std::sin(0.7 * j + phase) + 0.1 * j / n);
  return v;
}

double norm(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

RopeParams yarnParams(RopeLayout layout) {
  RopeParams p;
  p.headDim = 64;
  p.layout = layout;
  p.scaling.method = ScalingMethod::Yarn;
  p.scaling.factor = 4.0;
  p.scaling.originalMaxPositions = 512;
  return p;
}

}  // namespace

TEST_SUITE("rope") {

// [SECTION] hand-computed values (2-D rotation, frequencies, pairs, rotary dims)

TEST_CASE("rope: 2-D rotation by theta = 1 rad at m = 5 and n = 2") {
  // headDim 2: the only pair has theta_0 = base^0 = 1 rad per position, whatever the base.
  RopeParams p;
  p.headDim = 2;
  for (RopeLayout layout : {RopeLayout::HalfSplit, RopeLayout::Interleaved}) {
    CAPTURE(ropeLayoutName(layout));
    p.layout = layout;
    CHECK(ropeAngle(p, 5.0, 0) == 5.0);
    // q = [1, 0] at m = 5 -> [cos 5, sin 5].
    const std::vector<double> q = ropeRotate(p, std::vector<double>{1.0, 0.0}, 5.0);
    CHECK(q[0] == doctest::Approx(0.283662185463).epsilon(1e-12));
    CHECK(q[1] == doctest::Approx(-0.958924274663).epsilon(1e-12));
    // k = [0, 1] at n = 2 -> [-sin 2, cos 2].
    const std::vector<double> k = ropeRotate(p, std::vector<double>{0.0, 1.0}, 2.0);
    CHECK(k[0] == doctest::Approx(-0.909297426826).epsilon(1e-12));
    CHECK(k[1] == doctest::Approx(-0.416146836547).epsilon(1e-12));
    // <R_5 q, R_2 k> = -cos5 sin2 + sin5 cos2 = sin(5 - 2) = sin 3 = 0.141120008.
    // (Keeping only the first product, cos5 * -sin2 = -0.2579, is not the dot product.)
    const std::vector<float> qf{1.0f, 0.0f}, kf{0.0f, 1.0f};
    CHECK(ropeScore(p, qf, kf, 5.0, 2.0) == doctest::Approx(0.141120008060).epsilon(1e-12));
    CHECK(q[0] * k[0] + q[1] * k[1] == doctest::Approx(std::sin(3.0)).epsilon(1e-14));
    // The float overload agrees to float precision.
    const std::vector<float> qr = ropeRotate(p, std::span<const float>(qf), 5.0);
    CHECK(qr[0] == doctest::Approx(std::cos(5.0)).epsilon(1e-7));
    CHECK(qr[1] == doctest::Approx(std::sin(5.0)).epsilon(1e-7));
  }
}

TEST_CASE("rope: frequencies, pairs and rotary dims") {
  RopeParams p;
  p.headDim = 8;
  // theta_i = 10000^(-2i/8): 1, 0.1, 0.01, 0.001.
  const RopeFrequencies f = ropeFrequencies(p);
  REQUIRE(f.invFreq.size() == 4);
  CHECK(f.invFreq[2] == doctest::Approx(0.01).epsilon(1e-15));
  CHECK(ropeAngle(p, 300.0, 3) == doctest::Approx(0.3).epsilon(1e-14));
  CHECK(ropeRotaryDims(p) == 8);
  CHECK(ropeNumPairs(p) == 4);

  p.layout = RopeLayout::HalfSplit;
  CHECK(ropePairDims(p, 1).a == 1);
  CHECK(ropePairDims(p, 1).b == 5);
  p.layout = RopeLayout::Interleaved;
  CHECK(ropePairDims(p, 1).a == 2);
  CHECK(ropePairDims(p, 1).b == 3);
  CHECK(std::string(ropeLayoutName(RopeLayout::HalfSplit)) == "half-split");
  CHECK(std::string(ropeLayoutName(RopeLayout::Interleaved)) == "interleaved");
  CHECK(parseRopeLayoutName("half-split") == RopeLayout::HalfSplit);
  CHECK(parseRopeLayoutName("interleaved") == RopeLayout::Interleaved);
  CHECK_FALSE(parseRopeLayoutName("neox").has_value());

  SUBCASE("partial rotary: int(headDim * fraction) rounded down to even") {
    p.headDim = 64;
    p.rotaryFraction = 0.25;
    CHECK(ropeRotaryDims(p) == 16);
    p.headDim = 10;
    p.rotaryFraction = 0.5;  // int(5) -> 4
    CHECK(ropeRotaryDims(p) == 4);
    CHECK(ropeNumPairs(p) == 2);
    p.layout = RopeLayout::HalfSplit;
    CHECK(ropePairDims(p, 1).a == 1);
    CHECK(ropePairDims(p, 1).b == 3);  // i + rotaryDims/2, not i + headDim/2
    // Frequencies over the rotary dims: theta_1 = 10000^(-2/4) = 0.01.
    CHECK(ropeFrequencies(p).invFreq[1] == doctest::Approx(0.01).epsilon(1e-15));
  }
}

// [SECTION] properties (norm, relative position, grid vs direct score, layout permutation, KV cache)

TEST_CASE("rope: rotation keeps the norm") {
  for (RopeLayout layout : {RopeLayout::HalfSplit, RopeLayout::Interleaved}) {
    for (double fraction : {1.0, 0.5}) {
      RopeParams p;
      p.headDim = 32;
      p.layout = layout;
      p.rotaryFraction = fraction;
      const std::vector<float> xf = testVector(32, 0.3f);
      const std::vector<double> x(xf.begin(), xf.end());
      for (double pos : {0.0, 1.0, 17.0, 1000.0, 123456.0}) {
        CAPTURE(ropeLayoutName(layout));
        CAPTURE(fraction);
        CAPTURE(pos);
        CHECK(norm(ropeRotate(p, x, pos)) == doctest::Approx(norm(x)).epsilon(1e-13));
      }
    }
  }
  SUBCASE("an attention factor scales the rotary part only") {
    RopeParams p = yarnParams(RopeLayout::HalfSplit);
    p.scaling.attentionFactor = 2.0;
    p.rotaryFraction = 0.5;  // dims 0..31 rotate, 32..63 pass through
    std::vector<double> x(64, 0.0);
    x[3] = 3.0;
    x[40] = 4.0;
    const std::vector<double> y = ropeRotate(p, x, 9.0);
    CHECK(y[40] == 4.0);
    CHECK(std::hypot(y[3], y[3 + 16]) == doctest::Approx(6.0).epsilon(1e-14));
  }
}

TEST_CASE("rope: q.k depends only on m - n") {
  const std::vector<float> q = testVector(64, 0.1f);
  const std::vector<float> k = testVector(64, 1.9f);
  for (RopeLayout layout : {RopeLayout::HalfSplit, RopeLayout::Interleaved}) {
    for (int variant = 0; variant < 3; ++variant) {
      RopeParams p;
      p.headDim = 64;
      p.layout = layout;
      if (variant == 1) p = yarnParams(layout);
      if (variant == 2) p.rotaryFraction = 0.5;
      CAPTURE(ropeLayoutName(layout));
      CAPTURE(variant);
      for (double r : {-7.0, 0.0, 3.0, 250.0}) {
        CAPTURE(r);
        const double ref = ropeScore(p, q, k, 300.0 + r, 300.0);
        for (double n : {0.0, 1.0, 42.0, 1000.0, 4097.0}) {
          if (n + r < 0.0) continue;
          CAPTURE(n);
          CHECK(ropeScore(p, q, k, n + r, n) == doctest::Approx(ref).epsilon(1e-9));
        }
      }
    }
  }
  SUBCASE("and does change with m - n") {
    RopeParams p;
    p.headDim = 64;
    CHECK(ropeScore(p, q, k, 5.0, 0.0) != doctest::Approx(ropeScore(p, q, k, 6.0, 0.0)).epsilon(1e-6));
  }
}

TEST_CASE("rope: the score grid and the by-offset scores match the direct score") {
  const std::vector<float> q = testVector(16, 0.4f);
  const std::vector<float> k = testVector(16, 2.2f);
  for (RopeLayout layout : {RopeLayout::HalfSplit, RopeLayout::Interleaved}) {
    RopeParams p;
    p.headDim = 16;
    p.layout = layout;
    p.rotaryFraction = 0.75;  // 12 rotary dims, 4 pass through
    p.scaling.method = ScalingMethod::Yarn;
    p.scaling.factor = 8.0;
    p.scaling.originalMaxPositions = 64;
    const int numPositions = 12;
    const long long firstPos = 100;
    const Grid g = ropeScoreGrid(p, q, k, numPositions, firstPos);
    REQUIRE(g.rows == numPositions);
    REQUIRE(g.cols == numPositions);
    const std::vector<double> byOffset = ropeScoreByOffset(p, q, k, numPositions);
    REQUIRE(byOffset.size() == 2 * numPositions - 1);
    for (int m = 0; m < numPositions; ++m) {
      for (int n = 0; n < numPositions; ++n) {
        CAPTURE(ropeLayoutName(layout));
        CAPTURE(m);
        CAPTURE(n);
        const double direct = ropeScore(p, q, k, static_cast<double>(firstPos + m), static_cast<double>(firstPos + n));
        CHECK(g.at(m, n) == doctest::Approx(direct).epsilon(1e-6));  // float32 cell
        CHECK(byOffset[static_cast<std::size_t>(m - n + numPositions - 1)] == doctest::Approx(direct).epsilon(1e-10));
      }
    }
  }
}

TEST_CASE("rope: the layout permutation maps one convention onto the other") {
  // interleaved[k] = halfSplit[perm[k]]: perm[2i] = i, perm[2i+1] = i + d/2.
  const std::vector<int> perm = ropeLayoutPermutation(8);
  const std::vector<int> expected{0, 4, 1, 5, 2, 6, 3, 7};
  CHECK(perm == expected);

  const int d = 32;
  const std::vector<int> p32 = ropeLayoutPermutation(d);
  const std::vector<float> qHalf = testVector(d, 0.5f);
  const std::vector<float> kHalf = testVector(d, 2.5f);
  std::vector<float> qInter(d), kInter(d);
  for (int j = 0; j < d; ++j) {
    qInter[j] = qHalf[p32[j]];
    kInter[j] = kHalf[p32[j]];
  }
  RopeParams half = yarnParams(RopeLayout::HalfSplit);
  half.headDim = d;
  RopeParams inter = half;
  inter.layout = RopeLayout::Interleaved;
  for (double m : {0.0, 3.0, 77.0, 2000.0}) {
    for (double n : {0.0, 5.0, 1999.0}) {
      CAPTURE(m);
      CAPTURE(n);
      CHECK(ropeScore(inter, qInter, kInter, m, n) == doctest::Approx(ropeScore(half, qHalf, kHalf, m, n)).epsilon(1e-14));
    }
  }
  // The rotated vectors themselves are permutations of each other.
  const std::vector<float> rh = ropeRotate(half, qHalf, 77.0);
  const std::vector<float> ri = ropeRotate(inter, qInter, 77.0);
  for (int j = 0; j < d; ++j) {
    CAPTURE(j);
    CHECK(ri[j] == rh[p32[j]]);
  }
  // Without permuting, the two conventions disagree.
  CHECK(ropeScore(inter, qHalf, kHalf, 77.0, 0.0) != doctest::Approx(ropeScore(half, qHalf, kHalf, 77.0, 0.0)).epsilon(1e-6));
}

TEST_CASE("rope: KV-cache offset equals the full pass") {
  for (RopeLayout layout : {RopeLayout::HalfSplit, RopeLayout::Interleaved}) {
    CAPTURE(ropeLayoutName(layout));
    RopeParams p = yarnParams(layout);
    p.headDim = 16;
    p.rotaryFraction = 0.5;
    const int numTokens = 10, offset = 6, headDim = 16;
    std::vector<float> in;
    for (int t = 0; t < numTokens; ++t) {
      const std::vector<float> row = testVector(headDim, 0.37f * static_cast<float>(t));
      in.insert(in.end(), row.begin(), row.end());
    }
    std::vector<float> full(in.size());
    ropeApplyInto(p, in.data(), full.data(), numTokens, 0);
    std::vector<float> tail(in.begin() + offset * headDim, in.end());
    ropeApplyInto(p, tail.data(), tail.data(), numTokens - offset, offset);  // in place
    for (int t = 0; t < numTokens - offset; ++t) {
      for (int j = 0; j < headDim; ++j) {
        CAPTURE(t);
        CAPTURE(j);
        CHECK(tail[t * headDim + j] == full[(t + offset) * headDim + j]);
      }
    }
    // Row t of the full pass is the vector rotated to position t; the tail dims pass through
    // exactly. ropeApplyInto rotates in float32 (core/kernels.hpp): within 2e-6 * attention
    // factor * max|x| of ropeRotate's float64 rotation.
    const double af = ropeFrequencies(p).attentionFactor;
    for (int t = 0; t < numTokens; ++t) {
      const std::vector<float> x(in.begin() + t * headDim, in.begin() + (t + 1) * headDim);
      const std::vector<float> y = ropeRotate(p, x, static_cast<double>(t));
      double maxAbs = 0.0;
      for (float v : x) maxAbs = std::max(maxAbs, std::fabs(static_cast<double>(v)));
      const double tol = 2e-6 * af * maxAbs;
      for (int j = 0; j < headDim; ++j) {
        CAPTURE(t);
        CAPTURE(j);
        CHECK(std::fabs(static_cast<double>(full[t * headDim + j]) - y[j]) <= tol);
        if (j >= 8) CHECK(full[t * headDim + j] == x[j]);
      }
    }
  }
}

// [SECTION] grids and the decay bound

TEST_CASE("rope: angle, cos and sin grids") {
  RopeParams p;
  p.headDim = 8;
  const Grid a = ropeAngleGrid(p, 5, 1000);
  REQUIRE(a.rows == 5);
  REQUIRE(a.cols == 4);
  for (int t = 0; t < 5; ++t) {
    for (int i = 0; i < 4; ++i) {
      CAPTURE(t);
      CAPTURE(i);
      CHECK(a.at(t, i) >= 0.0f);
      CHECK(a.at(t, i) < static_cast<float>(2.0 * kPi));
      const double angle = (1000.0 + t) * std::pow(10000.0, -2.0 * i / 8.0);
      CHECK(a.at(t, i) == doctest::Approx(std::fmod(angle, 2.0 * kPi)).epsilon(1e-6));
    }
  }
  // Pair 0 at pos 1000: 1000 rad = 159 turns + 1000 - 318 pi = 0.97353 rad.
  CHECK(a.at(0, 0) == doctest::Approx(1000.0 - 318.0 * kPi).epsilon(1e-6));
  // Pair 0 at pos 7 wraps to 7 - 2 pi = 0.71681 rad.
  CHECK(ropeAngleGrid(p, 8).at(7, 0) == doctest::Approx(7.0 - 2.0 * kPi).epsilon(1e-6));

  SUBCASE("cos and sin carry the attention factor") {
    p.scaling.method = ScalingMethod::Yarn;
    p.scaling.factor = 4.0;
    const double af = 0.1 * std::log(4.0) + 1.0;
    const RopeFrequencies f = ropeFrequencies(p);
    const Grid c = ropeCosGrid(p, 6, 3);
    const Grid s = ropeSinGrid(p, 6, 3);
    for (int t = 0; t < 6; ++t) {
      for (int i = 0; i < 4; ++i) {
        CAPTURE(t);
        CAPTURE(i);
        const double angle = (3.0 + t) * f.invFreq[i];
        CHECK(c.at(t, i) == doctest::Approx(std::cos(angle) * af).epsilon(1e-6));
        CHECK(s.at(t, i) == doctest::Approx(std::sin(angle) * af).epsilon(1e-6));
        CHECK(c.at(t, i) * c.at(t, i) + s.at(t, i) * s.at(t, i) == doctest::Approx(af * af).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("rope: RoFormer's long-term decay bound") {
  SUBCASE("hand-computed for d = 4") {
    // theta = {1, 0.01}. r = 0: |S_1| = 1, |S_2| = 2 -> (1 + 2) / 2 = 1.5.
    // r = 1: |S_2| = |e^{i} + e^{0.01 i}| = 2 cos(0.495) = 1.759937 -> (1 + 1.759937) / 2 = 1.379969.
    // r = 3: |S_2| = 2 |cos(1.485)| = 0.171382 -> 0.585691.
    RopeParams p;
    p.headDim = 4;
    const std::vector<double> b = ropeDecayBound(p, 3);
    REQUIRE(b.size() == 4);
    CHECK(b[0] == doctest::Approx(1.5).epsilon(1e-15));
    CHECK(b[1] == doctest::Approx(0.5 + std::cos(0.495)).epsilon(1e-14));
    CHECK(b[1] == doctest::Approx(1.37996870984).epsilon(1e-11));
    CHECK(b[3] == doctest::Approx(0.585691107596).epsilon(1e-11));
  }
  SUBCASE("decays with distance for d = 128") {
    RopeParams p;
    p.headDim = 128;
    const std::vector<double> b = ropeDecayBound(p, 1000);
    REQUIRE(b.size() == 1001);
    CHECK(b[0] == doctest::Approx((64.0 + 1.0) / 2.0).epsilon(1e-15));  // mean of |S_j| = j
    // numpy re-evaluation of the same sum: 17.954 at r = 10, 10.227 at r = 100, 4.4708 at r = 1000.
    CHECK(b[10] == doctest::Approx(17.95413713708483).epsilon(1e-11));
    CHECK(b[100] == doctest::Approx(10.227329948505155).epsilon(1e-11));
    CHECK(b[1000] == doctest::Approx(4.470761034248712).epsilon(1e-11));
    for (int r = 100; r <= 1000; ++r) {
      CAPTURE(r);
      CHECK(b[r] < 0.4 * b[0]);
    }
  }
  SUBCASE("a million distances agree with the sum evaluated term by term") {
    // The long run advances each e^{i r theta_k} by complex products between exact seeds; the
    // direct evaluation below takes cos and sin of r theta_k for every term. Both round r theta_k
    // to a double (one ulp at 10^6 rad is 1.2e-10), so they agree to ~1e-10, not to 1e-15.
    RopeParams p;
    p.headDim = 64;
    p.base = 500000.0;
    const int maxDistance = 1 << 20;
    const std::vector<double> b = ropeDecayBound(p, maxDistance);
    REQUIRE(b.size() == static_cast<std::size_t>(maxDistance) + 1);
    const RopeFrequencies f = ropeFrequencies(p);
    for (long long r : {0LL, 1LL, 7LL, 8LL, 511LL, 512LL, 513LL, 4095LL, 65537LL, 999999LL, 1048575LL, 1048576LL}) {
      double sr = 0.0, si = 0.0, total = 0.0;
      for (double t : f.invFreq) {
        sr += std::cos(static_cast<double>(r) * t);
        si += std::sin(static_cast<double>(r) * t);
        total += std::hypot(sr, si);
      }
      CAPTURE(r);
      CHECK(b[static_cast<std::size_t>(r)] == doctest::Approx(total / static_cast<double>(f.invFreq.size())).epsilon(1e-9));
    }
  }
}

// [SECTION] bad input

TEST_CASE("rope: bad arguments are rejected with the parameter and value") {
  RopeParams p;
  p.headDim = 8;
  const std::vector<float> v8(8, 1.0f), v6(6, 1.0f);
  SUBCASE("params") {
    RopeParams bad = p;
    bad.headDim = 63;
    CHECK_THROWS_WITH_AS(ropeFrequencies(bad), "ropeFrequencies: headDim must be even and > 0, got 63", std::invalid_argument);
    bad.headDim = 0;
    CHECK_THROWS_WITH_AS(ropeAngle(bad, 1.0, 0), "ropeAngle: headDim must be even and > 0, got 0", std::invalid_argument);
    bad = p;
    bad.base = 1.0;
    CHECK_THROWS_WITH_AS(ropeAngleGrid(bad, 4), "ropeAngleGrid: base must be a finite number > 1, got 1", std::invalid_argument);
    bad.base = INFINITY;
    CHECK_THROWS_WITH_AS(ropeCosGrid(bad, 4), "ropeCosGrid: base must be a finite number > 1, got inf", std::invalid_argument);
    bad = p;
    bad.rotaryFraction = 0.0;
    CHECK_THROWS_WITH_AS(ropeSinGrid(bad, 4), "ropeSinGrid: rotaryFraction must be in (0, 1], got 0", std::invalid_argument);
    bad.rotaryFraction = 1.5;
    CHECK_THROWS_WITH_AS(ropeSinGrid(bad, 4), "ropeSinGrid: rotaryFraction must be in (0, 1], got 1.5", std::invalid_argument);
    bad.rotaryFraction = NAN;
    CHECK_THROWS_WITH_AS(ropeSinGrid(bad, 4), "ropeSinGrid: rotaryFraction must be in (0, 1], got nan", std::invalid_argument);
    bad.rotaryFraction = 0.2;  // int(8 * 0.2) = 1 -> 0 dims
    CHECK_THROWS_WITH_AS(ropeFrequencies(bad),
                         "ropeFrequencies: rotaryFraction must leave at least 2 rotary dims (int(headDim * rotaryFraction) "
                         "rounded down to even), got 0.2 with headDim 8 (0 dims)",
                         std::invalid_argument);
    bad = p;
    bad.layout = static_cast<RopeLayout>(7);
    CHECK_THROWS_WITH_AS(ropeFrequencies(bad), "ropeFrequencies: layout must be HalfSplit or Interleaved, got 7",
                         std::invalid_argument);
    bad = p;
    bad.scaling.method = ScalingMethod::Linear;
    bad.scaling.factor = 0.5;
    CHECK_THROWS_WITH_AS(ropeScoreGrid(bad, v8, v8, 4), "ropeScoreGrid: factor must be a finite number >= 1, got 0.5",
                         std::invalid_argument);
    bad.scaling.method = ScalingMethod::LongRope;
    bad.scaling.factor = 2.0;
    bad.scaling.shortFactor = {1.0, 1.0, 1.0};
    bad.scaling.longFactor = {1.0, 1.0, 1.0, 1.0};
    CHECK_THROWS_WITH_AS(ropeFrequencies(bad), "ropeFrequencies: shortFactor has 3 entries, need rotaryDims/2 = 4",
                         std::invalid_argument);
  }
  SUBCASE("positions and indices") {
    CHECK_THROWS_WITH_AS(ropeAngle(p, -1.0, 0), "ropeAngle: pos must be a finite number >= 0, got -1", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeAngle(p, NAN, 0), "ropeAngle: pos must be a finite number >= 0, got nan", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeAngle(p, 1.0, 4), "ropeAngle: pair must be in [0, 3], got 4", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropePairDims(p, -1), "ropePairDims: pair must be in [0, 3], got -1", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeRotate(p, v8, INFINITY), "ropeRotate: pos must be a finite number >= 0, got inf",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeScore(p, v8, v8, -2.0, 0.0), "ropeScore: m must be a finite number >= 0, got -2",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeScore(p, v8, v8, 0.0, NAN), "ropeScore: n must be a finite number >= 0, got nan",
                         std::invalid_argument);
  }
  SUBCASE("vector sizes and values") {
    CHECK_THROWS_WITH_AS(ropeRotate(p, v6, 1.0), "ropeRotate: x has 6 values, need headDim = 8", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeScore(p, v8, v6, 1.0, 0.0), "ropeScore: q and k must have the same size, got 8 and 6",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeScoreGrid(p, v6, v6, 4), "ropeScoreGrid: q has 6 values, need headDim = 8", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeScoreByOffset(p, v8, v6, 4), "ropeScoreByOffset: q and k must have the same size, got 8 and 6",
                         std::invalid_argument);
    RopeParams huge = p;
    huge.scaling.method = ScalingMethod::Yarn;
    huge.scaling.factor = 2.0;
    huge.scaling.attentionFactor = 1e300;  // valid alone, but the score scales by its square
    CHECK_THROWS_WITH_AS(ropeScoreByOffset(huge, v8, v8, 4),
                         "ropeScoreByOffset: attentionFactor^2 times the q, k products of pair 0 must be finite, got "
                         "attentionFactor 1e+300",
                         std::invalid_argument);
    huge.scaling.attentionFactor = 1e150;  // af^2 = 1e300 is finite; the scores are too
    CHECK(std::isfinite(ropeScoreByOffset(huge, v8, v8, 4)[3]));
    std::vector<float> nanVec(8, 0.0f);
    nanVec[2] = NAN;
    CHECK_THROWS_WITH_AS(ropeScore(p, v8, nanVec, 1.0, 0.0), "ropeScore: k[2] must be finite, got nan", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeRotate(p, nanVec, 1.0), "ropeRotate: x[2] must be finite, got nan", std::invalid_argument);
  }
  SUBCASE("sizes") {
    CHECK_THROWS_WITH_AS(ropeAngleGrid(p, 0), "ropeAngleGrid: numPositions must be > 0, got 0", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeCosGrid(p, 4, -1), "ropeCosGrid: firstPos must be >= 0, got -1", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeSinGrid(p, 4, 1LL << 53),
                         "ropeSinGrid: firstPos + numPositions must be <= 2^53 (exact in float64), got firstPos "
                         "9007199254740992 with numPositions 4",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeScoreGrid(p, v8, v8, -3), "ropeScoreGrid: numPositions must be > 0, got -3", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeScoreByOffset(p, v8, v8, 0), "ropeScoreByOffset: numPositions must be > 0, got 0",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeDecayBound(p, -1), "ropeDecayBound: maxDistance must be >= 0, got -1", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeLayoutPermutation(7), "ropeLayoutPermutation: d must be even and > 0, got 7", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeLayoutPermutation(0), "ropeLayoutPermutation: d must be even and > 0, got 0", std::invalid_argument);
  }
  SUBCASE("ropeApplyInto") {
    std::vector<float> buf(16, 1.0f);
    CHECK_THROWS_WITH_AS(ropeApplyInto(p, nullptr, buf.data(), 2, 0), "ropeApplyInto: in must not be null", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeApplyInto(p, buf.data(), nullptr, 2, 0), "ropeApplyInto: out must not be null", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeApplyInto(p, buf.data(), buf.data(), 0, 0), "ropeApplyInto: numTokens must be > 0, got 0",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeApplyInto(p, buf.data(), buf.data(), 2, -4), "ropeApplyInto: firstPos must be >= 0, got -4",
                         std::invalid_argument);
    std::vector<float> bad(16, 1.0f), out(16, 7.0f);
    bad[11] = -INFINITY;
    CHECK_THROWS_WITH_AS(ropeApplyInto(p, bad.data(), out.data(), 2, 0), "ropeApplyInto: in[1][3] must be finite, got -inf",
                         std::invalid_argument);
    CHECK(out == std::vector<float>(16, 7.0f));  // nothing written on failure
    CHECK(buf == std::vector<float>(16, 1.0f));  // nothing written on failure
  }
  SUBCASE("memory budget") {
    const std::uint64_t saved = memoryBudgetBytes();
    setMemoryBudgetBytes(1024);
    CHECK_THROWS_WITH_AS(ropeScoreGrid(p, v8, v8, 100), doctest::Contains("ropeScoreGrid: a grid of 100 x 100 x float32 needs"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(ropeAngleGrid(p, 1000), doctest::Contains("over the memory budget"), std::invalid_argument);
    CHECK_NOTHROW(ropeScoreGrid(p, v8, v8, 16));  // 16 * 16 * 4 = 1024 bytes fits exactly
    setMemoryBudgetBytes(saved);
  }
}

}  // TEST_SUITE
