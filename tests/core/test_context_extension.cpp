// Tests for core/context_extension: every RoPE scaling method against hand-computed values and
// against Hugging Face's modeling_rope_utils formulas re-evaluated in float64 with numpy.
//
// HF computes inv_freq in float32 tensors; posviz computes in float64, so cross-checks compare
// with the float64 re-evaluation (not with float32 output) at a relative tolerance of 1e-11,
// the precision of the 12 printed digits; hand-derived identities use 1e-14 or tighter.
// The reference values marked "HF formula re-evaluated in float64" come from a numpy transcript
// of _compute_{yarn,llama3,longrope,dynamic_ntk}_parameters evaluated in float64, printed
// with 12 significant digits.
//
// [SECTION] names and plain RoPE
// [SECTION] one method per test: linear, NTK-aware, dynamic NTK, YaRN, Llama 3.1, LongRoPE
// [SECTION] factor 1 is plain RoPE
// [SECTION] bad input
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "core/context_extension.hpp"

using namespace posviz;

namespace {

constexpr double kPi = std::numbers::pi;

// Purely relative comparison: doctest's default scale of 1 would turn epsilon into an absolute
// tolerance for the small inverse frequencies (1e-5 and below) checked here.
doctest::Approx rel(double expected, double epsilon) { return doctest::Approx(expected).epsilon(epsilon).scale(0.0); }

std::vector<double> plainInvFreq(double base, int d) {
  std::vector<double> v;
  for (int i = 0; i < d / 2; ++i) v.push_back(1.0 / std::pow(base, 2.0 * i / d));
  return v;
}

RopeScaling method(ScalingMethod m, double factor) {
  RopeScaling s;
  s.method = m;
  s.factor = factor;
  return s;
}

}  // namespace

TEST_SUITE("context_extension") {

// [SECTION] names and plain RoPE

TEST_CASE("context: names round-trip and unknown names are rejected") {
  for (ScalingMethod m : {ScalingMethod::None, ScalingMethod::Linear, ScalingMethod::NtkAware, ScalingMethod::DynamicNtk,
                          ScalingMethod::Yarn, ScalingMethod::Llama3, ScalingMethod::LongRope}) {
    CAPTURE(scalingName(m));
    REQUIRE(parseScalingName(scalingName(m)).has_value());
    CHECK(*parseScalingName(scalingName(m)) == m);
  }
  CHECK(std::string(scalingName(ScalingMethod::NtkAware)) == "ntk");
  CHECK(std::string(scalingName(ScalingMethod::DynamicNtk)) == "dynamic");
  CHECK_FALSE(parseScalingName("YaRN").has_value());
  CHECK_FALSE(parseScalingName("").has_value());
  CHECK(std::string(regimeName(PairRegime::Kept)) == "kept");
  CHECK(std::string(regimeName(PairRegime::Blended)) == "blended");
  CHECK(std::string(regimeName(PairRegime::Interpolated)) == "interpolated");
}

TEST_CASE("context: no scaling gives theta_i = base^(-2i/d)") {
  // d = 8, base 10000: 10000^(-0/8, -2/8, -4/8, -6/8) = 1, 0.1, 0.01, 0.001.
  const RopeFrequencies f = computeRopeFrequencies(8, 10000.0, RopeScaling{});
  REQUIRE(f.invFreq.size() == 4);
  const double expected[] = {1.0, 0.1, 0.01, 0.001};
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(f.invFreq[i] == rel(expected[i], 1e-15));
    CHECK(f.baseInvFreq[i] == f.invFreq[i]);
    CHECK(f.regime[i] == PairRegime::Kept);
    CHECK(f.ramp[i] == 0.0);
  }
  CHECK(f.attentionFactor == 1.0);
  CHECK(f.effectiveBase == 10000.0);
}

// [SECTION] one method per test: linear, NTK-aware, dynamic NTK, YaRN, Llama 3.1, LongRoPE

