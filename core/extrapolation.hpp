// extrapolation.hpp: the extrapolation lab. One toy sentence on the seeded toy model of
// core/attention.hpp, tiled to L tokens, run at the trained length L0 and past it with every
// encoding; what the last query attends to, how spread out that is, and (rotary encodings) how
// many rotation angles the model never saw in training.
//
// THE RUN
//   tokens[t] = sentence[t mod n] for t = 0..L-1; the query is the last token, at q = L-1, and
//   it sees every key (so causal or not makes no difference). Embeddings, W_q and W_k are the toy
//   model's (toyEmbedding, toyProjection): this is toyAttention's last row, computed in O(L d)
//   instead of O(L^2 d), so Llama-2 sizes (d = 128, L = 16384) take milliseconds.
//     score_j = q . k_j / sqrt(d) + bias_j,  w = softmax(score),  key j at distance r = L-1-j
//   Sinusoidal  x_t += PE(t), interleaved, the toy model's base (toyConstants().sinusoidalBase)
//   Learned     x_t += P[t], P = learnedInit(L0, d, seed + offset, toyConstants().learnedStd):
//               rows 0..L0-1 only. For L > L0 the positions L0..L-1 have no row (nn.Embedding
//               raises IndexError), the query among them: the run is an error state, with a
//               per-position flag, and no weights.
//   Rope*       q and k rotated to their positions with inverse frequencies theta'_i from
//               core/context_extension (none, linear = PI, ntk, yarn, llama3; exactly as HF's
//               modeling_rope_utils), cos and sin times the attention factor; half-split
//               pairs, base `base`. Per pair (a, b) of q and (c, e) of k:
//               af^2 ((ac + be) cos(r theta'_i) + (ae - bc) sin(r theta'_i)) (rope.hpp).
//   Alibi       bias_j = -slope * r (toyConstants().alibiSlope unless set).
//   Cost: the position-dependent parts are trigonometric series along the keys (PE(j) . u; per
//   residue of the sentence length n, the rotary score at distances rho + n m), summed by
//   kernels::trigSeriesInto: vectorized over frequencies, split over threads, no sin or cos per
//   key. The entropy comes from the softmax's own sums (see ENTROPY), no log per key.
//
// ENTROPY
//   H = -sum_j w_j ln w_j (nats; 0 ln 0 = 0). Uniform weights over L keys give ln L, the most
//   possible; entropyRatio = H / ln L (L >= 2). A run computes it as ln S - sum_j w_j (x_j - M)
//   (x the logits, M their max, S = sum exp(x_j - M)), the same number without a log per key;
//   attentionEntropy is the definition, for any weights.
//
// UNSEEN ANGLES (rotary encodings)
//   Training ran plain RoPE at positions 0..L0-1, so pair i swept the arc [0, span_i] of the
//   circle, span_i = (L0-1) theta_i (theta_i unscaled). If span_i >= 2 pi the pair has seen the
//   whole circle and nothing is new. Otherwise a position p in [0, L) is unseen when its angle
//   taken mod 2 pi, p theta'_i mod 2 pi, lies outside that arc: in (span_i, 2 pi) (relative
//   tolerance 1e-9 on span_i for rounding, so PI's exact s (L0-1) counts as seen). A pair that
//   wraps round past L0 comes back to angles it has seen, so the share is not (L - L0) / L for
//   every slow pair but grows with the unseen arc's length: at L = 4 x 4096 (head_dim 128, base
//   10000) about 0.11 at pair 46, 0.27 at 48, 0.50 at 50, and 0.75 only from pair 55 on. The
//   unseen share of pair i is that count over L (all positions 0..L-1, the trained ones
//   included). Counted in closed form, exactly (p theta'_i not rounded; 2 pi = kTwoPi): on the
//   grid 2^e of theta'_i mod 2 pi the angle is (p a mod t) 2^e, and the count is a difference of
//   two floor sums sum_p floor((p a + b) / t), O(log) steps for any L. The aggregate is the mean
//   over pairs (the share of all (position, pair) angles never seen).
//   Note: PI at factor s and L = s L0 puts positions p > s (L0-1), s-1 of them, just past the
//   span (p / s in (L0-1, L0 - 1/s]): a share of (s-1)/L per slow pair whose span + theta_i
//   stays under 2 pi, not 0. At L = s (L0-1) + 1 it is exactly 0.
//
// LOG-DISTANCE BINS (for reading thousands of distances as one smooth curve)
//   Bin 0 = distance 0; bin k >= 1 = distances [2^(k-1), 2^k - 1]; the last bin is cut at L-1:
//   [0], [1], [2,3], [4,7], [8,15], ... Bin k's sum is the attention share of its keys (a softmax
//   row's sums add up to 1); its mean, sum / count, is the weight of one key in it. Weights of
//   length 10: [0], [1], [2,3], [4,7], [8,9].
//
// UNITS / LAYOUT
//   Distances and positions are token indices; weights[r] is the weight of the key at distance
//   r (key position L-1-r), r = 0..L-1; angles in radians; entropy in nats. float64 throughout.
//
// ERRORS
//   std::invalid_argument naming the function and parameter: empty sentence, dModel odd, < 2 or
//   > 4096 (ntk needs >= 4), L0 < 2, L < 1 or > kMaxExtrapolationLength, base <= 1, factor < 1
//   or not finite (0 = automatic), slope <= 0 or > 1e6, unknown encoding. A learned run past L0
//   is not an error: it returns its error state.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/attention.hpp"
#include "core/context_extension.hpp"

