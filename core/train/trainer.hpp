// trainer.hpp: train a model on a task, live, and look at what it learned.
//
// USAGE
//   TrainConfig cfg;                                  // copy task, L = 16, rope, d_model 32, 2 layers
//   cfg.model.position.scheme = PositionScheme::Alibi;
//   cfg.steps = 2000;
//   Trainer run(cfg);                                 // weights initialised from cfg.seed
//   run.train(500, [](const StepReport& r) { draw(r.step, r.loss); return !stopRequested; });
//   run.train(cfg.steps);                             // resumes where it stopped: the same bytes
//                                                     // as one uninterrupted run
//   auto acc = run.evaluate({16, 32, 64, 128});       // accuracy against length (answer tokens)
//   AttentionMaps maps = run.attentionMaps(32);       // one example's attention, every head
//   Grid table = run.learnedTable();                  // learned: maxPositions x d_model
//   Grid bias = run.positionBias(0, 0, 64);           // alibi / t5 / fire / kerple: head 0's bias
//
// WHAT A STEP IS
//   Step s trains on trainingBatch(task, batchSize, dataSeed, s), dataSeed derived from seed: the
//   batch depends only on (seed, s), so a run stopped and resumed (or rebuilt from saved weights
//   and optimiser state) sees the same data. The learning rate follows optimizer.hpp's schedule
//   over `steps`. Every result is the same, bit for bit, whatever `threads` is (model.hpp).
//
// LENGTHS
//   The model is built for the task's longest training input, taskInputTokens(task, L) tokens:
//   the learned table's rows and RoPE scaling's original length. evaluate accepts any length the
//   task can express; a learned model asked for a longer input reports EvalStatus::NoRow and no
//   number. For RoPE models EvalOptions::scaling applies core/context_extension.hpp's scaling at
//   evaluation (originalMaxPositions is always the trained length; with factorFromLength the
//   factor is tokens / trained tokens, at least 1; seqLen is the evaluated length).
//
// DroPE
//   dropeAtStep >= 0 on a RoPE model: from that step on the rotation is gone (Model::dropRope) and
//   training goes on without positions, the optimiser and schedule continuing: train with RoPE
//   for most of the run and recalibrate for the rest (arXiv 2512.12167). dropRope() does it now.
//
// THREADS
//   A Trainer is used from one thread at a time; it runs its own work on up to `threads` threads
//   (0 = core's hardwareThreads()). The progress callback runs on the calling thread between
//   steps.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/grid.hpp"
#include "core/train/model.hpp"
#include "core/train/optimizer.hpp"
#include "core/train/tasks.hpp"

namespace posviz::train {

struct TrainConfig {
  TaskConfig task;
  ModelConfig model;          // vocabSize and maxPositions: 0 = from the task (others are refused)
  OptimConfig optim;
  int batchSize = 32;         // 1 .. 4096
  long long steps = 2000;     // the schedule's length, 1 .. 10^9
  std::uint64_t seed = 1;     // weights and data
  int threads = 0;
  int sequencesPerChunk = 4;  // the fixed split of a batch (model.hpp): part of the result
  long long dropeAtStep = -1;
};

// The config with vocabSize and maxPositions filled from the task; throws std::invalid_argument
// naming the field for anything out of range.
TrainConfig resolvedConfig(const TrainConfig& c);

struct StepReport {
  long long step = 0;       // steps done, this one included
  double loss = 0.0;        // the batch's mean answer-token loss before the update
  double learningRate = 0.0;
  double gradNorm = 0.0;    // before clipping
};
// Called after every step; return false to stop (the step is kept).
using ProgressFn = std::function<bool(const StepReport&)>;

enum class EvalStatus { Ok, NoRow };
const char* evalStatusName(EvalStatus s);  // "ok", "no row"

struct EvalOptions {
  int examples = 256;              // per length, 1 .. 100000
  std::uint64_t seed = 0x5eed;     // the evaluation set (the same for every run and scheme)
  RopeScaling scaling;             // rope models only
  bool factorFromLength = false;   // scaling.factor = max(1, tokens / trained tokens)
  int threads = -1;                // -1: the config's
};

struct LengthResult {
  int length = 0;                         // n
  int tokens = 0;                         // the input tokens at n
  EvalStatus status = EvalStatus::Ok;
  std::optional<double> accuracy;         // right answer tokens / answer tokens (Ok only)
  std::optional<double> sequenceAccuracy; // examples with every answer token right (Ok only)
  std::optional<double> loss;             // mean answer-token cross-entropy (Ok only)
};

struct AttentionMaps {
  EvalStatus status = EvalStatus::Ok;
  int length = 0, tokens = 0, layers = 0, heads = 0;
  std::vector<int> sequence;               // the input tokens
  std::vector<std::string> labels;         // tokenName of each
  int answerStart = 0;                     // the first input whose next token is an answer
  std::vector<Grid> maps;                  // [layer * heads + head], tokens x tokens, row = query
};

class Trainer {
 public:
  explicit Trainer(const TrainConfig& config);
  // A trainer around existing weights (loaded or copied), at step `step` with fresh optimiser moments.
  Trainer(const TrainConfig& config, const Model<float>& model, long long step);

  const TrainConfig& config() const { return config_; }
  const Model<float>& model() const { return model_; }
  Model<float>& model() { return model_; }
  long long step() const { return step_; }
  bool finished() const { return step_ >= config_.steps; }
  const std::vector<StepReport>& history() const { return history_; }
  // A saved run's history (weights.hpp): consecutive steps ending at step(). Throws
  // std::invalid_argument when the steps are not consecutive or do not end at step().
  void restoreHistory(std::vector<StepReport> history);
  const AdamW<float>& optimizer() const { return optimizer_; }
  AdamW<float>& optimizer() { return optimizer_; }

  // Up to maxSteps more steps (stopping at config().steps or when progress returns false);
  // returns the steps run.
  long long train(long long maxSteps, const ProgressFn& progress = {});
  void dropRope();

  std::vector<LengthResult> evaluate(const std::vector<int>& lengths, const EvalOptions& options = {});
  // The attention of example `example` of the evaluation set at length n.
  AttentionMaps attentionMaps(int length, int example = 0, const EvalOptions& options = {});
  // learned: the trained table, maxPositions x dModel. Throws std::invalid_argument otherwise.
  Grid learnedTable() const;
  // alibi, t5, fire, kerple: head `head`'s bias of layer `layer` (t5, alibi: every layer's),
  // numPositions x numPositions, -inf above the diagonal, from core's grid functions.
  Grid positionBias(int layer, int head, int numPositions) const;

 private:
  const PositionTables<float>& trainTables();
  PositionTables<float> evalTables(int tokens, const EvalOptions& o) const;
  int threads(const EvalOptions* o = nullptr) const;

  TrainConfig config_;
  Model<float> model_;
  AdamW<float> optimizer_;
  long long step_ = 0;
  std::vector<float> grad_;
  std::vector<StepReport> history_;
  std::optional<PositionTables<float>> tables_;
  std::uint64_t dataSeed_ = 0;
};

}  // namespace posviz::train