TEST_CASE("context: linear interpolation divides every frequency by the factor") {
  const RopeFrequencies f = computeRopeFrequencies(8, 10000.0, method(ScalingMethod::Linear, 4.0));
  const double expected[] = {0.25, 0.025, 0.0025, 0.00025};
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(f.invFreq[i] == rel(expected[i], 1e-15));
    CHECK(f.regime[i] == PairRegime::Interpolated);
    CHECK(f.ramp[i] == 1.0);
  }
  CHECK(f.attentionFactor == 1.0);
}

TEST_CASE("context: NTK-aware base for d = 128, factor 4") {
  // base' = 10000 * 4^(128/126) = 10000 * 4 * 4^(1/63) = 40000 * e^(ln 4 / 63)
  //       = 40000 * e^0.0220044 = 40000 * 1.0222486 = 40889.94
  const double expected = 40889.9424325;
  CHECK(ntkAwareBase(10000.0, 128, 4.0) == rel(expected, 1e-11));

  const RopeFrequencies f = computeRopeFrequencies(128, 10000.0, method(ScalingMethod::NtkAware, 4.0));
  CHECK(f.effectiveBase == rel(expected, 1e-11));
  CHECK(f.attentionFactor == 1.0);
  // The highest-frequency pair is untouched, the lowest is divided exactly by the factor:
  // (base * 4^(d/(d-2)))^(-(d-2)/d) = base^(-(d-2)/d) / 4.
  CHECK(f.invFreq[0] == 1.0);
  CHECK(f.regime[0] == PairRegime::Kept);
  CHECK(f.invFreq[63] == rel(f.baseInvFreq[63] / 4.0, 1e-12));
  CHECK(f.regime[63] == PairRegime::Interpolated);
  CHECK(f.ramp[63] == 1.0);
  for (int i = 1; i < 63; ++i) {
    CAPTURE(i);
    CHECK(f.invFreq[i] == rel(1.0 / std::pow(expected, 2.0 * i / 128.0), 1e-11));
    CHECK(f.regime[i] == PairRegime::Blended);
    CHECK(f.ramp[i] > f.ramp[i - 1]);
  }
}

TEST_CASE("context: dynamic NTK depends on the current sequence length") {
  const int d = 64;
  const std::vector<double> plain = plainInvFreq(10000.0, d);
  RopeScaling s = method(ScalingMethod::DynamicNtk, 2.0);
  s.originalMaxPositions = 2048;

  SUBCASE("at or below L0 it is plain RoPE") {
    for (long long len : {0LL, 1LL, 1000LL, 2048LL}) {
      CAPTURE(len);
      s.seqLen = len;
      const RopeFrequencies f = computeRopeFrequencies(d, 10000.0, s);
      CHECK(f.effectiveBase == 10000.0);
      for (int i = 0; i < d / 2; ++i) {
        CAPTURE(i);
        CHECK(f.invFreq[i] == rel(plain[i], 1e-15));
        CHECK(f.regime[i] == PairRegime::Kept);
      }
    }
  }
  SUBCASE("at 2 * L0 with factor 2 the base grows by 3^(d/(d-2))") {
    // factor * L / L0 - (factor - 1) = 2 * 2 - 1 = 3.
    s.seqLen = 4096;
    const double expected = 10000.0 * std::pow(3.0, 64.0 / 62.0);
    CHECK(dynamicNtkBase(10000.0, d, 2.0, 4096, 2048) == rel(expected, 1e-14));
    const RopeFrequencies f = computeRopeFrequencies(d, 10000.0, s);
    CHECK(f.effectiveBase == rel(expected, 1e-14));
    // The lowest pair is divided by the effective scale 3, which counts as fully interpolated.
    CHECK(f.invFreq[31] == rel(plain[31] / 3.0, 1e-12));
    CHECK(f.regime[31] == PairRegime::Interpolated);
    CHECK(f.regime[0] == PairRegime::Kept);
    CHECK(f.regime[16] == PairRegime::Blended);
  }
  SUBCASE("HF formula re-evaluated in float64: seq_len 5000") {
    s.seqLen = 5000;
    const RopeFrequencies f = computeRopeFrequencies(d, 10000.0, s);
    CHECK(f.effectiveBase == rel(40564.9684263, 1e-11));
    CHECK(f.invFreq[0] == 1.0);
    CHECK(f.invFreq[1] == rel(0.717786484898, 1e-11));
    CHECK(f.invFreq[16] == rel(0.00496505917444, 1e-11));
    CHECK(f.invFreq[31] == rel(3.43442139471e-05, 1e-11));
  }
}

