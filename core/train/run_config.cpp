// config.json of a saved run (weights.hpp): written field by field, read back with the same names.
#include <string>

#include "core/train/json.hpp"
#include "core/train/weights.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::train {

namespace {

class ObjectWriter {
 public:
  explicit ObjectWriter(int indent) : indent_(indent) {}
  ObjectWriter& raw(const std::string& key, const std::string& value) {
    text_ += (first_ ? "" : ",") + std::string("\n") + std::string(static_cast<std::size_t>(indent_ + 2), ' ') + jsonQuote(key) + ": " + value;
    first_ = false;
    return *this;
  }
  ObjectWriter& num(const std::string& key, double v) { return raw(key, jsonNumberText(v)); }
  ObjectWriter& str(const std::string& key, const std::string& v) { return raw(key, jsonQuote(v)); }
  ObjectWriter& flag(const std::string& key, bool v) { return raw(key, v ? "true" : "false"); }
  std::string done() const { return "{" + text_ + "\n" + std::string(static_cast<std::size_t>(indent_), ' ') + "}"; }

 private:
  int indent_;
  bool first_ = true;
  std::string text_;
};

std::string positionJson(const PositionConfig& p) {
  ObjectWriter w(4);
  w.str("scheme", positionSchemeName(p.scheme))
      .num("sinusoidal_base", p.sinusoidalBase)
      .num("learned_init_std", p.learnedInitStd)
      .num("rope_base", p.ropeBase)
      .str("rope_layout", ropeLayoutName(p.ropeLayout))
      .num("rotary_fraction", p.rotaryFraction)
      .flag("dropped", p.dropped)
      .num("xpos_scale_base", p.xposScaleBase)
      .num("t5_num_buckets", p.t5.numBuckets)
      .num("t5_max_distance", p.t5.maxDistance)
      .num("t5_init_std", p.t5InitStd)
      .num("fire_c", p.fire.c)
      .num("fire_threshold", p.fire.threshold)
      .num("fire_hidden", p.fireHidden)
      .str("kerple_kernel", kerpleKernelName(p.kerpleKernel))
      .num("kerple_init_r1", p.kerpleInitR1)
      .num("kerple_init_r2", p.kerpleInitR2);
  return w.done();
}

std::string architectureJson(const ModelConfig& m) {
  ObjectWriter w(2);
  w.num("vocab_size", m.vocabSize)
      .num("max_positions", m.maxPositions)
      .num("d_model", m.dModel)
      .num("num_layers", m.numLayers)
      .num("num_heads", m.numHeads)
      .num("head_dim", m.headDim())
      .flag("mlp", m.mlp)
      .num("mlp_hidden", m.hidden())
      .str("activation", activationName(m.activation))
      .num("layer_norm_eps", 1e-5)
      .str("weight_layout", "[in, out]: y = x W")
      .str("norm", "pre-LayerNorm, final LayerNorm before the head")
      .num("token_init_std", m.tokenInitStd)
      .raw("position", positionJson(m.position));
  return w.done();
}

std::string trainingJson(const TrainConfig& c, long long step) {
  ObjectWriter w(2);
  w.num("step", static_cast<double>(step))
      .num("steps", static_cast<double>(c.steps))
      .num("batch_size", c.batchSize)
      .str("seed", std::to_string(c.seed))
      .num("sequences_per_chunk", c.sequencesPerChunk)
      .num("drope_at_step", static_cast<double>(c.dropeAtStep))
      .num("learning_rate", c.optim.learningRate)
      .num("min_learning_rate_ratio", c.optim.minLearningRateRatio)
      .num("warmup_steps", c.optim.warmupSteps)
      .num("beta1", c.optim.beta1)
      .num("beta2", c.optim.beta2)
      .num("eps", c.optim.eps)
      .num("weight_decay", c.optim.weightDecay)
      .num("clip_norm", c.optim.clipNorm);
  return w.done();
}

PositionConfig readPosition(const JsonValue& v, const std::string& what) {
  auto num = [&](const char* k) { return jsonNumber(jsonMember(v, k, what), what + " " + k); };
  auto integer = [&](const char* k, long long hi) { return static_cast<int>(jsonInteger(jsonMember(v, k, what), what + " " + k, 0, hi)); };
  auto str = [&](const char* k) { return jsonString(jsonMember(v, k, what), what + " " + k); };
  PositionConfig p;
  const auto scheme = parsePositionScheme(str("scheme"));
  if (!scheme) throw JsonError(what + " scheme " + quotedText(str("scheme")) + " is not one of posviz's");
  p.scheme = *scheme;
  p.sinusoidalBase = num("sinusoidal_base");
  p.learnedInitStd = num("learned_init_std");
  p.ropeBase = num("rope_base");
  const auto layout = parseRopeLayoutName(str("rope_layout"));
  if (!layout) throw JsonError(what + " rope_layout must be half-split or interleaved");
  p.ropeLayout = *layout;
  p.rotaryFraction = num("rotary_fraction");
  p.dropped = jsonBool(jsonMember(v, "dropped", what), what + " dropped");
  p.xposScaleBase = num("xpos_scale_base");
  p.t5 = T5BucketParams{integer("t5_num_buckets", 1 << 20), integer("t5_max_distance", 1 << 30), false};
  p.t5InitStd = num("t5_init_std");
  p.fire = FireParams{num("fire_c"), num("fire_threshold")};
  p.fireHidden = integer("fire_hidden", 1 << 20);
  const std::string kernel = str("kerple_kernel");
  if (kernel != "log" && kernel != "power") throw JsonError(what + " kerple_kernel must be log or power");
  p.kerpleKernel = kernel == "log" ? KerpleKernel::Log : KerpleKernel::Power;
  p.kerpleInitR1 = num("kerple_init_r1");
  p.kerpleInitR2 = num("kerple_init_r2");
  return p;
}

ModelConfig readArchitecture(const JsonValue& v, const std::string& what) {
  auto integer = [&](const char* k) { return static_cast<int>(jsonInteger(jsonMember(v, k, what), what + " " + k, 0, 1 << 20)); };
  ModelConfig m;
  m.vocabSize = integer("vocab_size");
  m.maxPositions = integer("max_positions");
  m.dModel = integer("d_model");
  m.numLayers = integer("num_layers");
  m.numHeads = integer("num_heads");
  m.mlp = jsonBool(jsonMember(v, "mlp", what), what + " mlp");
  m.mlpHidden = integer("mlp_hidden");
  const auto act = parseActivation(jsonString(jsonMember(v, "activation", what), what + " activation"));
  if (!act) throw JsonError(what + " activation must be gelu or relu");
  m.activation = *act;
  m.tokenInitStd = jsonNumber(jsonMember(v, "token_init_std", what), what + " token_init_std");
  m.position = readPosition(jsonMember(v, "position", what), what + " position");
  return m;
}

TaskConfig readTask(const JsonValue& v, const std::string& what) {
  auto integer = [&](const char* k) { return static_cast<int>(jsonInteger(jsonMember(v, k, what), what + " " + k, 0, 1 << 20)); };
  TaskConfig t;
  const std::string kind = jsonString(jsonMember(v, "kind", what), what + " kind");
  const auto k = parseTaskName(kind);
  if (!k) throw JsonError(what + " kind \"" + kind + "\" is not a task");
  t.kind = *k;
  t.trainLength = integer("train_length");
  t.minTrainLength = integer("min_train_length");
  t.numSymbols = integer("num_symbols");
  t.numKeys = integer("num_keys");
  return t;
}

void readTraining(const JsonValue& v, const std::string& what, RunConfig& r) {
  auto num = [&](const char* k) { return jsonNumber(jsonMember(v, k, what), what + " " + k); };
  auto integer = [&](const char* k, long long lo, long long hi) { return jsonInteger(jsonMember(v, k, what), what + " " + k, lo, hi); };
  TrainConfig& c = r.config;
  r.step = integer("step", 0, 1000000000);
  c.steps = integer("steps", 1, 1000000000);
  c.batchSize = static_cast<int>(integer("batch_size", 1, 4096));
  const std::string seed = jsonString(jsonMember(v, "seed", what), what + " seed");
  std::size_t used = 0;
  try {
    c.seed = std::stoull(seed, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != seed.size() || seed[0] == '-') throw JsonError(what + " seed must be a decimal string, got \"" + seed + "\"");
  c.sequencesPerChunk = static_cast<int>(integer("sequences_per_chunk", 1, 1024));
  c.dropeAtStep = integer("drope_at_step", -1, 1000000000);
  c.optim.learningRate = num("learning_rate");
  c.optim.minLearningRateRatio = num("min_learning_rate_ratio");
  c.optim.warmupSteps = static_cast<int>(integer("warmup_steps", 0, 1000000000));
  c.optim.beta1 = num("beta1");
  c.optim.beta2 = num("beta2");
  c.optim.eps = num("eps");
  c.optim.weightDecay = num("weight_decay");
  c.optim.clipNorm = num("clip_norm");
}

}  // namespace

std::string runConfigJson(const TrainConfig& c, long long step) {
  ObjectWriter task(2);
  task.str("kind", taskName(c.task.kind))
      .num("train_length", c.task.trainLength)
      .num("min_train_length", c.task.minTrainLength)
      .num("num_symbols", c.task.numSymbols)
      .num("num_keys", c.task.numKeys);
  std::string tensors = "[";
  const std::vector<TensorInfo> list = modelTensors(c.model);
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string shape;
    for (std::size_t d = 0; d < list[i].shape.size(); ++d) shape += (d ? ", " : "") + std::to_string(list[i].shape[d]);
    tensors += std::string(i ? "," : "") + "\n    {\"name\": " + jsonQuote(list[i].name) + ", \"shape\": [" + shape + "]}";
  }
  tensors += "\n  ]";
  ObjectWriter top(0);
  top.str("format", "posviz-train")
      .num("version", 1)
      .raw("architecture", architectureJson(c.model))
      .raw("task", task.done())
      .raw("training", trainingJson(c, step))
      .raw("tensors", tensors);
  return top.done() + "\n";
}

RunConfig parseRunConfigJson(std::string_view text, const std::string& what) {
  try {
    const JsonValue v = parseJson(text);
    if (jsonString(jsonMember(v, "format", what), what + " format") != "posviz-train") throw JsonError(what + " is not a posviz-train config");
    if (jsonInteger(jsonMember(v, "version", what), what + " version", 0, 1000) != 1) throw JsonError(what + " has a version other than 1");
    RunConfig r;
    r.config.model = readArchitecture(jsonMember(v, "architecture", what), what + " architecture");
    r.config.task = readTask(jsonMember(v, "task", what), what + " task");
    readTraining(jsonMember(v, "training", what), what + " training", r);
    return r;
  } catch (const JsonError& e) {
    const std::string msg = e.what();
    throw WeightsError(msg.rfind(what, 0) == 0 ? msg : what + ": " + msg);
  }
}

}  // namespace posviz::train
