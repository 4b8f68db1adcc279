// model_config.cpp
// [SECTION] JSON field access with errors that name the field
// [SECTION] Encoding detection and family defaults
// [SECTION] rope_scaling / rope_parameters
// [SECTION] Layer kinds
// [SECTION] Extras beside the encoding
// [SECTION] DeepSeek's own inference config
// [SECTION] parseModelConfig
// [SECTION] Files and presets
#include "app/cli/model_config.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli/config_reader.hpp"
#include "app/cli/limits.hpp"
#include "app/cli/model_types.hpp"
#include "core/atomic_file.hpp"
#include "core/check.hpp"
#include "core/embedded.hpp"
#include "core/untrusted_text.hpp"


namespace posviz::cli {

using nlohmann::json;

// [SECTION] JSON field access with errors that name the field

namespace {

constexpr std::size_t kMaxConfigBytes = 16u << 20;

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// [SECTION] Encoding detection and family defaults

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// Model types whose published files name a remote-code class that transformers took in under
// another name, with the same positional code.
const std::vector<std::pair<std::string, std::string>> kAliases = {
    {"refinedweb", "falcon"},       // tiiuae's RW remote code, merged into transformers as falcon
    {"refinedwebmodel", "falcon"},
    {"stablelm_epoch", "stablelm"},  // Stability's StableLMEpoch remote code, merged as stablelm
};

// The table's entry for a model_type (a multimodal wrapper's: its text model's), following the
// aliases above; nullptr when the table has none.
const ModelTypeEntry* entryFor(const std::string& modelType, std::string* alias = nullptr) {
  std::string t = modelType;
  for (const auto& [from, to] : kAliases) {
    if (t == from) {
      t = to;
      if (alias != nullptr) *alias = to;
    }
  }
  const ModelTypeEntry* e = t.empty() ? nullptr : findModelType(t);
  if (e != nullptr && e->stack == "multimodal" && !e->textConfig.empty()) {
    if (const ModelTypeEntry* text = findModelType(e->textConfig)) return text;
  }
  return e;
}

// Falcon: alibi true in the file switches its rotary embedding off; MPT: attn_config.alibi.
std::optional<bool> readAlibiFlag(const Reader& r) {
  const json& root = r.root();
  std::optional<bool> alibi = r.boolean(root, "alibi", "alibi");
  if (const json* attn = r.find(root, "attn_config")) {
    if (!attn->is_object()) r.fail("attn_config", "must be an object, got " + describeJson(*attn));
    if (std::optional<bool> a = r.boolean(*attn, "alibi", "attn_config.alibi")) alibi = alibi.value_or(false) || *a;
    if (r.boolean(*attn, "rope", "attn_config.rope").value_or(false)) {
      r.fail("attn_config.rope", "is true: MPT's rotary variant is not supported (allowed: false or absent)");
    }
    if (std::optional<double> maxBias = r.number(*attn, "alibi_bias_max", "attn_config.alibi_bias_max")) {
      // MPT's gen_slopes: 2^(-alibi_bias_max * h / n); 8 gives the ALiBi paper's slopes, which core computes.
      // transformers' MptModel ignores it (build_mpt_alibi_tensor always uses 8); MosaicML's own code
      // honours it: the slopes depend on which code runs, so only 8 has one answer.
      if (*maxBias != 8.0) {
        r.fail("attn_config.alibi_bias_max", "must be 8, got " + formatValue(*maxBias) + ": transformers' MptModel ignores it and uses 8, "
                                             "MosaicML's own modeling code uses it, so the slopes depend on which code runs");
      }
    }
  }
  return alibi;
}

// The scheme the family's table entry gives, after any key that switches it (Falcon's alibi, BERT's
// position_embedding_type).
std::string tableScheme(const Reader& r, const ModelTypeEntry& e) {
  for (const auto& [key, values] : e.schemeByKey) {
    const json* v = &r.root();  // "attn_config.alibi": a key inside an object
    for (std::size_t at = 0; v != nullptr && at <= key.size();) {
      const std::size_t dot = std::min(key.find('.', at), key.size());
      v = v->is_object() ? r.find(*v, key.substr(at, dot - at)) : nullptr;
      at = dot + 1;
    }
    if (v == nullptr) continue;
    const std::string text = v->dump();
    if (auto it = values.find(text); it != values.end()) return it->second;
    std::string allowed;
    for (const auto& [value, scheme] : values) allowed += (allowed.empty() ? "" : "|") + value;
    r.fail(key, "must be one of " + allowed + " for model_type " + quotedText(e.modelType) + ", got " + describeJson(*v));
  }
  return e.scheme;
}

ModelEncoding encodingOfScheme(const Reader& r, const ModelTypeEntry& e, const std::string& scheme) {
  if (scheme == "rope") return ModelEncoding::Rope;
  if (scheme == "alibi") return ModelEncoding::Alibi;
  if (scheme == "learned") return ModelEncoding::Learned;
  if (scheme == "sinusoidal") return ModelEncoding::Sinusoidal;
  if (scheme == "relative-buckets") return ModelEncoding::RelativeBuckets;
  if (scheme == "relative-key") return ModelEncoding::RelativeKey;
  if (scheme == "none") return ModelEncoding::None;
  r.fail("model_type", quotedText(e.modelType) + " uses a positional scheme" +
                           " posviz does not draw" + (e.note.empty() ? std::string() : " (" + e.note + ")") +
                           "; posviz reads RoPE, ALiBi, learned, sinusoidal, T5-bucket, relative_key and position-free models");
}

// Generic rules, for a model_type the table lacks; *why names the key that decided.
ModelEncoding guessEncoding(const Reader& r, const std::string& modelType, std::string* why) {
  const json& root = r.root();
  for (const char* key : {"rope_theta", "rope_scaling", "rope_parameters", "rotary_emb_base", "rotary_pct", "rope_pct",
                          "partial_rotary_factor", "rotary_dim", "qk_rope_head_dim"}) {
    if (r.find(root, key) != nullptr) {
      *why = std::string("RoPE, because the file has ") + key;
      return ModelEncoding::Rope;
    }
  }
  for (const char* key : {"relative_attention_num_buckets"}) {
    if (r.find(root, key) != nullptr) {
      *why = std::string("T5 relative buckets, because the file has ") + key;
      return ModelEncoding::RelativeBuckets;
    }
  }
  for (const char* key : {"n_positions", "max_position_embeddings"}) {
    if (r.find(root, key) != nullptr) {
      *why = std::string("a learned position table, because the file has ") + key + " and no RoPE key";
      return ModelEncoding::Learned;
    }
  }
  r.fail("model_type", "does not say which position encoding the model uses: " +
                           (modelType.empty() ? std::string("the file has no model_type") : quotedText(modelType) + " is not in posviz's table of model types") +
                           ", and the file has none of rope_theta, rope_scaling, rotary_pct, alibi, attn_config.alibi, "
                           "position_embedding_type, relative_attention_num_buckets, n_positions or max_position_embeddings");
}

// A family in the table: its code decides (a key switches the scheme only where that code reads
// it). Otherwise the generic rules, position_embedding_type first.
ModelEncoding detectEncoding(const Reader& r, const std::string& modelType, const ModelTypeEntry* entry, std::string* why) {
  const json& root = r.root();
  if (readAlibiFlag(r).value_or(false)) return ModelEncoding::Alibi;
  if (entry != nullptr) return encodingOfScheme(r, *entry, tableScheme(r, *entry));
  if (std::optional<std::string> pet = r.string(root, "position_embedding_type", "position_embedding_type")) {
    *why = "the file's position_embedding_type " + quotedText(*pet);
    if (*pet == "alibi") return ModelEncoding::Alibi;
    if (*pet == "absolute") return ModelEncoding::Learned;
    if (*pet == "rotary" || *pet == "rope") return ModelEncoding::Rope;
    r.fail("position_embedding_type", "must be one of absolute|alibi|rotary (relative_key and relative_key_query, BERT's "
                                      "distance embeddings, are not drawn by posviz), got " + quotedText(*pet));
  }
  return guessEncoding(r, modelType, why);
}

// What a model class assumes where its config.json is silent (the defaults of its Hugging Face
// configuration_<model>.py), and how its attention pairs dims.
struct Family {
  RopeLayout layout = RopeLayout::HalfSplit;
  int headDim = 0;                 // 0: hidden_size / num_attention_heads
  double base = 10000.0;
  double rotaryFraction = 1.0;
  double localBase = 0.0;          // Gemma 3: rope_local_base_freq for sliding layers, 0 = same base
  int globalEvery = 0;             // Gemma: sliding_window_pattern, every Nth layer global; 0 = none
  long long slidingWindow = 0;     // default sliding_window where the family has one
  int hiddenSize = 0, numHeads = 0, numLayers = 0;
  long long maxPositions = 0;
  bool defaultSlidingRope = false; // OLMo 3: sliding layers use unscaled RoPE
  bool globalNoPE = false;         // EXAONE 4: full-attention layers use no RoPE when sliding_window is set
  bool iRope = false;              // Llama 4: every no_rope_layer_interval-th layer NoPE, others chunked
};

// The configuration class's defaults and the pairing its modeling code uses, from the table.
void tableDefaults(const ModelTypeEntry& e, Family& f) {
  if (e.layout == "interleaved") f.layout = RopeLayout::Interleaved;
  auto whole = [&](const char* key, auto& field) {
    if (auto v = e.defaultNumber(key); v && *v > 0.0 && *v == std::floor(*v) && *v < 1e15) {
      field = static_cast<std::remove_reference_t<decltype(field)>>(*v);
    }
  };
  if (auto v = e.defaultNumber("rope_theta")) f.base = *v;
  if (auto v = e.defaultNumber("rope_theta.global")) f.base = *v;   // Gemma 3: default_theta {"global", "local"}
  if (auto v = e.defaultNumber("rope_theta.local")) f.localBase = *v;
  for (const char* k : {"partial_rotary_factor", "rotary_pct", "rope_pct"}) {
    if (auto v = e.defaultNumber(k); v && *v > 0.0 && *v <= 1.0) f.rotaryFraction = *v;
  }
  for (const char* k : {"hidden_size", "d_model", "n_embd", "dim", "embed_dim"}) whole(k, f.hiddenSize);
  whole("head_dim", f.headDim);
  for (const char* k : {"num_attention_heads", "n_head", "n_heads", "num_heads", "encoder_attention_heads"}) whole(k, f.numHeads);
  for (const char* k : {"num_hidden_layers", "n_layer", "n_layers", "num_layers"}) whole(k, f.numLayers);
  whole("max_position_embeddings", f.maxPositions);
}

// The table gives each family's pairing and its configuration class's defaults; what stays here
// is behaviour the modeling code builds from layer indices, which a default cannot say.
Family familyOf(const std::string& t, const ModelTypeEntry* e) {
  Family f;
  if (e != nullptr) tableDefaults(*e, f);
  if (t == "chatglm") f.rotaryFraction = 0.5;  // THUDM modeling_chatglm.py: RotaryEmbedding(kv_channels // 2)
  if (t == "gemma2") {  // modeling_gemma2.py: every second layer global (layer_types default)
    f.globalEvery = 2;
    f.slidingWindow = 4096;
  }
  if (t == "gemma3_text") {  // configuration_gemma3.py: a global layer every 6th, local layers on rope_local_base_freq
    f.globalEvery = 6;
    f.slidingWindow = 4096;
  }
  if (t == "olmo3") {  // modeling_olmo3.py: sliding layers use the unscaled rope
    f.defaultSlidingRope = true;
    f.slidingWindow = 4096;
  }
  if (t == "exaone4") f.globalNoPE = true;  // modeling_exaone4.py: "global NoPE for hybrid attention"
  if (t == "llama4_text") f.iRope = true;    // modeling_llama4.py: NoPE every no_rope_layer_interval-th layer
  return f;
}

// [SECTION] rope_scaling / rope_parameters

const char* kScalingTypes = "default|linear|ntk|dynamic|yarn|llama3|longrope|su|mrope";

const std::vector<std::string> kScalingKeys = {
    "rope_type", "type", "factor", "original_max_position_embeddings", "beta_fast", "beta_slow", "mscale",
    "mscale_all_dim", "truncate", "low_freq_factor", "high_freq_factor", "short_factor", "long_factor",
    "attention_factor", "rope_theta", "partial_rotary_factor", "mrope_section", "mrope_interleaved",
    "llama_4_scaling_beta",
    "finetuned"};  // YaRN (jquesnelle/yarn): selects the dynamic variant's L0 only; static YaRN ignores it

// Every key of a scaling object must be one we read: an unknown one would change the angles.
void checkScalingKeys(const Reader& r, const json& rs, const std::string& p) {
  for (auto it = rs.begin(); it != rs.end(); ++it) {
    if (contains(kScalingKeys, it.key())) continue;
    std::string known;
    for (const std::string& k : kScalingKeys) known += (known.empty() ? "" : ", ") + k;
    r.fail(p + displayText(it.key()), "is not a field posviz understands, and it may change positions (known: " + known + ")");
  }
}

std::string scalingType(const Reader& r, const json& rs, const std::string& p, std::string& typeField) {
  std::optional<std::string> ropeType = r.string(rs, "rope_type", p + "rope_type");
  std::optional<std::string> type = r.string(rs, "type", p + "type");
  if (ropeType && type && lowercase(*ropeType) != lowercase(*type)) {
    r.fail(p + "type", "is " + quotedText(*type) + " but rope_type is " + quotedText(*ropeType) + ": they must agree");
  }
  typeField = p + (ropeType ? "rope_type" : "type");
  if (!ropeType && !type) r.fail(p + "rope_type", std::string("is missing (one of ") + kScalingTypes + ")");
  return ropeType ? *ropeType : *type;
}

ScalingMethod scalingMethod(const Reader& r, const std::string& type, const std::string& typeField) {
  const std::string t = lowercase(type);
  if (t == "default" || t == "none" || t == "mrope") return ScalingMethod::None;  // mrope: default RoPE over 3-D ids
  if (t == "linear") return ScalingMethod::Linear;
  if (t == "ntk") return ScalingMethod::NtkAware;
  if (t == "dynamic") return ScalingMethod::DynamicNtk;
  if (t == "yarn") return ScalingMethod::Yarn;
  if (t == "llama3") return ScalingMethod::Llama3;
  if (t == "longrope" || t == "su") return ScalingMethod::LongRope;  // su: Phi-3's first name for LongRoPE
  r.fail(typeField, "must be one of " + std::string(kScalingTypes) + ", got " + quotedText(type));
}

void readLongRope(const Reader& r, const json& rs, const std::string& p, RopeParams& rope, std::optional<double> factor,
                  long long maxPositions) {
  RopeScaling& s = rope.scaling;
  s.shortFactor = r.numberList(rs, "short_factor", p + "short_factor");
  s.longFactor = r.numberList(rs, "long_factor", p + "long_factor");
  const int pairs = ropeRotaryDims(rope) / 2;
  for (const auto& [list, field] : {std::pair{&s.shortFactor, "short_factor"}, std::pair{&s.longFactor, "long_factor"}}) {
    if (static_cast<long long>(list->size()) != pairs) {
      r.fail(p + field, "has " + std::to_string(list->size()) + " entries, expected " + std::to_string(pairs) +
                            " (one per rotary pair: rotary dims " + std::to_string(2 * pairs) + " / 2)");
    }
  }
  if (factor) {
    s.factor = *factor;
  } else if (maxPositions > 0) {
    // Hugging Face: factor = max_position_embeddings / original_max_position_embeddings.
    s.factor = std::max(1.0, static_cast<double>(maxPositions) / s.originalMaxPositions);
  }
}

void readMethodFields(const Reader& r, const json& rs, const std::string& p, RopeParams& rope,
                      std::optional<double> factor, long long maxPositions) {
  RopeScaling& s = rope.scaling;
  if (s.method == ScalingMethod::Yarn) {
    // _compute_yarn_parameters: `beta_fast or 32`, `beta_slow or 1` (0 gives the default), and
    // `if mscale and mscale_all_dim` (0 counts as unset), so only negative values are refused.
    const auto nonNegative = [&](const char* key) {
      std::optional<double> v = r.number(rs, key, p + key);
      if (v && !(*v >= 0.0)) r.fail(p + key, "must be >= 0 (0 counts as unset, as Hugging Face reads it), got " + formatValue(*v));
      return v;
    };
    if (auto v = nonNegative("beta_fast"); v && *v > 0.0) s.betaFast = *v;
    if (auto v = nonNegative("beta_slow"); v && *v > 0.0) s.betaSlow = *v;
    if (auto v = nonNegative("mscale")) s.mscale = *v;
    if (auto v = nonNegative("mscale_all_dim")) s.mscaleAllDim = *v;
    if (auto v = r.boolean(rs, "truncate", p + "truncate")) s.truncate = *v;
  } else if (s.method == ScalingMethod::Llama3) {
    const auto low = r.positiveNumber(rs, "low_freq_factor", p + "low_freq_factor");
    const auto high = r.positiveNumber(rs, "high_freq_factor", p + "high_freq_factor");
    if (!low) r.fail(p + "low_freq_factor", "is missing (llama3 scaling needs it)");
    if (!high) r.fail(p + "high_freq_factor", "is missing (llama3 scaling needs it)");
    if (!(*high > *low)) {
      r.fail(p + "high_freq_factor", "must be > low_freq_factor " + formatValue(*low) + ", got " + formatValue(*high));
    }
    s.lowFreqFactor = *low;
    s.highFreqFactor = *high;
  } else if (s.method == ScalingMethod::LongRope) {
    readLongRope(r, rs, p, rope, factor, maxPositions);
  }
  if (s.method == ScalingMethod::Yarn || s.method == ScalingMethod::LongRope) {
    if (auto v = r.positiveNumber(rs, "attention_factor", p + "attention_factor")) s.attentionFactor = *v;
  }
}

// rs: rope_scaling, or (transformers v5) rope_parameters or one of its per-layer-type entries; p
// its path with a trailing dot. rope's head_dim and rotary fraction are already set.
// L0, the trained context, as transformers 5 standardize_rope_params gives it: for llama3, yarn and
// longrope the top-level original_max_position_embeddings overwrites rope_parameters' (per-layer
// rope_parameters ignore the top level), else max_position_embeddings; dynamic NTK always scales
// from max_position_embeddings (_compute_dynamic_ntk_parameters), linear never reads it.
void readTrainedLength(const Reader& r, const json& rs, const std::string& p, RopeScaling& s, long long maxPositions,
                       bool perLayer, std::vector<std::string>& unread) {
  const int maxInt = std::numeric_limits<int>::max();
  const std::string key = "original_max_position_embeddings";
  const std::optional<long long> nested = r.integer(rs, key, p + key, 1, maxInt);
  const std::optional<long long> top = perLayer ? std::nullopt : r.integer(r.root(), key, key, 1, maxInt);
  const bool readsIt = s.method == ScalingMethod::Llama3 || s.method == ScalingMethod::Yarn || s.method == ScalingMethod::LongRope;
  const std::optional<long long> original = readsIt ? (top ? top : nested) : std::nullopt;
  if (!readsIt && (nested || top) && s.method != ScalingMethod::NtkAware) {
    unread.push_back((nested ? p : std::string()) + key + " (" + scalingName(s.method) +
                     " scaling reads max_position_embeddings as its trained length)");
  }
  if (original) {
    s.originalMaxPositions = static_cast<int>(*original);
  } else if (s.method == ScalingMethod::NtkAware && (nested || top)) {
    s.originalMaxPositions = static_cast<int>(nested ? *nested : *top);
  } else if (maxPositions > 0) {
    s.originalMaxPositions = static_cast<int>(std::min<long long>(maxPositions, maxInt));
  } else if (s.method == ScalingMethod::Llama3 || s.method == ScalingMethod::LongRope) {
    r.fail(p + key, "is missing, and so is max_position_embeddings, which Hugging Face would use in its place");
  }
}

void readRopeScaling(const Reader& r, const json& rs, const std::string& p, RopeParams& rope, long long maxPositions,
                     bool perLayer, std::vector<std::string>& unread) {
  checkScalingKeys(r, rs, p);
  std::string typeField;
  const std::string type = scalingType(r, rs, p, typeField);
  RopeScaling& s = rope.scaling;
  s.method = scalingMethod(r, type, typeField);
  const std::optional<double> factor = r.number(rs, "factor", p + "factor");
  if (s.method == ScalingMethod::None) return;  // default RoPE's code never reads factor
  if (factor && (*factor < 1.0 || *factor > cli::kMaxFactor)) {
    r.fail(p + "factor", "must be in [1, " + formatValue(cli::kMaxFactor) + "] (target length / trained length), got " + formatValue(*factor));
  }
  readTrainedLength(r, rs, p, s, maxPositions, perLayer, unread);
  if (s.method != ScalingMethod::LongRope) {
    if (!factor && s.method == ScalingMethod::Yarn && maxPositions > 0) {
      // _compute_yarn_parameters: a null factor is max_position_embeddings / original.
      s.factor = std::max(1.0, static_cast<double>(maxPositions) / s.originalMaxPositions);
    } else {
      if (!factor) r.fail(p + "factor", "is missing (" + lowercase(type) + " scaling needs it)");
      s.factor = *factor;
    }
  }
  readMethodFields(r, rs, p, rope, factor, maxPositions);
}

// [SECTION] Layer kinds

struct Ctx {
  const Reader& r;
  std::string type;                 // model_type, lowercased
  const ModelTypeEntry* entry;      // the table's entry for it, nullptr when the table has none
  Family fam;
  ModelConfig& c;
  const json* ropeParams = nullptr; // rope_parameters (v5) or rope_scaling
  std::string ropeParamsPath;       // "rope_parameters." or "rope_scaling."
  bool perLayerType = false;        // rope_parameters keyed by layer type
  long long window = 0;             // sliding_window, 0 = none
};

constexpr int kMaxInt = std::numeric_limits<int>::max();

int ropeHeadDim(const Ctx& x) {
  const Reader& r = x.r;
  const json& root = r.root();
  // MLA (DeepSeek-V2 paper, section 2.1.3): q and k are a position-free part of qk_nope_head_dim
  // dims and a decoupled rotary part of qk_rope_head_dim dims; only the latter rotates.
  if (auto q = r.integer(root, "qk_rope_head_dim", "qk_rope_head_dim", 2, cli::kMaxHeadDim)) return static_cast<int>(*q);
  if (x.type == "chatglm") {  // ChatGLM: rotary_dim = kv_channels (or hidden / heads), half of it rotates
    if (auto kv = r.integer(root, "kv_channels", "kv_channels", 2, cli::kMaxHeadDim)) return static_cast<int>(*kv);
  }
  if (auto hd = r.integer(root, "head_dim", "head_dim", 2, cli::kMaxHeadDim)) return static_cast<int>(*hd);
  if (x.fam.headDim > 0) return x.fam.headDim;
  if (x.c.hiddenSize <= 0 || x.c.numHeads <= 0) {
    r.fail("head_dim", "is missing, and hidden_size / num_attention_heads cannot replace it (both are needed)");
  }
  if (x.c.hiddenSize % x.c.numHeads != 0) {
    r.fail("hidden_size", std::to_string(x.c.hiddenSize) + " is not divisible by num_attention_heads " +
                              std::to_string(x.c.numHeads) + ": head_dim is undefined");
  }
  return x.c.hiddenSize / x.c.numHeads;
}

double ropeBase(const Ctx& x, const json* rp, const std::string& rpPath) {
  const Reader& r = x.r;
  const json& root = r.root();
  if (x.type == "chatglm") {  // THUDM modeling_chatglm.py: base = 10000 * rope_ratio
    const double ratio = r.positiveNumber(root, "rope_ratio", "rope_ratio").value_or(1.0);
    return 10000.0 * ratio;
  }
  std::optional<double> b;
  std::string field;
  if (rp != nullptr && (b = r.number(*rp, "rope_theta", rpPath + "rope_theta"))) field = rpPath + "rope_theta";
  for (const char* k : {"rope_theta", "rotary_emb_base"}) {
    if (!b && (b = r.number(root, k, k))) field = k;
  }
  if (!b) return x.fam.base;
  if (!(*b > 1.0) || *b > cli::kMaxBase) r.fail(field, "must be in (1, " + formatValue(cli::kMaxBase) + "], got " + formatValue(*b));
  return *b;
}

double ropeFraction(const Ctx& x, const json* rp, const std::string& rpPath, int headDim) {
  const Reader& r = x.r;
  const json& root = r.root();
  std::optional<double> f;
  std::string field;
  // standardize_rope_params: a top-level partial_rotary_factor overwrites rope_parameters' one.
  if ((f = r.number(root, "partial_rotary_factor", "partial_rotary_factor"))) field = "partial_rotary_factor";
  if (!f && rp != nullptr && (f = r.number(*rp, "partial_rotary_factor", rpPath + "partial_rotary_factor"))) {
    field = rpPath + "partial_rotary_factor";
  }
  for (const char* k : {"rotary_pct", "rope_pct"}) {
    if (!f && (f = r.number(root, k, k))) field = k;
  }
  // The default type runs the family's own compute_default_rope_parameters; the scaled types run
  // modeling_rope_utils', which scale head_dim by the factor.
  const auto defaultType = [&] {
    std::string typeField;
    return rp == nullptr || scalingMethod(r, scalingType(r, *rp, rpPath, typeField), typeField) == ScalingMethod::None;
  };
  if (f && x.entry != nullptr && x.entry->defaultRopeIgnoresPrf && field.ends_with("partial_rotary_factor") && defaultType()) {
    const std::string note = field + " (" + x.entry->modelType + "'s compute_default_rope_parameters rotates all of head_dim)";
    if (std::find(x.c.unreadKeys.begin(), x.c.unreadKeys.end(), note) == x.c.unreadKeys.end()) x.c.unreadKeys.push_back(note);
    return 1.0;
  }
  if (!f) {
    if (auto rd = r.integer(root, "rotary_dim", "rotary_dim", 2, headDim)) {  // GPT-J, CodeGen
      return static_cast<double>(*rd) / headDim;
    }
    return x.fam.rotaryFraction;
  }
  if (!(*f > 0.0 && *f <= 1.0)) r.fail(field, "must be in (0, 1], got " + formatValue(*f));
  RopeParams probe;
  probe.headDim = headDim;
  probe.rotaryFraction = *f;
  if (ropeRotaryDims(probe) < 2) {
    r.fail(field, formatValue(*f) + " of head_dim " + std::to_string(headDim) + " leaves no rotating pair");
  }
  return *f;
}

// The RoPE of one kind of layer: rp is the scaling object that applies to it (nullptr: none).
RopeParams ropeFor(const Ctx& x, const json* rp, const std::string& rpPath, const std::string& attention) {
  const Reader& r = x.r;
  RopeParams rope;
  rope.layout = x.fam.layout;
  rope.headDim = ropeHeadDim(x);
  if (r.find(r.root(), "qk_rope_head_dim") != nullptr) {
    // DeepSeek-V3 modeling: rope_interleave (default true) rotates adjacent pairs, as the
    // authors' inference/model.py does with view_as_complex.
    rope.layout = r.boolean(r.root(), "rope_interleave", "rope_interleave").value_or(true) ? RopeLayout::Interleaved
                                                                                          : RopeLayout::HalfSplit;
  }
  if (rope.headDim % 2 != 0) r.fail("head_dim", "must be even for RoPE pairs, got " + std::to_string(rope.headDim));
  rope.base = ropeBase(x, rp, rpPath);
  rope.rotaryFraction = ropeFraction(x, rp, rpPath, rope.headDim);
  if (rp != nullptr) readRopeScaling(r, *rp, rpPath, rope, x.c.maxPositions, x.perLayerType, x.c.unreadKeys);
  if (attention == "sliding_attention" && !x.perLayerType) {
    if (x.fam.localBase > 0.0) {  // Gemma 3: local layers use rope_local_base_freq and no scaling
      rope.base = r.positiveNumber(r.root(), "rope_local_base_freq", "rope_local_base_freq").value_or(x.fam.localBase);
      rope.scaling = RopeScaling{};
    }
    if (x.fam.defaultSlidingRope) rope.scaling = RopeScaling{};  // OLMo 3: rope_type "default" on sliding layers
  }
  try {
    validateRope("parseModelConfig", rope);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("config " + x.c.name + ": " + (rpPath.empty() ? std::string("rope_scaling.") : rpPath) + " " + e.what());
  }
  return rope;
}

const std::vector<std::string> kLayerTypes = {"full_attention", "sliding_attention", "chunked_attention", "linear_attention"};

std::vector<std::string> typesFromPattern(const Ctx& x, int n) {
  const Reader& r = x.r;
  const json* pat = r.find(r.root(), "sliding_window_pattern");
  std::vector<std::string> types(static_cast<std::size_t>(n), "full_attention");
  if (pat != nullptr && pat->is_string()) {  // EXAONE 4: "LLLG", L = local (sliding), G = global
    const std::string s = pat->get<std::string>();
    if (s.empty() || s.find_first_not_of("LG") != std::string::npos) {
      r.fail("sliding_window_pattern", "must be a string of L (sliding) and G (global) or an integer, got " + quotedText(s));
    }
    for (int i = 0; i < n; ++i) types[i] = s[i % s.size()] == 'L' ? "sliding_attention" : "full_attention";
    return types;
  }
  long long every = x.fam.globalEvery;
  if (pat != nullptr) every = *r.integer(r.root(), "sliding_window_pattern", "sliding_window_pattern", 1, kMaxInt);
  const bool qwenWindow = r.boolean(r.root(), "use_sliding_window", "use_sliding_window").value_or(false);
  const auto maxWindowLayers = r.integer(r.root(), "max_window_layers", "max_window_layers", 0, kMaxInt);
  for (int i = 0; i < n; ++i) {
    bool sliding = true;  // Mistral, Phi-3: every layer
    if (every > 0) sliding = (i + 1) % every != 0;  // Gemma: every Nth layer is global
    else if (qwenWindow && maxWindowLayers) sliding = i >= *maxWindowLayers;  // Qwen2: layers from max_window_layers on
    types[i] = sliding ? "sliding_attention" : "full_attention";
  }
  return types;
}

// The layer types a family's code knows: the four attention kinds, and the table's own ("mamba",
// "conv", ...).
bool knownLayerType(const Ctx& x, const std::string& t) {
  return contains(kLayerTypes, t) || (x.entry != nullptr && x.entry->layerKindValues.count(t) != 0);
}

std::string knownLayerTypes(const Ctx& x) {
  std::string list;
  for (const std::string& t : kLayerTypes) list += (list.empty() ? "" : "|") + t;
  if (x.entry != nullptr) {
    for (const auto& [t, what] : x.entry->layerKindValues) {
      if (!contains(kLayerTypes, t)) list += "|" + t;
    }
  }
  return list;
}

// A list of one type per layer under `key` (layer_types; Zamba's layers_block_type).
std::vector<std::string> typeList(const Ctx& x, const std::string& key, const json& lt, int n) {
  const Reader& r = x.r;
  if (!lt.is_array()) r.fail(key, "must be a list of strings, got " + describeJson(lt));
  // RecurrentGemma: block_types is a pattern the layers repeat (layers_block_type cycles it).
  const bool cyclic = key == "block_types" && !lt.empty();
  if (n > 0 && static_cast<int>(lt.size()) != n && !cyclic) {
    r.fail(key, "has " + std::to_string(lt.size()) + " entries, expected num_hidden_layers " + std::to_string(n));
  }
  std::vector<std::string> types;
  for (std::size_t i = 0; i < lt.size(); ++i) {
    const json& e = lt[i];
    if (!e.is_string() || !knownLayerType(x, e.get<std::string>())) {
      r.fail(key + "[" + std::to_string(i) + "]", "must be one of " + knownLayerTypes(x) + ", got " + describeJson(e));
    }
    types.push_back(e.get<std::string>());
  }
  for (std::size_t i = types.size(); cyclic && static_cast<int>(i) < n; ++i) types.push_back(types[i % lt.size()]);
  if (cyclic && n > 0) types.resize(static_cast<std::size_t>(n));
  return types;
}

// Jamba: attention on layers with i % attn_layer_period == attn_layer_offset, Mamba elsewhere.
std::optional<std::vector<std::string>> periodTypes(const Ctx& x, int n) {
  if (x.entry == nullptr || x.entry->layerKindsKey != "attn_layer_period") return std::nullopt;
  const Reader& r = x.r;
  const long long period = r.integer(r.root(), "attn_layer_period", "attn_layer_period", 1, kMaxInt)
                               .value_or(static_cast<long long>(x.entry->defaultNumber("attn_layer_period").value_or(1)));
  const long long offset = r.integer(r.root(), "attn_layer_offset", "attn_layer_offset", 0, kMaxInt)
                               .value_or(static_cast<long long>(x.entry->defaultNumber("attn_layer_offset").value_or(0)));
  std::string other = "mamba";
  for (const auto& [t, what] : x.entry->layerKindValues) {
    if (what == "none") other = t;
  }
  std::vector<std::string> types(static_cast<std::size_t>(n), other);
  for (int i = 0; i < n; ++i) {
    if (i % period == offset) types[static_cast<std::size_t>(i)] = "full_attention";
  }
  return types;
}

// One attention type per layer ("full_attention", ...); empty when the layer count is unknown.
std::vector<std::string> layerTypes(const Ctx& x, int n, const std::vector<int>& ropeLayers) {
  const Reader& r = x.r;
  if (const json* lt = r.find(r.root(), "layer_types")) return typeList(x, "layer_types", *lt, n);
  if (x.entry != nullptr && !x.entry->layerKindsKey.empty() && x.entry->layerKindsKey != "layer_types") {
    if (const json* lt = r.find(r.root(), x.entry->layerKindsKey); lt != nullptr && lt->is_array()) {
      return typeList(x, x.entry->layerKindsKey, *lt, n);
    }
  }
  if (auto types = periodTypes(x, n)) return *types;
  if (x.fam.iRope) {  // Llama 4: RoPE layers attend in chunks, NoPE layers globally
    std::vector<std::string> types(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) types[i] = ropeLayers[i] != 0 ? "chunked_attention" : "full_attention";
    return types;
  }
  if (x.window > 0) return typesFromPattern(x, n);
  return std::vector<std::string>(static_cast<std::size_t>(n), "full_attention");
}

// no_rope_layers (Llama 4, SmolLM3): 1 = the layer rotates, 0 = NoPE. Llama 4's default: every
// no_rope_layer_interval-th layer (configuration_llama4.py). Empty: every layer rotates.
std::vector<int> ropeLayerFlags(const Ctx& x, int n) {
  const Reader& r = x.r;
  std::vector<int> flags;
  if (const json* nr = r.find(r.root(), "no_rope_layers")) {
    if (!nr->is_array() || (n > 0 && static_cast<int>(nr->size()) != n)) {
      r.fail("no_rope_layers", "must be a list of " + std::to_string(n) + " flags (1 = RoPE, 0 = NoPE), got " + describeJson(*nr));
    }
    for (std::size_t i = 0; i < nr->size(); ++i) {
      const json& e = (*nr)[i];
      if (!e.is_number_integer() || (e.get<int>() != 0 && e.get<int>() != 1)) {
        r.fail("no_rope_layers[" + std::to_string(i) + "]", "must be 0 (NoPE) or 1 (RoPE), got " + describeJson(e));
      }
      flags.push_back(e.get<int>());
    }
  } else if (x.fam.iRope) {
    const long long every = r.integer(r.root(), "no_rope_layer_interval", "no_rope_layer_interval", 1, kMaxInt).value_or(4);
    for (int i = 0; i < n; ++i) flags.push_back((i + 1) % every != 0 ? 1 : 0);
  }
  return flags;
}

LayerScheme schemeOf(const Ctx& x, int layer, const std::string& attention, const std::vector<int>& ropeLayers) {
  if (attention == "linear_attention") return LayerScheme::None;
  if (x.entry != nullptr) {
    auto it = x.entry->layerKindValues.find(attention);
    if (it != x.entry->layerKindValues.end() && it->second == "none") return LayerScheme::None;
    // A model without positions whose attention layers attend (Jamba): attention without any
    // position signal.
    if (x.c.encoding == ModelEncoding::None && !x.entry->layerKindValues.empty()) return LayerScheme::NoPE;
  }
  switch (x.c.encoding) {
    case ModelEncoding::Alibi: return LayerScheme::Alibi;
    case ModelEncoding::Learned: return LayerScheme::Learned;
    case ModelEncoding::Sinusoidal: return LayerScheme::Sinusoidal;
    case ModelEncoding::RelativeBuckets: return LayerScheme::RelativeBuckets;
    case ModelEncoding::RelativeKey: return LayerScheme::RelativeKey;
    case ModelEncoding::None: return LayerScheme::None;
    case ModelEncoding::Rope: break;
  }
  // EXAONE 4 modeling: "We use global NoPE for hybrid attention model".
  if (x.fam.globalNoPE && x.window > 0 && attention == "full_attention") return LayerScheme::NoPE;
  if (!ropeLayers.empty() && ropeLayers[static_cast<std::size_t>(layer)] == 0) return LayerScheme::NoPE;
  return LayerScheme::Rope;
}

LayerKind makeKind(const Ctx& x, const std::string& attention, LayerScheme scheme) {
  LayerKind k;
  k.attention = attention;
  k.scheme = scheme;
  if (attention == "sliding_attention") k.slidingWindow = x.window;
  if (attention == "chunked_attention") {
    k.attentionChunk = x.r.integer(x.r.root(), "attention_chunk_size", "attention_chunk_size", 1, kMaxInt).value_or(8192);
  }
  if (scheme != LayerScheme::Rope) return k;
  const json* rp = x.ropeParams;
  std::string path = x.ropeParamsPath;
  if (x.perLayerType) {
    const json* sub = x.r.find(*rp, attention);
    if (sub == nullptr || !sub->is_object()) {
      x.r.fail(path + attention, "is missing: rope_parameters is keyed by layer type and layers of type " + attention + " rotate");
    }
    path += attention + ".";
    rp = sub;
  }
  k.rope = ropeFor(x, rp, path, attention);
  return k;
}

void buildLayerKinds(const Ctx& x) {
  const int n = x.c.numLayers;
  const std::vector<int> ropeLayers = ropeLayerFlags(x, n);
  const std::vector<std::string> types = layerTypes(x, n, ropeLayers);
  std::vector<LayerKind>& kinds = x.c.layerKinds;
  if (types.empty()) {  // layer count unknown: one kind for every layer
    kinds.push_back(makeKind(x, "full_attention", schemeOf(x, 0, "full_attention", {})));
    return;
  }
  for (int i = 0; i < static_cast<int>(types.size()); ++i) {
    const LayerScheme s = schemeOf(x, i, types[i], ropeLayers);
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const LayerKind& k) { return k.attention == types[i] && k.scheme == s; });
    if (it == kinds.end()) {
      kinds.push_back(makeKind(x, types[i], s));
      it = kinds.end() - 1;
    }
    it->layers.push_back(i);
  }
}