TEST_CASE("context: YaRN keeps the fast pairs and divides the slow pairs by the factor") {
  // d = 128, base 10000, factor 4, L0 4096, beta_fast 32, beta_slow 1.
  // Correction dims: 128 ln(4096 / (32 * 2 pi)) / (2 ln 10000) = 20.944 -> floor 20;
  //                  128 ln(4096 / (2 pi)) / (2 ln 10000)      = 45.027 -> ceil 46.
  RopeScaling s = method(ScalingMethod::Yarn, 4.0);
  s.originalMaxPositions = 4096;
  const std::vector<double> plain = plainInvFreq(10000.0, 128);
  CHECK(yarnCorrectionDim(32.0, 128, 10000.0, 4096) == rel(20.9444816206, 1e-11));
  CHECK(yarnCorrectionDim(1.0, 128, 10000.0, 4096) == rel(45.0268812738, 1e-11));

  const RopeFrequencies f = computeRopeFrequencies(128, 10000.0, s);
  for (int i = 0; i <= 20; ++i) {
    CAPTURE(i);
    CHECK(f.invFreq[i] == rel(plain[i], 1e-15));
    CHECK(f.regime[i] == PairRegime::Kept);
    CHECK(f.ramp[i] == 0.0);
  }
  for (int i = 46; i < 64; ++i) {
    CAPTURE(i);
    CHECK(f.invFreq[i] == rel(plain[i] / 4.0, 1e-15));
    CHECK(f.regime[i] == PairRegime::Interpolated);
    CHECK(f.ramp[i] == 1.0);
  }
  for (int i = 21; i < 46; ++i) {
    CAPTURE(i);
    CHECK(f.regime[i] == PairRegime::Blended);
    CHECK(f.ramp[i] == rel((i - 20) / 26.0, 1e-15));
  }
  // Pair 33 sits mid-ramp: (33 - 20) / 26 = 0.5, so theta' = theta/4 * 0.5 + theta * 0.5 = 0.625 theta.
  CHECK(f.invFreq[33] == rel(0.625 * plain[33], 1e-15));
  // Attention factor 0.1 ln 4 + 1 = 0.1 * 1.3862944 + 1.
  CHECK(f.attentionFactor == rel(1.1386294361, 1e-10));
  CHECK(f.effectiveBase == 10000.0);

  // HF formula re-evaluated in float64.
  CHECK(f.invFreq[25] == rel(0.0234345526394, 1e-11));
  CHECK(f.invFreq[30] == rel(0.0094885178827, 1e-11));
  CHECK(f.invFreq[40] == rel(0.00133788670238, 1e-11));
  CHECK(f.invFreq[41] == rel(0.00107956927889, 1e-11));
  CHECK(f.invFreq[63] == rel(2.88695496172e-05, 1e-11));
}

TEST_CASE("context: YaRN without truncation uses the fractional correction range") {
  // HF formula re-evaluated in float64, truncate=False: low 20.9444816206, high 45.0268812738.
  RopeScaling s = method(ScalingMethod::Yarn, 4.0);
  s.originalMaxPositions = 4096;
  s.truncate = false;
  const RopeFrequencies f = computeRopeFrequencies(128, 10000.0, s);
  CHECK(f.invFreq[16] == rel(0.1, 1e-14));
  CHECK(f.invFreq[20] == rel(0.056234132519, 1e-11));
  CHECK(f.invFreq[30] == rel(0.00957446123676, 1e-11));
  CHECK(f.invFreq[40] == rel(0.00128563203073, 1e-11));
  CHECK(f.regime[20] == PairRegime::Kept);
  CHECK(f.regime[21] == PairRegime::Blended);
  CHECK(f.ramp[21] == rel((21 - 20.9444816206) / (45.0268812738 - 20.9444816206), 1e-9));
  CHECK(f.regime[45] == PairRegime::Blended);  // 45 < 45.027, not yet at the end of the ramp
  CHECK(f.regime[46] == PairRegime::Interpolated);
}

