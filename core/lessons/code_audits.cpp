// code_audits.cpp: the documents' code listings run at their edges (core/lessons/code_listings.hpp
// for shapes and errors, core/lessons/document_code.hpp for values). Each edge is a step whose
// claims carry what the listing did: error, wrong shape, silent truncation, memory, wrong values,
// cannot fail, or agrees. Words: assets/lessons/code_audits.json.
#include <algorithm>
#include <cmath>
#include <span>

#include "core/lessons/code_listings.hpp"
#include "core/lessons/document_code.hpp"
#include "core/lessons/topics.hpp"
#include "core/rope.hpp"

namespace posviz {

namespace {

// One run of a listing: its error (the event claims check it), its behaviour against the shape
// its docstring promises, and its result as text ({NAME_result} in the data).
void addRun(StepResult& s, const std::string& name, const ListingRun& r, const Shape& promised, bool eventClaim = true) {
  if (eventClaim) s.outcomes[name] = r.error;
  s.behaviours[name] = behaviourName(classifyRun(r, promised));
  s.fields[name + "_result"] = r.error.empty() ? "returns " + shapeText(r.shape) : r.error;
  s.fields[name + "_promised"] = shapeText(promised);
}

void addValues(StepResult& s, const std::string& name, double maxDiff) {
  s.behaviours[name] = behaviourName(maxDiff < 1e-12 ? Behaviour::Agrees : Behaviour::WrongValues);
}

double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }

// Scores of a query decoded at position 5 against keys cached at 0..4 (head_dim 8): as the
// listing computes them (rotate(x, decodedPos)) and as a full pass does (rotate(x, 5)).
struct DecodeScores {
  std::vector<double> listing, fullPass, correct;
  double maxDiff = 0.0;
};

DecodeScores decodeScores(std::vector<double> (*rotate)(const std::vector<double>&, double, double), double decodedPos,
                          RopeLayout layout) {
  const std::vector<double> q = randomVector(8, 51);
  DecodeScores d;
  RopeParams p;
  p.headDim = 8;
  p.layout = layout;
  for (int j = 0; j < 5; ++j) {
    const std::vector<double> k = rotate(randomVector(8, 60 + static_cast<std::uint64_t>(j)), j, 10000.0);  // cached at prefill
    d.listing.push_back(dot(rotate(q, decodedPos, 10000.0), k));
    d.fullPass.push_back(dot(rotate(q, 5.0, 10000.0), k));
    const std::vector<double> kc = randomVector(8, 60 + static_cast<std::uint64_t>(j));
    d.correct.push_back(dot(ropeRotate(p, std::span<const double>(q), 5.0), ropeRotate(p, std::span<const double>(kc), j)));
  }
  d.maxDiff = maxAbsDiff(d.listing, d.fullPass);
  return d;
}

MiniView decodeView(const DecodeScores& d, std::string title) {
  MiniView v;
  v.title = std::move(title);
  v.xTitle = "cached key position j";
  v.yTitle = "q_5 . k_j";
  const std::vector<double> js = {0, 1, 2, 3, 4};
  v.series = {{"decoded by the listing", js, d.listing}, {"full pass (the listing)", js, d.fullPass}, {"core RoPE", js, d.correct}};
  return v;
}

void addDecodeNumbers(StepResult& s, const DecodeScores& d) {
  for (int j = 0; j < 5; ++j) {
    s.numbers.emplace_back("decoded q_5.k_" + std::to_string(j), d.listing[j]);
    s.numbers.emplace_back("full pass q_5.k_" + std::to_string(j), d.fullPass[j]);
  }
  s.numbers.emplace_back("max |decoded - full pass|", d.maxDiff);
  s.numbers.emplace_back("max |full pass - core RoPE|", maxAbsDiff(d.fullPass, d.correct));
}

}  // namespace

