// Tests for core/comparison: every cell of the comparison table against hand-computed values and
// the properties the documents state.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <string>

#include "core/alibi.hpp"
#include "core/comparison.hpp"
#include "core/random.hpp"
#include "core/sinusoidal.hpp"

using namespace posviz;

TEST_SUITE("comparison") {

TEST_CASE("comparison: parameters and where each scheme is applied") {
  ComparisonParams p;
  p.dModel = 64;
  p.numHeads = 4;
  p.trainedLength = 512;
  p.targetLength = 1024;
  const Comparison c = computeComparison(p);
  CHECK(c.headDim == 16);
  REQUIRE(c.columns.size() == 5);
  CHECK(c.column(Scheme::Learned).parameters == 512 * 64);  // 001 line 462: T x d
  for (Scheme s : {Scheme::Sinusoidal, Scheme::Rope, Scheme::Alibi, Scheme::NoPE}) {
    CAPTURE(schemeName(s));
    CHECK(c.column(s).parameters == 0);
  }
  CHECK(c.column(Scheme::Sinusoidal).appliedAt == AppliedAt::EmbeddingInput);
  CHECK(c.column(Scheme::Learned).appliedAt == AppliedAt::EmbeddingInput);
  CHECK(c.column(Scheme::Rope).appliedAt == AppliedAt::QueryKey);
  CHECK(c.column(Scheme::Alibi).appliedAt == AppliedAt::Scores);
  CHECK(std::string(appliedAtName(AppliedAt::QueryKey)) == "Q, K inside attention");
}

TEST_CASE("comparison: what happens at position L-1") {
  ComparisonParams p;
  p.dModel = 64;
  p.numHeads = 8;
  p.trainedLength = 2048;
  p.targetLength = 8192;
  const Comparison c = computeComparison(p);
  const AtTarget& sin = c.column(Scheme::Sinusoidal).atTarget;
  CHECK(sin.defined);
  CHECK(sin.norm == doctest::Approx(std::sqrt(32.0)).epsilon(1e-12));  // sum of sin^2 + cos^2 over 32 pairs
  // Pairs with 2047 * 10000^(-2i/64) < 2 pi: i >= 21, 11 of 32 (numpy:
  // sum((2047 * 10000**(-2*np.arange(32)/64)) < 2*np.pi) = 11).
  CHECK(sin.unseenPairs == 11);
  CHECK(sin.numPairs == 32);
  // RoPE rotates head_dim = 8 dims: 4 pairs, theta = 1, 0.1, 0.01, 0.001; 2047 * 0.001 = 2.047 < 2 pi.
  const AtTarget& rope = c.column(Scheme::Rope).atTarget;
  CHECK(rope.numPairs == 4);
  CHECK(rope.unseenPairs == 1);
  CHECK(rope.unseenShare == doctest::Approx(0.25));

  const AtTarget& learned = c.column(Scheme::Learned).atTarget;
  CHECK_FALSE(learned.defined);
  CHECK(learned.error == "learnedLookup: pos 8191 has no row: the table has max_len 2048 (rows 0..2047)");

  const AtTarget& alibi = c.column(Scheme::Alibi).atTarget;
  REQUIRE(alibi.bias.size() == 8);
  CHECK(alibi.bias[0] == doctest::Approx(-8191.0 / 2.0));    // m_1 = 1/2
  CHECK(alibi.bias[7] == doctest::Approx(-8191.0 / 256.0));  // m_8 = 1/256
  CHECK(alibi.trainedBias[0] == doctest::Approx(-2047.0 / 2.0));

  // Within the trained length nothing is new and the learned table has the row.
  p.targetLength = 2048;
  const Comparison inside = computeComparison(p);
  CHECK(inside.column(Scheme::Learned).atTarget.defined);
  CHECK(inside.column(Scheme::Sinusoidal).atTarget.unseenPairs == 0);
  CHECK(inside.column(Scheme::Rope).atTarget.unseenPairs == 0);
}

TEST_CASE("comparison: the relative-position check separates RoPE and ALiBi from additive schemes") {
  for (std::uint64_t seed : {0ULL, 7ULL}) {
    CAPTURE(seed);
    ComparisonParams p;
    p.dModel = 64;
    p.numHeads = 4;
    p.trainedLength = 512;
    p.targetLength = 4096;
    p.seed = seed;
    const Comparison c = computeComparison(p);
    const RelativeCheck& rope = c.column(Scheme::Rope).relative;
    CHECK(rope.maxError < 1e-5);
    CHECK(rope.relative());
    CHECK(rope.positionSpread > 1e-2);  // the score does depend on m - n
    CHECK(rope.window == 16);
    CHECK(rope.maxShift == 4096 - 16);
    CHECK(c.column(Scheme::Alibi).relative.maxError < 1e-12);
    CHECK(c.column(Scheme::NoPE).relative.maxError == 0.0);
    CHECK(c.column(Scheme::NoPE).relative.positionSpread == 0.0);  // position-blind

    const RelativeCheck& sin = c.column(Scheme::Sinusoidal).relative;
    CHECK(sin.maxError > 1e-2);             // content x position cross terms
    CHECK(sin.encodingOnlyError < 1e-9);    // PE(m).PE(n) = sum cos((m - n) w_i)
    const RelativeCheck& learned = c.column(Scheme::Learned).relative;
    CHECK(learned.maxError > 1e-2);
    CHECK(learned.encodingOnlyError > 1e-2);  // independent rows: nothing relative at all
    CHECK(learned.maxShift == 512 - 16);      // shifts stay inside the table
  }
}

TEST_CASE("comparison: cost per token") {
  ComparisonParams p;
  p.dModel = 128;
  p.numHeads = 8;
  p.trainedLength = 1024;
  p.targetLength = 4096;
  const Comparison c = computeComparison(p);
  CHECK(c.column(Scheme::Sinusoidal).cost.multiplyAddsPerToken == 128.0);
  CHECK(c.column(Scheme::Learned).cost.parameters == 1024.0 * 128.0);
  CHECK(c.column(Scheme::Rope).cost.multiplyAddsPerToken == 4.0 * 128.0);
  CHECK(c.column(Scheme::Rope).cost.memoryFloats == 4096.0 * 16.0);   // cos and sin, L x head_dim/2 each
  CHECK(c.column(Scheme::Alibi).cost.multiplyAddsPerToken == 8.0 * 4096.0);
  CHECK(c.column(Scheme::Alibi).cost.memoryFloats == 8.0);
  CHECK(c.column(Scheme::NoPE).cost.multiplyAddsPerToken == 0.0);
  // 001's ALiBi buffer at max_len 8192 and 8 heads: 8 * 8192^2 floats = 2 GiB.
  p.targetLength = 8192;
  CHECK(computeComparison(p).alibiBufferFloats * 4.0 == 2.0 * 1024 * 1024 * 1024);
}

TEST_CASE("comparison: bad parameters name the field") {
  ComparisonParams p;
  p.dModel = 63;
  CHECK_THROWS_WITH_AS(computeComparison(p), "computeComparison: dModel must be even and > 0, got 63", std::invalid_argument);
  p.dModel = 64;
  p.numHeads = 3;
  CHECK_THROWS_WITH_AS(computeComparison(p),
                       "computeComparison: numHeads must divide dModel (64) into an even head dim, got 3", std::invalid_argument);
  p.numHeads = 4;
  p.trainedLength = 1;
  CHECK_THROWS_WITH_AS(computeComparison(p), "computeComparison: trainedLength must be in [2, 1048576], got 1",
                       std::invalid_argument);
  p.trainedLength = 16;
  p.targetLength = 0;
  CHECK_THROWS_WITH_AS(computeComparison(p), "computeComparison: targetLength must be in [2, 1099511627776], got 0",
                       std::invalid_argument);
  CHECK_THROWS_AS(unseenAnglePairs(7, 10000.0, 16, 32), std::invalid_argument);
}


TEST_CASE("comparison: content-position coupling, computed") {
  ComparisonParams p;
  p.dModel = 8;
  p.numHeads = 2;
  p.trainedLength = 64;
  p.targetLength = 128;
  p.seed = 3;
  const Comparison c = computeComparison(p);
  // ALiBi's bias and NoPE's nothing act the same on every content pair.
  for (Scheme s : {Scheme::Alibi, Scheme::NoPE}) {
    CAPTURE(schemeName(s));
    CHECK(c.column(s).coupling.contentDependence < 1e-12);
    CHECK(c.column(s).coupling.crossShare == 0.0);
    CHECK_FALSE(c.column(s).coupling.coupled());
  }
  // RoPE adds nothing, yet position's effect on q^T R(n-m) k depends on q and k.
  CHECK(c.column(Scheme::Rope).coupling.crossShare == 0.0);
  CHECK(c.column(Scheme::Rope).coupling.contentDependence > 1e-2);
  // Additive schemes: cross terms are a real share of the score.
  for (Scheme s : {Scheme::Sinusoidal, Scheme::Learned}) {
    CAPTURE(schemeName(s));
    CHECK(c.column(s).coupling.crossShare > 0.05);
    CHECK(c.column(s).coupling.crossShare < 1.0);
    CHECK(c.column(s).coupling.coupled());
    CHECK(c.column(s).coupling.window == 16);
  }
  // The sinusoidal share, recomputed term by term from the header's definition.
  const std::vector<float> qf = randomNormalVector(8, 3ULL ^ 16ULL), kf = randomNormalVector(8, 3ULL ^ 17ULL);
  const SinusoidalParams sp{8, 10000.0, SinusoidalLayout::Interleaved, 1.0};
  double sum = 0.0;
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 16; ++n) {
      const std::vector<double> pm = sinusoidalVector(sp, m), pn = sinusoidalVector(sp, n);
      double qk = 0, qp = 0, pk = 0, pp = 0;
      for (int i = 0; i < 8; ++i) {
        qk += double(qf[i]) * kf[i];
        qp += double(qf[i]) * pn[i];
        pk += pm[i] * double(kf[i]);
        pp += pm[i] * pn[i];
      }
      sum += (std::fabs(qp) + std::fabs(pk)) / (std::fabs(qk) + std::fabs(qp) + std::fabs(pk) + std::fabs(pp));
    }
  CHECK(c.column(Scheme::Sinusoidal).coupling.crossShare == doctest::Approx(sum / 256.0).epsilon(1e-12));
  // The sinusoidal content dependence, from the header's definition: effect_c(m, n) =
  // s_c(m, n) - s_c(0, 0) with s_c = (q_c + P(m)) . (k_c + P(n)) / sqrt(8), max over c and (m, n)
  // of |effect_c - effect_0|. Each P(pos) is made once per window in core; here once per pair.
  auto score = [&](const std::vector<float>& q, const std::vector<float>& k, int m, int n) {
    const std::vector<double> pm = sinusoidalVector(sp, m), pn = sinusoidalVector(sp, n);
    double v = 0.0;
    for (int i = 0; i < 8; ++i) v += (double(q[i]) + pm[i]) * (double(k[i]) + pn[i]);
    return v / std::sqrt(8.0);
  };
  double dependence = 0.0;
  for (int d = 1; d < kCouplingDraws; ++d) {
    const std::vector<float> qd = randomNormalVector(8, 3ULL ^ static_cast<std::uint64_t>(16 + 2 * d));
    const std::vector<float> kd = randomNormalVector(8, 3ULL ^ static_cast<std::uint64_t>(17 + 2 * d));
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 16; ++n) {
        const double e0 = score(qf, kf, m, n) - score(qf, kf, 0, 0), ed = score(qd, kd, m, n) - score(qd, kd, 0, 0);
        dependence = std::max(dependence, std::fabs(ed - e0));
      }
  }
  CHECK(dependence > 0.1);
  CHECK(c.column(Scheme::Sinusoidal).coupling.contentDependence == doctest::Approx(dependence).epsilon(1e-12));
  // Learned past a short table: the window stops at L0.
  p.trainedLength = 4;
  CHECK(computeComparison(p).column(Scheme::Learned).coupling.window == 4);
}

