// Model config reader (app/model_config.cpp): every shipped preset and every error path.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "app/cli/model_config.hpp"
#include "core/context_extension.hpp"
#include "core/rope.hpp"

using posviz::RopeLayout;
using posviz::ScalingMethod;
using posviz::cli::ConfigError;
using posviz::cli::ModelConfig;
using posviz::cli::ModelEncoding;
using posviz::cli::loadModelConfig;
using posviz::cli::loadPreset;
using posviz::cli::parseModelConfig;
using posviz::cli::presetNames;

namespace {

ModelConfig parse(const std::string& text) { return parseModelConfig(text, "test.json"); }

std::string errorOf(const std::string& text) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("model_config") {

TEST_CASE("model_config: every shipped preset is listed, sorted, and parses") {
  const std::vector<std::string> names = presetNames();
  for (const char* expected :
       {"bert-base-uncased", "bloom-560m", "chatglm3-6b", "deepseek-16b-native", "deepseek-v3", "devstral-small-2",
        "exaone-4.0-32b", "falcon-7b-rw", "gemma-3-4b-it", "gpt-j-6b", "gpt2", "llama-2-7b", "llama-3.1-8b",
        "llama-3.2-1b-instruct", "mistral-7b", "mixtral-8x7b", "mpt-7b", "olmo-3.1-32b-instruct", "phi-3-mini-128k",
        "phi-3-mini-longrope", "phi-3.5-mini-instruct", "qwen2.5-7b-instruct", "qwen2.5-vl-7b", "qwen3-8b",
        "qwen3.5-27b", "stable-code-3b"}) {
    CAPTURE(expected);
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  }
  CHECK(std::is_sorted(names.begin(), names.end()));
  // Every preset is a published file with its source: a row of assets/presets/SOURCES.md.
  std::ifstream sources(POSVIZ_SOURCE_DIR "/assets/presets/SOURCES.md");
  const std::string table((std::istreambuf_iterator<char>(sources)), std::istreambuf_iterator<char>());
  REQUIRE_FALSE(table.empty());
  for (const std::string& n : names) {
    CAPTURE(n);
    CHECK(table.find("\n| " + n + ".json | ") != std::string::npos);
  }
  for (const std::string& n : names) {
    CAPTURE(n);
    const ModelConfig c = loadPreset(n);
    CHECK(c.name == n);
    CHECK_FALSE(c.description.empty());
    if (c.encoding == ModelEncoding::Rope) {
      CHECK_NOTHROW(posviz::validateRope("test", c.rope));
      CHECK_NOTHROW(posviz::ropeFrequencies(c.rope));
    }
    REQUIRE_FALSE(c.layerKinds.empty());
    for (const posviz::cli::LayerKind& k : c.layerKinds) {
      if (k.scheme == posviz::cli::LayerScheme::Rope) CHECK_NOTHROW(posviz::ropeFrequencies(k.rope));
    }
  }
}

TEST_CASE("model_config: a published preset is its file in tests/data/published-configs byte for byte") {
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string src = POSVIZ_SOURCE_DIR;
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"deepseek-v3", "DeepSeek-V3.json"}, {"gemma-3-4b-it", "gemma-3-4b-it.json"},
      {"phi-3-mini-longrope", "Phi-3-mini-128k-instruct.json"}, {"llama-2-7b", "Llama-2-7b-hf.json"}};
  for (const auto& [preset, file] : pairs) {
    const std::string presetName = preset;   // CAPTURE's lambda cannot take a structured binding in clang 14
    CAPTURE(presetName);
    const std::string a = read(src + "/assets/presets/" + preset + ".json");
    CHECK_FALSE(a.empty());
    CHECK(a == read(src + "/tests/data/published-configs/" + file));
  }
}

TEST_CASE("model_config: llama-2-7b is plain RoPE, base 10000, head_dim 4096/32, 4096 positions") {
  const ModelConfig c = loadPreset("llama-2-7b");
  CHECK(c.encoding == ModelEncoding::Rope);
  CHECK(c.rope.base == 10000.0);  // rope_theta absent: the Llama default
  CHECK(c.rope.headDim == 128);
  CHECK(c.rope.rotaryFraction == 1.0);
  CHECK(c.rope.layout == RopeLayout::HalfSplit);
  CHECK(c.rope.scaling.method == ScalingMethod::None);
  CHECK(c.maxPositions == 4096);
  CHECK(c.hiddenSize == 4096);
  CHECK(c.numHeads == 32);
}