std::vector<StepResult> code001SinusoidalSteps() {
  StepResult a, b, c;
  addRun(a, "t8192", run001Sinusoidal(512, 8192, {2, 8192, 512}), {2, 8192, 512});
  addRun(b, "t8193", run001Sinusoidal(512, 8192, {2, 8193, 512}), {2, 8193, 512});
  addRun(c, "d7", run001Sinusoidal(7, 8192, {2, 16, 7}), {2, 16, 7});
  a.numbers = {{"pe buffer (MiB)", run001Sinusoidal(512, 8192, {2, 1, 512}).bufferBytes / 1048576.0}};
  return {a, b, c};
}

std::vector<StepResult> code001LearnedSteps() {
  StepResult a;
  const ListingRun r = run001Learned(512, 512, {2, 1024, 512});
  addRun(a, "t1024", r, {2, 1024, 512});
  a.numbers = {{"parameters", static_cast<double>(r.parameters)}};
  return {a};
}

std::vector<StepResult> code001RopeSteps() {
  StepResult a, b, c, d, e;
  addRun(a, "dmodel", run001Rope(512, 8192, {2, 8, 16, 64}, 0), {2, 8, 16, 64});
  addRun(b, "fits", run001Rope(64, 8192, {2, 8, 4, 64}, 8188), {2, 8, 4, 64});
  addRun(c, "past", run001Rope(64, 8192, {2, 8, 4, 64}, 8190), {2, 8, 4, 64});
  const ListingRun empty = run001Rope(64, 8192, {2, 8, 1, 64}, 8192);
  addRun(d, "decode", empty, {2, 8, 1, 64}, false);
  d.numbers = {{"rows returned", empty.shape.size() == 4 ? static_cast<double>(empty.shape[2]) : -1.0}};
  const DecodeScores s = decodeScores(doc001RotaryPe, 5.0, RopeLayout::HalfSplit);  // offset = 5
  addDecodeNumbers(e, s);
  addValues(e, "offset", s.maxDiff);
  e.view = decodeView(s, "offset = 5: the decoded token's scores are the full pass's");
  return {a, b, c, d, e};
}

std::vector<StepResult> code001AlibiSteps() {
  StepResult a, b, c;
  const ListingRun buf = run001Alibi(8, 8192, 8192);
  addRun(a, "buffer", buf, {1, 8, 8192, 8192}, false);
  a.numbers = {{"elements", buf.bufferBytes / 4.0}, {"bytes", buf.bufferBytes}, {"GiB", gib(buf.bufferBytes)},
               {"parameters", static_cast<double>(buf.parameters)}, {"GiB at 32 heads", gib(run001Alibi(32, 8192, 1).bufferBytes)}};
  a.view.title = "the bias buffer against max_len, float32 (marker: the listing's default max_len)";
  a.view.xTitle = "max_len";
  a.view.yTitle = "GiB";
  a.view.logY = true;
  for (long long heads : {8LL, 32LL}) {
    MiniSeries ms{formatInt(heads) + " heads", {}, {}};
    for (long long len = 512; len <= 16384; len *= 2) {
      ms.x.push_back(static_cast<double>(len));
      ms.y.push_back(gib(run001Alibi(heads, len, 1).bufferBytes));
    }
    a.view.series.push_back(ms);
  }
  a.view.markerX = 8192.0;
  a.view.markerLabel = "max_len 8192";
  const ListingRun cut = run001Alibi(8, 8192, 8193);
  addRun(b, "forward", cut, {1, 8, 8193, 8193}, false);
  b.numbers = {{"rows returned", static_cast<double>(cut.shape[2])}};
  addRun(c, "scores", run001AlibiScores(2, 8, 8192, 8193), {2, 8, 8193, 8193});
  return {a, b, c};
}

