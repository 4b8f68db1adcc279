// order.cpp: the Word order tab's grids as exportable views: the toy attention of a sentence and
// of a rearrangement of it (core/order.hpp), and the counting head a causal decoder without
// positions has (core/nope.hpp).
#include <stdexcept>
#include <string>
#include <vector>

#include "core/untrusted_text.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/views/view_support.hpp"
#include "core/nope.hpp"
#include "core/order.hpp"

namespace posviz::cli {

namespace {

namespace toy = params::toy;
namespace table = params::order;

// The documents' example, as the tab opens.
constexpr const char* kSentence = "The cat sat on the mat";
constexpr const char* kShuffled = "mat the on sat cat The";

std::vector<std::string> sentenceOf(const Request& r) {
  std::vector<std::string> tokens = splitTokens(r.text);
  if (tokens.empty()) throw UsageError("--text: got " + quotedText(r.text) + ", expected at least one word");
  return tokens;
}

ToyModel toyModel(const Request& r) { return ToyModel{r.dModel, r.seed, r.causal}; }

// [SECTION] order-attention

void orderDefaults(Request& r) {
  r.dModel = static_cast<int>(toy::kDModel.defaultInt());
  r.text = kSentence;
  r.shuffledText = kShuffled;
  r.encoding = static_cast<PositionEncoding>(toy::kEncoding.defaultInt());
  r.orderMatrix = static_cast<int>(table::kMatrix.defaultInt());
}

void orderParse(Request& r, const ParsedOptions& o) {
  if (auto t = o.value(std::string(toy::kText.flag))) r.text = *t;
  if (auto t = o.value(std::string(table::kShuffled.flag))) r.shuffledText = *t;
  if (int e = 0; readParam(o, toy::kEncoding, e)) r.encoding = static_cast<PositionEncoding>(e);
  readParam(o, table::kMatrix, r.orderMatrix);
  try {
    permutationBetween(sentenceOf(r), splitTokens(r.shuffledText));
  } catch (const std::invalid_argument& e) {
    throw UsageError("--shuffled: got " + quotedText(r.shuffledText) + ", expected the words of --text in another order (" +
                     e.what() + ")");
  }
}

std::uint64_t orderElements(const Request& r) {
  const auto t = static_cast<std::uint64_t>(splitTokens(r.text).size());
  return checkedProduct({4, t, t + static_cast<std::uint64_t>(r.dModel)});   // weights and outputs, both orders
}

Dataset computeOrderAttention(const Request& r, const ExportProgress& progress) {
  const std::vector<std::string> tokens = sentenceOf(r);
  const OrderComparison c = compareOrder(toyModel(r), tokens, permutationBetween(tokens, splitTokens(r.shuffledText)), r.encoding);
  const Grid* grids[] = {&c.original.weights, &c.permuted.weights, &c.originalWeightsPermuted, &c.permuted.output,
                         &c.originalOutputPermuted};
  const bool output = r.orderMatrix >= 3;
  Dataset d;
  d.grid = *grids[r.orderMatrix];
  d.shape = {d.grid.rows, d.grid.cols};
  const std::string matrix(table::kMatrix.choiceName(r.orderMatrix));
  d.document["params"] = {{"matrix", matrix}, {"encoding", positionEncodingName(r.encoding)}, {"d_model", r.dModel},
                          {"seed", r.seed}, {"causal", r.causal}};
  d.document["tokens"] = c.tokens;
  d.document["shuffled"] = c.shuffled;
  d.document["perm"] = c.perm;
  d.document["max_weight_difference"] = c.maxWeightDifference;
  d.document["max_output_difference"] = c.maxOutputDifference;
  d.rowTitle = r.orderMatrix == 0 ? "query token (X)" : "query token (PX)";
  d.colTitle = output ? "dimension" : r.orderMatrix == 0 ? "key token (X)" : "key token (PX)";
  d.valueName = output ? "output" : "weight";
  d.csvComments = {"word order, " + matrix + " (" + std::string(positionEncodingName(r.encoding)) + "): rows = " + d.rowTitle +
                       ", cols = " + d.colTitle,
                   "X: " + r.text, "PX: " + r.shuffledText};
  progress(1.0);
  return d;
}

// [SECTION] nope-counting

void nopeDefaults(Request& r) {
  r.dModel = static_cast<int>(toy::kDModel.defaultInt());
  r.text = kSentence;
}

void nopeParse(Request& r, const ParsedOptions& o) {
  if (auto t = o.value(std::string(toy::kText.flag))) r.text = *t;
  for (const std::string& token : sentenceOf(r)) {
    if (token == kNopeBosToken) {
      throw UsageError("--text: got " + quotedText(r.text) + ", which holds " + kNopeBosToken +
                       ": the counting head puts its own first, and a second one would be counted too");
    }
  }
  r.toyHead = o.has(std::string(table::kToyHead.flag));
}

std::uint64_t nopeElements(const Request& r) {
  const auto t = static_cast<std::uint64_t>(splitTokens(r.text).size()) + 1;
  return checkedProduct({t, t + static_cast<std::uint64_t>(r.dModel)});
}

Dataset computeNopeCounting(const Request& r, const ExportProgress& progress) {
  const NopeCounting c = nopeCounting(toyModel(r), sentenceOf(r));
  Dataset d;
  d.grid = r.toyHead ? c.toyWeights : c.weights;
  d.shape = {d.grid.rows, d.grid.cols};
  d.document["params"] = {{"head", r.toyHead ? "toy" : "counting"}, {"d_model", r.dModel}, {"seed", r.seed}};
  d.document["tokens"] = c.tokens;
  d.document["recovered_position"] = r.toyHead ? c.toyRecovered : c.recoveredPosition;
  d.rowTitle = "query token";
  d.colTitle = "key token";
  d.valueName = "weight";
  d.csvComments = {std::string(r.toyHead ? "the toy model's causal head, no encoding" : "counting head, uniform scores, causal") +
                   " on <bos> + the sentence: rows = query token, cols = key token; tokens: <bos> " + r.text};
  progress(1.0);
  return d;
}

}  // namespace

std::vector<ViewDef> orderViews() {
  ViewDef v;
  v.name = "order-attention";
  v.tab = "word-order";
  v.summary = "the toy attention of a sentence X and of a rearrangement PX: W(X), W(PX), P W(X) P^T, Attn(PX) or "
              "P Attn(X) (--matrix); without position W(PX) = P W(X) P^T. Default sentences: \"" + std::string(kSentence) +
              "\" and \"" + kShuffled + "\"";
  v.layout = ".npy/.csv: weights (tokens, tokens), row = query, or outputs (tokens, d_model); .json: shape, params, "
             "tokens, shuffled, perm, both largest differences, values; .png/.svg: the grid";
  v.png = true;
  v.maxDModel = static_cast<long long>(toy::kDModel.max);
  v.options = {"--text", "--shuffled", "--encoding", "--matrix", "--d-model", "--seed", "--causal"};
  v.params = {&toy::kText, &table::kShuffled, &toy::kEncoding, &table::kMatrix, &toy::kDModel, &toy::kCausal};
  v.setDefaults = orderDefaults;
  v.parse = orderParse;
  v.elements = orderElements;
  v.compute = computeOrderAttention;

  ViewDef nope;
  nope.name = "nope-counting";
  nope.tab = "word-order";
  nope.summary = "a causal decoder without positions counts: a uniform head on <bos> + the sentence puts 1/(t+1) on each "
                 "visible token (--toy-head: the toy model's own causal head). Default sentence: \"" + std::string(kSentence) + "\"";
  nope.layout = ".npy/.csv: (tokens + 1, tokens + 1) weights, row = query, <bos> first; .json: shape, params, tokens, the "
                "position each row recovers (1/weight on <bos> - 1), values; .png/.svg: the grid";
  nope.png = true;
  nope.maxDModel = v.maxDModel;
  nope.options = {"--text", "--toy-head", "--d-model", "--seed"};
  nope.params = {&toy::kText, &table::kToyHead, &toy::kDModel};
  nope.setDefaults = nopeDefaults;
  nope.parse = nopeParse;
  nope.elements = nopeElements;
  nope.compute = computeNopeCounting;
  return {v, nope};
}

}  // namespace posviz::cli
