#include "core/context_extension.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "core/check.hpp"

// [SECTION] helpers: regimes, factor lists
// [SECTION] names
// [SECTION] validation
// [SECTION] the exposed pieces (NTK bases, YaRN correction dim and mscale)
// [SECTION] computeRopeFrequencies

namespace posviz {

// ---------------------------------------------------------------------------------------------
// [SECTION] helpers: regimes, factor lists
// ---------------------------------------------------------------------------------------------

namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// Ratio-based regime for methods without an explicit ramp (NtkAware, DynamicNtk, LongRope,
// Linear): ratio = theta'/theta; ~1 is kept, ~1/scale fully interpolated. The 1e-6 tolerance
// absorbs the rounding of pow() so that NTK's first and last pairs land on the ends exactly.
void classifyByRatio(RopeFrequencies& f, double scale) {
  for (std::size_t i = 0; i < f.invFreq.size(); ++i) {
    const double ratio = f.invFreq[i] / f.baseInvFreq[i];
    if (ratio >= 1.0 - 1e-6) {
      f.regime[i] = PairRegime::Kept;
      f.ramp[i] = 0.0;
    } else if (ratio <= (1.0 / scale) * (1.0 + 1e-6)) {
      f.regime[i] = PairRegime::Interpolated;
      f.ramp[i] = 1.0;
    } else {
      // Reached only when scale > 1 (else the two branches above cover every ratio).
      f.regime[i] = PairRegime::Blended;
      f.ramp[i] = std::clamp((1.0 - ratio) / (1.0 - 1.0 / scale), 0.0, 1.0);
    }
  }
}

void classifyByRamp(RopeFrequencies& f) {
  for (std::size_t i = 0; i < f.ramp.size(); ++i) {
    if (f.ramp[i] <= 0.0) f.regime[i] = PairRegime::Kept;
    else if (f.ramp[i] >= 1.0) f.regime[i] = PairRegime::Interpolated;
    else f.regime[i] = PairRegime::Blended;
  }
}

void requireFactorList(const char* fn, const char* param, const std::vector<double>& list, int numPairs) {
  if (static_cast<long long>(list.size()) != numPairs) {
    failArgument(fn, std::string(param) + " has " + std::to_string(list.size()) + " entries, need rotaryDims/2 = " +
                         std::to_string(numPairs));
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!std::isfinite(list[i]) || !(list[i] > 0)) {
      failArgument(fn, std::string(param) + "[" + std::to_string(i) + "] must be a finite number > 0, got " +
                           formatValue(list[i]));
    }
  }
}

void requireScaledBase(const char* fn, double scaled, double base, double factor) {
  if (!std::isfinite(scaled))
    failArgument(fn, "factor " + formatValue(factor) + " with base " + formatValue(base) +
                         " overflows the scaled base (must stay finite), got " + formatValue(scaled));
}

// The NTK bases after validation; an overflow is reported under the caller's name.
double scaledNtkBase(const char* fn, double base, int rotaryDims, double factor) {
  const double d = static_cast<double>(rotaryDims);
  const double scaled = base * std::pow(factor, d / (d - 2.0));
  requireScaledBase(fn, scaled, base, factor);
  return scaled;
}

// DynamicNtk's divisor of the lowest pair: factor * L / L0 - (factor - 1), L = max(seqLen, L0)
// (HF: seq_len if seq_len > max_position_embeddings else max_position_embeddings).
double dynamicScale(double factor, long long seqLen, int originalMaxPositions) {
  const double len = static_cast<double>(std::max<long long>(seqLen, originalMaxPositions));
  return factor * len / static_cast<double>(originalMaxPositions) - (factor - 1.0);
}

double scaledDynamicBase(const char* fn, double base, int rotaryDims, double factor, long long seqLen,
                         int originalMaxPositions) {
  const double d = static_cast<double>(rotaryDims);
  const double scaled = base * std::pow(dynamicScale(factor, seqLen, originalMaxPositions), d / (d - 2.0));
  requireScaledBase(fn, scaled, base, factor);
  return scaled;
}

// base^(2i/d) as HF writes it: base ** (arange(0, d, 2) / d).
double posFreq(double base, int pair, int rotaryDims) {
  return std::pow(base, static_cast<double>(2 * pair) / static_cast<double>(rotaryDims));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] names
// ---------------------------------------------------------------------------------------------

