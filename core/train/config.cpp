#include "core/train/config.hpp"

#include <cmath>
#include <string>

#include "core/check.hpp"

namespace posviz::train {

namespace {

struct SchemeName {
  PositionScheme scheme;
  const char* name;
};
constexpr SchemeName kSchemeNames[] = {{PositionScheme::None, "nope"},    {PositionScheme::Sinusoidal, "sinusoidal"},
                                       {PositionScheme::Learned, "learned"}, {PositionScheme::Rope, "rope"},
                                       {PositionScheme::Alibi, "alibi"},   {PositionScheme::T5, "t5"},
                                       {PositionScheme::Fire, "fire"},     {PositionScheme::Kerple, "kerple"},
                                       {PositionScheme::Xpos, "xpos"}};

void requireIntRange(const char* fn, const char* field, long long v, long long lo, long long hi) {
  if (v < lo || v > hi)
    failArgument(fn, std::string(field) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                         std::to_string(v));
}

void validatePosition(const char* fn, const ModelConfig& c) {
  const PositionConfig& p = c.position;
  switch (p.scheme) {
    case PositionScheme::Sinusoidal:
      requireGreater(fn, "sinusoidalBase", p.sinusoidalBase, 1.0);
      if (c.dModel % 2 != 0) failArgument(fn, "sinusoidal needs an even dModel, got " + std::to_string(c.dModel));
      break;
    case PositionScheme::Learned: requirePositive(fn, "learnedInitStd", p.learnedInitStd); break;
    case PositionScheme::Rope:
    case PositionScheme::Xpos: validateRope(fn, ropeParamsOf(c)); break;
    case PositionScheme::T5:
      validateT5Buckets(fn, p.t5);
      if (p.t5.bidirectional) failArgument(fn, "t5 buckets must be causal (bidirectional = false) in a decoder");
      requirePositive(fn, "t5InitStd", p.t5InitStd);
      break;
    case PositionScheme::Fire:
      validateFire(fn, p.fire);
      requireIntRange(fn, "fireHidden", p.fireHidden, 1, 256);
      break;
    case PositionScheme::Kerple:
      requireAtLeast(fn, "kerpleInitR1", p.kerpleInitR1, kKerpleMin);
      requireAtLeast(fn, "kerpleInitR2", p.kerpleInitR2, kKerpleMin);
      if (p.kerpleKernel == KerpleKernel::Power) requireInRange(fn, "kerpleInitR2", p.kerpleInitR2, kKerpleMin, 2.0);
      break;
    case PositionScheme::None:
    case PositionScheme::Alibi: break;
  }
  if (p.scheme == PositionScheme::Xpos) requirePositive(fn, "xposScaleBase", p.xposScaleBase);
  if (p.dropped && p.scheme != PositionScheme::Rope) failArgument(fn, "only a rope model can drop its positions (DroPE)");
}

}  // namespace

const char* positionSchemeName(PositionScheme s) {
  for (const auto& n : kSchemeNames)
    if (n.scheme == s) return n.name;
  return "?";
}

std::optional<PositionScheme> parsePositionScheme(const std::string& name) {
  for (const auto& n : kSchemeNames)
    if (name == n.name) return n.scheme;
  if (name == "none") return PositionScheme::None;
  return std::nullopt;
}

const char* activationName(Activation a) { return a == Activation::Gelu ? "gelu" : "relu"; }

std::optional<Activation> parseActivation(const std::string& name) {
  if (name == "gelu") return Activation::Gelu;
  if (name == "relu") return Activation::Relu;
  return std::nullopt;
}

void validateModelConfig(const char* fn, const ModelConfig& c) {
  requireIntRange(fn, "vocabSize", c.vocabSize, 1, 65536);
  requireIntRange(fn, "maxPositions", c.maxPositions, 1, 65536);
  requireIntRange(fn, "numLayers", c.numLayers, 1, 4);
  requireIntRange(fn, "numHeads", c.numHeads, 1, 8);
  requireIntRange(fn, "dModel", c.dModel, 16, 256);
  if (c.dModel % c.numHeads != 0)
    failArgument(fn, "dModel (" + std::to_string(c.dModel) + ") must be a multiple of numHeads (" + std::to_string(c.numHeads) + ")");
  requireIntRange(fn, "mlpHidden", c.mlpHidden, 0, 1024);
  requirePositive(fn, "tokenInitStd", c.tokenInitStd);
  validatePosition(fn, c);
}

bool schemeHasBias(PositionScheme s) {
  return s == PositionScheme::Alibi || s == PositionScheme::T5 || s == PositionScheme::Fire || s == PositionScheme::Kerple;
}

bool schemeRotates(const PositionConfig& p) {
  return (p.scheme == PositionScheme::Rope && !p.dropped) || p.scheme == PositionScheme::Xpos;
}

RopeParams ropeParamsOf(const ModelConfig& c, const RopeScaling& scaling) {
  RopeParams r;
  r.headDim = c.headDim();
  r.base = c.position.ropeBase;
  const bool xpos = c.position.scheme == PositionScheme::Xpos;
  r.rotaryFraction = xpos ? 1.0 : c.position.rotaryFraction;
  r.layout = xpos ? RopeLayout::Interleaved : c.position.ropeLayout;
  r.scaling = scaling;
  return r;
}

}  // namespace posviz::train
