// Tests for core/random: the SplitMix64 stream (reference values from Vigna's splitmix64.c with
// seed 0), the uniform and normal transforms.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/random.hpp"

using namespace posviz;

TEST_CASE("random: SplitMix64 matches the reference stream for seed 0") {
  Rng r(0);
  CHECK(r.nextU64() == 0xe220a8397b1dcdafull);
  CHECK(r.nextU64() == 0x6e789e6aa1b965f4ull);
  CHECK(r.nextU64() == 0x06c45d188009454full);
}

TEST_CASE("random: discard(n) skips n outputs; skipNormals(n) goes on with normal number n, odd n too") {
  Rng stepped(9), jumped(9);
  for (int i = 0; i < 1001; ++i) stepped.nextU64();
  jumped.discard(1001);
  CHECK(jumped.nextU64() == stepped.nextU64());
  Rng whole(5), piece(5);
  std::vector<double> normals;
  for (int i = 0; i < 10; ++i) normals.push_back(whole.normal());
  piece.discard(6);   // normals 6.. come from uniforms 6..
  for (int i = 6; i < 10; ++i) CHECK(piece.normal() == normals[static_cast<std::size_t>(i)]);
  for (std::uint64_t skip : {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{7}}) {   // odd counts too
    CAPTURE(skip);
    Rng from(5);
    from.skipNormals(skip);
    for (std::size_t i = skip; i < normals.size(); ++i) CHECK(from.normal() == normals[i]);
  }
}

TEST_CASE("random: uniform is in [0, 1) and is the top 53 bits") {
  Rng a(42), b(42);
  for (int i = 0; i < 1000; ++i) {
    CAPTURE(i);
    const double u = a.uniform();
    CHECK(u >= 0.0);
    CHECK(u < 1.0);
    CHECK(u == static_cast<double>(b.nextU64() >> 11) / 9007199254740992.0);
  }
}

TEST_CASE("random: normal has mean 0 and variance 1") {
  Rng r(7);
  constexpr int kN = 200000;
  double sum = 0, sumSq = 0;
  for (int i = 0; i < kN; ++i) {
    const double x = r.normal();
    REQUIRE(std::isfinite(x));
    sum += x;
    sumSq += x * x;
  }
  const double mean = sum / kN;
  const double var = sumSq / kN - mean * mean;
  // Standard errors: mean 1/sqrt(N) = 0.0022, variance sqrt(2/N) = 0.0032; bounds are ~5 sigma.
  CHECK(std::fabs(mean) < 0.012);
  CHECK(std::fabs(var - 1.0) < 0.016);
}

TEST_CASE("random: randomNormalVector is deterministic, seeded and scaled") {
  const auto a = randomNormalVector(64, 123);
  const auto b = randomNormalVector(64, 123);
  const auto c = randomNormalVector(64, 124);
  const auto s = randomNormalVector(64, 123, 0.5);
  REQUIRE(a.size() == 64);
  CHECK(a == b);
  CHECK(a != c);
  Rng r(123);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    CHECK(a[i] == static_cast<float>(r.normal()));
    CHECK(s[i] == doctest::Approx(0.5 * a[i]).epsilon(1e-6));
  }
  CHECK(randomNormalVector(0, 1).empty());
  CHECK_THROWS_WITH_AS(randomNormalVector(-1, 1), "randomNormalVector: n must be >= 0, got -1", std::invalid_argument);
  CHECK_THROWS_WITH_AS(randomNormalVector(4, 1, -1.0), "randomNormalVector: stddev must be a finite number >= 0, got -1",
                       std::invalid_argument);
}