TEST_CASE("comparison: used by, from the models given") {
  const std::vector<ModelSchemes> models = {{"mpt-7b", {Scheme::Alibi}},
                                            {"gpt2", {Scheme::Learned}},
                                            {"exaone", {Scheme::Rope, Scheme::NoPE}},
                                            {"bert-base-uncased", {Scheme::Learned}}};
  CHECK(modelsUsing(models, Scheme::Learned) == std::vector<std::string>{"bert-base-uncased", "gpt2"});
  CHECK(modelsUsing(models, Scheme::NoPE) == std::vector<std::string>{"exaone"});
  CHECK(modelsUsing(models, Scheme::Sinusoidal).empty());
  ComparisonParams p;
  p.dModel = 16;
  p.numHeads = 2;
  const Comparison c = computeComparison(p, models);
  CHECK(c.column(Scheme::Rope).usedBy == std::vector<std::string>{"exaone"});
  CHECK(c.column(Scheme::Alibi).usedBy == std::vector<std::string>{"mpt-7b"});
  CHECK(c.models.size() == 4);
  CHECK(computeComparison(p).column(Scheme::Rope).usedBy.empty());
}


namespace {

// The two checks of a column, compared exactly (NaN equal to NaN: no shift fits).
bool sameNumber(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }
bool sameChecks(const SchemeColumn& a, const SchemeColumn& b) {
  const RelativeCheck &x = a.relative, &y = b.relative;
  return sameNumber(x.maxError, y.maxError) && sameNumber(x.encodingOnlyError, y.encodingOnlyError) &&
         x.positionSpread == y.positionSpread && x.window == y.window && x.maxShift == y.maxShift && x.shifts == y.shifts &&
         x.coarse == y.coarse && a.coupling.crossShare == b.coupling.crossShare &&
         a.coupling.contentDependence == b.coupling.contentDependence && a.coupling.window == b.coupling.window;
}

ComparisonParams reuseBase() {
  ComparisonParams p;
  p.dModel = 64;
  p.numHeads = 4;
  p.trainedLength = 512;
  p.targetLength = 2048;
  p.seed = 3;
  return p;
}

}  // namespace

