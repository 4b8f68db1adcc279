// Tests for core/sinusoidal: the document's worked example, the wavelength table, the offset
// property M_k PE(pos) = PE(pos+k), the Tensor2Tensor layout, similarity, budget and errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "core/grid.hpp"
#include "core/sinusoidal.hpp"

using namespace posviz;

namespace {

constexpr double kPi = std::numbers::pi;

SinusoidalParams interleaved(int d, double base = 10000.0) {
  SinusoidalParams p;
  p.dModel = d;
  p.base = base;
  return p;
}

SinusoidalParams t2t(int d, double maxTimescale = 10000.0, double minTimescale = 1.0) {
  SinusoidalParams p;
  p.dModel = d;
  p.base = maxTimescale;
  p.minTimescale = minTimescale;
  p.layout = SinusoidalLayout::Tensor2Tensor;
  return p;
}

struct BudgetGuard {
  std::uint64_t saved = memoryBudgetBytes();
  ~BudgetGuard() { setMemoryBudgetBytes(saved); }
};

}  // namespace

TEST_CASE("sinusoidal: PE at pos 3 with dModel 8 is the document's vector") {
  // sin(3), cos(3), sin(0.3), cos(0.3), sin(0.03), cos(0.03), sin(0.003), cos(0.003)
  const double expected[8] = {0.141120008, -0.989992497, 0.295520207, 0.955336489,
                              0.029995500, 0.999550034, 0.002999996, 0.999995500};
  const SinusoidalParams p = interleaved(8);
  const std::vector<double> v = sinusoidalVector(p, 3.0);
  REQUIRE(v.size() == 8);
  const Grid g = sinusoidalGrid(p, 4);
  for (int dim = 0; dim < 8; ++dim) {
    CAPTURE(dim);
    CHECK(std::fabs(v[dim] - expected[dim]) <= 1e-8);
    CHECK(std::fabs(sinusoidalValue(p, 3.0, dim) - expected[dim]) <= 1e-8);
    CHECK(std::fabs(static_cast<double>(g.at(3, dim)) - expected[dim]) <= 1e-7);
  }
  // Row 0 is sin(0) = 0, cos(0) = 1 in every pair.
  for (int dim = 0; dim < 8; ++dim) CHECK(g.at(0, dim) == (dim % 2 == 0 ? 0.0f : 1.0f));
}

TEST_CASE("sinusoidal: wavelength 2*pi*base^(2i/d) for dModel 512") {
  const SinusoidalParams p = interleaved(512);
  CHECK(sinusoidalWavelength(p, 0) == doctest::Approx(2 * kPi).epsilon(1e-15));
  // Pair 64 = dims 128, 129: 2*pi*10000^(128/512) = 2*pi*10 = 62.83 (the document's table says
  // ~630, which is pair 128 = dims 256, 257).
  CHECK(sinusoidalWavelength(p, 64) == doctest::Approx(20 * kPi).epsilon(1e-13));
  CHECK(sinusoidalWavelength(p, 128) == doctest::Approx(200 * kPi).epsilon(1e-13));
  // Pair 127 = dims 254, 255: 2*pi*10^(4*254/512) = 2*pi*96.466 = 606.11 (the document says
  // ~62,800, which is 2*pi*10^4, the limit as the pair index reaches d/2).
  CHECK(sinusoidalWavelength(p, 127) == doctest::Approx(606.1147716626106).epsilon(1e-13));
  // The last pair (255, dims 510, 511): 2*pi*10000^(510/512).
  CHECK(sinusoidalWavelength(p, 255) == doctest::Approx(2 * kPi * std::pow(10.0, 4.0 * 510 / 512)).epsilon(1e-13));
  for (int pair = 0; pair < 256; ++pair) {
    CAPTURE(pair);
    CHECK(sinusoidalFrequency(p, pair) * sinusoidalWavelength(p, pair) == doctest::Approx(2 * kPi).epsilon(1e-14));
  }
}

