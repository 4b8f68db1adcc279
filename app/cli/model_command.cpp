#include "core/untrusted_text.hpp"
#include "app/cli/model_command.hpp"

#include <iostream>
#include <sstream>

#include "app/cli/request.hpp"
#include "core/context_extension.hpp"

namespace posviz::cli {

namespace {

using nlohmann::json;

const char* kUsage =
    "usage: posviz model (--config FILE | --preset NAME) [--json]\n"
    "  prints each kind of layer of the model with its layer indices and positional scheme\n";

std::string num(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

std::string scalingText(const RopeScaling& s) {
  if (s.method == ScalingMethod::None) return "no scaling";
  std::string t = std::string(scalingName(s.method)) + " x" + num(s.factor) + " from " + std::to_string(s.originalMaxPositions);
  if (s.method == ScalingMethod::Yarn) t += ", beta " + num(s.betaFast) + "/" + num(s.betaSlow);
  if (s.method == ScalingMethod::Llama3) t += ", low/high freq factor " + num(s.lowFreqFactor) + "/" + num(s.highFreqFactor);
  if (s.method == ScalingMethod::LongRope) t += ", " + std::to_string(s.shortFactor.size()) + " short/long factors";
  return t;
}

}  // namespace

std::string layerKindText(const LayerKind& k) {
  switch (k.scheme) {
    case LayerScheme::Rope: {
      const RopeParams& p = k.rope;
      return "RoPE, rotary dims " + std::to_string(ropeRotaryDims(p)) + " of head_dim " + std::to_string(p.headDim) +
             ", base " + num(p.base) + ", " + ropeLayoutName(p.layout) + ", " + scalingText(p.scaling) +
             ", attention factor " + num(ropeFrequencies(p).attentionFactor);
    }
    case LayerScheme::NoPE: return "NoPE (no position encoding)";
    case LayerScheme::Alibi: return "ALiBi";
    case LayerScheme::Learned: return "learned absolute positions";
    case LayerScheme::None: return "no positions (linear attention)";
  }
  return "?";
}

std::string layerRangesText(const std::vector<int>& layers) {
  if (layers.empty()) return "all";
  std::string out;
  for (std::size_t i = 0; i < layers.size();) {
    std::size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(layers[i]);
    if (j > i) out += "-" + std::to_string(layers[j]);
    i = j + 1;
  }
  return out;
}

void printModel(std::ostream& out, const ModelConfig& m) {
  out << "model " << m.name;
  if (!m.modelType.empty()) out << " (" << m.modelType << ")";
  out << ": " << m.numLayers << " layers";
  if (m.maxPositions > 0) out << ", " << m.maxPositions << " positions";
  out << "\n";
  for (const LayerKind& k : m.layerKinds) {
    out << "  " << k.attention << ": " << k.layers.size() << " layers [" << layerRangesText(k.layers) << "]\n";
    out << "    " << layerKindText(k);
    if (k.slidingWindow > 0) out << "; sliding window " << k.slidingWindow;
    if (k.attentionChunk > 0) out << "; attention chunk " << k.attentionChunk;
    out << "\n";
  }
  if (!m.mropeSection.empty()) {
    out << "  M-RoPE: pairs per (t, h, w) axis";
    for (int s : m.mropeSection) out << " " << s;
    out << (m.mropeInterleaved ? ", interleaved axes\n" : ", contiguous sections\n");
  }
  for (const std::string& e : m.extras) out << "  extra: " << e << "\n";
}

json modelJson(const ModelConfig& m) {
  json kinds = json::array();
  for (const LayerKind& k : m.layerKinds) {
    json j = {{"attention", k.attention}, {"layers", k.layers}, {"scheme", layerSchemeName(k.scheme)}};
    if (k.scheme == LayerScheme::Rope) {
      j["rope"] = ropeParamsJson(k.rope);
      j["rope"]["attention_factor"] = ropeFrequencies(k.rope).attentionFactor;
    }
    if (k.slidingWindow > 0) j["sliding_window"] = k.slidingWindow;
    if (k.attentionChunk > 0) j["attention_chunk"] = k.attentionChunk;
    kinds.push_back(j);
  }
  json out = {{"name", m.name}, {"model_type", m.modelType}, {"num_layers", m.numLayers},
              {"max_positions", m.maxPositions}, {"layer_kinds", kinds}, {"extras", m.extras}};
  if (!m.mropeSection.empty()) {
    out["mrope_section"] = m.mropeSection;
    out["mrope_interleaved"] = m.mropeInterleaved;
  }
  return out;
}

int runModelCommand(const std::vector<std::string>& args) {
  std::string config, preset;
  bool asJson = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (a == "--json") {
      asJson = true;
    } else if ((a == "--config" || a == "--preset") && i + 1 < args.size()) {
      (a == "--config" ? config : preset) = args[++i];
    } else {
      std::cerr << "posviz model: " << (a == "--config" || a == "--preset" ? a + ": needs a value" : "unknown argument " + quotedText(a))
                << "\n" << kUsage;
      return 2;
    }
  }
  if (config.empty() == preset.empty()) {
    std::cerr << "posviz model: give exactly one of --config FILE or --preset NAME\n" << kUsage;
    return 2;
  }
  try {
    const ModelConfig m = config.empty() ? loadPreset(preset) : loadModelConfig(config);
    if (asJson) {
      std::cout << modelJson(m).dump(2) << "\n";
    } else {
      printModel(std::cout, m);
    }
  } catch (const std::exception& e) {  // ConfigError, or core refusing a combination
    std::cerr << "posviz model: " << displayMessage(e.what()) << "\n";
    return 2;
  }
  return 0;
}

}  // namespace posviz::cli
