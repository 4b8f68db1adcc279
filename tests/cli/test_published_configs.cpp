// Published config.json files (tests/data/published-configs, sources in SOURCES.md there) load with
// the numbers each model's own code uses. Expected values are restated from the reference
// implementations named at each case; the files are the authors' bytes, not stand-ins.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/model_config.hpp"
#include "core/context_extension.hpp"
#include "core/rope.hpp"

using posviz::RopeLayout;
using posviz::ScalingMethod;
using posviz::cli::LayerKind;
using posviz::cli::LayerScheme;
using posviz::cli::ModelConfig;
using posviz::cli::ModelEncoding;

namespace {

const std::string kDir = POSVIZ_SOURCE_DIR "/tests/data/published-configs/";

ModelConfig load(const std::string& file) { return posviz::cli::loadModelConfig(kDir + file); }

nlohmann::json rawJson(const std::string& file) {
  std::ifstream in(kDir + file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

const LayerKind& kind(const ModelConfig& m, const std::string& attention) {
  const LayerKind* k = posviz::cli::findLayerKind(m, attention);
  REQUIRE(k != nullptr);
  return *k;
}

std::vector<int> every(int n) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}

// Layers i with pred(i), 0 <= i < n.
template <typename P>
std::vector<int> layersWhere(int n, P pred) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) {
    if (pred(i)) v.push_back(i);
  }
  return v;
}

// theta_i = base^(-2i/d): HF modeling_rope_utils _compute_default_rope_parameters,
// inv_freq = 1 / base^(arange(0, dim, 2) / dim).
double defaultInvFreq(double base, int dim, int pair) { return std::pow(base, -2.0 * pair / dim); }

void checkRope(const LayerKind& k, int rotaryDims, int headDim, double base, RopeLayout layout, ScalingMethod method) {
  REQUIRE(k.scheme == LayerScheme::Rope);
  CHECK(posviz::ropeRotaryDims(k.rope) == rotaryDims);
  CHECK(k.rope.headDim == headDim);
  CHECK(k.rope.base == doctest::Approx(base));
  CHECK(k.rope.layout == layout);
  CHECK(k.rope.scaling.method == method);
}

void checkUnscaledFreqs(const LayerKind& k) {
  const posviz::RopeFrequencies f = posviz::ropeFrequencies(k.rope);
  const int d = posviz::ropeRotaryDims(k.rope);
  REQUIRE(static_cast<int>(f.invFreq.size()) == d / 2);
  for (int i = 0; i < d / 2; ++i) {
    CAPTURE(i);
    CHECK(f.invFreq[i] == doctest::Approx(defaultInvFreq(k.rope.base, d, i)).epsilon(1e-12));
  }
  CHECK(f.attentionFactor == 1.0);
}

}  // namespace

