// Tests for core/attention: SDPA by hand, the toy model, and permutation equivariance with and
// without each encoding.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/attention.hpp"
#include "core/grid.hpp"

using namespace posviz;

namespace {

Grid grid(int rows, int cols, std::vector<float> v) {
  Grid g(rows, cols);
  g.values = std::move(v);
  return g;
}

const std::vector<PositionEncoding> kEncodings = {PositionEncoding::Sinusoidal, PositionEncoding::Learned, PositionEncoding::Rope,
                                                  PositionEncoding::Alibi};

}  // namespace

TEST_CASE("attention: SDPA on a 2-token example by hand") {
  // q = k = I, scores / sqrt(2): row 0 = [1/sqrt2, 0] -> w = sigmoid(1/sqrt2) = 0.66976155.
  const Grid q = grid(2, 2, {1, 0, 0, 1});
  const Grid v = grid(2, 2, {1, 2, 3, 4});
  const AttentionResult r = scaledDotProductAttention(q, q, v, Grid{}, false);
  const double w = 0.6697615493266569;
  CHECK(r.weights.at(0, 0) == doctest::Approx(w).epsilon(1e-7));
  CHECK(r.weights.at(0, 1) == doctest::Approx(1 - w).epsilon(1e-7));
  CHECK(r.weights.at(1, 1) == doctest::Approx(w).epsilon(1e-7));
  CHECK(r.output.at(0, 0) == doctest::Approx(w * 1 + (1 - w) * 3).epsilon(1e-7));
  CHECK(r.output.at(0, 1) == doctest::Approx(w * 2 + (1 - w) * 4).epsilon(1e-7));
  CHECK(r.output.at(1, 0) == doctest::Approx((1 - w) * 1 + w * 3).epsilon(1e-7));

  // Causal: query 0 sees only key 0.
  const AttentionResult c = scaledDotProductAttention(q, q, v, Grid{}, true);
  CHECK(c.weights.at(0, 0) == 1.0f);
  CHECK(c.weights.at(0, 1) == 0.0f);
  CHECK(c.output.at(0, 1) == 2.0f);
  CHECK(c.weights.at(1, 1) == doctest::Approx(w).epsilon(1e-7));

  // A bias adds to the scores: -inf masks, a large bias dominates.
  const Grid bias = grid(2, 2, {0, -std::numeric_limits<float>::infinity(), 0, 0});
  const AttentionResult b = scaledDotProductAttention(q, q, v, bias, false);
  CHECK(b.weights.at(0, 1) == 0.0f);
  CHECK(b.weights.at(1, 0) == doctest::Approx(1 - w).epsilon(1e-7));
  const Grid shift = grid(2, 2, {0, std::log(2.0f) + 1 / std::sqrt(2.0f), 0, 0});  // row 0: key 1 gets 2x key 0
  const AttentionResult s = scaledDotProductAttention(q, q, v, shift, false);
  CHECK(s.weights.at(0, 1) == doctest::Approx(2.0 / 3.0).epsilon(1e-6));
}

TEST_CASE("attention: toy weights are a softmax (rows sum to 1) and outputs are deterministic") {
  const ToyModel m{8, 42, false};
  const std::vector<std::string> tokens = splitTokens("the cat sat on the mat");
  for (PositionEncoding e : {PositionEncoding::None, PositionEncoding::Sinusoidal, PositionEncoding::Learned, PositionEncoding::Rope,
                             PositionEncoding::Alibi}) {
    CAPTURE(positionEncodingName(e));
    const AttentionResult a = toyAttention(m, tokens, e);
    const AttentionResult b = toyAttention(m, tokens, e);
    REQUIRE(a.weights.rows == 6);
    REQUIRE(a.weights.cols == 6);
    REQUIRE(a.output.rows == 6);
    REQUIRE(a.output.cols == 8);
    CHECK(a.output.values == b.output.values);
    for (int i = 0; i < 6; ++i) {
      double sum = 0;
      for (int j = 0; j < 6; ++j) {
        CHECK(a.weights.at(i, j) >= 0.0f);
        sum += a.weights.at(i, j);
      }
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
    }
  }
  // The same token gets the same embedding; different tokens and seeds differ.
  CHECK(toyEmbedding(m, "the") == toyEmbedding(m, "the"));
  CHECK(toyEmbedding(m, "the") != toyEmbedding(m, "cat"));
  CHECK(toyEmbedding(m, "the") != toyEmbedding(ToyModel{8, 43, false}, "the"));
  CHECK(toyEmbedding(m, "the").size() == 8);
  // Without an encoding, the two "the" tokens (positions 0 and 4) get identical outputs.
  const AttentionResult none = toyAttention(m, tokens, PositionEncoding::None);
  for (int c = 0; c < 8; ++c) CHECK(none.output.at(0, c) == none.output.at(4, c));
  // With one, they differ.
  for (PositionEncoding e : kEncodings) {
    CAPTURE(positionEncodingName(e));
    const AttentionResult r = toyAttention(m, tokens, e);
    double diff = 0;
    for (int c = 0; c < 8; ++c) diff = std::max(diff, static_cast<double>(std::fabs(r.output.at(0, c) - r.output.at(4, c))));
    CHECK(diff > 1e-3);
  }
}

