#include "core/extrapolation.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/check.hpp"
#include "core/learned.hpp"
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
    if (span >= 2.0 * std::numbers::pi) continue;  // the whole circle was seen
    // Positions p <= pStar keep p * invFreq within the span; the tolerance keeps an exact
    // multiple (PI's s (L0-1)) on the seen side despite rounding in theta / s.
    const double pStar = span / invFreq[i] * (1.0 + kUnseenTolerance);
    const double lastSeen = std::floor(pStar);
    const double unseen = lastSeen >= static_cast<double>(length - 1) ? 0.0 : static_cast<double>(length - 1) - lastSeen;
    share[i] = unseen / static_cast<double>(length);
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

struct Content {
  std::vector<std::vector<double>> embed;  // one per sentence slot
  Grid wq, wk;
};

Content content(const ExtrapolationSetup& s) {
  Content c;
  for (const std::string& tok : s.sentence) {
    const std::vector<float> e = toyEmbedding(s.model, tok);
    c.embed.emplace_back(e.begin(), e.end());
  }
  c.wq = toyProjection(s.model, ToyMatrix::Query);
  c.wk = toyProjection(s.model, ToyMatrix::Key);
  return c;
}

std::size_t slotOf(const ExtrapolationSetup& s, int pos) { return static_cast<std::size_t>(pos) % s.sentence.size(); }

// f(n, cos(n theta), sin(n theta)) for every n in 0 .. count-1 (not in order), by steps: each step is one
// rotation by theta (two multiply-adds each), and every kAnchorSteps steps the pair is set again
// from cos and sin of the angle n * theta itself, so the drift of the rotations never passes a
// few ulps. About 30 times cheaper than a cos and a sin per key and frequency, which at
// L = 2^19 keys was the lab's whole cost.
constexpr int kAnchorSteps = 64;
// Blocks of kAnchorSteps stepped side by side: one block's rotations wait on each other, four
// blocks' do not, so the processor overlaps them (about 3x at L = 2^19).
constexpr int kLanes = 4;

template <class F>
void forEachAngle(double theta, int count, F&& f) {
  const double cosStep = std::cos(theta), sinStep = std::sin(theta);
  int start = 0;
  for (; start + kLanes * kAnchorSteps <= count; start += kLanes * kAnchorSteps) {
    double c[kLanes], s[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      const double anchor = static_cast<double>(start + l * kAnchorSteps) * theta;
      c[l] = std::cos(anchor);
      s[l] = std::sin(anchor);
    }
    for (int k = 0; k < kAnchorSteps; ++k) {
      for (int l = 0; l < kLanes; ++l) {
        f(start + l * kAnchorSteps + k, c[l], s[l]);
        const double next = c[l] * cosStep - s[l] * sinStep;
        s[l] = s[l] * cosStep + c[l] * sinStep;
        c[l] = next;
      }
    }
  }
  for (; start < count; start += kAnchorSteps) {   // the last blocks, one at a time
    const double anchor = static_cast<double>(start) * theta;
    double c = std::cos(anchor), s = std::sin(anchor);
    const int end = std::min(count, start + kAnchorSteps);
    for (int n = start; n < end; ++n) {
      f(n, c, s);
      const double next = c * cosStep - s * sinStep;
      s = s * cosStep + c * sinStep;
      c = next;
    }
  }
}

// Sinusoidal, learned, ALiBi: score by key position j (unscaled dot, bias added later). The
// sinusoidal keys' part, PE(j) . u, is summed per frequency along j with forEachAngle.
std::vector<double> additiveScores(const ExtrapolationSetup& s, ExtrapolationEncoding e, int length, const Content& c) {
  const ToyConstants tc = toyConstants();
  const int d = s.model.dModel;
  const SinusoidalParams sp{d, tc.sinusoidalBase, SinusoidalLayout::Interleaved, 1.0};
  Grid table;
  if (e == ExtrapolationEncoding::Learned) table = learnedInit(s.trainedLength, d, s.model.seed + tc.learnedSeedOffset, tc.learnedStd);
  const int qPos = length - 1;
  std::vector<double> xq = c.embed[slotOf(s, qPos)];
  if (e == ExtrapolationEncoding::Sinusoidal || e == ExtrapolationEncoding::Learned) {
    const std::vector<double> pq = e == ExtrapolationEncoding::Sinusoidal
                                       ? sinusoidalVector(sp, qPos)
                                       : std::vector<double>(table.row(qPos), table.row(qPos) + d);
    for (int i = 0; i < d; ++i) xq[static_cast<std::size_t>(i)] += pq[static_cast<std::size_t>(i)];
  }
  const std::vector<double> u = timesColumn(c.wk, rowTimes(xq, c.wq));
  std::vector<double> slotScore;
  for (const std::vector<double>& e0 : c.embed) slotScore.push_back(dot(e0, u));
  std::vector<double> score(static_cast<std::size_t>(length));
  for (int j = 0; j < length; ++j) score[static_cast<std::size_t>(j)] = slotScore[slotOf(s, j)];
  if (e == ExtrapolationEncoding::Learned) {
    for (int j = 0; j < length; ++j) {   // P[j] . u, summed as dot() sums, without a copy per key
      const float* row = table.row(j);
      double pu = 0.0;
      for (int i = 0; i < d; ++i) pu += static_cast<double>(row[i]) * u[static_cast<std::size_t>(i)];
      score[static_cast<std::size_t>(j)] += pu;
    }
  } else if (e == ExtrapolationEncoding::Sinusoidal) {
    const SinusoidalTable t = sinusoidalTable(sp);
    std::vector<double> pe(static_cast<std::size_t>(length), 0.0);
    for (std::size_t dim = 0; dim < t.pairOfDim.size(); ++dim) {
      const double w = u[dim];
      const bool isSin = t.dimIsSin[dim] != 0;
      forEachAngle(t.frequency[static_cast<std::size_t>(t.pairOfDim[dim])], length, [&](int j, double cj, double sj) {
        pe[static_cast<std::size_t>(j)] += w * (isSin ? sj : cj);
      });
    }
    for (int j = 0; j < length; ++j) score[static_cast<std::size_t>(j)] += pe[static_cast<std::size_t>(j)];
  }
  return score;
}