TEST_CASE("sinusoidal: dims map to pairs per layout") {
  const SinusoidalParams a = interleaved(8);
  const SinusoidalParams b = t2t(8);
  const int pairA[8] = {0, 0, 1, 1, 2, 2, 3, 3};
  const int pairB[8] = {0, 1, 2, 3, 0, 1, 2, 3};
  for (int dim = 0; dim < 8; ++dim) {
    CAPTURE(dim);
    CHECK(sinusoidalPairOfDim(a, dim) == pairA[dim]);
    CHECK(sinusoidalDimIsSin(a, dim) == (dim % 2 == 0));
    CHECK(sinusoidalPairOfDim(b, dim) == pairB[dim]);
    CHECK(sinusoidalDimIsSin(b, dim) == (dim < 4));
  }
}

TEST_CASE("sinusoidal: Tensor2Tensor timescales are log-spaced over n-1 steps") {
  // n = 4: log_inc = ln(10000)/3, inv_i = 10^(-4i/3): 1, 0.046416, 0.0021544, 0.0001.
  const SinusoidalParams p = t2t(8);
  CHECK(sinusoidalFrequency(p, 0) == doctest::Approx(1.0).epsilon(1e-15));
  CHECK(sinusoidalFrequency(p, 1) == doctest::Approx(0.046415888336127774).epsilon(1e-14));
  CHECK(sinusoidalFrequency(p, 2) == doctest::Approx(0.0021544346900318843).epsilon(1e-14));
  CHECK(sinusoidalFrequency(p, 3) == doctest::Approx(1e-4).epsilon(1e-14));
  // A sine block then a cosine block.
  const std::vector<double> v = sinusoidalVector(p, 3.0);
  CHECK(v[0] == doctest::Approx(std::sin(3.0)));
  CHECK(v[1] == doctest::Approx(std::sin(3.0 * 0.046415888336127774)));
  CHECK(v[3] == doctest::Approx(std::sin(3e-4)));
  CHECK(v[4] == doctest::Approx(std::cos(3.0)));
  CHECK(v[7] == doctest::Approx(std::cos(3e-4)));
  // minTimescale scales every frequency; n = 1 divides by max(n-1, 1) = 1.
  CHECK(sinusoidalFrequency(t2t(8, 10000.0, 2.0), 3) == doctest::Approx(2.0 * std::exp(-std::log(5000.0))).epsilon(1e-14));
  CHECK(sinusoidalFrequency(t2t(2), 0) == 1.0);
}

TEST_CASE("sinusoidal: the Tensor2Tensor grid is not a column permutation of the interleaved one") {
  const int d = 16, t = 64;
  const Grid a = sinusoidalGrid(interleaved(d), t);
  const Grid b = sinusoidalGrid(t2t(d), t);
  int unmatched = 0;
  for (int cb = 0; cb < d; ++cb) {
    bool found = false;
    for (int ca = 0; ca < d && !found; ++ca) {
      double diff = 0;
      for (int r = 0; r < t; ++r) diff = std::max(diff, std::fabs(static_cast<double>(a.at(r, ca)) - b.at(r, cb)));
      found = diff < 1e-6;
    }
    if (!found) ++unmatched;
  }
  // Only pair 0 (omega = 1 in both) coincides: t2t's last omega is 1/base, the interleaved
  // last is base^(-(d-2)/d). 14 of 16 columns have no partner.
  CHECK(unmatched == 14);
  // The sets of frequencies differ as well.
  CHECK(sinusoidalFrequency(interleaved(d), 1) == doctest::Approx(std::pow(10000.0, -2.0 / 16)));
  CHECK(sinusoidalFrequency(t2t(d), 1) == doctest::Approx(std::pow(10000.0, -1.0 / 7)));
}

TEST_CASE("sinusoidal: the halves layout (Marian, Pegasus) is the interleaved grid with sines first") {
  // HF MarianSinusoidalPositionalEmbedding._init_weight: out[:, :d/2] = sin(pos / 10000^(2j/d)),
  // out[:, d/2:] = cos(pos / 10000^(2j/d)), j = 0 .. d/2 - 1. Hand values for d = 4, pos = 1:
  // sin(1), sin(0.01), cos(1), cos(0.01).
  SinusoidalParams h = interleaved(4);
  h.layout = SinusoidalLayout::Halves;
  const std::vector<double> v = sinusoidalVector(h, 1.0);
  CHECK(v[0] == doctest::Approx(std::sin(1.0)));
  CHECK(v[1] == doctest::Approx(std::sin(0.01)));
  CHECK(v[2] == doctest::Approx(std::cos(1.0)));
  CHECK(v[3] == doctest::Approx(std::cos(0.01)));
  const int d = 16, t = 40;
  h.dModel = d;
  const Grid a = sinusoidalGrid(interleaved(d), t), b = sinusoidalGrid(h, t);
  for (int r = 0; r < t; ++r) {
    for (int i = 0; i < d / 2; ++i) {
      CHECK(b.at(r, i) == a.at(r, 2 * i));              // sin of pair i
      CHECK(b.at(r, d / 2 + i) == a.at(r, 2 * i + 1));  // cos of pair i
    }
  }
  CHECK(sinusoidalPairOfDim(h, d / 2 + 3) == 3);
  CHECK_FALSE(sinusoidalDimIsSin(h, d / 2));
}