TEST_CASE("model_config: llama-3.1-8b gives Llama3 scaling x8, low 1, high 4, original 8192, base 500000") {
  const ModelConfig c = loadPreset("llama-3.1-8b");
  CHECK(c.rope.scaling.method == ScalingMethod::Llama3);
  CHECK(c.rope.scaling.factor == 8.0);
  CHECK(c.rope.scaling.lowFreqFactor == 1.0);
  CHECK(c.rope.scaling.highFreqFactor == 4.0);
  CHECK(c.rope.scaling.originalMaxPositions == 8192);
  CHECK(c.rope.base == 500000.0);
  CHECK(c.rope.headDim == 128);
  CHECK(c.maxPositions == 131072);
  // Pair 0 (wavelength 2*pi < 8192/4) is kept, the last pair (wavelength > 8192) divided by 8.
  const posviz::RopeFrequencies f = posviz::ropeFrequencies(c.rope);
  REQUIRE(f.invFreq.size() == 64);
  CHECK(f.invFreq[0] == doctest::Approx(1.0));
  CHECK(f.invFreq[63] == doctest::Approx(f.baseInvFreq[63] / 8.0));
}

TEST_CASE("model_config: mistral-7b, qwen2.5-7b-instruct and gpt-j-6b carry their published values") {
  const ModelConfig m = loadPreset("mistral-7b");
  CHECK(m.rope.base == 10000.0);
  CHECK(m.rope.headDim == 128);
  CHECK(m.maxPositions == 32768);
  const ModelConfig q = loadPreset("qwen2.5-7b-instruct");
  CHECK(q.rope.base == 1000000.0);
  CHECK(q.rope.headDim == 128);  // 3584 / 28
  CHECK(q.numHeads == 28);
  CHECK(q.maxPositions == 32768);
  const ModelConfig n = loadPreset("gpt-j-6b");   // rotary_dim 64 of n_embd 4096 / n_head 16, GPT-J's interleaved pairs
  CHECK(n.rope.headDim == 256);
  CHECK(posviz::ropeRotaryDims(n.rope) == 64);
  CHECK(n.rope.layout == posviz::RopeLayout::Interleaved);
  CHECK(n.rope.base == 10000.0);
  CHECK(n.maxPositions == 2048);
}

TEST_CASE("model_config: phi-3-mini-128k is LongRoPE with 48 factors, factor 131072/4096 and its attention factor") {
  const ModelConfig c = loadPreset("phi-3-mini-128k");
  CHECK(c.rope.scaling.method == ScalingMethod::LongRope);  // "type": "su", the legacy name
  CHECK(c.rope.headDim == 96);
  CHECK(c.rope.scaling.shortFactor.size() == 48);
  CHECK(c.rope.scaling.longFactor.size() == 48);
  CHECK(c.rope.scaling.originalMaxPositions == 4096);
  CHECK(c.rope.scaling.factor == 32.0);
  CHECK(c.rope.scaling.longFactor[0] == doctest::Approx(1.0299999713897705));
  CHECK(c.rope.scaling.shortFactor[0] == doctest::Approx(1.05));
  // sqrt(1 + ln(32) / ln(4096)) = sqrt(1 + 5/12)
  CHECK(posviz::ropeFrequencies(c.rope).attentionFactor == doctest::Approx(std::sqrt(1.0 + 5.0 / 12.0)));
}

TEST_CASE("model_config: DeepSeek-V3 is yarn x40 from 4096, the ALiBi and learned presets their head counts and tables") {
  const ModelConfig y = loadPreset("deepseek-v3");
  CHECK(y.rope.scaling.method == ScalingMethod::Yarn);
  CHECK(y.rope.scaling.factor == 40.0);
  CHECK(y.rope.scaling.originalMaxPositions == 4096);
  CHECK(y.maxPositions == 163840);
  const ModelConfig b = loadPreset("bloom-560m");
  CHECK(b.encoding == ModelEncoding::Alibi);
  CHECK(b.numHeads == 16);
  const ModelConfig mpt = loadPreset("mpt-7b");
  CHECK(mpt.encoding == ModelEncoding::Alibi);
  CHECK(mpt.numHeads == 32);
  CHECK(mpt.hiddenSize == 4096);
  CHECK(mpt.maxPositions == 2048);
  const ModelConfig g = loadPreset("gpt2");
  CHECK(g.encoding == ModelEncoding::Learned);
  CHECK(g.hiddenSize == 768);
  CHECK(g.maxPositions == 1024);
  CHECK(g.numHeads == 12);
  const ModelConfig bert = loadPreset("bert-base-uncased");
  CHECK(bert.encoding == ModelEncoding::Learned);
  CHECK(bert.hiddenSize == 768);
  CHECK(bert.maxPositions == 512);
}