// Rotary: score by key position j from the closed form per pair (rope.hpp), relative distance
// r = qPos - j: sum over pairs of A_t cos(r theta_i) + B_t sin(r theta_i), the angles stepped
// along r with forEachAngle.
std::vector<double> rotaryScores(const ExtrapolationSetup& s, int length, const Content& c, const RopeParams& rp,
                                 const RopeFrequencies& f) {
  const int pairs = ropeNumPairs(rp);
  const int qPos = length - 1;
  const std::size_t slots = c.embed.size();
  const std::vector<double> q = rowTimes(c.embed[slotOf(s, qPos)], c.wq);
  // A (cos term) and B (sin term) per pair and sentence slot.
  std::vector<double> a(static_cast<std::size_t>(pairs) * slots), b(a.size());
  for (std::size_t t = 0; t < slots; ++t) {
    const std::vector<double> k = rowTimes(c.embed[t], c.wk);
    for (int i = 0; i < pairs; ++i) {
      const DimPair dp = ropePairDims(rp, i);
      const double qa = q[static_cast<std::size_t>(dp.a)], qb = q[static_cast<std::size_t>(dp.b)];
      const double ka = k[static_cast<std::size_t>(dp.a)], kb = k[static_cast<std::size_t>(dp.b)];
      a[static_cast<std::size_t>(i) * slots + t] = qa * ka + qb * kb;
      b[static_cast<std::size_t>(i) * slots + t] = qa * kb - qb * ka;
    }
  }
  std::vector<std::size_t> slotAt(static_cast<std::size_t>(length));   // by distance r
  for (int r = 0; r < length; ++r) slotAt[static_cast<std::size_t>(r)] = slotOf(s, qPos - r);
  std::vector<double> acc(static_cast<std::size_t>(length), 0.0);      // by distance r
  for (int i = 0; i < pairs; ++i) {
    const double* ai = a.data() + static_cast<std::size_t>(i) * slots;
    const double* bi = b.data() + static_cast<std::size_t>(i) * slots;
    forEachAngle(f.invFreq[static_cast<std::size_t>(i)], length, [&](int r, double cr, double sr) {
      const std::size_t t = slotAt[static_cast<std::size_t>(r)];
      acc[static_cast<std::size_t>(r)] += ai[t] * cr + bi[t] * sr;
    });
  }
  const double af2 = f.attentionFactor * f.attentionFactor;
  std::vector<double> score(static_cast<std::size_t>(length));
  for (int j = 0; j < length; ++j) score[static_cast<std::size_t>(j)] = af2 * acc[static_cast<std::size_t>(qPos - j)];
  return score;
}

// Softmax of score / sqrt(d) + bias, reordered by distance r = L-1-j.
std::vector<double> softmaxByDistance(const std::vector<double>& score, double scale, double slope) {
  const std::size_t n = score.size();
  std::vector<double> w(n);
  double mx = -std::numeric_limits<double>::infinity();
  for (std::size_t r = 0; r < n; ++r) {
    w[r] = score[n - 1 - r] * scale - slope * static_cast<double>(r);
    mx = std::max(mx, w[r]);
  }
  double sum = 0.0;
  for (double& v : w) {
    v = std::exp(v - mx);
    sum += v;
  }
  for (double& v : w) v /= sum;
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

ExtrapolationRun runExtrapolation(const ExtrapolationSetup& s, ExtrapolationEncoding e, int length) {
  validateSetup(s, e, length);
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
  const Content c = content(s);
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
  run.weights = softmaxByDistance(score, scale, slope);
  run.entropy = attentionEntropy(run.weights);
  run.entropyRatio = length >= 2 ? run.entropy / run.maxEntropy : std::numeric_limits<double>::quiet_NaN();
  return run;
}

}  // namespace posviz