namespace posviz {

enum class ExtrapolationEncoding { Sinusoidal, Learned, Rope, RopeLinear, RopeNtk, RopeYarn, RopeLlama3, Alibi };
// "sinusoidal", "learned", "rope", "rope-linear", "rope-ntk", "rope-yarn", "rope-llama3", "alibi".
const char* extrapolationEncodingName(ExtrapolationEncoding e);
// "Sinusoidal", "Learned", "RoPE", "RoPE + PI", "RoPE + NTK", "RoPE + YaRN", "RoPE + Llama 3.1", "ALiBi".
const char* extrapolationEncodingTitle(ExtrapolationEncoding e);
const std::vector<ExtrapolationEncoding>& allExtrapolationEncodings();  // in the enum's order
bool isRotary(ExtrapolationEncoding e);                                 // Rope .. RopeLlama3
ScalingMethod extrapolationScaling(ExtrapolationEncoding e);            // None for non-rotary and plain Rope

constexpr int kMaxExtrapolationLength = 1 << 20;  // keys of one run
constexpr double kUnseenTolerance = 1e-9;         // relative, on the trained span

struct ExtrapolationSetup {
  ToyModel model{128, 0, false};            // dModel = head_dim, even, 2..4096
  std::vector<std::string> sentence = {"The", "cat", "sat", "on", "the", "mat"};  // tiled to L
  int trainedLength = 4096;                 // L0, >= 2
  double base = 10000.0;                    // RoPE theta, > 1
  double factor = 0.0;                      // scaled RoPE's factor, >= 1; 0 = max(1, L / L0) per run
  double alibiSlope = 0.0;                  // > 0; 0 = the toy model's (toyConstants().alibiSlope)
  RopeScaling scaling;                      // betaFast/betaSlow, low/highFreqFactor; method, factor and
                                            // originalMaxPositions are set per run
  // Optional: the learned table drawn once (extrapolationLearnedTable) and reused. Row t of P does
  // not depend on how many rows are drawn, so any table of >= L rows for this model's width and
  // seed gives the same run; one that is too short, of another width or drawn from another seed
  // (its first row is checked) is refused. Empty: each learned run draws its own.
  std::shared_ptr<const Grid> learnedTable;
};

struct ExtrapolationRun {
  ExtrapolationEncoding encoding = ExtrapolationEncoding::Rope;
  int length = 0;                           // L, keys 0..L-1
  int trainedLength = 0;                    // L0
  int queryPosition = 0;                    // L-1
  double factor = 1.0;                      // the scaling factor used (rotary scaled), else 1
  double attentionFactor = 1.0;             // multiplies cos and sin (YaRN), else 1
  std::string error;                        // non-empty: no weights (learned past L0)
  std::vector<double> weights;              // by distance r = 0..L-1 (key L-1-r); empty on error
  std::vector<std::uint8_t> keyHasRow;      // learned only: by key position 0..L-1, 1 = pos < L0
  double entropy = 0.0;                     // nats; NaN on error
  double maxEntropy = 0.0;                  // ln L
  double entropyRatio = 0.0;                // entropy / ln L; NaN on error or L = 1
  // Rotary only (empty / 0 otherwise)
  std::vector<double> invFreq;              // theta'_i, rad/position, after scaling
  std::vector<double> trainedSpan;          // (L0-1) theta_i, radians
  std::vector<double> unseenShare;          // per pair, in [0, 1], angles mod 2 pi; 0 where the span >= 2 pi
  double unseenShareMean = 0.0;             // mean over pairs
  int pairsWithUnseen = 0;                  // pairs whose unseenShare > 0
};

// H = -sum w ln w over weights >= 0 (nats). Throws on negative or non-finite weights.
double attentionEntropy(std::span<const double> weights);

// Per pair: the share of positions 0..length-1 whose angle p * invFreq[i] mod 2 pi exceeds
// (trainedLength-1) * trainedInvFreq[i] (0 where that span is >= 2 pi). Sizes must match.
// Exact and O(log length) per pair (see UNSEEN ANGLES).
std::vector<double> unseenAngleShares(std::span<const double> trainedInvFreq, std::span<const double> invFreq,
                                      int trainedLength, int length);

// One log-distance bin: distances first..last (inclusive) and the sum of their weights.
struct DistanceBin {
  int first = 0;
  int last = 0;
  double sum = 0.0;
  int count() const { return last - first + 1; }
  double mean() const { return sum / static_cast<double>(count()); }
};

// The log-distance bin of distance d >= 0: 0 for d = 0, else floor(log2 d) + 1. Throws on d < 0.
int logDistanceBin(int distance);

// weights[r] by distance r (ExtrapolationRun::weights) in log-distance bins, bin 0 first; as many
// bins as logDistanceBin(size - 1) + 1 (none for no weights). Sums in order of distance; a
// non-finite weight makes its bin's sum non-finite.
std::vector<DistanceBin> logDistanceBins(std::span<const double> weights);

// The sentence tiled to length tokens: tokens[t] = sentence[t mod n].
std::vector<std::string> tiledTokens(const std::vector<std::string>& sentence, int length);

// Rows 0..rows-1 of the learned run's P for this model (width and seed), for
// ExtrapolationSetup::learnedTable: a caller moving L0 draws it once. O(rows d) normal draws.
std::shared_ptr<const Grid> extrapolationLearnedTable(const ExtrapolationSetup& s, int rows);

// One encoding at one length L (keys 0..L-1). O(L d + d^2).
ExtrapolationRun runExtrapolation(const ExtrapolationSetup& s, ExtrapolationEncoding e, int length);

// Every run of a lab: result[k][e] = runExtrapolation(s, encodings[e], lengths[k]), the runs
// spread over the threads (hardwareThreads(), each run on one), the same numbers. What does not
// depend on positions (embeddings, W_q, W_k, each slot's projections) is made once for all runs.
// afterRun(done, total) is called after each run, one call at a time, from any of the threads; an
// exception it throws (a cancelled job) stops the rest and comes out of this call.
std::vector<std::vector<ExtrapolationRun>> runExtrapolationGrid(const ExtrapolationSetup& s,
                                                                std::span<const ExtrapolationEncoding> encodings,
                                                                std::span<const int> lengths,
                                                                const std::function<void(int, int)>& afterRun = {});

}  // namespace posviz
