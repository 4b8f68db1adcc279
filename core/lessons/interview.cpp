// interview.cpp: 004's ten interview questions, each answer's checkable part recomputed with
// core (permutation equivariance, wavelength order, the learned ceiling against RoPE, RoPE's
// relative phase, ALiBi's bias, where each encoding acts, unrotated values, PI / NTK / YaRN,
// ALiBi's distance-only bias, one sinusoidal pair). Words: assets/lessons/interview.json.
#include <algorithm>
#include <cmath>
#include <exception>
#include <numbers>
#include <span>

#include "core/alibi.hpp"
#include "core/attention.hpp"
#include "core/context_extension.hpp"
#include "core/learned.hpp"
#include "core/lessons/topics.hpp"
#include "core/order.hpp"
#include "core/random.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

// [SECTION] shared helpers
// [SECTION] q1 .. q5
// [SECTION] q6 .. q10

namespace posviz {

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] shared helpers
// ---------------------------------------------------------------------------------------------

// The outcome of a call: core's error message, or "" when it returned.
template <class F>
std::string errorOf(F&& call) {
  try {
    call();
    return {};
  } catch (const std::exception& ex) {
    return ex.what();
  }
}

double maxAbsDiff(const Grid& a, const Grid& b) {
  double m = 0.0;
  for (std::size_t i = 0; i < a.values.size() && i < b.values.size(); ++i)
    m = std::max(m, std::fabs(static_cast<double>(a.values[i]) - b.values[i]));
  return m;
}

MiniView weightsView(const Grid& w, std::string title) {
  MiniView v;
  v.title = std::move(title);
  v.grid = w;
  v.rowTitle = "query position";
  v.colTitle = "key position";
  v.valueName = "weight";
  return v;
}

RopeParams ropeHead(int headDim) {
  RopeParams p;
  p.headDim = headDim;
  return p;
}

// numTokens rows of seeded N(0, 1) values, headDim wide.
Grid randomRows(int numTokens, int headDim, std::uint64_t seed) {
  Grid g(numTokens, headDim);
  g.values = randomNormalVector(numTokens * headDim, seed);
  return g;
}

Grid ropeRows(const RopeParams& p, const Grid& x) {
  Grid out(x.rows, x.cols);
  ropeApplyInto(p, x.values.data(), out.values.data(), x.rows, 0);
  return out;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] q1 .. q5
// ---------------------------------------------------------------------------------------------

}  // namespace

// ---- interview-q1-equivariance ----

// 004's own pair, "dog bites man" and "man bites dog": the first and last token swapped.
std::vector<StepResult> interviewQ1Steps() {
  const ToyModel toy{8, 0, false};
  const std::vector<std::string> a = splitTokens("dog bites man"), b = splitTokens("man bites dog");
  const std::vector<int> perm = permutationBetween(a, b);
  const OrderComparison none = compareOrder(toy, a, perm, PositionEncoding::None);
  StepResult s;
  s.numbers = {{"max |W(PX) - P W(X) P^T|", none.maxWeightDifference},
               {"max |Attn(PX) - P Attn(X)|", none.maxOutputDifference}};
  s.fields = {{"perm", indexList(perm)}};
  s.view = weightsView(none.permuted.weights,
                       "\"man bites dog\", no position: the weights of \"dog bites man\", permuted");

  StepResult t;
  for (PositionEncoding enc : {PositionEncoding::Sinusoidal, PositionEncoding::Learned, PositionEncoding::Rope}) {
    const OrderComparison c = compareOrder(toy, a, perm, enc);
    t.numbers.push_back(
        {std::string(positionEncodingName(enc)) + ": max |Attn(PX) - P Attn(X)|", c.maxOutputDifference});
    if (enc == PositionEncoding::Rope) t.view = weightsView(c.permuted.weights, "\"man bites dog\" with RoPE");
  }
  StepResult u;
  const OrderComparison alibi = compareOrder(toy, a, perm, PositionEncoding::Alibi);
  u.numbers = {{"alibi: max |Attn(PX) - P Attn(X)|", alibi.maxOutputDifference}};
  return {s, t, u};
}