TEST_CASE("model_config: rope_type and type, every scaling name, and ntk as our name for NTK-aware") {
  auto method = [](const std::string& scaling) {
    return parse(R"({"hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 2048, "rope_theta": 10000,
                     "rope_scaling": )" + scaling + "}").rope.scaling.method;
  };
  CHECK(method(R"({"rope_type": "linear", "factor": 2})") == ScalingMethod::Linear);
  CHECK(method(R"({"type": "linear", "factor": 2})") == ScalingMethod::Linear);
  CHECK(method(R"({"type": "dynamic", "factor": 2})") == ScalingMethod::DynamicNtk);
  CHECK(method(R"({"rope_type": "ntk", "factor": 2})") == ScalingMethod::NtkAware);
  CHECK(method(R"({"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 512})") == ScalingMethod::Yarn);
  CHECK(method(R"({"rope_type": "default"})") == ScalingMethod::None);
  CHECK(method("null") == ScalingMethod::None);
  const ModelConfig d = parse(R"({"hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 2048,
                                  "rope_scaling": {"type": "dynamic", "factor": 2}})");
  CHECK(d.rope.scaling.originalMaxPositions == 2048);  // dynamic NTK's L0 is max_position_embeddings
  const ModelConfig y = parse(R"({"hidden_size": 64, "num_attention_heads": 4, "rope_theta": 10000,
      "rope_scaling": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 512,
                       "beta_fast": 16, "beta_slow": 2, "mscale": 0.707, "mscale_all_dim": 0.707, "attention_factor": 1.5}})");
  CHECK(y.rope.scaling.betaFast == 16.0);
  CHECK(y.rope.scaling.betaSlow == 2.0);
  CHECK(y.rope.scaling.mscale == 0.707);
  CHECK(y.rope.scaling.mscaleAllDim == 0.707);
  REQUIRE(y.rope.scaling.attentionFactor.has_value());
  CHECK(*y.rope.scaling.attentionFactor == 1.5);
  const ModelConfig p = parse(R"({"hidden_size": 64, "num_attention_heads": 2, "partial_rotary_factor": 0.5})");
  CHECK(p.rope.headDim == 32);
  CHECK(posviz::ropeRotaryDims(p.rope) == 16);
  const ModelConfig hd = parse(R"({"head_dim": 80, "hidden_size": 64, "num_attention_heads": 4, "rope_theta": 1e6})");
  CHECK(hd.rope.headDim == 80);  // an explicit head_dim wins over hidden_size / heads
}

