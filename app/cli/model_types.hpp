// model_types.hpp: what each model family's own code does with positions, one entry per
// model_type, read from assets/model_types.json (compiled in).
//
// The table is derived from a pinned snapshot of Hugging Face transformers' configuration and
// modeling files by scripts/model_types/derive.py (which also checks a table against a snapshot),
// plus the remote-code families of scripts/model_types/remote_code.json (Qwen v1, Baichuan,
// InternLM, ChatGLM / GLM, MiniCPM, DeepSeek's own code). Each entry names the files and functions
// its rules come from, so `posviz model` can say where an answer comes from.
//
// The config reader (model_config.cpp) asks the table for a family's scheme, pairing layout,
// defaults and the positional keys its code reads; a model_type the table lacks is read by
// generic rules and labelled a guess.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace posviz::cli {

struct ModelTypeEvidence {
  std::string rule;      // "scheme", "pairing", "rope_init", "learned", "sinusoidal", "relative", "layer_kinds", "defaults"
  std::string file;      // "models/llama/modeling_llama.py", or "owner/repo@commit:path" for remote code
  std::string function;  // "rotate_half", "LlamaRotaryEmbedding", ...
  int line = 0;          // 0 when not recorded
};

struct ModelTypeEntry {
  std::string modelType;
  std::string origin;      // "transformers" or "remote-code"
  std::string config;      // "models/llama/configuration_llama.py:LlamaConfig"
  std::string modeling;    // "models/llama/modeling_llama.py"
  std::string stack;       // "decoder", "encoder", "encoder-decoder", "multimodal", "vision", "audio", "other"
  std::string textConfig;  // multimodal wrappers: the default text sub-config's model_type
  std::string scheme;      // "rope", "alibi", "learned", "sinusoidal", "relative-buckets", "relative-key", "none", "other"
  // A config key that switches the scheme: key -> (value as JSON text -> scheme).
  std::map<std::string, std::map<std::string, std::string>> schemeByKey;
  std::string layout;      // rope: "half-split" or "interleaved"
  std::string ropeInit;    // rope: "rope_utils" or "own"
  std::string learnedRowsKey;
  int learnedOffset = 0;            // rows before position 0 (BART, OPT: 2)
  std::string learnedOffsetRule;    // "fixed" or "pad_token_id+1" (RoBERTa)
  bool learnedOffsetRowsAdded = false;     // the table has rows_key + offset rows (BART, OPT), not rows_key (RoBERTa)
  std::string sinusoidalRowsKey;
  std::string sinusoidalLayout;     // "sin-first-half", "cos-first-half", "interleaved-sin-cos"
  int sinusoidalOffset = 0;
  bool sinusoidalOffsetRowsAdded = false;  // fairseq's make_weights(num_positions + offset)
  std::string sinusoidalSpacing;    // "paper" (base^(-2i/d)) or "t2t" (log step over half - 1: fairseq, Whisper)
  std::string bucketsKey, maxDistanceKey;  // relative-buckets
  // Encoder-decoder models whose encoder uses another scheme than the text decoder (Whisper: a
  // frozen sinusoidal table of max_source_positions rows): "" when both stacks share one.
  std::string encoderScheme, encoderRowsKey, encoderLayout, encoderSpacing;
  std::string layerKindsKey;               // "layer_types", "attn_layer_period", ...
  std::map<std::string, std::string> layerKindValues;  // layer type -> "attention" or "none"
  std::string layerKindsRule;
  std::map<std::string, double> defaultNumbers;  // the configuration class's numeric defaults; a nested object's as "key.sub"
  // M-RoPE: how the family's get_rope_index gives vision tokens time ids ("steps", "seconds",
  // "frames", or "own" for rules posviz does not model), and its vision config class's defaults.
  std::string mropeIndex;
  // Vision towers with a 2-D RoPE over image patches: "pixtral" (drawn by axial-angles
  // --image-scheme pixtral), or "own" for kinds posviz does not draw; "" for 1-D RoPE.
  std::string rope2d;
  // The family's own compute_default_rope_parameters rotates the whole head, whatever
  // partial_rotary_factor says (Llama, Mistral, Qwen2/3, Gemma, Bamba, ...).
  bool defaultRopeIgnoresPrf = false;
  int visionSpatialMerge = 0;          // 0: not set by the class
  double visionTokensPerSecond = 0.0;  // 0: not set by the class
  std::vector<std::string> reads;   // positional keys the family's code reads, sorted
  std::vector<ModelTypeEvidence> evidence;
  std::string note;

  // The default the configuration class gives `key` ("rope_theta", "rope_theta.local"), when a number.
  std::optional<double> defaultNumber(const std::string& key) const;
  bool readsKey(const std::string& key) const;
};

struct ModelTypeTableInfo {
  std::string repository, commit, date, version;
  std::size_t count = 0;
};

// nullptr when the table has no such model_type (compared lowercased).
const ModelTypeEntry* findModelType(std::string_view modelType);
const ModelTypeTableInfo& modelTypeTableInfo();
std::vector<const ModelTypeEntry*> allModelTypes();  // sorted by model_type

// "transformers 5.0.0.dev0 (d6a6c826)": where the table comes from, for messages.
std::string modelTypeTableSource();

// Keys of a config.json that change what a model does with positions, in any family: a file that
// gives one its family's code never reads is told so.
const std::vector<std::string>& positionalKeys();

}  // namespace posviz::cli
