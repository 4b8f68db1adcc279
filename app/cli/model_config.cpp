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

#include "app/cli/limits.hpp"
#include "core/atomic_file.hpp"
#include "core/check.hpp"
#include "core/embedded.hpp"
#include "core/untrusted_text.hpp"


namespace posviz::cli {

using nlohmann::json;

// [SECTION] JSON field access with errors that name the field

namespace {

constexpr std::size_t kMaxConfigBytes = 16u << 20;

// The value as a message quotes it: its type and its first characters, escaped. The file's
// nesting was capped before parsing (jsonNestingProblem), so dump() cannot recurse deeply; an
// object or array is shown by its size unless it is small.
std::string describeJson(const json& v) {
  if ((v.is_object() || v.is_array()) && v.size() > 8) {
    return std::string(v.type_name()) + " of " + std::to_string(v.size()) + (v.is_object() ? " keys" : " elements");
  }
  return std::string(v.type_name()) + " " + displayText(v.dump(-1, ' ', false, json::error_handler_t::replace), 60);
}

class Reader {
 public:
  // prefix: where root sits in the file ("text_config." for a nested language model), so
  // errors name the field as the file spells it.
  Reader(const json& root, std::string name, std::string prefix = "")
      : root_(root), name_(std::move(name)), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw ConfigError("config " + name_ + ": " + prefix_ + field + " " + message);
  }

  // nullptr when absent or null.
  const json* find(const json& obj, const std::string& key) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
  }

  std::optional<double> number(const json& obj, const std::string& key, const std::string& path) const {
    const json* v = find(obj, key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number()) fail(path, "must be a number, got " + describeJson(*v));
    const double d = v->get<double>();
    if (!std::isfinite(d)) fail(path, "must be finite, got " + describeJson(*v));
    return d;
  }

  std::optional<double> positiveNumber(const json& obj, const std::string& key, const std::string& path) const {
    std::optional<double> d = number(obj, key, path);
    if (d && !(*d > 0.0)) fail(path, "must be > 0, got " + formatValue(*d));
    return d;
  }

  std::optional<long long> integer(const json& obj, const std::string& key, const std::string& path, long long min,
                                   long long max) const {
    const json* v = find(obj, key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number()) fail(path, "must be an integer, got " + describeJson(*v));
    const double d = v->get<double>();
    if (!std::isfinite(d) || d != std::floor(d)) fail(path, "must be an integer, got " + describeJson(*v));
    if (d < static_cast<double>(min) || d > static_cast<double>(max)) {
      fail(path, "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " + describeJson(*v));
    }
    return v->is_number_integer() ? v->get<long long>() : static_cast<long long>(d);
  }

  std::optional<bool> boolean(const json& obj, const std::string& key, const std::string& path) const {
    const json* v = find(obj, key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_boolean()) fail(path, "must be true or false, got " + describeJson(*v));
    return v->get<bool>();
  }

  std::optional<std::string> string(const json& obj, const std::string& key, const std::string& path) const {
    const json* v = find(obj, key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) fail(path, "must be a string, got " + describeJson(*v));
    return v->get<std::string>();
  }

  std::vector<double> numberList(const json& obj, const std::string& key, const std::string& path) const {
    const json* v = find(obj, key);
    if (v == nullptr) fail(path, "is missing");
    if (!v->is_array()) fail(path, "must be a list of numbers, got " + describeJson(*v));
    std::vector<double> out;
    for (std::size_t i = 0; i < v->size(); ++i) {
      const json& e = (*v)[i];
      const std::string where = path + "[" + std::to_string(i) + "]";
      if (!e.is_number()) fail(where, "must be a number, got " + describeJson(e));
      const double d = e.get<double>();
      if (!std::isfinite(d) || !(d > 0.0)) fail(where, "must be a finite number > 0, got " + describeJson(e));
      out.push_back(d);
    }
    return out;
  }

  // The first of keys present (non-null), for fields with several spellings.
  template <typename F>
  auto firstOf(const std::vector<std::string>& keys, F get) const -> decltype(get(std::string())) {
    for (const std::string& k : keys) {
      if (find(root_, k) != nullptr) return get(k);
    }
    return std::nullopt;
  }

  const json& root() const { return root_; }

 private:
  const json& root_;
  std::string name_;
  std::string prefix_;
};

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// [SECTION] Encoding detection and family defaults

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// model_type values, lowercased.
const std::vector<std::string> kRopeModelTypes = {
    "llama", "mistral", "mixtral", "ministral", "ministral3", "qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl", "qwen3",
    "qwen3_moe", "qwen3_next", "qwen3_5", "qwen3_5_text", "gpt_neox", "phi3", "phi", "gemma", "gemma2", "gemma3_text",
    "gptj", "codegen", "stablelm", "stablelm_epoch", "starcoder2", "olmo", "olmo2", "olmo3", "cohere", "deepseek_v2",
    "deepseek_v3", "internlm2", "baichuan", "chatglm", "glm", "glm4", "exaone4", "llama4_text", "falcon",
    "refinedweb", "refinedwebmodel"};
