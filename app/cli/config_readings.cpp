// config_readings.cpp: see config_readings.hpp.
#include "app/cli/config_readings.hpp"

#include "app/cli/args.hpp"

namespace posviz::cli {

std::optional<SinusoidalReading> readSinusoidalConfig(const ModelConfig& m) {
  SinusoidalReading r;
  if (m.hiddenSize > 0) r.dModel = m.hiddenSize;
  if (m.encoding == ModelEncoding::Sinusoidal && m.maxPositions > 0) r.maxPositions = m.maxPositions;
  if (m.encoding == ModelEncoding::Sinusoidal) r.layout = m.sinusoidalCoreLayout;
  if (!r.dModel && !r.maxPositions) return std::nullopt;
  return r;
}

std::optional<LearnedReading> readLearnedConfig(const ModelConfig& m) {
  if (m.encoding != ModelEncoding::Learned) return std::nullopt;
  LearnedReading r;
  if (m.hiddenSize > 0) r.dModel = m.hiddenSize;
  if (m.maxPositions > 0) r.maxPositions = m.maxPositions;
  r.offsetRows = m.positionOffset;
  r.offsetRowsAdded = m.offsetRowsAdded;
  return r;
}

std::string layerKindList(const ModelConfig& m, bool ropeOnly) {
  std::string out;
  for (const LayerKind& k : m.layerKinds) {
    if (ropeOnly && k.scheme != LayerScheme::Rope) continue;
    out += (out.empty() ? "" : ", ") + k.attention + " (" + std::to_string(k.layers.size()) + " layers, " +
           layerSchemeName(k.scheme) + ")";
  }
  return out.empty() ? std::string("none") : out;
}

namespace {

const LayerKind& ropeLayerKind(const ModelConfig& m, const std::optional<std::string>& layerType, const std::string& source) {
  std::string want = "full_attention";
  if (layerType) {
    const std::string t = parseChoiceOption("--layer-type", *layerType, {"full", "sliding", "chunked", "full_attention",
                                                                         "sliding_attention", "chunked_attention"});
    want = t.ends_with("_attention") ? t : t + "_attention";
  }
  const LayerKind* kind = nullptr;
  for (const LayerKind& k : m.layerKinds) {
    if (k.attention == want && (kind == nullptr || k.scheme == LayerScheme::Rope)) kind = &k;
  }
  if (kind == nullptr && !layerType && m.layerKinds.size() == 1) kind = &m.layerKinds.front();
  if (kind == nullptr) {
    throw UsageError(source + ": the model has no " + want + " layers; its layer kinds are " + layerKindList(m, false) +
                     " (choose with --layer-type full|sliding|chunked)");
  }
  if (kind->scheme != LayerScheme::Rope) {
    throw UsageError(source + ": the model's " + want + " layers use " + layerSchemeName(kind->scheme) +
                     ", not RoPE; the layer kinds with RoPE are " + layerKindList(m, true) +
                     " (choose with --layer-type full|sliding|chunked)");
  }
  return *kind;
}

}  // namespace

std::optional<RopeParams> readRopeConfig(const ModelConfig& m, const std::optional<std::string>& layerType,
                                         const std::string& source) {
  if (m.encoding != ModelEncoding::Rope) return std::nullopt;
  return m.layerKinds.empty() ? m.rope : ropeLayerKind(m, layerType, source).rope;
}

std::optional<MropeReading> readMropeConfig(const ModelConfig& m) {
  if (m.encoding != ModelEncoding::Rope || m.mropeSection.empty()) return std::nullopt;
  MropeReading r;
  r.rope = m.rope;
  r.section = m.mropeSection;
  r.interleaved = m.mropeInterleaved;
  for (MropeIndexRule rule : {MropeIndexRule::Steps, MropeIndexRule::Seconds, MropeIndexRule::Frames}) {
    if (m.mropeIndexRule == mropeIndexRuleName(rule)) r.rule = rule;
  }
  r.unmodelledRule = m.mropeIndexRule == "own";
  r.spatialMerge = m.spatialMerge;
  r.tokensPerSecond = m.tokensPerSecond;
  return r;
}

std::optional<T5Reading> readT5Config(const ModelConfig& m) {
  if (m.encoding != ModelEncoding::RelativeBuckets) return std::nullopt;
  T5Reading r;
  if (m.relativeBuckets > 0) r.numBuckets = m.relativeBuckets;
  if (m.relativeMaxDistance > 0) r.maxDistance = m.relativeMaxDistance;
  if (m.numHeads > 0) r.heads = m.numHeads;
  return r;
}

std::optional<AlibiReading> readAlibiConfig(const ModelConfig& m) {
  if (m.encoding != ModelEncoding::Alibi) return std::nullopt;
  AlibiReading r;
  if (m.numHeads > 0) r.heads = m.numHeads;
  return r;
}

}  // namespace posviz::cli
