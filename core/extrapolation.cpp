#include "core/extrapolation.hpp"
#include "core/floor_sum.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <mutex>
#include <numbers>
#include <numeric>
#include <optional>
#include <utility>

#include "core/angle.hpp"
#include "core/check.hpp"
#include "core/kernels.hpp"
#include "core/learned.hpp"
#include "core/parallel.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

// [SECTION] names
// [SECTION] entropy and unseen angles
// [SECTION] the run: validation, content, scores per encoding, softmax

namespace posviz {

// ---------------------------------------------------------------------------------------------
// [SECTION] names
// ---------------------------------------------------------------------------------------------

const char* extrapolationEncodingName(ExtrapolationEncoding e) {
  switch (e) {
    case ExtrapolationEncoding::Sinusoidal: return "sinusoidal";
    case ExtrapolationEncoding::Learned: return "learned";
    case ExtrapolationEncoding::Rope: return "rope";
    case ExtrapolationEncoding::RopeLinear: return "rope-linear";
    case ExtrapolationEncoding::RopeNtk: return "rope-ntk";
    case ExtrapolationEncoding::RopeYarn: return "rope-yarn";
    case ExtrapolationEncoding::RopeLlama3: return "rope-llama3";
    case ExtrapolationEncoding::Alibi: return "alibi";
  }
  return "unknown";
}

const char* extrapolationEncodingTitle(ExtrapolationEncoding e) {
  switch (e) {
    case ExtrapolationEncoding::Sinusoidal: return "Sinusoidal";
    case ExtrapolationEncoding::Learned: return "Learned";
    case ExtrapolationEncoding::Rope: return "RoPE";
    case ExtrapolationEncoding::RopeLinear: return "RoPE + PI";
    case ExtrapolationEncoding::RopeNtk: return "RoPE + NTK";
    case ExtrapolationEncoding::RopeYarn: return "RoPE + YaRN";
    case ExtrapolationEncoding::RopeLlama3: return "RoPE + Llama 3.1";
    case ExtrapolationEncoding::Alibi: return "ALiBi";
  }
  return "unknown";
}

const std::vector<ExtrapolationEncoding>& allExtrapolationEncodings() {
  static const std::vector<ExtrapolationEncoding> kAll = {
      ExtrapolationEncoding::Sinusoidal, ExtrapolationEncoding::Learned,  ExtrapolationEncoding::Rope,
      ExtrapolationEncoding::RopeLinear, ExtrapolationEncoding::RopeNtk,  ExtrapolationEncoding::RopeYarn,
      ExtrapolationEncoding::RopeLlama3, ExtrapolationEncoding::Alibi};
  return kAll;
}

bool isRotary(ExtrapolationEncoding e) {
  return e == ExtrapolationEncoding::Rope || e == ExtrapolationEncoding::RopeLinear || e == ExtrapolationEncoding::RopeNtk ||
         e == ExtrapolationEncoding::RopeYarn || e == ExtrapolationEncoding::RopeLlama3;
}

ScalingMethod extrapolationScaling(ExtrapolationEncoding e) {
  switch (e) {
    case ExtrapolationEncoding::RopeLinear: return ScalingMethod::Linear;
    case ExtrapolationEncoding::RopeNtk: return ScalingMethod::NtkAware;
    case ExtrapolationEncoding::RopeYarn: return ScalingMethod::Yarn;
    case ExtrapolationEncoding::RopeLlama3: return ScalingMethod::Llama3;
    default: return ScalingMethod::None;
  }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] entropy and unseen angles
// ---------------------------------------------------------------------------------------------

double attentionEntropy(std::span<const double> weights) {
  double h = 0.0;
  for (std::size_t j = 0; j < weights.size(); ++j) {
    const double w = weights[j];
    if (!std::isfinite(w) || w < 0.0)
      failArgument("attentionEntropy", "weights must be finite and >= 0, got " + formatValue(w) + " at index " + std::to_string(j));
    if (w > 0.0) h -= w * std::log(w);
  }
  return h;
}

namespace {

// Positions p in [0, length) with (p theta mod 2 pi) > seenEnd, seenEnd in [0, 2 pi), counted
// exactly: p theta exact (no rounding of the product), 2 pi = kTwoPi. Every double is an integer
// times a power of two, so on the grid 2^e of theta mod 2 pi the angle is X_p = p a mod t
// (integers), and X_p > seenEnd iff X_p > s = floor(seenEnd / 2^e). With [x <= s] =
// floor(p a / t) - floor((p a + t - s - 1) / t) + 1, the unseen count is
// F(t - s - 1) - F(0), F(b) = sum_p floor((p a + b) / t): two floor sums, O(log) steps.
long long unseenPositions(double theta, double seenEnd, int length) {
  const double r = std::fmod(theta, kTwoPi);  // exact; p theta = p r mod 2 pi
  if (r == 0.0) return 0;
  int e = 0;
  (void)std::frexp(r, &e);                    // r = f 2^e, f in [0.5, 1), e <= 3
  if (e <= -40) {
    // Below 2^-41 rad the whole run turns (length-1) r < 2^31 2^-41 < 2 pi: no wrap, one ray.
    const double lastSeen = std::floor(seenEnd / r);
    return lastSeen >= static_cast<double>(length - 1) ? 0 : static_cast<long long>(length - 1 - static_cast<long long>(lastSeen));
  }
  const int grid = e - 53;                    // r = a 2^grid, a < 2^53; kTwoPi = t 2^grid
  const U128 a = static_cast<U128>(std::ldexp(r, -grid));
  const U128 t = static_cast<U128>(std::ldexp(kTwoPi, -grid));  // < 2^96: 3 - e <= 42 extra bits
  const U128 s = static_cast<U128>(std::floor(std::ldexp(seenEnd, -grid)));
  const U128 n = static_cast<U128>(length);  // a n + b < t (n + 1) < 2^128
  return static_cast<long long>(floorSum(n, t, a, t - s - 1) - floorSum(n, t, a, 0));
}

}  // namespace

std::vector<double> unseenAngleShares(std::span<const double> trainedInvFreq, std::span<const double> invFreq,
                                      int trainedLength, int length) {
  const char* fn = "unseenAngleShares";
  if (trainedInvFreq.size() != invFreq.size())
    failArgument(fn, "invFreq must have one value per pair of trainedInvFreq (" + std::to_string(trainedInvFreq.size()) +
                         "), got " + std::to_string(invFreq.size()));
  if (trainedLength < 1) failArgument(fn, "trainedLength must be >= 1, got " + std::to_string(trainedLength));
  requirePositiveInt(fn, "length", length);
  std::vector<double> share(invFreq.size(), 0.0);
  for (std::size_t i = 0; i < invFreq.size(); ++i) {
    requirePositive(fn, "trainedInvFreq", trainedInvFreq[i]);
    requirePositive(fn, "invFreq", invFreq[i]);
    const double span = static_cast<double>(trainedLength - 1) * trainedInvFreq[i];
    // The tolerance keeps an exact multiple (PI's s (L0-1)) on the seen side despite rounding in theta / s.
    const double seenEnd = span * (1.0 + kUnseenTolerance);
    if (seenEnd >= kTwoPi) continue;  // the whole circle was seen
    share[i] = static_cast<double>(unseenPositions(invFreq[i], seenEnd, length)) / static_cast<double>(length);
  }
  return share;
}

int logDistanceBin(int distance) {
  requireNonNegativeInt("logDistanceBin", "distance", distance);
  return static_cast<int>(std::bit_width(static_cast<unsigned int>(distance)));
}

std::vector<DistanceBin> logDistanceBins(std::span<const double> weights) {
  if (weights.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    failArgument("logDistanceBins", "at most INT_MAX weights, got " + std::to_string(weights.size()));
  std::vector<DistanceBin> bins;
  const int n = static_cast<int>(weights.size());
  for (int first = 0; first < n; first = bins.back().last + 1) {
    DistanceBin b;
    b.first = first;
    b.last = std::min(n - 1, first == 0 ? 0 : first + (first - 1));   // 2 first - 1, without overflow
    for (int r = b.first; r <= b.last; ++r) b.sum += weights[static_cast<std::size_t>(r)];
    bins.push_back(b);
  }
  return bins;
}

std::vector<std::string> tiledTokens(const std::vector<std::string>& sentence, int length) {
  if (sentence.empty()) failArgument("tiledTokens", "sentence must not be empty");
  requirePositiveInt("tiledTokens", "length", length);
  std::vector<std::string> out(static_cast<std::size_t>(length));
  for (int t = 0; t < length; ++t) out[static_cast<std::size_t>(t)] = sentence[static_cast<std::size_t>(t) % sentence.size()];
  return out;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] the run: validation, content, scores per encoding, softmax
// ---------------------------------------------------------------------------------------------

namespace {

constexpr const char* kFn = "runExtrapolation";

void validateSetup(const ExtrapolationSetup& s, ExtrapolationEncoding e, int length) {
  if (s.sentence.empty()) failArgument(kFn, "sentence must not be empty");
  requireEven(kFn, "model.dModel", s.model.dModel);
  if (s.model.dModel > 4096) failArgument(kFn, "model.dModel must be <= 4096, got " + std::to_string(s.model.dModel));
  if (s.trainedLength < 2) failArgument(kFn, "trainedLength must be >= 2, got " + std::to_string(s.trainedLength));
  if (length < 1 || length > kMaxExtrapolationLength)
    failArgument(kFn, "length must be in [1, " + std::to_string(kMaxExtrapolationLength) + "], got " + std::to_string(length));
  requireGreater(kFn, "base", s.base, 1.0);
  if (s.factor != 0.0) requireInRange(kFn, "factor", s.factor, 1.0, std::numeric_limits<double>::max());
  if (s.alibiSlope != 0.0) requireInRange(kFn, "alibiSlope", s.alibiSlope, std::numeric_limits<double>::min(), 1.0e6);
  bool known = false;
  for (ExtrapolationEncoding k : allExtrapolationEncodings()) known = known || k == e;
  if (!known) failArgument(kFn, "encoding must be one of sinusoidal .. alibi, got " + std::to_string(static_cast<int>(e)));
  if (e == ExtrapolationEncoding::RopeNtk && s.model.dModel < 4)
    failArgument(kFn, "model.dModel must be >= 4 for rope-ntk (its exponent d/(d-2) needs two pairs), got " +
                          std::to_string(s.model.dModel));
}

// Row-major d x d matrix times a vector: (x W)_c = sum_r x_r W[r][c].
std::vector<double> rowTimes(const std::vector<double>& x, const Grid& w) {
  std::vector<double> out(static_cast<std::size_t>(w.cols), 0.0);
  for (int r = 0; r < w.rows; ++r) {
    const float* row = w.row(r);
    for (int c = 0; c < w.cols; ++c) out[static_cast<std::size_t>(c)] += x[static_cast<std::size_t>(r)] * row[c];
  }
  return out;
}

// W times a vector: (W u)_r = sum_c W[r][c] u_c, so q . (x W_k) = x . (W_k q).
std::vector<double> timesColumn(const Grid& w, const std::vector<double>& u) {
  std::vector<double> out(static_cast<std::size_t>(w.rows), 0.0);
  for (int r = 0; r < w.rows; ++r) {
    const float* row = w.row(r);
    double acc = 0.0;
    for (int c = 0; c < w.cols; ++c) acc += row[c] * u[static_cast<std::size_t>(c)];
    out[static_cast<std::size_t>(r)] = acc;
  }
  return out;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double acc = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) acc += a[i] * b[i];
  return acc;
}

// What does not depend on positions: made once per grid and shared by its runs.
struct Content {
  std::vector<std::vector<double>> embed;       // one per sentence slot
  Grid wq, wk;
  std::vector<std::vector<double>> query, key;  // embed[slot] W_q, embed[slot] W_k (the rotary runs')
};

Content content(const ExtrapolationSetup& s) {
  Content c;
  for (const std::string& tok : s.sentence) {
    const std::vector<float> e = toyEmbedding(s.model, tok);
    c.embed.emplace_back(e.begin(), e.end());
  }
  c.wq = toyProjection(s.model, ToyMatrix::Query);
  c.wk = toyProjection(s.model, ToyMatrix::Key);
  for (const std::vector<double>& e : c.embed) {
    c.query.push_back(rowTimes(e, c.wq));
    c.key.push_back(rowTimes(e, c.wk));
  }
  return c;
}

std::size_t slotOf(const ExtrapolationSetup& s, int pos) { return static_cast<std::size_t>(pos) % s.sentence.size(); }

// The trigonometric series of the scores go to kernels::trigSeriesInto: vectorized across
// frequencies, each frequency's angle stepped by a rotation and restarted from exact values every
// fasttrig::kRotorRestart positions, split over threads by work. A split by work this small
// (a few MB of rotor steps) already pays off: a run at L = 2^19 is a few hundred million steps.
kernels::KernelOptions seriesOptions() {
  kernels::KernelOptions opt;
  opt.parallelMinBytes = std::size_t{4} << 20;
  return opt;
}

// The learned run's P: the setup's table when it has the rows and was drawn for this model (its
// first row redrawn and compared), else its first L rows drawn here (a row does not depend on
// how many are drawn).
std::shared_ptr<const Grid> learnedTableFor(const ExtrapolationSetup& s, int length) {
  const ToyConstants tc = toyConstants();
  const int d = s.model.dModel;
  if (!s.learnedTable) return extrapolationLearnedTable(s, length);   // rows 0..L-1 are all a run reads (L <= L0)
  const Grid& t = *s.learnedTable;
  if (t.cols != d || t.rows < length)
    failArgument(kFn, "learnedTable must be >= " + std::to_string(length) + " x " + std::to_string(d) + " (L x model.dModel), got " +
                          std::to_string(t.rows) + " x " + std::to_string(t.cols));
  std::vector<float> first(static_cast<std::size_t>(d));
  learnedInitRowsInto(d, s.model.seed + tc.learnedSeedOffset, tc.learnedStd, 0, 1, first.data());
  if (!std::equal(first.begin(), first.end(), t.row(0)))
    failArgument(kFn, "learnedTable was not drawn for this model's seed (its first row differs from learnedInit's)");
  return s.learnedTable;
}

// Sinusoidal, learned, ALiBi: score by key position j (unscaled dot, bias added later). The
// sinusoidal keys' part, PE(j) . u, is summed per frequency along j with forEachAngle.
std::vector<double> additiveScores(const ExtrapolationSetup& s, ExtrapolationEncoding e, int length, const Content& c) {
  const ToyConstants tc = toyConstants();
  const int d = s.model.dModel;
  const SinusoidalParams sp{d, tc.sinusoidalBase, SinusoidalLayout::Interleaved, 1.0};
  std::shared_ptr<const Grid> tablePtr;
  if (e == ExtrapolationEncoding::Learned) tablePtr = learnedTableFor(s, length);
  const Grid* table = tablePtr.get();   // null unless learned
  const int qPos = length - 1;
  std::vector<double> xq = c.embed[slotOf(s, qPos)];
  if (e == ExtrapolationEncoding::Sinusoidal || e == ExtrapolationEncoding::Learned) {
    const std::vector<double> pq = e == ExtrapolationEncoding::Sinusoidal
                                       ? sinusoidalVector(sp, qPos)
                                       : std::vector<double>(table->row(qPos), table->row(qPos) + d);
    for (int i = 0; i < d; ++i) xq[static_cast<std::size_t>(i)] += pq[static_cast<std::size_t>(i)];
  }
  const std::vector<double> u = timesColumn(c.wk, rowTimes(xq, c.wq));
  std::vector<double> slotScore;
  for (const std::vector<double>& e0 : c.embed) slotScore.push_back(dot(e0, u));
  std::vector<double> score(static_cast<std::size_t>(length));
  for (std::size_t j = 0, slot = 0; j < score.size(); ++j, slot = slot + 1 == slotScore.size() ? 0 : slot + 1)
    score[j] = slotScore[slot];
  if (e == ExtrapolationEncoding::Learned) {
    for (int j = 0; j < length; ++j) {   // P[j] . u, summed as dot() sums, without a copy per key
      const float* row = table->row(j);
      double pu = 0.0;
      for (int i = 0; i < d; ++i) pu += static_cast<double>(row[i]) * u[static_cast<std::size_t>(i)];
      score[static_cast<std::size_t>(j)] += pu;
    }
  } else if (e == ExtrapolationEncoding::Sinusoidal) {
    // PE(j) . u = sum over pairs p of u[cos dim] cos(j w_p) + u[sin dim] sin(j w_p).
    const SinusoidalTable t = sinusoidalTable(sp);
    const std::size_t pairs = t.frequency.size();
    std::vector<double> cosCoef(pairs, 0.0), sinCoef(pairs, 0.0);
    for (std::size_t dim = 0; dim < t.pairOfDim.size(); ++dim)
      (t.dimIsSin[dim] != 0 ? sinCoef : cosCoef)[static_cast<std::size_t>(t.pairOfDim[dim])] = u[dim];
    std::vector<double> pe(static_cast<std::size_t>(length));
    kernels::trigSeriesInto(t.frequency.data(), cosCoef.data(), sinCoef.data(), static_cast<int>(pairs), 0.0, 0, length,
                            pe.data(), seriesOptions());
    for (int j = 0; j < length; ++j) score[static_cast<std::size_t>(j)] += pe[static_cast<std::size_t>(j)];
  }
  return score;
}

// Rotary: score by key position j from the closed form per pair (rope.hpp), relative distance
// r = qPos - j: sum over pairs of A_t cos(r theta_i) + B_t sin(r theta_i), t the key's sentence
// slot. The slot repeats every n = sentence length distances, so the distances r = rho + n m of
// one residue rho share one slot, and there the sum is one series in m:
//   A cos(r th) + B sin(r th) = A' cos(m n th) + B' sin(m n th),
//   A' = A cos(rho th) + B sin(rho th),  B' = B cos(rho th) - A sin(rho th).
std::vector<double> rotaryScores(const ExtrapolationSetup& s, int length, const Content& c, const RopeParams& rp,
                                 const RopeFrequencies& f) {
  const int pairs = ropeNumPairs(rp);
  const int qPos = length - 1;
  const int n = static_cast<int>(c.embed.size());
  const std::vector<double>& q = c.query[slotOf(s, qPos)];
  std::vector<double> stride(static_cast<std::size_t>(pairs));   // n theta_i: one residue's step
  for (int i = 0; i < pairs; ++i) stride[static_cast<std::size_t>(i)] = n * f.invFreq[static_cast<std::size_t>(i)];
  const double af2 = f.attentionFactor * f.attentionFactor;
  std::vector<double> score(static_cast<std::size_t>(length));   // by key position j = qPos - r
  std::vector<double> a(static_cast<std::size_t>(pairs)), b(a.size()), series;
  for (int rho = 0; rho < std::min(n, length); ++rho) {
    const std::vector<double>& k = c.key[slotOf(s, qPos - rho)];
    for (int i = 0; i < pairs; ++i) {
      const DimPair dp = ropePairDims(rp, i);
      const double qa = q[static_cast<std::size_t>(dp.a)], qb = q[static_cast<std::size_t>(dp.b)];
      const double ka = k[static_cast<std::size_t>(dp.a)], kb = k[static_cast<std::size_t>(dp.b)];
      const double aa = qa * ka + qb * kb, bb = qa * kb - qb * ka;
      const double phase = static_cast<double>(rho) * f.invFreq[static_cast<std::size_t>(i)];
      const double cr = std::cos(phase), sr = std::sin(phase);
      a[static_cast<std::size_t>(i)] = aa * cr + bb * sr;
      b[static_cast<std::size_t>(i)] = bb * cr - aa * sr;
    }
    const int count = (length - 1 - rho) / n + 1;
    series.resize(static_cast<std::size_t>(count));
    kernels::trigSeriesInto(stride.data(), a.data(), b.data(), pairs, 0.0, 0, count, series.data(), seriesOptions());
    for (int m = 0; m < count; ++m)
      score[static_cast<std::size_t>(qPos - rho - n * m)] = af2 * series[static_cast<std::size_t>(m)];
  }
  return score;
}

// Softmax of score / sqrt(d) + bias, reordered by distance r = L-1-j, and its entropy without a
// log per key: with x_r the logits, M their max and S = sum exp(x_r - M), ln w_r = x_r - M - ln S,
// so H = -sum w_r ln w_r = ln S - sum w_r (x_r - M).
std::vector<double> softmaxByDistance(const std::vector<double>& score, double scale, double slope, double& entropy) {
  const std::size_t n = score.size();
  std::vector<double> w(n);
  double mx = -std::numeric_limits<double>::infinity();
  for (std::size_t r = 0; r < n; ++r) {
    w[r] = score[n - 1 - r] * scale - slope * static_cast<double>(r);
    mx = std::max(mx, w[r]);
  }
  double sum = 0.0, weighted = 0.0;   // sum exp(x - M), sum exp(x - M) (x - M)
  for (double& v : w) {
    const double shifted = v - mx;
    v = std::exp(shifted);
    sum += v;
    weighted += v * shifted;
  }
  for (double& v : w) v /= sum;
  entropy = std::max(0.0, std::log(sum) - weighted / sum);
  return w;
}

void learnedErrorState(ExtrapolationRun& run) {
  const int l0 = run.trainedLength, l = run.length;
  run.error = "learned: positions " + std::to_string(l0) + ".." + std::to_string(l - 1) + " (" + std::to_string(l - l0) +
              " of " + std::to_string(l) + ") have no row in a table of L0 = " + std::to_string(l0) +
              " rows, the query at " + std::to_string(l - 1) + " among them: no attention (nn.Embedding raises IndexError)";
  run.entropy = std::numeric_limits<double>::quiet_NaN();
  run.entropyRatio = std::numeric_limits<double>::quiet_NaN();
}

void rotaryAngles(ExtrapolationRun& run, const RopeFrequencies& f) {
  run.invFreq = f.invFreq;
  for (double t : f.baseInvFreq) run.trainedSpan.push_back(static_cast<double>(run.trainedLength - 1) * t);
  run.unseenShare = unseenAngleShares(f.baseInvFreq, f.invFreq, run.trainedLength, run.length);
  double sum = 0.0;
  for (double v : run.unseenShare) {
    sum += v;
    if (v > 0.0) ++run.pairsWithUnseen;
  }
  run.unseenShareMean = run.unseenShare.empty() ? 0.0 : sum / static_cast<double>(run.unseenShare.size());
}

}  // namespace

std::shared_ptr<const Grid> extrapolationLearnedTable(const ExtrapolationSetup& s, int rows) {
  validateSetup(s, ExtrapolationEncoding::Learned, std::max(1, std::min(rows, kMaxExtrapolationLength)));
  if (rows < 1 || rows > kMaxExtrapolationLength)
    failArgument(kFn, "rows must be in [1, " + std::to_string(kMaxExtrapolationLength) + "], got " + std::to_string(rows));
  const ToyConstants tc = toyConstants();
  return std::make_shared<const Grid>(learnedInit(rows, s.model.dModel, s.model.seed + tc.learnedSeedOffset, tc.learnedStd));
}

namespace {

// One run, validated; shared: the grid's content, else (null) the run makes its own.
ExtrapolationRun runWithContent(const ExtrapolationSetup& s, ExtrapolationEncoding e, int length, const Content* shared) {
  ExtrapolationRun run;
  run.encoding = e;
  run.length = length;
  run.trainedLength = s.trainedLength;
  run.queryPosition = length - 1;
  run.maxEntropy = std::log(static_cast<double>(length));
  if (e == ExtrapolationEncoding::Learned) {
    run.keyHasRow.resize(static_cast<std::size_t>(length));
    for (int p = 0; p < length; ++p) run.keyHasRow[static_cast<std::size_t>(p)] = p < s.trainedLength ? 1 : 0;
    if (length > s.trainedLength) {
      learnedErrorState(run);
      return run;
    }
  }
  std::optional<Content> own;
  if (shared == nullptr) own = content(s);
  const Content& c = shared != nullptr ? *shared : *own;
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.model.dModel));
  double slope = 0.0;
  std::vector<double> score;
  if (isRotary(e)) {
    RopeParams rp;
    rp.headDim = s.model.dModel;
    rp.base = s.base;
    rp.scaling = s.scaling;
    rp.scaling.method = extrapolationScaling(e);
    rp.scaling.originalMaxPositions = s.trainedLength;
    const double autoFactor = std::max(1.0, static_cast<double>(length) / static_cast<double>(s.trainedLength));
    rp.scaling.factor = rp.scaling.method == ScalingMethod::None ? 1.0 : (s.factor == 0.0 ? autoFactor : s.factor);
    const RopeFrequencies f = ropeFrequencies(rp);
    run.factor = rp.scaling.factor;
    run.attentionFactor = f.attentionFactor;
    rotaryAngles(run, f);
    score = rotaryScores(s, length, c, rp, f);
  } else {
    if (e == ExtrapolationEncoding::Alibi) slope = s.alibiSlope == 0.0 ? toyConstants().alibiSlope : s.alibiSlope;
    score = additiveScores(s, e, length, c);
  }
  run.weights = softmaxByDistance(score, scale, slope, run.entropy);
  run.entropyRatio = length >= 2 ? run.entropy / run.maxEntropy : std::numeric_limits<double>::quiet_NaN();
  return run;
}

}  // namespace