TEST_CASE("model_config: a malformed or unsupported field is an error naming the field") {
  const std::string base = R"("hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 2048)";
  struct Case {
    std::string json;
    std::vector<std::string> mustContain;
  };
  const std::vector<Case> cases = {
      {"{not json", {"not valid JSON"}},
      {"[1, 2]", {"top level must be a JSON object"}},
      {"{" + base + R"(, "rope_theta": "10000"})", {"rope_theta", "must be a number", "string"}},
      {"{" + base + R"(, "rope_theta": 0.5})", {"rope_theta", "must be in (1, 1e+300]", "0.5"}},
      // The same limits as the flags (app/cli/limits.hpp): --base, --factor, --head-dim, --heads, --d-model.
      {"{" + base + R"(, "rope_theta": 1e305})", {"rope_theta", "must be in (1, 1e+300]", "1e+305"}},
      {"{" + base + R"(, "rope_scaling": {"rope_type": "linear", "factor": 1e305}})", {"rope_scaling.factor", "[1, 1e+300]"}},
      {R"({"hidden_size": 64, "num_attention_heads": 4, "head_dim": 2147483646, "rope_theta": 10000})", {"head_dim", "[2, 1048576]", "2147483646"}},
      {R"({"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 100000000, "rope_theta": 10000})", {"num_hidden_layers", "[1, 65536]"}},
      {R"({"hidden_size": 2147483647, "num_attention_heads": 4, "rope_theta": 10000})", {"hidden_size", "[1, 1048576]"}},
      {R"({"hidden_size": 64, "n_head": 1000000, "rope_theta": 10000})", {"n_head", "[1, 65536]"}},
      {"{" + base + R"(, "rope_scaling": 3})", {"rope_scaling", "must be an object"}},
      {"{" + base + R"(, "rope_scaling": {"rope_type": "linear", "factor": -2}})", {"rope_scaling.factor", "[1, 1e+300]", "-2"}},
      {"{" + base + R"(, "rope_scaling": {"rope_type": "linear", "factor": "2"}})", {"rope_scaling.factor", "must be a number"}},
      {"{" + base + R"(, "rope_scaling": {"rope_type": "linear"}})", {"rope_scaling.factor", "missing"}},
      {"{" + base + R"(, "rope_scaling": {"rope_type": "magic", "factor": 2}})",
       {"rope_scaling.rope_type", "magic", "default|linear|ntk|dynamic|yarn|llama3|longrope|su"}},
      {"{" + base + R"(, "rope_scaling": {"factor": 2}})", {"rope_scaling.rope_type", "missing"}},
      {"{" + base + R"(, "rope_scaling": {"type": 7, "factor": 2}})", {"rope_scaling.type", "must be a string"}},
      {"{" + base + R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8, "high_freq_factor": 4, "original_max_position_embeddings": 8192}})",
       {"rope_scaling.low_freq_factor", "missing"}},
      {"{" + base + R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 1, "original_max_position_embeddings": 8192}})",
       {"rope_scaling.high_freq_factor", "> low_freq_factor"}},
      {"{" + base + R"(, "rope_scaling": {"rope_type": "yarn", "factor": 4, "beta_fast": -1}})", {"rope_scaling.beta_fast", ">= 0"}},
      {"{" + base + R"(, "original_max_position_embeddings": 1024, "rope_scaling": {"type": "su", "short_factor": [1, 1, 1, 1], "long_factor": [1, 2, 3]}})",
       {"rope_scaling.short_factor", "has 4 entries, expected 8"}},
      {"{" + base + R"(, "original_max_position_embeddings": 1024, "rope_scaling": {"type": "longrope", "short_factor": [1, 1, 1, 1, 1, 1, 1, 1], "long_factor": [1, 1, 1, 1, 1, 1, 1, "x"]}})",
       {"rope_scaling.long_factor[7]", "must be a number"}},
      {"{" + base + R"(, "original_max_position_embeddings": 1024, "rope_scaling": {"type": "longrope", "short_factor": [1, 1, 1, 1, 1, 1, 1, 1], "long_factor": [1, 1, 1, 1, 1, 1, 1, -3]}})",
       {"rope_scaling.long_factor[7]", "> 0"}},
      // No original_max_position_embeddings and no max_position_embeddings to stand in for it.
      {R"({"hidden_size": 64, "num_attention_heads": 4, "rope_scaling": {"type": "longrope", "short_factor": [1, 1, 1, 1, 1, 1, 1, 1], "long_factor": [1, 1, 1, 1, 1, 1, 1, 1]}})",
       {"original_max_position_embeddings", "missing"}},
      {R"({"hidden_size": 65, "num_attention_heads": 4, "rope_theta": 10000})", {"hidden_size", "not divisible", "4"}},
      {R"({"rope_theta": 10000})", {"head_dim", "missing"}},
      {R"({"head_dim": 63, "rope_theta": 10000})", {"head_dim", "even", "63"}},
      {R"({"hidden_size": 64, "num_attention_heads": 4.5, "rope_theta": 10000})", {"num_attention_heads", "integer"}},
      {R"({"hidden_size": -64, "num_attention_heads": 4, "rope_theta": 10000})", {"hidden_size", "[1,"}},
      {"{" + base + R"(, "partial_rotary_factor": 1.5})", {"partial_rotary_factor", "(0, 1]", "1.5"}},
      {"{" + base + R"(, "rotary_pct": 0.01})", {"rotary_pct", "no rotating pair"}},
      {R"({"alibi": true, "hidden_size": 64})", {"num_attention_heads", "missing"}},
      {R"({"alibi": "yes", "n_head": 4})", {"alibi", "true or false"}},
      {R"({"attn_config": [1], "n_heads": 4})", {"attn_config", "object"}},
      {R"({"position_embedding_type": "relative_key", "hidden_size": 64})", {"position_embedding_type", "relative_key"}},
      {R"({"model_type": "gpt2", "n_embd": 64, "n_positions": 0})", {"n_positions", "[1,"}},
      {R"({"model_type": "mystery", "hidden_size": 64})", {"model_type", "mystery"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.json);
    const std::string msg = errorOf(c.json);
    CAPTURE(msg);
    CHECK(contains(msg, "config test.json: "));
    for (const std::string& part : c.mustContain) {
      CAPTURE(part);
      CHECK(contains(msg, part));
    }
  }
}