// [SECTION] Extras beside the encoding

std::string formatShort(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

// The softmax scale DeepSeek multiplies in beside YaRN (HF modeling_deepseek_v3.py
// DeepseekV3Attention: scaling = qk_head_dim^-0.5 * mscale^2, mscale = yarn_get_mscale(factor,
// mscale_all_dim); inference/model.py MLA: the same with args.mscale).
std::string deepSeekSoftmaxExtra(double factor, double m, const char* field, int qkHeadDim) {
  const double ms = yarnMscale(factor, m);
  return "softmax scale " + formatShort(qkHeadDim) + "^-0.5 x mscale(" + formatShort(factor) + ", " + field + " " +
         formatShort(m) + ")^2 = x" + formatShort(ms * ms) + " on every layer's scores";
}

// Qwen (v1) remote code, modeling_qwen.py: both switches act only past seq_length, at inference.
// QWenModel.forward: dynamic NTK raises the base by ntk_alpha^(d / (d - 2)), ntk_alpha =
// 2^ceil(log2(context / seq_length) + 1) - 1; QWenAttention: log-n attention multiplies q by
// log_seq_length(position) for positions past seq_length.
void addQwenExtras(const Ctx& x) {
  const Reader& r = x.r;
  const json& root = r.root();
  const long long seq = r.integer(root, "seq_length", "seq_length", 1, kMaxInt).value_or(x.c.maxPositions);
  if (r.boolean(root, "use_dynamic_ntk", "use_dynamic_ntk").value_or(false)) {
    x.c.extras.push_back("dynamic NTK past seq_length " + std::to_string(seq) + ": for a context of L tokens the base becomes base x a^(d/(d-2)), "
                         "a = 2^ceil(log2(L / " + std::to_string(seq) + ") + 1) - 1 (inference only)");
  }
  if (r.boolean(root, "use_logn_attn", "use_logn_attn").value_or(false)) {
    x.c.extras.push_back("log-n attention past seq_length " + std::to_string(seq) + ": q x ln(pos) / ln(" + std::to_string(seq) +
                         ") for positions pos > " + std::to_string(seq));
  }
}

void addExtras(const Ctx& x) {
  const Reader& r = x.r;
  const json& root = r.root();
  ModelConfig& c = x.c;
  if ((x.type == "deepseek_v2" || x.type == "deepseek_v3") && c.encoding == ModelEncoding::Rope) {
    const RopeScaling& s = c.rope.scaling;
    if (s.method == ScalingMethod::Yarn && s.mscaleAllDim > 0.0) {
      const long long nope = r.integer(root, "qk_nope_head_dim", "qk_nope_head_dim", 0, cli::kMaxHeadDim).value_or(0);
      c.extras.push_back(deepSeekSoftmaxExtra(s.factor, s.mscaleAllDim, "mscale_all_dim", static_cast<int>(nope) + c.rope.headDim));
    }
  }
  if (x.fam.iRope && r.boolean(root, "attn_temperature_tuning", "attn_temperature_tuning").value_or(true)) {
    // modeling_llama4.py Llama4TextAttention: on NoPE layers
    // attn_scales = log(floor((pos + 1) / floor_scale) + 1) * attn_scale + 1 multiplies q.
    const double floorScale = r.positiveNumber(root, "floor_scale", "floor_scale").value_or(8192.0);
    const double attnScale = r.positiveNumber(root, "attn_scale", "attn_scale").value_or(0.1);
    c.extras.push_back("attention temperature tuning on NoPE layers: q x (1 + " + formatShort(attnScale) +
                       " * ln(floor((pos + 1) / " + formatShort(floorScale) + ") + 1))");
    c.nopeTemperature = AttnTemperatureParams{floorScale, attnScale};
  }
  if (x.type == "qwen") addQwenExtras(x);
  const json* rp = x.perLayerType ? nullptr : x.ropeParams;
  if (rp != nullptr) {
    if (auto beta = r.number(*rp, "llama_4_scaling_beta", x.ropeParamsPath + "llama_4_scaling_beta")) {
      // modeling_ministral3.py _get_llama_4_attn_scale(cache_position, beta, original_max_position_embeddings)
      c.extras.push_back("query scaling on every layer: q x (1 + " + formatShort(*beta) + " * ln(1 + floor(pos / " +
                         std::to_string(c.rope.scaling.originalMaxPositions) + ")))");
    }
  }
}

// Fields that change positions in ways posviz does not model: refused, not dropped.
void checkUnsupported(const Reader& r, const ModelTypeEntry* entry) {
  const json& root = r.root();
  // Qwen (v1)'s switches: read for model_type qwen (addQwenExtras), a key a known family never
  // reads (noteFamily), and not guessed at for a model the table lacks.
  for (const char* k : {"use_dynamic_ntk", "use_logn_attn"}) {
    if (entry == nullptr && r.boolean(root, k, k).value_or(false)) {
      r.fail(k, "is true, and the model_type is not one whose code posviz knows: only Qwen (v1)'s code (model_type qwen) "
                "defines it, so what it does here is not supported (allowed: false)");
    }
  }
  if (auto f = r.number(root, "rotary_scaling_factor", "rotary_scaling_factor"); f && *f != 1.0) {
    r.fail("rotary_scaling_factor", "must be 1 (no scaling; other values are not supported), got " + formatValue(*f));
  }
  if (auto o = r.boolean(root, "original_rope", "original_rope"); o && !*o) {
    r.fail("original_rope", "is false: only ChatGLM's original RoPE is supported (allowed: true)");
  }
}

// MLA's split of each head (DeepSeek-V2/V3, MiniCPM3, Kimi): HF and native key names.
void readMla(const Reader& r, ModelConfig& c) {
  const json& root = r.root();
  auto dims = [&](const char* key) { return static_cast<int>(r.integer(root, key, key, 0, cli::kMaxHeadDim).value_or(0)); };
  c.mla.ropeHeadDim = dims("qk_rope_head_dim");
  if (c.mla.ropeHeadDim == 0) return;
  c.mla.nopeHeadDim = dims("qk_nope_head_dim");
  c.mla.vHeadDim = dims("v_head_dim");
  c.mla.kvLoraRank = static_cast<int>(r.integer(root, "kv_lora_rank", "kv_lora_rank", 0, cli::kMaxWidth).value_or(0));
}

// [SECTION] DeepSeek's own inference config

// deepseek-ai/DeepSeek-V3 inference/configs/*.json: no model_type; ModelArgs names (dim, n_layers,
// n_heads, qk_rope_head_dim, original_seq_len, rope_factor, mscale) with inference/model.py's
// defaults where absent.
bool isDeepSeekNative(const Reader& r) {
  const json& root = r.root();
  return r.find(root, "model_type") == nullptr && r.find(root, "qk_rope_head_dim") != nullptr &&
         r.find(root, "dim") != nullptr && r.find(root, "n_layers") != nullptr;
}

void parseDeepSeekNative(const Reader& r, ModelConfig& c) {
  const json& root = r.root();
  auto integer = [&](const char* k, long long def, long long max = kMaxInt) { return r.integer(root, k, k, 1, max).value_or(def); };
  auto number = [&](const char* k, double def) { return r.positiveNumber(root, k, k).value_or(def); };
  c.encoding = ModelEncoding::Rope;
  c.hiddenSize = static_cast<int>(integer("dim", 2048, cli::kMaxWidth));
  c.numHeads = static_cast<int>(integer("n_heads", 16, cli::kMaxHeads));
  c.numLayers = static_cast<int>(integer("n_layers", 27, cli::kMaxLayers));
  c.maxPositions = integer("max_seq_len", 4096 * 4);
  RopeParams& rope = c.rope;
  rope.headDim = static_cast<int>(integer("qk_rope_head_dim", 64, cli::kMaxHeadDim));
  rope.layout = RopeLayout::Interleaved;  // precompute_freqs_cis + view_as_complex: adjacent pairs
  rope.base = number("rope_theta", 10000.0);
  const long long original = integer("original_seq_len", 4096);
  const double factor = number("rope_factor", 40.0);
  const double mscale = number("mscale", 1.0);
  if (c.maxPositions > original) {  // model.py applies YaRN only when max_seq_len > original_seq_len
    RopeScaling& s = rope.scaling;
    s.method = ScalingMethod::Yarn;
    s.factor = factor;
    s.originalMaxPositions = static_cast<int>(original);
    s.betaFast = number("beta_fast", 32.0);
    s.betaSlow = number("beta_slow", 1.0);
    s.attentionFactor = 1.0;  // freqs_cis is a pure rotation: cos and sin are not scaled
    const int qkHead = static_cast<int>(integer("qk_nope_head_dim", 128, cli::kMaxHeadDim)) + rope.headDim;
    c.extras.push_back(deepSeekSoftmaxExtra(factor, mscale, "mscale", qkHead));
  }
  validateRope("parseModelConfig", rope);
  readMla(r, c);
  LayerKind k;
  k.attention = "full_attention";
  k.rope = rope;
  for (int i = 0; i < c.numLayers; ++i) k.layers.push_back(i);
  c.layerKinds = {k};
}

std::string describeRope(const RopeParams& p) {
  std::ostringstream os;
  os << "RoPE base " << formatShort(p.base) << ", head_dim " << p.headDim;
  if (p.rotaryFraction < 1.0) os << ", rotary dims " << ropeRotaryDims(p);
  if (p.layout == RopeLayout::Interleaved) os << ", interleaved";
  if (p.scaling.method != ScalingMethod::None) os << ", " << scalingName(p.scaling.method) << " scaling x" << formatShort(p.scaling.factor);
  return os.str();
}

std::string describe(const ModelConfig& c) {
  std::ostringstream os;
  switch (c.encoding) {
    case ModelEncoding::Rope:
      os << describeRope(c.rope);
      break;
    case ModelEncoding::Alibi:
      os << "ALiBi, " << c.numHeads << " heads";
      break;
    case ModelEncoding::Learned:
      os << "learned positions, d_model " << c.hiddenSize;
      break;
    case ModelEncoding::Sinusoidal:
      os << "sinusoidal positions, d_model " << c.hiddenSize;
      break;
    case ModelEncoding::RelativeBuckets:
      os << "T5 relative buckets (" << c.relativeBuckets << ", max distance " << c.relativeMaxDistance << "), " << c.numHeads << " heads";
      break;
    case ModelEncoding::RelativeKey:
      os << "relative_key distances clamped to [-" << c.relativeKeyLeft << ", " << c.relativeKeyRight << "], head size " << c.relativeKeyDim;
      break;
    case ModelEncoding::None:
      os << "no positions (no attention)";
      break;
  }
  if (c.maxPositions > 0) os << ", " << c.maxPositions << " positions";
  if (c.layerKinds.size() > 1) {
    os << "; layers:";
    for (std::size_t i = 0; i < c.layerKinds.size(); ++i) {
      const LayerKind& k = c.layerKinds[i];
      os << (i == 0 ? " " : ", ") << k.layers.size() << " " << k.attention << " " << layerSchemeName(k.scheme);
    }
  }
  return os.str();
}

}  // namespace

