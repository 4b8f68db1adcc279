// model_config.hpp: a model's positional-encoding settings, layer by layer, read from a Hugging
// Face style config.json (or DeepSeek's own inference config) or a shipped preset
// (assets/presets/NAME.json, the published files byte for byte; sources in
// assets/presets/SOURCES.md).
//
// FAMILIES
//   The model_type picks the family's entry in the table of model types (model_types.hpp,
//   assets/model_types.json, derived from transformers' modeling code): its scheme, pairing
//   layout, defaults and the keys its code reads. A model_type the table lacks is read by the
//   generic rules below and labelled a guess (ModelConfig::guess).
//
// FIELDS READ
//   Nesting: a multimodal wrapper's text_config is the language model's config.
//   RoPE base: rope_theta (top level, or inside rope_parameters), rotary_emb_base; Gemma 3's
//   rope_local_base_freq for sliding layers; GLM's rope_ratio multiplies 10000.
//   Scaling: rope_scaling or transformers-v5 rope_parameters {rope_type | type (default, linear,
//   dynamic, yarn, llama3, longrope; aliases su = longrope, mrope = default + mrope_section),
//   factor, original_max_position_embeddings, beta_fast, beta_slow, mscale, mscale_all_dim,
//   truncate, low_freq_factor, high_freq_factor, short_factor, long_factor, attention_factor,
//   mrope_section, mrope_interleaved, llama_4_scaling_beta}; rope_parameters may be keyed by
//   layer type ({"full_attention": {...}, "sliding_attention": {...}}).
//   Rotary width: head_dim, else hidden_size / num_attention_heads; MLA qk_rope_head_dim;
//   partial_rotary_factor, rotary_pct, rope_pct, rotary_dim (GPT-J), GLM's kv_channels / 2.
//   Layers: num_hidden_layers | n_layer | num_layers | n_layers; layer_types,
//   sliding_window_pattern (Gemma: every Nth layer global; EXAONE: "LLLG"), no_rope_layers /
//   no_rope_layer_interval (Llama 4), sliding_window, use_sliding_window.
//   Others: ALiBi (alibi, attn_config.alibi, alibi_bias_max, BLOOM by model_type); learned tables
//   (n_positions, max_position_embeddings, max_seq_len, seq_length, position_embedding_type).
//   Legacy spellings: n_head, n_heads, n_embd, n_embed, d_model, dim.
//
// DEFAULTS
//   Where the file is silent, the model class's own default applies (for example Gemma 3: head_dim
//   256, rope_theta 1e6, rope_local_base_freq 1e4, a global layer every 6th; Falcon: base 10000).
//
// PAIR LAYOUT
//   The family's, from the table (rotate_half over halves: Llama, NeoX, Qwen, ...; adjacent
//   pairs: GPT-J, CodeGen, GLM, Cohere, DeepSeek MLA, Llama 4); half-split for a guess.
//
// ERRORS
//   A malformed field, or one that changes positions and is not understood, throws ConfigError
//   naming the field, its value and what is allowed.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/attn_temperature.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

namespace posviz::cli {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The model's positional scheme (its first layers'): RelativeBuckets is T5's bucketed bias, None a
// model with no attention over positions at all (Mamba, RWKV).
// RelativeKey is a learned vector per clamped distance j - i dotted with the query (Wav2Vec2-BERT).
enum class ModelEncoding { Rope, Alibi, Learned, Sinusoidal, RelativeBuckets, RelativeKey, None };

// What one kind of layer does with positions.
enum class LayerScheme {
  Rope,     // rotates q and k (rope holds the parameters)
  NoPE,     // attention without any position signal (EXAONE 4 global, Llama 4 every 4th)
  Alibi,    // linear bias on the scores
  Learned,  // learned absolute table added to the embeddings
  None,     // no attention over positions at all (Qwen3.5's linear-attention layers, Mamba, convolutions)
  Sinusoidal,       // fixed sin/cos table added to the embeddings (Marian, M2M100, XGLM, Whisper's encoder)
  RelativeBuckets,  // T5's learned per-head bias over bucketed distances
  RelativeKey,      // q_i . E[clamp(j - i, -left, right) + left] added to the score (Wav2Vec2-BERT)
};
// "rope", "nope", "alibi", "learned", "none", "sinusoidal", "relative-buckets", "relative-key"
const char* layerSchemeName(LayerScheme s);

struct LayerKind {
  // "full_attention", "sliding_attention", "chunked_attention", "linear_attention", or a kind
  // without attention ("mamba", "conv"); encoder-decoder models: "encoder", "decoder".
  std::string attention;
  std::vector<int> layers;        // 0-based layer indices, ascending
  LayerScheme scheme = LayerScheme::Rope;
  RopeParams rope;                // scheme Rope only
  long long slidingWindow = 0;    // tokens; 0 = attends to every earlier position
  long long attentionChunk = 0;   // tokens; Llama 4's chunked attention, 0 = none
};

