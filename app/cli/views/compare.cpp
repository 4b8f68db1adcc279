// compare.cpp: the documents' comparison table, every cell computed (core/comparison.hpp), with
// the claims of 001 and 004 and their verdicts (core/lessons/comparison_claims.hpp).
#include <string>
#include <vector>

#include "app/cli/preset_schemes.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/views/view_support.hpp"
#include "core/lessons/comparison_claims.hpp"

namespace posviz::cli {

namespace {

using nlohmann::json;

namespace table = params::compare;

// The numeric columns of .csv/.npy, one row per scheme (comparisonSchemes() order).
const std::vector<std::string> kMetrics = {
    "parameters",        "applied_at",          "defined_at_L",          "pe_norm_at_L",   "unseen_pairs",
    "num_pairs",         "unseen_share",        "alibi_bias_head1_at_L", "relative_max_error",
    "encoding_only_error", "position_spread",   "multiply_adds_per_token", "memory_floats",
    "cross_share",       "content_dependence"};

void compareDefaults(Request& r) {
  r.dModel = static_cast<int>(table::kDModel.defaultInt());
  r.positions = static_cast<int>(table::kTargetLength.defaultInt());
  r.heads = static_cast<int>(table::kHeads.defaultInt());
  r.rope.scaling.originalMaxPositions = static_cast<int>(table::kTrainedLength.defaultInt());
}

void compareParse(Request& r, const ParsedOptions& o) {
  readParam(o, table::kTrainedLength, r.rope.scaling.originalMaxPositions);
  if (r.dModel % r.heads != 0 || (r.dModel / r.heads) % 2 != 0)
    throw UsageError("--heads: got " + std::to_string(r.heads) + ", expected a head count that divides --d-model " +
                     std::to_string(r.dModel) + " into an even head dim");
}

std::uint64_t compareElements(const Request&) { return comparisonSchemes().size() * kMetrics.size(); }

std::vector<double> metricsOf(const SchemeColumn& c) {
  const AtTarget& a = c.atTarget;
  return {static_cast<double>(c.parameters),
          static_cast<double>(static_cast<int>(c.appliedAt)),
          a.defined ? 1.0 : 0.0,
          a.norm,
          static_cast<double>(a.unseenPairs),
          static_cast<double>(a.numPairs),
          a.unseenShare,
          a.bias.empty() ? 0.0 : a.bias.front(),
          c.relative.maxError,
          c.relative.encodingOnlyError,
          c.relative.positionSpread,
          c.cost.multiplyAddsPerToken,
          c.cost.memoryFloats,
          c.coupling.crossShare,
          c.coupling.contentDependence};
}

json tableJson(const Comparison& c) {
  json schemes = json::array();
  for (const SchemeColumn& col : c.columns) {
    json cells = json::object();
    for (ComparisonRow row : comparisonRows()) cells[comparisonRowName(row)] = comparisonCellText(c, row, col.scheme);
    const std::vector<double> m = metricsOf(col);
    json numbers = json::object();
    for (std::size_t i = 0; i < kMetrics.size(); ++i) numbers[kMetrics[i]] = m[i];
    if (!col.atTarget.error.empty()) numbers["error_at_L"] = col.atTarget.error;
    numbers["used_by"] = col.usedBy;
    if (!col.atTarget.bias.empty()) numbers["alibi_bias_at_L"] = col.atTarget.bias;
    schemes.push_back({{"scheme", schemeName(col.scheme)}, {"applied_at", appliedAtName(col.appliedAt)}, {"cells", cells}, {"numbers", numbers}});
  }
  json claims = json::array();
  for (const ComparisonClaim& claim : comparisonClaims().claims) {
    const ClaimVerdict v = judgeClaim(claim, c);
    claims.push_back({{"row", comparisonRowName(claim.row)}, {"scheme", schemeName(claim.scheme)}, {"text", claim.text},
                      {"source", claim.source}, {"verdict", cellVerdictName(v.verdict)}, {"reason", v.reason}});
  }
  return {{"schemes", schemes}, {"claims", claims}};
}

Dataset computeCompare(const Request& r, const ExportProgress& progress) {
  ComparisonParams p;
  p.dModel = r.dModel;
  p.numHeads = r.heads;
  p.trainedLength = r.rope.scaling.originalMaxPositions;
  p.targetLength = r.positions;
  p.seed = r.seed;
  if (r.rope.base != RopeParams{}.base) p.base = r.rope.base;
  const Comparison c = computeComparison(p, presetSchemes());
  Dataset d;
  d.document = tableJson(c);
  d.document["params"] = {{"d_model", p.dModel}, {"heads", p.numHeads}, {"head_dim", c.headDim}, {"original_max_positions", p.trainedLength},
                          {"positions", p.targetLength}, {"base", p.base}, {"seed", p.seed}};
  d.jsonComplete = true;
  const int rows = static_cast<int>(c.columns.size()), cols = static_cast<int>(kMetrics.size());
  d.grid = Grid(rows, cols);
  for (int i = 0; i < rows; ++i) {
    const std::vector<double> m = metricsOf(c.columns[static_cast<std::size_t>(i)]);
    for (int j = 0; j < cols; ++j) {
      d.exact.push_back(m[static_cast<std::size_t>(j)]);
      d.grid.at(i, j) = static_cast<float>(m[static_cast<std::size_t>(j)]);
    }
  }
  d.shape = {rows, cols};
  d.rowTitle = "scheme";
  d.colTitle = "metric";
  std::string schemeNames, metricNames;
  for (Scheme s : c.schemes) schemeNames += (schemeNames.empty() ? "" : ", ") + std::string(schemeName(s));
  for (const std::string& m : kMetrics) metricNames += (metricNames.empty() ? "" : ", ") + m;
  d.csvComments = {"rows: " + schemeNames, "cols: " + metricNames,
                   "d_model " + std::to_string(p.dModel) + ", heads " + std::to_string(p.numHeads) + ", L0 " +
                       std::to_string(p.trainedLength) + ", L " + std::to_string(p.targetLength) +
                       "; applied_at: 0 embedding input, 1 Q/K, 2 scores, 3 nowhere"};
  progress(1.0);
  return d;
}

}  // namespace

std::vector<ViewDef> compareViews() {
  ViewDef v;
  v.name = "compare";
  v.aliases = {"comparison"};
  v.tab = "compare";
  v.summary = "the documents' comparison table for sinusoidal, learned, RoPE, ALiBi, NoPE, computed for d_model, heads, L0, L";
  v.layout = ".json: params, schemes (cells as text, numbers), claims of Teaching Transformers to Count and the interview guide with verdicts; .csv/.npy: (5 schemes, 15 metrics), "
             "rows and cols named in the .csv comments";
  v.exactDouble = true;
  v.buildsDocument = true;
  v.maxDModel = static_cast<long long>(table::kDModel.max);
  v.options = {"--d-model", "--heads", "--original-max-positions", "--positions", "--base", "--seed"};
  v.params = {&table::kDModel, &table::kHeads, &table::kTrainedLength, &table::kTargetLength};
  v.setDefaults = compareDefaults;
  v.parse = compareParse;
  v.elements = compareElements;
  v.compute = computeCompare;
  return {v};
}

}  // namespace posviz::cli