// [SECTION] parseModelConfig

namespace {

// The key whose value starts at offset `at` of text ("rope_theta" in {"rope_theta": 1e400}),
// or "" when the value is an array element or the text is not that simple.
std::string keyBefore(const std::string& text, std::size_t at) {
  std::size_t i = at;
  auto skipSpace = [&] {
    while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n' || text[i - 1] == '\r')) --i;
  };
  skipSpace();
  if (i == 0 || text[i - 1] != ':') return "";
  --i;
  skipSpace();
  if (i == 0 || text[i - 1] != '"') return "";
  const std::size_t end = --i;
  while (i > 0 && text[i - 1] != '"') --i;
  if (i == 0 || end - i > 64) return "";
  return text.substr(i, end - i);
}

// nlohmann's out_of_range 406 ("number overflow parsing '1e400'"): which number, under which key.
std::string numberOverflowMessage(const std::string& jsonText, const std::string& what) {
  const std::size_t open = what.find('\'');
  const std::size_t close = open == std::string::npos ? std::string::npos : what.find('\'', open + 1);
  if (close == std::string::npos) return "a number is out of range: " + what;
  const std::string number = what.substr(open + 1, close - open - 1);
  const std::size_t at = jsonText.find(number);
  const std::string key = at == std::string::npos ? "" : keyBefore(jsonText, at);
  return (key.empty() ? std::string("a number") : key) + " is " + number +
         ", out of range (a number must fit a 64-bit float, |x| < 1.8e308)";
}

void readSizes(const Reader& r, const Family& fam, const ModelTypeEntry* entry, ModelConfig& c) {
  const json& root = r.root();
  auto field = [&](long long max) { return [&r, &root, max](const std::string& key) { return r.integer(root, key, key, 1, max); }; };
  if (auto v = r.firstOf({"hidden_size", "n_embd", "n_embed", "d_model", "dim"}, field(cli::kMaxWidth))) c.hiddenSize = static_cast<int>(*v);
  else c.hiddenSize = fam.hiddenSize;
  if (auto v = r.firstOf({"num_attention_heads", "n_head", "n_heads", "num_heads", "encoder_attention_heads"}, field(cli::kMaxHeads))) c.numHeads = static_cast<int>(*v);
  else c.numHeads = fam.numHeads;
  if (auto v = r.firstOf({"num_hidden_layers", "n_layer", "num_layers", "n_layers"}, field(cli::kMaxLayers))) c.numLayers = static_cast<int>(*v);
  else c.numLayers = fam.numLayers;
  if (const json* lt = r.find(root, "layer_types"); lt != nullptr && lt->is_array() && c.numLayers == 0) {
    c.numLayers = static_cast<int>(lt->size());
  }
  auto longField = [&](const std::string& key) {
    return r.integer(root, key, key, 1, std::numeric_limits<long long>::max() / 2);
  };
  // The length keys the family's code reads (Qwen v1 reads seq_length, not n_positions); every
  // spelling for a model the table lacks.
  std::vector<std::string> lengthKeys;
  for (const char* k : {"max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length"}) {
    if (entry == nullptr || entry->reads.empty() || entry->readsKey(k)) lengthKeys.emplace_back(k);
  }
  if (auto v = r.firstOf(lengthKeys, longField)) c.maxPositions = *v;
  else c.maxPositions = fam.maxPositions;
}

// sliding_window: absent = the family's default, null = none; Qwen's use_sliding_window false
// switches it off.
long long slidingWindow(const Reader& r, const Family& fam) {
  const json& root = r.root();
  if (r.boolean(root, "use_sliding_window", "use_sliding_window") == std::optional<bool>(false)) return 0;
  if (!root.contains("sliding_window")) return fam.slidingWindow;
  return r.integer(root, "sliding_window", "sliding_window", 1, std::numeric_limits<long long>::max() / 2).value_or(0);
}

// rope_parameters (transformers v5) or rope_scaling; whether it is keyed by layer type.
void findRopeParameters(Ctx& x) {
  const Reader& r = x.r;
  for (const char* key : {"rope_parameters", "rope_scaling"}) {
    const json* rp = r.find(r.root(), key);
    if (rp == nullptr) continue;
    if (!rp->is_object()) r.fail(key, "must be an object or null, got " + describeJson(*rp));
    x.ropeParams = rp;
    x.ropeParamsPath = std::string(key) + ".";
    for (const std::string& t : kLayerTypes) {
      if (rp->contains(t) && (*rp)[t].is_object()) x.perLayerType = true;
    }
    return;
  }
}

// mrope_section (Qwen2-VL: rope_scaling {"type": "mrope"}; Qwen3.5: rope_parameters): the
// rotary pairs taken by the temporal, height and width position ids.
void readMrope(const Ctx& x) {
  const json* rp = x.perLayerType ? nullptr : x.ropeParams;
  if (rp == nullptr) return;
  const Reader& r = x.r;
  const std::string p = x.ropeParamsPath;
  const json* sec = r.find(*rp, "mrope_section");
  if (sec == nullptr) return;
  if (!sec->is_array() || sec->empty()) r.fail(p + "mrope_section", "must be a list of pair counts, got " + describeJson(*sec));
  int total = 0;
  for (std::size_t i = 0; i < sec->size(); ++i) {
    const json& e = (*sec)[i];
    if (!e.is_number_integer() || e.get<long long>() < 0 || e.get<long long>() > kMaxInt / 4) {
      r.fail(p + "mrope_section[" + std::to_string(i) + "]", "must be an integer >= 0, got " + describeJson(e));
    }
    x.c.mropeSection.push_back(e.get<int>());
    total += e.get<int>();
  }
  if (total != ropeNumPairs(x.c.rope)) {
    r.fail(p + "mrope_section", "sums to " + std::to_string(total) + " pairs, expected the " + std::to_string(ropeNumPairs(x.c.rope)) +
                                    " rotary pairs (rotary dims " + std::to_string(ropeRotaryDims(x.c.rope)) + " / 2)");
  }
  x.c.mropeInterleaved = r.boolean(*rp, "mrope_interleaved", p + "mrope_interleaved").value_or(false);
}

// The whole-model view for the panels: the first scheme of the layers, and the full-attention
// layers' RoPE (else the first RoPE layers').
void summarise(ModelConfig& c) {
  if (const LayerKind* rope = mainRopeKind(c)) c.rope = rope->rope;
}

// What the generic rules assumed for a model_type the table lacks.
std::string guessText(const ModelConfig& c, const std::string& why) {
  std::string t = (c.modelType.empty() ? std::string("the file has no model_type")
                                       : "model_type " + quotedText(c.modelType) + " is not in posviz's table of model types") +
                  " (" + modelTypeTableSource() + " and remote-code families, " + std::to_string(modelTypeTableInfo().count) +
                  " types): read by generic rules, assuming " + why;
  if (c.encoding == ModelEncoding::Rope) {
    t += std::string(", ") + (c.rope.layout == RopeLayout::HalfSplit ? "half-split pairs (rotate_half, as most families)"
                                                                      : "interleaved pairs");
    t += ", base " + formatShort(c.rope.base);
  }
  return t;
}

void parseModel(const Reader& r, const std::string& modelType, ModelConfig& c) {
  std::string alias, why;
  const std::string type = lowercase(modelType);
  const ModelTypeEntry* entry = entryFor(type, &alias);
  Ctx x{r, type, entry, familyOf(type, entry), c, nullptr, "", false, 0};
  c.encoding = detectEncoding(r, x.type, entry, &why);
  readSizes(r, x.fam, entry, c);
  noteFamily(r, entry, alias, c);
  if (c.encoding == ModelEncoding::Rope) {
    checkUnsupported(r, entry);
    x.window = slidingWindow(r, x.fam);
    findRopeParameters(x);
    buildLayerKinds(x);
    summarise(c);
    readMrope(x);
    addExtras(x);
  } else {
    if (c.encoding == ModelEncoding::Alibi) {
      if (c.numHeads <= 0) r.fail("num_attention_heads", "is missing (ALiBi needs the head count: n_head, n_heads or num_attention_heads)");
    }
    readTableDetails(r, entry, c);
    if (c.encoding == ModelEncoding::Learned) {
      if (c.hiddenSize <= 0) r.fail("hidden_size", "is missing (a learned table needs its width: hidden_size or n_embd)");
      if (c.maxPositions <= 0) r.fail("max_position_embeddings", "is missing (a learned table needs its length: max_position_embeddings or n_positions)");
    }
    if (!readEncoderDecoder(r, entry, c)) buildLayerKinds(x);
  }
  if (entry == nullptr) c.guess = guessText(c, why);
  readMla(r, c);
}

// A vision tower whose RoPE turns by the patch's row and column (Pixtral), not by one position.
void readRope2d(const Reader& r, ModelConfig& c) {
  const ModelTypeEntry* e = findModelType(c.modelType);
  if (e == nullptr || e->rope2d.empty() || c.encoding != ModelEncoding::Rope) return;
  if (e->rope2d != "pixtral") {
    r.fail("model_type", quotedText(e->modelType) + " uses " + (e->note.empty() ? "a 2-D RoPE of its own" : e->note) +
                             "; posviz draws the 2-D RoPE of Pixtral and of rope-vit (axial-angles, axial-scores)");
  }
  auto whole = [&](const char* key) -> long long {
    if (std::optional<long long> v = r.integer(r.root(), key, key, 1, 1 << 20)) return *v;
    return static_cast<long long>(e->defaultNumber(key).value_or(0.0));
  };
  const long long image = whole("image_size"), patch = whole("patch_size");
  if (image < 1 || patch < 1 || image % patch != 0 || image / patch > 4096) {
    r.fail("image_size", "must be a multiple of patch_size giving at most 4096 patches a side, got " + std::to_string(image) +
                             " and " + std::to_string(patch));
  }
  c.rope2d = e->rope2d;
  c.patchGrid = static_cast<int>(image / patch);
  if (c.rope.headDim % 4 != 0) r.fail("head_dim", "must be a multiple of 4 for Pixtral's 2-D RoPE, got " + std::to_string(c.rope.headDim));
}

// How get_rope_index turns a vision grid into ids: the family's rule from the table, and the
// vision_config's spatial_merge_size and tokens_per_second (else the vision class's defaults).
void readMropeIndex(const Reader& outer, ModelConfig& c) {
  const ModelTypeEntry* e = findModelType(c.modelType);
  if (e != nullptr) {
    c.mropeIndexRule = e->mropeIndex;
    c.spatialMerge = e->visionSpatialMerge;
    c.tokensPerSecond = e->visionTokensPerSecond;
  }
  const json* vision = outer.find(outer.root(), "vision_config");
  if (vision == nullptr) return;
  if (!vision->is_object()) outer.fail("vision_config", "must be an object, got " + describeJson(*vision));
  if (const json* m = outer.find(*vision, "spatial_merge_size")) {
    if (!m->is_number_integer() || m->get<long long>() < 1 || m->get<long long>() > 16) {
      outer.fail("vision_config.spatial_merge_size", "must be an integer in [1, 16], got " + describeJson(*m));
    }
    c.spatialMerge = m->get<int>();
  }
  if (const json* t = outer.find(*vision, "tokens_per_second")) {
    if (!t->is_number() || !std::isfinite(t->get<double>()) || t->get<double>() < 0.0 || t->get<double>() > 1000.0) {
      outer.fail("vision_config.tokens_per_second", "must be a number in [0, 1000], got " + describeJson(*t));
    }
    c.tokensPerSecond = t->get<double>();
  }
}

ModelConfig parseModelConfigUnchecked(const std::string& jsonText, const std::string& name) {
  if (std::optional<std::string> deep = jsonNestingProblem(jsonText)) throw ConfigError("config " + name + ": " + *deep);
  json root;
  try {
    root = json::parse(withNonFiniteMarkers(jsonText));
  } catch (const json::parse_error& e) {
    throw ConfigError("config " + name + ": not valid JSON: " + e.what());
  } catch (const json::out_of_range& e) {
    if (e.id == 406) throw ConfigError("config " + name + ": " + numberOverflowMessage(jsonText, e.what()));
    throw ConfigError("config " + name + ": not valid JSON: " + e.what());
  }
  if (!root.is_object()) throw ConfigError("config " + name + ": the top level must be a JSON object, got " + describeJson(root));
  // A multimodal wrapper (Gemma 3, Qwen3.5, Mistral 3) nests the language model in text_config.
  const Reader outer(root, name);
  const json* text = outer.find(root, "text_config");
  if (text != nullptr && !text->is_object()) outer.fail("text_config", "must be an object, got " + describeJson(*text));
  const Reader r(text != nullptr ? *text : root, name, text != nullptr ? "text_config." : "");

  ModelConfig c;
  c.name = name;
  c.modelType = r.string(r.root(), "model_type", "model_type").value_or(outer.string(root, "model_type", "model_type").value_or(""));
  if (isDeepSeekNative(r)) {
    parseDeepSeekNative(r, c);
  } else {
    parseModel(r, c.modelType, c);
  }
  if (!c.mropeSection.empty()) readMropeIndex(outer, c);
  readRope2d(r, c);
  if (std::optional<std::string> d = outer.string(root, "description", "description")) {
    c.description = *d;
  } else {
    c.description = describe(c);
  }
  return c;
}

}  // namespace

