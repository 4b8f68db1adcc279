// context_extension.hpp: RoPE context-extension methods, exactly as the reference code runs them.
//
// Every method maps the plain inverse frequencies theta_i = base^(-2i/d) (d = rotary dims) to
// new ones and may add an attention factor (a multiplier on cos and sin, so scores scale by its
// square). Sources: Hugging Face transformers modeling_rope_utils.py (_compute_*_parameters) and
// Meta's Llama 3.1 reference (apply_scaling).
//
//   None       theta_i
//   Linear     theta_i / factor                                  (Chen et al. 2023, PI)
//   NtkAware   base' = base * factor^(d/(d-2)), then theta'_i    (bloc97's NTK-aware scaling)
//   DynamicNtk base' = base * (factor*L/L0 - (factor-1))^(d/(d-2)), L = max(seqLen, L0)
//   Yarn       low/high = correction range of betaFast/betaSlow (floor/ceil, clamped to [0,d-1]);
//              ramp_i = clamp((i-low)/(high-low), 0, 1) over pairs i; keep_i = 1 - ramp_i;
//              theta'_i = theta_i/factor * (1-keep_i) + theta_i * keep_i
//              attention factor: attentionFactor if given, else if mscale and mscaleAllDim:
//              get(factor, mscale)/get(factor, mscaleAllDim), else get(factor, 1) with
//              get(s, m) = s <= 1 ? 1 : 0.1*m*ln(s) + 1                      (Peng et al. 2023)
//   Llama3     wavelen_i = 2pi/theta_i; wavelen > L0/lowFreqFactor: theta_i/factor;
//              wavelen < L0/highFreqFactor: theta_i; between: smooth blend with
//              s = (L0/wavelen - lowFreqFactor)/(highFreqFactor - lowFreqFactor),
//              theta' = (1-s)*theta/factor + s*theta
//   LongRope   theta'_i = theta_i / ext_i with ext = longFactor when seqLen > L0, else
//              shortFactor; attention factor: attentionFactor if given, else
//              sqrt(1 + ln(factor)/ln(L0)) when factor > 1, else 1
//
//   L0 = originalMaxPositions. With factor 1 every method returns plain RoPE.
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
  double betaFast = 32.0;              // Yarn, rotations; > betaSlow
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

// rotaryDims: the number of rotating dims (even, >= 2). base > 1.
// Throws std::invalid_argument naming the parameter on: factor < 1 or non-finite,
// betaFast <= betaSlow, lowFreqFactor >= highFreqFactor, factor lists whose length is not
// rotaryDims/2, non-positive list entries, originalMaxPositions <= 0.
RopeFrequencies computeRopeFrequencies(int rotaryDims, double base, const RopeScaling& s);

// The pieces the views draw, exposed for tests and the explorer.
double ntkAwareBase(double base, int rotaryDims, double factor);
double dynamicNtkBase(double base, int rotaryDims, double factor, long long seqLen, int originalMaxPositions);
double yarnCorrectionDim(double numRotations, int rotaryDims, double base, int originalMaxPositions);
double yarnGetMscale(double scale, double mscale);

}  // namespace posviz
