// Finite-difference checks, in float64, of the hand-written backward pass: every parameter tensor
// of every scheme, on a tiny model whose batch has padding and masked answer tokens.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
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