TEST_CASE("sinusoidal: offset property PE(pos+k) = M_k PE(pos), both layouts") {
  for (const SinusoidalParams& p : {interleaved(16), t2t(16), interleaved(6, 100.0), t2t(10, 500.0, 0.5)}) {
    for (double pos : {0.0, 5.0, 100.0, 1000.0}) {
      for (double k : {1.0, 7.0, -3.0, 250.0, 0.5}) {
        if (pos + k < 0) continue;
        CAPTURE(static_cast<int>(p.layout));
        CAPTURE(p.dModel);
        CAPTURE(pos);
        CAPTURE(k);
        const std::vector<double> m = sinusoidalOffsetMatrix(p, k);
        const std::vector<double> x = sinusoidalVector(p, pos);
        const std::vector<double> y = sinusoidalVector(p, pos + k);
        const int d = p.dModel;
        REQUIRE(m.size() == static_cast<std::size_t>(d * d));
        for (int r = 0; r < d; ++r) {
          double acc = 0;
          for (int c = 0; c < d; ++c) acc += m[static_cast<std::size_t>(r * d + c)] * x[static_cast<std::size_t>(c)];
          CHECK(std::fabs(acc - y[static_cast<std::size_t>(r)]) <= 1e-9);
        }
      }
    }
  }
  // Block structure: interleaved M_k only couples 2i with 2i+1; t2t couples i with n+i.
  const std::vector<double> mi = sinusoidalOffsetMatrix(interleaved(8), 2.0);
  CHECK(mi[0 * 8 + 0] == doctest::Approx(std::cos(2.0)));
  CHECK(mi[0 * 8 + 1] == doctest::Approx(std::sin(2.0)));
  CHECK(mi[1 * 8 + 0] == doctest::Approx(-std::sin(2.0)));
  CHECK(mi[0 * 8 + 2] == 0.0);
  const std::vector<double> mt = sinusoidalOffsetMatrix(t2t(8), 2.0);
  CHECK(mt[0 * 8 + 4] == doctest::Approx(std::sin(2.0)));
  CHECK(mt[4 * 8 + 0] == doctest::Approx(-std::sin(2.0)));
  CHECK(mt[0 * 8 + 1] == 0.0);
  // M_0 is the identity.
  const std::vector<double> m0 = sinusoidalOffsetMatrix(interleaved(8), 0.0);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) CHECK(m0[static_cast<std::size_t>(r * 8 + c)] == (r == c ? 1.0 : 0.0));
}

TEST_CASE("sinusoidal: PE(a).PE(b) depends only on a - b") {
  const SinusoidalParams p = interleaved(64);
  for (double a : {0.0, 3.0, 17.0}) {
    for (double b : {0.0, 5.0, 40.0}) {
      CAPTURE(a);
      CAPTURE(b);
      const double s = sinusoidalSimilarity(p, a, b);
      for (double shift : {1.0, 10.0, 1000.0}) CHECK(sinusoidalSimilarity(p, a + shift, b + shift) == doctest::Approx(s).epsilon(1e-12));
      const std::vector<double> va = sinusoidalVector(p, a);
      const std::vector<double> vb = sinusoidalVector(p, b);
      double dot = 0;
      for (int i = 0; i < 64; ++i) dot += va[static_cast<std::size_t>(i)] * vb[static_cast<std::size_t>(i)];
      CHECK(std::fabs(dot - s) <= 1e-12);
    }
  }
  CHECK(sinusoidalSimilarity(p, 9.0, 9.0) == doctest::Approx(32.0).epsilon(1e-15));  // d/2 at a = b
  const Grid g = sinusoidalSimilarityGrid(p, 50);
  REQUIRE(g.rows == 50);
  REQUIRE(g.cols == 50);
  for (int a = 0; a < 50; a += 7) {
    for (int b = 0; b < 50; b += 3) {
      CAPTURE(a);
      CAPTURE(b);
      CHECK(g.at(a, b) == doctest::Approx(sinusoidalSimilarity(p, a, b)).epsilon(1e-6));
      if (a + 1 < 50 && b + 1 < 50) CHECK(g.at(a + 1, b + 1) == g.at(a, b));
    }
  }
  CHECK(g.at(0, 0) == 32.0f);
}

