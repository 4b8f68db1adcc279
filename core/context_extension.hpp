// context_extension.hpp: RoPE context-extension methods, exactly as the reference code runs them.
//
// Every method maps the plain inverse frequencies theta_i = base^(-2i/d) (d = rotary dims) to
// new ones and may add an attention factor (a multiplier on cos and sin, so scores scale by its
// square). Sources: Hugging Face transformers modeling_rope_utils.py (_compute_default, _linear,
// _ntk, _dynamic_ntk, _yarn, _longrope, _llama3 _parameters) and Meta's Llama 3.1 reference
// (apply_scaling, identical to HF's llama3).
//
//   None       theta_i
//   Linear     theta_i / factor                                  (Chen et al. 2023, PI)
//   NtkAware   base' = base * factor^(d/(d-2)), then theta'_i    (bloc97's NTK-aware scaling)
//   DynamicNtk base' = base * (factor*L/L0 - (factor-1))^(d/(d-2)), L = max(seqLen, L0)
//              (HF: seq_len if seq_len > max_position_embeddings else max_position_embeddings)
//   Yarn       correction dim c(beta) = d * ln(L0 / (beta * 2pi)) / (2 ln base);
//              low = c(betaFast), high = c(betaSlow), floored/ceiled when truncate (HF default),
//              then low = max(low, 0), high = min(high, d-1); if low == high, high += 0.001;
//              ramp_i = clamp((i-low)/(high-low), 0, 1) over pairs i; keep_i = 1 - ramp_i;
//              theta'_i = theta_i/factor * (1-keep_i) + theta_i * keep_i
//              attention factor: attentionFactor if given, else if mscale and mscaleAllDim
//              (both nonzero): get(factor, mscale)/get(factor, mscaleAllDim), else
//              get(factor, 1) with get(s, m) = s <= 1 ? 1 : 0.1*m*ln(s) + 1  (Peng et al. 2023)
//   Llama3     wavelen_i = 2pi/theta_i; wavelen > L0/lowFreqFactor: theta_i/factor;
//              wavelen < L0/highFreqFactor: theta_i; between (bounds included): smooth blend
//              s = (L0/wavelen - lowFreqFactor)/(highFreqFactor - lowFreqFactor),
//              theta' = (1-s)*theta/factor + s*theta
//   LongRope   theta'_i = 1 / (ext_i * base^(2i/d)) with ext = longFactor when seqLen > L0,
//              else shortFactor (seqLen 0 = short); attention factor: attentionFactor if
//              given, else sqrt(1 + ln(factor)/ln(L0)) when factor > 1, else 1
//
//   L0 = originalMaxPositions. factor is the extension ratio itself: where HF derives it from
//   the config (YaRN with original_max_position_embeddings in rope_scaling, Phi-3's LongRoPE:
//   max_position_embeddings / original_max_position_embeddings), pass that ratio, e.g. 32 for
//   Phi-3-mini-128k (131072 / 4096).
//   With factor 1 every method returns plain RoPE (DynamicNtk: while seqLen <= L0; past L0
//   HF's formula grows the base even with factor 1, and so does this one).
//
// PRECISION
//   HF evaluates inv_freq in float32 tensors; posviz evaluates the same formulas in float64
//   (the reference values here are the formulas, not their float32 rounding, which differs by
//   up to ~1e-7 relative).
//
// REGIMES (for the views' bands; ramp 0 = kept .. 1 = fully interpolated)
//   Yarn: ramp_i itself. Llama3: 0 below L0/highFreqFactor, 1 above L0/lowFreqFactor, 1-s
//   between. Linear: 1. NtkAware, DynamicNtk, LongRope: from ratio = theta'/theta:
//   ratio >= 1-1e-6 kept, ratio <= (1/scale)(1+1e-6) interpolated, else blended with
//   ramp = (1-ratio)/(1-1/scale), where scale = factor (DynamicNtk: factor*L/L0-(factor-1),
//   the divisor its lowest pair actually gets). ramp 0 is kept, 1 interpolated, else blended.
//   With factor 1 (None too) every pair is kept with ramp 0.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace posviz {

