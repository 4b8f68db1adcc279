#include "core/untrusted_text.hpp"
#include "app/cli/model_command.hpp"

#include <filesystem>
#include <iostream>
#include <sstream>

#include "app/cli/model_compare.hpp"
#include "app/cli/request.hpp"
#include "core/context_extension.hpp"

namespace posviz::cli {

namespace {

using nlohmann::json;

const char* kUsage =
    "usage: posviz model (--config FILE | --preset NAME) [--json]\n"
    "       posviz model --compare A B [C ...] [--json]     (each a preset name or a config file; --json may stand anywhere)\n"
    "  prints each kind of layer of the model with its layer indices and positional scheme, where the\n"
    "  reading comes from (the family's modeling code), and a GUESS line for a model_type posviz's\n"
    "  table of model types lacks; --compare prints the models side by side, marking what differs\n";

std::string num(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}


}  // namespace

std::string scalingText(const RopeScaling& s) {
  if (s.method == ScalingMethod::None) return "no scaling";
  // Linear and static NTK scale by the factor alone; the others read the trained length L0.
  const bool usesL0 = s.method != ScalingMethod::Linear && s.method != ScalingMethod::NtkAware;
  std::string t = std::string(scalingName(s.method)) + " x" + num(s.factor) + (usesL0 ? " from " + std::to_string(s.originalMaxPositions) : "");
  if (s.method == ScalingMethod::Yarn) t += ", beta " + num(s.betaFast) + "/" + num(s.betaSlow);
  if (s.method == ScalingMethod::Llama3) t += ", low/high freq factor " + num(s.lowFreqFactor) + "/" + num(s.highFreqFactor);
  if (s.method == ScalingMethod::LongRope) t += ", " + std::to_string(s.shortFactor.size()) + " short/long factors";
  return t;
}

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
    case LayerScheme::None: return "no positions (no attention over positions in these layers)";
    case LayerScheme::Sinusoidal: return "sinusoidal positions added to the embeddings";
    case LayerScheme::RelativeBuckets: return "T5 relative-position buckets (a learned bias per bucket and head)";
    case LayerScheme::RelativeKey: return "relative_key: q . E[clamp(j - i)] added to each score (a learned vector per distance)";
  }
  return "?";
}

std::string mropeIndexText(const ModelConfig& m) {
  if (m.mropeSection.empty() || m.mropeIndexRule.empty()) return "";
  std::ostringstream t;
  t << "M-RoPE position ids: get_rope_index's " << (m.mropeIndexRule == "own" ? "own rule (not modelled by posviz)" : m.mropeIndexRule + " rule");
  if (m.spatialMerge > 0) t << ", spatial merge " << m.spatialMerge;
  if (m.mropeIndexRule == "seconds" && m.tokensPerSecond > 0.0) t << ", " << m.tokensPerSecond << " tokens per second";
  t << " (mrope-angles)";
  return t.str();
}

std::string rope2dText(const ModelConfig& m) {
  if (m.rope2d != "pixtral") return "";
  const int quarter = m.rope.headDim / 4;
  return "2-D RoPE over a " + std::to_string(m.patchGrid) + " x " + std::to_string(m.patchGrid) + " patch grid (Pixtral): pairs 0-" +
         std::to_string(quarter - 1) + " turn by the patch row, " + std::to_string(quarter) + "-" + std::to_string(2 * quarter - 1) +
         " by its column at the odd frequencies (axial-angles --image-scheme pixtral)";
}

std::string mlaText(const ModelConfig& m) {
  const ModelConfig::Mla& a = m.mla;
  if (a.ropeHeadDim == 0) return "";
  return "MLA: each head's q and k have " + std::to_string(a.nopeHeadDim) + " position-free dims and " + std::to_string(a.ropeHeadDim) +
         " rotated ones (the rotated key is one vector shared by every head); only the " + std::to_string(a.ropeHeadDim) +
         " rotate, v (" + std::to_string(a.vHeadDim) + " dims) and the " + std::to_string(a.kvLoraRank) +
         "-dim compressed kv carry no position";
}

