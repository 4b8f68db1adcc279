// comparison.hpp: the documents' comparison table (001 "Comparison: Which to Use When", 004
// "Extrapolation Comparison") with every cell computed for one model shape.
//
// WHAT
//   For sinusoidal, learned, RoPE, ALiBi and NoPE (no position at all), for a model of width
//   dModel with numHeads heads (headDim = dModel / numHeads), trained on L0 positions and run on
//   a sequence of L tokens (positions 0 .. L-1):
//     parameters      learned: L0 * dModel (one row per trained position); every other scheme 0
//     applied at      embedding input (sinusoidal, learned), Q and K inside attention (RoPE),
//                     attention scores (ALiBi), nowhere (NoPE)
//     at position L-1 sinusoidal: defined, ||PE(L-1)|| = sqrt(dModel/2); learned: error when
//                     L > L0 (learnedLookup's message); RoPE (headDim pairs) and sinusoidal
//                     (dModel pairs): the share of pairs whose angles over 0..L-1 include
//                     angles never reached over 0..L0-1; ALiBi: the bias -m_h (L-1) per head
//                     against the largest trained magnitude m_h (L0-1)
//     relative check  max over sampled (m, n) and shifts k of |s(m, n) - s(m+k, n+k)|
//     cost per token  extra multiply-adds per token and layer, and the memory the scheme holds
//
// RELATIVE CHECK (seeded q, k: randomNormalVector(dim, seed ^ 1 / seed ^ 2), N(0, 1))
//   Additive schemes (dim = dModel, identity projections, the content vectors q and k):
//     s(m, n) = (q + P(m)) . (k + P(n)) / sqrt(dModel)
//   with P = PE (sinusoidal, interleaved, base) or a seeded stand-in for a trained table
//   (learned: row pos = randomNormalVector(dModel, (seed + 1) * 1000003 + pos), std 1 like the
//   toy model of attention.hpp, drawn per row so that L0 = 2^40 needs no table). Its
//   position-only part P(m) . P(n) is checked too (encodingOnlyError): for sinusoidal it depends
//   only on m - n, for the learned table it does not.
//   RoPE (dim = headDim):   s(m, n) = <R_m q, R_n k> / sqrt(headDim)          (ropeScore)
//   ALiBi (dim = headDim):  s(m, n) = q . k / sqrt(headDim) - m_1 |m - n|     (steepest head)
//   NoPE (dim = headDim):   s(m, n) = q . k / sqrt(headDim)
//   Sampled: m, n in [0, W), W = min(16, ceil(Lmax / 2)), shifts k = kMaxShifts values evenly
//   spread over [1, Lmax - W], Lmax = L (learned: L0, the last row it has). positionSpread =
//   max |s(m, n) - s(0, 0)| over the same samples: 0 means the score does not see position.
//
// CONTENT-POSITION COUPLING (seeded content pairs (q_c, k_c) = randomNormalVector(dim,
// seed ^ (16 + 2c) / seed ^ (17 + 2c)), c < kCouplingDraws; positions m, n in [0, W), W as above)
//   effect_c(m, n) = s_c(m, n) - s_c(0, 0): what position does to the score of content pair c.
//   contentDependence = max |effect_c(m, n) - effect_0(m, n)|: 0 when position acts the same on
//     every content (ALiBi's bias, NoPE's nothing), > 0 when content and position meet in the
//     score (additive schemes through their cross terms, RoPE through q^T R(n - m) k).
//   crossShare (additive only) = mean over (m, n) of (|q.P(n)| + |P(m).k|) / (|q.k| + |q.P(n)|
//     + |P(m).k| + |P(m).P(n)|) for c = 0: the share of the score's terms that mix content with
//     position. 0 for RoPE, ALiBi and NoPE: nothing is added to the vectors.
//
// USED BY
//   modelsUsing(): the models (names, e.g. the shipped presets) that use a scheme in at least one
//   layer. The caller maps each model's config to schemes; core only matches and sorts.
//
// COST (per token and layer; documents' listings in parentheses)
//   sinusoidal  dModel adds; table L x dModel floats if precomputed (001: max_len 8192)
//   learned     dModel adds; L0 x dModel parameters
//   RoPE        Q and K: 2 multiply-adds per element, 2 * 2 * dModel; cos/sin cache 2 x L x headDim/2
//   ALiBi       one add per key and head: numHeads * L at length L; numHeads slopes
//               (001's listing precomputes numHeads x max_len^2: alibiBufferFloats)
//   NoPE        0, 0
//
// UNITS / ERRORS
//   Lengths are token counts, norms Euclidean, scores dot products / sqrt(dim). Every function
//   validates its params and throws std::invalid_argument naming the function and field:
//   dModel even 2..65536, numHeads >= 1 dividing dModel into an even headDim, L0 in [2, 2^20]
//   (learned's error comes from a real L0-row table), L in [2, 2^40], base > 1; options.shifts
//   in [1, kMaxShifts].
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace posviz {

enum class Scheme { Sinusoidal, Learned, Rope, Alibi, NoPE };
const char* schemeName(Scheme s);   // "sinusoidal", "learned", "rope", "alibi", "nope"
const char* schemeTitle(Scheme s);  // "Sinusoidal", "Learned", "RoPE", "ALiBi", "NoPE"
const std::vector<Scheme>& comparisonSchemes();  // the five, in the table's column order

// Where position enters the network.
enum class AppliedAt { EmbeddingInput, QueryKey, Scores, Nowhere };
const char* appliedAtName(AppliedAt a);  // "embedding input", "Q, K inside attention", "attention scores", "nowhere"
AppliedAt schemeAppliedAt(Scheme s);

struct ComparisonParams {
  int dModel = 512;                 // even, 2..65536
  int numHeads = 8;                 // >= 1, dModel / numHeads even
  long long trainedLength = 2048;   // L0, positions seen in training, 2..2^20
  long long targetLength = 8192;    // L, the sequence run now, 2..2^40
  double base = 10000.0;            // sinusoidal and RoPE base, > 1
  std::uint64_t seed = 0;           // q, k and the learned table of the relative check
};

constexpr int kMaxShifts = 16;
constexpr double kRelativeTolerance = 1e-5;  // below: relative (float64 scores of float32 vectors)

struct AtTarget {
  bool defined = true;              // a value exists at position L-1
  std::string error;                // learned past L0: learnedLookup's message
  double norm = 0.0;                // sinusoidal: ||PE(L-1)||
  int numPairs = 0;                 // sinusoidal: dModel/2; RoPE: headDim/2
  int unseenPairs = 0;              // pairs whose angles over 0..L-1 leave the trained range
  double unseenShare = 0.0;         // unseenPairs / numPairs
  std::vector<double> bias;         // ALiBi: -m_h (L-1) per head
  std::vector<double> trainedBias;  // ALiBi: -m_h (L0-1) per head, the largest magnitude trained
};

struct RelativeCheck {
  double maxError = 0.0;            // max |s(m,n) - s(m+k,n+k)|; NaN when no shift fits
  double encodingOnlyError = 0.0;   // additive schemes: the same for P(m).P(n); else = maxError
  double positionSpread = 0.0;      // max |s(m,n) - s(0,0)|
  int window = 0;                   // W
  long long maxShift = 0;           // largest k tried
  int shifts = 0;                   // shifts k tried: min(ComparisonOptions::shifts, Lmax - W)
  bool coarse = false;              // fewer shifts than a full table tries: a lower bound of maxError
  bool relative() const { return maxError <= kRelativeTolerance; }
};

struct Cost {
  double multiplyAddsPerToken = 0.0;  // per token and layer
  double parameters = 0.0;            // learned floats
  double memoryFloats = 0.0;          // what the scheme must hold at length L (parameters, cache or slopes)
  std::string what;                   // the operation counted: "dModel adds", ...
};

constexpr int kCouplingDraws = 4;

struct Coupling {
  double crossShare = 0.0;         // additive schemes: share of |cross terms| in the score, [0, 1)
  double contentDependence = 0.0;  // max |effect_c(m,n) - effect_0(m,n)|, score units
  int window = 0;                  // W
  bool coupled() const { return contentDependence > kRelativeTolerance; }
};

// A model and the schemes its layers use (a model with RoPE and NoPE layers lists both).
struct ModelSchemes {
  std::string name;
  std::vector<Scheme> schemes;
};
// Names of the models using s, sorted.
std::vector<std::string> modelsUsing(const std::vector<ModelSchemes>& models, Scheme s);

struct SchemeColumn {
  Scheme scheme = Scheme::Sinusoidal;
  long long parameters = 0;           // learned position parameters
  AppliedAt appliedAt = AppliedAt::Nowhere;
  AtTarget atTarget;
  RelativeCheck relative;
  Cost cost;
  Coupling coupling;
  std::vector<std::string> usedBy;    // modelsUsing(Comparison::models, scheme)
};

struct Comparison {
  ComparisonParams params;
  int headDim = 0;
  std::vector<Scheme> schemes;        // comparisonSchemes()
  std::vector<SchemeColumn> columns;  // one per scheme, same order
  double alibiBufferFloats = 0.0;     // 001's ALiBi listing at max_len = L: numHeads * L^2
  std::vector<ModelSchemes> models;   // what "used by" was computed from (may be empty)
  int shifts = kMaxShifts;            // ComparisonOptions::shifts it was computed with
  const SchemeColumn& column(Scheme s) const;
};

// How much of the relative check to do, and an earlier table to take unchanged checks from.
struct ComparisonOptions {
  // Shifts k the relative check tries, 1..kMaxShifts, evenly spread as above. Fewer make a coarse
  // table (RelativeCheck::coarse): 2 shifts cost about a fifth of 16 at d_model 8192, for a view
  // that follows a slider and refines when it rests.
  int shifts = kMaxShifts;
  // A table computed before (any params): a column takes its relative check from here, unchanged,
  // when it was made with the same shifts from the same inputs. Those are, beside the seed, for
  // sinusoidal dModel, base and L; for learned dModel and min(L0, L); for RoPE headDim, base and
  // L; for ALiBi headDim, numHeads and L; for NoPE headDim and L. The coupling is taken when the
  // same inputs give the same window (it sees positions only through W), whatever the shifts. So
  // a change of L0 alone recomputes the learned column's relative check and nothing else. The
  // result is the same, bit for bit, as computing afresh.
  const Comparison* reuse = nullptr;
  // Called after each column with (columns done, 5); an exception it throws (a cancelled job)
  // stops the table and comes out of computeComparison.
  std::function<void(int, int)> afterColumn;
};

void validateComparison(const char* fn, const ComparisonParams& p);
// models fills the "used by" row; empty leaves it empty.
Comparison computeComparison(const ComparisonParams& p, const std::vector<ModelSchemes>& models = {},
                             const ComparisonOptions& options = {});

// Pairs (frequencies theta_i = base^(-2i/dim), i < dim/2) whose angles over positions 0..L-1
// include angles mod 2 pi never reached over 0..L0-1: (L0-1) theta_i < 2 pi and L > L0.
int unseenAnglePairs(int dim, double base, long long trainedLength, long long targetLength);

}  // namespace posviz
