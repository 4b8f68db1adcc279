#include "core/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <span>
#include <stdexcept>

#include "core/alibi.hpp"
#include "core/check.hpp"
#include "core/kernels.hpp"
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
  // One column is enough to ask a table of L0 rows for row L-1: the ceiling is the row count, and
  // the message is the lookup's own. The values play no part, so they stay 0 (not drawn).
  const Grid table(static_cast<int>(p.trainedLength), 1);
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

// Scores over the W x W window starting at position `first` on both axes. The keys are laid out
// dimension-major, kernels::kColumnDots columns whatever W is (the spare ones 0), so that each
// query runs against all W keys at once (kernels::columnDotsInto): every score sums its products
// in dimension order, the same bits as one dot product at a time, but the W sums proceed side by
// side instead of one long chain of dependent adds.
static_assert(kWindow <= static_cast<int>(kernels::kColumnDots));

std::vector<double> windowScores(const ScoreModel& sm, long long first, int w) {
  std::vector<Side> sides;
  for (int i = 0; i < w; ++i) sides.push_back(sm.at(first + i));
  constexpr std::size_t kw = kernels::kColumnDots;
  const std::size_t ws = static_cast<std::size_t>(w), dim = static_cast<std::size_t>(sm.dim);
  std::vector<double> kt(dim * kw, 0.0);
  constexpr std::size_t kBlock = 256;   // dimensions per transposed block: reads and writes stay in L1
  for (std::size_t i0 = 0; i0 < dim; i0 += kBlock)
    for (std::size_t n = 0; n < ws; ++n)
      for (std::size_t i = i0; i < std::min(dim, i0 + kBlock); ++i) kt[i * kw + n] = sides[n].k[i];
  const double scale = 1.0 / std::sqrt(static_cast<double>(sm.dim));
  std::vector<double> s(ws * ws);
  double acc[kw];
  for (std::size_t m = 0; m < ws; ++m) {
    kernels::columnDotsInto(sides[m].q.data(), kt.data(), dim, acc);
    for (std::size_t n = 0; n < ws; ++n)
      s[m * ws + n] = acc[n] * scale + (sm.bias ? sm.bias(first + static_cast<long long>(m), first + static_cast<long long>(n)) : 0.0);
  }
  return s;
}

// The relative check of several score models over the same windows, window by window, so that
// models sharing a position cache (PositionCache) encode each position once.
std::vector<RelativeCheck> relativeChecks(const std::vector<ScoreModel>& models, long long maxPositions, int maxShifts) {
  const int w = static_cast<int>(std::min<long long>(kWindow, (maxPositions + 1) / 2));
  const long long lastShift = maxPositions - w;
  std::vector<RelativeCheck> out(models.size());
  std::vector<std::vector<double>> base;
  for (std::size_t i = 0; i < models.size(); ++i) {
    out[i].window = w;
    base.push_back(windowScores(models[i], 0, w));
    for (double v : base[i]) out[i].positionSpread = std::max(out[i].positionSpread, std::fabs(v - base[i][0]));
    if (lastShift < 1) out[i].maxError = std::numeric_limits<double>::quiet_NaN();
  }
  if (lastShift < 1) return out;
  const int shifts = static_cast<int>(std::min<long long>(maxShifts, lastShift));
  for (RelativeCheck& r : out) {
    r.shifts = shifts;
    r.coarse = shifts < std::min<long long>(kMaxShifts, lastShift);
  }
  for (int s = 0; s < shifts; ++s) {
    const long long k = shifts == 1 ? 1 : 1 + (lastShift - 1) * s / (shifts - 1);
    for (std::size_t i = 0; i < models.size(); ++i) {
      RelativeCheck& r = out[i];
      const std::vector<double> moved = windowScores(models[i], k, w);
      for (std::size_t j = 0; j < base[i].size(); ++j) {
        r.maxError = std::max(r.maxError, std::fabs(moved[j] - base[i][j]));
        r.positionSpread = std::max(r.positionSpread, std::fabs(moved[j] - base[i][0]));
      }
      r.maxShift = k;
    }
  }
  return out;
}