// One line on the table a model's learned or sinusoidal positions come from, or on its buckets.
std::string tableText(const ModelConfig& m) {
  std::string t;
  if (m.encoding == ModelEncoding::Learned || m.encoding == ModelEncoding::Sinusoidal) {
    const long long rows = m.maxPositions + (m.offsetRowsAdded ? m.positionOffset : 0);
    t = (m.encoding == ModelEncoding::Learned ? "learned table: " : "sinusoidal table: ") + std::to_string(rows) +
        " rows of width " + std::to_string(m.hiddenSize);
    if (m.encoding == ModelEncoding::Sinusoidal) t += ", " + m.sinusoidalLayout;
    if (m.positionOffset > 0) {
      t += "; position 0 is row " + std::to_string(m.positionOffset) + " (" + m.positionOffsetRule + "), so " +
           std::to_string(rows - m.positionOffset) + " positions";
    }
  }
  if (m.encoding == ModelEncoding::RelativeBuckets) {
    t = "buckets: " + std::to_string(m.relativeBuckets) + ", max distance " + std::to_string(m.relativeMaxDistance) +
        "; encoder bidirectional, decoder causal; the bias is added in each stack's first layer and shared by the others";
  }
  if (m.encoding == ModelEncoding::RelativeKey) {
    t = "distances j - i clamped to [-" + std::to_string(m.relativeKeyLeft) + ", " + std::to_string(m.relativeKeyRight) + "]: a table of " +
        std::to_string(m.relativeKeyLeft + m.relativeKeyRight + 1) + " x " + std::to_string(m.relativeKeyDim) +
        " per layer, row clamp(j - i) + " + std::to_string(m.relativeKeyLeft) + " (shaw-scores --variant relative_key_clamped)";
  }
  return t;
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
  out << "model " << displayText(m.name);   // the name and the type come from the file
  if (!m.modelType.empty()) out << " (" << displayText(m.modelType) << ")";
  out << ": " << m.numLayers << " layers";
  if (m.maxPositions > 0) out << ", " << m.maxPositions << " positions";
  out << "\n";
  for (const LayerKind& k : m.layerKinds) {
    out << "  " << displayText(k.attention) << ": " << k.layers.size() << " layers [" << layerRangesText(k.layers) << "]\n";
    out << "    " << layerKindText(k);
    if (k.slidingWindow > 0) out << "; sliding window " << k.slidingWindow;
    if (k.attentionChunk > 0) out << "; attention chunk " << k.attentionChunk;
    out << "\n";
  }
  if (!m.mropeSection.empty()) {
    out << "  M-RoPE: pairs per (t, h, w) axis";
    for (int s : m.mropeSection) out << " " << s;
    out << (m.mropeInterleaved ? ", interleaved axes\n" : ", contiguous sections\n");
    if (const std::string t = mropeIndexText(m); !t.empty()) out << "  " << t << "\n";
  }
  if (const std::string t = rope2dText(m); !t.empty()) out << "  " << t << "\n";
  for (const std::string& e : m.extras) out << "  extra: " << e << "\n";
  if (const std::string t = mlaText(m); !t.empty()) out << "  " << t << "\n";
  if (const std::string t = tableText(m); !t.empty()) out << "  " << t << "\n";
  if (!m.family.empty()) out << "  read as: " << m.family << "\n";
  for (const std::string& k : m.unreadKeys) out << "  note: " << displayText(k) << " is in the file, but this family's code never reads it\n";
  if (!m.guess.empty()) out << "  GUESS: " << m.guess << "\n";
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
    if (!m.mropeIndexRule.empty()) out["mrope_index_rule"] = m.mropeIndexRule;
    if (m.spatialMerge > 0) out["spatial_merge_size"] = m.spatialMerge;
    if (m.tokensPerSecond > 0.0) out["tokens_per_second"] = m.tokensPerSecond;
  }
  if (!m.rope2d.empty()) out["rope_2d"] = {{"scheme", m.rope2d}, {"patch_grid", m.patchGrid}};
  if (m.mla.ropeHeadDim > 0) {
    out["mla"] = {{"qk_nope_head_dim", m.mla.nopeHeadDim}, {"qk_rope_head_dim", m.mla.ropeHeadDim}, {"v_head_dim", m.mla.vHeadDim},
                  {"kv_lora_rank", m.mla.kvLoraRank}};
  }
  out["family"] = m.family;
  out["guess"] = m.guess.empty() ? json(nullptr) : json(m.guess);
  out["unread_keys"] = m.unreadKeys;
  if (m.encoding == ModelEncoding::Learned || m.encoding == ModelEncoding::Sinusoidal) {
    const long long rows = m.maxPositions + (m.offsetRowsAdded ? m.positionOffset : 0);
    out["table"] = {{"rows", rows}, {"width", m.hiddenSize}, {"offset", m.positionOffset}, {"positions", rows - m.positionOffset}};
    if (m.encoding == ModelEncoding::Sinusoidal) out["table"]["layout"] = m.sinusoidalLayout;
  }
  if (m.encoding == ModelEncoding::RelativeBuckets) {
    out["relative_buckets"] = {{"buckets", m.relativeBuckets}, {"max_distance", m.relativeMaxDistance}, {"heads", m.numHeads}};
  }
  if (m.encoding == ModelEncoding::RelativeKey) {
    out["relative_key"] = {{"left_max", m.relativeKeyLeft}, {"right_max", m.relativeKeyRight}, {"head_size", m.relativeKeyDim},
                           {"table_rows", m.relativeKeyLeft + m.relativeKeyRight + 1}};
  }
  return out;
}

