// The documents' listings at their edges (core/lessons/code_listings.hpp) and 001's test list per
// listing. PyTorch's messages and shapes below were produced by torch 1.13 (/usr/bin/python3)
// running the listings' own lines: x + pe[:, :T, :], cos_cached[:, :, offset:offset+T, :] * q,
// 004's pe[:, 1::2] = torch.cos(position * div_term) at an odd d_model, nn.Embedding past its rows.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/lessons/code_listings.hpp"
#include "core/lessons/document_code.hpp"
#include "core/lessons/lessons.hpp"

using namespace posviz;

TEST_SUITE("code listings") {

TEST_CASE("code listings: PyTorch broadcasting and slicing, as torch 1.13 does them") {
  CHECK(torchBroadcast({2, 4, 1, 8}, {1, 1, 0, 8}) == Shape{2, 4, 0, 8});  // a 1 meets a 0: empty, no error
  CHECK(torchBroadcast({2, 16, 512}, {1, 16, 512}) == Shape{2, 16, 512});
  CHECK(torchBroadcast({4, 8}, {2, 4, 8}) == Shape{2, 4, 8});
  CHECK_THROWS_WITH_AS(torchBroadcast({2, 17, 8}, {1, 16, 8}),
                       "RuntimeError: The size of tensor a (17) must match the size of tensor b (16) at non-singleton dimension 1",
                       std::runtime_error);
  CHECK(sliceLength(8192, 8190, 8194) == 2);
  CHECK(sliceLength(8192, 8192, 8193) == 0);
  CHECK(sliceLength(16, 0, 17) == 16);
  CHECK(shapeText({2, 8, 0, 64}) == "(2, 8, 0, 64)");
}

TEST_CASE("code listings: 001's modules past max_len, with torch's own messages") {
  const ListingRun sin = run001Sinusoidal(8, 16, {2, 17, 8});
  CHECK(sin.error == "RuntimeError: The size of tensor a (17) must match the size of tensor b (16) at non-singleton dimension 1");
  CHECK(classifyRun(sin, {2, 17, 8}) == Behaviour::Error);
  CHECK(run001Sinusoidal(7, 16, {2, 4, 7}).error == "AssertionError: d_model must be even for sin/cos pairs");
  CHECK(run001Learned(16, 8, {2, 17, 8}).error == "IndexError: index out of range in self");
  CHECK(run001Learned(16, 8, {2, 16, 8}).shape == Shape{2, 16, 8});
  // RoPE built with d_model but fed heads of d_k:
  CHECK(run001Rope(512, 16, {2, 8, 4, 64}, 0).error ==
        "RuntimeError: The size of tensor a (64) must match the size of tensor b (512) at non-singleton dimension 3");
  CHECK(run001Rope(8, 16, {2, 4, 4, 8}, 14).error ==
        "RuntimeError: The size of tensor a (4) must match the size of tensor b (2) at non-singleton dimension 2");
  const ListingRun empty = run001Rope(8, 16, {2, 4, 1, 8}, 16);  // a decode step at offset = max_len
  CHECK(empty.error.empty());
  CHECK(empty.shape == Shape{2, 4, 0, 8});
  CHECK(classifyRun(empty, {2, 4, 1, 8}) == Behaviour::SilentTruncation);
  // The MHA snippet with the cache in K: one row of angles stretches over every key.
  const ListingRun cached = run001MhaRope(2, 8, 512, 1, 17, 64, 8192, 16);
  CHECK(cached.error.empty());
  CHECK(cached.rotationRows == 1);
  CHECK(classifyRun(cached, {2, 8, 1, 17}) == Behaviour::WrongValues);
}

TEST_CASE("code listings: 001's ALiBi buffer is 2 GiB at 8 heads and truncates silently") {
  const ListingRun r = run001Alibi(8, 8192, 8192);
  CHECK(r.bufferBytes == 8.0 * 8192.0 * 8192.0 * 4.0);
  CHECK(r.bufferBytes == 2147483648.0);  // 2^31 bytes
  CHECK(r.parameters == 0);
  CHECK(classifyRun(r, {1, 8, 8192, 8192}) == Behaviour::Memory);
  CHECK(classifyRun(run001Alibi(8, 1024, 1024), {1, 8, 1024, 1024}) == Behaviour::Agrees);  // 32 MiB
  const ListingRun cut = run001Alibi(8, 8192, 8193);
  CHECK(cut.shape == Shape{1, 8, 8192, 8192});
  CHECK(classifyRun(cut, {1, 8, 8193, 8193}) == Behaviour::SilentTruncation);
  CHECK(run001AlibiScores(2, 8, 8192, 8193).error ==
        "RuntimeError: The size of tensor a (8193) must match the size of tensor b (8192) at non-singleton dimension 3");
}

TEST_CASE("code listings: odd widths (002 works, 004 and 003 fail) and the 002 / 004 max_len paths") {
  CHECK(run002Sinusoidal(7, 16, {2, 4, 7}).shape == Shape{2, 4, 7});
  CHECK(run004Sinusoidal(7, 16, {2, 4, 7}).error ==
        "RuntimeError: The expanded size of the tensor (3) must match the existing size (4) at non-singleton dimension 1.  "
        "Target sizes: [16, 3].  Tensor sizes: [16, 4]");
  CHECK(run003ApplyRope(7, 16, {1, 1, 4, 7}).error ==
        "RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 3");
  CHECK(run002Sinusoidal(512, 5000, {2, 5001, 512}).error == "AssertionError: Sequence length 5001 exceeds 5000.");
  CHECK(run002Learnable(512, 5000, {2, 5000, 512}).error.empty());
  CHECK(run004Rotary(7, 16, {1, 1, 4, 7}).error == "ValueError: RoPE expects even d_k");
  CHECK(run004Alibi(8, 8193).shape == Shape{1, 8, 8193, 8193});
  // 002's row 3 at embed_dim 7: torch (the listing's code, float64 pe) prints
  // 0.141120008060 -0.989992496600 0.214232165085 0.976782769833 0.015537794642 0.999879281182 0.001118277779
  // (its div_term is float32, hence the last digits of dim 6).
  const double ref[7] = {0.141120008060, -0.989992496600, 0.214232165085, 0.976782769833, 0.015537794642, 0.999879281182, 0.001118277779};
  const std::vector<double> row = doc002SinusoidalRow(3.0, 7);
  for (int c = 0; c < 7; ++c) {
    CAPTURE(c);
    CHECK(row[c] == doctest::Approx(ref[c]).epsilon(1e-6));
  }
  CHECK_THROWS_AS(run001Sinusoidal(8, 16, {2, 8}), std::invalid_argument);
}

TEST_CASE("code listings: 004's __main__ check misses faults in the expression both sides share") {
  CHECK(run004MainCheck(0).printedMaxErr == 0.0);
  CHECK(run004MainCheck(0).referenceErr < 1e-15);
  // numpy: max |sin/cos(3 * 1000^(-2i/8)) - sin/cos(3 * 10000^(-2i/8))| = 0.21301592775829292
  CHECK(run004MainCheck(1).printedMaxErr == 0.0);
  CHECK(run004MainCheck(1).referenceErr == doctest::Approx(0.21301592775829292).epsilon(1e-12));
  CHECK(run004MainCheck(2).printedMaxErr == 0.0);
  CHECK(run004MainCheck(2).referenceErr == doctest::Approx(1.1311125046603125).epsilon(1e-12));
  // A shifted table row is the one fault it sees: |PE(4) - PE(3)| = 0.8979225033677954.
  CHECK(run004MainCheck(3).printedMaxErr == doctest::Approx(0.8979225033677954).epsilon(1e-12));
  CHECK_THROWS_AS(run004MainCheck(4), std::invalid_argument);
}

TEST_CASE("code listings: 001's test list per listing") {
  const TestGrid g = documentTestGrid();
  REQUIRE(g.tests.size() == 8);
  REQUIRE(g.listings.size() == 11);
  REQUIRE(g.cells.size() == 88);
  REQUIRE(g.notes.size() == 88);
  // Columns: the article's short name, a colon, the module (the window breaks the header at the space).
  CHECK(g.listings == std::vector<std::string>{"Teaching: sinusoidal", "Teaching: learned", "Teaching: RoPE", "Teaching: ALiBi",
                                               "8.5: sinusoidal", "8.5: learnable", "Understanding: ApplyRoPE",
                                               "Interview: SinusoidalPE", "Interview: LearnedPE", "Interview: RotaryPE",
                                               "Interview: ALiBiBias"});
  const auto col = [&](const std::string& name) {
    for (std::size_t l = 0; l < g.listings.size(); ++l)
      if (g.listings[l] == name) return l;
    FAIL("no listing " << name);
    return std::size_t{0};
  };
  const auto row = [&](const std::string& prefix) {
    for (std::size_t t = 0; t < g.tests.size(); ++t)
      if (g.tests[t].rfind(prefix, 0) == 0) return t;
    FAIL("no test " << prefix);
    return std::size_t{0};
  };
  // 004's repeat() layout breaks the rotation: neither relative nor norm-preserving.
  CHECK(g.at(row("relative"), col("Interview: RotaryPE")) == TestCell::Fail);
  CHECK(g.at(row("rotation"), col("Interview: RotaryPE")) == TestCell::Fail);
  CHECK(g.at(row("relative"), col("Teaching: RoPE")) == TestCell::Pass);
  CHECK(g.at(row("rotation"), col("Understanding: ApplyRoPE")) == TestCell::Pass);
  // Only 001's RoPE takes an offset.
  CHECK(g.at(row("KV-cache"), col("Teaching: RoPE")) == TestCell::Pass);
  CHECK(g.at(row("KV-cache"), col("Understanding: ApplyRoPE")) == TestCell::Fail);
  CHECK(g.at(row("KV-cache"), col("Interview: RotaryPE")) == TestCell::Fail);
  CHECK(g.at(row("KV-cache"), col("Teaching: sinusoidal")) == TestCell::NotApplicable);
  // Past max_len every precomputed table fails; 004's ALiBi computes per call and passes.
  CHECK(g.at(row("valid output"), col("Teaching: sinusoidal")) == TestCell::Fail);
  CHECK(g.at(row("valid output"), col("Teaching: ALiBi")) == TestCell::Fail);
  CHECK(g.at(row("valid output"), col("Interview: ALiBiBias")) == TestCell::Pass);
  CHECK(g.at(row("valid output"), col("Teaching: learned")) == TestCell::NotApplicable);
  for (const char* l : {"Teaching: learned", "8.5: learnable", "Interview: LearnedPE"}) {
    CAPTURE(l);
    CHECK(g.at(row("learned: error"), col(l)) == TestCell::Pass);
    CHECK(g.at(row("learned: gradients"), col(l)) == TestCell::Pass);
  }
  // 001's RoPE built with d_model, as its Args say, inside MultiHeadAttention.
  CHECK(g.at(row("MultiHeadAttention"), col("Teaching: RoPE")) == TestCell::Fail);
  CHECK(g.at(row("MultiHeadAttention"), col("Teaching: ALiBi")) == TestCell::Pass);
  int fails = 0, na = 0;
  for (TestCell c : g.cells) {
    fails += c == TestCell::Fail ? 1 : 0;
    na += c == TestCell::NotApplicable ? 1 : 0;
  }
  CHECK(fails == 12);
  CHECK(na == 43);
}

TEST_CASE("code listings: the code-audit examples carry a behaviour on each edge") {
  const auto e = findWorkedExample("code-teaching-rope");
  REQUIRE(e);
  CHECK(e->topic == "code_audits");
  CHECK(behaviourSummary(*e) == "2 error, 2 agrees, 1 silent truncation");
  const auto alibi = findWorkedExample("code-teaching-alibi");
  REQUIRE(alibi);
  CHECK(behaviourSummary(*alibi) == "1 memory, 1 silent truncation, 1 error");
  const auto main = findWorkedExample("code-interview-main-check");
  REQUIRE(main);
  CHECK(main->steps[0].claims[0].behaviour == "cannot fail");
  CHECK(main->steps[0].claims[0].verdict == Verdict::Differs);
  const auto q3 = findWorkedExample("code-understanding-apply-rope");
  REQUIRE(q3);
  CHECK(q3->steps[0].claims[0].behaviour == "wrong values");
  CHECK(q3->steps[0].claims[0].computed > 0.1);  // max |decoded - full pass|
  const auto sin = findWorkedExample("sinusoidal-pos3-d8");
  REQUIRE(sin);
  CHECK(behaviourSummary(*sin).empty());
}

}  // TEST_SUITE