const std::vector<std::string> kAlibiModelTypes = {"bloom"};
const std::vector<std::string> kLearnedModelTypes = {"gpt2", "bert", "roberta", "distilbert", "gpt_neo", "opt",
                                                     "xlm-roberta", "electra", "albert", "mpt"};

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
      if (*maxBias != 8.0) r.fail("attn_config.alibi_bias_max", "must be 8 (the ALiBi paper's slopes), got " + formatValue(*maxBias));
    }
  }
  return alibi;
}

ModelEncoding detectEncoding(const Reader& r, const std::string& modelType) {
  const json& root = r.root();
  if (readAlibiFlag(r).value_or(false)) return ModelEncoding::Alibi;
  if (std::optional<std::string> pet = r.string(root, "position_embedding_type", "position_embedding_type")) {
    if (*pet == "alibi") return ModelEncoding::Alibi;
    if (*pet == "absolute") return ModelEncoding::Learned;
    if (*pet == "rotary" || *pet == "rope") return ModelEncoding::Rope;
    r.fail("position_embedding_type", "must be one of absolute|alibi|rotary, got " + quotedText(*pet));
  }
  if (contains(kAlibiModelTypes, modelType)) return ModelEncoding::Alibi;
  for (const char* key : {"rope_theta", "rope_scaling", "rope_parameters", "rotary_emb_base", "rotary_pct", "rope_pct",
                          "partial_rotary_factor", "rotary_dim", "qk_rope_head_dim"}) {
    if (r.find(root, key) != nullptr) return ModelEncoding::Rope;
  }
  if (contains(kRopeModelTypes, modelType)) return ModelEncoding::Rope;
  if (contains(kLearnedModelTypes, modelType) || r.find(root, "n_positions") != nullptr) return ModelEncoding::Learned;
  r.fail("model_type", "does not say which position encoding the model uses: expected rope_theta, rope_scaling, "
                       "rotary_pct, alibi, attn_config.alibi, position_embedding_type or a known model_type, got " +
                           (modelType.empty() ? std::string("none") : quotedText(modelType)));
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
  int numHeads = 0, numLayers = 0;
  long long maxPositions = 0;
  bool defaultSlidingRope = false; // OLMo 3: sliding layers use unscaled RoPE
  bool globalNoPE = false;         // EXAONE 4: full-attention layers use no RoPE when sliding_window is set
  bool iRope = false;              // Llama 4: every no_rope_layer_interval-th layer NoPE, others chunked
};