struct ModelConfig {
  std::string name;                  // preset name or file name
  std::string modelType;             // model_type (text_config's when nested), "" when absent
  std::string description;           // "RoPE base 500000, head_dim 128, llama3 scaling x8, ..."
  ModelEncoding encoding = ModelEncoding::Rope;  // the first positional scheme of the model's layers
  RopeParams rope;                   // Rope models: the full-attention layers' RoPE, else the first RoPE layer's
  int hiddenSize = 0;                // d_model
  int numHeads = 0;
  int numLayers = 0;                 // 0 when the file does not say
  long long maxPositions = 0;        // max_position_embeddings
  std::vector<LayerKind> layerKinds; // every layer in exactly one kind, in order of first layer
  std::vector<int> mropeSection;     // M-RoPE pairs per (t, h, w) axis; empty = 1-D positions
  bool mropeInterleaved = false;     // Qwen3.5: axes alternate pair by pair instead of in blocks
  // M-RoPE position ids (core/mrope.hpp): the family's get_rope_index rule ("steps", "seconds",
  // "frames"; "own" where posviz does not model it; "" when the table has none) and the vision
  // config's spatial_merge_size and tokens_per_second (the file's, else its class's; 0 = neither).
  std::string mropeIndexRule;
  // Pixtral's vision tower: a 2-D RoPE over a patchGrid x patchGrid grid (image_size / patch_size).
  std::string rope2d;
  int patchGrid = 0;
  int spatialMerge = 0;
  double tokensPerSecond = 0.0;
  std::vector<std::string> extras;   // position-dependent factors beside the encoding, one sentence each
  // Where the reading comes from: "llama (transformers 5.0.0.dev0 models/llama/modeling_llama.py)".
  std::string family;
  // Non-empty when the model_type is not in the table of model types: what the generic rules
  // assumed. Shown on stderr, in --json and as a banner in the Model tab.
  std::string guess;
  // Positional keys the file gives that its family's code never reads (they change nothing).
  std::vector<std::string> unreadKeys;
  int positionOffset = 0;            // learned / sinusoidal tables: rows before position 0 (BART, OPT: 2)
  std::string positionOffsetRule;    // how the offset is decided, "" when 0
  // The offset rows come on top of maxPositions (BART, OPT, M2M100: every position up to
  // maxPositions has a row) rather than out of it (RoBERTa: maxPositions - offset positions).
  bool offsetRowsAdded = false;
  std::string sinusoidalLayout;      // "sin-first-half", "cos-first-half", "interleaved-sin-cos", with ", t2t spacing"
  std::optional<SinusoidalLayout> sinusoidalCoreLayout;  // the same in core's terms; empty when core has no such layout
  int relativeBuckets = 0;           // T5: relative_attention_num_buckets
  int relativeMaxDistance = 0;       // T5: relative_attention_max_distance
  int relativeKeyLeft = 0;           // relative_key: left_max_position_embeddings (keys before the query)
  int relativeKeyRight = 0;          // relative_key: right_max_position_embeddings (keys after it)
  int relativeKeyDim = 0;            // relative_key: the distance vectors' width, the head size
  // Multi-head latent attention (DeepSeek-V2 paper, section 2.1.3): each head's q and k are
  // nopeHeadDim position-free dims and ropeHeadDim rotated ones; the rotated key part is one
  // vector shared by every head; v has vHeadDim dims. All 0 for other attention.
  struct Mla {
    int nopeHeadDim = 0, ropeHeadDim = 0, vHeadDim = 0, kvLoraRank = 0;
  } mla;
  // Llama 4's attention temperature on NoPE layers (attn_temperature_tuning), when the model has it.
  std::optional<AttnTemperatureParams> nopeTemperature;
};

ModelConfig parseModelConfig(const std::string& jsonText, const std::string& name);
ModelConfig loadModelConfig(const std::string& path);
std::vector<std::string> presetNames();                  // sorted, from the embedded presets
ModelConfig loadPreset(const std::string& name);          // ConfigError listing the names when unknown

// The layer kind whose attention is `attention` ("full_attention", "sliding_attention", ...),
// nullptr when the model has none.
const LayerKind* findLayerKind(const ModelConfig& m, const std::string& attention);
// The RoPE that stands for the model (ModelConfig::rope): the full-attention layers' kind when it
// rotates, else the first kind that does; nullptr when no layer uses RoPE.
const LayerKind* mainRopeKind(const ModelConfig& m);

// DeepSeek's YaRN softmax-scale factor (0.1 * m * ln(factor) + 1 for factor > 1, else 1).
// DeepSeek-V3 inference/model.py yarn_get_mscale / HF modeling_rope_utils get_mscale.
double yarnMscale(double factor, double m);

}  // namespace posviz::cli