ModelConfig parseModelConfig(const std::string& jsonText, const std::string& name) {
  try {
    return parseModelConfigUnchecked(jsonText, name);
  } catch (const json::exception& e) {  // any other nlohmann failure: still the file's fault
    throw ConfigError("config " + name + ": cannot be read as a model config: " + e.what());
  }
}

// [SECTION] Files and presets

const char* layerSchemeName(LayerScheme s) {
  switch (s) {
    case LayerScheme::Rope: return "rope";
    case LayerScheme::NoPE: return "nope";
    case LayerScheme::Alibi: return "alibi";
    case LayerScheme::Learned: return "learned";
    case LayerScheme::None: return "none";
    case LayerScheme::Sinusoidal: return "sinusoidal";
    case LayerScheme::RelativeBuckets: return "relative-buckets";
    case LayerScheme::RelativeKey: return "relative-key";
  }
  return "?";
}

const LayerKind* findLayerKind(const ModelConfig& m, const std::string& attention) {
  for (const LayerKind& k : m.layerKinds) {
    if (k.attention == attention) return &k;
  }
  return nullptr;
}

const LayerKind* mainRopeKind(const ModelConfig& m) {
  const LayerKind* full = findLayerKind(m, "full_attention");
  if (full != nullptr && full->scheme == LayerScheme::Rope) return full;
  for (const LayerKind& k : m.layerKinds) {
    if (k.scheme == LayerScheme::Rope) return &k;
  }
  return nullptr;
}

