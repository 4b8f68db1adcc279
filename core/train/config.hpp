// config.hpp: what a trainable model is made of: its size, its positional scheme and the scheme's
// settings. Every other header of posviz_train takes a ModelConfig.
//
// THE MODEL (a decoder-only transformer, GPT-2's pre-LayerNorm block)
//   x_0      = tok_emb[token] (+ PE(pos) for sinusoidal, + pos_emb[pos] for learned)
//   per layer l:
//     h      = LN1(x);  q = h Wq, k = h Wk, v = h Wv            (no biases; W is [in, out])
//     q, k   rotated per head (RoPE, xPos);  s_ij = q_i.k_j / sqrt(headDim) + bias_h(i, j)
//     a      = softmax_j<=i(s) v  (causal);  x = x + a Wo
//     x      = x + fc2(act(fc1(LN2(x))))                        (when mlp; fc1, fc2 with biases)
//   logits   = LN_f(x) Whead
//   LayerNorm: eps 1e-5, a weight and a bias per dim. act: GELU (the exact erf form, as
//   PyTorch's default) or ReLU.
//
// SCHEMES (where position enters; every number that depends on position comes from core)
//   nope        nothing: the causal mask is the only order signal
//   sinusoidal  x_0 += PE(pos), core/sinusoidal.hpp (interleaved, base sinusoidalBase)
//   learned     x_0 += pos_emb[pos], a maxPositions x dModel table (core/learned.hpp's learnedInit);
//               a position past the last row has no row: evaluation reports it, never a number
//   rope        q and k rotated, core/rope.hpp: either pairing, any base, partial rotary, and at
//               evaluation core/context_extension.hpp's scaling (PI, NTK, YaRN, dynamic, ...)
//   alibi       bias_h(i, j) = -m_h (i - j), slopes from core/alibi.hpp; nothing learned
//   t5          bias_h(i, j) = t5_bias[bucket(j - i)][h], causal buckets from core/relative_bias.hpp;
//               one learned table shared by all layers, as T5 does
//   fire        bias_h(i, j) = f_h(fireInput(i, j)), fireInput from core/fire.hpp; f_h a learned
//               1 -> hidden -> 1 ReLU MLP per layer and head (initialised with fireSeededMlp). c and
//               L stay at their FireParams values (the paper learns them as well)
//   kerple      bias_h(i, j) = core/kerple.hpp's kernel with r1, r2 learned per layer and head,
//               kept >= kKerpleMin (and r2 <= 2 for the power kernel) after every step, as the
//               KERPLE code clamps them
//   xpos        RoPE (interleaved, full width) with core/xpos.hpp's per-pair scales on q and k
//   DroPE: PositionConfig::dropped on a RoPE model removes the rotation (arXiv 2512.12167: train
//   with RoPE, drop it, recalibrate briefly without positions). Trainer::dropRope does it.
//
// SIZES
//   numLayers 1..4, numHeads 1..8, dModel 16..256 and a multiple of numHeads, mlpHidden 1..1024
//   (0 = 4 dModel), vocabSize 1..65536, maxPositions 1..65536 (the longest trained input in
//   tokens: the learned table's rows, RoPE scaling's original length). validateModelConfig throws
//   std::invalid_argument naming the field.
#pragma once

#include <optional>
#include <string>

#include "core/fire.hpp"
#include "core/kerple.hpp"
#include "core/relative_bias.hpp"
#include "core/rope.hpp"

namespace posviz::train {

enum class PositionScheme { None, Sinusoidal, Learned, Rope, Alibi, T5, Fire, Kerple, Xpos };
inline constexpr PositionScheme kAllSchemes[] = {PositionScheme::None,  PositionScheme::Sinusoidal, PositionScheme::Learned,
                                                 PositionScheme::Rope,  PositionScheme::Alibi,      PositionScheme::T5,
                                                 PositionScheme::Fire,  PositionScheme::Kerple,     PositionScheme::Xpos};
// "nope", "sinusoidal", "learned", "rope", "alibi", "t5", "fire", "kerple", "xpos".
const char* positionSchemeName(PositionScheme s);
std::optional<PositionScheme> parsePositionScheme(const std::string& name);

enum class Activation { Gelu, Relu };
const char* activationName(Activation a);  // "gelu", "relu"
std::optional<Activation> parseActivation(const std::string& name);

inline constexpr double kKerpleMin = 1e-2;  // r1, r2 never go below it (KERPLE's clamp)

struct PositionConfig {
  PositionScheme scheme = PositionScheme::Rope;
  double sinusoidalBase = 10000.0;
  double learnedInitStd = 0.02;                 // GPT-2's initializer
  double ropeBase = 10000.0;                    // rope, xpos
  RopeLayout ropeLayout = RopeLayout::HalfSplit;
  double rotaryFraction = 1.0;                  // rope: (0, 1], at least one pair
  bool dropped = false;                         // rope: DroPE, the rotation removed
  double xposScaleBase = 512.0;                 // xpos
  T5BucketParams t5{32, 128, false};            // t5: causal buckets
  double t5InitStd = 0.02;
  FireParams fire{};                            // fire: c and L (kept fixed)
  int fireHidden = kFireHidden;
  KerpleKernel kerpleKernel = KerpleKernel::Log;
  double kerpleInitR1 = 1.0;
  double kerpleInitR2 = 1.0;
};

struct ModelConfig {
  int vocabSize = 0;
  int maxPositions = 0;
  int dModel = 32;
  int numLayers = 2;
  int numHeads = 4;
  bool mlp = true;
  int mlpHidden = 0;                 // 0: 4 * dModel
  Activation activation = Activation::Gelu;
  double tokenInitStd = 1.0;         // tok_emb's N(0, std^2)
  PositionConfig position;

  int headDim() const { return dModel / numHeads; }
  int hidden() const { return mlpHidden > 0 ? mlpHidden : 4 * dModel; }
};

void validateModelConfig(const char* fn, const ModelConfig& c);

// The schemes whose scores carry an additive bias_h(i, j).
bool schemeHasBias(PositionScheme s);
// rope or xpos, and not dropped: q and k are rotated.
bool schemeRotates(const PositionConfig& p);
// core's RopeParams of a rope/xpos model (xpos: interleaved, full width), with a scaling.
RopeParams ropeParamsOf(const ModelConfig& c, const RopeScaling& scaling = {});

}  // namespace posviz::train