// ---- interview-q2-wavelengths ----

std::vector<StepResult> interviewQ2Steps() {
  SinusoidalParams p;
  p.dModel = 8;
  const int last = p.dModel / 2 - 1;
  // The answer's formula, evaluated as written, against core over positions 0..63.
  double worst = 0.0;
  for (int pos = 0; pos < 64; ++pos)
    for (int i = 0; i <= last; ++i) {
      const double angle = pos / std::pow(10000.0, 2.0 * i / p.dModel);
      worst = std::max(worst, std::fabs(sinusoidalValue(p, pos, 2 * i) - std::sin(angle)));
      worst = std::max(worst, std::fabs(sinusoidalValue(p, pos, 2 * i + 1) - std::cos(angle)));
    }
  StepResult f;
  f.numbers = {{"max |core PE - formula|, pos 0..63", worst}};

  const double l0 = sinusoidalWavelength(p, 0), lLast = sinusoidalWavelength(p, last);
  const double w0 = sinusoidalFrequency(p, 0), wLast = sinusoidalFrequency(p, last);
  const std::map<std::string, std::string> fields = {{"lambda_first", formatFixed(l0, 3)},
                                                     {"lambda_last", formatFixed(lLast, 1)},
                                                     {"omega_last", formatGeneral(wLast, 3)}};
  MiniView plot;
  plot.title = "wavelength per pair, d_model = 8";
  plot.xTitle = "pair i";
  plot.yTitle = "wavelength (positions)";
  plot.logY = true;
  MiniSeries series{"lambda_i", {}, {}};
  for (int i = 0; i <= last; ++i) {
    series.x.push_back(i);
    series.y.push_back(sinusoidalWavelength(p, i));
  }
  plot.series = {series};

  StepResult s;
  s.numbers = {{"lambda_0", l0}, {"omega_0 (rad/position)", w0}, {"lambda_0 / lambda_3", l0 / lLast},
               {"omega_0 / omega_3", w0 / wLast}};
  s.fields = fields;
  s.view = plot;
  s.view.markerX = 0.0;
  StepResult t;
  t.numbers = {{"lambda_3", lLast}, {"omega_3 (rad/position)", wLast}, {"lambda_3 / lambda_0", lLast / l0}};
  t.fields = fields;
  t.view = plot;
  t.view.markerX = last;
  return {f, s, t};
}

// ---- interview-q3-learned-vs-rope ----

std::vector<StepResult> interviewQ3Steps() {
  const int tMax = 512;
  const Grid table = learnedInit(tMax, 8, 7);
  StepResult s;
  s.numbers = {{"rows (L_max)", table.rows}, {"parameters (L_max x d)", static_cast<double>(table.size())}};
  s.outcomes = {{"lookup 511", errorOf([&] { (void)learnedLookup(table, tMax - 1); })},
                {"lookup 512", errorOf([&] { (void)learnedLookup(table, tMax); })}};

  const RopeParams p = ropeHead(64);
  const std::vector<float> q = randomNormalVector(64, 11), k = randomNormalVector(64, 12);
  StepResult t;
  t.outcomes = {{"rotate at 1024", errorOf([&] { (void)ropeRotate(p, std::span<const float>(q), 1024.0); })}};
  const double far = ropeScore(p, q, k, 1034.0, 1024.0), near = ropeScore(p, q, k, 10.0, 0.0);
  t.numbers = {{"s(10, 0)", near}, {"s(1034, 1024)", far}};
  t.checked = {{"|s(1034, 1024) - s(10, 0)|", std::fabs(far - near)}};
  t.view.title = "scores by offset m - n, positions 0..31 (d = 64)";
  t.view.xTitle = "m - n";
  t.view.yTitle = "score";
  MiniSeries byOffset{"s(m - n)", {}, {}};
  const std::vector<double> offsets = ropeScoreByOffset(p, q, k, 32);
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    byOffset.x.push_back(static_cast<double>(i) - 31.0);
    byOffset.y.push_back(offsets[i]);
  }
  t.view.series = {byOffset};
  t.view.markerX = 10.0;
  return {s, t};
}

