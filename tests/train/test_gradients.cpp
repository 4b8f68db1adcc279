// Finite-difference checks, in float64, of the hand-written backward pass: every parameter tensor
// of every scheme, on a tiny model whose batch has padding and masked answer tokens.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <span>
#include <vector>

#include "core/random.hpp"
#include "core/train/model.hpp"
#include "train_support.hpp"

using namespace posviz;
using namespace posviz::train;
using namespace posviz::train::testing;

namespace {

// Initialised weights, moved off their special values (LayerNorm 1, biases 0) so that every
// tensor's gradient is generic; kerple's r1, r2 stay positive.
Model<double> perturbedModel(const ModelConfig& c, std::uint64_t seed) {
  Model<double> m(c, 1);
  m.initialize(seed);
  Rng rng(seed + 17);
  for (const TensorInfo& t : m.tensors()) {
    const bool kerple = t.name.find("kerple") != std::string::npos;
    for (std::size_t i = t.offset; i < t.offset + t.size; ++i) {
      double& p = m.parameters()[i];
      p += 0.2 * rng.normal();
      if (kerple) p = std::clamp(std::fabs(p), 0.1, 1.9);
    }
  }
  return m;
}

// The largest |analytic - numeric| / max(|analytic|, |numeric|, 1e-4) over up to 6 entries of one
// tensor (the floor keeps the differences' rounding out of the ratio where a gradient is ~0).
double tensorError(Model<double>& m, const Batch& b, const PositionTables<double>& pos, const TensorInfo& t, const std::vector<double>& grad) {
  const std::size_t samples = std::min<std::size_t>(t.size, 6);
  double worst = 0.0;
  for (std::size_t s = 0; s < samples; ++s) {
    const std::size_t i = t.offset + (s * 7919) % t.size;
    double& p = m.parameters()[i];
    const double saved = p, h = 1e-3 * std::max(1.0, std::fabs(saved));
    auto at = [&](double x) {
      p = x;
      return m.lossAndGradient(b, pos, {}, 1);
    };
    // Five-point central difference: truncation O(h^4), rounding ~1e-13 at h = 1e-3.
    const double numeric = (8 * (at(saved + h) - at(saved - h)) - (at(saved + 2 * h) - at(saved - 2 * h))) / (12 * h);
    p = saved;
    const double err = std::fabs(grad[i] - numeric) / std::max({std::fabs(grad[i]), std::fabs(numeric), 1e-4});
    worst = std::max(worst, err);
  }
  return worst;
}

}  // namespace

TEST_CASE("gradients: every tensor of every scheme matches central differences in float64") {
  const Batch b = tinyBatch();
  for (const SchemeCase& sc : allSchemeCases()) {
    CAPTURE(sc.name);
    const ModelConfig c = tinyConfig(sc);
    Model<double> m = perturbedModel(c, 7);
    const PositionTables<double> pos = positionTables<double>(c, 8);
    std::vector<double> grad(m.parameters().size());
    const double loss = m.lossAndGradient(b, pos, grad, 1);
    CHECK(std::isfinite(loss));
    CHECK(loss > 0.5);
    double worst = 0.0;
    for (const TensorInfo& t : m.tensors()) {
      CAPTURE(t.name);
      double norm = 0.0;
      for (std::size_t i = t.offset; i < t.offset + t.size; ++i) norm += grad[i] * grad[i];
      // Every tensor takes part in the loss, but fire.b2: a constant added to a whole row of scores
      // leaves the softmax unchanged, so its gradient is zero up to rounding.
      if (t.name.find("fire.b2") != std::string::npos)
        CHECK(norm < 1e-24);
      else
        CHECK(norm > 1e-8);
      const double err = tensorError(m, b, pos, t, grad);
      CHECK(err < 1e-7);
      worst = std::max(worst, err);
    }
    MESSAGE(sc.name << ": max relative error " << worst);
  }
}

