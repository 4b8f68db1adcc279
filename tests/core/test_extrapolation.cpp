// The extrapolation lab (core/extrapolation.hpp): hand-checkable properties, toyAttention's last
// row reproduced, and unseen-angle shares cross-checked against HF-formula frequencies in torch.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>

#include "core/angle.hpp"
#include "core/attention.hpp"
#include "core/extrapolation.hpp"
#include "core/rope.hpp"

using namespace posviz;

namespace {

ExtrapolationSetup smallSetup() {
  ExtrapolationSetup s;
  s.model = ToyModel{8, 0, false};
  s.trainedLength = 16;
  return s;
}

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

// Brute force over every position: the definition the closed form restates.
std::vector<double> plainTheta(int headDim, double base = 10000.0) {
  RopeParams p;
  p.headDim = headDim;
  p.base = base;
  return ropeFrequencies(p).invFreq;
}

// Position p is unseen when its angle mod 2 pi lies past the arc [0, (L0-1) theta] swept in training.
int bruteCount(double trainedTheta, double theta, int l0, int length) {
  const double span = (l0 - 1) * trainedTheta;
  if (span * (1.0 + kUnseenTolerance) >= kTwoPi) return 0;
  int count = 0;
  for (int p = 0; p < length; ++p) count += wrapAngle(p * theta) > span * (1.0 + kUnseenTolerance) ? 1 : 0;
  return count;
}

double bruteShare(double trainedTheta, double theta, int l0, int length) {
  return static_cast<double>(bruteCount(trainedTheta, theta, l0, length)) / length;
}

}  // namespace