TEST_SUITE("published_configs") {

TEST_CASE("published: every file in the folder loads, and each layer is in exactly one kind") {
  const std::vector<std::string> files = {
      "DeepSeek-V2-Lite.native-inference-config_16B.json", "DeepSeek-V3.json", "DeepSeek-V3.native-inference-config_671B.json",
      "Devstral-Small-2-24B-Instruct.json", "EXAONE-4.0-32B.json", "Llama-2-7b-hf.json", "Llama-3.1-8B.json",
      "Llama-3.2-1B-Instruct.json", "Mistral-7B-v0.1.json", "Mixtral-8x7B-v0.1.json", "Olmo-3.1-32B-Instruct.json",
      "Phi-3-mini-128k-instruct.2024-04-su.json", "Phi-3-mini-128k-instruct.json", "Phi-3.5-mini-instruct.json",
      "Qwen2.5-7B-Instruct.json", "Qwen2.5-VL-7B-Instruct.json", "Qwen3-8B.json", "Qwen3.5-27B.json", "bert-base-uncased.json",
      "bloom-560m.json", "chatglm3-6b.json", "falcon-7b.RW-2023-06.json", "gemma-3-4b-it.json", "gpt-j-6b.json", "gpt2.json",
      "mpt-7b.json", "stable-code-3b.json"};
  for (const std::string& f : files) {
    CAPTURE(f);
    const ModelConfig m = load(f);
    REQUIRE(m.numLayers > 0);
    std::vector<int> seen(static_cast<std::size_t>(m.numLayers), 0);
    for (const LayerKind& k : m.layerKinds) {
      for (int i : k.layers) seen.at(static_cast<std::size_t>(i))++;
    }
    for (int i = 0; i < m.numLayers; ++i) {
      CAPTURE(i);
      CHECK(seen[static_cast<std::size_t>(i)] == 1);
    }
  }
}

TEST_CASE("published: DeepSeek-V3 rotates qk_rope_head_dim 64 interleaved with YaRN x40, softmax scale mscale^2") {
  // HF configuration_deepseek_v3.py: head_dim = qk_rope_head_dim (64), rope_interleave True;
  // deepseek-ai/DeepSeek-V3 inference/model.py: freqs_cis over qk_rope_head_dim, view_as_complex (adjacent pairs).
  for (const char* f : {"DeepSeek-V3.json", "DeepSeek-V3.native-inference-config_671B.json"}) {
    CAPTURE(f);
    const ModelConfig m = load(f);
    CHECK(m.numLayers == 61);
    REQUIRE(m.layerKinds.size() == 1);
    const LayerKind& k = m.layerKinds[0];
    CHECK(k.layers == every(61));
    checkRope(k, 64, 64, 10000.0, RopeLayout::Interleaved, ScalingMethod::Yarn);
    CHECK(k.rope.scaling.factor == 40.0);
    CHECK(k.rope.scaling.originalMaxPositions == 4096);
    // _compute_yarn_parameters / precompute_freqs_cis: low = floor(64 ln(4096 / (32 2pi)) / (2 ln 10000)) = 10,
    // high = ceil(64 ln(4096 / (1 2pi)) / (2 ln 10000)) = 23; pairs below 10 keep base^(-2i/64), pairs above
    // 23 are divided by the factor 40.
    const posviz::RopeFrequencies fr = posviz::ropeFrequencies(k.rope);
    REQUIRE(fr.invFreq.size() == 32);
    for (int i : {0, 1, 5, 9}) {
      CAPTURE(i);
      CHECK(fr.invFreq[i] == doctest::Approx(defaultInvFreq(10000.0, 64, i)).epsilon(1e-12));
    }
    for (int i : {24, 28, 31}) {
      CAPTURE(i);
      CHECK(fr.invFreq[i] == doctest::Approx(defaultInvFreq(10000.0, 64, i) / 40.0).epsilon(1e-12));
    }
    // get_mscale(40, mscale 1) / get_mscale(40, mscale_all_dim 1) = 1: cos and sin are not scaled.
    CHECK(fr.attentionFactor == doctest::Approx(1.0));
    // Softmax scale x (0.1 * 1 * ln 40 + 1)^2 = 1.873852...
    REQUIRE(m.extras.size() == 1);
    CHECK(m.extras[0].find("x1.87385") != std::string::npos);
  }
  CHECK(posviz::cli::yarnMscale(40.0, 1.0) == doctest::Approx(0.1 * std::log(40.0) + 1.0));
}

TEST_CASE("published: DeepSeek 16B (V2-Lite architecture, native config) uses mscale 0.707 for the softmax scale") {
  // inference/model.py ModelArgs defaults: rope_theta 10000, rope_factor 40, original_seq_len 4096, max_seq_len 16384.
  const ModelConfig m = load("DeepSeek-V2-Lite.native-inference-config_16B.json");
  CHECK(m.numLayers == 27);
  checkRope(m.layerKinds.at(0), 64, 64, 10000.0, RopeLayout::Interleaved, ScalingMethod::Yarn);
  const double ms = 0.1 * 0.707 * std::log(40.0) + 1.0;
  REQUIRE(m.extras.size() == 1);
  std::ostringstream expect;
  expect.precision(6);
  expect << "x" << ms * ms;
  CHECK(m.extras[0].find(expect.str()) != std::string::npos);
}

TEST_CASE("published: stable-code-3b rotates rope_pct 0.25 of head_dim 80 = 20 dims, base 1e6") {
  // stabilityai modeling_stablelm_epoch.py: rotary_ndims = int(head_dim * rope_pct), rotate_half.
  const ModelConfig m = load("stable-code-3b.json");
  const LayerKind& k = kind(m, "full_attention");
  checkRope(k, 20, 80, 1.0e6, RopeLayout::HalfSplit, ScalingMethod::None);
  checkUnscaledFreqs(k);
  CHECK(posviz::ropeFrequencies(k.rope).invFreq[1] == doctest::Approx(std::pow(1.0e6, -0.1)));
}

TEST_CASE("published: Llama 2, 3.1 and 3.2, Mistral, Mixtral, Qwen2.5, Qwen3: half-split RoPE with their bases") {
  // HF modeling_llama.py rotate_half; LlamaConfig rope_theta default 10000 (Llama 2's file has none).
  checkRope(kind(load("Llama-2-7b-hf.json"), "full_attention"), 128, 128, 10000.0, RopeLayout::HalfSplit, ScalingMethod::None);
  checkUnscaledFreqs(kind(load("Llama-2-7b-hf.json"), "full_attention"));
  // _compute_llama3_parameters: wavelen < L0/high_freq_factor kept, > L0/low_freq_factor divided by factor.
  const ModelConfig l31 = load("Llama-3.1-8B.json");
  const LayerKind& k31 = kind(l31, "full_attention");
  checkRope(k31, 128, 128, 500000.0, RopeLayout::HalfSplit, ScalingMethod::Llama3);
  CHECK(k31.rope.scaling.factor == 8.0);
  CHECK(k31.rope.scaling.lowFreqFactor == 1.0);
  CHECK(k31.rope.scaling.highFreqFactor == 4.0);
  CHECK(k31.rope.scaling.originalMaxPositions == 8192);
  const posviz::RopeFrequencies f31 = posviz::ropeFrequencies(k31.rope);
  CHECK(f31.invFreq[0] == 1.0);  // wavelen 2pi < 2048: kept
  CHECK(f31.invFreq[63] == doctest::Approx(defaultInvFreq(500000.0, 128, 63) / 8.0).epsilon(1e-12));  // wavelen > 8192
  const ModelConfig l32 = load("Llama-3.2-1B-Instruct.json");
  const LayerKind& k32 = kind(l32, "full_attention");
  checkRope(k32, 64, 64, 500000.0, RopeLayout::HalfSplit, ScalingMethod::Llama3);
  CHECK(k32.rope.scaling.factor == 32.0);
  // Mistral: sliding_window 4096 on every layer (modeling_mistral.py).
  const ModelConfig mistral = load("Mistral-7B-v0.1.json");
  REQUIRE(mistral.layerKinds.size() == 1);
  CHECK(mistral.layerKinds[0].attention == "sliding_attention");
  CHECK(mistral.layerKinds[0].slidingWindow == 4096);
  checkRope(mistral.layerKinds[0], 128, 128, 10000.0, RopeLayout::HalfSplit, ScalingMethod::None);
  // Mixtral: sliding_window null, every layer full.
  const ModelConfig mixtral = load("Mixtral-8x7B-v0.1.json");
  CHECK(kind(mixtral, "full_attention").slidingWindow == 0);
  checkRope(kind(mixtral, "full_attention"), 128, 128, 1.0e6, RopeLayout::HalfSplit, ScalingMethod::None);
  // Qwen2: use_sliding_window false switches the window off (configuration_qwen2.py).
  const ModelConfig qwen = load("Qwen2.5-7B-Instruct.json");
  REQUIRE(qwen.layerKinds.size() == 1);
  CHECK(qwen.layerKinds[0].slidingWindow == 0);
  checkRope(kind(qwen, "full_attention"), 128, 128, 1.0e6, RopeLayout::HalfSplit, ScalingMethod::None);
  checkRope(kind(load("Qwen3-8B.json"), "full_attention"), 128, 128, 1.0e6, RopeLayout::HalfSplit, ScalingMethod::None);
}

TEST_CASE("published: Phi-3 / 3.5 LongRoPE (and the su alias): short factors, factor 32, attention factor") {
  // _compute_longrope_parameters: factor = max_position_embeddings / original (131072 / 4096 = 32),
  // attention_factor = sqrt(1 + ln(32) / ln(4096)); at seq_len <= original, inv_freq = 1 / (short_factor * base^(2i/d)).
  for (const char* f : {"Phi-3-mini-128k-instruct.json", "Phi-3-mini-128k-instruct.2024-04-su.json", "Phi-3.5-mini-instruct.json"}) {
    CAPTURE(f);
    const ModelConfig m = load(f);
    const LayerKind& k = m.layerKinds.at(0);
    checkRope(k, 96, 96, 10000.0, RopeLayout::HalfSplit, ScalingMethod::LongRope);
    CHECK(k.rope.scaling.factor == 32.0);
    CHECK(k.rope.scaling.originalMaxPositions == 4096);
    const posviz::RopeFrequencies fr = posviz::ropeFrequencies(k.rope);
    CHECK(fr.attentionFactor == doctest::Approx(std::sqrt(1.0 + std::log(32.0) / std::log(4096.0))));
    const std::vector<double> shortFactor = rawJson(f)["rope_scaling"]["short_factor"].get<std::vector<double>>();
    for (int i : {0, 3, 47}) {
      CAPTURE(i);
      CHECK(fr.invFreq[i] == doctest::Approx(defaultInvFreq(10000.0, 96, i) / shortFactor[i]).epsilon(1e-12));
    }
  }
}

TEST_CASE("published: Gemma 3 (text_config, silent defaults): local layers base 1e4, every 6th global with linear x8") {
  // configuration_gemma3.py Gemma3TextConfig: head_dim 256, rope_theta 1e6, rope_local_base_freq 1e4,
  // sliding_window_pattern 6 -> layer i is sliding when (i + 1) % 6 != 0; modeling_gemma3.py:
  // rotary_emb_local (default rope, local base) for sliding layers.
  const ModelConfig m = load("gemma-3-4b-it.json");
  CHECK(m.numLayers == 34);
  const LayerKind& local = kind(m, "sliding_attention");
  const LayerKind& global = kind(m, "full_attention");
  CHECK(global.layers == std::vector<int>{5, 11, 17, 23, 29});
  CHECK(local.layers == layersWhere(34, [](int i) { return (i + 1) % 6 != 0; }));
  CHECK(local.slidingWindow == 1024);
  checkRope(local, 256, 256, 10000.0, RopeLayout::HalfSplit, ScalingMethod::None);
  checkUnscaledFreqs(local);
  checkRope(global, 256, 256, 1.0e6, RopeLayout::HalfSplit, ScalingMethod::Linear);
  CHECK(global.rope.scaling.factor == 8.0);
  CHECK(posviz::ropeFrequencies(global.rope).invFreq[10] == doctest::Approx(defaultInvFreq(1.0e6, 256, 10) / 8.0));
  CHECK(m.rope.base == 1.0e6);  // the whole-model view is the global layers'
}

TEST_CASE("published: EXAONE 4.0 32B: RoPE (llama3 x16) on the 48 sliding layers, NoPE on the 16 global ones") {
  // modeling_exaone4.py: "We use global NoPE for hybrid attention model" - rotary only when is_sliding.
  const ModelConfig m = load("EXAONE-4.0-32B.json");
  const LayerKind& sliding = kind(m, "sliding_attention");
  const LayerKind& global = kind(m, "full_attention");
  CHECK(sliding.layers == layersWhere(64, [](int i) { return (i + 1) % 4 != 0; }));
  CHECK(global.layers == layersWhere(64, [](int i) { return (i + 1) % 4 == 0; }));
  CHECK(global.scheme == LayerScheme::NoPE);
  CHECK(sliding.slidingWindow == 4096);
  checkRope(sliding, 128, 128, 1.0e6, RopeLayout::HalfSplit, ScalingMethod::Llama3);
  CHECK(sliding.rope.scaling.factor == 16.0);
}

TEST_CASE("published: OLMo 3.1: sliding layers default RoPE, full layers YaRN x8 with the file's attention factor") {
  // modeling_olmo3.py rotary_embs: {"sliding_attention": rope_type "default", "full_attention": config's}.
  const ModelConfig m = load("Olmo-3.1-32B-Instruct.json");
  const LayerKind& sliding = kind(m, "sliding_attention");
  const LayerKind& full = kind(m, "full_attention");
  CHECK(full.layers.size() == 16);
  checkRope(sliding, 128, 128, 500000.0, RopeLayout::HalfSplit, ScalingMethod::None);
  checkRope(full, 128, 128, 500000.0, RopeLayout::HalfSplit, ScalingMethod::Yarn);
  CHECK(full.rope.scaling.factor == 8.0);
  CHECK(posviz::ropeFrequencies(full.rope).attentionFactor == doctest::Approx(1.2079441541679836).epsilon(1e-15));
}

TEST_CASE("published: Qwen2.5-VL M-RoPE sections 16/24/24; Qwen3.5 v5 rope_parameters, partial 0.25, interleaved M-RoPE") {
  // modeling_qwen2_5_vl.py apply_multimodal_rotary_pos_emb: mrope_section splits the 64 pairs.
  const ModelConfig vl = load("Qwen2.5-VL-7B-Instruct.json");
  checkRope(kind(vl, "full_attention"), 128, 128, 1.0e6, RopeLayout::HalfSplit, ScalingMethod::None);
  CHECK(vl.mropeSection == std::vector<int>{16, 24, 24});
  CHECK_FALSE(vl.mropeInterleaved);
  // Qwen3.5: text_config.rope_parameters {rope_theta 1e7, partial_rotary_factor 0.25}; head_dim 256 -> 64 dims;
  // layer_types: linear_attention (Gated DeltaNet, no positions) x3, full_attention x1.
  const ModelConfig q = load("Qwen3.5-27B.json");
  const LayerKind& full = kind(q, "full_attention");
  checkRope(full, 64, 256, 1.0e7, RopeLayout::HalfSplit, ScalingMethod::None);
  CHECK(full.layers == layersWhere(64, [](int i) { return (i + 1) % 4 == 0; }));
  CHECK(kind(q, "linear_attention").scheme == LayerScheme::None);
  CHECK(q.mropeSection == std::vector<int>{11, 11, 10});
  CHECK(q.mropeInterleaved);
}

TEST_CASE("published: Devstral Small 2 (v5 rope_parameters in text_config): YaRN x48, base 1e8, Llama-4 query scaling") {
  // modeling_ministral3.py: q *= 1 + llama_4_scaling_beta * log(1 + floor(pos / original_max_position_embeddings)).
  const ModelConfig m = load("Devstral-Small-2-24B-Instruct.json");
  const LayerKind& k = kind(m, "full_attention");
  checkRope(k, 128, 128, 1.0e8, RopeLayout::HalfSplit, ScalingMethod::Yarn);
  CHECK(k.rope.scaling.factor == 48.0);
  CHECK(k.rope.scaling.originalMaxPositions == 8192);
  CHECK(posviz::ropeFrequencies(k.rope).attentionFactor == doctest::Approx(1.0));  // mscale 1 / mscale_all_dim 1
  REQUIRE(m.extras.size() == 1);
  CHECK(m.extras[0].find("0.1 * ln(1 + floor(pos / 8192))") != std::string::npos);
}

TEST_CASE("published: GPT-J, ChatGLM3 interleaved partial rotary; Falcon RW rotary with base 10000") {
  // modeling_gptj.py: rotate_every_two over rotary_dim 64 of head_dim 4096/16 = 256.
  const ModelConfig gptjModel = load("gpt-j-6b.json");
  const LayerKind& gptj = kind(gptjModel, "full_attention");
  checkRope(gptj, 64, 256, 10000.0, RopeLayout::Interleaved, ScalingMethod::None);
  checkUnscaledFreqs(gptj);
  // THUDM modeling_chatglm.py: RotaryEmbedding(kv_channels // 2), base 10000 * rope_ratio (absent: 1),
  // apply_rotary_pos_emb reshapes (..., rot_dim // 2, 2): adjacent pairs of the first 64 of 128 dims.
  const ModelConfig glmModel = load("chatglm3-6b.json");
  const LayerKind& glm = kind(glmModel, "full_attention");
  checkRope(glm, 64, 128, 10000.0, RopeLayout::Interleaved, ScalingMethod::None);
  checkUnscaledFreqs(glm);
  // configuration_falcon.py: rope_theta 10000, alibi False -> rotary; head_dim 4544 / 71 = 64.
  const ModelConfig falcon = load("falcon-7b.RW-2023-06.json");
  CHECK(falcon.encoding == ModelEncoding::Rope);
  checkRope(kind(falcon, "full_attention"), 64, 64, 10000.0, RopeLayout::HalfSplit, ScalingMethod::None);
}

TEST_CASE("published: BLOOM and MPT are ALiBi, BERT and GPT-2 learned tables") {
  const ModelConfig bloom = load("bloom-560m.json");  // modeling_bloom.py build_alibi_tensor, 16 heads
  CHECK(bloom.encoding == ModelEncoding::Alibi);
  CHECK(bloom.numHeads == 16);
  CHECK(bloom.numLayers == 24);
  CHECK(bloom.layerKinds.at(0).scheme == LayerScheme::Alibi);
  const ModelConfig mpt = load("mpt-7b.json");  // attn_config.alibi true, alibi_bias_max 8
  CHECK(mpt.encoding == ModelEncoding::Alibi);
  CHECK(mpt.numHeads == 32);
  const ModelConfig bert = load("bert-base-uncased.json");
  CHECK(bert.encoding == ModelEncoding::Learned);
  CHECK(bert.maxPositions == 512);
  CHECK(bert.hiddenSize == 768);
  const ModelConfig gpt2 = load("gpt2.json");
  CHECK(gpt2.encoding == ModelEncoding::Learned);
  CHECK(gpt2.maxPositions == 1024);
  CHECK(gpt2.layerKinds.at(0).scheme == LayerScheme::Learned);
}

}  // TEST_SUITE
