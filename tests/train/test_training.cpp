// Tests for core/train/trainer and optimizer: the schedule and AdamW by hand, the same bytes
// whatever the thread count or however a run is stopped and resumed, a run that learns copy,
// and what a finished run shows (accuracy against length, attention, tables, biases).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

#include "core/alibi.hpp"
#include "core/train/trainer.hpp"

using namespace posviz;
using namespace posviz::train;

namespace {

TrainConfig smallRun(PositionScheme s) {
  TrainConfig c;
  c.task.kind = TaskKind::Copy;
  c.task.trainLength = 4;
  c.task.numSymbols = 6;
  c.model.dModel = 16;
  c.model.numHeads = 2;
  c.model.numLayers = 2;
  c.model.mlpHidden = 16;
  c.model.position.scheme = s;
  c.model.position.fireHidden = 4;
  c.model.position.t5 = T5BucketParams{8, 16, false};
  c.batchSize = 12;  // three chunks of four
  c.steps = 8;
  c.seed = 11;
  return c;
}

bool sameBytes(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

EvalOptions examples(int n) {
  EvalOptions o;
  o.examples = n;
  return o;
}

}  // namespace

TEST_CASE("optimizer: warmup, cosine and its floor, by hand") {
  OptimConfig o;
  o.learningRate = 1e-2;
  o.minLearningRateRatio = 0.1;
  o.warmupSteps = 4;
  CHECK(learningRateAt(o, 0, 104) == doctest::Approx(2.5e-3));
  CHECK(learningRateAt(o, 3, 104) == doctest::Approx(1e-2));
  CHECK(learningRateAt(o, 4, 104) == doctest::Approx(1e-2));
  CHECK(learningRateAt(o, 54, 104) == doctest::Approx(1e-3 + 9e-3 * 0.5));  // halfway: cos = 0
  CHECK(learningRateAt(o, 104, 104) == doctest::Approx(1e-3));
  CHECK(learningRateAt(o, 500, 104) == doctest::Approx(1e-3));
}

TEST_CASE("optimizer: one AdamW step with decay and clipping, by hand") {
  std::vector<TensorInfo> tensors(2);
  tensors[0] = TensorInfo{"w", {2}, 0, 2, true};
  tensors[1] = TensorInfo{"b", {1}, 2, 1, false};
  OptimConfig o;
  o.learningRate = 0.1;
  o.warmupSteps = 0;
  o.weightDecay = 0.5;
  o.clipNorm = 1.0;
  AdamW<double> adam(3);
  std::vector<double> p{1.0, -1.0, 2.0};
  std::vector<double> g{3.0, 0.0, 4.0};  // norm 5: clipped to 1 (times 1 / (5 + 1e-6))
  const double norm = adam.update(o, 0, 10, tensors, p, g);
  CHECK(norm == doctest::Approx(5.0));
  CHECK(g[0] == doctest::Approx(0.6));
  // First step: m_hat = g, v_hat = g^2, so the step is lr * sign(g) (eps aside); w decays first.
  CHECK(p[0] == doctest::Approx(1.0 * (1 - 0.1 * 0.5) - 0.1));
  CHECK(p[1] == doctest::Approx(-1.0 * (1 - 0.1 * 0.5)));
  CHECK(p[2] == doctest::Approx(2.0 - 0.1));  // not decayed
  CHECK(adam.firstMoment()[2] == doctest::Approx(0.1 * 0.8));
}

TEST_CASE("training: the same bytes with one thread or two, chunk by chunk") {
  for (PositionScheme s : {PositionScheme::Rope, PositionScheme::T5, PositionScheme::Fire, PositionScheme::Learned}) {
    CAPTURE(positionSchemeName(s));
    TrainConfig one = smallRun(s), two = smallRun(s);
    one.threads = 1;
    two.threads = 2;
    Trainer a(one), b(two);
    a.train(one.steps);
    b.train(two.steps);
    CHECK(sameBytes(a.model().parameters(), b.model().parameters()));
    REQUIRE(a.history().size() == 8);
    for (std::size_t i = 0; i < a.history().size(); ++i) CHECK(a.history()[i].loss == b.history()[i].loss);
    // Training moved the weights: the check compares something.
    CHECK_FALSE(sameBytes(a.model().parameters(), Trainer(one).model().parameters()));
  }
}

TEST_CASE("training: stopping and resuming gives the uninterrupted run's bytes") {
  const TrainConfig c = smallRun(PositionScheme::Alibi);
  Trainer whole(c);
  CHECK(whole.train(100) == 8);  // stops at the schedule's end
  CHECK(whole.finished());
  Trainer parts(c);
  int calls = 0;
  CHECK(parts.train(100, [&](const StepReport& r) {
    ++calls;
    return r.step < 3;  // stop after the third step
  }) == 3);
  CHECK(calls == 3);
  CHECK(parts.step() == 3);
  CHECK(parts.train(2) == 2);
  CHECK(parts.train(100) == 3);
  CHECK(sameBytes(whole.model().parameters(), parts.model().parameters()));
  CHECK(parts.history().back().step == 8);
}

TEST_CASE("training: a small rope model learns to copy") {
  TrainConfig c;
  c.task.kind = TaskKind::Copy;
  c.task.trainLength = 4;
  c.task.numSymbols = 6;
  c.model.dModel = 16;
  c.model.numHeads = 2;
  c.model.numLayers = 2;
  c.model.position.scheme = PositionScheme::Rope;
  c.optim.learningRate = 1e-2;
  c.batchSize = 16;
  c.steps = 200;
  Trainer t(c);
  t.train(c.steps);
  CHECK(t.history().front().loss > 1.6);  // near ln 9 (the vocabulary) at the start
  CHECK(t.history().back().loss < 0.3);
  const auto r = t.evaluate({4}, examples(128));
  REQUIRE(r[0].accuracy.has_value());
  CHECK(*r[0].accuracy > 0.9);
  CHECK(*r[0].sequenceAccuracy > 0.6);
  // Four times the trained length is beyond it: the accuracy falls towards chance (1/6).
  CHECK(*t.evaluate({16}, examples(32))[0].accuracy < 0.5);
}

TEST_CASE("training: a learned table has no row past its length, and says so") {
  Trainer t(smallRun(PositionScheme::Learned));
  t.train(2);
  const auto r = t.evaluate({4, 5, 32}, examples(4));
  CHECK(r[0].status == EvalStatus::Ok);  // 9 tokens: the table's 9 rows
  CHECK(r[0].tokens == 9);
  CHECK(r[1].status == EvalStatus::NoRow);
  CHECK_FALSE(r[1].accuracy.has_value());
  CHECK_FALSE(r[2].loss.has_value());
  CHECK(std::string(evalStatusName(r[2].status)) == "no row");
  CHECK(t.attentionMaps(8).status == EvalStatus::NoRow);
  const Grid table = t.learnedTable();
  CHECK(table.rows == 9);
  CHECK(table.cols == 16);
  CHECK(table.values[0] == t.model().parameters()[t.model().tensor("pos_emb.weight").offset]);
}

TEST_CASE("training: attention maps are causal distributions over one example") {
  Trainer t(smallRun(PositionScheme::Rope));
  t.train(3);
  const AttentionMaps m = t.attentionMaps(6, 2);
  REQUIRE(m.status == EvalStatus::Ok);
  CHECK(m.tokens == 13);
  CHECK(m.labels.front() == "BOS");
  CHECK(m.labels[7] == "SEP");
  CHECK(m.answerStart == 7);
  REQUIRE(m.maps.size() == 4);  // 2 layers x 2 heads
  for (const Grid& g : m.maps) {
    for (int i = 0; i < 13; ++i) {
      double sum = 0.0;
      for (int j = 0; j < 13; ++j) {
        sum += g.at(i, j);
        if (j > i) CHECK(g.at(i, j) == 0.0f);
      }
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
  }
  CHECK(m.maps[0].at(0, 0) == 1.0f);  // the first token sees only itself
}

TEST_CASE("training: the biases a run learned, through core's grids") {
  Trainer alibi(smallRun(PositionScheme::Alibi));
  const Grid g = alibi.positionBias(1, 1, 5);
  CHECK(g.at(4, 1) == static_cast<float>(-alibiSlopes(2)[1] * 3));
  CHECK(std::isinf(g.at(1, 4)));
  Trainer t5(smallRun(PositionScheme::T5));
  t5.train(4);
  const TensorInfo& table = t5.model().tensor("t5_bias.weight");
  const Grid b = t5.positionBias(0, 1, 6);
  // Distance 3 is bucket 3 (exact buckets below 4 of 8): table row 3, head 1.
  CHECK(b.at(5, 2) == t5.model().parameters()[table.offset + 3 * 2 + 1]);
  Trainer kerple(smallRun(PositionScheme::Kerple));
  kerple.train(4);
  const std::vector<float>& w = kerple.model().parameters();
  const float r1 = w[kerple.model().tensor("layers.1.kerple.r1").offset], r2 = w[kerple.model().tensor("layers.1.kerple.r2").offset];
  CHECK(r1 != 1.0f);  // trained
  CHECK(kerple.positionBias(1, 0, 4).at(3, 1) == doctest::Approx(-r1 * std::log1p(r2 * 2.0)));
  Trainer fire(smallRun(PositionScheme::Fire));
  CHECK(fire.positionBias(0, 0, 4).rows == 4);
  CHECK_THROWS_AS(Trainer(smallRun(PositionScheme::Rope)).positionBias(0, 0, 4), std::invalid_argument);
  CHECK_THROWS_AS(Trainer(smallRun(PositionScheme::Rope)).learnedTable(), std::invalid_argument);
}

TEST_CASE("training: RoPE scaling applies past the trained length only, and DroPE drops the rotation") {
  Trainer t(smallRun(PositionScheme::Rope));
  t.train(8);
  EvalOptions plain = examples(16), linear = examples(16);
  linear.scaling.method = ScalingMethod::Linear;
  linear.factorFromLength = true;
  const auto a = t.evaluate({4, 12}, plain), b = t.evaluate({4, 12}, linear);
  CHECK(a[0].loss == b[0].loss);  // factor 1 at the trained length
  CHECK(a[1].loss != b[1].loss);  // factor 25/9 at n = 12
  // Every method core's context extension offers behaves the same way: plain RoPE up to the
  // trained length, its own frequencies past it.
  for (ScalingMethod m : {ScalingMethod::NtkAware, ScalingMethod::DynamicNtk, ScalingMethod::Yarn, ScalingMethod::Llama3}) {
    CAPTURE(scalingName(m));
    EvalOptions o = examples(16);
    o.scaling.method = m;
    o.factorFromLength = true;
    const auto r = t.evaluate({4, 12}, o);
    CHECK(r[0].loss == a[0].loss);
    REQUIRE(r[1].loss.has_value());
    CHECK(std::isfinite(*r[1].loss));
    CHECK(r[1].loss != a[1].loss);
  }
  TrainConfig c = smallRun(PositionScheme::Rope);
  c.dropeAtStep = 5;
  Trainer d(c);
  d.train(5);
  CHECK_FALSE(d.model().config().position.dropped);
  d.train(1);
  CHECK(d.model().config().position.dropped);
  // Without positions the scores do not depend on where a token is: a NoPE model with the same
  // weights gives the same loss.
  TrainConfig nope = smallRun(PositionScheme::None);
  Trainer n(nope);
  n.model().parameters() = d.model().parameters();
  CHECK(n.evaluate({6}, plain)[0].loss == d.evaluate({6}, plain)[0].loss);
}

TEST_CASE("training: configs out of range are refused with the field's name") {
  TrainConfig c = smallRun(PositionScheme::Rope);
  c.model.numLayers = 5;
  CHECK_THROWS_WITH_AS(Trainer{c}, doctest::Contains("numLayers"), std::invalid_argument);
  c = smallRun(PositionScheme::Rope);
  c.model.dModel = 18;  // 2 heads of 9 dims: RoPE needs an even head
  CHECK_THROWS_AS(Trainer{c}, std::invalid_argument);
  c = smallRun(PositionScheme::Alibi);
  c.dropeAtStep = 2;
  CHECK_THROWS_WITH_AS(Trainer{c}, doctest::Contains("rope"), std::invalid_argument);
  c = smallRun(PositionScheme::Rope);
  c.model.vocabSize = 3;
  CHECK_THROWS_WITH_AS(Trainer{c}, doctest::Contains("vocabSize"), std::invalid_argument);
  Trainer t(smallRun(PositionScheme::Rope));
  CHECK_THROWS_AS(t.evaluate({0}), std::invalid_argument);
}