namespace {

// b with `extra` more padding positions after every sequence (pad token 0, no answers).
Batch widened(const Batch& b, int extra) {
  Batch w;
  w.size = b.size;
  w.length = b.length + extra;
  for (int s = 0; s < b.size; ++s) {
    const auto from = static_cast<std::ptrdiff_t>(s) * b.length;
    w.inputs.insert(w.inputs.end(), b.inputs.begin() + from, b.inputs.begin() + from + b.length);
    w.targets.insert(w.targets.end(), b.targets.begin() + from, b.targets.begin() + from + b.length);
    w.mask.insert(w.mask.end(), b.mask.begin() + from, b.mask.begin() + from + b.length);
    w.inputs.insert(w.inputs.end(), static_cast<std::size_t>(extra), 0);
    w.targets.insert(w.targets.end(), static_cast<std::size_t>(extra), 0);
    w.mask.insert(w.mask.end(), static_cast<std::size_t>(extra), 0);
  }
  return w;
}

// Sequence s of b alone, cut after its last answer.
Batch single(const Batch& b, int s) {
  Batch one;
  one.size = 1;
  one.length = realLength(b, s);
  const auto from = static_cast<std::ptrdiff_t>(s) * b.length;
  one.inputs.assign(b.inputs.begin() + from, b.inputs.begin() + from + one.length);
  one.targets.assign(b.targets.begin() + from, b.targets.begin() + from + one.length);
  one.mask.assign(b.mask.begin() + from, b.mask.begin() + from + one.length);
  return one;
}

}  // namespace

TEST_CASE("chunks: sequences in order of real length, each chunk cut after its last answer") {
  Batch b;
  b.size = 4;
  b.length = 6;
  b.inputs.assign(24, 1);
  b.targets.assign(24, 1);
  //        answers end at 5,          2,                 6,                 2
  b.mask = {0, 0, 1, 1, 1, 0, /**/ 0, 1, 0, 0, 0, 0, /**/ 0, 0, 0, 0, 0, 1, /**/ 1, 1, 0, 0, 0, 0};
  CHECK(realLength(b, 0) == 5);
  CHECK(realLength(b, 1) == 2);
  CHECK(realLength(b, 2) == 6);
  CHECK(realLength(b, 3) == 2);
  const std::vector<BatchChunk> trimmed = batchChunks(b, 2, true);
  REQUIRE(trimmed.size() == 2);
  CHECK(trimmed[0].sequences == std::vector<int>{1, 3});  // ties keep batch order
  CHECK(trimmed[0].length == 2);
  CHECK(trimmed[1].sequences == std::vector<int>{0, 2});
  CHECK(trimmed[1].length == 6);
  const std::vector<BatchChunk> three = batchChunks(b, 3, true);
  REQUIRE(three.size() == 2);
  CHECK(three[0].sequences == std::vector<int>{1, 3, 0});
  CHECK(three[0].length == 5);
  CHECK(three[1].sequences == std::vector<int>{2});
  const std::vector<BatchChunk> whole = batchChunks(b, 2, false);
  REQUIRE(whole.size() == 2);
  CHECK(whole[0].sequences == std::vector<int>{0, 1});
  CHECK(whole[0].length == 6);
  CHECK(whole[1].length == 6);
  b.mask.assign(24, 0);  // no answer anywhere: one position each
  CHECK(realLength(b, 0) == 1);
  CHECK_THROWS_WITH_AS(batchChunks(b, 0, true), doctest::Contains("perChunk must be >= 1"), std::invalid_argument);
}

TEST_CASE("chunks: padding after the answers changes no bit, and a batch is the sum of its sequences") {
  const Batch b = tinyBatch(), wide = widened(tinyBatch(), 3);
  for (const SchemeCase& sc : allSchemeCases()) {
    CAPTURE(sc.name);
    ModelConfig c = tinyConfig(sc);
    c.maxPositions = wide.length;
    Model<double> m = perturbedModel(c, 5);
    const PositionTables<double> pos = positionTables<double>(c, wide.length);
    for (int perChunk : {1, 2}) {
      CAPTURE(perChunk);
      Model<double> mc(c, perChunk);
      mc.parameters() = m.parameters();
      std::vector<double> g(mc.parameters().size()), gw(g.size());
      const double loss = mc.lossAndGradient(b, pos, g, 1);
      const double lossWide = mc.lossAndGradient(wide, pos, gw, 2);
      CHECK(loss == lossWide);
      CHECK(std::memcmp(g.data(), gw.data(), g.size() * sizeof(double)) == 0);
    }
    // The mean over the batch's 7 answers = the answer-weighted mean of each sequence alone.
    std::vector<double> g(m.parameters().size()), sum(g.size(), 0.0), part(g.size());
    const double loss = m.lossAndGradient(b, pos, g, 1);
    double summed = 0.0;
    for (int s = 0; s < b.size; ++s) {
      const Batch one = single(b, s);
      const double weight = static_cast<double>(one.answerCount()) / b.answerCount();
      summed += weight * m.lossAndGradient(one, pos, part, 1);
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += weight * part[i];
    }
    CHECK(loss == doctest::Approx(summed).epsilon(1e-13));
    double worst = 0.0;
    for (std::size_t i = 0; i < g.size(); ++i) worst = std::max(worst, std::fabs(g[i] - sum[i]));
    CHECK(worst < 1e-14);
  }
}