Family familyOf(const std::string& t) {
  Family f;
  if (t == "gptj" || t == "codegen" || t == "deepseek_v2" || t == "deepseek_v3") f.layout = RopeLayout::Interleaved;
  if (t == "chatglm" || t == "glm" || t == "glm4") {
    f.layout = RopeLayout::Interleaved;  // GLM rotates adjacent pairs of the first half of each head
    f.rotaryFraction = 0.5;
  }
  if (t == "gemma" || t == "gemma2" || t == "gemma3_text") f.headDim = 256;
  if (t == "gemma2") {  // configuration_gemma2.py
    f.globalEvery = 2;
    f.slidingWindow = 4096;
    f.numHeads = 8;
    f.numLayers = 26;
    f.maxPositions = 8192;
  }
  if (t == "gemma3_text") {  // configuration_gemma3.py Gemma3TextConfig
    f.base = 1.0e6;
    f.localBase = 1.0e4;
    f.globalEvery = 6;
    f.slidingWindow = 4096;
    f.numHeads = 8;
    f.numLayers = 26;
    f.maxPositions = 131072;
  }
  if (t == "falcon" || t == "refinedweb" || t == "refinedwebmodel") f.maxPositions = 2048;  // configuration_falcon.py
  if (t == "olmo3") {
    f.defaultSlidingRope = true;
    f.slidingWindow = 4096;
  }
  if (t == "exaone4") f.globalNoPE = true;
  if (t == "llama4_text") {  // configuration_llama4.py Llama4TextConfig
    f.layout = RopeLayout::Interleaved;  // modeling_llama4.py: view_as_complex over adjacent pairs
    f.headDim = 128;
    f.base = 500000.0;
    f.numHeads = 40;
    f.numLayers = 48;
    f.maxPositions = 131072;
    f.iRope = true;
  }
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
    r.fail(p + it.key(), "is not a field posviz understands, and it may change positions (known: " + known + ")");
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
    if (auto v = r.positiveNumber(rs, "beta_fast", p + "beta_fast")) s.betaFast = *v;
    if (auto v = r.positiveNumber(rs, "beta_slow", p + "beta_slow")) s.betaSlow = *v;
    if (auto v = r.positiveNumber(rs, "mscale", p + "mscale")) s.mscale = *v;
    if (auto v = r.positiveNumber(rs, "mscale_all_dim", p + "mscale_all_dim")) s.mscaleAllDim = *v;
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
void readRopeScaling(const Reader& r, const json& rs, const std::string& p, RopeParams& rope, long long maxPositions) {
  checkScalingKeys(r, rs, p);
  std::string typeField;
  const std::string type = scalingType(r, rs, p, typeField);
  RopeScaling& s = rope.scaling;
  s.method = scalingMethod(r, type, typeField);

  const std::optional<double> factor = r.number(rs, "factor", p + "factor");
  if (factor && (*factor < 1.0 || *factor > cli::kMaxFactor)) {
    r.fail(p + "factor", "must be in [1, " + formatValue(cli::kMaxFactor) + "] (target length / trained length), got " + formatValue(*factor));
  }
  const int maxInt = std::numeric_limits<int>::max();
  std::optional<long long> original = r.integer(rs, "original_max_position_embeddings", p + "original_max_position_embeddings", 1, maxInt);
  if (!original) original = r.integer(r.root(), "original_max_position_embeddings", "original_max_position_embeddings", 1, maxInt);
  if (s.method == ScalingMethod::None) return;
  if (s.method != ScalingMethod::LongRope) {
    if (!factor) r.fail(p + "factor", "is missing (" + lowercase(type) + " scaling needs it)");
    s.factor = *factor;
  }
  // L0: the trained context. Hugging Face reads it from rope_scaling (llama3, yarn), the top level
  // (LongRoPE) or falls back to max_position_embeddings (linear, dynamic, yarn).
  if (original) {
    s.originalMaxPositions = static_cast<int>(*original);
  } else if (s.method == ScalingMethod::Llama3) {
    r.fail(p + "original_max_position_embeddings", "is missing (llama3 scaling needs it)");
  } else if (s.method == ScalingMethod::LongRope) {
    r.fail("original_max_position_embeddings", "is missing (longrope scaling needs it)");
  } else if (maxPositions > 0) {
    s.originalMaxPositions = static_cast<int>(std::min<long long>(maxPositions, maxInt));
  }
  readMethodFields(r, rs, p, rope, factor, maxPositions);
}

// [SECTION] Layer kinds

struct Ctx {
  const Reader& r;
  std::string type;                 // model_type, lowercased
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
  if (rp != nullptr && (f = r.number(*rp, "partial_rotary_factor", rpPath + "partial_rotary_factor"))) {
    field = rpPath + "partial_rotary_factor";
  }
  for (const char* k : {"partial_rotary_factor", "rotary_pct", "rope_pct"}) {
    if (!f && (f = r.number(root, k, k))) field = k;
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
  if (rp != nullptr) readRopeScaling(r, *rp, rpPath, rope, x.c.maxPositions);
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

// One attention type per layer ("full_attention", ...); empty when the layer count is unknown.
std::vector<std::string> layerTypes(const Ctx& x, int n, const std::vector<int>& ropeLayers) {
  const Reader& r = x.r;
  if (const json* lt = r.find(r.root(), "layer_types")) {
    if (!lt->is_array()) r.fail("layer_types", "must be a list of strings, got " + describeJson(*lt));
    if (n > 0 && static_cast<int>(lt->size()) != n) {
      r.fail("layer_types", "has " + std::to_string(lt->size()) + " entries, expected num_hidden_layers " + std::to_string(n));
    }
    std::vector<std::string> types;
    for (std::size_t i = 0; i < lt->size(); ++i) {
      const json& e = (*lt)[i];
      if (!e.is_string() || !contains(kLayerTypes, e.get<std::string>())) {
        r.fail("layer_types[" + std::to_string(i) + "]", "must be one of full_attention|sliding_attention|"
                                                        "chunked_attention|linear_attention, got " + describeJson(e));
      }
      types.push_back(e.get<std::string>());
    }
    return types;
  }
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
  if (x.c.encoding == ModelEncoding::Alibi) return LayerScheme::Alibi;
  if (x.c.encoding == ModelEncoding::Learned) return LayerScheme::Learned;
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
void checkUnsupported(const Reader& r) {
  const json& root = r.root();
  for (const char* k : {"use_dynamic_ntk", "use_logn_attn"}) {  // Qwen (v1) remote code
    if (r.boolean(root, k, k).value_or(false)) r.fail(k, "is true: Qwen's dynamic NTK / log-n attention is not supported (allowed: false)");
  }
  if (auto f = r.number(root, "rotary_scaling_factor", "rotary_scaling_factor"); f && *f != 1.0) {
    r.fail("rotary_scaling_factor", "must be 1 (no scaling; other values are not supported), got " + formatValue(*f));
  }
  if (auto o = r.boolean(root, "original_rope", "original_rope"); o && !*o) {
    r.fail("original_rope", "is false: only ChatGLM's original RoPE is supported (allowed: true)");
  }
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

void readSizes(const Reader& r, const Family& fam, ModelConfig& c) {
  const json& root = r.root();
  auto field = [&](long long max) { return [&r, &root, max](const std::string& key) { return r.integer(root, key, key, 1, max); }; };
  if (auto v = r.firstOf({"hidden_size", "n_embd", "n_embed", "d_model", "dim"}, field(cli::kMaxWidth))) c.hiddenSize = static_cast<int>(*v);
  if (auto v = r.firstOf({"num_attention_heads", "n_head", "n_heads", "num_heads"}, field(cli::kMaxHeads))) c.numHeads = static_cast<int>(*v);
  else c.numHeads = fam.numHeads;
  if (auto v = r.firstOf({"num_hidden_layers", "n_layer", "num_layers", "n_layers"}, field(cli::kMaxLayers))) c.numLayers = static_cast<int>(*v);
  else c.numLayers = fam.numLayers;
  if (const json* lt = r.find(root, "layer_types"); lt != nullptr && lt->is_array() && c.numLayers == 0) {
    c.numLayers = static_cast<int>(lt->size());
  }
  auto longField = [&](const std::string& key) {
    return r.integer(root, key, key, 1, std::numeric_limits<long long>::max() / 2);
  };
  if (auto v = r.firstOf({"max_position_embeddings", "n_positions", "max_seq_len", "seq_length"}, longField)) c.maxPositions = *v;
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
  const LayerKind* rope = findLayerKind(c, "full_attention");
  if (rope == nullptr || rope->scheme != LayerScheme::Rope) rope = nullptr;
  for (const LayerKind& k : c.layerKinds) {
    if (rope == nullptr && k.scheme == LayerScheme::Rope) rope = &k;
  }
  if (rope != nullptr) c.rope = rope->rope;
}

void parseModel(const Reader& r, const std::string& modelType, ModelConfig& c) {
  Ctx x{r, lowercase(modelType), familyOf(lowercase(modelType)), c, nullptr, "", false, 0};
  c.encoding = detectEncoding(r, x.type);
  readSizes(r, x.fam, c);
  if (c.encoding == ModelEncoding::Rope) {
    checkUnsupported(r);
    x.window = slidingWindow(r, x.fam);
    findRopeParameters(x);
    buildLayerKinds(x);
    summarise(c);
    readMrope(x);
    addExtras(x);
    return;
  }
  if (c.encoding == ModelEncoding::Alibi) {
    if (c.numHeads <= 0) r.fail("num_attention_heads", "is missing (ALiBi needs the head count: n_head, n_heads or num_attention_heads)");
  } else if (c.encoding == ModelEncoding::Learned) {
    if (c.hiddenSize <= 0) r.fail("hidden_size", "is missing (a learned table needs its width: hidden_size or n_embd)");
    if (c.maxPositions <= 0) r.fail("max_position_embeddings", "is missing (a learned table needs its length: max_position_embeddings or n_positions)");
  }
  buildLayerKinds(x);
}

ModelConfig parseModelConfigUnchecked(const std::string& jsonText, const std::string& name) {
  if (std::optional<std::string> deep = jsonNestingProblem(jsonText)) throw ConfigError("config " + name + ": " + *deep);
  json root;
  try {
    root = json::parse(jsonText);
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
  }
  return "?";
}

const LayerKind* findLayerKind(const ModelConfig& m, const std::string& attention) {
  for (const LayerKind& k : m.layerKinds) {
    if (k.attention == attention) return &k;
  }
  return nullptr;
}

double yarnMscale(double factor, double m) { return factor <= 1.0 ? 1.0 : 0.1 * m * std::log(factor) + 1.0; }


namespace {

std::string readWholeFile(const std::string& path, const std::string& what) {
  try {
    return readRegularFile(path, kMaxConfigBytes, what);
  } catch (const std::runtime_error& e) {
    throw ConfigError(displayText(e.what(), 400));
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
