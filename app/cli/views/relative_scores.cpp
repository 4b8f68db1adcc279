// relative_scores.cpp: relative attention scores as exportable views: Shaw et al.'s clipped
// relative positions and HF BERT's relative_key / relative_key_query (core/shaw_relative.hpp), and
// Transformer-XL's four-term score decomposition (core/txl_relative.hpp).
#include <string>

#include "app/cli/scheme_params.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/views/view_support.hpp"
#include "core/shaw_relative.hpp"
#include "core/txl_relative.hpp"

namespace posviz::cli {

namespace {

namespace table = params;

constexpr int kMaxScorePositions = 4096;   // the grids are T x T of d-long dot products

void requireScorePositions(const Request& r) {
  if (r.positions > kMaxScorePositions) {
    throw UsageError("--positions: got " + std::to_string(r.positions) + ", expected an integer in [1, " +
                     std::to_string(kMaxScorePositions) + "] for " + r.view->name + " (a T x T grid of dot products)");
  }
}

// [SECTION] shaw-scores

void shawDefaults(Request& r) {
  r.positions = static_cast<int>(table::relative::kPositions.defaultInt());
  r.rope.headDim = static_cast<int>(table::shaw::kHeadDim.defaultInt());
  r.shawClip = static_cast<int>(table::shaw::kClip.defaultInt());
  r.shawVariant = table::shaw::kVariant.choiceName(static_cast<int>(table::shaw::kVariant.defaultInt()));
  r.shawLeftMax = static_cast<int>(table::shaw::kLeftMax.defaultInt());
  r.shawRightMax = static_cast<int>(table::shaw::kRightMax.defaultInt());
}

// A relative_key model (Wav2Vec2-BERT): its own maxima on each side and its head size.
void shawModel(Request& r, const ModelConfig& m, const std::string& source) {
  if (m.encoding != ModelEncoding::RelativeKey) modelMismatch(r, m, source, "a relative_key model (Wav2Vec2-BERT)");
  r.shawVariant = "relative_key_clamped";
  r.shawLeftMax = m.relativeKeyLeft;
  r.shawRightMax = m.relativeKeyRight;
  if (m.relativeKeyDim % 2 == 0 && fitsParam(table::shaw::kHeadDim, m.relativeKeyDim)) r.rope.headDim = m.relativeKeyDim;
}

ShawVariant shawVariantOf(const Request& r) {
  if (r.shawVariant == "relative_key") return ShawVariant::RelativeKey;
  if (r.shawVariant == "relative_key_query") return ShawVariant::RelativeKeyQuery;
  if (r.shawVariant == "relative_key_clamped") return ShawVariant::ClampedKey;
  return ShawVariant::Shaw;
}

void shawParse(Request& r, const ParsedOptions& o) {
  requireScorePositions(r);
  readParam(o, table::shaw::kHeadDim, r.rope.headDim);
  readParam(o, table::shaw::kClip, r.shawClip);
  if (int v = 0; readParam(o, table::shaw::kVariant, v)) r.shawVariant = table::shaw::kVariant.choiceName(v);
  if (o.has("--clip") && r.shawVariant != "shaw") {
    throw UsageError("--clip: applies to --variant shaw only; " + r.shawVariant +
                     (r.shawVariant == "relative_key_clamped" ? " takes --left-max and --right-max"
                                                              : " (BERT's) has no clipping (its table has 2 * positions - 1 rows)"));
  }
  const bool leftGiven = readParam(o, table::shaw::kLeftMax, r.shawLeftMax);
  const bool rightGiven = readParam(o, table::shaw::kRightMax, r.shawRightMax);
  const bool maxGiven = leftGiven || rightGiven;
  if (maxGiven && r.shawVariant != "relative_key_clamped") {
    throw UsageError("--left-max/--right-max: apply to --variant relative_key_clamped only, got --variant " + r.shawVariant);
  }
  r.shawIndices = o.has("--indices");
  if (r.shawIndices && o.has("--dtype")) throw UsageError("--dtype: shaw-scores --indices writes table rows as int32 (exact); --dtype does not apply");
}

std::uint64_t squareElements(const Request& r) {
  const auto n = static_cast<std::uint64_t>(r.positions);
  return checkedProduct({n, n});
}

Dataset computeShawScores(const Request& r, const ExportProgress& progress) {
  const ShawVariant v = shawVariantOf(r);
  const bool clamped = v == ShawVariant::ClampedKey;
  const int clip = clamped ? r.shawLeftMax : r.shawClip, right = clamped ? r.shawRightMax : 0;
  Dataset d;
  d.shape = {r.positions, r.positions};
  d.rowTitle = "query position i";
  d.colTitle = "key position j";
  d.document["params"] = {{"variant", shawVariantName(v)}, {"positions", r.positions}, {"head_dim", r.rope.headDim},
                          {"table_rows", shawTableRows(v, r.positions, clip, right)}, {"seed", r.seed}};
  if (v == ShawVariant::Shaw) d.document["params"]["clip"] = r.shawClip;
  if (clamped) {
    d.document["params"]["left_max"] = r.shawLeftMax;
    d.document["params"]["right_max"] = r.shawRightMax;
  }
  const std::string rows = v == ShawVariant::Shaw ? "clip(j - i, k) + k (Shaw et al. 2018)"
                           : clamped ? "clamp(j - i, -" + std::to_string(r.shawLeftMax) + ", " + std::to_string(r.shawRightMax) + ") + " +
                                           std::to_string(r.shawLeftMax) + " (Wav2Vec2BertSelfAttention)"
                                     : "i - j + positions - 1 (HF BertSelfAttention, max_position_embeddings = positions)";
  if (r.shawIndices) {
    d.grid = shawIndexGrid(v, r.positions, clip, right);
    d.int32Values = true;
    d.valueName = "table row";
    d.csvComments = {"relative table row read by query i and key j: " + rows};
  } else {
    const ShawInputs in = shawSeededInputs(v, r.positions, r.rope.headDim, clip, r.seed, right);
    d.grid = shawScoreGrid(v, in, clip, right);
    d.valueName = "score";
    d.csvComments = {std::string("seeded q.k + q.table[row]") + (v == ShawVariant::RelativeKeyQuery ? " + k.table[row]" : "") +
                     " before the 1/sqrt(d) scale, row = " + rows + ": rows = query i, cols = key j"};
  }
  progress(1.0);
  return d;
}

// [SECTION] txl-terms

void txlDefaults(Request& r) {
  r.positions = static_cast<int>(table::relative::kPositions.defaultInt());
  r.dModel = static_cast<int>(table::txl::kDModel.defaultInt());
  r.rope.headDim = static_cast<int>(table::txl::kDHead.defaultInt());
}

void txlParse(Request& r, const ParsedOptions& o) {
  requireScorePositions(r);
  readParam(o, table::txl::kDHead, r.rope.headDim);
  r.txlSum = o.has("--sum");
}

std::uint64_t txlElements(const Request& r) {
  const auto n = static_cast<std::uint64_t>(r.positions);
  return checkedProduct({r.txlSum ? 1u : 4u, n, n});
}

Dataset computeTxlTerms(const Request& r, const ExportProgress& progress) {
  const TxlWeights w = txlSeededWeights(r.dModel, r.rope.headDim, r.seed);
  const std::vector<double> emb = txlSeededEmbeddings(r.positions, r.dModel, r.seed + 1);
  Dataset d;
  if (r.txlSum) {
    d.grid = txlSumGrid(w, emb);
    d.shape = {r.positions, r.positions};
    d.rowTitle = "query position i";
  } else {
    d.grid = txlTermGrid(w, emb);
    d.shape = {4, r.positions, r.positions};
    d.rowTitle = "term (a, b, c, d) x query position i";
  }
  d.colTitle = "key position j";
  d.valueName = r.txlSum ? "a + b + c + d" : "term";
  d.document["params"] = {{"positions", r.positions}, {"d_model", r.dModel}, {"d_head", r.rope.headDim}, {"seed", r.seed},
                          {"sum", r.txlSum}};
  d.document["terms"] = {"a: content E_i Wq^T Wk,E E_j", "b: content-position E_i Wq^T Wk,R R_{i-j}",
                         "c: global content u^T Wk,E E_j", "d: global position v^T Wk,R R_{i-j}"};
  d.document["u"] = w.u;
  d.document["v"] = w.v;
  d.csvComments = {r.txlSum ? "transformer-xl score a + b + c + d before the 1/sqrt(d_head) scale: rows = query i, cols = key j"
                            : "transformer-xl terms a, b, c, d stacked: rows t*T + i = term t of query i, cols = key j"};
  progress(1.0);
  return d;
}

}  // namespace

std::vector<ViewDef> relativeScoreViews() {
  ViewDef shaw;
  shaw.name = "shaw-scores";
  shaw.aliases = {"shaw"};
  shaw.tab = "relative";
  shaw.summary = "relative-position scores q_i.k_j + q_i.a^K[clip(j - i, k)] (Shaw et al. 2018) or HF BERT's relative_key "
                 "(q.E[i - j]) / relative_key_query (+ k.E[i - j]) or Wav2Vec2-BERT's relative_key (q.E[clamp(j - i, -left, "
                 "right)]), seeded q, k and table; --indices: the table rows";
  shaw.layout = ".npy: (positions, positions), row = query i, col = key j, the score before the 1/sqrt(d) scale; "
                "--indices: int32 table rows (Shaw clip(j - i, k) + k, BERT i - j + positions - 1, clamped clamp(j - i, -left, "
                "right) + left); .csv: the same matrix; "
                ".json: shape, params, values; .png/.svg: the grid";
  shaw.png = true;
  shaw.options = {"--positions", "--head-dim", "--clip", "--variant", "--left-max", "--right-max", "--indices", "--seed", "--config"};
  shaw.params = {&table::relative::kPositions, &table::shaw::kHeadDim, &table::shaw::kClip, &table::shaw::kVariant,
                 &table::shaw::kLeftMax, &table::shaw::kRightMax};
  shaw.applyModel = shawModel;
  shaw.setDefaults = shawDefaults;
  shaw.parse = shawParse;
  shaw.elements = squareElements;
  shaw.compute = computeShawScores;

  ViewDef txl;
  txl.name = "txl-terms";
  txl.aliases = {"transformer-xl"};
  txl.tab = "relative";
  txl.summary = "Transformer-XL's relative score split into (a) content, (b) content-position, (c) global content u, "
                "(d) global position v, with R the sin-then-cos sinusoid of i - j; seeded weights; --sum: a + b + c + d";
  txl.layout = ".npy: (4, positions, positions), [t, i, j] = term t (0 a, 1 b, 2 c, 3 d) of query i and key j before the "
               "1/sqrt(d_head) scale; --sum: (positions, positions); .csv: the (4 positions) x positions matrix; .json: shape, "
               "params, term names, u, v, values; .png/.svg: the four grids stacked top to bottom";
  txl.png = true;
  txl.maxDModel = 4096;
  txl.options = {"--positions", "--d-model", "--head-dim", "--sum", "--seed"};
  txl.params = {&table::relative::kPositions, &table::txl::kDModel, &table::txl::kDHead};
  txl.setDefaults = txlDefaults;
  txl.parse = txlParse;
  txl.elements = txlElements;
  txl.compute = computeTxlTerms;
  return {shaw, txl};
}

}  // namespace posviz::cli