ExtrapolationRun runExtrapolation(const ExtrapolationSetup& s, ExtrapolationEncoding e, int length) {
  validateSetup(s, e, length);
  return runWithContent(s, e, length, nullptr);
}

std::vector<std::vector<ExtrapolationRun>> runExtrapolationGrid(const ExtrapolationSetup& s,
                                                                std::span<const ExtrapolationEncoding> encodings,
                                                                std::span<const int> lengths,
                                                                const std::function<void(int, int)>& afterRun) {
  for (int length : lengths)
    for (ExtrapolationEncoding e : encodings) validateSetup(s, e, length);   // refuse before any work
  std::vector<std::vector<ExtrapolationRun>> runs(lengths.size(), std::vector<ExtrapolationRun>(encodings.size()));
  const long long total = static_cast<long long>(lengths.size() * encodings.size());
  // The costliest runs first, so the threads end together. Rough costs per run: a series step
  // per key and pair; a learned table is L0 x d normal draws, each worth several steps; a learned
  // run past L0 is only its error.
  auto cost = [&](long long t) {
    const ExtrapolationEncoding e = encodings[static_cast<std::size_t>(t) % encodings.size()];
    const double l = lengths[static_cast<std::size_t>(t) / encodings.size()], d = s.model.dModel;
    if (e == ExtrapolationEncoding::Learned) return l > s.trainedLength ? 0.0 : 16.0 * s.trainedLength * d;
    return e == ExtrapolationEncoding::Alibi ? l : l * d / 2.0;
  };
  std::vector<long long> order(static_cast<std::size_t>(total));
  std::iota(order.begin(), order.end(), 0LL);
  std::stable_sort(order.begin(), order.end(), [&](long long a, long long b) { return cost(a) > cost(b); });
  // The content (embeddings, W_q, W_k and the slots' projections: 2 d^2 normal draws) once, for
  // every run that scores; a learned run past L0 does not.
  bool scores = false;
  for (int length : lengths)
    for (ExtrapolationEncoding e : encodings) scores = scores || e != ExtrapolationEncoding::Learned || length <= s.trainedLength;
  std::optional<Content> shared;
  if (scores) shared = content(s);
  std::mutex mutex;
  int done = 0;
  parallelTasks(total, hardwareThreads(), [&](long long task) {
    const std::size_t t = static_cast<std::size_t>(order[static_cast<std::size_t>(task)]);
    const std::size_t k = t / encodings.size(), e = t % encodings.size();
    runs[k][e] = runWithContent(s, encodings[e], lengths[k], shared ? &*shared : nullptr);
    std::lock_guard<std::mutex> lock(mutex);
    ++done;
    if (afterRun) afterRun(done, static_cast<int>(total));
  });
  return runs;
}

}  // namespace posviz
