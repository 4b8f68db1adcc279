// papers.cpp: worked numbers from the papers and reference code of other schemes, recomputed by
// core: T5's relative buckets (core/relative_bias.hpp), xPos's scales (core/xpos.hpp), ALiBi's
// slopes for 8 and 12 heads (core/alibi.hpp), RoFormer's long-term decay bound (core/rope.hpp).
// The reference values and the papers' words: assets/lessons/papers.json.
#include <algorithm>
#include <set>
#include <string>

#include "core/alibi.hpp"
#include "core/lessons/topics.hpp"
#include "core/relative_bias.hpp"
#include "core/rope.hpp"
#include "core/xpos.hpp"

namespace posviz {

namespace {

const long long kDistances[] = {-200, -128, -64, -20, -8, -7, -1, 0, 1, 7, 8, 20, 64, 127, 128, 200};

StepResult bucketStep(bool bidirectional) {
  const T5BucketParams p{32, 128, bidirectional};
  StepResult s;
  for (long long r : kDistances) s.numbers.emplace_back("bucket(" + formatInt(r) + ")", t5RelativePositionBucket(p, r));
  // "beyond [128] we assign all relative positions to the same embedding": buckets of 128..1000 (and -128..-1000).
  std::set<int> far, farBack;
  for (long long r = 128; r <= 1000; ++r) {
    far.insert(t5RelativePositionBucket(p, r));
    farBack.insert(t5RelativePositionBucket(p, -r));
  }
  s.checked = {{"distinct buckets at 128..1000", static_cast<double>(far.size())},
               {"distinct buckets at -128..-1000", static_cast<double>(farBack.size())}};
  s.view.title = std::string(bidirectional ? "bidirectional" : "causal") + ": bucket of j - i, 32 buckets, max_distance 128";
  s.view.xTitle = "relative position j - i";
  s.view.yTitle = "bucket";
  MiniSeries ms{"bucket", {}, {}};
  for (long long r = -200; r <= 200; ++r) {
    ms.x.push_back(static_cast<double>(r));
    ms.y.push_back(t5RelativePositionBucket(p, r));
  }
  s.view.series = {ms};
  return s;
}

}  // namespace

std::vector<StepResult> paperT5Steps() { return {bucketStep(true), bucketStep(false)}; }

std::vector<StepResult> paperXposSteps() {
  const XposParams p{64, 10000.0, 512.0};
  StepResult s;
  s.numbers = {{"zeta_0", xposZeta(p, 0)}, {"zeta_31", xposZeta(p, 31)}};
  for (double n : {512.0, 2048.0, 4096.0}) {
    s.numbers.emplace_back("pair 0 at n = " + formatInt(static_cast<long long>(n)), xposQueryScale(p, 0, n));
    s.numbers.emplace_back("pair 31 at n = " + formatInt(static_cast<long long>(n)), xposQueryScale(p, 31, n));
  }
  s.view.title = "query-side scale zeta_i^(n / 512), head_dim 64";
  s.view.xTitle = "position n";
  s.view.yTitle = "scale";
  s.view.logY = true;
  for (int pair : {0, 15, 31}) {
    MiniSeries ms{"pair " + formatInt(pair), {}, {}};
    for (int n = 0; n <= 4096; n += 64) {
      ms.x.push_back(n);
      ms.y.push_back(xposQueryScale(p, pair, n));
    }
    s.view.series.push_back(ms);
  }
  return {s};
}

std::vector<StepResult> paperAlibiSteps() {
  StepResult a, b;
  const std::vector<double> s8 = alibiSlopes(8), s12 = alibiSlopes(12), s16 = alibiSlopes(16);
  for (int h = 0; h < 8; ++h) a.numbers.emplace_back("8 heads: m_" + formatInt(h + 1), s8[h]);
  a.numbers.emplace_back("16 heads: m_1", s16[0]);
  a.checked = {{"16 heads: ratio m_2 / m_1", s16[1] / s16[0]}};
  for (int h = 0; h < 12; ++h) b.numbers.emplace_back("12 heads: m_" + formatInt(h + 1), s12[h]);
  return {a, b};
}

std::vector<StepResult> paperRoformerSteps() {
  RopeParams p;
  p.headDim = 128;
  const std::vector<double> bound = ropeDecayBound(p, 1024);
  StepResult s;
  s.numbers = {{"bound at r = 0", bound[0]}, {"bound at r = 16", bound[16]}, {"bound at r = 128", bound[128]},
               {"bound at r = 1024", bound[1024]}};
  s.checked = {{"max bound over r = 256..1024", *std::max_element(bound.begin() + 256, bound.end())}};
  s.view.title = "(1/(d/2)) sum_j |S_j|, d = 128, base 10000";
  s.view.xTitle = "relative distance r";
  s.view.yTitle = "relative upper bound";
  MiniSeries ms{"bound", {}, {}};
  for (int r = 0; r <= 1024; ++r) {
    ms.x.push_back(r);
    ms.y.push_back(bound[r]);
  }
  s.view.series = {ms};
  return {s};
}

}  // namespace posviz