namespace {

// A preset name, or a config file when a file of that name exists. A name written as a path (with
// a folder or a .json ending) that names no file is a missing file, not an unknown preset: no
// preset name has either.
ModelConfig loadNamedModel(const std::string& nameOrFile) {
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(nameOrFile, ec))) return loadModelConfig(nameOrFile);
  if (nameOrFile.find('/') != std::string::npos || nameOrFile.ends_with(".json"))
    throw ConfigError("no config file " + quotedText(nameOrFile) + ": there is no such file (each model of --compare is a preset "
                      "name or a config file's path)");
  return loadPreset(nameOrFile);
}

int runCompare(const std::vector<std::string>& names, bool asJson) {
  std::vector<ModelConfig> models;
  for (const std::string& n : names) {
    models.push_back(loadNamedModel(n));
    if (!models.back().guess.empty()) std::cerr << "posviz model: guess: " << displayText(models.back().name) << ": " << models.back().guess << "\n";
  }
  if (!asJson) {
    printComparison(std::cout, models);
    return 0;
  }
  json rows = json::array();
  for (const CompareRow& r : compareModels(models)) rows.push_back({{"field", r.field}, {"values", r.values}, {"differs", r.differs}});
  json names_ = json::array();
  for (const ModelConfig& m : models) names_.push_back(m.name);
  std::cout << json{{"models", names_}, {"rows", rows}}.dump(2) << "\n";
  return 0;
}

}  // namespace

int runModelCommand(const std::vector<std::string>& args) {
  std::string config, preset;
  std::vector<std::string> compare;
  bool asJson = false;
  bool comparing = false;   // after --compare, every argument that is not an option names a model
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (a == "--json") {
      asJson = true;
    } else if (a == "--compare") {
      if (comparing) {
        std::cerr << "posviz model: --compare is given twice: list every model after one --compare\n" << kUsage;
        return 2;
      }
      comparing = true;
    } else if (comparing && !a.starts_with("--")) {
      compare.push_back(a);
    } else if ((a == "--config" || a == "--preset") && i + 1 < args.size()) {
      (a == "--config" ? config : preset) = args[++i];
    } else {
      std::cerr << "posviz model: " << (a == "--config" || a == "--preset" ? a + ": needs a value" : "unknown argument " + quotedText(a))
                << "\n" << kUsage;
      return 2;
    }
  }
  if (comparing && compare.size() < 2) {
    std::cerr << "posviz model: --compare needs two or more models (preset names or config files), got "
              << compare.size() << "\n" << kUsage;
    return 2;
  }
  if (!compare.empty() && (!config.empty() || !preset.empty())) {
    std::cerr << "posviz model: give --compare, or one of --config FILE or --preset NAME, not both\n" << kUsage;
    return 2;
  }
  if (compare.empty() && config.empty() == preset.empty()) {
    std::cerr << "posviz model: give exactly one of --config FILE or --preset NAME (or --compare A B ...)\n" << kUsage;
    return 2;
  }
  try {
    if (!compare.empty()) return runCompare(compare, asJson);
    const ModelConfig m = config.empty() ? loadPreset(preset) : loadModelConfig(config);
    if (!m.guess.empty()) std::cerr << "posviz model: guess: " << m.guess << "\n";
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