TEST_CASE("attention: permutation equivariance holds without an encoding and fails with each") {
  const std::vector<std::string> tokens = splitTokens("the quick brown fox jumps over a lazy dog");
  const std::vector<int> perm = {3, 0, 7, 1, 8, 2, 5, 4, 6};
  for (std::uint64_t seed : {0ull, 1ull, 12345ull}) {
    for (int d : {4, 8, 16}) {
      CAPTURE(seed);
      CAPTURE(d);
      const ToyModel m{d, seed, false};
      const PermutationCheck none = checkPermutation(m, tokens, perm, PositionEncoding::None);
      CHECK(none.equivariant);
      CHECK(none.maxDifference <= 1e-9);
      CHECK(none.perm == perm);
      for (PositionEncoding e : kEncodings) {
        CAPTURE(positionEncodingName(e));
        const PermutationCheck c = checkPermutation(m, tokens, perm, e);
        CHECK_FALSE(c.equivariant);
        CHECK(c.maxDifference > 1e-3);
      }
    }
  }
}

TEST_CASE("attention: the identity permutation is always equivariant; a causal mask is positional") {
  const std::vector<std::string> tokens = splitTokens("a b c d e");
  const std::vector<int> id = {0, 1, 2, 3, 4};
  for (bool causal : {false, true}) {
    const ToyModel m{8, 7, causal};
    for (PositionEncoding e : {PositionEncoding::None, PositionEncoding::Sinusoidal, PositionEncoding::Learned, PositionEncoding::Rope,
                               PositionEncoding::Alibi}) {
      CAPTURE(causal);
      CAPTURE(positionEncodingName(e));
      const PermutationCheck c = checkPermutation(m, tokens, id, e);
      CHECK(c.equivariant);
      CHECK(c.maxDifference == 0.0);
    }
  }
  const PermutationCheck causalNone = checkPermutation(ToyModel{8, 7, true}, tokens, {4, 3, 2, 1, 0}, PositionEncoding::None);
  CHECK_FALSE(causalNone.equivariant);
}

TEST_CASE("attention: symmetric ALiBi only sees |i - j|, so reversing the sequence stays equivariant") {
  const std::vector<std::string> tokens = splitTokens("one two three four five six");
  const ToyModel m{8, 3, false};
  const std::vector<int> reversal = {5, 4, 3, 2, 1, 0};
  CHECK(checkPermutation(m, tokens, reversal, PositionEncoding::Alibi).equivariant);
  CHECK_FALSE(checkPermutation(m, tokens, {1, 0, 2, 3, 4, 5}, PositionEncoding::Alibi).equivariant);
  // The other encodings are not reversal-symmetric.
  CHECK_FALSE(checkPermutation(m, tokens, reversal, PositionEncoding::Sinusoidal).equivariant);
  CHECK_FALSE(checkPermutation(m, tokens, reversal, PositionEncoding::Learned).equivariant);
  CHECK_FALSE(checkPermutation(m, tokens, reversal, PositionEncoding::Rope).equivariant);
}

TEST_CASE("attention: names and tokenization") {
  CHECK(std::string(positionEncodingName(PositionEncoding::None)) == "none");
  CHECK(std::string(positionEncodingName(PositionEncoding::Sinusoidal)) == "sinusoidal");
  CHECK(std::string(positionEncodingName(PositionEncoding::Learned)) == "learned");
  CHECK(std::string(positionEncodingName(PositionEncoding::Rope)) == "rope");
  CHECK(std::string(positionEncodingName(PositionEncoding::Alibi)) == "alibi");
  CHECK(splitTokens("  the\tcat \n sat  ") == std::vector<std::string>{"the", "cat", "sat"});
  CHECK(splitTokens("").empty());
  CHECK(splitTokens(" \t\n").empty());
}

