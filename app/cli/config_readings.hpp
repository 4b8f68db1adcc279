// config_readings.hpp: what a model config says about each scheme's parameters, read once.
//
// A view's --config/--preset and a tab's File > Open config both start here, so a config field
// means the same thing on the command line and in the window. Each reading is nullopt when the
// model does not use the scheme (the view then refuses with modelMismatch, the tab keeps its
// settings). What a reading leaves out (a field the file does not give) stays at the caller's own
// value. Fitting a value to a slider's range is the tab's business (fitConfigParam); the CLI
// checks the same range and refuses.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/cli/model_config.hpp"
#include "core/mrope.hpp"
#include "core/rope.hpp"

namespace posviz::cli {

// Sinusoidal PE (Vaswani et al. 2017): the width of any model, the length of a sinusoidal one.
struct SinusoidalReading {
  std::optional<int> dModel;              // hidden_size
  std::optional<long long> maxPositions;  // max_position_embeddings
  std::optional<SinusoidalLayout> layout; // a sinusoidal model's own layout (Marian: halves; M2M100: t2t)
};
// Any model with a hidden_size: a sinusoidal table of that width is what the model would have
// used had it been built the original way. maxPositions only when the model is sinusoidal.
std::optional<SinusoidalReading> readSinusoidalConfig(const ModelConfig& m);

// A learned absolute table (GPT-2, BERT): its width and its rows.
struct LearnedReading {
  std::optional<int> dModel;              // hidden_size / n_embd
  std::optional<long long> maxPositions;  // max_position_embeddings / n_positions
  int offsetRows = 0;                     // rows before position 0 (BART, OPT: 2; RoBERTa: padding_idx + 1)
  bool offsetRowsAdded = false;           // the table has maxPositions + offsetRows rows (BART, OPT), not maxPositions
};
std::optional<LearnedReading> readLearnedConfig(const ModelConfig& m);

// RoPE of one kind of layer. layerType: "full", "sliding", "chunked" or the config's own
// "full_attention"...; without it, the full-attention layers, or the only kind when every layer
// is alike (Mistral's all-sliding layers). Throws UsageError naming the model's layer kinds when
// the kind asked for is absent or uses no RoPE.
std::optional<RopeParams> readRopeConfig(const ModelConfig& m, const std::optional<std::string>& layerType = std::nullopt,
                                         const std::string& source = "the config");

// Multimodal RoPE (Qwen2-VL and after): the model's RoPE (ModelConfig::rope, readRopeConfig's
// default kind), its rotary pairs split in t/h/w sections.
struct MropeReading {
  RopeParams rope;
  std::vector<int> section;  // pairs per (t, h, w) as the file gives them (three, unless the file is wrong)
  bool interleaved = false;  // Qwen3.5: axes alternate pair by pair
  // get_rope_index's rule (none when the table has none or the family's own is not modelled:
  // then unmodelledRule), and the vision config's spatial merge and tokens per second (0: unset).
  std::optional<MropeIndexRule> rule;
  bool unmodelledRule = false;
  int spatialMerge = 0;
  double tokensPerSecond = 0.0;
};
std::optional<MropeReading> readMropeConfig(const ModelConfig& m);

// ALiBi (Press et al. 2022): the head count its slopes are made for.
struct AlibiReading {
  std::optional<int> heads;  // num_attention_heads / n_head
};
std::optional<AlibiReading> readAlibiConfig(const ModelConfig& m);

// T5's relative buckets (Raffel et al. 2020; HF modeling_t5.py): the bucket count, the distance
// past which every distance shares a bucket, and the heads of the bias table.
struct T5Reading {
  std::optional<int> numBuckets;   // relative_attention_num_buckets
  std::optional<int> maxDistance;  // relative_attention_max_distance
  std::optional<int> heads;        // num_heads
};
std::optional<T5Reading> readT5Config(const ModelConfig& m);

// "the config's layer kinds: full_attention (28 layers, RoPE), ..." (ropeOnly: RoPE kinds only).
std::string layerKindList(const ModelConfig& m, bool ropeOnly);

}  // namespace posviz::cli