TEST_CASE("context: YaRN widens an empty correction range by 0.001") {
  // d = 8, base 10000, L0 4096, beta_fast 2000, beta_slow 1000: both correction dims are
  // negative (4096 < 1000 * 2 pi), so low = max(floor(.), 0) = 0 and high = min(ceil(-0.19), 7) = 0.
  // The ramp (i - 0) / 0.001 is 0 at pair 0 and clamps to 1 from pair 1 on (no 0/0).
  RopeScaling s = method(ScalingMethod::Yarn, 2.0);
  s.originalMaxPositions = 4096;
  s.betaFast = 2000.0;
  s.betaSlow = 1000.0;
  CHECK(yarnCorrectionDim(1000.0, 8, 10000.0, 4096) == rel(8.0 * std::log(4096.0 / (2000.0 * kPi)) / (2.0 * std::log(10000.0)), 1e-12));
  const RopeFrequencies f = computeRopeFrequencies(8, 10000.0, s);
  const double expected[] = {1.0, 0.05, 0.005, 0.0005};
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(std::isfinite(f.invFreq[i]));
    CHECK(f.invFreq[i] == rel(expected[i], 1e-14));
  }
  CHECK(f.regime[0] == PairRegime::Kept);
  CHECK(f.regime[1] == PairRegime::Interpolated);
}

TEST_CASE("context: YaRN attention factor, including the mscale / mscale_all_dim variant") {
  RopeScaling s = method(ScalingMethod::Yarn, 40.0);
  s.originalMaxPositions = 4096;
  SUBCASE("DeepSeek: mscale 1, mscale_all_dim 1 cancel to 1") {
    s.mscale = 1.0;
    s.mscaleAllDim = 1.0;
    CHECK(computeRopeFrequencies(64, 10000.0, s).attentionFactor == 1.0);
  }
  SUBCASE("mscale 0.707, mscale_all_dim 0.707 cancel to 1") {
    s.mscale = 0.707;
    s.mscaleAllDim = 0.707;
    CHECK(computeRopeFrequencies(64, 10000.0, s).attentionFactor == 1.0);
  }
  SUBCASE("mscale_all_dim 0 (unset) falls back to 0.1 ln(factor) + 1") {
    // 0.1 * ln 40 + 1 = 0.1 * 3.6888795 + 1.
    s.mscale = 1.0;
    s.mscaleAllDim = 0.0;
    CHECK(computeRopeFrequencies(64, 10000.0, s).attentionFactor == rel(1.36888794541, 1e-11));
  }
  SUBCASE("unequal mscales give the ratio") {
    // (0.1 * 1 * ln 40 + 1) / (0.1 * 0.5 * ln 40 + 1), HF formula re-evaluated in float64.
    s.mscale = 1.0;
    s.mscaleAllDim = 0.5;
    CHECK(computeRopeFrequencies(64, 10000.0, s).attentionFactor == rel(1.1557219902, 1e-10));
  }
  SUBCASE("an explicit attention factor wins") {
    s.mscale = 1.0;
    s.mscaleAllDim = 0.5;
    s.attentionFactor = 0.75;
    CHECK(computeRopeFrequencies(64, 10000.0, s).attentionFactor == 0.75);
  }
  CHECK(yarnGetMscale(1.0, 5.0) == 1.0);
  CHECK(yarnGetMscale(0.5, 5.0) == 1.0);
  CHECK(yarnGetMscale(std::exp(1.0), 2.0) == rel(1.2, 1e-12));
}