TEST_CASE("attention: bad arguments") {
  const Grid q = grid(2, 2, {1, 0, 0, 1});
  const Grid v = grid(2, 3, {1, 2, 3, 4, 5, 6});
  CHECK_NOTHROW(scaledDotProductAttention(q, q, v, Grid{}, false));
  CHECK_THROWS_WITH_AS(scaledDotProductAttention(Grid{}, q, v, Grid{}, false), "scaledDotProductAttention: q.rows must be > 0, got 0",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(scaledDotProductAttention(q, grid(3, 2, {0, 0, 0, 0, 0, 0}), v, Grid{}, false),
                       "scaledDotProductAttention: k.rows must equal q.rows (2), got 3", std::invalid_argument);
  CHECK_THROWS_WITH_AS(scaledDotProductAttention(q, grid(2, 1, {0, 0}), v, Grid{}, false),
                       "scaledDotProductAttention: k.cols must equal q.cols (2), got 1", std::invalid_argument);
  CHECK_THROWS_WITH_AS(scaledDotProductAttention(q, q, grid(1, 3, {1, 2, 3}), Grid{}, false),
                       "scaledDotProductAttention: v.rows must equal q.rows (2), got 1", std::invalid_argument);
  CHECK_THROWS_WITH_AS(scaledDotProductAttention(grid(2, 2, {1, 0, std::nanf(""), 1}), q, v, Grid{}, false),
                       "scaledDotProductAttention: q must hold finite values, got nan at row 1, col 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(scaledDotProductAttention(q, q, v, grid(2, 2, {0, 0, std::numeric_limits<float>::infinity(), 0}), false),
                       "scaledDotProductAttention: bias must hold finite values (or -inf to mask), got inf at row 1, col 0",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(scaledDotProductAttention(q, q, v, grid(1, 2, {0, 0}), false),
                       "scaledDotProductAttention: bias must be empty or 2 x 2, got 1 x 2", std::invalid_argument);
  const float ninf = -std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH_AS(scaledDotProductAttention(q, q, v, grid(2, 2, {0, 0, ninf, ninf}), false),
                       "scaledDotProductAttention: every key is masked for query 1 (a row of the bias is all -inf)", std::invalid_argument);
  Grid broken = q;
  broken.values.pop_back();
  CHECK_THROWS_WITH_AS(scaledDotProductAttention(broken, q, v, Grid{}, false),
                       "scaledDotProductAttention: q.values must hold rows * cols = 4 values, got 3", std::invalid_argument);

  const std::vector<std::string> tokens = {"a", "b", "c"};
  CHECK_THROWS_WITH_AS(toyAttention(ToyModel{7, 0, false}, tokens, PositionEncoding::None),
                       "toyAttention: model.dModel must be even and > 0, got 7", std::invalid_argument);
  CHECK_THROWS_WITH_AS(toyAttention(ToyModel{0, 0, false}, tokens, PositionEncoding::None),
                       "toyAttention: model.dModel must be even and > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(toyAttention(ToyModel{8192, 0, false}, tokens, PositionEncoding::None),
                       "toyAttention: model.dModel must be <= 4096, got 8192", std::invalid_argument);
  CHECK_THROWS_WITH_AS(toyAttention(ToyModel{}, {}, PositionEncoding::None), "toyAttention: tokens must not be empty", std::invalid_argument);
  CHECK_THROWS_WITH_AS(toyAttention(ToyModel{}, tokens, static_cast<PositionEncoding>(9)),
                       "toyAttention: enc must be None, Sinusoidal, Learned, Rope or Alibi, got 9", std::invalid_argument);
  CHECK_THROWS_WITH_AS(toyEmbedding(ToyModel{3, 0, false}, "a"), "toyEmbedding: model.dModel must be even and > 0, got 3", std::invalid_argument);
  CHECK_THROWS_WITH_AS(checkPermutation(ToyModel{}, tokens, {0, 1}, PositionEncoding::None),
                       "checkPermutation: perm must have one entry per token (3), got 2", std::invalid_argument);
  CHECK_THROWS_WITH_AS(checkPermutation(ToyModel{}, tokens, {0, 1, 3}, PositionEncoding::None),
                       "checkPermutation: perm[2] must be in [0, 2], got 3", std::invalid_argument);
  CHECK_THROWS_WITH_AS(checkPermutation(ToyModel{}, tokens, {0, 1, 1}, PositionEncoding::None),
                       "checkPermutation: perm must be a permutation of 0..2: 1 appears twice", std::invalid_argument);
  CHECK_THROWS_WITH_AS(checkPermutation(ToyModel{}, {}, {}, PositionEncoding::None), "checkPermutation: tokens must not be empty",
                       std::invalid_argument);
  const std::uint64_t saved = memoryBudgetBytes();
  setMemoryBudgetBytes(1024);
  CHECK_THROWS_WITH_AS(toyAttention(ToyModel{}, std::vector<std::string>(20, "x"), PositionEncoding::None),
                       "toyAttention: attention weights of 20 x 20 x float64 needs 3.1 KiB, over the memory budget of 1.0 KiB",
                       std::invalid_argument);
  setMemoryBudgetBytes(saved);
}