TEST_CASE("model_config: ALiBi and learned configs are recognised by their fields") {
  const ModelConfig mpt = parse(R"({"d_model": 256, "n_heads": 8, "max_seq_len": 512, "attn_config": {"alibi": true}})");
  CHECK(mpt.encoding == ModelEncoding::Alibi);
  CHECK(mpt.numHeads == 8);
  CHECK(mpt.maxPositions == 512);
  const ModelConfig falcon = parse(R"({"alibi": false, "hidden_size": 64, "num_attention_heads": 4, "rope_theta": 10000})");
  CHECK(falcon.encoding == ModelEncoding::Rope);  // Falcon writes alibi: false and uses RoPE
  const ModelConfig bert = parse(R"({"position_embedding_type": "absolute", "hidden_size": 32, "max_position_embeddings": 64})");
  CHECK(bert.encoding == ModelEncoding::Learned);
  CHECK(bert.maxPositions == 64);
  const ModelConfig gptj = parse(R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64, "n_positions": 2048})");
  CHECK(gptj.rope.layout == RopeLayout::Interleaved);
  CHECK(gptj.rope.headDim == 256);
  CHECK(posviz::ropeRotaryDims(gptj.rope) == 64);
}

TEST_CASE("model_config: files: missing, a directory, too large, and a good one") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "model_config";
  fs::create_directories(dir);
  CHECK_THROWS_WITH_AS(loadModelConfig((dir / "missing.json").string()),
                       doctest::Contains("cannot read config"), ConfigError);
  CHECK_THROWS_WITH_AS(loadModelConfig(dir.string()), doctest::Contains("is a directory"), ConfigError);
  {
    std::ofstream big(dir / "big.json");
    big << "{\"x\": \"" << std::string(17u << 20, 'a') << "\"}";
  }
  CHECK_THROWS_WITH_AS(loadModelConfig((dir / "big.json").string()), doctest::Contains("MiB"), ConfigError);
  {
    std::ofstream good(dir / "config.json");
    good << R"({"hidden_size": 256, "num_attention_heads": 4, "rope_theta": 250000})";
  }
  const ModelConfig c = loadModelConfig((dir / "config.json").string());
  CHECK(c.name == "config.json");
  CHECK(c.rope.headDim == 64);
  CHECK(c.rope.base == 250000.0);
  CHECK(contains(c.description, "RoPE base 250000"));
  CHECK_THROWS_WITH_AS(loadPreset("llama-9"), doctest::Contains("available presets are"), ConfigError);
  CHECK_THROWS_WITH_AS(loadPreset("llama-9"), doctest::Contains("llama-3.1-8b"), ConfigError);
}


TEST_CASE("model_config: a number past float64's range is a ConfigError naming the file, the field and the number") {
  const std::string base = R"("hidden_size": 64, "num_attention_heads": 4)";
  CHECK_THROWS_WITH_AS(parse("{" + base + R"(, "rope_theta": 1e400})"),
                       "config test.json: rope_theta is 1e400, out of range (a number must fit a 64-bit float, |x| < 1.8e308)",
                       posviz::cli::ConfigError);
  CHECK_THROWS_WITH_AS(parse("{" + base + R"(, "rope_scaling": {"rope_type": "linear", "factor":-1e999}})"),
                       doctest::Contains("factor is -1e999, out of range"), posviz::cli::ConfigError);
  // In an array there is no key to name: the number is still named.
  CHECK_THROWS_WITH_AS(parse("{" + base + R"(, "x": [1, 2e500]})"), doctest::Contains("a number is 2e500, out of range"),
                       posviz::cli::ConfigError);
}

TEST_CASE("model_config: text_config nesting, v5 rope_parameters with rope_theta and partial_rotary_factor inside") {
  const ModelConfig m = parse(R"({"model_type": "wrapper", "text_config": {"model_type": "llama", "hidden_size": 256,
      "num_attention_heads": 4, "num_hidden_layers": 2,
      "rope_parameters": {"rope_type": "linear", "factor": 2, "rope_theta": 50000, "partial_rotary_factor": 0.5}}})");
  CHECK(m.modelType == "llama");
  CHECK(m.rope.headDim == 64);
  CHECK(m.rope.base == 50000.0);
  CHECK(posviz::ropeRotaryDims(m.rope) == 32);
  CHECK(m.rope.scaling.method == ScalingMethod::Linear);
  CHECK(m.layerKinds.size() == 1);
  // An error inside text_config names the field as the file spells it.
  CHECK(contains(errorOf(R"({"text_config": {"hidden_size": 64, "num_attention_heads": 4, "rope_theta": "x"}})"),
                 "text_config.rope_theta must be a number"));
}

