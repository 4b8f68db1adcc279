// model_stacks.cpp: the parts of a model config that the table of model types decides beyond RoPE
// and ALiBi: learned and sinusoidal tables with their offset rows and layout, T5's relative
// buckets, encoder and decoder stacks, and the family a reading comes from.
#include <limits>

#include "app/cli/config_reader.hpp"
#include "app/cli/limits.hpp"
#include "app/cli/model_types.hpp"

namespace posviz::cli {

namespace {

using nlohmann::json;

constexpr long long kMaxRows = std::numeric_limits<long long>::max() / 2;

long long rowsOf(const Reader& r, const std::string& key, long long fallback) {
  if (key.empty()) return fallback;
  return r.integer(r.root(), key, key, 1, kMaxRows).value_or(fallback);
}

void readLearned(const Reader& r, const ModelTypeEntry& e, ModelConfig& c) {
  c.maxPositions = rowsOf(r, e.learnedRowsKey, c.maxPositions);
  if (c.maxPositions <= 0) {
    r.fail(e.learnedRowsKey.empty() ? "max_position_embeddings" : e.learnedRowsKey, "is missing (the learned table's number of rows)");
  }
  c.positionOffset = e.learnedOffset;
  if (e.learnedOffsetRule == "pad_token_id+1") {
    // RoBERTa's create_position_ids_from_input_ids: positions count from padding_idx + 1.
    const long long pad = r.integer(r.root(), "pad_token_id", "pad_token_id", 0, kMaxRows).value_or(1);
    c.positionOffset = static_cast<int>(std::min<long long>(pad + 1, std::numeric_limits<int>::max()));
    c.positionOffsetRule = "pad_token_id + 1";
  } else if (c.positionOffset > 0) {
    c.positionOffsetRule = "fixed by the family's code";
    c.offsetRowsAdded = e.learnedOffsetRowsAdded;
  }
  if (!c.offsetRowsAdded && c.positionOffset >= c.maxPositions) {
    r.fail(e.learnedRowsKey.empty() ? "max_position_embeddings" : e.learnedRowsKey,
           "is " + std::to_string(c.maxPositions) + ", which leaves no row past the " + std::to_string(c.positionOffset) +
               " offset rows");
  }
}

void readSinusoidal(const Reader& r, const ModelTypeEntry& e, ModelConfig& c) {
  c.maxPositions = rowsOf(r, e.sinusoidalRowsKey, c.maxPositions);
  c.positionOffset = e.sinusoidalOffset;
  if (c.positionOffset > 0) c.positionOffsetRule = "fixed by the family's code";
  c.offsetRowsAdded = e.sinusoidalOffsetRowsAdded;
  c.sinusoidalLayout = e.sinusoidalLayout.empty() ? "sin-first-half" : e.sinusoidalLayout;
  const bool t2t = e.sinusoidalSpacing == "t2t";
  if (t2t) c.sinusoidalLayout += ", t2t spacing";
  // Marian, Pegasus: the paper's frequencies in halves; fairseq (M2M100, XGLM) and Whisper:
  // tensor2tensor's timescales in halves; the paper's own table interleaved.
  if (e.sinusoidalLayout == "sin-first-half") c.sinusoidalCoreLayout = t2t ? SinusoidalLayout::Tensor2Tensor : SinusoidalLayout::Halves;
  if (e.sinusoidalLayout == "interleaved-sin-cos" && !t2t) c.sinusoidalCoreLayout = SinusoidalLayout::Interleaved;
  if (c.hiddenSize <= 0) r.fail("d_model", "is missing (a sinusoidal table needs its width: d_model or hidden_size)");
  if (c.hiddenSize % 2 != 0) r.fail("d_model", "must be even for sin/cos pairs, got " + std::to_string(c.hiddenSize));
}

void readBuckets(const Reader& r, const ModelTypeEntry& e, ModelConfig& c) {
  const std::string bk = e.bucketsKey.empty() ? "relative_attention_num_buckets" : e.bucketsKey;
  const std::string dk = e.maxDistanceKey.empty() ? "relative_attention_max_distance" : e.maxDistanceKey;
  const auto defaultOf = [&](const std::string& key, double fallback) { return e.defaultNumber(key).value_or(fallback); };
  c.relativeBuckets = static_cast<int>(r.integer(r.root(), bk, bk, 2, 1 << 20).value_or(static_cast<long long>(defaultOf(bk, 32))));
  c.relativeMaxDistance =
      static_cast<int>(r.integer(r.root(), dk, dk, 1, std::numeric_limits<int>::max()).value_or(static_cast<long long>(defaultOf(dk, 128))));
  if (c.numHeads <= 0) r.fail("num_heads", "is missing (T5's bias table has one column per head)");
}

// Wav2Vec2-BERT's relative_key: a table of left + right + 1 vectors of the head size, row
// clamp(j - i, -left, right) + left (Wav2Vec2BertSelfAttention).
void readRelativeKey(const Reader& r, const ModelTypeEntry& e, ModelConfig& c) {
  const auto side = [&](const char* key, double fallback) {
    return static_cast<int>(r.integer(r.root(), key, key, 0, 1 << 20).value_or(static_cast<long long>(e.defaultNumber(key).value_or(fallback))));
  };
  c.relativeKeyLeft = side("left_max_position_embeddings", 64);
  c.relativeKeyRight = side("right_max_position_embeddings", 8);
  if (c.numHeads <= 0 || c.hiddenSize <= 0 || c.hiddenSize % c.numHeads != 0) {
    r.fail("num_attention_heads", "must divide hidden_size (the distance vectors are one head wide), got " +
                                      std::to_string(c.numHeads) + " heads of hidden_size " + std::to_string(c.hiddenSize));
  }
  c.relativeKeyDim = c.hiddenSize / c.numHeads;
}

// The first of keys the file gives; else the first the family's configuration class defaults to;
// else fallback.
long long layersOf(const Reader& r, const ModelTypeEntry* e, std::initializer_list<const char*> keys, long long fallback) {
  for (const char* k : keys) {
    if (auto v = r.integer(r.root(), k, k, 0, cli::kMaxLayers)) return *v;
  }
  for (const char* k : keys) {
    if (auto v = e != nullptr ? e->defaultNumber(k) : std::nullopt) return static_cast<long long>(*v);
  }
  return fallback;
}

LayerScheme layerSchemeOf(ModelEncoding e) {
  switch (e) {
    case ModelEncoding::Rope: return LayerScheme::Rope;
    case ModelEncoding::Alibi: return LayerScheme::Alibi;
    case ModelEncoding::Learned: return LayerScheme::Learned;
    case ModelEncoding::Sinusoidal: return LayerScheme::Sinusoidal;
    case ModelEncoding::RelativeBuckets: return LayerScheme::RelativeBuckets;
    case ModelEncoding::RelativeKey: return LayerScheme::RelativeKey;
    case ModelEncoding::None: return LayerScheme::None;
  }
  return LayerScheme::None;
}

}  // namespace

void readTableDetails(const Reader& r, const ModelTypeEntry* e, ModelConfig& c) {
  static const ModelTypeEntry kNone;
  const ModelTypeEntry& entry = e != nullptr ? *e : kNone;
  switch (c.encoding) {
    case ModelEncoding::Learned: readLearned(r, entry, c); break;
    case ModelEncoding::Sinusoidal: readSinusoidal(r, entry, c); break;
    case ModelEncoding::RelativeBuckets: readBuckets(r, entry, c); break;
    case ModelEncoding::RelativeKey: readRelativeKey(r, entry, c); break;
    case ModelEncoding::Rope:
    case ModelEncoding::Alibi:
    case ModelEncoding::None: break;
  }
}

bool readEncoderDecoder(const Reader& r, const ModelTypeEntry* e, ModelConfig& c) {
  const bool flagged = r.boolean(r.root(), "is_encoder_decoder", "is_encoder_decoder").value_or(false);
  if (!(e != nullptr && e->stack == "encoder-decoder") && !flagged) return false;
  // T5: num_layers / num_decoder_layers (default num_layers); BART family: encoder_layers / decoder_layers.
  const long long enc = layersOf(r, e, {"encoder_layers", "num_layers"}, 0);
  const long long dec = layersOf(r, nullptr, {"decoder_layers", "num_decoder_layers"}, enc);  // T5: num_layers when absent
  const LayerScheme s = layerSchemeOf(c.encoding);
  // Whisper's encoder: a frozen sinusoidal table of its own length beside the decoder's learned one.
  const bool ownEncoder = e != nullptr && e->encoderScheme == "sinusoidal";
  if (ownEncoder) {
    const long long rows = rowsOf(r, e->encoderRowsKey, 0);
    c.extras.push_back("encoder positions: a frozen sinusoidal table of " + std::to_string(rows) + " rows (" + e->encoderRowsKey +
                       "), " + e->encoderLayout + (e->encoderSpacing == "t2t" ? ", t2t spacing" : "") + ", added to the encoder's input");
  }
  c.layerKinds.clear();
  for (const auto& [name, n] : {std::pair<const char*, long long>{"encoder", enc}, {"decoder", dec}}) {
    LayerKind k;
    k.attention = name;
    k.scheme = ownEncoder && std::string(name) == "encoder" ? LayerScheme::Sinusoidal : s;
    for (int i = 0; i < n; ++i) k.layers.push_back(i);
    c.layerKinds.push_back(std::move(k));
  }
  c.numLayers = static_cast<int>(enc + dec);
  return true;
}

void noteFamily(const Reader& r, const ModelTypeEntry* e, const std::string& alias, ModelConfig& c) {
  if (e == nullptr) return;
  c.family = e->modelType + ": " + (e->origin == "remote-code" ? "remote code " + e->modeling
                                                                : e->modeling + " in " + modelTypeTableSource());
  // An alias names remote code transformers took in under another name: its positional code is
  // the same, its key spellings (StableLMEpoch's rope_pct) may not be, so no key is called unread.
  if (!alias.empty()) {
    c.family = c.modelType + ", the remote code transformers took in as " + c.family;
    return;
  }
  if (e->reads.empty()) return;
  for (const std::string& key : positionalKeys()) {
    if (r.find(r.root(), key) != nullptr && !e->readsKey(key)) c.unreadKeys.push_back(key);
  }
}

}  // namespace posviz::cli
