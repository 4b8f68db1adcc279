// model.hpp: the transformer of config.hpp, its parameters, and its forward and backward passes
// written out by hand, in float (training) or double (gradient checks).
//
// PARAMETERS
//   One flat array, tensor after tensor in modelTensors' order; each TensorInfo gives its plain
//   name (the safetensors name), shape, offset and size. Matrices are [in, out]: y = x W.
//     tok_emb.weight [V, D]           pos_emb.weight [maxPositions, D]   (learned)
//     t5_bias.weight [buckets, H]     (t5, shared by the layers)
//     layers.{l}.ln1.weight [D], .ln1.bias [D]
//     layers.{l}.attn.q.weight, .attn.k.weight, .attn.v.weight, .attn.o.weight [D, D]
//     layers.{l}.ln2.weight [D], .ln2.bias [D], .mlp.fc1.weight [D, F], .mlp.fc1.bias [F],
//       .mlp.fc2.weight [F, D], .mlp.fc2.bias [D]                          (mlp)
//     layers.{l}.fire.w1, .fire.b1, .fire.w2 [H, hidden], .fire.b2 [H]     (fire: f_h(x) =
//       b2[h] + sum_k w2[h,k] relu(w1[h,k] x + b1[h,k]), core/fire.hpp's FireMlp per head)
//     layers.{l}.kerple.r1 [H], .kerple.r2 [H]                             (kerple)
//     ln_f.weight [D], ln_f.bias [D], head.weight [D, V]
//   head.weight and the attention and MLP matrices are "decayed" (AdamW's weight decay applies).
//
// INITIALISATION (initialize(seed), each tensor from its own seed stream)
//   tok_emb N(0, tokenInitStd^2); matrices N(0, 1/fan_in), attn.o and fc2 further divided by
//   sqrt(2 numLayers); biases 0, LayerNorm weights 1; pos_emb core's learnedInit (learnedInitStd);
//   t5 core's t5BiasTable (t5InitStd); fire core's fireSeededMlp; kerple r1, r2 their init values.
//
// PASSES
//   lossAndGradient: the mean cross-entropy over a batch's answer tokens (Batch::mask), and its
//   gradient with respect to every parameter. The batch is cut into chunks of
//   sequencesPerChunk sequences (batchChunks: sorted by real length, each chunk cut after its
//   longest sequence's last answer token, so padding costs nothing); chunks run on up to
//   `threads` threads, each into its own gradient buffer, and the buffers are summed in chunk
//   order: the result's bits depend on the batch and sequencesPerChunk, never on the thread count.
//   evaluate: forward only; counts of right answer tokens and of wholly right sequences.
//   attention: the softmax probabilities of every layer and head for a batch's first sequence.
//   The PositionTables must come from positionTables(config(), n) with n >= the batch length.
//
// ERRORS
//   std::invalid_argument: a config validateModelConfig refuses, a token outside the vocabulary,
//   a batch longer than its position tables or than a learned table's rows, a gradient span of
//   the wrong size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/train/config.hpp"
#include "core/train/positions.hpp"
#include "core/train/tasks.hpp"

namespace posviz::train {

struct TensorInfo {
  std::string name;
  std::vector<int> shape;
  std::size_t offset = 0;
  std::size_t size = 0;
  bool decay = false;
};

// The parameter tensors of a model, in storage order. Throws like validateModelConfig.
std::vector<TensorInfo> modelTensors(const ModelConfig& c);

struct EvalCounts {
  double lossSum = 0.0;       // summed cross-entropy of the answer tokens
  long long answers = 0;      // answer tokens
  long long correct = 0;      // answer tokens whose argmax was the target
  long long sequences = 0;
  long long sequencesCorrect = 0;  // sequences with every answer token right
};

template <class T>
struct ModelWorkspace;  // per-chunk activations and gradients (model.cpp)

// Sequence seq's real length: its last answer token's position + 1 (at least 1). Causal
// attention means nothing after that position changes the loss or the answers.
int realLength(const Batch& b, int seq);

// One chunk of a batch: which sequences (batch rows), and how many positions of each it runs.
struct BatchChunk {
  std::vector<int> sequences;
  int length = 0;
};

// The chunks the passes run: the sequences in order of real length (ties in batch order),
// perChunk at a time; with trim, each chunk runs up to its longest real length, otherwise the
// whole batch length. Depends on the batch and perChunk only.
std::vector<BatchChunk> batchChunks(const Batch& b, int perChunk, bool trim);

template <class T>
class Model {
 public:
  explicit Model(const ModelConfig& c, int sequencesPerChunk = 4);
  ~Model();
  Model(const Model& other);
  Model& operator=(const Model& other);

  const ModelConfig& config() const { return config_; }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo& tensor(const std::string& name) const;  // std::invalid_argument if absent
  std::vector<T>& parameters() { return params_; }
  const std::vector<T>& parameters() const { return params_; }
  int sequencesPerChunk() const { return sequencesPerChunk_; }

  void initialize(std::uint64_t seed);
  // DroPE: a rope model stops rotating (config().position.dropped becomes true).
  void dropRope();
  // Keeps kerple's r1, r2 in their allowed range (after an optimiser step).
  void clampParameters();

  // Mean answer-token cross-entropy; grad (empty, or one entry per parameter) receives its gradient.
  double lossAndGradient(const Batch& b, const PositionTables<T>& pos, std::span<T> grad, int threads);
  EvalCounts evaluate(const Batch& b, const PositionTables<T>& pos, int threads);
  // numLayers x numHeads x n x n probabilities (row = query i, col = key j) of sequence 0, n = b.length.
  std::vector<T> attention(const Batch& b, const PositionTables<T>& pos);

 private:
  ModelConfig config_;
  int sequencesPerChunk_;
  std::vector<TensorInfo> tensors_;
  std::vector<T> params_;
  std::unique_ptr<ModelWorkspace<T>> work_;
};

extern template class Model<float>;
extern template class Model<double>;

}  // namespace posviz::train
