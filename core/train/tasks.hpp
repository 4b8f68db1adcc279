// tasks.hpp: the synthetic tasks a model is trained on, generated from a seed.
//
// TOKENS
//   0 PAD, 1 BOS, 2 SEP, then numSymbols symbols (3 .. 3+S-1), then the task's own tokens:
//   retrieve: position markers @1 .. @L; assoc: numKeys key tokens; count: counts #0 .. #L.
//   (L = trainLength, S = numSymbols.) taskVocabSize gives the total.
//
// TASKS (n = the example's length; x_i are symbols drawn uniformly)
//   copy      BOS x_1 .. x_n SEP x_1 .. x_n           answer: the second x_1 .. x_n
//   reverse   BOS x_1 .. x_n SEP x_n .. x_1           answer: x_n .. x_1
//   retrieve  BOS x_1 .. x_n SEP @p x_p               answer: x_p, p uniform in 1 .. min(n, L): an
//             absolute position, always one a trained model has seen asked for
//   assoc     BOS k_1 v_1 .. k_n v_n SEP k_q v_q      answer: v_q; keys distinct (n <= numKeys),
//             values symbols, q uniform: recall by content
//   count     BOS x_1 .. x_n SEP s #c                 answer: #c, the number of times symbol s
//             occurs in x_1 .. x_n; c uniform in 0 .. min(n, L), placed at random positions
//   The model reads the sequence but its last token and predicts each next token; the loss and
//   the accuracy count the answer tokens only (the mask). A model whose every answer token is
//   right under teacher forcing also gets the whole answer right decoding greedily, so the
//   sequence accuracy is exact-match accuracy.
//
// LENGTHS
//   Training examples draw n uniformly from minTrainLength .. trainLength, each example its own;
//   a batch is padded on the right to its longest input (PAD, masked out: with a causal mask the
//   padding never reaches a real token). Evaluation uses one n for every example of a batch.
//
// DETERMINISM
//   Every batch comes from core's Rng seeded from (seed, step) or (seed, n): the same arguments
//   give the same tokens on every machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace posviz::train {

enum class TaskKind { Copy, Reverse, Retrieve, Assoc, Count };
inline constexpr TaskKind kAllTasks[] = {TaskKind::Copy, TaskKind::Reverse, TaskKind::Retrieve, TaskKind::Assoc, TaskKind::Count};
const char* taskName(TaskKind k);  // "copy", "reverse", "retrieve", "assoc", "count"
std::optional<TaskKind> parseTaskName(const std::string& name);

inline constexpr int kPadToken = 0;
inline constexpr int kBosToken = 1;
inline constexpr int kSepToken = 2;
inline constexpr int kFirstSymbol = 3;

struct TaskConfig {
  TaskKind kind = TaskKind::Copy;
  int trainLength = 16;     // L, 1 .. 4096
  int minTrainLength = 1;   // 1 .. L
  int numSymbols = 16;      // S, 2 .. 1024
  int numKeys = 0;          // assoc: key alphabet; 0 = 8 L
};

void validateTaskConfig(const char* fn, const TaskConfig& t);
int taskVocabSize(const TaskConfig& t);
int taskKeyCount(const TaskConfig& t);                // assoc's keys (numKeys or 8 L)
int taskInputTokens(const TaskConfig& t, int n);      // tokens the model reads for length n
int taskAnswerTokens(const TaskConfig& t, int n);     // answer tokens of length n
int taskMaxLength(const TaskConfig& t);               // the longest n a task can express (assoc: numKeys)
std::string tokenName(const TaskConfig& t, int token);  // "BOS", "SEP", "a", "@3", "k12", "#4", "PAD"

// One example: the full token sequence, the answer being sequence[answerStart ..].
struct Example {
  std::vector<int> sequence;
  int answerStart = 0;
};

// The example of length n drawn from a generator seeded with seed. Throws std::invalid_argument
// for n outside 1 .. taskMaxLength.
Example makeExample(const TaskConfig& t, int n, std::uint64_t seed);

// size sequences of `length` inputs, row-major: inputs[b * length + t], the token to predict
// after inputs[.. t] in targets, mask 1 where that target is an answer token.
struct Batch {
  int size = 0;
  int length = 0;
  std::vector<int> inputs;
  std::vector<int> targets;
  std::vector<unsigned char> mask;
  int answerCount() const;  // ones in mask
};

// Builds a batch from examples (padded to the longest).
Batch batchFromExamples(const std::vector<Example>& examples);
// The training batch of a step: n per example uniform in minTrainLength .. trainLength.
Batch trainingBatch(const TaskConfig& t, int batchSize, std::uint64_t seed, long long step);
// An evaluation batch: count examples of length n; `first` numbers the first (batches of one
// length split into parts stay the examples of one set).
Batch evaluationBatch(const TaskConfig& t, int n, int count, std::uint64_t seed, int first = 0);

// A seed for stream `stream` of a base seed (SplitMix64 of the pair): tasks, weights and
// evaluation sets each draw from their own stream.
std::uint64_t deriveSeed(std::uint64_t base, std::uint64_t stream);

}  // namespace posviz::train