TEST_CASE("context: Llama 3.1 8B keeps short wavelengths, divides long ones by 8, blends between") {
  // factor 8, low_freq_factor 1, high_freq_factor 4, L0 8192, base 500000, head_dim 128:
  // wavelength < 8192/4 = 2048 kept, > 8192/1 = 8192 divided by 8.
  RopeScaling s = method(ScalingMethod::Llama3, 8.0);
  s.originalMaxPositions = 8192;
  s.lowFreqFactor = 1.0;
  s.highFreqFactor = 4.0;
  const std::vector<double> plain = plainInvFreq(500000.0, 128);
  const RopeFrequencies f = computeRopeFrequencies(128, 500000.0, s);
  CHECK(f.attentionFactor == 1.0);
  for (int i = 0; i < 64; ++i) {
    CAPTURE(i);
    const double wavelen = 2.0 * kPi / plain[i];
    if (wavelen < 2048.0) {
      CHECK(i <= 28);
      CHECK(f.invFreq[i] == plain[i]);
      CHECK(f.regime[i] == PairRegime::Kept);
    } else if (wavelen > 8192.0) {
      CHECK(i >= 35);
      CHECK(f.invFreq[i] == rel(plain[i] / 8.0, 1e-15));
      CHECK(f.regime[i] == PairRegime::Interpolated);
    } else {
      CHECK(i >= 29);
      CHECK(i <= 34);
      CHECK(f.regime[i] == PairRegime::Blended);
    }
  }
  // Pair 32 by hand: theta = 500000^(-64/128) = 1/sqrt(500000) = 0.00141421356;
  // wavelen = 2 pi sqrt(500000) = 4442.883; s = (8192 / 4442.883 - 1) / (4 - 1) = 0.2812826;
  // theta' = (1 - s) theta / 8 + s theta = 0.3711222 theta = 0.000524846.
  CHECK(plain[32] == rel(1.0 / std::sqrt(500000.0), 1e-15));
  const double smooth = (8192.0 / (2.0 * kPi * std::sqrt(500000.0)) - 1.0) / 3.0;
  CHECK(smooth == rel(0.281282605163, 1e-11));
  CHECK(f.invFreq[32] == rel(((1.0 - smooth) / 8.0 + smooth) * plain[32], 1e-14));
  CHECK(f.invFreq[32] == rel(0.000524846160993, 1e-11));
  CHECK(f.ramp[32] == rel(1.0 - smooth, 1e-14));
  // HF formula re-evaluated in float64.
  CHECK(f.invFreq[29] == rel(0.0021665707635, 1e-11));
  CHECK(f.invFreq[30] == rel(0.00137189356776, 1e-11));
  CHECK(f.invFreq[34] == rel(0.000178507812768, 1e-11));
  CHECK(f.invFreq[35] == rel(9.55621235396e-05, 1e-11));
  CHECK(f.invFreq[50] == rel(4.41153467456e-06, 1e-11));
}