TEST_CASE("comparison: an earlier table lends the checks that did not change, and only those") {
  const ComparisonParams p0 = reuseBase();
  const Comparison original = computeComparison(p0);
  Comparison old = original;
  // Marks no computation makes: a check that shows one was lent, not computed.
  constexpr double kMark = -12345.0;
  for (SchemeColumn& col : old.columns) col.relative.positionSpread = col.coupling.contentDependence = kMark;

  struct Change {
    const char* what;
    void (*apply)(ComparisonParams&);
    std::vector<Scheme> relative, coupling;   // the columns whose checks' inputs changed
  };
  const std::vector<Scheme> all = comparisonSchemes();
  const std::vector<Scheme> heads = {Scheme::Rope, Scheme::Alibi, Scheme::NoPE};
  const std::vector<Change> changes = {
      {"nothing", [](ComparisonParams&) {}, {}, {}},
      {"L0 below L", [](ComparisonParams& p) { p.trainedLength = 300; }, {Scheme::Learned}, {}},
      {"L0 past L: learned stops at L", [](ComparisonParams& p) { p.trainedLength = 4096; }, {Scheme::Learned}, {}},
      {"L0 under the window", [](ComparisonParams& p) { p.trainedLength = 10; }, {Scheme::Learned}, {Scheme::Learned}},
      {"L", [](ComparisonParams& p) { p.targetLength = 1500; }, {Scheme::Sinusoidal, Scheme::Rope, Scheme::Alibi, Scheme::NoPE}, {}},
      {"L under the window", [](ComparisonParams& p) { p.targetLength = 12; }, all, all},
      {"base", [](ComparisonParams& p) { p.base = 500000.0; }, {Scheme::Sinusoidal, Scheme::Rope}, {Scheme::Sinusoidal, Scheme::Rope}},
      {"heads", [](ComparisonParams& p) { p.numHeads = 8; }, heads, heads},
      {"d_model", [](ComparisonParams& p) { p.dModel = 128; }, all, all},
      {"seed", [](ComparisonParams& p) { p.seed = 4; }, all, all},
  };
  const auto has = [](const std::vector<Scheme>& v, Scheme s) { return std::find(v.begin(), v.end(), s) != v.end(); };
  for (const Change& change : changes) {
    CAPTURE(change.what);
    ComparisonParams p = p0;
    change.apply(p);
    const Comparison fresh = computeComparison(p);
    ComparisonOptions options;
    options.reuse = &old;
    const Comparison lent = computeComparison(p, {}, options);
    for (Scheme s : all) {
      CAPTURE(schemeName(s));
      const SchemeColumn &got = lent.column(s), &want = fresh.column(s), &before = original.column(s);
      // Computed again: the fresh number. Lent: the mark, and the old table's own number is the new one.
      if (has(change.relative, s)) {
        CHECK(got.relative.positionSpread == want.relative.positionSpread);
      } else {
        CHECK(got.relative.positionSpread == kMark);
        CHECK(before.relative.positionSpread == want.relative.positionSpread);
      }
      if (has(change.coupling, s)) {
        CHECK(got.coupling.contentDependence == want.coupling.contentDependence);
      } else {
        CHECK(got.coupling.contentDependence == kMark);
        CHECK(before.coupling.contentDependence == want.coupling.contentDependence);
      }
      // Everything else, marks aside, is the fresh table's.
      SchemeColumn unmarked = got;
      unmarked.relative.positionSpread = want.relative.positionSpread;
      unmarked.coupling.contentDependence = want.coupling.contentDependence;
      CHECK(sameChecks(unmarked, want));
      CHECK(got.atTarget.unseenPairs == want.atTarget.unseenPairs);
      CHECK(got.cost.memoryFloats == want.cost.memoryFloats);
    }
  }
  // A table of other shifts lends its couplings (they shift nothing) but no relative check.
  ComparisonOptions coarse;
  coarse.shifts = 2;
  coarse.reuse = &old;
  for (const SchemeColumn& col : computeComparison(p0, {}, coarse).columns) {
    CAPTURE(schemeName(col.scheme));
    CHECK(col.relative.positionSpread != kMark);
    CHECK(col.coupling.contentDependence == kMark);
  }
}