Vec learnedRow(const ComparisonParams& p, long long pos) {
  return toDouble(randomNormalVector(p.dModel, (p.seed + 1) * 1000003ULL + static_cast<std::uint64_t>(pos)));
}

// An additive scheme's P(pos): models checked window by window over the same positions (q + P and
// P alone) and the coupling encode each position once. Positions 0 .. 2 W - 1 (the first window,
// which every shift is compared with, and the coupling's) stay; of the others, the last 2 W made
// are kept. A reference from at() stays valid until 2 W further positions have been made.
class PositionCache {
 public:
  PositionCache(const ComparisonParams& p, Scheme s) : p_(p), s_(s) {}
  const Vec& at(long long pos) {
    if (auto it = rows_.find(pos); it != rows_.end()) return it->second;
    constexpr long long kKept = 2LL * kWindow;
    if (pos >= kKept) {
      made_.push_back(pos);
      if (made_.size() > static_cast<std::size_t>(kKept)) {
        rows_.erase(made_.front());
        made_.pop_front();
      }
    }
    const SinusoidalParams sp{p_.dModel, p_.base, SinusoidalLayout::Interleaved, 1.0};
    return rows_[pos] = s_ == Scheme::Sinusoidal ? sinusoidalVector(sp, static_cast<double>(pos)) : learnedRow(p_, pos);
  }

 private:
  ComparisonParams p_;
  Scheme s_;
  std::map<long long, Vec> rows_;
  std::deque<long long> made_;   // positions >= 2 W in rows_, oldest first
};

// The score of content pair (q, k) at positions (m, n) under one scheme, as a ScoreModel: each
// position's vectors are made once per window, not once per (m, n) pair, so a window of W
// positions costs W encodings instead of 2 W^2 (at d_model 8192 that is 16 sinusoid rows
// instead of 512).
ScoreModel contentModel(const ComparisonParams& p, Scheme s, int dim, const Vec& q, const Vec& k,
                        std::shared_ptr<PositionCache> cache = nullptr) {
  ScoreModel sm;
  sm.dim = dim;
  switch (s) {
    case Scheme::Sinusoidal:
    case Scheme::Learned: {
      if (!cache) cache = std::make_shared<PositionCache>(p, s);
      sm.at = [cache, q, k](long long pos) {
        const Vec& e = cache->at(pos);
        Side side{q, k};
        for (std::size_t i = 0; i < e.size(); ++i) {
          side.q[i] += e[i];
          side.k[i] += e[i];
        }
        return side;
      };
      return sm;
    }
    case Scheme::Rope: {
      RopeParams rp;
      rp.headDim = dim;
      rp.base = p.base;
      sm.at = [rp, q, k](long long pos) {
        const double x = static_cast<double>(pos);
        return Side{ropeRotate(rp, std::span<const double>(q), x), ropeRotate(rp, std::span<const double>(k), x)};
      };
      return sm;
    }
    case Scheme::Alibi: {
      const double slope = alibiSlopes(p.numHeads).front();
      sm.bias = [slope](long long m, long long n) { return alibiBias(slope, m, n, false); };
      break;
    }
    case Scheme::NoPE: break;
  }
  sm.at = [q, k](long long) { return Side{q, k}; };
  return sm;
}

// Additive: (q + P(m)) . (k + P(n)), and P(m) . P(n) alone for encodingOnlyError.
RelativeCheck additiveCheck(const ComparisonParams& p, Scheme s, long long maxPositions, int shifts,
                            const std::shared_ptr<PositionCache>& cache) {
  const Vec q = toDouble(randomNormalVector(p.dModel, p.seed ^ 1ULL));
  const Vec k = toDouble(randomNormalVector(p.dModel, p.seed ^ 2ULL));
  const std::vector<RelativeCheck> r = relativeChecks(
      {contentModel(p, s, p.dModel, q, k, cache), contentModel(p, s, p.dModel, Vec(q.size(), 0.0), Vec(k.size(), 0.0), cache)},
      maxPositions, shifts);
  RelativeCheck full = r[0];
  full.encodingOnlyError = r[1].maxError;
  return full;
}

