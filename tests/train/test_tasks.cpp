// Tests for core/train/tasks: each task's layout checked by hand on small examples, the batches'
// shifting, padding and masks, and the seeds.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "core/train/tasks.hpp"

using namespace posviz::train;

namespace {

TaskConfig small(TaskKind k) {
  TaskConfig t;
  t.kind = k;
  t.trainLength = 4;
  t.numSymbols = 5;
  t.numKeys = 6;
  return t;
}

std::vector<std::string> names(const TaskConfig& t, const Example& e) {
  std::vector<std::string> out;
  for (int v : e.sequence) out.push_back(tokenName(t, v));
  return out;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("tasks: vocabularies and lengths") {
  CHECK(taskVocabSize(small(TaskKind::Copy)) == 3 + 5);
  CHECK(taskVocabSize(small(TaskKind::Reverse)) == 3 + 5);
  CHECK(taskVocabSize(small(TaskKind::Retrieve)) == 3 + 5 + 4);  // @1 .. @4
  CHECK(taskVocabSize(small(TaskKind::Assoc)) == 3 + 5 + 6);     // 6 keys
  CHECK(taskVocabSize(small(TaskKind::Count)) == 3 + 5 + 5);     // #0 .. #4
  TaskConfig defaultKeys = small(TaskKind::Assoc);
  defaultKeys.numKeys = 0;
  CHECK(taskKeyCount(defaultKeys) == 32);  // 8 L
  // BOS x1..xn SEP x1..xn minus the last token: 2n + 1 inputs.
  CHECK(taskInputTokens(small(TaskKind::Copy), 16) == 33);
  CHECK(taskInputTokens(small(TaskKind::Retrieve), 3) == 6);
  CHECK(taskInputTokens(small(TaskKind::Assoc), 3) == 9);
  CHECK(taskInputTokens(small(TaskKind::Count), 3) == 6);
  CHECK(taskAnswerTokens(small(TaskKind::Reverse), 3) == 3);
  CHECK(taskAnswerTokens(small(TaskKind::Assoc), 3) == 1);
  CHECK(taskMaxLength(small(TaskKind::Assoc)) == 6);
}

TEST_CASE("tasks: the examples of seed 42 at n = 3, read token by token") {
  // Pinned: core's Rng is the same on every platform, so these are the same everywhere.
  const Example copy = makeExample(small(TaskKind::Copy), 3, 42);
  CHECK(copy.sequence == std::vector<int>{1, 6, 3, 4, 2, 6, 3, 4});
  CHECK(names(small(TaskKind::Copy), copy) == Names{"BOS", "d", "a", "b", "SEP", "d", "a", "b"});
  CHECK(copy.answerStart == 5);
  const Example rev = makeExample(small(TaskKind::Reverse), 3, 42);
  CHECK(names(small(TaskKind::Reverse), rev) == Names{"BOS", "d", "a", "b", "SEP", "b", "a", "d"});
  const Example ret = makeExample(small(TaskKind::Retrieve), 3, 42);
  CHECK(names(small(TaskKind::Retrieve), ret) == Names{"BOS", "d", "a", "b", "SEP", "@2", "a"});
  CHECK(ret.answerStart == 6);
  const Example as = makeExample(small(TaskKind::Assoc), 3, 42);
  CHECK(names(small(TaskKind::Assoc), as) == Names{"BOS", "k4", "b", "k1", "a", "k3", "e", "SEP", "k4", "b"});
  const Example cnt = makeExample(small(TaskKind::Count), 3, 43);
  CHECK(names(small(TaskKind::Count), cnt) == Names{"BOS", "d", "d", "e", "SEP", "d", "#2"});
  CHECK(cnt.answerStart == 6);
}

TEST_CASE("tasks: every example obeys its task's rule") {
  for (int n : {1, 2, 4, 6}) {
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
      CAPTURE(n);
      CAPTURE(seed);
      const auto s = [](const Example& e, int i) { return e.sequence[static_cast<std::size_t>(i)]; };
      const Example c = makeExample(small(TaskKind::Copy), n, seed);
      const Example r = makeExample(small(TaskKind::Reverse), n, seed);
      REQUIRE(static_cast<int>(c.sequence.size()) == 2 * n + 2);
      for (int i = 0; i < n; ++i) {
        CHECK(s(c, n + 2 + i) == s(c, 1 + i));
        CHECK(s(r, n + 2 + i) == s(r, n - i));
        CHECK((s(c, 1 + i) >= kFirstSymbol && s(c, 1 + i) < kFirstSymbol + 5));
      }
      const Example q = makeExample(small(TaskKind::Retrieve), n, seed);
      const int p = s(q, n + 2) - (kFirstSymbol + 5) + 1;  // @p
      CHECK((p >= 1 && p <= std::min(n, 4)));
      CHECK(s(q, n + 3) == s(q, p));
      const Example a = makeExample(small(TaskKind::Assoc), n, seed);
      std::set<int> keys;
      int answer = -1;
      for (int i = 0; i < n; ++i) {
        keys.insert(s(a, 1 + 2 * i));
        if (s(a, 1 + 2 * i) == s(a, 2 * n + 2)) answer = s(a, 2 + 2 * i);
      }
      CHECK(static_cast<int>(keys.size()) == n);  // distinct keys
      CHECK(s(a, 2 * n + 3) == answer);
      const Example k = makeExample(small(TaskKind::Count), n, seed);
      const int counted = static_cast<int>(std::count(k.sequence.begin() + 1, k.sequence.begin() + 1 + n, s(k, n + 2)));
      CHECK(s(k, n + 3) == kFirstSymbol + 5 + counted);
      CHECK(counted <= std::min(n, 4));
    }
  }
}

TEST_CASE("tasks: a batch shifts by one, pads on the right and masks the answers") {
  const TaskConfig t = small(TaskKind::Copy);
  const Batch b = batchFromExamples({makeExample(t, 2, 1), makeExample(t, 1, 2)});
  REQUIRE(b.size == 2);
  REQUIRE(b.length == 5);  // 2n + 1 of the longer
  const Example e0 = makeExample(t, 2, 1), e1 = makeExample(t, 1, 2);
  for (int i = 0; i < 5; ++i) {
    CHECK(b.inputs[static_cast<std::size_t>(i)] == e0.sequence[static_cast<std::size_t>(i)]);
    CHECK(b.targets[static_cast<std::size_t>(i)] == e0.sequence[static_cast<std::size_t>(i + 1)]);
  }
  // Row 0: BOS x1 x2 SEP x1 predicts x1 x2 at inputs 3, 4; row 1: BOS x SEP predicts x at input 2.
  CHECK(b.mask == std::vector<unsigned char>{0, 0, 0, 1, 1, /**/ 0, 0, 1, 0, 0});
  CHECK(b.inputs[5] == kBosToken);
  CHECK(b.inputs[8] == kPadToken);
  CHECK(b.inputs[9] == kPadToken);
  CHECK(b.targets[6] == e1.sequence[2]);
  CHECK(b.answerCount() == 3);
}

TEST_CASE("tasks: training and evaluation batches come from their seeds only") {
  TaskConfig t = small(TaskKind::Reverse);
  t.trainLength = 8;
  t.minTrainLength = 3;
  const Batch a = trainingBatch(t, 16, 7, 5);
  CHECK(a.inputs == trainingBatch(t, 16, 7, 5).inputs);
  CHECK(a.inputs != trainingBatch(t, 16, 7, 6).inputs);
  CHECK(a.inputs != trainingBatch(t, 16, 8, 5).inputs);
  // Each row is one example of length n in [3, 8]: n answer tokens.
  std::set<int> lengths;
  for (int r = 0; r < a.size; ++r) {
    int answers = 0;
    for (int i = 0; i < a.length; ++i) answers += a.mask[static_cast<std::size_t>(r * a.length + i)];
    CHECK((answers >= 3 && answers <= 8));
    lengths.insert(answers);
  }
  CHECK(lengths.size() > 1);
  // An evaluation set split in parts is the same set.
  const Batch whole = evaluationBatch(t, 5, 6, 99);
  const Batch tail = evaluationBatch(t, 5, 2, 99, 4);
  CHECK(std::equal(tail.inputs.begin(), tail.inputs.end(), whole.inputs.begin() + 4 * whole.length));
}

TEST_CASE("tasks: lengths and configs out of range are refused") {
  CHECK_THROWS_AS(makeExample(small(TaskKind::Copy), 0, 1), std::invalid_argument);
  CHECK_THROWS_AS(makeExample(small(TaskKind::Assoc), 7, 1), std::invalid_argument);  // 6 keys
  TaskConfig bad = small(TaskKind::Copy);
  bad.numSymbols = 1;
  CHECK_THROWS_AS(validateTaskConfig("test", bad), std::invalid_argument);
  bad = small(TaskKind::Copy);
  bad.minTrainLength = 5;
  CHECK_THROWS_AS(validateTaskConfig("test", bad), std::invalid_argument);
  CHECK(tokenName(small(TaskKind::Count), 9) == "#1");
  CHECK(tokenName(small(TaskKind::Copy), 99) == "?");
  CHECK(parseTaskName("assoc") == TaskKind::Assoc);
  CHECK_FALSE(parseTaskName("sort").has_value());
}