TEST_SUITE("extrapolation") {

TEST_CASE("extrapolation: entropy of uniform weights is ln T, of one key 0, and bad weights are refused") {
  for (int t : {1, 2, 3, 7, 4096}) {
    CAPTURE(t);
    const std::vector<double> w(static_cast<std::size_t>(t), 1.0 / t);
    CHECK(attentionEntropy(w) == doctest::Approx(std::log(static_cast<double>(t))).epsilon(1e-12));
  }
  CHECK(attentionEntropy(std::vector<double>{0.0, 1.0, 0.0}) == 0.0);
  CHECK(attentionEntropy(std::vector<double>{0.25, 0.75}) ==
        doctest::Approx(-(0.25 * std::log(0.25) + 0.75 * std::log(0.75))));
  CHECK_THROWS_WITH_AS(attentionEntropy(std::vector<double>{0.5, -0.1}),
                       "attentionEntropy: weights must be finite and >= 0, got -0.1 at index 1", std::invalid_argument);
  CHECK_THROWS_AS(attentionEntropy(std::vector<double>{std::nan("")}), std::invalid_argument);
}

TEST_CASE("extrapolation: every encoding's weights sum to 1, and entropy is at most ln L") {
  const ExtrapolationSetup s = smallSetup();
  for (ExtrapolationEncoding e : allExtrapolationEncodings()) {
    for (int length : {1, 2, 16, 64}) {
      CAPTURE(extrapolationEncodingName(e));
      CAPTURE(length);
      const ExtrapolationRun r = runExtrapolation(s, e, length);
      CHECK(r.queryPosition == length - 1);
      CHECK(r.maxEntropy == doctest::Approx(std::log(static_cast<double>(length))));
      if (e == ExtrapolationEncoding::Learned && length > s.trainedLength) continue;  // its error state, below
      REQUIRE(r.error.empty());
      REQUIRE(r.weights.size() == static_cast<std::size_t>(length));
      CHECK(sum(r.weights) == doctest::Approx(1.0).epsilon(1e-12));
      for (double w : r.weights) CHECK(w >= 0.0);
      CHECK(r.entropy >= 0.0);
      CHECK(r.entropy <= r.maxEntropy + 1e-12);
      if (length >= 2) CHECK(r.entropyRatio == doctest::Approx(r.entropy / std::log(static_cast<double>(length))));
    }
  }
}

TEST_CASE("extrapolation: the run is toyAttention's last row, by distance, for the shared toy model") {
  // toyAttention computes all T x T weights (float32 grid); the lab computes only the last query's
  // row in float64. Same toy model, same tiled tokens: the same numbers to float32 rounding.
  ExtrapolationSetup s = smallSetup();
  s.trainedLength = 32;
  const std::pair<ExtrapolationEncoding, PositionEncoding> pairs[] = {
      {ExtrapolationEncoding::Sinusoidal, PositionEncoding::Sinusoidal},
      {ExtrapolationEncoding::Learned, PositionEncoding::Learned},
      {ExtrapolationEncoding::Rope, PositionEncoding::Rope},
      {ExtrapolationEncoding::Alibi, PositionEncoding::Alibi}};
  for (bool causal : {false, true}) {
    for (const auto& pair : pairs) {
      const ExtrapolationEncoding lab = pair.first;   // named copies: CAPTURE's lambda cannot take a structured binding in clang 14
      const PositionEncoding toy = pair.second;
      for (int length : {5, 13, 700}) {   // 700: past the lab's restarts of its stepped angles
        if (lab == ExtrapolationEncoding::Learned && length > s.trainedLength) continue;   // no row: no weights
        CAPTURE(extrapolationEncodingName(lab));
        CAPTURE(length);
        CAPTURE(causal);
        s.model.causal = causal;   // the last query sees every key either way
        const ExtrapolationRun r = runExtrapolation(s, lab, length);
        const AttentionResult a = toyAttention(s.model, tiledTokens(s.sentence, length), toy);
        REQUIRE(r.weights.size() == static_cast<std::size_t>(length));
        for (int dist = 0; dist < length; ++dist) {
          CAPTURE(dist);
          CHECK(r.weights[static_cast<std::size_t>(dist)] ==
                doctest::Approx(a.weights.at(length - 1, length - 1 - dist)).epsilon(2e-6));
        }
      }
    }
  }
}

TEST_CASE("extrapolation: scaled RoPE scores are the rotated q . k with the scaled frequencies and attention factor") {
  // Rebuild the last row by rotating q and every k with core's ropeRotate (YaRN, factor 3).
  ExtrapolationSetup s = smallSetup();
  s.factor = 3.0;
  // The lab sums each residue of the sentence (distances rho + n m share a key slot) as one
  // trigonometric series in m, its angles stepped from exact values every 256 terms; every key's
  // rotation here is its own cos and sin. 3000 keys: many restarts; 7 words: a residue stride
  // that shares no factor with 256.
  for (const std::size_t words : {std::size_t{6}, std::size_t{7}})
  for (const int length : {40, 600, 3000}) {
  CAPTURE(length);
  CAPTURE(words);
  s.sentence = words == 6 ? ExtrapolationSetup{}.sentence
                          : std::vector<std::string>{"a", "quick", "brown", "fox", "jumps", "over", "it"};
  const ExtrapolationRun r = runExtrapolation(s, ExtrapolationEncoding::RopeYarn, length);
  RopeParams rp;
  rp.headDim = 8;
  rp.scaling.method = ScalingMethod::Yarn;
  rp.scaling.factor = 3.0;
  rp.scaling.originalMaxPositions = 16;
  const Grid wq = toyProjection(s.model, ToyMatrix::Query), wk = toyProjection(s.model, ToyMatrix::Key);
  auto project = [](const std::vector<float>& x, const Grid& w) {
    std::vector<double> out(8, 0.0);
    for (int i = 0; i < 8; ++i)
      for (int c = 0; c < 8; ++c) out[static_cast<std::size_t>(c)] += static_cast<double>(x[static_cast<std::size_t>(i)]) * w.at(i, c);   // in float64, as the lab
    return out;
  };
  const std::vector<std::string> tokens = tiledTokens(s.sentence, length);
  const std::vector<double> q = ropeRotate(rp, project(toyEmbedding(s.model, tokens.back()), wq), length - 1.0);
  std::vector<double> logits(static_cast<std::size_t>(length));
  double mx = -1e300;
  for (int j = 0; j < length; ++j) {
    const std::vector<double> k = ropeRotate(rp, project(toyEmbedding(s.model, tokens[static_cast<std::size_t>(j)]), wk), j);
    double dotqk = 0.0;
    for (int c = 0; c < 8; ++c) dotqk += q[static_cast<std::size_t>(c)] * k[static_cast<std::size_t>(c)];
    logits[static_cast<std::size_t>(j)] = dotqk / std::sqrt(8.0);
    mx = std::max(mx, logits[static_cast<std::size_t>(j)]);
  }
  double z = 0.0;
  for (double v : logits) z += std::exp(v - mx);
  CHECK(r.factor == 3.0);
  CHECK(r.attentionFactor == doctest::Approx(0.1 * std::log(3.0) + 1.0));
  for (int j = 0; j < length; ++j) {
    CAPTURE(j);
    CHECK(r.weights[static_cast<std::size_t>(length - 1 - j)] == doctest::Approx(std::exp(logits[static_cast<std::size_t>(j)] - mx) / z).epsilon(1e-11));
  }
  // The entropy comes from the softmax's sums (ln S - sum w (x - max)), not a log per key.
  CHECK(r.entropy == doctest::Approx(attentionEntropy(r.weights)).epsilon(1e-12));
  }
}

TEST_CASE("extrapolation: unscaled RoPE at L <= L0 has no unseen angle; one position past L0 adds 1/L per slow pair") {
  ExtrapolationSetup s = smallSetup();
  s.model.dModel = 16;
  s.trainedLength = 64;
  for (int length : {1, 10, 63, 64}) {
    CAPTURE(length);
    const ExtrapolationRun r = runExtrapolation(s, ExtrapolationEncoding::Rope, length);
    CHECK(r.unseenShareMean == 0.0);
    CHECK(r.pairsWithUnseen == 0);
  }
  const ExtrapolationRun past = runExtrapolation(s, ExtrapolationEncoding::Rope, 65);
  const std::vector<double> theta = plainTheta(16);
  for (std::size_t i = 0; i < theta.size(); ++i) {
    CAPTURE(i);
    const bool slow = 63.0 * theta[i] < 2.0 * std::numbers::pi;   // pair 0..2 wrap within 64 positions
    CHECK(past.trainedSpan[i] == doctest::Approx(63.0 * theta[i]));
    CHECK(past.unseenShare[i] == doctest::Approx(slow ? 1.0 / 65.0 : 0.0));
  }
}

TEST_CASE("extrapolation: PI at factor s keeps every angle seen up to L = s (L0-1) + 1; at s L0 the last s-1 are new") {
  ExtrapolationSetup s = smallSetup();
  s.model.dModel = 16;
  s.trainedLength = 64;
  for (double factor : {2.0, 3.0, 4.0, 8.0}) {
    CAPTURE(factor);
    s.factor = factor;
    const int inside = static_cast<int>(factor) * (s.trainedLength - 1) + 1;
    CHECK(runExtrapolation(s, ExtrapolationEncoding::RopeLinear, inside).unseenShareMean == 0.0);
    // p / s in (L0-1, L0 - 1/s]: past the last trained position by less than one. The documents'
    // "PI maps s L0 into the trained range" holds up to these s-1 positions.
    const int length = static_cast<int>(factor) * s.trainedLength;
    const ExtrapolationRun r = runExtrapolation(s, ExtrapolationEncoding::RopeLinear, length);
    for (std::size_t i = 0; i < r.unseenShare.size(); ++i) {
      CAPTURE(i);
      const bool slow = r.trainedSpan[i] < 2.0 * std::numbers::pi;
      CHECK(r.unseenShare[i] == doctest::Approx(slow ? (factor - 1.0) / length : 0.0));
    }
  }
  s.factor = 0.0;  // automatic: s = L / L0
  CHECK(runExtrapolation(s, ExtrapolationEncoding::RopeLinear, 256).factor == 4.0);
  CHECK(runExtrapolation(s, ExtrapolationEncoding::RopeLinear, 32).factor == 1.0);
  CHECK(runExtrapolation(s, ExtrapolationEncoding::Rope, 256).factor == 1.0);
}

TEST_CASE("extrapolation: the closed-form unseen share equals counting every position") {
  ExtrapolationSetup s = smallSetup();
  s.model.dModel = 32;
  s.trainedLength = 100;
  for (ExtrapolationEncoding e : allExtrapolationEncodings()) {
    if (!isRotary(e)) continue;
    for (int length : {50, 100, 101, 333, 800}) {
      for (double factor : {0.0, 2.5, 7.0}) {
        CAPTURE(extrapolationEncodingName(e));
        CAPTURE(length);
        CAPTURE(factor);
        s.factor = factor;
        const ExtrapolationRun r = runExtrapolation(s, e, length);
        const std::vector<double> theta = plainTheta(32);
        for (std::size_t i = 0; i < theta.size(); ++i) {
          CAPTURE(i);
          CHECK(r.unseenShare[i] == doctest::Approx(bruteShare(theta[i], r.invFreq[i], 100, length)));
        }
      }
    }
  }
}

TEST_CASE("extrapolation: the unseen share counts angles mod 2 pi, as counting every position does") {
  // Pairs that never wrap, wrap once or many times within L, and frequencies past 2 pi per position.
  int wrapped = 0, wrappedOften = 0, never = 0;
  for (int headDim : {8, 16, 64, 128}) {
    for (double base : {100.0, 10000.0, 500000.0}) {
      const std::vector<double> theta = plainTheta(headDim, base);
      for (int l0 : {2, 7, 64, 500}) {
        for (int length : {1, 5, 64, 999, 5000}) {
          for (double scale : {1.0, 0.4, 1.0 / 3.0, 4.0, 1234.5}) {
            std::vector<double> scaled(theta);
            for (double& t : scaled) t *= scale;
            const std::vector<double> share = unseenAngleShares(theta, scaled, l0, length);
            REQUIRE(share.size() == theta.size());
            for (std::size_t i = 0; i < theta.size(); ++i) {
              CAPTURE(headDim);
              CAPTURE(base);
              CAPTURE(l0);
              CAPTURE(length);
              CAPTURE(scale);
              CAPTURE(i);
              CHECK(share[i] == bruteShare(theta[i], scaled[i], l0, length));
              const double turns = (length - 1) * scaled[i] / kTwoPi;
              if ((l0 - 1) * theta[i] < kTwoPi) (turns < 1.0 ? never : turns < 2.0 ? wrapped : wrappedOften) += 1;
            }
          }
        }
      }
    }
  }
  CAPTURE(never);
  CAPTURE(wrapped);
  CAPTURE(wrappedOften);
  CHECK(never > 100);
  CHECK(wrapped > 100);
  CHECK(wrappedOften > 100);
}

TEST_CASE("extrapolation: at 4 x 4096 the unseen share ramps up over the pairs that wrap past L0, 0.75 only from pair 55") {
  // Issue #48: head_dim 128, base 10000, L0 4096, L 16384. Pairs 0..45 wrap within L0 and have
  // seen every angle; a slower pair that wraps within L comes back to angles it has seen.
  const int l0 = 4096, length = 16384;
  const std::vector<double> theta = plainTheta(128);
  const std::vector<double> share = unseenAngleShares(theta, theta, l0, length);
  std::vector<double> brute(theta.size());
  for (std::size_t i = 0; i < theta.size(); ++i) {
    CAPTURE(i);
    brute[i] = bruteShare(theta[i], theta[i], l0, length);
    CHECK(share[i] == brute[i]);
    CHECK(((l0 - 1) * theta[i] < kTwoPi) == (i >= 46));
  }
  MESSAGE("pairs 46, 48, 50, 54, 55: " << share[46] << ", " << share[48] << ", " << share[50] << ", " << share[54] << ", " << share[55]);
  CHECK(share[45] == 0.0);
  CHECK(share[46] == doctest::Approx(0.11).epsilon(0.05));
  CHECK(share[48] == doctest::Approx(0.27).epsilon(0.05));
  CHECK(share[50] == doctest::Approx(0.50).epsilon(0.05));
  for (std::size_t i = 46; i < theta.size(); ++i) {
    CAPTURE(i);
    if (i > 46) CHECK(share[i] >= share[i - 1]);
    // 0.75 = (L - L0) / L, every position past L0, only for pairs that do not wrap within L.
    CHECK((share[i] == 0.75) == (i >= 55));
    CHECK(((length - 1) * theta[i] < kTwoPi) == (i >= 55));
  }
}

TEST_CASE("extrapolation: Llama-2 sizes at 4 x L0 match the torch reference and run well under a second") {
  // d 128, base 10000, L0 4096, L 16384, factor 4. Reference: tests/reference/hf_extrapolation_reference.py
  // (HF modeling_rope_utils _compute_default/_linear/_yarn/_llama3 formulas, torch float64, brute-force
  // count of angles mod 2 pi): 46 of 64 pairs wrap within 4096 positions; none 0.16342830658 (the
  // 18 slow pairs' shares ramp from 0.113 to 0.75; counting past-the-span angles without the mod,
  // 18 x 0.75 / 64 = 0.2109375); linear, yarn, llama3 5.14984130859e-05 (18 x 3/16384 / 64);
  // ntk 0.04221534729.
  ExtrapolationSetup s;
  s.factor = 4.0;
  const std::vector<double> plain = plainTheta(128);
  const struct {
    ExtrapolationEncoding e;
    double mean;
  } expected[] = {{ExtrapolationEncoding::Rope, 0.16342830658},
                  {ExtrapolationEncoding::RopeLinear, 5.14984130859e-05},
                  {ExtrapolationEncoding::RopeNtk, 0.04221534729},
                  {ExtrapolationEncoding::RopeYarn, 5.14984130859e-05},
                  {ExtrapolationEncoding::RopeLlama3, 5.14984130859e-05}};
  for (const auto& x : expected) {
    CAPTURE(extrapolationEncodingName(x.e));
    const auto t0 = std::chrono::steady_clock::now();
    const ExtrapolationRun r = runExtrapolation(s, x.e, 16384);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    MESSAGE(std::string(extrapolationEncodingName(x.e)) << " at 16384: " << ms << " ms, entropy " << r.entropy << " (" << r.entropyRatio
                                           << " of ln L), unseen " << r.unseenShareMean);
    CHECK(ms < 1000.0);
    CHECK(r.unseenShareMean == doctest::Approx(x.mean).epsilon(1e-10));
    double bruteMean = 0.0;
    for (std::size_t i = 0; i < r.invFreq.size(); ++i) bruteMean += bruteShare(plain[i], r.invFreq[i], 4096, 16384);
    CHECK(r.unseenShareMean == doctest::Approx(bruteMean / 64.0).epsilon(1e-12));
    CHECK(r.pairsWithUnseen == 18);
    CHECK(sum(r.weights) == doctest::Approx(1.0));
  }
  CHECK(runExtrapolation(s, ExtrapolationEncoding::RopeYarn, 16384).attentionFactor == doctest::Approx(1.13862943611));
}

TEST_CASE("extrapolation: a lab's runs side by side are each run's own numbers; a throwing callback stops them") {
  ExtrapolationSetup s = smallSetup();
  const std::vector<ExtrapolationEncoding>& all = allExtrapolationEncodings();
  const std::vector<int> lengths = {16, 48, 5, 300};
  std::vector<int> seen;
  const auto grid = runExtrapolationGrid(s, all, lengths, [&](int done, int total) {
    CHECK(total == 32);
    seen.push_back(done);
  });
  CHECK(seen.size() == 32);
  CHECK(seen.back() == 32);
  REQUIRE(grid.size() == lengths.size());
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    REQUIRE(grid[k].size() == all.size());
    for (std::size_t e = 0; e < all.size(); ++e) {
      const ExtrapolationRun one = runExtrapolation(s, all[e], lengths[k]);
      CHECK(grid[k][e].encoding == all[e]);
      CHECK(grid[k][e].length == lengths[k]);
      CHECK(grid[k][e].weights == one.weights);
      CHECK(grid[k][e].error == one.error);
    }
  }
  int calls = 0;
  CHECK_THROWS_AS(runExtrapolationGrid(s, all, lengths, [&](int, int) {
                    if (++calls == 3) throw std::runtime_error("cancelled");
                  }),
                  std::runtime_error);
  CHECK(calls < 32);
  CHECK_THROWS_WITH_AS(runExtrapolationGrid(s, all, std::vector<int>{16, 0}), doctest::Contains("length"), std::invalid_argument);
}

