// Tests for core/nope: a causal mask without any position encoding breaks permutation
// equivariance and makes position countable (Haviv et al. 2022, arXiv:2203.16634; Kazemnejad
// et al. 2023, arXiv:2305.19466).
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/attention.hpp"
#include "core/nope.hpp"

using namespace posviz;

TEST_SUITE("nope") {

TEST_CASE("nope: identical tokens get exactly 1/(t+1) under the causal mask") {
  // Identical tokens have identical keys, so every visible score is the same and the softmax is
  // uniform over the t+1 visible tokens, whatever the toy model's weights.
  const std::vector<std::string> same(7, "the");
  for (int seed : {0, 3, 41}) {
    const AttentionResult r = toyAttention(ToyModel{8, static_cast<std::uint64_t>(seed), true}, same, PositionEncoding::None);
    for (int t = 0; t < 7; ++t)
      for (int j = 0; j < 7; ++j) {
        CAPTURE(seed); CAPTURE(t); CAPTURE(j);
        CHECK(r.weights.at(t, j) == doctest::Approx(j <= t ? 1.0 / (t + 1) : 0.0).epsilon(1e-6));
      }
  }
  // The counting head's weights are the same fractions, exactly (float64).
  const auto w = uniformHeadWeights(7, true);
  for (int t = 0; t < 7; ++t)
    for (int j = 0; j < 7; ++j) {
      CAPTURE(t); CAPTURE(j);
      CHECK(w[t][j] == (j <= t ? 1.0 / (t + 1) : 0.0));
    }
  const auto b = uniformHeadWeights(5, false);
  for (const auto& row : b)
    for (double x : row) CHECK(x == 1.0 / 5);
}

TEST_CASE("nope: the weight on BOS gives the position back, only with the mask") {
  const std::vector<std::string> tokens = splitTokens("The cat sat on the mat");
  const NopeCounting c = nopeCounting(ToyModel{8, 0, false}, tokens);
  REQUIRE(c.tokens.size() == 7);
  CHECK(c.tokens[0] == kNopeBosToken);
  CHECK(c.tokens[1] == "The");
  REQUIRE(c.recoveredPosition.size() == 7);
  for (int t = 0; t < 7; ++t) {
    CAPTURE(t);
    CHECK(c.bosWeight[t] == 1.0 / (t + 1));
    CHECK(c.recoveredPosition[t] == doctest::Approx(t).epsilon(1e-12));
    CHECK(c.weights.at(t, 0) == doctest::Approx(1.0 / (t + 1)).epsilon(1e-6));
    // Without the mask every token sees all 7: weight 1/7, position 6 for everyone.
    CHECK(c.bidirectionalBosWeight[t] == 1.0 / 7);
    CHECK(c.bidirectionalRecovered[t] == doctest::Approx(6.0).epsilon(1e-12));
    // The toy head's own weight on BOS is a softmax over the visible tokens: 1 at t = 0.
    CHECK(c.toyBosWeight[t] > 0.0);
    CHECK(c.toyBosWeight[t] <= 1.0);
    CHECK(c.toyBosWeight[t] == doctest::Approx(c.toyWeights.at(t, 0)));
  }
  CHECK(c.toyBosWeight[0] == doctest::Approx(1.0));
  CHECK(c.maxPositionError < 1e-12);
  // Content scores blur the count: the toy head's estimate is off somewhere.
  CHECK(c.maxToyPositionError > 1e-3);

  // Recovered positions are 0..T-1 for longer inputs too.
  const NopeCounting longer = nopeCounting(ToyModel{16, 5, true}, std::vector<std::string>(47, "x"));
  REQUIRE(longer.recoveredPosition.size() == 48);
  for (int t = 0; t < 48; ++t) CHECK(longer.recoveredPosition[t] == doctest::Approx(t).epsilon(1e-12));
}

TEST_CASE("nope: bidirectional outputs are an exact permutation, causal ones are not") {
  for (const auto& [a, b] : std::vector<std::pair<const char*, const char*>>{
           {"dog bites man", "man bites dog"}, {"The cat sat on the mat", "mat the on sat cat The"},
           {"The dog bit the man", "The man bit the dog"}}) {
    const char* sentence = a;   // CAPTURE's lambda cannot take a structured binding in clang 14
    CAPTURE(sentence);
    const std::vector<std::string> tokens = splitTokens(a);
    const std::vector<int> perm = permutationBetween(tokens, splitTokens(b));
    for (bool modelCausal : {false, true}) {  // m.causal is overridden
      const NopeOrder o = compareNopeOrder(ToyModel{8, 0, modelCausal}, tokens, perm);
      CHECK(o.bidirectional.maxOutputDifference < 1e-6);
      CHECK(o.bidirectional.maxWeightDifference < 1e-6);
      CHECK(o.bidirectional.equivariant);
      CHECK(o.causal.maxOutputDifference > 1e-3);
      CHECK_FALSE(o.causal.equivariant);
      CHECK(o.causal.encoding == PositionEncoding::None);
    }
  }
}

TEST_CASE("nope: bad input names the function and the problem") {
  CHECK_THROWS_WITH_AS(nopeCounting(ToyModel{}, {}), "nopeCounting: tokens must hold at least one token",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(nopeCounting(ToyModel{}, {"a", "<bos>"}),
                       "nopeCounting: tokens[1] must not be \"<bos>\": it is the BOS token put first, and a second one "
                       "would be counted too",
                       std::invalid_argument);
  CHECK_THROWS_AS(uniformHeadWeights(0, true), std::invalid_argument);
  CHECK_THROWS_AS(compareNopeOrder(ToyModel{}, splitTokens("a b"), {0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(nopeCounting(ToyModel{7, 0, false}, {"a"}), std::invalid_argument);
}

}  // TEST_SUITE
