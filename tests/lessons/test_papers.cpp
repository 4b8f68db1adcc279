// The "papers" topic and 004's follow-up probes. Reference values: HF transformers'
// T5Attention._relative_position_bucket (src/transformers/models/t5/modeling_t5.py), torchscale's
// XPOS (torchscale/component/xpos_relative_position.py) and ALiBi's get_slopes
// (ofirpress/attention_with_linear_biases, fairseq/models/transformer.py), each transcribed and
// run with torch 1.13 / Python float64.
#include <doctest/doctest.h>

#include <string>

#include "core/lessons/lessons.hpp"

using namespace posviz;

namespace {

double number(const Step& s, const std::string& name) {
  for (const auto& [n, v] : s.numbers)
    if (n == name) return v;
  FAIL("no number " << name);
  return 0.0;
}

WorkedExample get(const std::string& name) {
  const auto e = findWorkedExample(name);
  REQUIRE(e);
  return *e;
}

}  // namespace

TEST_SUITE("papers") {

TEST_CASE("papers: T5 buckets agree with HF's _relative_position_bucket, both directions") {
  const WorkedExample e = get("paper-t5-buckets");
  CHECK(e.topic == "papers");
  REQUIRE(e.steps.size() == 2);
  const long long r[] = {-200, -128, -64, -20, -8, -7, -1, 0, 1, 7, 8, 20, 64, 127, 128, 200};
  const int bi[] = {15, 15, 14, 10, 8, 7, 1, 0, 17, 23, 24, 26, 30, 31, 31, 31};
  const int causal[] = {31, 31, 26, 17, 8, 7, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 16; ++i) {
    CAPTURE(r[i]);
    CHECK(number(e.steps[0], "bucket(" + std::to_string(r[i]) + ")") == bi[i]);
    CHECK(number(e.steps[1], "bucket(" + std::to_string(r[i]) + ")") == causal[i]);
  }
  const VerdictCount n = countVerdicts(e);
  CHECK(n.agrees == 36);
  CHECK(n.differs == 0);
}

TEST_CASE("papers: xPos scales, ALiBi slopes and RoFormer's bound") {
  const WorkedExample x = get("paper-xpos-scales");
  CHECK(number(x.steps[0], "pair 0 at n = 4096") == doctest::Approx(4.4407430542702215e-05).epsilon(1e-12));
  CHECK(number(x.steps[0], "pair 31 at n = 2048") == doctest::Approx(0.9136595247388629).epsilon(1e-12));
  CHECK(countVerdicts(x).differs == 0);
  const WorkedExample a = get("paper-alibi-slopes");
  CHECK(number(a.steps[1], "12 heads: m_9") == doctest::Approx(0.7071067811865476).epsilon(1e-15));
  CHECK(number(a.steps[1], "12 heads: m_12") == doctest::Approx(0.08838834764831849).epsilon(1e-15));
  CHECK(number(a.steps[0], "8 heads: m_8") == 1.0 / 256.0);
  CHECK(countVerdicts(a).agrees == 22);
  const WorkedExample r = get("paper-roformer-decay");
  CHECK(number(r.steps[0], "bound at r = 0") == doctest::Approx(32.5).epsilon(1e-12));  // (64 + 1) / 2
  CHECK(number(r.steps[0], "bound at r = 1024") < 32.5 / 2.0);
  CHECK(countVerdicts(r).agrees == 2);
}

TEST_CASE("papers: 004's follow-up probes, answered by core") {
  const WorkedExample p = get("interview-probes");
  CHECK(p.topic == "interview");
  REQUIRE(p.steps.size() == 3);
  CHECK(number(p.steps[0], "learned: positions of 1,024 without a row") == 512);
  // head_dim 128, base 10000: pairs whose angle over 4096 positions stays below 2 pi and grows at 8192.
  CHECK(number(p.steps[0], "RoPE: pairs rotated past any trained angle at 8192") >= 1);
  CHECK(number(p.steps[1], "max weight on a future key") == 0.0);
  CHECK(number(p.steps[1], "max |row sum - 1|") < 1e-6);
  CHECK(number(p.steps[2], "pair 0: theta'/theta") == doctest::Approx(1.0).epsilon(1e-12));
  // NTK-aware: base' = base * 32^(128/126); the last pair slows by 32^(126/126 * ...) ~ 32.
  CHECK(number(p.steps[2], "last pair: theta/theta'") == doctest::Approx(32.0).epsilon(0.01));
  CHECK(countVerdicts(p).differs == 0);
}

}  // TEST_SUITE