const char* scalingName(ScalingMethod m) {
  switch (m) {
    case ScalingMethod::None: return "none";
    case ScalingMethod::Linear: return "linear";
    case ScalingMethod::NtkAware: return "ntk";
    case ScalingMethod::DynamicNtk: return "dynamic";
    case ScalingMethod::Yarn: return "yarn";
    case ScalingMethod::Llama3: return "llama3";
    case ScalingMethod::LongRope: return "longrope";
  }
  return "unknown";
}

std::optional<ScalingMethod> parseScalingName(const std::string& name) {
  for (ScalingMethod m : {ScalingMethod::None, ScalingMethod::Linear, ScalingMethod::NtkAware, ScalingMethod::DynamicNtk,
                          ScalingMethod::Yarn, ScalingMethod::Llama3, ScalingMethod::LongRope}) {
    if (name == scalingName(m)) return m;
  }
  return std::nullopt;
}

const char* regimeName(PairRegime r) {
  switch (r) {
    case PairRegime::Kept: return "kept";
    case PairRegime::Blended: return "blended";
    case PairRegime::Interpolated: return "interpolated";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] validation
// ---------------------------------------------------------------------------------------------

void validateRopeScaling(const char* fn, int rotaryDims, const RopeScaling& s) {
  requireEven(fn, "rotaryDims", rotaryDims);
  switch (s.method) {
    case ScalingMethod::None:
    case ScalingMethod::Linear:
    case ScalingMethod::NtkAware:
    case ScalingMethod::DynamicNtk:
    case ScalingMethod::Yarn:
    case ScalingMethod::Llama3:
    case ScalingMethod::LongRope: break;
    default: failArgument(fn, "method must be a ScalingMethod, got " + std::to_string(static_cast<int>(s.method)));
  }
  requireAtLeast(fn, "factor", s.factor, 1.0);
  requirePositiveInt(fn, "originalMaxPositions", s.originalMaxPositions);
  requireNonNegativeInt(fn, "seqLen", s.seqLen);
  if (s.attentionFactor) requirePositive(fn, "attentionFactor", *s.attentionFactor);
  const int numPairs = rotaryDims / 2;
  switch (s.method) {
    case ScalingMethod::NtkAware:
    case ScalingMethod::DynamicNtk:
      // The exponent d/(d-2) is undefined for a single pair.
      if (rotaryDims < 4)
        failArgument(fn, std::string("rotaryDims must be >= 4 for ") + scalingName(s.method) +
                             " (exponent rotaryDims/(rotaryDims-2)), got " + std::to_string(rotaryDims));
      break;
    case ScalingMethod::Yarn:
      requirePositive(fn, "betaSlow", s.betaSlow);
      // HF warns only when beta_fast < beta_slow; equal betas give one boundary, and the ramp's
      // +0.001 guard (linear_ramp_factor) keeps it finite.
      if (!std::isfinite(s.betaFast) || !(s.betaFast >= s.betaSlow))
        failArgument(fn, "betaFast must be a finite number >= betaSlow (" + formatValue(s.betaSlow) + "), got " +
                             formatValue(s.betaFast));
      requireAtLeast(fn, "mscale", s.mscale, 0.0);
      requireAtLeast(fn, "mscaleAllDim", s.mscaleAllDim, 0.0);
      break;
    case ScalingMethod::Llama3:
      requirePositive(fn, "lowFreqFactor", s.lowFreqFactor);
      if (!std::isfinite(s.highFreqFactor) || !(s.highFreqFactor > s.lowFreqFactor))
        failArgument(fn, "highFreqFactor must be a finite number > lowFreqFactor (" + formatValue(s.lowFreqFactor) +
                             "), got " + formatValue(s.highFreqFactor));
      break;
    case ScalingMethod::LongRope:
      requireFactorList(fn, "shortFactor", s.shortFactor, numPairs);
      requireFactorList(fn, "longFactor", s.longFactor, numPairs);
      if (!s.attentionFactor && s.factor > 1.0 && s.originalMaxPositions < 2)
        failArgument(fn, "originalMaxPositions must be >= 2 for longrope's attention factor "
                         "sqrt(1 + ln(factor)/ln(originalMaxPositions)), got " +
                             std::to_string(s.originalMaxPositions));
      break;
    default: break;
  }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] the exposed pieces (NTK bases, YaRN correction dim and mscale)
// ---------------------------------------------------------------------------------------------

double ntkAwareBase(double base, int rotaryDims, double factor) {
  const char* fn = "ntkAwareBase";
  requireGreater(fn, "base", base, 1.0);
  requireEven(fn, "rotaryDims", rotaryDims);
  if (rotaryDims < 4) failArgument(fn, "rotaryDims must be >= 4, got " + std::to_string(rotaryDims));
  requireAtLeast(fn, "factor", factor, 1.0);
  return scaledNtkBase(fn, base, rotaryDims, factor);
}

double dynamicNtkBase(double base, int rotaryDims, double factor, long long seqLen, int originalMaxPositions) {
  const char* fn = "dynamicNtkBase";
  requireGreater(fn, "base", base, 1.0);
  requireEven(fn, "rotaryDims", rotaryDims);
  if (rotaryDims < 4) failArgument(fn, "rotaryDims must be >= 4, got " + std::to_string(rotaryDims));
  requireAtLeast(fn, "factor", factor, 1.0);
  requireNonNegativeInt(fn, "seqLen", seqLen);
  requirePositiveInt(fn, "originalMaxPositions", originalMaxPositions);
  return scaledDynamicBase(fn, base, rotaryDims, factor, seqLen, originalMaxPositions);
}

double yarnCorrectionDim(double numRotations, int rotaryDims, double base, int originalMaxPositions) {
  const char* fn = "yarnCorrectionDim";
  requirePositive(fn, "numRotations", numRotations);
  requireEven(fn, "rotaryDims", rotaryDims);
  requireGreater(fn, "base", base, 1.0);
  requirePositiveInt(fn, "originalMaxPositions", originalMaxPositions);
  // The pair index whose wavelength fits numRotations times into L0:
  // d * ln(L0 / (numRotations * 2 pi)) / (2 ln base).
  return static_cast<double>(rotaryDims) *
         std::log(static_cast<double>(originalMaxPositions) / (numRotations * kTwoPi)) / (2.0 * std::log(base));
}

double yarnGetMscale(double scale, double mscale) {
  const char* fn = "yarnGetMscale";
  requirePositive(fn, "scale", scale);
  requireFinite(fn, "mscale", mscale);
  if (scale <= 1.0) return 1.0;
  return 0.1 * mscale * std::log(scale) + 1.0;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] computeRopeFrequencies
// ---------------------------------------------------------------------------------------------

namespace {

// One function per method: each fills f.invFreq (and ramp, attentionFactor, effectiveBase) from
// f.baseInvFreq, then classifies the pairs.

void applyLinear(RopeFrequencies& f, const RopeScaling& s) {
  const std::size_t n = f.baseInvFreq.size();
  for (std::size_t i = 0; i < n; ++i) f.invFreq[i] = f.baseInvFreq[i] / s.factor;
  if (s.factor > 1.0) {
    f.regime.assign(n, PairRegime::Interpolated);
    f.ramp.assign(n, 1.0);
  }
}

void applyNtk(const char* fn, RopeFrequencies& f, int rotaryDims, double base, const RopeScaling& s) {
  double scale = s.factor;
  if (s.method == ScalingMethod::NtkAware) {
    f.effectiveBase = scaledNtkBase(fn, base, rotaryDims, s.factor);
  } else {
    f.effectiveBase = scaledDynamicBase(fn, base, rotaryDims, s.factor, s.seqLen, s.originalMaxPositions);
    // The lowest pair is divided by the effective scale, not by factor.
    scale = dynamicScale(s.factor, s.seqLen, s.originalMaxPositions);
  }
  for (int i = 0; i < rotaryDims / 2; ++i) f.invFreq[static_cast<std::size_t>(i)] = 1.0 / posFreq(f.effectiveBase, i, rotaryDims);
  classifyByRatio(f, scale);
}

void applyYarn(RopeFrequencies& f, int rotaryDims, double base, const RopeScaling& s) {
  const double factor = s.factor;
  if (s.attentionFactor) f.attentionFactor = *s.attentionFactor;
  else if (s.mscale != 0.0 && s.mscaleAllDim != 0.0)
    f.attentionFactor = yarnGetMscale(factor, s.mscale) / yarnGetMscale(factor, s.mscaleAllDim);
  else f.attentionFactor = yarnGetMscale(factor, 1.0);

  // find_correction_range: low from beta_fast, high from beta_slow, clamped to [0, d-1].
  double low = yarnCorrectionDim(s.betaFast, rotaryDims, base, s.originalMaxPositions);
  double high = yarnCorrectionDim(s.betaSlow, rotaryDims, base, s.originalMaxPositions);
  if (s.truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, static_cast<double>(rotaryDims - 1));
  // linear_ramp_factor: a zero-width range is widened by 0.001 to avoid the singularity.
  if (low == high) high += 0.001;
  for (int i = 0; i < rotaryDims / 2; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double ramp = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
    const double keep = 1.0 - ramp;  // inv_freq_extrapolation_factor
    const double pos = posFreq(base, i, rotaryDims);
    const double extrapolation = 1.0 / pos;
    const double interpolation = 1.0 / (factor * pos);
    f.invFreq[k] = interpolation * (1.0 - keep) + extrapolation * keep;
    f.ramp[k] = factor > 1.0 ? ramp : 0.0;
  }
  classifyByRamp(f);
}

void applyLlama3(RopeFrequencies& f, const RopeScaling& s) {
  f.invFreq = llama3Scaled(f.baseInvFreq, s, &f.ramp);
  if (!(s.factor > 1.0)) f.ramp.assign(f.ramp.size(), 0.0);
  classifyByRamp(f);
}

void applyLongRope(RopeFrequencies& f, int rotaryDims, double base, const RopeScaling& s) {
  const double factor = s.factor;
  if (s.attentionFactor) f.attentionFactor = *s.attentionFactor;
  else if (factor <= 1.0) f.attentionFactor = 1.0;
  else f.attentionFactor = std::sqrt(1.0 + std::log(factor) / std::log(static_cast<double>(s.originalMaxPositions)));
  // HF: long factors once seq_len exceeds original_max_position_embeddings.
  const std::vector<double>& ext = s.seqLen > s.originalMaxPositions ? s.longFactor : s.shortFactor;
  for (int i = 0; i < rotaryDims / 2; ++i) {
    const auto k = static_cast<std::size_t>(i);
    f.invFreq[k] = 1.0 / (ext[k] * posFreq(base, i, rotaryDims));
  }
  classifyByRatio(f, factor);
}

}  // namespace

std::vector<double> llama3Scaled(const std::vector<double>& invFreq, const RopeScaling& s, std::vector<double>* ramp) {
  const double factor = s.factor;
  const double l0 = static_cast<double>(s.originalMaxPositions);
  const double lowFreqWavelen = l0 / s.lowFreqFactor;
  const double highFreqWavelen = l0 / s.highFreqFactor;
  std::vector<double> out(invFreq.size());
  if (ramp != nullptr) ramp->assign(invFreq.size(), 0.0);
  for (std::size_t i = 0; i < invFreq.size(); ++i) {
    const double freq = invFreq[i];
    const double wavelen = kTwoPi / freq;
    double r = 0.0;
    if (wavelen < highFreqWavelen) {
      out[i] = freq;
    } else if (wavelen > lowFreqWavelen) {
      out[i] = freq / factor;
      r = 1.0;
    } else {
      const double smooth = (l0 / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
      out[i] = (1.0 - smooth) * freq / factor + smooth * freq;
      r = 1.0 - smooth;
    }
    if (ramp != nullptr) (*ramp)[i] = r;
  }
  return out;
}

RopeFrequencies computeRopeFrequencies(int rotaryDims, double base, const RopeScaling& s) {
  const char* fn = "computeRopeFrequencies";
  requireEven(fn, "rotaryDims", rotaryDims);
  requireGreater(fn, "base", base, 1.0);
  validateRopeScaling(fn, rotaryDims, s);

  const int numPairs = rotaryDims / 2;
  const auto n = static_cast<std::size_t>(numPairs);
  RopeFrequencies f;
  f.baseInvFreq.resize(n);
  f.invFreq.resize(n);
  f.regime.assign(n, PairRegime::Kept);
  f.ramp.assign(n, 0.0);
  f.attentionFactor = 1.0;
  f.effectiveBase = base;
  for (int i = 0; i < numPairs; ++i) f.baseInvFreq[static_cast<std::size_t>(i)] = 1.0 / posFreq(base, i, rotaryDims);

  switch (s.method) {
    case ScalingMethod::None: f.invFreq = f.baseInvFreq; break;
    case ScalingMethod::Linear: applyLinear(f, s); break;
    case ScalingMethod::NtkAware:
    case ScalingMethod::DynamicNtk: applyNtk(fn, f, rotaryDims, base, s); break;
    case ScalingMethod::Yarn: applyYarn(f, rotaryDims, base, s); break;
    case ScalingMethod::Llama3: applyLlama3(f, s); break;
    case ScalingMethod::LongRope: applyLongRope(f, rotaryDims, base, s); break;
  }
  return f;
}

}  // namespace posviz