TEST_CASE("model_config: rope_parameters keyed by layer type give each kind its own RoPE") {
  // transformers v5 Gemma 3 style: {"full_attention": {...}, "sliding_attention": {...}}.
  const ModelConfig m = parse(R"({"model_type": "gemma3_text", "num_hidden_layers": 6, "sliding_window": 512,
      "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8, "rope_theta": 1000000},
                          "sliding_attention": {"rope_type": "default", "rope_theta": 10000}}})");
  const posviz::cli::LayerKind* full = posviz::cli::findLayerKind(m, "full_attention");
  const posviz::cli::LayerKind* sliding = posviz::cli::findLayerKind(m, "sliding_attention");
  REQUIRE(full != nullptr);
  REQUIRE(sliding != nullptr);
  CHECK(full->layers == std::vector<int>{5});
  CHECK(full->rope.base == 1.0e6);
  CHECK(full->rope.scaling.method == ScalingMethod::Linear);
  CHECK(sliding->rope.base == 10000.0);
  CHECK(sliding->rope.scaling.method == ScalingMethod::None);
  CHECK(sliding->slidingWindow == 512);
  CHECK(contains(errorOf(R"({"model_type": "gemma3_text", "num_hidden_layers": 6, "sliding_window": 512,
      "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 10000}}})"),
                 "rope_parameters.sliding_attention is missing"));
}

TEST_CASE("model_config: Llama 4 defaults: every 4th layer NoPE with temperature tuning, the others chunked interleaved RoPE") {
  // configuration_llama4.py: no_rope_layer_interval 4, attention_chunk_size 8192, attn_scale 0.1, floor_scale 8192.
  const ModelConfig m = parse(R"({"model_type": "llama4_text", "num_hidden_layers": 8, "rope_theta": 500000,
      "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4,
                       "original_max_position_embeddings": 8192}})");
  const posviz::cli::LayerKind* nope = posviz::cli::findLayerKind(m, "full_attention");
  const posviz::cli::LayerKind* rope = posviz::cli::findLayerKind(m, "chunked_attention");
  REQUIRE(nope != nullptr);
  REQUIRE(rope != nullptr);
  CHECK(nope->scheme == posviz::cli::LayerScheme::NoPE);
  CHECK(nope->layers == std::vector<int>{3, 7});
  CHECK(rope->layers == std::vector<int>{0, 1, 2, 4, 5, 6});
  CHECK(rope->attentionChunk == 8192);
  CHECK(rope->rope.layout == RopeLayout::Interleaved);
  CHECK(rope->rope.headDim == 128);
  REQUIRE(m.extras.size() == 1);
  CHECK(contains(m.extras[0], "0.1 * ln(floor((pos + 1) / 8192) + 1)"));
  REQUIRE(m.nopeTemperature.has_value());
  CHECK(m.nopeTemperature->floorScale == 8192.0);
  CHECK(m.nopeTemperature->attnScale == 0.1);
  // A config's own values, and tuning switched off.
  const ModelConfig own = parse(R"({"model_type": "llama4_text", "num_hidden_layers": 4, "rope_theta": 500000,
      "floor_scale": 4096, "attn_scale": 0.25})");
  REQUIRE(own.nopeTemperature.has_value());
  CHECK(own.nopeTemperature->floorScale == 4096.0);
  CHECK(own.nopeTemperature->attnScale == 0.25);
  CHECK_FALSE(parse(R"({"model_type": "llama4_text", "num_hidden_layers": 4, "rope_theta": 500000,
      "attn_temperature_tuning": false})").nopeTemperature.has_value());
  const ModelConfig explicitFlags = parse(R"({"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 3,
                                             "rope_theta": 10000, "no_rope_layers": [1, 0, 1]})");
  const posviz::cli::LayerKind& first = explicitFlags.layerKinds.at(0);
  CHECK(first.layers == std::vector<int>{0, 2});
  CHECK(explicitFlags.layerKinds.at(1).scheme == posviz::cli::LayerScheme::NoPE);
}

