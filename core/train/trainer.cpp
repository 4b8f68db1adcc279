#include "core/train/trainer.hpp"

#include <algorithm>
#include <string>

#include "core/alibi.hpp"
#include "core/check.hpp"
#include "core/parallel.hpp"

namespace posviz::train {

namespace {

constexpr int kEvalBatch = 32;  // examples per forward pass at evaluation (bounds the memory)

void requireRange(const char* fn, const char* field, long long v, long long lo, long long hi) {
  if (v < lo || v > hi)
    failArgument(fn, std::string(field) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + std::to_string(v));
}

Grid tensorGrid(const Model<float>& m, const std::string& name) {
  const TensorInfo& t = m.tensor(name);
  Grid g(t.shape[0], t.shape.size() > 1 ? t.shape[1] : 1);
  std::copy_n(m.parameters().begin() + static_cast<std::ptrdiff_t>(t.offset), t.size, g.values.begin());
  return g;
}

}  // namespace

TrainConfig resolvedConfig(const TrainConfig& c) {
  static constexpr const char* kFn = "TrainConfig";
  validateTaskConfig(kFn, c.task);
  TrainConfig r = c;
  const int vocab = taskVocabSize(c.task), tokens = taskInputTokens(c.task, c.task.trainLength);
  if (r.model.vocabSize == 0) r.model.vocabSize = vocab;
  if (r.model.maxPositions == 0) r.model.maxPositions = tokens;
  if (r.model.vocabSize != vocab)
    failArgument(kFn, "vocabSize " + std::to_string(r.model.vocabSize) + " does not match the task's " + std::to_string(vocab));
  if (r.model.maxPositions != tokens)
    failArgument(kFn, "maxPositions " + std::to_string(r.model.maxPositions) + " does not match the task's " + std::to_string(tokens));
  validateModelConfig(kFn, r.model);
  validateOptimConfig(kFn, r.optim);
  requireRange(kFn, "batchSize", r.batchSize, 1, 4096);
  requireRange(kFn, "steps", r.steps, 1, 1000000000);
  requireRange(kFn, "threads", r.threads, 0, 1024);
  requireRange(kFn, "sequencesPerChunk", r.sequencesPerChunk, 1, 1024);
  requireRange(kFn, "dropeAtStep", r.dropeAtStep, -1, r.steps);
  if (r.dropeAtStep >= 0 && r.model.position.scheme != PositionScheme::Rope) failArgument(kFn, "dropeAtStep needs a rope model");
  return r;
}

const char* evalStatusName(EvalStatus s) { return s == EvalStatus::Ok ? "ok" : "no row"; }

Trainer::Trainer(const TrainConfig& config)
    : config_(resolvedConfig(config)), model_(config_.model, config_.sequencesPerChunk), optimizer_(model_.parameters().size()) {
  model_.initialize(deriveSeed(config_.seed, 1));
  dataSeed_ = deriveSeed(config_.seed, 2);
  grad_.assign(model_.parameters().size(), 0.0f);
}

Trainer::Trainer(const TrainConfig& config, const Model<float>& model, long long step)
    : config_(resolvedConfig(config)), model_(model), optimizer_(model.parameters().size()), step_(step) {
  const std::vector<TensorInfo> expected = modelTensors(config_.model);
  bool same = expected.size() == model.tensors().size() && model.config().position.dropped == config_.model.position.dropped;
  for (std::size_t i = 0; same && i < expected.size(); ++i)
    same = expected[i].name == model.tensors()[i].name && expected[i].shape == model.tensors()[i].shape;
  if (!same) failArgument("Trainer", "the model's tensors do not match the config");
  requireRange("Trainer", "step", step, 0, config_.steps);
  dataSeed_ = deriveSeed(config_.seed, 2);
  grad_.assign(model_.parameters().size(), 0.0f);
}

int Trainer::threads(const EvalOptions* o) const {
  const int t = o && o->threads >= 0 ? o->threads : config_.threads;
  return t > 0 ? t : hardwareThreads();
}

const PositionTables<float>& Trainer::trainTables() {
  if (!tables_) tables_ = positionTables<float>(model_.config(), model_.config().maxPositions);
  return *tables_;
}

long long Trainer::train(long long maxSteps, const ProgressFn& progress) {
  long long done = 0;
  while (done < maxSteps && step_ < config_.steps) {
    if (step_ == config_.dropeAtStep && !model_.config().position.dropped) dropRope();
    const Batch b = trainingBatch(config_.task, config_.batchSize, dataSeed_, step_);
    const double loss = model_.lossAndGradient(b, trainTables(), grad_, threads());
    StepReport r;
    r.step = step_ + 1;
    r.loss = loss;
    r.learningRate = learningRateAt(config_.optim, step_, config_.steps);
    r.gradNorm = optimizer_.update(config_.optim, step_, config_.steps, model_.tensors(), model_.parameters(), grad_);
    model_.clampParameters();
    ++step_;
    ++done;
    history_.push_back(r);
    if (progress && !progress(r)) break;
  }
  return done;
}

void Trainer::dropRope() {
  model_.dropRope();
  config_.model.position.dropped = true;
  tables_.reset();
}

PositionTables<float> Trainer::evalTables(int tokens, const EvalOptions& o) const {
  RopeScaling s = o.scaling;
  const ModelConfig& c = model_.config();
  if (c.position.scheme == PositionScheme::Rope && !c.position.dropped) {
    s.originalMaxPositions = c.maxPositions;
    s.seqLen = tokens;
    if (o.factorFromLength) s.factor = std::max(1.0, static_cast<double>(tokens) / c.maxPositions);
  } else {
    s = RopeScaling{};
  }
  return positionTables<float>(c, tokens, s);
}

std::vector<LengthResult> Trainer::evaluate(const std::vector<int>& lengths, const EvalOptions& o) {
  static constexpr const char* kFn = "Trainer::evaluate";
  requireRange(kFn, "examples", o.examples, 1, 100000);
  std::vector<LengthResult> out;
  for (int n : lengths) {
    requireRange(kFn, "length", n, 1, taskMaxLength(config_.task));
    LengthResult r;
    r.length = n;
    r.tokens = taskInputTokens(config_.task, n);
    if (model_.config().position.scheme == PositionScheme::Learned && r.tokens > model_.config().maxPositions) {
      r.status = EvalStatus::NoRow;
      out.push_back(r);
      continue;
    }
    const PositionTables<float> pos = evalTables(r.tokens, o);
    EvalCounts total;
    for (int first = 0; first < o.examples; first += kEvalBatch) {
      const Batch b = evaluationBatch(config_.task, n, std::min(kEvalBatch, o.examples - first), o.seed, first);
      const EvalCounts k = model_.evaluate(b, pos, threads(&o));
      total.lossSum += k.lossSum;
      total.answers += k.answers;
      total.correct += k.correct;
      total.sequences += k.sequences;
      total.sequencesCorrect += k.sequencesCorrect;
    }
    r.accuracy = static_cast<double>(total.correct) / static_cast<double>(total.answers);
    r.sequenceAccuracy = static_cast<double>(total.sequencesCorrect) / static_cast<double>(total.sequences);
    r.loss = total.lossSum / static_cast<double>(total.answers);
    out.push_back(r);
  }
  return out;
}

AttentionMaps Trainer::attentionMaps(int length, int example, const EvalOptions& o) {
  static constexpr const char* kFn = "Trainer::attentionMaps";
  requireRange(kFn, "length", length, 1, taskMaxLength(config_.task));
  requireRange(kFn, "example", example, 0, 1000000);
  const ModelConfig& c = model_.config();
  AttentionMaps m;
  m.length = length;
  m.tokens = taskInputTokens(config_.task, length);
  m.layers = c.numLayers;
  m.heads = c.numHeads;
  const Batch b = evaluationBatch(config_.task, length, 1, o.seed, example);
  m.sequence.assign(b.inputs.begin(), b.inputs.end());
  for (int t : m.sequence) m.labels.push_back(tokenName(config_.task, t));
  m.answerStart = static_cast<int>(std::find(b.mask.begin(), b.mask.end(), 1) - b.mask.begin());
  if (c.position.scheme == PositionScheme::Learned && m.tokens > c.maxPositions) {
    m.status = EvalStatus::NoRow;
    return m;
  }
  const std::vector<float> probs = model_.attention(b, evalTables(m.tokens, o));
  const std::size_t per = static_cast<std::size_t>(m.tokens) * static_cast<std::size_t>(m.tokens);
  for (int i = 0; i < m.layers * m.heads; ++i) {
    Grid g(m.tokens, m.tokens);
    std::copy_n(probs.begin() + static_cast<std::ptrdiff_t>(per * static_cast<std::size_t>(i)), per, g.values.begin());
    m.maps.push_back(std::move(g));
  }
  return m;
}

void Trainer::restoreHistory(std::vector<StepReport> history) {
  for (std::size_t i = 1; i < history.size(); ++i) {
    if (history[i].step != history[i - 1].step + 1)
      failArgument("Trainer::restoreHistory", "steps must follow each other: step " + std::to_string(history[i - 1].step) +
                                                  " is followed by " + std::to_string(history[i].step));
  }
  if (!history.empty() && (history.front().step < 1 || history.back().step != step_)) {
    failArgument("Trainer::restoreHistory", "the history must run from step 1 or later to the run's step " + std::to_string(step_) +
                                                ", got steps " + std::to_string(history.front().step) + ".." +
                                                std::to_string(history.back().step));
  }
  history_ = std::move(history);
}

Grid Trainer::learnedTable() const {
  if (model_.config().position.scheme != PositionScheme::Learned) failArgument("Trainer::learnedTable", "the model has no learned table");
  return tensorGrid(model_, "pos_emb.weight");
}

Grid Trainer::positionBias(int layer, int head, int numPositions) const {
  static constexpr const char* kFn = "Trainer::positionBias";
  const ModelConfig& c = model_.config();
  requireRange(kFn, "layer", layer, 0, c.numLayers - 1);
  requireRange(kFn, "head", head, 0, c.numHeads - 1);
  requireRange(kFn, "numPositions", numPositions, 1, 65536);
  const std::string p = "layers." + std::to_string(layer) + ".";
  const std::vector<float>& w = model_.parameters();
  const auto h = static_cast<std::size_t>(head);
  switch (c.position.scheme) {
    case PositionScheme::Alibi: return alibiBiasGrid(alibiSlopes(c.numHeads)[h], numPositions, true);
    case PositionScheme::T5: return t5BiasGrid(c.position.t5, tensorGrid(model_, "t5_bias.weight"), head, numPositions);
    case PositionScheme::Kerple: {
      const KerpleParams kp{c.position.kerpleKernel, w[model_.tensor(p + "kerple.r1").offset + h], w[model_.tensor(p + "kerple.r2").offset + h]};
      return kerpleBiasGrid(kp, numPositions, true);
    }
    case PositionScheme::Fire: {
      FireMlp f;
      const auto hidden = static_cast<std::size_t>(c.position.fireHidden);
      for (std::size_t k = 0; k < hidden; ++k) {
        f.w1.push_back(w[model_.tensor(p + "fire.w1").offset + h * hidden + k]);
        f.b1.push_back(w[model_.tensor(p + "fire.b1").offset + h * hidden + k]);
        f.w2.push_back(w[model_.tensor(p + "fire.w2").offset + h * hidden + k]);
      }
      f.b2 = w[model_.tensor(p + "fire.b2").offset + h];
      return fireBiasGrid(c.position.fire, f, numPositions);
    }
    default: failArgument(kFn, std::string("a ") + positionSchemeName(c.position.scheme) + " model has no position bias");
  }
}

}  // namespace posviz::train