// ---- interview-q4-rope-relative ----

std::vector<StepResult> interviewQ4Steps() {
  const RopeParams p = ropeHead(64);
  const std::vector<float> q = randomNormalVector(64, 21), k = randomNormalVector(64, 22);
  double lo = 1e300, hi = -1e300;
  for (int m = 3; m <= 1003; m += 20) {
    const double s = ropeScore(p, q, k, m, m - 3);
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  StepResult s;
  s.numbers = {{"s(3, 0)", ropeScore(p, q, k, 3.0, 0.0)}, {"s(1003, 1000)", ropeScore(p, q, k, 1003.0, 1000.0)}};
  s.checked = {{"spread of s(m, m - 3), m = 3..1003", hi - lo}};
  s.view.title = "<R_m q, R_n k> for m, n = 0..15 (d = 64): constant along each diagonal";
  s.view.grid = ropeScoreGrid(p, q, k, 16);
  s.view.rowTitle = "query position m";
  s.view.colTitle = "key position n";
  s.view.valueName = "score";
  s.view.symmetricRange = true;

  lo = 1e300;
  hi = -1e300;
  for (int n = 0; n <= 20; ++n) {
    const double v = ropeScore(p, q, k, 10.0, n);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  StepResult t;
  t.numbers = {{"spread of s(10, n), n = 0..20", hi - lo}};
  return {s, t};
}

// ---- interview-q5-alibi-bias ----

namespace {

// Share of the last query's softmax weight on keys more than `beyond` tokens back, for a head
// with this slope and equal content scores (q = k = 0), causal, numPositions positions.
double farShare(double slope, int numPositions, int beyond) {
  const Grid zeros(numPositions, 8);
  const AttentionResult r =
      scaledDotProductAttention(zeros, zeros, zeros, alibiBiasGrid(slope, numPositions, false), true);
  const int last = numPositions - 1;
  double share = 0.0;
  for (int j = 0; j < last - beyond; ++j) share += r.weights.at(last, j);
  return share;
}

}  // namespace

std::vector<StepResult> interviewQ5Steps() {
  const std::vector<double> slopes = alibiSlopes(8);
  double worst = 0.0;
  for (double m : slopes)
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) worst = std::max(worst, std::fabs(alibiBias(m, i, j, false) + m * std::abs(i - j)));
  StepResult s;
  s.numbers = {{"head 1 slope", slopes.front()}, {"head 8 slope", slopes.back()},
               {"head 1: penalty at distance 10", alibiBias(slopes.front(), 10, 0, false)}};
  s.checked = {{"max |core bias - (-m_h |i - j|)|", worst},
               {"smallest slope", *std::min_element(slopes.begin(), slopes.end())}};
  s.view.title = "head 1 (m = 1/2): bias -m|i - j|, 16 positions";
  s.view.grid = alibiBiasGrid(slopes.front(), 16, false);
  s.view.rowTitle = "query i";
  s.view.colTitle = "key j";
  s.view.valueName = "bias";

  const int numPositions = 128, beyond = 16;
  StepResult t;
  t.numbers = {{"head 1: weight beyond 16 tokens", farShare(slopes.front(), numPositions, beyond)},
               {"head 8: weight beyond 16 tokens", farShare(slopes.back(), numPositions, beyond)}};
  t.view.title = "last query of 128, equal content: weight per key, heads 1 and 8";
  t.view.xTitle = "key position";
  t.view.yTitle = "weight";
  t.view.logY = true;
  for (int h : {0, 7}) {
    const Grid zeros(numPositions, 8);
    const AttentionResult r =
        scaledDotProductAttention(zeros, zeros, zeros, alibiBiasGrid(slopes[h], numPositions, false), true);
    MiniSeries ms{"head " + formatInt(h + 1), {}, {}};
    for (int j = 0; j < numPositions; ++j) {
      ms.x.push_back(j);
      ms.y.push_back(std::max(1e-30, static_cast<double>(r.weights.at(numPositions - 1, j))));
    }
    t.view.series.push_back(std::move(ms));
  }
  t.view.markerX = numPositions - 1 - beyond;
  return {s, t};
}

// ---------------------------------------------------------------------------------------------
// [SECTION] q6 .. q10
// ---------------------------------------------------------------------------------------------

// ---- interview-q6-where-position-acts ----

// One token repeated: every value row is the same vector, so whatever weights attention picks,
// its outputs change only if position entered the values.
std::vector<StepResult> interviewQ6Steps() {
  const ToyModel toy{8, 0, false};
  const std::vector<std::string> tokens = splitTokens("the the the the");
  const AttentionResult none = toyAttention(toy, tokens, PositionEncoding::None);
  const AttentionResult sinus = toyAttention(toy, tokens, PositionEncoding::Sinusoidal);
  const AttentionResult learned = toyAttention(toy, tokens, PositionEncoding::Learned);
  const AttentionResult rope = toyAttention(toy, tokens, PositionEncoding::Rope);
  StepResult s;
  s.numbers = {{"sinusoidal: max |output - output without position|", maxAbsDiff(sinus.output, none.output)},
               {"learned: max |output - output without position|", maxAbsDiff(learned.output, none.output)}};
  s.view = weightsView(sinus.weights, "\"the the the the\", sinusoidal added at the input");
  StepResult t;
  t.numbers = {{"rope: max |weights - weights without position|", maxAbsDiff(rope.weights, none.weights)},
               {"rope: max |output - output without position|", maxAbsDiff(rope.output, none.output)}};
  t.view = weightsView(rope.weights, "\"the the the the\", RoPE: the weights move, the outputs do not");
  return {s, t};
}

// ---- interview-q7-values-not-rotated ----

std::vector<StepResult> interviewQ7Steps() {
  const int numTokens = 6, d = 8;
  const RopeParams p = ropeHead(d);
  const std::vector<float> q = randomNormalVector(d, 31), k = randomNormalVector(d, 32);
  double worst = 0.0;
  for (int m = 0; m + 1 < 8; ++m)
    for (int n = 0; n + 1 < 8; ++n)
      worst = std::max(worst, std::fabs(ropeScore(p, q, k, m, n) - ropeScore(p, q, k, m + 1, n + 1)));
  StepResult s;
  s.numbers = {{"s(0, 0)", ropeScore(p, q, k, 0.0, 0.0)}, {"s(7, 7)", ropeScore(p, q, k, 7.0, 7.0)}};
  s.checked = {{"max |s(m, n) - s(m + 1, n + 1)|, m, n < 8", worst}};

  const Grid qr = ropeRows(p, randomRows(numTokens, d, 33)), kr = ropeRows(p, randomRows(numTokens, d, 34));
  const Grid v = randomRows(numTokens, d, 35), vr = ropeRows(p, v);
  const AttentionResult plain = scaledDotProductAttention(qr, kr, v, Grid(), false);
  const AttentionResult rotated = scaledDotProductAttention(qr, kr, vr, Grid(), false);
  StepResult t;
  t.numbers = {{"max |W(V rotated) - W(V)|", maxAbsDiff(rotated.weights, plain.weights)},
               {"max |output(V rotated) - output(V)|", maxAbsDiff(rotated.output, plain.output)}};
  t.view = weightsView(rotated.weights, "weights with V rotated: the same as with V as it is");
  return {s, t};
}

// ---- interview-q8-extending-rope ----

namespace {

constexpr int kTrained = 4096, kTarget = 131072;

RopeParams scaled(ScalingMethod method) {
  RopeParams p = ropeHead(128);
  p.scaling.method = method;
  p.scaling.factor = method == ScalingMethod::None ? 1.0 : static_cast<double>(kTarget) / kTrained;
  p.scaling.originalMaxPositions = kTrained;
  return p;
}

// Pairs that never made a full turn over the trained positions [0, L0) and reach, over [0, L),
// an angle past the largest one training showed them.
int pairsPastTrainedRange(const RopeParams& plain, const RopeParams& p) {
  int count = 0;
  for (int i = 0; i < ropeNumPairs(plain); ++i) {
    const double seen = ropeAngle(plain, kTrained, i);
    if (seen < 2.0 * std::numbers::pi && ropeAngle(p, kTarget, i) > seen * (1.0 + 1e-9)) ++count;
  }
  return count;
}

}  // namespace

std::vector<StepResult> interviewQ8Steps() {
  const RopeParams plain = scaled(ScalingMethod::None), pi = scaled(ScalingMethod::Linear),
                   ntk = scaled(ScalingMethod::NtkAware), yarn = scaled(ScalingMethod::Yarn);
  const int last = ropeNumPairs(plain) - 1;
  const double factor = static_cast<double>(kTarget) / kTrained;
  double worst = 0.0;
  for (int i = 0; i <= last; ++i)
    worst = std::max(worst, std::fabs(ropeAngle(pi, kTarget - 1, i) - ropeAngle(plain, (kTarget - 1) / factor, i)));
  StepResult s;
  s.numbers = {{"factor s = 131072 / 4096", factor},
               {"PI: position 131072 lands at", ropeAngle(pi, kTarget, 0) / ropeAngle(plain, 1.0, 0)}};
  s.checked = {{"max |angle_PI(131071) - angle(131071 / s)|", worst}};

  const double seen = ropeAngle(plain, kTrained, last);
  StepResult t;
  t.numbers = {{"NTK base'", ropeFrequencies(ntk).effectiveBase},
               {"plain: slowest pair angle at 131072 / at 4096", ropeAngle(plain, kTarget, last) / seen},
               {"NTK: slowest pair angle at 131072 / plain at 4096", ropeAngle(ntk, kTarget, last) / seen},
               {"YaRN: slowest pair angle at 131072 / plain at 4096", ropeAngle(yarn, kTarget, last) / seen},
               {"plain: pairs past their trained range", pairsPastTrainedRange(plain, plain)},
               {"NTK: pairs past their trained range", pairsPastTrainedRange(plain, ntk)},
               {"YaRN: pairs past their trained range", pairsPastTrainedRange(plain, yarn)}};
  t.fields = {{"ntk_pairs", formatInt(pairsPastTrainedRange(plain, ntk))},
              {"plain_pairs", formatInt(pairsPastTrainedRange(plain, plain))}};
  t.view.title = "wavelength per pair (head_dim 128): plain, NTK-aware, YaRN (factor 32)";
  t.view.xTitle = "pair i";
  t.view.yTitle = "wavelength";
  t.view.logY = true;
  for (const auto& [label, rp] : {std::pair{"plain", plain}, {"NTK-aware", ntk}, {"YaRN", yarn}}) {
    const RopeFrequencies f = ropeFrequencies(rp);
    MiniSeries ms{label, {}, {}};
    for (std::size_t i = 0; i < f.invFreq.size(); ++i) {
      ms.x.push_back(static_cast<double>(i));
      ms.y.push_back(2.0 * std::numbers::pi / f.invFreq[i]);
    }
    t.view.series.push_back(std::move(ms));
  }
  return {s, t};
}

// ---- interview-q9-alibi-vs-rope ----

std::vector<StepResult> interviewQ9Steps() {
  const std::vector<double> slopes = alibiSlopes(8);
  const long long shift = 16376;  // positions up to 16383: four times a 4,096-token training length
  double worst = 0.0;
  for (double m : slopes)
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j)
        worst = std::max(worst, std::fabs(alibiBias(m, i, j, false) - alibiBias(m, i + shift, j + shift, false)));
  StepResult s;
  s.numbers = {{"head 8: bias at (16383, 16376)", alibiBias(slopes.back(), shift + 7, shift, false)},
               {"head 8: bias at (7, 0)", alibiBias(slopes.back(), 7, 0, false)}};
  s.checked = {{"max |B(i, j) - B(i + 16376, j + 16376)|", worst}};

  const RopeParams p = ropeHead(128);
  const std::vector<double> q = randomVector(128, 41);
  StepResult t;
  t.numbers = {{"|q|", norm(q)}, {"|R_4096 q|", norm(ropeRotate(p, std::span<const double>(q), 4096.0))}};
  return {s, t};
}

