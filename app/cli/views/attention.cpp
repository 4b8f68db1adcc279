// attention.cpp: toy scaled dot-product attention over a sentence, with or without an encoding,
// and with RoPE on V as well as on Q and K (rope-outputs).
#include <algorithm>
#include <cmath>
#include <span>

#include "core/untrusted_text.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/views/view_support.hpp"
#include "core/pipeline.hpp"

namespace posviz::cli {

namespace {

using nlohmann::json;

void attentionDefaults(Request& r) { r.dModel = static_cast<int>(params::toy::kDModel.defaultInt()); }

void attentionParse(Request& r, const ParsedOptions& o) {
  if (auto t = o.value("--text")) r.text = *t;
  if (splitTokens(r.text).empty()) throw UsageError("--text: got " + quotedText(r.text) + ", expected at least one word");
  if (auto e = o.value("--encoding")) {
    const std::string name = parseChoiceOption("--encoding", *e, {"none", "sinusoidal", "learned", "rope", "alibi"});
    for (PositionEncoding pe : {PositionEncoding::None, PositionEncoding::Sinusoidal, PositionEncoding::Learned,
                                PositionEncoding::Rope, PositionEncoding::Alibi}) {
      if (name == positionEncodingName(pe)) r.encoding = pe;
    }
  }
  if (auto a = o.value("--array")) r.attentionOutput = parseChoiceOption("--array", *a, {"weights", "output"}) == "output";
}

std::uint64_t attentionElements(const Request& r) {
  const auto t = static_cast<std::uint64_t>(splitTokens(r.text).size());
  return checkedProduct({t, t + static_cast<std::uint64_t>(r.dModel)});  // weights (T, T) and output (T, d_model)
}

Dataset computeAttention(const Request& r, const ExportProgress& progress) {
  Dataset d;
  ToyModel m;
  m.dModel = r.dModel;
  m.seed = r.seed;
  m.causal = r.causal;
  const std::vector<std::string> tokens = splitTokens(r.text);
  const AttentionResult a = toyAttention(m, tokens, r.encoding);
  d.document = {{"tokens", tokens}, {"encoding", positionEncodingName(r.encoding)}, {"weights", gridRowsJson(a.weights)},
                {"output", gridRowsJson(a.output)},
                {"params", {{"d_model", r.dModel}, {"seed", r.seed}, {"causal", r.causal}, {"text", r.text}}}};
  d.jsonComplete = true;
  d.grid = r.attentionOutput ? a.output : a.weights;
  d.shape = {d.grid.rows, d.grid.cols};
  d.rowTitle = "query token";
  d.colTitle = r.attentionOutput ? "dimension" : "key token";
  d.valueName = r.attentionOutput ? "output" : "weight";
  d.csvComments = {std::string("attention ") + (r.attentionOutput ? "output: rows = tokens, cols = dims"
                                                                   : "weights: rows = query token, cols = key token") +
                   "; tokens: " + r.text};
  progress(1.0);
  return d;
}

// [SECTION] rope-outputs: Where position enters' RoPE on V too (core/pipeline.hpp)

void ropeOutputsDefaults(Request& r) {
  attentionDefaults(r);
  r.text = "The cat sat on the mat";   // the tab's sentence
}

void ropeOutputsParse(Request& r, const ParsedOptions& o) {
  if (auto t = o.value("--text")) r.text = *t;
  if (splitTokens(r.text).empty()) throw UsageError("--text: got " + quotedText(r.text) + ", expected at least one word");
  r.rotateValues = o.has(std::string(params::toy::kRotateValues.flag));
}

std::uint64_t ropeOutputsElements(const Request& r) {
  const auto t = static_cast<std::uint64_t>(splitTokens(r.text).size());
  return checkedProduct({t, t + static_cast<std::uint64_t>(r.dModel)});
}

Dataset computeRopeOutputs(const Request& r, const ExportProgress& progress) {
  const ToyModel m{r.dModel, r.seed, r.causal};
  const RotateValuesResult rv = ropeRotateValues(m, splitTokens(r.text));
  const AttentionResult& a = r.rotateValues ? rv.rotated : rv.plain;
  Dataset d;
  d.grid = a.output;
  d.shape = {d.grid.rows, d.grid.cols};
  d.document["params"] = {{"d_model", r.dModel}, {"seed", r.seed}, {"causal", r.causal}, {"rotate_v", r.rotateValues},
                          {"text", r.text}};
  d.document["max_weight_delta"] = rv.maxWeightDelta;
  d.document["max_output_delta"] = rv.maxOutputDelta;
  d.rowTitle = "token";
  d.colTitle = "dimension";
  d.valueName = "output";
  d.csvComments = {std::string("toy attention output with RoPE on Q, K") + (r.rotateValues ? " and V" : " (not V)") +
                   ": rows = tokens, cols = dims; tokens: " + r.text};
  progress(1.0);
  return d;
}

}  // namespace

std::vector<ViewDef> attentionViews() {
  ViewDef v;
  v.name = "attention";
  v.tab = "word-order";
  v.summary = "toy scaled dot-product attention over a sentence, with or without an encoding";
  v.layout = ".json: tokens, weights (T, T), output (T, d_model), params; .npy/.csv/.png: --array weights (T, T, default) "
             "or output (T, d_model)";
  v.png = true;
  v.buildsDocument = true;
  v.maxDModel = static_cast<long long>(params::toy::kDModel.max);   // core/attention.cpp refuses wider ones
  v.options = {"--text", "--encoding", "--d-model", "--seed", "--causal", "--array"};
  v.params = {&params::toy::kDModel};
  v.setDefaults = attentionDefaults;
  v.parse = attentionParse;
  v.elements = attentionElements;
  v.compute = computeAttention;

  ViewDef rope;
  rope.name = "rope-outputs";
  rope.tab = "where-position-enters";
  rope.summary = "the toy attention's outputs with RoPE on Q and K, or with --rotate-v on V too: the weights stay, the "
                 "outputs change (004, question 7). Default sentence: \"The cat sat on the mat\"";
  rope.layout = ".npy/.csv: (tokens, d_model), row = token; .json: shape, params, the largest weight and output changes, "
                "values; .png/.svg: the grid";
  rope.png = true;
  rope.maxDModel = v.maxDModel;
  rope.options = {"--text", "--d-model", "--seed", "--causal", "--rotate-v"};
  rope.params = {&params::toy::kText, &params::toy::kDModel, &params::toy::kCausal, &params::toy::kRotateValues};
  rope.setDefaults = ropeOutputsDefaults;
  rope.parse = ropeOutputsParse;
  rope.elements = ropeOutputsElements;
  rope.compute = computeRopeOutputs;
  return {v, rope};
}

}  // namespace posviz::cli
