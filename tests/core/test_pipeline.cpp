// Tests for core/pipeline: where each encoding acts, add vs concatenate, and RoPE on V.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/pipeline.hpp"
#include "core/sinusoidal.hpp"

using namespace posviz;

TEST_SUITE("pipeline") {

TEST_CASE("pipeline: each encoding acts at its stage") {
  using S = PipelineStage;
  CHECK(stagesWhereApplied(PositionEncoding::Sinusoidal) == std::vector<S>{S::AddPE});
  CHECK(stagesWhereApplied(PositionEncoding::Learned) == std::vector<S>{S::AddPE});
  CHECK(stagesWhereApplied(PositionEncoding::Rope) == std::vector<S>{S::Query, S::Key});
  CHECK(stagesWhereApplied(PositionEncoding::Rope, true) == std::vector<S>{S::Query, S::Key, S::Value});
  CHECK(stagesWhereApplied(PositionEncoding::Alibi) == std::vector<S>{S::Scores});
  CHECK(stagesWhereApplied(PositionEncoding::None).empty());
  CHECK(pipelineStages().size() == 10);
}

TEST_CASE("pipeline: add keeps d_model, concatenate doubles it; the norm identities hold") {
  for (PositionEncoding enc : {PositionEncoding::Sinusoidal, PositionEncoding::Learned}) {
    for (long long pos : {0LL, 3LL, 100LL}) {
      CAPTURE(positionEncodingName(enc));
      CAPTURE(pos);
      const ToyModel m{16, 5, false};
      const AddVsConcat r = addVsConcat(m, "dog", pos, enc);
      CHECK(r.addedDim == 16);
      CHECK(r.concatDim == 32);  // 002 section 8.5.3: "the dimension becomes 2 d_model"
      const double x2 = r.tokenNorm * r.tokenNorm, p2 = r.positionNorm * r.positionNorm;
      CHECK(r.concatNorm * r.concatNorm == doctest::Approx(x2 + p2).epsilon(1e-12));
      CHECK(r.addedNorm * r.addedNorm == doctest::Approx(x2 + p2 + 2.0 * r.crossTerm).epsilon(1e-9));
      CHECK(r.addedGap < 1e-9);
      CHECK(r.concatGap < 1e-9);
      if (enc == PositionEncoding::Sinusoidal) CHECK(r.positionNorm == doctest::Approx(std::sqrt(8.0)).epsilon(1e-12));
    }
  }
  CHECK_THROWS_WITH_AS(addVsConcat(ToyModel{}, "dog", 0, PositionEncoding::Rope),
                       "addVsConcat: enc must be sinusoidal or learned (the encodings that are added), got rope",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(addVsConcat(ToyModel{}, "dog", -1, PositionEncoding::Sinusoidal),
                       "addVsConcat: pos must be in [0, 4096], got -1", std::invalid_argument);
}

TEST_CASE("pipeline: rotating V too leaves the weights and changes the outputs (004 question 7)") {
  const std::vector<std::string> tokens = splitTokens("The cat sat on the mat");
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    const ToyModel m{8, 0, causal};
    const RotateValuesResult r = ropeRotateValues(m, tokens);
    CHECK(r.maxWeightDelta <= 1e-6);
    CHECK(r.maxOutputDelta > 1e-2);
    // The rebuilt toy model is attention.hpp's: RoPE on Q and K matches toyAttention (float32
    // Q, K, V here against float64 there).
    const AttentionResult ref = toyAttention(m, tokens, PositionEncoding::Rope);
    REQUIRE(ref.weights.values.size() == r.plain.weights.values.size());
    for (std::size_t i = 0; i < ref.weights.values.size(); ++i) CHECK(r.plain.weights.values[i] == doctest::Approx(ref.weights.values[i]).epsilon(1e-5));
    for (std::size_t i = 0; i < ref.output.values.size(); ++i)
      CHECK(r.plain.output.values[i] == doctest::Approx(ref.output.values[i]).epsilon(1e-5));
  }
  // Position 0 is not rotated: the first token's value row is the same, so with a causal mask
  // the first output is unchanged.
  const RotateValuesResult causal = ropeRotateValues(ToyModel{8, 0, true}, tokens);
  for (int c = 0; c < 8; ++c) CHECK(causal.rotated.output.at(0, c) == causal.plain.output.at(0, c));
  CHECK_THROWS_WITH_AS(ropeRotateValues(ToyModel{}, {}), "ropeRotateValues: tokens must not be empty", std::invalid_argument);
}

}
