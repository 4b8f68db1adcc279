#include "core/train/tasks.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "core/check.hpp"
#include "core/random.hpp"

namespace posviz::train {

namespace {

struct TaskNameEntry {
  TaskKind kind;
  const char* name;
};
constexpr TaskNameEntry kTaskNames[] = {
    {TaskKind::Copy, "copy"}, {TaskKind::Reverse, "reverse"}, {TaskKind::Retrieve, "retrieve"}, {TaskKind::Assoc, "assoc"}, {TaskKind::Count, "count"}};

// Uniform in [0, n), n >= 1.
int below(Rng& rng, int n) {
  const auto v = static_cast<int>(rng.uniform() * static_cast<double>(n));
  return std::min(v, n - 1);
}

int symbol(const TaskConfig& t, Rng& rng) { return kFirstSymbol + below(rng, t.numSymbols); }
int extraToken(const TaskConfig& t, int index) { return kFirstSymbol + t.numSymbols + index; }

// The first k entries of a uniform random permutation of 0 .. n-1 (partial Fisher-Yates).
std::vector<int> distinct(Rng& rng, int n, int k) {
  std::vector<int> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  for (int i = 0; i < k; ++i) std::swap(all[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(i + below(rng, n - i))]);
  all.resize(static_cast<std::size_t>(k));
  return all;
}

Example copyOrReverse(const TaskConfig& t, int n, Rng& rng, bool reverse) {
  Example e;
  e.sequence.push_back(kBosToken);
  for (int i = 0; i < n; ++i) e.sequence.push_back(symbol(t, rng));
  e.sequence.push_back(kSepToken);
  e.answerStart = static_cast<int>(e.sequence.size());
  for (int i = 0; i < n; ++i) e.sequence.push_back(e.sequence[static_cast<std::size_t>(reverse ? n - i : 1 + i)]);
  return e;
}

Example retrieve(const TaskConfig& t, int n, Rng& rng) {
  Example e;
  e.sequence.push_back(kBosToken);
  for (int i = 0; i < n; ++i) e.sequence.push_back(symbol(t, rng));
  const int p = 1 + below(rng, std::min(n, t.trainLength));
  e.sequence.push_back(kSepToken);
  e.sequence.push_back(extraToken(t, p - 1));
  e.answerStart = static_cast<int>(e.sequence.size());
  e.sequence.push_back(e.sequence[static_cast<std::size_t>(p)]);
  return e;
}

Example assoc(const TaskConfig& t, int n, Rng& rng) {
  const std::vector<int> keys = distinct(rng, taskKeyCount(t), n);
  Example e;
  e.sequence.push_back(kBosToken);
  std::vector<int> values;
  for (int i = 0; i < n; ++i) {
    values.push_back(symbol(t, rng));
    e.sequence.push_back(extraToken(t, keys[static_cast<std::size_t>(i)]));
    e.sequence.push_back(values.back());
  }
  const auto q = static_cast<std::size_t>(below(rng, n));
  e.sequence.push_back(kSepToken);
  e.sequence.push_back(extraToken(t, keys[q]));
  e.answerStart = static_cast<int>(e.sequence.size());
  e.sequence.push_back(values[q]);
  return e;
}

Example count(const TaskConfig& t, int n, Rng& rng) {
  const int s = below(rng, t.numSymbols);
  const int c = below(rng, std::min(n, t.trainLength) + 1);
  std::vector<int> x(static_cast<std::size_t>(n));
  for (int& v : x) v = (s + 1 + below(rng, t.numSymbols - 1)) % t.numSymbols;  // any symbol but s
  for (int p : distinct(rng, n, c)) x[static_cast<std::size_t>(p)] = s;
  Example e;
  e.sequence.push_back(kBosToken);
  for (int v : x) e.sequence.push_back(kFirstSymbol + v);
  e.sequence.push_back(kSepToken);
  e.sequence.push_back(kFirstSymbol + s);
  e.answerStart = static_cast<int>(e.sequence.size());
  e.sequence.push_back(extraToken(t, c));
  return e;
}

}  // namespace

const char* taskName(TaskKind k) {
  for (const auto& e : kTaskNames)
    if (e.kind == k) return e.name;
  return "?";
}

std::optional<TaskKind> parseTaskName(const std::string& name) {
  for (const auto& e : kTaskNames)
    if (name == e.name) return e.kind;
  return std::nullopt;
}

void validateTaskConfig(const char* fn, const TaskConfig& t) {
  if (t.trainLength < 1 || t.trainLength > 4096) failArgument(fn, "trainLength must be in [1, 4096], got " + std::to_string(t.trainLength));
  if (t.minTrainLength < 1 || t.minTrainLength > t.trainLength)
    failArgument(fn, "minTrainLength must be in [1, trainLength], got " + std::to_string(t.minTrainLength));
  if (t.numSymbols < 2 || t.numSymbols > 1024) failArgument(fn, "numSymbols must be in [2, 1024], got " + std::to_string(t.numSymbols));
  if (t.numKeys < 0 || t.numKeys > 32768) failArgument(fn, "numKeys must be in [0, 32768], got " + std::to_string(t.numKeys));
  if (t.kind == TaskKind::Assoc && taskKeyCount(t) < t.trainLength)
    failArgument(fn, "assoc needs numKeys >= trainLength, got " + std::to_string(t.numKeys));
}

int taskKeyCount(const TaskConfig& t) { return t.numKeys > 0 ? t.numKeys : 8 * t.trainLength; }

int taskVocabSize(const TaskConfig& t) {
  const int base = kFirstSymbol + t.numSymbols;
  switch (t.kind) {
    case TaskKind::Retrieve: return base + t.trainLength;
    case TaskKind::Assoc: return base + taskKeyCount(t);
    case TaskKind::Count: return base + t.trainLength + 1;
    default: return base;
  }
}

int taskInputTokens(const TaskConfig& t, int n) {
  switch (t.kind) {
    case TaskKind::Copy:
    case TaskKind::Reverse: return 2 * n + 1;
    case TaskKind::Assoc: return 2 * n + 3;
    default: return n + 3;
  }
}

int taskAnswerTokens(const TaskConfig& t, int n) { return t.kind == TaskKind::Copy || t.kind == TaskKind::Reverse ? n : 1; }

int taskMaxLength(const TaskConfig& t) { return t.kind == TaskKind::Assoc ? taskKeyCount(t) : 1 << 20; }

std::string tokenName(const TaskConfig& t, int token) {
  if (token == kPadToken) return "PAD";
  if (token == kBosToken) return "BOS";
  if (token == kSepToken) return "SEP";
  const int s = token - kFirstSymbol;
  if (s >= 0 && s < t.numSymbols) return t.numSymbols <= 26 ? std::string(1, static_cast<char>('a' + s)) : "s" + std::to_string(s);
  const int x = s - t.numSymbols;
  if (x < 0 || token >= taskVocabSize(t)) return "?";
  switch (t.kind) {
    case TaskKind::Retrieve: return "@" + std::to_string(x + 1);
    case TaskKind::Assoc: return "k" + std::to_string(x);
    case TaskKind::Count: return "#" + std::to_string(x);
    default: return "?";
  }
}

Example makeExample(const TaskConfig& t, int n, std::uint64_t seed) {
  static constexpr const char* kFn = "makeExample";
  validateTaskConfig(kFn, t);
  if (n < 1 || n > taskMaxLength(t))
    failArgument(kFn, "length must be in [1, " + std::to_string(taskMaxLength(t)) + "] for " + taskName(t.kind) + ", got " + std::to_string(n));
  Rng rng(seed);
  switch (t.kind) {
    case TaskKind::Copy: return copyOrReverse(t, n, rng, false);
    case TaskKind::Reverse: return copyOrReverse(t, n, rng, true);
    case TaskKind::Retrieve: return retrieve(t, n, rng);
    case TaskKind::Assoc: return assoc(t, n, rng);
    case TaskKind::Count: return count(t, n, rng);
  }
  failArgument(kFn, "unknown task");
}

int Batch::answerCount() const {
  int n = 0;
  for (unsigned char m : mask) n += m;
  return n;
}

Batch batchFromExamples(const std::vector<Example>& examples) {
  Batch b;
  b.size = static_cast<int>(examples.size());
  for (const Example& e : examples) b.length = std::max(b.length, static_cast<int>(e.sequence.size()) - 1);
  const auto cells = static_cast<std::size_t>(b.size) * static_cast<std::size_t>(b.length);
  b.inputs.assign(cells, kPadToken);
  b.targets.assign(cells, kPadToken);
  b.mask.assign(cells, 0);
  for (std::size_t i = 0; i < examples.size(); ++i) {
    const Example& e = examples[i];
    const std::size_t row = i * static_cast<std::size_t>(b.length);
    for (std::size_t t = 0; t + 1 < e.sequence.size(); ++t) {
      b.inputs[row + t] = e.sequence[t];
      b.targets[row + t] = e.sequence[t + 1];
      b.mask[row + t] = static_cast<unsigned char>(static_cast<int>(t) + 1 >= e.answerStart ? 1 : 0);
    }
  }
  return b;
}

Batch trainingBatch(const TaskConfig& t, int batchSize, std::uint64_t seed, long long step) {
  validateTaskConfig("trainingBatch", t);
  if (batchSize < 1) failArgument("trainingBatch", "batchSize must be >= 1, got " + std::to_string(batchSize));
  Rng lengths(deriveSeed(seed, static_cast<std::uint64_t>(step) * 2));
  const std::uint64_t exampleSeed = deriveSeed(seed, static_cast<std::uint64_t>(step) * 2 + 1);
  std::vector<Example> examples;
  for (int i = 0; i < batchSize; ++i) {
    const int n = t.minTrainLength + below(lengths, t.trainLength - t.minTrainLength + 1);
    examples.push_back(makeExample(t, n, deriveSeed(exampleSeed, static_cast<std::uint64_t>(i))));
  }
  return batchFromExamples(examples);
}

Batch evaluationBatch(const TaskConfig& t, int n, int count, std::uint64_t seed, int first) {
  if (count < 1) failArgument("evaluationBatch", "count must be >= 1, got " + std::to_string(count));
  const std::uint64_t lengthSeed = deriveSeed(seed, static_cast<std::uint64_t>(n));
  std::vector<Example> examples;
  for (int i = 0; i < count; ++i) examples.push_back(makeExample(t, n, deriveSeed(lengthSeed, static_cast<std::uint64_t>(first + i))));
  return batchFromExamples(examples);
}

std::uint64_t deriveSeed(std::uint64_t base, std::uint64_t stream) {
  Rng rng(base ^ (stream * 0xd1b54a32d192ed03ull + 0x8bb84b93962eacc9ull));
  rng.nextU64();
  return rng.nextU64();
}

}  // namespace posviz::train