enum class ScalingMethod { None, Linear, NtkAware, DynamicNtk, Yarn, Llama3, LongRope };

// "none", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope" (the CLI's names).
const char* scalingName(ScalingMethod m);
std::optional<ScalingMethod> parseScalingName(const std::string& name);

struct RopeScaling {
  ScalingMethod method = ScalingMethod::None;
  double factor = 1.0;                 // >= 1, target length / trained length
  int originalMaxPositions = 4096;     // L0, trained context, > 0
  long long seqLen = 0;                // current sequence length (DynamicNtk, LongRope); 0 = L0
  double betaFast = 32.0;              // Yarn, rotations; >= betaSlow
  double betaSlow = 1.0;               // Yarn, rotations; > 0
  bool truncate = true;                // Yarn: floor/ceil the correction range (HF default)
  double mscale = 0.0;                 // Yarn (DeepSeek variant); 0 = unset
  double mscaleAllDim = 0.0;           // Yarn (DeepSeek variant); 0 = unset
  double lowFreqFactor = 1.0;          // Llama3, > 0
  double highFreqFactor = 4.0;         // Llama3, > lowFreqFactor
  std::vector<double> shortFactor;     // LongRope, one per rotary pair, each > 0
  std::vector<double> longFactor;      // LongRope, one per rotary pair, each > 0
  std::optional<double> attentionFactor;  // Yarn, LongRope: overrides the computed factor
};

// Which regime each pair is in after scaling, for the views' bands.
enum class PairRegime { Kept, Blended, Interpolated };
const char* regimeName(PairRegime r);  // "kept", "blended", "interpolated"

struct RopeFrequencies {
  std::vector<double> invFreq;        // one per rotary pair, rad/position, after scaling
  std::vector<double> baseInvFreq;    // the same pairs before scaling
  std::vector<PairRegime> regime;     // one per rotary pair
  std::vector<double> ramp;           // per pair, 0 = kept .. 1 = fully interpolated (Yarn/Llama3 exact; others from the ratio)
  double attentionFactor = 1.0;       // multiplies cos and sin
  double effectiveBase = 0.0;         // NtkAware/DynamicNtk: the new base; else the base
};

// Validates s for a rotary width of rotaryDims dims; messages start with fn.
void validateRopeScaling(const char* fn, int rotaryDims, const RopeScaling& s);

// rotaryDims: the number of rotating dims (even, >= 2; >= 4 for NtkAware/DynamicNtk, whose
// exponent d/(d-2) needs two pairs). base > 1.
// Throws std::invalid_argument naming the parameter on: factor < 1 or non-finite,
// originalMaxPositions <= 0, seqLen < 0, attentionFactor <= 0, an unknown method;
// Yarn: betaSlow <= 0, betaFast <= betaSlow, mscale or mscaleAllDim < 0;
// Llama3: lowFreqFactor <= 0, highFreqFactor <= lowFreqFactor; LongRope: factor lists whose
// length is not rotaryDims/2, non-finite or non-positive entries, originalMaxPositions < 2
// when its attention factor must be computed (ln(L0) divides). factor, originalMaxPositions,
// seqLen and attentionFactor are checked for every method; the other fields only for theirs.
RopeFrequencies computeRopeFrequencies(int rotaryDims, double base, const RopeScaling& s);

// The pieces the views draw, exposed for tests and the explorer. Each validates its arguments
// like computeRopeFrequencies.
double ntkAwareBase(double base, int rotaryDims, double factor);
double dynamicNtkBase(double base, int rotaryDims, double factor, long long seqLen, int originalMaxPositions);
double yarnCorrectionDim(double numRotations, int rotaryDims, double base, int originalMaxPositions);
double yarnGetMscale(double scale, double mscale);
// Llama 3.1's apply_scaling on any inverse frequencies (by wavelength, so it can be applied to
// frequencies that are already scaled); ramp, when given, receives each pair's ramp.
std::vector<double> llama3Scaled(const std::vector<double>& invFreq, const RopeScaling& s, std::vector<double>* ramp = nullptr);

}  // namespace posviz