RelativeCheck headCheck(const ComparisonParams& p, Scheme s, int headDim, int shifts) {
  const Vec q = toDouble(randomNormalVector(headDim, p.seed ^ 1ULL));
  const Vec k = toDouble(randomNormalVector(headDim, p.seed ^ 2ULL));
  RelativeCheck r = relativeChecks({contentModel(p, s, headDim, q, k)}, p.targetLength, shifts).front();
  r.encodingOnlyError = r.maxError;
  return r;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] content-position coupling
// ---------------------------------------------------------------------------------------------

// Additive schemes: the share of |q.P(n)| + |P(m).k| among the four terms, mean over the window.
// q.P(n) and P(m).k are made once per position, q.k once.
double crossShare(PositionCache& pe, const Vec& q, const Vec& k, int w) {
  std::vector<double> qp, pk;   // q.P(n), P(m).k
  for (int j = 0; j < w; ++j) {
    const Vec& pj = pe.at(j);   // w <= kWindow: every P(pos) stays in the cache
    qp.push_back(std::fabs(dot(q, pj)));
    pk.push_back(std::fabs(dot(pj, k)));
  }
  const double qk = std::fabs(dot(q, k));
  // |P(m).P(n)|, made once per unordered pair: a[i] * b[i] and b[i] * a[i] are the same number.
  const std::size_t ws = static_cast<std::size_t>(w);
  std::vector<double> pp(ws * ws);
  for (std::size_t m = 0; m < ws; ++m)
    for (std::size_t n = m; n < ws; ++n)
      pp[m * ws + n] = pp[n * ws + m] = std::fabs(dot(pe.at(static_cast<long long>(m)), pe.at(static_cast<long long>(n))));
  double sum = 0.0;
  for (int m = 0; m < w; ++m)
    for (int n = 0; n < w; ++n) {
      const double cross = qp[static_cast<std::size_t>(n)] + pk[static_cast<std::size_t>(m)];
      const double all = qk + cross + pp[static_cast<std::size_t>(m) * ws + static_cast<std::size_t>(n)];
      sum += all > 0.0 ? cross / all : 0.0;
    }
  return sum / (static_cast<double>(w) * w);
}