// ---- interview-q10-one-pair ----

std::vector<StepResult> interviewQ10Steps() {
  SinusoidalParams p;
  p.dModel = 8;
  const double divisor = 1.0 / sinusoidalFrequency(p, 1);
  StepResult s;
  s.numbers = {{"divisor 10000^(2/8)", divisor}, {"angle at pos 3 (rad)", 3.0 / divisor}};
  s.view.title = "pair 1 at pos 3";
  s.view.hands = {{"pair 1 at pos 3", 3.0 * sinusoidalFrequency(p, 1), 1.0}};
  StepResult t;
  t.numbers = {{"PE(3, 2) = sin(0.3)", sinusoidalValue(p, 3, 2)}, {"PE(3, 3) = cos(0.3)", sinusoidalValue(p, 3, 3)}};
  t.view.title = "PE rows 0..7 of d_model 8, dim 2 at pos 3";
  t.view.grid = sinusoidalGrid(p, 8);
  t.view.rowTitle = "position";
  t.view.colTitle = "dimension";
  t.view.valueName = "PE";
  t.view.symmetricRange = true;
  t.view.highlightRow = 3;
  t.view.highlightCol = 2;
  StepResult u;
  for (int i : {0, 2, 3}) u.numbers.push_back({"divisor i=" + formatInt(i), 1.0 / sinusoidalFrequency(p, i)});
  return {s, t, u};
}

}  // namespace posviz