TEST_CASE("model_config: partial rotary spellings, GLM and DeepSeek MLA layouts, CRLF text") {
  auto dims = [](const std::string& extra) {
    return posviz::ropeRotaryDims(parse(R"({"hidden_size": 256, "num_attention_heads": 2, "rope_theta": 10000, )" + extra + "}").rope);
  };
  CHECK(dims(R"("partial_rotary_factor": 0.5)") == 64);
  CHECK(dims(R"("rotary_pct": 0.25)") == 32);
  CHECK(dims(R"("rope_pct": 0.25)") == 32);
  CHECK(dims(R"("rotary_dim": 16)") == 16);
  // THUDM modeling_chatglm.py: rotary on kv_channels / 2, base 10000 * rope_ratio, adjacent pairs.
  const ModelConfig glm = parse(R"({"model_type": "chatglm", "hidden_size": 4096, "num_attention_heads": 32,
                                   "kv_channels": 128, "rope_ratio": 500, "seq_length": 131072, "num_layers": 2})");
  CHECK(glm.rope.base == 5.0e6);
  CHECK(posviz::ropeRotaryDims(glm.rope) == 64);
  CHECK(glm.rope.layout == RopeLayout::Interleaved);
  const ModelConfig mla = parse(R"({"model_type": "deepseek_v2", "hidden_size": 2048, "num_attention_heads": 16,
                                   "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "num_hidden_layers": 1})");
  CHECK(mla.rope.headDim == 64);
  CHECK(mla.rope.layout == RopeLayout::Interleaved);
  const ModelConfig crlf = parse("{\r\n  \"hidden_size\": 64,\r\n  \"num_attention_heads\": 4,\r\n  \"rope_theta\": 10000\r\n}\r\n");
  CHECK(crlf.rope.headDim == 16);
  // Falcon / RefinedWeb: rotary with base 10000 unless alibi is true.
  CHECK(parse(R"({"model_type": "RefinedWebModel", "hidden_size": 64, "n_head": 4})").encoding == ModelEncoding::Rope);
  CHECK(parse(R"({"model_type": "RefinedWebModel", "alibi": true, "hidden_size": 64, "n_head": 4})").encoding == ModelEncoding::Alibi);
}

TEST_CASE("model_config: sliding_window_pattern as Gemma's integer and EXAONE's letters") {
  const ModelConfig g = parse(R"({"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 4, "rope_theta": 10000,
                                 "sliding_window": 128, "sliding_window_pattern": 2})");
  CHECK(posviz::cli::findLayerKind(g, "full_attention")->layers == std::vector<int>{1, 3});
  const ModelConfig e = parse(R"({"model_type": "exaone4", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 5,
                                 "rope_theta": 10000, "sliding_window": 128, "sliding_window_pattern": "LLG"})");
  CHECK(posviz::cli::findLayerKind(e, "full_attention")->layers == std::vector<int>{2});
  CHECK(posviz::cli::findLayerKind(e, "full_attention")->scheme == posviz::cli::LayerScheme::NoPE);
  CHECK(posviz::cli::findLayerKind(e, "sliding_attention")->layers == std::vector<int>{0, 1, 3, 4});
}

TEST_CASE("model_config: fields that change positions and are not understood are errors naming them") {
  const std::string base = R"("hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 4)";
  struct Case {
    std::string json;
    std::vector<std::string> mustContain;
  };
  const std::vector<Case> cases = {
      {"{" + base + R"(, "rope_scaling": {"rope_type": "linear", "factor": 2, "magic": 3}})", {"rope_scaling.magic", "not a field"}},
      {"{" + base + R"(, "rope_scaling": {"rope_type": "linear", "type": "yarn", "factor": 2}})", {"rope_scaling.type", "must agree"}},
      {"{" + base + R"(, "rope_scaling": {"type": "mrope", "mrope_section": [2, 2, 2]}})", {"mrope_section", "sums to 6", "expected the 8"}},
      {"{" + base + R"(, "rope_theta": 10000, "layer_types": ["full_attention"]})", {"layer_types", "has 1 entries", "4"}},
      {"{" + base + R"(, "rope_theta": 10000, "layer_types": ["full_attention", "x", "full_attention", "full_attention"]})",
       {"layer_types[1]", "\"x\""}},
      {"{" + base + R"(, "rope_theta": 10000, "sliding_window": 8, "sliding_window_pattern": "LXG"})", {"sliding_window_pattern", "LXG"}},
      {"{" + base + R"(, "rope_theta": 10000, "no_rope_layers": [1, 1, 2, 1]})", {"no_rope_layers[2]", "0 (NoPE) or 1"}},
      {"{" + base + R"(, "rope_theta": 10000, "use_logn_attn": true})", {"use_logn_attn", "not supported"}},
      {"{" + base + R"(, "rope_theta": 10000, "rotary_scaling_factor": 2})", {"rotary_scaling_factor", "must be 1", "2"}},
      {"{" + base + R"(, "attn_config": {"alibi": true, "alibi_bias_max": 16}})", {"attn_config.alibi_bias_max", "must be 8", "16"}},
      {"{" + base + R"(, "attn_config": {"alibi": false, "rope": true}})", {"attn_config.rope", "not supported"}},
      {R"({"text_config": 3})", {"text_config", "must be an object"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.json);
    const std::string msg = errorOf(c.json);
    CAPTURE(msg);
    CHECK(contains(msg, "config test.json: "));
    for (const std::string& part : c.mustContain) {
      CAPTURE(part);
      CHECK(contains(msg, part));
    }
  }
}

}  // TEST_SUITE