TEST_CASE("context: LongRoPE picks short factors up to L0, long factors past it") {
  RopeScaling s = method(ScalingMethod::LongRope, 32.0);
  s.originalMaxPositions = 4096;
  s.shortFactor = {1.0, 1.05, 1.2, 1.5};
  s.longFactor = {1.0, 2.0, 8.0, 16.0};
  const double plain[] = {1.0, 0.1, 0.01, 0.001};  // d = 8, base 10000
  // Phi-3-mini-128k: L0 4096, 131072 positions -> factor 32; sqrt(1 + ln 32 / ln 4096) =
  // sqrt(1 + 5 ln 2 / (12 ln 2)) = sqrt(17/12) = 1.19023807.
  const double phi3Attention = std::sqrt(17.0 / 12.0);
  CHECK(phi3Attention == rel(1.19023807142, 1e-11));

  for (long long len : {0LL, 100LL, 4096LL}) {
    CAPTURE(len);
    s.seqLen = len;
    const RopeFrequencies f = computeRopeFrequencies(8, 10000.0, s);
    for (int i = 0; i < 4; ++i) {
      CAPTURE(i);
      CHECK(f.invFreq[i] == rel(plain[i] / s.shortFactor[i], 1e-15));
    }
    CHECK(f.attentionFactor == rel(phi3Attention, 1e-15));
  }
  s.seqLen = 4097;
  const RopeFrequencies f = computeRopeFrequencies(8, 10000.0, s);
  // HF formula re-evaluated in float64: [1, 0.05, 0.00125, 6.25e-05].
  CHECK(f.invFreq[0] == 1.0);
  CHECK(f.invFreq[1] == rel(0.05, 1e-15));
  CHECK(f.invFreq[2] == rel(0.00125, 1e-15));
  CHECK(f.invFreq[3] == rel(6.25e-05, 1e-15));
  CHECK(f.attentionFactor == rel(phi3Attention, 1e-15));
  CHECK(f.regime[0] == PairRegime::Kept);
  CHECK(f.regime[1] == PairRegime::Blended);
  CHECK(f.ramp[1] == rel((1.0 - 0.5) / (1.0 - 1.0 / 32.0), 1e-14));
  CHECK(f.regime[2] == PairRegime::Blended);
  CHECK(f.regime[3] == PairRegime::Blended);

  SUBCASE("an ext factor at or past the factor counts as interpolated") {
    s.longFactor = {1.0, 2.0, 32.0, 64.0};
    const RopeFrequencies g = computeRopeFrequencies(8, 10000.0, s);
    CHECK(g.regime[2] == PairRegime::Interpolated);
    CHECK(g.regime[3] == PairRegime::Interpolated);
    CHECK(g.ramp[3] == 1.0);
  }
  SUBCASE("explicit attention factor, and factor 1 gives 1") {
    s.attentionFactor = 1.5;
    CHECK(computeRopeFrequencies(8, 10000.0, s).attentionFactor == 1.5);
    s.attentionFactor.reset();
    s.factor = 1.0;
    CHECK(computeRopeFrequencies(8, 10000.0, s).attentionFactor == 1.0);
  }
}

// [SECTION] factor 1 is plain RoPE

TEST_CASE("context: every method with factor 1 is plain RoPE") {
  const int d = 64;
  const double base = 10000.0;
  const std::vector<double> plain = plainInvFreq(base, d);
  for (ScalingMethod m : {ScalingMethod::None, ScalingMethod::Linear, ScalingMethod::NtkAware, ScalingMethod::DynamicNtk,
                          ScalingMethod::Yarn, ScalingMethod::Llama3, ScalingMethod::LongRope}) {
    CAPTURE(scalingName(m));
    RopeScaling s = method(m, 1.0);
    s.originalMaxPositions = 2048;
    s.seqLen = 1000;  // <= L0: dynamic NTK with factor 1 scales once seqLen exceeds L0
    s.shortFactor.assign(d / 2, 1.0);
    s.longFactor.assign(d / 2, 1.0);
    const RopeFrequencies f = computeRopeFrequencies(d, base, s);
    CHECK(f.attentionFactor == 1.0);
    CHECK(f.effectiveBase == rel(base, 1e-15));
    for (int i = 0; i < d / 2; ++i) {
      CAPTURE(i);
      CHECK(f.invFreq[i] == rel(plain[i], 1e-15));
      CHECK(f.regime[i] == PairRegime::Kept);
      CHECK(f.ramp[i] == 0.0);
    }
  }
}

TEST_CASE("context: frequencies are computed over the rotary dims given") {
  // With 4 rotary dims the second pair is base^(-2/4) = 0.01, not base^(-2/d_head).
  const RopeFrequencies f = computeRopeFrequencies(4, 10000.0, RopeScaling{});
  REQUIRE(f.invFreq.size() == 2);
  CHECK(f.invFreq[1] == rel(0.01, 1e-15));
}

// [SECTION] bad input