namespace posviz {

// 004's "Follow-up Probes": doubling the length, ALiBi with a causal mask, why NTK-aware scaling helps.
std::vector<StepResult> interviewProbesSteps() {
  // Doubling: a learned table of 512 rows at 1,024 tokens; RoPE (head_dim 128) trained at 4096, run at 8192.
  const Grid table = learnedInit(512, 8, 7);
  int missing = 0;
  for (int pos = 0; pos < 1024; ++pos) missing += errorOf([&] { (void)learnedLookup(table, pos); }).empty() ? 0 : 1;
  const RopeParams plain = ropeHead(128);
  int unseen = 0;
  for (int i = 0; i < ropeNumPairs(plain); ++i) {
    const double seen = ropeAngle(plain, kTrained - 1, i);
    if (seen < 2.0 * std::numbers::pi && ropeAngle(plain, 2 * kTrained - 1, i) > seen) ++unseen;
  }
  StepResult a;
  a.numbers = {{"learned: positions of 1,024 without a row", missing}, {"RoPE: pairs rotated past any trained angle at 8192", unseen}};

  // ALiBi + causal mask: bias and mask add on the logits; masked keys get weight 0 exactly.
  const double slope = alibiSlopes(8).front();
  const Grid zeros(16, 8);
  const AttentionResult r = scaledDotProductAttention(zeros, zeros, zeros, alibiBiasGrid(slope, 16, false), true);
  double future = 0.0, rowSumErr = 0.0;
  for (int i = 0; i < 16; ++i) {
    double sum = 0.0;
    for (int j = 0; j < 16; ++j) {
      sum += r.weights.at(i, j);
      if (j > i) future = std::max(future, static_cast<double>(r.weights.at(i, j)));
    }
    rowSumErr = std::max(rowSumErr, std::fabs(sum - 1.0));
  }
  StepResult b;
  b.numbers = {{"max weight on a future key", future}, {"max |row sum - 1|", rowSumErr},
               {"last query: weight on itself", r.weights.at(15, 15)}};
  b.view = weightsView(r.weights, "head 1 (m = 1/2), equal content, causal: weights");

  // NTK-aware at 32x: the fastest pair keeps its frequency, the slowest slows by about the factor.
  const RopeParams ntk = scaled(ScalingMethod::NtkAware);
  const int last = ropeNumPairs(plain) - 1;
  StepResult c;
  c.numbers = {{"pair 0: theta'/theta", ropeAngle(ntk, 1, 0) / ropeAngle(plain, 1, 0)},
               {"last pair: theta/theta'", ropeAngle(plain, 1, last) / ropeAngle(ntk, 1, last)},
               {"factor L/L0", static_cast<double>(kTarget) / kTrained}};
  return {a, b, c};
}

}  // namespace posviz
