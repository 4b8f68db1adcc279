// train_support.hpp: small models and batches the train suite's tests share.
#pragma once

#include <string>
#include <vector>

#include "core/random.hpp"
#include "core/train/model.hpp"

namespace posviz::train::testing {

// A named scheme setting for the tiny models of the gradient and reference checks.
struct SchemeCase {
  std::string name;
  PositionConfig position;
  bool mlp = true;
  Activation activation = Activation::Gelu;
};

// Every scheme, with settings that make positions matter at 8 tokens.
inline std::vector<SchemeCase> allSchemeCases() {
  std::vector<SchemeCase> out;
  auto add = [&](std::string name, PositionScheme s, auto&& tweak) {
    SchemeCase c;
    c.name = std::move(name);
    c.position.scheme = s;
    tweak(c);
    out.push_back(c);
  };
  add("nope", PositionScheme::None, [](SchemeCase&) {});
  add("sinusoidal", PositionScheme::Sinusoidal, [](SchemeCase& c) { c.position.sinusoidalBase = 100.0; });
  add("learned", PositionScheme::Learned, [](SchemeCase& c) { c.position.learnedInitStd = 0.5; });
  add("rope-half", PositionScheme::Rope, [](SchemeCase& c) { c.position.ropeBase = 100.0; });
  add("rope-interleaved-partial", PositionScheme::Rope, [](SchemeCase& c) {
    c.position.ropeBase = 50.0;
    c.position.ropeLayout = RopeLayout::Interleaved;
    c.position.rotaryFraction = 0.5;
  });
  add("alibi", PositionScheme::Alibi, [](SchemeCase&) {});
  add("t5", PositionScheme::T5, [](SchemeCase& c) {
    c.position.t5 = T5BucketParams{8, 16, false};
    c.position.t5InitStd = 0.5;
  });
  add("fire", PositionScheme::Fire, [](SchemeCase& c) {
    c.position.fireHidden = 4;
    c.position.fire = FireParams{0.5, 4.0};
  });
  add("kerple-log", PositionScheme::Kerple, [](SchemeCase& c) {
    c.position.kerpleInitR1 = 0.7;
    c.position.kerpleInitR2 = 0.4;
  });
  add("kerple-power", PositionScheme::Kerple, [](SchemeCase& c) {
    c.position.kerpleKernel = KerpleKernel::Power;
    c.position.kerpleInitR1 = 0.3;
    c.position.kerpleInitR2 = 1.3;
  });
  add("xpos", PositionScheme::Xpos, [](SchemeCase& c) {
    c.position.ropeBase = 100.0;
    c.position.xposScaleBase = 8.0;
  });
  add("rope-dropped", PositionScheme::Rope, [](SchemeCase& c) { c.position.dropped = true; });
  add("nope-relu", PositionScheme::None, [](SchemeCase& c) { c.activation = Activation::Relu; });
  add("alibi-no-mlp", PositionScheme::Alibi, [](SchemeCase& c) { c.mlp = false; });
  return out;
}

// d_model 16, 2 heads, 2 layers, MLP hidden 8, vocabulary 7, 8 positions.
inline ModelConfig tinyConfig(const SchemeCase& s) {
  ModelConfig c;
  c.vocabSize = 7;
  c.maxPositions = 8;
  c.dModel = 16;
  c.numHeads = 2;
  c.numLayers = 2;
  c.mlpHidden = 8;
  c.mlp = s.mlp;
  c.activation = s.activation;
  c.position = s.position;
  return c;
}

// Two sequences of 7 inputs; the second is padded after 5 tokens; answers masked as a task would.
inline Batch tinyBatch() {
  Batch b;
  b.size = 2;
  b.length = 7;
  b.inputs = {1, 3, 4, 5, 2, 3, 4, /**/ 1, 6, 3, 2, 6, 0, 0};
  b.targets = {3, 4, 5, 2, 3, 4, 5, /**/ 6, 3, 2, 6, 3, 0, 0};
  b.mask = {0, 0, 0, 1, 1, 1, 1, /**/ 0, 0, 1, 1, 1, 0, 0};
  return b;
}

}  // namespace posviz::train::testing