std::vector<StepResult> code001MhaSteps() {
  StepResult a, b, c;
  addRun(a, "dmodel", run001MhaRope(2, 8, 512, 16, 16, 512, 8192, 0), {2, 8, 16, 16});
  addRun(b, "dk", run001MhaRope(2, 8, 512, 16, 16, 64, 8192, 0), {2, 8, 16, 16});
  const ListingRun cached = run001MhaRope(2, 8, 512, 1, 17, 64, 8192, 16);
  addRun(c, "cached", cached, {2, 8, 1, 17}, false);
  c.numbers = {{"key positions rotated (rows of cos applied to K)", static_cast<double>(cached.rotationRows)}};
  return {a, b, c};
}

std::vector<StepResult> code002Steps() {
  StepResult a, b, c;
  addRun(a, "d7", run002Sinusoidal(7, 5000, {2, 32, 7}), {2, 32, 7});
  const std::vector<double> row = doc002SinusoidalRow(3.0, 7);
  double worst = 0.0;  // against Vaswani's formula with d_model = 7, pair by pair
  for (int c7 = 0; c7 < 7; ++c7) {
    const double angle = 3.0 / std::pow(10000.0, 2.0 * (c7 / 2) / 7.0);
    worst = std::max(worst, std::fabs(row[c7] - (c7 % 2 == 0 ? std::sin(angle) : std::cos(angle))));
  }
  a.numbers = {{"PE(3) dim 6 (sin, last)", row[6]}, {"max |row - formula|", worst}};
  addRun(a, "d7_004", run004Sinusoidal(7, 5000, {2, 32, 7}), {2, 32, 7});
  addRun(b, "t5001", run002Sinusoidal(512, 5000, {2, 5001, 512}), {2, 5001, 512});
  addRun(c, "t5001", run002Learnable(512, 5000, {2, 5001, 512}), {2, 5001, 512});
  return {a, b, c};
}

std::vector<StepResult> code003Steps() {
  StepResult a, b;
  const DecodeScores s = decodeScores(doc003ApplyRope, 0.0, RopeLayout::Interleaved);  // seq_len 1: angles[:1] is position 0
  addDecodeNumbers(a, s);
  addValues(a, "decode", s.maxDiff);
  a.checked = {{"max diff", s.maxDiff}};
  a.view = decodeView(s, "The ApplyRoPE of Understanding Positional Embeddings, decoding token 5 alone: rotated as position 0");
  addRun(b, "t5", run003ApplyRope(8, 4, {2, 1, 5, 8}), {2, 1, 5, 8});
  return {a, b};
}

std::vector<StepResult> code004RopeSteps() {
  StepResult a, b;
  const DecodeScores s = decodeScores(doc004RotaryPe, 0.0, RopeLayout::Interleaved);
  addDecodeNumbers(a, s);
  addValues(a, "decode", s.maxDiff);
  a.checked = {{"max diff", s.maxDiff}};
  a.view = decodeView(s, "The interview guide's RotaryPE, decoding token 5 alone: rotated as position 0 (and its repeat() layout)");
  addRun(b, "t8193", run004Rotary(64, 8192, {2, 4, 8193, 64}), {2, 4, 8193, 64});
  return {a, b};
}

std::vector<StepResult> code004MainSteps() {
  StepResult a;
  int caught = 0;
  const char* names[] = {"no fault", "base 1000 in both", "sin and cos swapped in both", "table rows shifted by one"};
  for (int fault = 0; fault <= 3; ++fault) {
    const MainCheckResult r = run004MainCheck(fault);
    a.numbers.emplace_back(std::string(names[fault]) + ": printed max_err", r.printedMaxErr);
    a.numbers.emplace_back(std::string(names[fault]) + ": error against core", r.referenceErr);
    if (fault > 0 && r.printedMaxErr > 1e-6) ++caught;
  }
  a.checked = {{"faults caught", caught}, {"printed max_err", run004MainCheck(0).printedMaxErr}};
  // A fault the check lets through is one it cannot fail on (and it prints max_err, asserting nothing).
  a.behaviours["check"] = behaviourName(caught < 3 ? Behaviour::CannotFail : Behaviour::Agrees);
  return {a};
}

}  // namespace posviz