TEST_CASE("comparison: a coarse table tries fewer shifts, says so, and bounds the full error from below") {
  const ComparisonParams p = reuseBase();
  const Comparison full = computeComparison(p);
  ComparisonOptions options;
  options.shifts = 2;
  const Comparison coarse = computeComparison(p, {}, options);
  CHECK(coarse.shifts == 2);
  CHECK(full.shifts == kMaxShifts);
  for (Scheme s : comparisonSchemes()) {
    CAPTURE(schemeName(s));
    const RelativeCheck &c = coarse.column(s).relative, &f = full.column(s).relative;
    CHECK(c.shifts == 2);
    CHECK(c.coarse);
    CHECK(f.shifts == kMaxShifts);
    CHECK_FALSE(f.coarse);
    // Shifts k = 1 and k = Lmax - W, the full table's first and last: its maximum is at least as large.
    CHECK(c.maxShift == f.maxShift);
    CHECK(c.maxError <= f.maxError);
    CHECK(c.encodingOnlyError <= f.encodingOnlyError);
    CHECK(c.positionSpread <= f.positionSpread);
    // The coupling does not shift: the same in both.
    CHECK(coarse.column(s).coupling.contentDependence == full.column(s).coupling.contentDependence);
  }
  // RoPE stays relative and the additive schemes do not, even coarse.
  CHECK(coarse.column(Scheme::Rope).relative.relative());
  CHECK(coarse.column(Scheme::Sinusoidal).relative.maxError > 1e-2);
  CHECK(coarse.column(Scheme::Learned).relative.maxError > 1e-2);

  // Where fewer shifts fit than a full table would try, the table is not coarse.
  ComparisonParams tiny = p;
  tiny.trainedLength = 4;
  tiny.targetLength = 4;   // W = 2, shifts k = 1, 2: two fit
  const Comparison t = computeComparison(tiny, {}, options);
  CHECK(t.column(Scheme::Rope).relative.shifts == 2);
  CHECK_FALSE(t.column(Scheme::Rope).relative.coarse);

  options.shifts = 0;
  CHECK_THROWS_WITH_AS(computeComparison(p, {}, options), "computeComparison: options.shifts must be in [1, 16], got 0",
                       std::invalid_argument);
  options.shifts = 17;
  CHECK_THROWS_AS(computeComparison(p, {}, options), std::invalid_argument);
}

}