TEST_CASE("context: bad arguments are rejected with the parameter and value") {
  SUBCASE("rotaryDims and base") {
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(7, 10000.0, RopeScaling{}),
                         "computeRopeFrequencies: rotaryDims must be even and > 0, got 7", std::invalid_argument);
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(0, 10000.0, RopeScaling{}),
                         "computeRopeFrequencies: rotaryDims must be even and > 0, got 0", std::invalid_argument);
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 1.0, RopeScaling{}),
                         "computeRopeFrequencies: base must be a finite number > 1, got 1", std::invalid_argument);
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, std::nan(""), RopeScaling{}),
                         "computeRopeFrequencies: base must be a finite number > 1, got nan", std::invalid_argument);
  }
  SUBCASE("factor") {
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 10000.0, method(ScalingMethod::Linear, 0.5)),
                         "computeRopeFrequencies: factor must be a finite number >= 1, got 0.5", std::invalid_argument);
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 10000.0, method(ScalingMethod::Yarn, INFINITY)),
                         "computeRopeFrequencies: factor must be a finite number >= 1, got inf", std::invalid_argument);
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 10000.0, method(ScalingMethod::NtkAware, NAN)),
                         "computeRopeFrequencies: factor must be a finite number >= 1, got nan", std::invalid_argument);
  }
  SUBCASE("lengths") {
    RopeScaling s = method(ScalingMethod::DynamicNtk, 2.0);
    s.originalMaxPositions = 0;
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 10000.0, s),
                         "computeRopeFrequencies: originalMaxPositions must be > 0, got 0", std::invalid_argument);
    s.originalMaxPositions = 4096;
    s.seqLen = -1;
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 10000.0, s),
                         "computeRopeFrequencies: seqLen must be >= 0, got -1", std::invalid_argument);
  }
  SUBCASE("NTK needs at least two pairs") {
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(2, 10000.0, method(ScalingMethod::NtkAware, 2.0)),
                         "computeRopeFrequencies: rotaryDims must be >= 4 for ntk (exponent rotaryDims/(rotaryDims-2)), got 2",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(2, 10000.0, method(ScalingMethod::DynamicNtk, 2.0)),
                         doctest::Contains("rotaryDims must be >= 4 for dynamic"), std::invalid_argument);
  }
  SUBCASE("YaRN betas, mscales and attention factor") {
    RopeScaling s = method(ScalingMethod::Yarn, 4.0);
    s.betaFast = 0.5;
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 10000.0, s),
                         "computeRopeFrequencies: betaFast must be a finite number >= betaSlow (1), got 0.5", std::invalid_argument);
    // Equal betas are allowed (HF warns only when beta_fast < beta_slow): one boundary, the ramp's
    // +0.001 guard keeps it finite.
    s.betaFast = 1.0;
    const RopeFrequencies equal = computeRopeFrequencies(8, 10000.0, s);
    for (double f : equal.invFreq) CHECK(std::isfinite(f));
    s.betaFast = 32.0;
    s.betaSlow = 0.0;
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 10000.0, s),
                         "computeRopeFrequencies: betaSlow must be a finite number > 0, got 0", std::invalid_argument);
    s.betaSlow = 1.0;
    s.mscale = -1.0;
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 10000.0, s),
                         "computeRopeFrequencies: mscale must be a finite number >= 0, got -1", std::invalid_argument);
    s.mscale = 1.0;
    s.mscaleAllDim = NAN;
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 10000.0, s),
                         "computeRopeFrequencies: mscaleAllDim must be a finite number >= 0, got nan", std::invalid_argument);
    s.mscaleAllDim = 1.0;
    s.attentionFactor = 0.0;
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 10000.0, s),
                         "computeRopeFrequencies: attentionFactor must be a finite number > 0, got 0", std::invalid_argument);
  }
  SUBCASE("Llama 3 frequency factors") {
    RopeScaling s = method(ScalingMethod::Llama3, 8.0);
    s.lowFreqFactor = 4.0;
    s.highFreqFactor = 4.0;
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 10000.0, s),
                         "computeRopeFrequencies: highFreqFactor must be a finite number > lowFreqFactor (4), got 4", std::invalid_argument);
    s.lowFreqFactor = 0.0;
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 10000.0, s),
                         "computeRopeFrequencies: lowFreqFactor must be a finite number > 0, got 0", std::invalid_argument);
  }
  SUBCASE("LongRoPE factor lists") {
    RopeScaling s = method(ScalingMethod::LongRope, 32.0);
    s.shortFactor = {1.0, 1.0, 1.0};
    s.longFactor = std::vector<double>(64, 1.0);
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(128, 10000.0, s),
                         "computeRopeFrequencies: shortFactor has 3 entries, need rotaryDims/2 = 64", std::invalid_argument);
    s.shortFactor = std::vector<double>(64, 1.0);
    s.longFactor = {};
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(128, 10000.0, s),
                         "computeRopeFrequencies: longFactor has 0 entries, need rotaryDims/2 = 64", std::invalid_argument);
    s.longFactor = std::vector<double>(64, 1.0);
    s.longFactor[5] = 0.0;
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(128, 10000.0, s),
                         "computeRopeFrequencies: longFactor[5] must be a finite number > 0, got 0", std::invalid_argument);
    s.longFactor[5] = NAN;
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(128, 10000.0, s),
                         "computeRopeFrequencies: longFactor[5] must be a finite number > 0, got nan", std::invalid_argument);
    s.longFactor[5] = 1.0;
    s.originalMaxPositions = 1;
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(128, 10000.0, s), doctest::Contains("originalMaxPositions must be >= 2 for longrope"),
                         std::invalid_argument);
  }
  SUBCASE("an out-of-range method value") {
    RopeScaling s;
    s.method = static_cast<ScalingMethod>(42);
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(8, 10000.0, s),
                         "computeRopeFrequencies: method must be a ScalingMethod, got 42", std::invalid_argument);
  }
  SUBCASE("the exposed pieces") {
    CHECK_THROWS_WITH_AS(ntkAwareBase(10000.0, 2, 4.0), "ntkAwareBase: rotaryDims must be >= 4, got 2", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ntkAwareBase(0.5, 8, 4.0), "ntkAwareBase: base must be a finite number > 1, got 0.5",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(ntkAwareBase(10000.0, 8, 0.9), "ntkAwareBase: factor must be a finite number >= 1, got 0.9",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(dynamicNtkBase(10000.0, 8, 2.0, -5, 4096), "dynamicNtkBase: seqLen must be >= 0, got -5",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(dynamicNtkBase(10000.0, 8, 2.0, 10, 0), "dynamicNtkBase: originalMaxPositions must be > 0, got 0",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(dynamicNtkBase(10000.0, 9, 2.0, 10, 10), "dynamicNtkBase: rotaryDims must be even and > 0, got 9",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(yarnCorrectionDim(0.0, 8, 10000.0, 4096),
                         "yarnCorrectionDim: numRotations must be a finite number > 0, got 0", std::invalid_argument);
    CHECK_THROWS_WITH_AS(yarnCorrectionDim(1.0, 8, 10000.0, -1),
                         "yarnCorrectionDim: originalMaxPositions must be > 0, got -1", std::invalid_argument);
    CHECK_THROWS_WITH_AS(ntkAwareBase(1e300, 8, 1e300),
                         "ntkAwareBase: factor 1e+300 with base 1e+300 overflows the scaled base (must stay finite), got inf",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(computeRopeFrequencies(4, 1e300, method(ScalingMethod::NtkAware, 1e200)),
                         "computeRopeFrequencies: factor 1e+200 with base 1e+300 overflows the scaled base (must stay finite), got inf", std::invalid_argument);
    CHECK_THROWS_WITH_AS(yarnGetMscale(0.0, 1.0), "yarnGetMscale: scale must be a finite number > 0, got 0",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(yarnGetMscale(2.0, INFINITY), "yarnGetMscale: mscale must be a finite number, got inf",
                         std::invalid_argument);
  }
}

}  // TEST_SUITE
