// Tests for core/lessons/comparison_claims: the embedded claims load, every claim gets a verdict
// from the computed table, and malformed data names what is wrong.
#include <doctest/doctest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/lessons/comparison_claims.hpp"

using namespace posviz;

namespace {

ComparisonParams shape(long long trained, long long target) {
  ComparisonParams p;
  p.dModel = 64;
  p.numHeads = 8;
  p.trainedLength = trained;
  p.targetLength = target;
  return p;
}

const ComparisonClaim& findClaim(const ComparisonClaims& all, ComparisonRow row, Scheme s, const std::string& source) {
  for (const ComparisonClaim& c : all.claims)
    if (c.row == row && c.scheme == s && c.source.rfind(source, 0) == 0) return c;
  throw std::logic_error("no claim " + source);
}

// Sources cite the article by name and section.
const std::string kTable = "Teaching Transformers to Count, \"Comparison: Which to Use When\"";
const std::string kPositionProblem = "Teaching Transformers to Count, \"The Position Problem\"";
const std::string kNoTableLookup = "Interview guide, \"Deep Dive: Relative Position Without Table Lookup\"";

}  // namespace

TEST_SUITE("comparison claims") {

TEST_CASE("comparison claims: the embedded file loads; every scheme of 001's table has a claim per row") {
  const ComparisonClaims& all = comparisonClaims();
  CHECK(all.claims.size() == 44);
  std::set<std::pair<int, int>> cells;
  for (const ComparisonClaim& c : all.claims) cells.insert({static_cast<int>(c.row), static_cast<int>(c.scheme)});
  for (ComparisonRow r : {ComparisonRow::Parameters, ComparisonRow::Applied, ComparisonRow::AtTarget, ComparisonRow::Relative,
                          ComparisonRow::UsedBy, ComparisonRow::Coupling})
    for (Scheme s : {Scheme::Sinusoidal, Scheme::Learned, Scheme::Rope, Scheme::Alibi}) {
      CAPTURE(comparisonRowName(r));
      CAPTURE(schemeName(s));
      CHECK(cells.count({static_cast<int>(r), static_cast<int>(s)}) == 1);
    }
  // 001's chart: a root with four answers, one leading to "Rich position info needed?".
  REQUIRE(all.decision.size() == 2);
  CHECK(all.decision[0].question == "Building a transformer?");
  REQUIRE(all.decision[0].answers.size() == 4);
  CHECK(all.decision[0].answers[2].next == 1);
  CHECK(all.decision[1].question == "Rich position info needed?");
  CHECK(all.decision[1].answers[0].leaf.tab == "context");
  CHECK(all.decision[1].answers[1].leaf.tab == "alibi");
}

TEST_CASE("comparison claims: verdicts follow the computed cells") {
  const ComparisonClaims& all = comparisonClaims();
  const Comparison c = computeComparison(shape(2048, 8192));
  for (const ComparisonClaim& claim : all.claims) {
    CAPTURE(claim.source);
    CAPTURE(claim.text);
    const ClaimVerdict v = judgeClaim(claim, c);
    CHECK(v.verdict != CellVerdict::Contradicts);  // the tables' cells hold for this shape, with qualifications
    CHECK_FALSE(v.reason.empty());
  }
  // Learned: "None" (the table's extrapolation row) agrees, with learnedLookup's message.
  const ClaimVerdict learned = judgeClaim(findClaim(all, ComparisonRow::AtTarget, Scheme::Learned, kTable), c);
  CHECK(learned.verdict == CellVerdict::Agrees);
  CHECK(learned.reason == "learnedLookup: pos 8191 has no row: the table has max_len 2048 (rows 0..2047)");
  // Sinusoidal "via rotation property": PE.PE is relative, the score with content is not.
  const ClaimVerdict sinRel = judgeClaim(findClaim(all, ComparisonRow::Relative, Scheme::Sinusoidal, kTable), c);
  CHECK(sinRel.verdict == CellVerdict::Qualifies);
  // RoPE "Good (with NTK-aware scaling)": defined, 1 of 4 head pairs past its trained angles.
  const ClaimVerdict ropeExt = judgeClaim(findClaim(all, ComparisonRow::AtTarget, Scheme::Rope, kTable), c);
  CHECK(ropeExt.verdict == CellVerdict::Qualifies);
  CHECK(ropeExt.reason.find("1 of 4 pairs (25%)") != std::string::npos);
  CHECK(judgeClaim(findClaim(all, ComparisonRow::Relative, Scheme::Rope, kTable), c).verdict == CellVerdict::Agrees);
  CHECK(judgeClaim(findClaim(all, ComparisonRow::Relative, Scheme::NoPE, kPositionProblem), c).verdict == CellVerdict::Agrees);
  CHECK(judgeClaim(findClaim(all, ComparisonRow::Parameters, Scheme::Learned, kTable), c).reason == "131072 parameters");
  // ALiBi's "avoid O(L) rows": true, but 001's own buffer at max_len = L holds 8 * 8192^2 floats.
  const ClaimVerdict alibiCost = judgeClaim(findClaim(all, ComparisonRow::Cost, Scheme::Alibi, kNoTableLookup), c);
  CHECK(alibiCost.verdict == CellVerdict::Qualifies);
  CHECK(alibiCost.reason.find("2 GiB") != std::string::npos);

  // Within the trained range the extrapolation claims are not tested.
  const Comparison inside = computeComparison(shape(2048, 1024));
  CHECK(judgeClaim(findClaim(all, ComparisonRow::AtTarget, Scheme::Learned, kTable), inside).verdict == CellVerdict::NotTested);
  // A claim the numbers refute: "error" for sinusoidal past L0.
  ComparisonClaim wrong = findClaim(all, ComparisonRow::AtTarget, Scheme::Sinusoidal, kTable);
  wrong.expect = "error";
  CHECK(judgeClaim(wrong, c).verdict == CellVerdict::Contradicts);
  wrong = findClaim(all, ComparisonRow::Relative, Scheme::Learned, kTable);
  wrong.expect = "direct";
  CHECK(judgeClaim(wrong, c).verdict == CellVerdict::Contradicts);
}

TEST_CASE("comparison claims: used by, against the models given") {
  const ComparisonClaims& all = comparisonClaims();
  std::vector<ModelSchemes> models = {{"gpt2", {Scheme::Learned}}, {"bert-base-uncased", {Scheme::Learned}},
                                      {"llama-2-7b", {Scheme::Rope}}, {"mpt-7b", {Scheme::Alibi}}};
  const Comparison c = computeComparison(shape(512, 1024), models);
  auto verdict = [&](Scheme s, const Comparison& cmp) {
    return judgeClaim(findClaim(all, ComparisonRow::UsedBy, s, kTable), cmp);
  };
  const ClaimVerdict learned = verdict(Scheme::Learned, c);
  CHECK(learned.verdict == CellVerdict::Agrees);  // "GPT-2" matches gpt2, "BERT" bert-base-uncased
  CHECK(learned.reason == "presets confirm GPT-2 (gpt2), BERT (bert-base-uncased)");
  const ClaimVerdict rope = verdict(Scheme::Rope, c);
  CHECK(rope.verdict == CellVerdict::Qualifies);
  CHECK(rope.reason == "presets confirm LLaMA (llama-2-7b); not among the presets: Qwen, Mistral");
  CHECK(verdict(Scheme::Sinusoidal, c).verdict == CellVerdict::NotTested);  // no "Original Transformer" preset
  CHECK(verdict(Scheme::Alibi, c).verdict == CellVerdict::Qualifies);       // MPT yes, BLOOM not given
  // A named model that uses another scheme contradicts the claim.
  models.push_back({"bloom-560m", {Scheme::Rope}});
  const ClaimVerdict bloom = verdict(Scheme::Alibi, computeComparison(shape(512, 1024), models));
  CHECK(bloom.verdict == CellVerdict::Contradicts);
  CHECK(bloom.reason == "bloom-560m do not use ALiBi");
  CHECK(comparisonCellText(c, ComparisonRow::UsedBy, Scheme::Learned) == "2 of 4: bert-base-uncased, gpt2");
  CHECK(comparisonCellText(c, ComparisonRow::UsedBy, Scheme::Sinusoidal) == "none of the 4 presets");
  CHECK(comparisonCellText(computeComparison(shape(512, 1024)), ComparisonRow::UsedBy, Scheme::Rope) == "no models given");
}

TEST_CASE("comparison claims: content-position coupling verdicts") {
  const ComparisonClaims& all = comparisonClaims();
  const Comparison c = computeComparison(shape(512, 1024));
  auto verdict = [&](Scheme s) { return judgeClaim(findClaim(all, ComparisonRow::Coupling, s, kTable), c).verdict; };
  CHECK(verdict(Scheme::Sinusoidal) == CellVerdict::Agrees);  // "Additive (coupled)"
  CHECK(verdict(Scheme::Learned) == CellVerdict::Agrees);
  CHECK(verdict(Scheme::Rope) == CellVerdict::Qualifies);     // "decoupled", yet content and position meet in q^T R k
  CHECK(verdict(Scheme::Alibi) == CellVerdict::Agrees);       // "Score-level only": no content dependence
  ComparisonClaim wrong = findClaim(all, ComparisonRow::Coupling, Scheme::Alibi, kTable);
  wrong.expect = "coupled";
  CHECK(judgeClaim(wrong, c).verdict == CellVerdict::Contradicts);
  wrong = findClaim(all, ComparisonRow::Coupling, Scheme::Learned, kTable);
  wrong.expect = "scoreOnly";
  CHECK(judgeClaim(wrong, c).verdict == CellVerdict::Contradicts);
  CHECK(comparisonCellText(c, ComparisonRow::Coupling, Scheme::Rope).rfind("multiplicative: nothing added (cross terms 0)", 0) == 0);
}

TEST_CASE("comparison claims: cells are the computed numbers as text") {
  const Comparison c = computeComparison(shape(512, 1024));
  CHECK(comparisonCellText(c, ComparisonRow::Parameters, Scheme::Learned) == "32768 = L0 x d_model (128 KiB)");
  CHECK(comparisonCellText(c, ComparisonRow::Parameters, Scheme::Rope) == "0");
  CHECK(comparisonCellText(c, ComparisonRow::Applied, Scheme::Alibi) == "attention scores");
  CHECK(comparisonCellText(c, ComparisonRow::AtTarget, Scheme::Learned).rfind("error: learnedLookup: pos 1023 has no row", 0) == 0);
}

TEST_CASE("comparison claims: malformed data names the claim and key") {
  const std::string decision = R"("decision": {"source": "s", "nodes": [{"name": "a", "question": "q", "answers": [{"label": "x", "leaf": {"title": "t", "notes": [], "tab": "rope", "scheme": "rope"}}]}]})";
  auto file = [&](const std::string& claims) { return R"({"about": "a", "claims": [)" + claims + "], " + decision + "}"; };
  const std::string ok = R"({"row": "parameters", "scheme": "rope", "text": "0", "source": "001", "expect": "zero"})";
  CHECK(parseComparisonClaims(file(ok)).claims.size() == 1);
  CHECK_THROWS_WITH_AS(parseComparisonClaims(file(R"({"row": "size", "scheme": "rope", "text": "0", "source": "001", "expect": "zero"})")),
                       "comparison.json: claim 1: unknown row \"size\" (parameters, applied, at-target, relative, cost, used-by, coupling)",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parseComparisonClaims(file(ok + R"(, {"row": "parameters", "scheme": "xpos", "text": "0", "source": "001", "expect": "zero"})")),
                       "comparison.json: claim 2: unknown scheme \"xpos\" (sinusoidal, learned, rope, alibi, nope)",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parseComparisonClaims(file(R"({"row": "relative", "scheme": "rope", "text": "0", "source": "001", "expect": "zero"})")),
                       "comparison.json: claim 1: \"expect\" for row relative must be one of direct, viaEncoding, none, blind, got \"zero\"",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parseComparisonClaims(file(R"({"row": "parameters", "scheme": "rope", "text": "0", "source": "001", "expect": "zero", "line": 3})")),
                       "comparison.json: claim 1: unknown key \"line\"", std::invalid_argument);
  CHECK_THROWS_WITH_AS(parseComparisonClaims(R"({"about": "a", "claims": [], "decision": {"source": "s", "nodes": [{"name": "a", "question": "q", "answers": [{"label": "x", "next": "b"}]}]}})"),
                       "comparison.json: decision node 1: \"next\" names no other node: \"b\"", std::invalid_argument);
  CHECK_THROWS_AS(parseComparisonClaims("{"), std::invalid_argument);
}

}