// cache: the additive schemes' P(pos), shared with the relative check (made here when null).
Coupling couplingCheck(const ComparisonParams& p, Scheme s, int dim, long long maxPositions, std::shared_ptr<PositionCache> cache) {
  Coupling c;
  c.window = static_cast<int>(std::min<long long>(kWindow, maxPositions));
  std::vector<std::vector<double>> effects;  // [draw][m * W + n]
  Vec q0, k0;
  // Additive schemes: P(0) .. P(W - 1) made once for every draw and the cross share.
  const bool additive = s == Scheme::Sinusoidal || s == Scheme::Learned;
  if (additive && !cache) cache = std::make_shared<PositionCache>(p, s);
  for (int d = 0; d < kCouplingDraws; ++d) {
    const Vec q = toDouble(randomNormalVector(dim, p.seed ^ static_cast<std::uint64_t>(16 + 2 * d)));
    const Vec k = toDouble(randomNormalVector(dim, p.seed ^ static_cast<std::uint64_t>(17 + 2 * d)));
    if (d == 0) q0 = q, k0 = k;
    std::vector<double> e = windowScores(contentModel(p, s, dim, q, k, cache), 0, c.window);
    const double origin = e.front();
    for (double& v : e) v -= origin;
    effects.push_back(std::move(e));
  }
  for (std::size_t d = 1; d < effects.size(); ++d)
    for (std::size_t i = 0; i < effects[d].size(); ++i)
      c.contentDependence = std::max(c.contentDependence, std::fabs(effects[d][i] - effects[0][i]));
  if (additive) c.crossShare = crossShare(*cache, q0, k0, c.window);
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

// What a column's relative check and coupling read besides the shift count: two params with equal
// inputs give the same checks (ComparisonOptions::reuse).
struct CheckInputs {
  int dim = 0;                   // dModel (additive) or headDim
  int numHeads = 0;              // ALiBi: its steepest slope; else 0
  double base = 0.0;             // sinusoidal and RoPE; else 0
  std::uint64_t seed = 0;
  long long maxPositions = 0;    // L, learned min(L0, L)
  bool operator==(const CheckInputs&) const = default;
};

bool isAdditive(Scheme s) { return s == Scheme::Sinusoidal || s == Scheme::Learned; }

CheckInputs checkInputs(const ComparisonParams& p, Scheme s) {
  CheckInputs in;
  in.dim = isAdditive(s) ? p.dModel : p.dModel / p.numHeads;
  in.numHeads = s == Scheme::Alibi ? p.numHeads : 0;
  in.base = s == Scheme::Sinusoidal || s == Scheme::Rope ? p.base : 0.0;
  in.seed = p.seed;
  in.maxPositions = s == Scheme::Learned ? std::min(p.trainedLength, p.targetLength) : p.targetLength;
  return in;
}

// The column's relative check and coupling, each taken from options.reuse when it would be the
// same: the relative check when its inputs and shifts match, the coupling (which shifts nothing and
// sees positions only through its window, min(kWindow, Lmax)) when the rest of its inputs match.
void columnChecks(const ComparisonParams& p, Scheme s, const ComparisonOptions& options, SchemeColumn& col) {
  const CheckInputs in = checkInputs(p, s);
  const auto window = [](CheckInputs c) {
    c.maxPositions = std::min<long long>(kWindow, c.maxPositions);
    return c;
  };
  const Comparison* old = options.reuse;
  const bool usable = old != nullptr && old->columns.size() == old->schemes.size();
  // The additive schemes' P(pos), shared by both checks.
  const auto cache = isAdditive(s) ? std::make_shared<PositionCache>(p, s) : nullptr;
  const CheckInputs oldIn = usable ? checkInputs(old->params, s) : CheckInputs{};
  if (usable && old->shifts == options.shifts && oldIn == in)
    col.relative = old->column(s).relative;
  else
    col.relative = isAdditive(s) ? additiveCheck(p, s, in.maxPositions, options.shifts, cache) : headCheck(p, s, in.dim, options.shifts);
  if (usable && window(oldIn) == window(in))
    col.coupling = old->column(s).coupling;
  else
    col.coupling = couplingCheck(p, s, in.dim, in.maxPositions, cache);
}

}  // namespace

Comparison computeComparison(const ComparisonParams& p, const std::vector<ModelSchemes>& models, const ComparisonOptions& options) {
  validateComparison("computeComparison", p);
  if (options.shifts < 1 || options.shifts > kMaxShifts)
    failArgument("computeComparison", "options.shifts must be in [1, " + std::to_string(kMaxShifts) + "], got " +
                                          std::to_string(options.shifts));
  Comparison c;
  c.params = p;
  c.models = models;
  c.shifts = options.shifts;
  c.headDim = p.dModel / p.numHeads;
  c.schemes = comparisonSchemes();
  c.alibiBufferFloats = static_cast<double>(p.numHeads) * static_cast<double>(p.targetLength) * static_cast<double>(p.targetLength);
  for (Scheme s : c.schemes) {
    SchemeColumn col;
    col.scheme = s;
    col.parameters = s == Scheme::Learned ? p.trainedLength * p.dModel : 0;
    col.appliedAt = schemeAppliedAt(s);
    switch (s) {
      case Scheme::Sinusoidal: col.atTarget = sinusoidalAtTarget(p); break;
      case Scheme::Learned: col.atTarget = learnedAtTarget(p); break;
      case Scheme::Rope: col.atTarget = ropeAtTarget(p, c.headDim); break;
      case Scheme::Alibi: col.atTarget = alibiAtTarget(p); break;
      case Scheme::NoPE: break;
    }
    columnChecks(p, s, options, col);
    col.cost = schemeCost(p, s, c.headDim);
    col.usedBy = modelsUsing(models, s);
    c.columns.push_back(std::move(col));
    if (options.afterColumn) options.afterColumn(static_cast<int>(c.columns.size()), static_cast<int>(c.schemes.size()));
  }
  return c;
}

}  // namespace posviz