// What transformers 5 (d6a6c826) makes of the scaling keys: modeling_rope_utils.py
// standardize_rope_params (the top-level original_max_position_embeddings overwrites the one in
// rope_parameters for llama3, yarn and longrope, and fills in for a missing one),
// _compute_dynamic_ntk_parameters (always from max_position_embeddings), _compute_yarn_parameters
// (`beta_fast or 32`, `beta_slow or 1`, `if mscale and mscale_all_dim`, a null factor derived), the
// default type never reading factor, and modeling_mpt.py (ALiBi whatever attn_config.alibi says).
TEST_CASE("model_config: scaling keys read as the reference reads them, not refused where it runs") {
  const std::string base = R"("model_type": "llama", "hidden_size": 512, "num_attention_heads": 8, "max_position_embeddings": 4096)";
  // Dynamic NTK scales from max_position_embeddings; original_max_position_embeddings is reported unread.
  ModelConfig m = parse("{" + base + R"(, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 2048}})");
  CHECK(m.rope.scaling.method == ScalingMethod::DynamicNtk);
  CHECK(m.rope.scaling.originalMaxPositions == 4096);
  REQUIRE(m.unreadKeys.size() == 1);
  CHECK(m.unreadKeys[0].find("rope_scaling.original_max_position_embeddings (dynamic scaling reads max_position_embeddings") == 0);
  // YaRN: the top-level value wins over rope_scaling's.
  m = parse("{" + base + R"(, "original_max_position_embeddings": 1024,
             "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048}})");
  CHECK(m.rope.scaling.originalMaxPositions == 1024);
  // llama3 without original_max_position_embeddings: max_position_embeddings takes its place.
  m = parse("{" + base + R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0}})");
  CHECK(m.rope.scaling.method == ScalingMethod::Llama3);
  CHECK(m.rope.scaling.originalMaxPositions == 4096);
  // The default type never reads factor: 0.5 there is no error.
  m = parse("{" + base + R"(, "rope_scaling": {"rope_type": "default", "factor": 0.5}})");
  CHECK(m.rope.scaling.method == ScalingMethod::None);
  // YaRN: mscale 0 and betas 0 mean unset; equal betas are one boundary; a null factor is max / original.
  m = parse("{" + base + R"(, "rope_scaling": {"rope_type": "yarn", "factor": null, "original_max_position_embeddings": 1024,
             "beta_fast": 0, "beta_slow": 0, "mscale": 0, "mscale_all_dim": 0}})");
  CHECK(m.rope.scaling.factor == 4.0);
  CHECK(m.rope.scaling.betaFast == 32.0);
  CHECK(m.rope.scaling.betaSlow == 1.0);
  CHECK(m.rope.scaling.mscale == 0.0);
  m = parse("{" + base + R"(, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "beta_fast": 2, "beta_slow": 2}})");
  CHECK(m.rope.scaling.betaFast == 2.0);
  CHECK_THROWS_WITH_AS(parse("{" + base + R"(, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "mscale": -1}})"),
                       doctest::Contains("rope_scaling.mscale must be >= 0"), ConfigError);
  // Llama's own compute_default_rope_parameters rotates all of head_dim: partial_rotary_factor is
  // reported unread (modeling_llama.py LlamaRotaryEmbedding); Phi's reads it (modeling_phi.py).
  m = parse("{" + base + R"(, "partial_rotary_factor": 0.5})");
  CHECK(posviz::ropeRotaryDims(m.rope) == 64);
  REQUIRE(m.unreadKeys.size() == 1);
  CHECK(m.unreadKeys[0].find("partial_rotary_factor (llama's compute_default_rope_parameters rotates all of head_dim)") == 0);
  m = parse(R"({"model_type": "phi", "hidden_size": 512, "num_attention_heads": 8, "partial_rotary_factor": 0.5,
             "rope_parameters": {"rope_type": "default", "rope_theta": 10000, "partial_rotary_factor": 0.25}})");
  CHECK(posviz::ropeRotaryDims(m.rope) == 32);   // the top-level 0.5 overwrites rope_parameters' 0.25
  // MPT in transformers: ALiBi even with attn_config.alibi false (the code never reads it).
  m = parse(R"({"model_type": "mpt", "d_model": 512, "n_heads": 8, "n_layers": 2, "max_seq_len": 2048, "attn_config": {"alibi": false}})");
  CHECK(m.encoding == ModelEncoding::Alibi);
}