TEST_CASE("sinusoidal: float grid stays within 1e-6 of float64 at large positions") {
  const SinusoidalParams p = interleaved(512);
  const long long first = 131072 - 70;
  const Grid g = sinusoidalGrid(p, 71, first);  // crosses a rotor restart (every 256 positions)
  for (int r = 0; r < g.rows; r += 5) {
    const std::vector<double> v = sinusoidalVector(p, static_cast<double>(first + r));
    for (int dim = 0; dim < 512; ++dim) {
      CAPTURE(r);
      CAPTURE(dim);
      CHECK(std::fabs(static_cast<double>(g.at(r, dim)) - v[static_cast<std::size_t>(dim)]) <= 1e-6);
    }
  }
  // Into writes the same values into caller memory; t2t too.
  std::vector<float> buf(static_cast<std::size_t>(71 * 512));
  sinusoidalGridInto(p, 71, first, buf.data());
  CHECK(buf == g.values);
  const Grid gt = sinusoidalGrid(t2t(512), 200, 5000);
  for (int r = 0; r < 200; r += 13) {
    const std::vector<double> v = sinusoidalVector(t2t(512), 5000.0 + r);
    for (int dim = 0; dim < 512; dim += 7) CHECK(std::fabs(static_cast<double>(gt.at(r, dim)) - v[static_cast<std::size_t>(dim)]) <= 1e-6);
  }
}