TEST_CASE("extrapolation: learned past L0 flags exactly the positions >= L0 and has no weights") {
  const ExtrapolationSetup s = smallSetup();
  const ExtrapolationRun inside = runExtrapolation(s, ExtrapolationEncoding::Learned, 16);
  CHECK(inside.error.empty());
  CHECK(inside.keyHasRow == std::vector<std::uint8_t>(16, 1));
  const ExtrapolationRun r = runExtrapolation(s, ExtrapolationEncoding::Learned, 64);
  REQUIRE(r.keyHasRow.size() == 64);
  for (int p = 0; p < 64; ++p) {
    CAPTURE(p);
    CHECK(r.keyHasRow[static_cast<std::size_t>(p)] == (p < 16 ? 1 : 0));
  }
  CHECK(r.weights.empty());
  CHECK(std::isnan(r.entropy));
  CHECK(std::isnan(r.entropyRatio));
  CHECK(r.error == "learned: positions 16..63 (48 of 64) have no row in a table of L0 = 16 rows, the query at 63 among "
                   "them: no attention (nn.Embedding raises IndexError)");
  CHECK(runExtrapolation(s, ExtrapolationEncoding::Sinusoidal, 64).keyHasRow.empty());
}

TEST_CASE("extrapolation: a learned table drawn once serves every L0 below its rows, bit for bit; a wrong one is refused") {
  ExtrapolationSetup s = smallSetup();
  const std::shared_ptr<const Grid> table = extrapolationLearnedTable(s, 64);
  REQUIRE(table->rows == 64);
  REQUIRE(table->cols == 8);
  for (int l0 : {2, 16, 37, 64}) {
    CAPTURE(l0);
    s.trainedLength = l0;
    s.learnedTable = nullptr;
    const ExtrapolationRun own = runExtrapolation(s, ExtrapolationEncoding::Learned, l0);
    s.learnedTable = table;
    const ExtrapolationRun shared = runExtrapolation(s, ExtrapolationEncoding::Learned, l0);
    CHECK(shared.weights == own.weights);
    CHECK(shared.entropy == own.entropy);
    // Past L0 the run is the error state either way: no table row is read.
    CHECK(runExtrapolation(s, ExtrapolationEncoding::Learned, l0 + 1).weights.empty());
  }
  s.trainedLength = 65;   // more rows than the table has
  CHECK_THROWS_WITH_AS(runExtrapolation(s, ExtrapolationEncoding::Learned, 65), doctest::Contains("learnedTable must be >= 65 x 8"),
                       std::invalid_argument);
  s.trainedLength = 16;
  ExtrapolationSetup other = smallSetup();
  other.model.seed = 1;
  s.learnedTable = extrapolationLearnedTable(other, 64);   // another seed
  CHECK_THROWS_WITH_AS(runExtrapolation(s, ExtrapolationEncoding::Learned, 16), doctest::Contains("not drawn for this model's seed"),
                       std::invalid_argument);
  other = smallSetup();
  other.model.dModel = 16;
  s.learnedTable = extrapolationLearnedTable(other, 64);   // another width
  CHECK_THROWS_WITH_AS(runExtrapolation(s, ExtrapolationEncoding::Learned, 16), doctest::Contains("got 64 x 16"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(extrapolationLearnedTable(smallSetup(), 0), doctest::Contains("rows must be in [1, "), std::invalid_argument);
}

TEST_CASE("extrapolation: ALiBi with equal content scores decays by exp(-m) per step of distance") {
  ExtrapolationSetup s = smallSetup();
  s.sentence = {"dog"};   // every key the same token: equal content scores
  for (double slope : {0.0, 0.125, 1.0}) {
    CAPTURE(slope);
    s.alibiSlope = slope;
    const double m = slope == 0.0 ? toyConstants().alibiSlope : slope;
    for (int length : {16, 128}) {
      const ExtrapolationRun r = runExtrapolation(s, ExtrapolationEncoding::Alibi, length);
      // w_r = e^{-m r} (1 - e^{-m}) / (1 - e^{-m L}), a truncated geometric distribution.
      const double q = std::exp(-m);
      for (int dist = 0; dist < length; ++dist) {
        CAPTURE(dist);
        CHECK(r.weights[static_cast<std::size_t>(dist)] == doctest::Approx(std::pow(q, dist) * (1 - q) / (1 - std::pow(q, length))));
        if (dist > 0) CHECK(r.weights[static_cast<std::size_t>(dist)] < r.weights[static_cast<std::size_t>(dist - 1)]);
      }
    }
  }
  // With one token, plain RoPE and sinusoidal differ from uniform only through position.
  s.alibiSlope = 0.0;
  const ExtrapolationRun none = runExtrapolation(s, ExtrapolationEncoding::Rope, 32);
  CHECK(none.entropy < std::log(32.0));
}

TEST_CASE("extrapolation: tiled tokens and names") {
  CHECK(tiledTokens({"a", "b", "c"}, 7) == std::vector<std::string>{"a", "b", "c", "a", "b", "c", "a"});
  CHECK_THROWS_WITH_AS(tiledTokens({}, 3), "tiledTokens: sentence must not be empty", std::invalid_argument);
  CHECK(std::string(extrapolationEncodingName(ExtrapolationEncoding::RopeLlama3)) == "rope-llama3");
  CHECK(std::string(extrapolationEncodingTitle(ExtrapolationEncoding::RopeLinear)) == "RoPE + PI");
  CHECK(allExtrapolationEncodings().size() == 8);
  CHECK(extrapolationScaling(ExtrapolationEncoding::RopeNtk) == ScalingMethod::NtkAware);
  CHECK_FALSE(isRotary(ExtrapolationEncoding::Alibi));
}

TEST_CASE("extrapolation: bad setups are refused with the parameter and the allowed range") {
  ExtrapolationSetup s = smallSetup();
  const auto rope = ExtrapolationEncoding::Rope;
  CHECK_THROWS_WITH_AS(runExtrapolation(s, rope, 0), "runExtrapolation: length must be in [1, 1048576], got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(runExtrapolation(s, rope, kMaxExtrapolationLength + 1), doctest::Contains("length must be in"),
                       std::invalid_argument);
  ExtrapolationSetup b = s;
  b.trainedLength = 1;
  CHECK_THROWS_WITH_AS(runExtrapolation(b, rope, 4), "runExtrapolation: trainedLength must be >= 2, got 1", std::invalid_argument);
  b = s;
  b.model.dModel = 7;
  CHECK_THROWS_WITH_AS(runExtrapolation(b, rope, 4), doctest::Contains("model.dModel must be even"), std::invalid_argument);
  b.model.dModel = 2;
  CHECK_THROWS_WITH_AS(runExtrapolation(b, ExtrapolationEncoding::RopeNtk, 4), doctest::Contains("model.dModel must be >= 4 for rope-ntk"),
                       std::invalid_argument);
  b = s;
  b.base = 1.0;
  CHECK_THROWS_WITH_AS(runExtrapolation(b, rope, 4), doctest::Contains("base"), std::invalid_argument);
  b = s;
  b.factor = 0.5;
  CHECK_THROWS_WITH_AS(runExtrapolation(b, rope, 4), doctest::Contains("factor"), std::invalid_argument);
  b = s;
  b.alibiSlope = -1.0;
  CHECK_THROWS_WITH_AS(runExtrapolation(b, ExtrapolationEncoding::Alibi, 4), doctest::Contains("alibiSlope"), std::invalid_argument);
  b = s;
  b.sentence.clear();
  CHECK_THROWS_WITH_AS(runExtrapolation(b, rope, 4), "runExtrapolation: sentence must not be empty", std::invalid_argument);
  CHECK_THROWS_WITH_AS(runExtrapolation(s, static_cast<ExtrapolationEncoding>(42), 4), doctest::Contains("encoding must be one of"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(unseenAngleShares(std::vector<double>{1.0}, std::vector<double>{}, 4, 4),
                       doctest::Contains("invFreq must have one value per pair"), std::invalid_argument);
  b = s;
  b.scaling.betaFast = 0.5;  // below betaSlow: core's context-extension check names it
  CHECK_THROWS_AS(runExtrapolation(b, ExtrapolationEncoding::RopeYarn, 4), std::invalid_argument);
}

}  // TEST_SUITE