double yarnMscale(double factor, double m) { return factor <= 1.0 ? 1.0 : 0.1 * m * std::log(factor) + 1.0; }


namespace {

std::string readWholeFile(const std::string& path, const std::string& what) {
  try {
    return readRegularFile(path, kMaxConfigBytes, what);
  } catch (const std::runtime_error& e) {
    throw ConfigError(displayMessage(e.what()));
  }
}

struct PresetSource {
  std::string name;
  std::string text;
};

// assets/presets/*.json, compiled in (cmake/embed.cmake): presets work from any directory.
std::vector<PresetSource> allPresets() {
  std::vector<PresetSource> out;
  for (const embedded::File& f : embedded::presets) {
    std::string name = f.name;
    if (name.size() > 5 && name.ends_with(".json")) name.resize(name.size() - 5);
    out.push_back({std::move(name), std::string(f.text())});
  }
  return out;
}

}  // namespace

ModelConfig loadModelConfig(const std::string& path) {
  const std::string text = readWholeFile(path, "config");
  return parseModelConfig(text, displayText(std::filesystem::path(path).filename().string()));
}

std::vector<std::string> presetNames() {
  std::vector<std::string> names;
  for (const PresetSource& p : allPresets()) names.push_back(p.name);
  std::sort(names.begin(), names.end());
  return names;
}

ModelConfig loadPreset(const std::string& name) {
  const std::vector<PresetSource> presets = allPresets();
  std::string list;
  for (const PresetSource& p : presets) {
    if (p.name == name) return parseModelConfig(p.text, p.name);
    list += (list.empty() ? "" : ", ") + p.name;
  }
  throw ConfigError("unknown preset " + quotedText(name) + ": available presets are " + (list.empty() ? std::string("(none)") : list));
}

}  // namespace posviz::cli