TEST_CASE("sinusoidal: a grid over the memory budget throws naming the size") {
  BudgetGuard guard;
  setMemoryBudgetBytes(1ull << 20);
  CHECK_THROWS_WITH_AS(sinusoidalGrid(interleaved(512), 1024),
                       "sinusoidalGrid: a grid of 1024 x 512 x float32 needs 2.0 MiB, over the memory budget of 1.0 MiB",
                       std::invalid_argument);
  CHECK_NOTHROW(sinusoidalGrid(interleaved(512), 512));  // exactly 1 MiB
  CHECK_THROWS_WITH_AS(sinusoidalSimilarityGrid(interleaved(8), 1024),
                       "sinusoidalSimilarityGrid: a grid of 1024 x 1024 x float32 needs 4.0 MiB, over the memory budget of 1.0 MiB",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(sinusoidalOffsetMatrix(interleaved(512), 1.0),
                       "sinusoidalOffsetMatrix: a grid of 512 x 512 x float64 needs 2.0 MiB, over the memory budget of 1.0 MiB",
                       std::invalid_argument);
}

TEST_CASE("sinusoidal: the whole-table call equals the one-at-a-time functions bit for bit") {
  // The panels draw d_model 4096's curves from one sinusoidalTable call per frame of a drag; they
  // must show exactly the numbers the per-pair functions (and hover) give.
  for (const SinusoidalParams& p : {interleaved(2), interleaved(8), interleaved(4096, 10050.0), interleaved(64, 500000.0),
                                    t2t(2), t2t(8), t2t(4096, 10000.0, 0.5), t2t(64, 1e6, 3.0)}) {
    const SinusoidalTable t = sinusoidalTable(p);
    REQUIRE(t.frequency.size() == static_cast<std::size_t>(p.dModel / 2));
    REQUIRE(t.wavelength.size() == t.frequency.size());
    REQUIRE(t.pairOfDim.size() == static_cast<std::size_t>(p.dModel));
    REQUIRE(t.dimIsSin.size() == t.pairOfDim.size());
    int mismatches = 0;
    for (int i = 0; i < p.dModel / 2; ++i) {
      mismatches += t.frequency[static_cast<std::size_t>(i)] != sinusoidalFrequency(p, i);
      mismatches += t.wavelength[static_cast<std::size_t>(i)] != sinusoidalWavelength(p, i);
    }
    int sins = 0;
    for (int d = 0; d < p.dModel; ++d) {
      mismatches += t.pairOfDim[static_cast<std::size_t>(d)] != sinusoidalPairOfDim(p, d);
      mismatches += (t.dimIsSin[static_cast<std::size_t>(d)] != 0) != sinusoidalDimIsSin(p, d);
      sins += t.dimIsSin[static_cast<std::size_t>(d)];
    }
    CHECK(mismatches == 0);
    CHECK(sins == p.dModel / 2);   // one sin and one cos per pair
    // PE(pos) from the table is PE(pos) from the params, bit for bit, near 0 and near 2^31.
    for (double pos : {0.0, 1.0, 20.0, 12345.0, 2147483646.0}) {
      const std::vector<double> fromTable = sinusoidalVector(t, pos), fromParams = sinusoidalVector(p, pos);
      REQUIRE(fromTable.size() == fromParams.size());
      int differ = 0;
      for (std::size_t d = 0; d < fromTable.size(); ++d) differ += fromTable[d] != fromParams[d];
      CHECK(differ == 0);
    }
  }
  // Hand-computed: d = 4, base 10000 (interleaved): omega = 1, 10000^(-1/2) = 0.01; dims s c s c.
  const SinusoidalTable t = sinusoidalTable(interleaved(4));
  CHECK(t.frequency[0] == 1.0);
  CHECK(t.frequency[1] == doctest::Approx(0.01).epsilon(1e-15));
  CHECK(t.wavelength[1] == doctest::Approx(200.0 * kPi).epsilon(1e-15));
  CHECK(t.pairOfDim == std::vector<int>{0, 0, 1, 1});
  CHECK(t.dimIsSin == std::vector<char>{1, 0, 1, 0});
  // Tensor2Tensor, d = 4: sins in dims 0-1, cosines in 2-3; timescales 1 and 10000.
  const SinusoidalTable u = sinusoidalTable(t2t(4));
  CHECK(u.pairOfDim == std::vector<int>{0, 1, 0, 1});
  CHECK(u.dimIsSin == std::vector<char>{1, 1, 0, 0});
  CHECK(u.frequency[1] == doctest::Approx(1e-4).epsilon(1e-15));
  // PE(pos = 2) for d = 4 interleaved: sin 2, cos 2, sin 0.02, cos 0.02.
  const std::vector<double> v = sinusoidalVector(t, 2.0);
  REQUIRE(v.size() == 4);
  CHECK(v[0] == doctest::Approx(0.9092974268256817).epsilon(1e-15));
  CHECK(v[1] == doctest::Approx(-0.4161468365471424).epsilon(1e-15));
  CHECK(v[2] == doctest::Approx(0.01999866669333308).epsilon(1e-14));
  CHECK(v[3] == doctest::Approx(0.9998000066665778).epsilon(1e-15));
  // A table not built by sinusoidalTable is refused, never read out of bounds.
  SinusoidalTable bad = t;
  bad.pairOfDim[3] = 2;
  CHECK_THROWS_WITH_AS(sinusoidalVector(bad, 1.0),
                       "sinusoidalVector: the table's dim 3 names pair 2, not one of its 2; build it with sinusoidalTable",
                       std::invalid_argument);
  bad = t;
  bad.dimIsSin.pop_back();
  CHECK_THROWS_WITH_AS(sinusoidalVector(bad, 1.0),
                       "sinusoidalVector: the table's per-dim and per-pair sizes disagree (4 dims, 2 pairs); build it with sinusoidalTable",
                       std::invalid_argument);
  CHECK_THROWS_AS(sinusoidalVector(t, -1.0), std::invalid_argument);
}

TEST_CASE("sinusoidal: every bad argument is rejected with its name and value") {
  const double nan = std::nan("");
  const double inf = INFINITY;
  SUBCASE("dModel") {
    CHECK_THROWS_WITH_AS(sinusoidalGrid(interleaved(7), 4), "sinusoidalGrid: dModel must be even and > 0, got 7", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalVector(interleaved(0), 1.0), "sinusoidalVector: dModel must be even and > 0, got 0", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalFrequency(interleaved(-2), 0), "sinusoidalFrequency: dModel must be even and > 0, got -2", std::invalid_argument);
  }
  SUBCASE("base") {
    CHECK_THROWS_WITH_AS(sinusoidalGrid(interleaved(8, 1.0), 4), "sinusoidalGrid: base must be a finite number > 1, got 1", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalTable(interleaved(8, nan)), "sinusoidalTable: base must be a finite number > 1, got nan", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalTable(interleaved(5)), "sinusoidalTable: dModel must be even and > 0, got 5", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalWavelength(interleaved(8, 0.5), 0), "sinusoidalWavelength: base must be a finite number > 1, got 0.5", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalValue(interleaved(8, nan), 1.0, 0), "sinusoidalValue: base must be a finite number > 1, got nan", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalSimilarity(interleaved(8, inf), 1.0, 0), "sinusoidalSimilarity: base must be a finite number > 1, got inf", std::invalid_argument);
  }
  SUBCASE("Tensor2Tensor minTimescale") {
    CHECK_THROWS_WITH_AS(sinusoidalGrid(t2t(8, 100.0, 0.0), 4), "sinusoidalGrid: minTimescale must be a finite number > 0, got 0", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalGrid(t2t(8, 100.0, 100.0), 4),
                         "sinusoidalGrid: minTimescale must be < base (the max timescale 100), got 100", std::invalid_argument);
    CHECK_THROWS_WITH_AS(validateSinusoidal("fn", t2t(8, 100.0, nan)), "fn: minTimescale must be a finite number > 0, got nan", std::invalid_argument);
  }
  SUBCASE("layout") {
    SinusoidalParams p = interleaved(8);
    p.layout = static_cast<SinusoidalLayout>(5);
    CHECK_THROWS_WITH_AS(sinusoidalGrid(p, 4), "sinusoidalGrid: layout must be Interleaved, Tensor2Tensor or Halves, got 5", std::invalid_argument);
  }
  SUBCASE("positions and indices") {
    const SinusoidalParams p = interleaved(8);
    CHECK_THROWS_WITH_AS(sinusoidalGrid(p, 0), "sinusoidalGrid: numPositions must be > 0, got 0", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalGrid(p, -3), "sinusoidalGrid: numPositions must be > 0, got -3", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalGrid(p, 4, -1), "sinusoidalGrid: firstPos must be >= 0, got -1", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalGrid(p, 4, 1ll << 53),
                         "sinusoidalGrid: firstPos + numPositions must be <= 2^53 (positions are exact in float64), got firstPos 9007199254740992",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalGridInto(p, 4, 0, nullptr), "sinusoidalGridInto: out must not be null", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalValue(p, -1.0, 0), "sinusoidalValue: pos must be a finite number >= 0, got -1", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalValue(p, inf, 0), "sinusoidalValue: pos must be a finite number >= 0, got inf", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalValue(p, 1.0, 8), "sinusoidalValue: dim must be in [0, 7], got 8", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalVector(p, nan), "sinusoidalVector: pos must be a finite number >= 0, got nan", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalFrequency(p, 4), "sinusoidalFrequency: pair must be in [0, 3], got 4", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalWavelength(p, -1), "sinusoidalWavelength: pair must be in [0, 3], got -1", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalPairOfDim(p, 8), "sinusoidalPairOfDim: dim must be in [0, 7], got 8", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalDimIsSin(p, -1), "sinusoidalDimIsSin: dim must be in [0, 7], got -1", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalOffsetMatrix(p, nan), "sinusoidalOffsetMatrix: k must be a finite number, got nan", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalSimilarity(p, 1.0, -2.0), "sinusoidalSimilarity: posB must be a finite number >= 0, got -2", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalSimilarity(p, nan, 2.0), "sinusoidalSimilarity: posA must be a finite number >= 0, got nan", std::invalid_argument);
    CHECK_THROWS_WITH_AS(sinusoidalSimilarityGrid(p, 0), "sinusoidalSimilarityGrid: numPositions must be > 0, got 0", std::invalid_argument);
  }
}
