#include "core/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <span>
#include <stdexcept>

#include "core/alibi.hpp"
#include "core/check.hpp"
#include "core/learned.hpp"
#include "core/random.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

// [SECTION] names
// [SECTION] validation
// [SECTION] at position L-1
// [SECTION] relative check
// [SECTION] content-position coupling
// [SECTION] cost and the table

namespace posviz {

// ---------------------------------------------------------------------------------------------
// [SECTION] names
// ---------------------------------------------------------------------------------------------

const char* schemeName(Scheme s) {
  switch (s) {
    case Scheme::Sinusoidal: return "sinusoidal";
    case Scheme::Learned: return "learned";
    case Scheme::Rope: return "rope";
    case Scheme::Alibi: return "alibi";
    case Scheme::NoPE: return "nope";
  }
  return "unknown";
}

const char* schemeTitle(Scheme s) {
  switch (s) {
    case Scheme::Sinusoidal: return "Sinusoidal";
    case Scheme::Learned: return "Learned";
    case Scheme::Rope: return "RoPE";
    case Scheme::Alibi: return "ALiBi";
    case Scheme::NoPE: return "NoPE";
  }
  return "unknown";
}

const std::vector<Scheme>& comparisonSchemes() {
  static const std::vector<Scheme> kSchemes = {Scheme::Sinusoidal, Scheme::Learned, Scheme::Rope, Scheme::Alibi, Scheme::NoPE};
  return kSchemes;
}

const char* appliedAtName(AppliedAt a) {
  switch (a) {
    case AppliedAt::EmbeddingInput: return "embedding input";
    case AppliedAt::QueryKey: return "Q, K inside attention";
    case AppliedAt::Scores: return "attention scores";
    case AppliedAt::Nowhere: return "nowhere";
  }
  return "unknown";
}

AppliedAt schemeAppliedAt(Scheme s) {
  switch (s) {
    case Scheme::Sinusoidal:
    case Scheme::Learned: return AppliedAt::EmbeddingInput;
    case Scheme::Rope: return AppliedAt::QueryKey;
    case Scheme::Alibi: return AppliedAt::Scores;
    case Scheme::NoPE: return AppliedAt::Nowhere;
  }
  return AppliedAt::Nowhere;
}

const SchemeColumn& Comparison::column(Scheme s) const {
  for (const SchemeColumn& c : columns)
    if (c.scheme == s) return c;
  throw std::out_of_range(std::string("Comparison::column: no column for ") + schemeName(s));
}

// ---------------------------------------------------------------------------------------------
// [SECTION] validation
// ---------------------------------------------------------------------------------------------

namespace {

constexpr int kMaxDModel = 65536;
constexpr long long kMaxTrainedLength = 1LL << 20;
constexpr long long kMaxTargetLength = 1LL << 40;
constexpr int kWindow = 16;

}  // namespace

void validateComparison(const char* fn, const ComparisonParams& p) {
  requireEven(fn, "dModel", p.dModel);
  if (p.dModel > kMaxDModel) failArgument(fn, "dModel must be <= " + std::to_string(kMaxDModel) + ", got " + std::to_string(p.dModel));
  requirePositiveInt(fn, "numHeads", p.numHeads);
  if (p.dModel % p.numHeads != 0 || (p.dModel / p.numHeads) % 2 != 0)
    failArgument(fn, "numHeads must divide dModel (" + std::to_string(p.dModel) + ") into an even head dim, got " +
                         std::to_string(p.numHeads));
  if (p.trainedLength < 2 || p.trainedLength > kMaxTrainedLength)
    failArgument(fn, "trainedLength must be in [2, " + std::to_string(kMaxTrainedLength) + "], got " + std::to_string(p.trainedLength));
  if (p.targetLength < 2 || p.targetLength > kMaxTargetLength)
    failArgument(fn, "targetLength must be in [2, " + std::to_string(kMaxTargetLength) + "], got " + std::to_string(p.targetLength));
  requireGreater(fn, "base", p.base, 1.0);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] at position L-1
// ---------------------------------------------------------------------------------------------

int unseenAnglePairs(int dim, double base, long long trainedLength, long long targetLength) {
  const char* fn = "unseenAnglePairs";
  requireEven(fn, "dim", dim);
  requireGreater(fn, "base", base, 1.0);
  requirePositiveInt(fn, "trainedLength", trainedLength);
  requirePositiveInt(fn, "targetLength", targetLength);
  if (targetLength <= trainedLength) return 0;
  int unseen = 0;
  for (int i = 0; i < dim / 2; ++i) {
    const double theta = std::pow(base, -2.0 * i / dim);
    // A pair that turned a full circle in training has seen every angle mod 2 pi.
    if (static_cast<double>(trainedLength - 1) * theta < 2.0 * std::numbers::pi) ++unseen;
  }
  return unseen;
}

namespace {

AtTarget sinusoidalAtTarget(const ComparisonParams& p) {
  AtTarget a;
  const SinusoidalParams sp{p.dModel, p.base, SinusoidalLayout::Interleaved, 1.0};
  const std::vector<double> pe = sinusoidalVector(sp, static_cast<double>(p.targetLength - 1));
  double sum = 0.0;
  for (double v : pe) sum += v * v;
  a.norm = std::sqrt(sum);
  a.numPairs = p.dModel / 2;
  a.unseenPairs = unseenAnglePairs(p.dModel, p.base, p.trainedLength, p.targetLength);
  a.unseenShare = static_cast<double>(a.unseenPairs) / a.numPairs;
  return a;
}

AtTarget learnedAtTarget(const ComparisonParams& p) {
  AtTarget a;
  // One column is enough to ask the table for row L-1: the ceiling is the row count.
  const Grid table = learnedInit(static_cast<int>(p.trainedLength), 1, p.seed + 1);
  try {
    (void)learnedLookup(table, p.targetLength - 1);
  } catch (const std::out_of_range& e) {
    a.defined = false;
    a.error = e.what();
  }
  return a;
}

AtTarget ropeAtTarget(const ComparisonParams& p, int headDim) {
  AtTarget a;
  a.numPairs = headDim / 2;
  a.unseenPairs = unseenAnglePairs(headDim, p.base, p.trainedLength, p.targetLength);
  a.unseenShare = static_cast<double>(a.unseenPairs) / a.numPairs;
  return a;
}

AtTarget alibiAtTarget(const ComparisonParams& p) {
  AtTarget a;
  for (double m : alibiSlopes(p.numHeads)) {
    a.bias.push_back(-m * static_cast<double>(p.targetLength - 1));
    a.trainedBias.push_back(-m * static_cast<double>(p.trainedLength - 1));
  }
  return a;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] relative check
// ---------------------------------------------------------------------------------------------

using Vec = std::vector<double>;

Vec toDouble(const std::vector<float>& v) { return Vec(v.begin(), v.end()); }

double dot(const Vec& a, const Vec& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Query-side and key-side vectors at one position, and the score's own bias term.
struct Side {
  Vec q, k;
};

// What a scheme puts into the score at positions (m, n): sides[m].q . sides[n].k / sqrt(dim) + bias(m, n).
struct ScoreModel {
  int dim = 0;
  std::function<Side(long long)> at;                  // vectors at one position
  std::function<double(long long, long long)> bias;   // ALiBi; may be empty
};

// Scores over the W x W window starting at position `first` on both axes.
std::vector<double> windowScores(const ScoreModel& sm, long long first, int w) {
  std::vector<Side> sides;
  for (int i = 0; i < w; ++i) sides.push_back(sm.at(first + i));
  const double scale = 1.0 / std::sqrt(static_cast<double>(sm.dim));
  std::vector<double> s(static_cast<std::size_t>(w) * static_cast<std::size_t>(w));
  for (int m = 0; m < w; ++m)
    for (int n = 0; n < w; ++n)
      s[static_cast<std::size_t>(m * w + n)] =
          dot(sides[static_cast<std::size_t>(m)].q, sides[static_cast<std::size_t>(n)].k) * scale +
          (sm.bias ? sm.bias(first + m, first + n) : 0.0);
  return s;
}

RelativeCheck relativeCheck(const ScoreModel& sm, long long maxPositions) {
  RelativeCheck r;
  r.window = static_cast<int>(std::min<long long>(kWindow, (maxPositions + 1) / 2));
  const long long lastShift = maxPositions - r.window;
  const std::vector<double> base = windowScores(sm, 0, r.window);
  for (double v : base) r.positionSpread = std::max(r.positionSpread, std::fabs(v - base[0]));
  if (lastShift < 1) {
    r.maxError = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  const int shifts = static_cast<int>(std::min<long long>(kMaxShifts, lastShift));
  for (int i = 0; i < shifts; ++i) {
    const long long k = shifts == 1 ? 1 : 1 + (lastShift - 1) * i / (shifts - 1);
    const std::vector<double> moved = windowScores(sm, k, r.window);
    for (std::size_t j = 0; j < base.size(); ++j) {
      r.maxError = std::max(r.maxError, std::fabs(moved[j] - base[j]));
      r.positionSpread = std::max(r.positionSpread, std::fabs(moved[j] - base[0]));
    }
    r.maxShift = k;
  }
  return r;
}

Vec learnedRow(const ComparisonParams& p, long long pos) {
  return toDouble(randomNormalVector(p.dModel, (p.seed + 1) * 1000003ULL + static_cast<std::uint64_t>(pos)));
}

// Additive: (q + P(m)) . (k + P(n)), and P(m) . P(n) alone for encodingOnlyError.
RelativeCheck additiveCheck(const ComparisonParams& p, Scheme s, long long maxPositions) {
  const Vec q = toDouble(randomNormalVector(p.dModel, p.seed ^ 1ULL));
  const Vec k = toDouble(randomNormalVector(p.dModel, p.seed ^ 2ULL));
  const SinusoidalParams sp{p.dModel, p.base, SinusoidalLayout::Interleaved, 1.0};
  auto pe = [p, s, sp](long long pos) {
    return s == Scheme::Sinusoidal ? sinusoidalVector(sp, static_cast<double>(pos)) : learnedRow(p, pos);
  };
  ScoreModel full{p.dModel, [q, k, pe](long long pos) {
                    Side side{q, k};
                    const Vec e = pe(pos);
                    for (std::size_t i = 0; i < e.size(); ++i) {
                      side.q[i] += e[i];
                      side.k[i] += e[i];
                    }
                    return side;
                  },
                  {}};
  ScoreModel encodingOnly{p.dModel, [pe](long long pos) { const Vec e = pe(pos); return Side{e, e}; }, {}};
  RelativeCheck r = relativeCheck(full, maxPositions);
  r.encodingOnlyError = relativeCheck(encodingOnly, maxPositions).maxError;
  return r;
}

RelativeCheck headCheck(const ComparisonParams& p, Scheme s, int headDim) {
  const std::vector<float> qf = randomNormalVector(headDim, p.seed ^ 1ULL);
  const std::vector<float> kf = randomNormalVector(headDim, p.seed ^ 2ULL);
  ScoreModel sm;
  sm.dim = headDim;
  if (s == Scheme::Rope) {
    RopeParams rp;
    rp.headDim = headDim;
    rp.base = p.base;
    sm.at = [rp, q = toDouble(qf), k = toDouble(kf)](long long pos) {
      const double x = static_cast<double>(pos);
      return Side{ropeRotate(rp, std::span<const double>(q), x), ropeRotate(rp, std::span<const double>(k), x)};
    };
  } else {
    sm.at = [qf, kf](long long) { return Side{toDouble(qf), toDouble(kf)}; };
  }
  if (s == Scheme::Alibi) {
    const double slope = alibiSlopes(p.numHeads).front();
    sm.bias = [slope](long long m, long long n) { return alibiBias(slope, m, n, false); };
  }
  RelativeCheck r = relativeCheck(sm, p.targetLength);
  r.encodingOnlyError = r.maxError;
  return r;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] content-position coupling
// ---------------------------------------------------------------------------------------------

// The score of content pair (q, k) at positions (m, n), one scheme.
using ContentScore = std::function<double(const Vec& q, const Vec& k, long long m, long long n)>;

ContentScore contentScore(const ComparisonParams& p, Scheme s, int dim) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  const SinusoidalParams sp{p.dModel, p.base, SinusoidalLayout::Interleaved, 1.0};
  switch (s) {
    case Scheme::Sinusoidal:
    case Scheme::Learned:
      return [p, s, sp, scale](const Vec& q, const Vec& k, long long m, long long n) {
        const Vec pm = s == Scheme::Sinusoidal ? sinusoidalVector(sp, static_cast<double>(m)) : learnedRow(p, m);
        const Vec pn = s == Scheme::Sinusoidal ? sinusoidalVector(sp, static_cast<double>(n)) : learnedRow(p, n);
        double v = 0.0;
        for (std::size_t i = 0; i < q.size(); ++i) v += (q[i] + pm[i]) * (k[i] + pn[i]);
        return v * scale;
      };
    case Scheme::Rope: {
      RopeParams rp;
      rp.headDim = dim;
      rp.base = p.base;
      return [rp, scale](const Vec& q, const Vec& k, long long m, long long n) {
        return dot(ropeRotate(rp, std::span<const double>(q), static_cast<double>(m)),
                   ropeRotate(rp, std::span<const double>(k), static_cast<double>(n))) * scale;
      };
    }
    case Scheme::Alibi: {
      const double slope = alibiSlopes(p.numHeads).front();
      return [slope, scale](const Vec& q, const Vec& k, long long m, long long n) { return dot(q, k) * scale + alibiBias(slope, m, n, false); };
    }
    case Scheme::NoPE: break;
  }
  return [scale](const Vec& q, const Vec& k, long long, long long) { return dot(q, k) * scale; };
}

// Additive schemes: the share of |q.P(n)| + |P(m).k| among the four terms, mean over the window.
double crossShare(const ComparisonParams& p, Scheme s, const Vec& q, const Vec& k, int w) {
  const SinusoidalParams sp{p.dModel, p.base, SinusoidalLayout::Interleaved, 1.0};
  auto pe = [&](long long pos) { return s == Scheme::Sinusoidal ? sinusoidalVector(sp, static_cast<double>(pos)) : learnedRow(p, pos); };
  double sum = 0.0;
  for (int m = 0; m < w; ++m)
    for (int n = 0; n < w; ++n) {
      const Vec pm = pe(m), pn = pe(n);
      const double cross = std::fabs(dot(q, pn)) + std::fabs(dot(pm, k));
      const double all = std::fabs(dot(q, k)) + cross + std::fabs(dot(pm, pn));
      sum += all > 0.0 ? cross / all : 0.0;
    }
  return sum / (static_cast<double>(w) * w);
}

Coupling couplingCheck(const ComparisonParams& p, Scheme s, int dim, long long maxPositions) {
  Coupling c;
  c.window = static_cast<int>(std::min<long long>(kWindow, maxPositions));
  const ContentScore score = contentScore(p, s, dim);
  std::vector<std::vector<double>> effects;  // [draw][m * W + n]
  Vec q0, k0;
  for (int d = 0; d < kCouplingDraws; ++d) {
    const Vec q = toDouble(randomNormalVector(dim, p.seed ^ static_cast<std::uint64_t>(16 + 2 * d)));
    const Vec k = toDouble(randomNormalVector(dim, p.seed ^ static_cast<std::uint64_t>(17 + 2 * d)));
    if (d == 0) q0 = q, k0 = k;
    const double origin = score(q, k, 0, 0);
    std::vector<double> e;
    for (int m = 0; m < c.window; ++m)
      for (int n = 0; n < c.window; ++n) e.push_back(score(q, k, m, n) - origin);
    effects.push_back(std::move(e));
  }
  for (std::size_t d = 1; d < effects.size(); ++d)
    for (std::size_t i = 0; i < effects[d].size(); ++i)
      c.contentDependence = std::max(c.contentDependence, std::fabs(effects[d][i] - effects[0][i]));
  if (s == Scheme::Sinusoidal || s == Scheme::Learned) c.crossShare = crossShare(p, s, q0, k0, c.window);
  return c;
}

}  // namespace

std::vector<std::string> modelsUsing(const std::vector<ModelSchemes>& models, Scheme s) {
  std::vector<std::string> names;
  for (const ModelSchemes& m : models)
    if (std::find(m.schemes.begin(), m.schemes.end(), s) != m.schemes.end()) names.push_back(m.name);
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] cost and the table
// ---------------------------------------------------------------------------------------------

Cost schemeCost(const ComparisonParams& p, Scheme s, int headDim) {
  const double d = p.dModel;
  const double len = static_cast<double>(p.targetLength);
  switch (s) {
    case Scheme::Sinusoidal: return {d, 0.0, len * d, "d_model adds (PE row added to the embedding); table L x d_model if precomputed"};
    case Scheme::Learned:
      return {d, static_cast<double>(p.trainedLength) * d, static_cast<double>(p.trainedLength) * d,
              "d_model adds (table row added to the embedding); L0 x d_model parameters"};
    case Scheme::Rope:
      return {4.0 * d, 0.0, len * headDim, "2 multiply-adds per element of Q and K (2 x 2 x d_model); cos/sin cache 2 x L x head_dim/2"};
    case Scheme::Alibi:
      return {static_cast<double>(p.numHeads) * len, 0.0, static_cast<double>(p.numHeads),
              "one add per key and head (heads x L); one slope per head"};
    case Scheme::NoPE: return {0.0, 0.0, 0.0, "nothing"};
  }
  return {};
}

}  // namespace

Comparison computeComparison(const ComparisonParams& p, const std::vector<ModelSchemes>& models) {
  validateComparison("computeComparison", p);
  Comparison c;
  c.params = p;
  c.models = models;
  c.headDim = p.dModel / p.numHeads;
  c.schemes = comparisonSchemes();
  c.alibiBufferFloats = static_cast<double>(p.numHeads) * static_cast<double>(p.targetLength) * static_cast<double>(p.targetLength);
  for (Scheme s : c.schemes) {
    SchemeColumn col;
    col.scheme = s;
    col.parameters = s == Scheme::Learned ? p.trainedLength * p.dModel : 0;
    col.appliedAt = schemeAppliedAt(s);
    switch (s) {
      case Scheme::Sinusoidal:
        col.atTarget = sinusoidalAtTarget(p);
        col.relative = additiveCheck(p, s, p.targetLength);
        break;
      case Scheme::Learned:
        col.atTarget = learnedAtTarget(p);
        col.relative = additiveCheck(p, s, std::min(p.trainedLength, p.targetLength));
        break;
      case Scheme::Rope: col.atTarget = ropeAtTarget(p, c.headDim); break;
      case Scheme::Alibi: col.atTarget = alibiAtTarget(p); break;
      case Scheme::NoPE: break;
    }
    if (s == Scheme::Rope || s == Scheme::Alibi || s == Scheme::NoPE) col.relative = headCheck(p, s, c.headDim);
    col.cost = schemeCost(p, s, c.headDim);
    const bool additive = s == Scheme::Sinusoidal || s == Scheme::Learned;
    col.coupling = couplingCheck(p, s, additive ? p.dModel : c.headDim,
                                 s == Scheme::Learned ? std::min(p.trainedLength, p.targetLength) : p.targetLength);
    col.usedBy = modelsUsing(models, s);
    c.columns.push_back(std::move(col));
  }
  return c;
}

}  // namespace posviz
