// extrapolation.cpp: the extrapolation lab as an exportable view (core/extrapolation.hpp): the toy
// sentence tiled to --positions L with the trained length L0 = --original-max-positions, the last
// query's attention by distance per encoding, its entropy, and the unseen rotation angles; plus
// a sweep of entropy and unseen share over L0 x --multiples.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/untrusted_text.hpp"
#include "app/cli/lab_model.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/views/view_support.hpp"
#include "core/alibi.hpp"

namespace posviz::cli {

namespace {

using nlohmann::json;

namespace table = params::extrapolation;
namespace scaling = params::scaling;

constexpr long long kMaxLabDim = kMaxToyDim;  // the toy model's widest d_model (core/attention.hpp)

// core's ExtrapolationSetup: head_dim 128, base 10000, L0 4096.
void labDefaults(Request& r) {
  r.text = "The cat sat on the mat";
  r.rope.headDim = static_cast<int>(table::kHeadDim.defaultInt());
  r.rope.base = params::rope::kBase.def;
  r.rope.scaling.originalMaxPositions = static_cast<int>(table::kTrainedLength.defaultInt());
  r.extrapolationEncodings = allExtrapolationEncodings();
}

// The model's run (app/cli/lab_model.hpp, shared with the Extrapolation tab).
void labModel(Request& r, const ModelConfig& m, const std::string& source) {
  LabModel lab;
  try {
    lab = labModelOf(m);
  } catch (const std::invalid_argument& e) {
    if (m.encoding == ModelEncoding::Rope) throw UsageError(source + ": " + e.what());
    modelMismatch(r, m, source, "a RoPE, ALiBi or learned-position model");
  }
  r.extrapolationEncodings = {lab.encoding};
  if (lab.encoding == ExtrapolationEncoding::Alibi) {
    r.slope = lab.alibiSlope;
  } else if (lab.encoding == ExtrapolationEncoding::Learned) {
    r.rope.scaling.originalMaxPositions = lab.trainedLength;
    r.rope.headDim = lab.headDim;
  } else {
    r.rope = lab.rope;
    r.factorGiven = lab.factorGiven;
  }
}

void parseEncoding(Request& r, const ParsedOptions& o) {
  const std::optional<std::string> enc = o.value("--encoding");
  const std::optional<std::string> sc = o.value("--scaling");
  std::string name = enc ? parseChoiceOption("--encoding", *enc, {"all", "sinusoidal", "learned", "rope", "alibi"}) : "";
  if (sc && !name.empty() && name != "rope")
    throw UsageError("--scaling: applies to --encoding rope, not " + name + " (with all, every scaling runs)");
  if (sc) name = "rope";
  if (name.empty()) return;
  if (name == "all") {
    r.extrapolationEncodings = allExtrapolationEncodings();
    return;
  }
  ScalingMethod method = ScalingMethod::None;
  if (sc) method = *parseScalingName(parseChoiceOption("--scaling", *sc, {"none", "linear", "ntk", "yarn", "llama3"}));
  for (ExtrapolationEncoding e : allExtrapolationEncodings()) {
    const std::string base = isRotary(e) ? "rope" : extrapolationEncodingName(e);
    if (base == name && (!isRotary(e) || extrapolationScaling(e) == method)) r.extrapolationEncodings = {e};
  }
}

void parseScalingOptions(Request& r, const ParsedOptions& o) {
  // The RoPE views' knobs (view_support.hpp); the lab runs every method at once, so both orders hold.
  if (readScalingKnobs(o, r.rope.scaling)) r.factorGiven = true;
  checkScalingOrder(r.rope.scaling, true, true);
}

// Lengths of the runs: L and every multiple of L0, each in [1, kMaxExtrapolationLength].
void parseLengths(Request& r, const ParsedOptions& o) {
  const int maxLen = kMaxExtrapolationLength;
  int& l0 = r.rope.scaling.originalMaxPositions;
  readParam(o, table::kTrainedLength, l0);
  if (l0 < 2 || l0 > maxLen)
    throw UsageError("--original-max-positions: the trained length is " + std::to_string(l0) + ", expected 2.." + std::to_string(maxLen));
  if (!r.positionsGiven) r.positions = static_cast<int>(std::min<long long>(4LL * l0, maxLen));
  if (r.positions > maxLen)
    throw UsageError("--positions: got " + std::to_string(r.positions) + ", expected 1.." + std::to_string(maxLen) + " for the extrapolation lab");
  if (auto m = o.value("--multiples")) {
    r.multiples = parseRealListOption("--multiples", *m, RealRange{0.0, 1.0e6, true, false});
    if (r.multiples.size() > kMaxMultiples) {
      throw UsageError("--multiples: got " + std::to_string(r.multiples.size()) + " lengths, expected at most " +
                       std::to_string(kMaxMultiples) + " (each is a run of the lab)");
    }
  }
  for (double m : r.multiples) {
    const double len = std::round(m * l0);
    if (len < 1.0 || len > maxLen)
      throw UsageError("--multiples: " + formatNumber(m) + " x L0 " + std::to_string(l0) + " = " + formatNumber(len) +
                       " positions, expected 1.." + std::to_string(maxLen));
  }
}

void labParse(Request& r, const ParsedOptions& o) {
  if (auto t = o.value("--text")) r.text = *t;
  if (splitTokens(r.text).empty()) throw UsageError("--text: got " + quotedText(r.text) + ", expected at least one word");
  readParam(o, table::kHeadDim, r.rope.headDim);
  if (r.rope.headDim > kMaxLabDim)
    throw UsageError("--head-dim: the model's head_dim " + std::to_string(r.rope.headDim) + " is over the toy model's limit " +
                     std::to_string(kMaxLabDim));
  if (double slope = 0.0; readParam(o, params::alibi::kSlope, slope)) r.slope = slope;
  parseEncoding(r, o);
  parseScalingOptions(r, o);
  parseLengths(r, o);
  const bool scaledRun = std::any_of(r.extrapolationEncodings.begin(), r.extrapolationEncodings.end(),
                                     [](ExtrapolationEncoding e) { return extrapolationScaling(e) != ScalingMethod::None; });
  if (o.has("--factor") && !scaledRun)
    throw UsageError("--factor: applies to scaled RoPE runs (--encoding all, or rope with --scaling linear|ntk|yarn|llama3)");
  for (ExtrapolationEncoding e : r.extrapolationEncodings) {
    if (e == ExtrapolationEncoding::RopeNtk && r.rope.headDim < 4)
      throw UsageError("--head-dim: rope-ntk needs at least 4 dims (two pairs), got " + std::to_string(r.rope.headDim));
    if (!isRotary(e) || !r.factorGiven) continue;
    RopeParams p = r.rope;   // a factor whose scaled base overflows is refused before any work
    p.scaling.method = extrapolationScaling(e);
    try {
      (void)ropeFrequencies(p);
    } catch (const std::invalid_argument& ex) {
      throw UsageError(std::string("--factor: ") + ex.what());
    }
  }
}

int columnsOf(const Request& r) { return 4 + static_cast<int>(r.extrapolationEncodings.size()); }

std::uint64_t labElements(const Request& r) {
  const auto runs = static_cast<std::uint64_t>(r.extrapolationEncodings.size());
  const auto pairs = static_cast<std::uint64_t>(r.rope.headDim / 2);
  // The table, plus per run its weights, key flags and four per-pair lists.
  return checkedProduct({static_cast<std::uint64_t>(r.positions), static_cast<std::uint64_t>(columnsOf(r)) + 2 * runs}) +
         checkedProduct({runs, pairs, 4});
}

ExtrapolationSetup setupOf(const Request& r) {
  ExtrapolationSetup s;
  s.model = ToyModel{r.rope.headDim, r.seed, false};
  s.sentence = splitTokens(r.text);
  s.trainedLength = r.rope.scaling.originalMaxPositions;
  s.base = r.rope.base;
  s.factor = r.factorGiven ? r.rope.scaling.factor : 0.0;
  s.alibiSlope = r.slope.value_or(0.0);
  s.scaling = r.rope.scaling;
  return s;
}

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json rotaryJson(const ExtrapolationRun& run) {
  std::vector<bool> full;
  for (double span : run.trainedSpan) full.push_back(span >= 2.0 * std::numbers::pi);
  return {{"inv_freq", run.invFreq}, {"trained_span", run.trainedSpan}, {"full_circle_seen", full},
          {"unseen_share", run.unseenShare}, {"unseen_share_mean", run.unseenShareMean},
          {"pairs_with_unseen", run.pairsWithUnseen}};
}

json summaryJson(const ExtrapolationRun& run) {
  json j = {{"encoding", extrapolationEncodingName(run.encoding)}, {"length", run.length},
            {"entropy", number(run.entropy)}, {"max_entropy", run.maxEntropy}, {"entropy_ratio", number(run.entropyRatio)},
            {"error", run.error.empty() ? json(nullptr) : json(run.error)}};
  if (isRotary(run.encoding)) j["unseen_share_mean"] = run.unseenShareMean;
  return j;
}

json runJson(const ExtrapolationRun& run, bool f32) {
  json j = summaryJson(run);
  j["title"] = extrapolationEncodingTitle(run.encoding);
  j["query_position"] = run.queryPosition;
  j["factor"] = run.factor;
  j["attention_factor"] = run.attentionFactor;
  if (run.error.empty()) {
    json w = json::array();
    for (double v : run.weights) w.push_back(f32 ? static_cast<double>(static_cast<float>(v)) : v);
    j["weights"] = std::move(w);
  } else {
    j["weights"] = nullptr;
  }
  if (!run.keyHasRow.empty()) {
    j["key_has_row"] = run.keyHasRow;
    if (run.length > run.trainedLength)
      j["missing_positions"] = {{"first", run.trainedLength}, {"last", run.length - 1}, {"count", run.length - run.trainedLength}};
  }
  if (isRotary(run.encoding)) j["rotary"] = rotaryJson(run);
  return j;
}

// The main table: row = distance r, columns distance, key_position, position_trained,
// distance_trained, then one weight per run (NaN where a learned run has no weights).
void fillTable(Dataset& d, const Request& r, const std::vector<ExtrapolationRun>& runs) {
  const int l = r.positions, l0 = r.rope.scaling.originalMaxPositions, cols = columnsOf(r);
  d.columnNames = {"distance", "key_position", "position_trained", "distance_trained"};
  d.columns.assign(static_cast<std::size_t>(cols), std::vector<double>(static_cast<std::size_t>(l)));
  for (int dist = 0; dist < l; ++dist) {
    const auto i = static_cast<std::size_t>(dist);
    d.columns[0][i] = dist;
    d.columns[1][i] = l - 1 - dist;
    d.columns[2][i] = l - 1 - dist < l0 ? 1.0 : 0.0;
    d.columns[3][i] = dist < l0 ? 1.0 : 0.0;
  }
  for (std::size_t k = 0; k < runs.size(); ++k) {
    d.columnNames.push_back(std::string("weight_") + extrapolationEncodingName(runs[k].encoding));
    std::vector<double>& col = d.columns[4 + k];
    if (runs[k].error.empty()) col = runs[k].weights;
    else std::fill(col.begin(), col.end(), std::numeric_limits<double>::quiet_NaN());
    d.skipFiniteCheck = d.skipFiniteCheck || !runs[k].error.empty();  // NaN marks "no row", by design
  }
  d.shape = {l, cols};
  d.exact.resize(static_cast<std::size_t>(l) * static_cast<std::size_t>(cols));
  d.grid = Grid(l, cols);
  for (int row = 0; row < l; ++row)
    for (int c = 0; c < cols; ++c) {
      const double v = d.columns[static_cast<std::size_t>(c)][static_cast<std::size_t>(row)];
      d.exact[static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)] = v;
      d.grid.at(row, c) = static_cast<float>(v);
    }
}

json paramsJson(const Request& r, const ExtrapolationSetup& s) {
  json p = {{"head_dim", s.model.dModel}, {"base", s.base}, {"trained_length", s.trainedLength}, {"positions", r.positions},
            {"factor", r.factorGiven ? json(s.factor) : json("auto: max(1, L / L0) per run")},
            {"alibi_slope", s.alibiSlope == 0.0 ? toyConstants().alibiSlope : s.alibiSlope}, {"seed", r.seed},
            {"text", r.text}, {"multiples", r.multiples}, {"beta_fast", s.scaling.betaFast}, {"beta_slow", s.scaling.betaSlow},
            {"low_freq_factor", s.scaling.lowFreqFactor}, {"high_freq_factor", s.scaling.highFreqFactor}};
  std::vector<std::string> names;
  for (ExtrapolationEncoding e : r.extrapolationEncodings) names.push_back(extrapolationEncodingName(e));
  p["encodings"] = names;
  return p;
}

Dataset computeLab(const Request& r, const ExportProgress& progress) {
  const ExtrapolationSetup s = setupOf(r);
  // Every length once: --positions first, then the sweep's (a sweep length equal to --positions
  // is that run), all runs computed side by side.
  std::vector<int> lengths = {r.positions};
  std::vector<std::size_t> sweepRow;   // per multiple: its row in lengths
  for (double m : r.multiples) {
    const int len = static_cast<int>(std::lround(m * s.trainedLength));
    const auto at = std::find(lengths.begin(), lengths.end(), len);
    sweepRow.push_back(static_cast<std::size_t>(at - lengths.begin()));
    if (at == lengths.end()) lengths.push_back(len);
  }
  const std::vector<std::vector<ExtrapolationRun>> all = runExtrapolationGrid(
      s, r.extrapolationEncodings, lengths,
      [&](int done, int total) {
        if (progress) progress(static_cast<double>(done) / static_cast<double>(total));
      });
  const std::vector<ExtrapolationRun>& runs = all.front();
  const bool wantJson = r.format == Format::Json;   // the per-key arrays only go into .json
  json runsJson = json::array(), summary = json::array(), sweep = json::array();
  for (const ExtrapolationRun& run : runs) {
    if (wantJson) runsJson.push_back(runJson(run, r.dtype == DType::F32));
    summary.push_back(summaryJson(run));
  }
  for (std::size_t k = 0; k < r.multiples.size(); ++k) {
    const std::vector<ExtrapolationRun>& row = all[sweepRow[k]];
    json j = {{"multiple", r.multiples[k]}, {"length", row.front().length}, {"runs", json::array()}};
    for (const ExtrapolationRun& run : row) j["runs"].push_back(summaryJson(run));
    sweep.push_back(std::move(j));
  }
  Dataset d;
  fillTable(d, r, runs);
  d.document = {{"params", paramsJson(r, s)},
                {"trained_range", {{"positions", {0, s.trainedLength - 1}}, {"distances", {0, s.trainedLength - 1}},
                                   {"query_trained", r.positions <= s.trainedLength}}},
                {"summary", summary}, {"runs", runsJson}, {"sweep", sweep},
                {"table_columns", d.columnNames}};
  d.jsonComplete = true;
  return d;
}

}  // namespace

std::vector<ViewDef> extrapolationViews() {
  ViewDef v;
  v.name = "extrapolation";
  v.tab = "extrapolation";
  v.summary = "the toy sentence at L0 and past it: the last query's attention by distance, its entropy, unseen RoPE angles";
  v.layout = ".npy/.csv: (positions, 4 + runs), row = distance r of the key from the last query (key L-1-r); columns "
             "distance, key_position, position_trained (key < L0), distance_trained (r < L0), then weight_ENCODING per "
             "run (NaN: learned past L0, no row). .json: params, trained_range, summary (entropy nats, entropy_ratio "
             "= H / ln L, unseen_share_mean), runs (weights by distance, key_has_row, rotary: inv_freq, trained_span, "
             "unseen_share per pair), sweep (the summary at L0 x --multiples), table_columns. In this view: --encoding "
             "all|sinusoidal|learned|rope|alibi (default all), --scaling none|linear|ntk|yarn|llama3 picks the RoPE run, "
             "--original-max-positions L0 (default 4096, >= 2), --positions L (default 4 x L0, <= 1048576), --head-dim the "
             "toy d_model (default 128, <= 4096), --factor (default L / L0 per run), --text (default \"The cat sat on the "
             "mat\"), --slope the ALiBi slope (default 0.5)";
  v.exactDouble = true;
  v.buildsDocument = true;
  v.maxDModel = kMaxLabDim;
  v.options = {"--encoding", "--scaling", "--factor", "--original-max-positions", "--positions", "--head-dim", "--base",
               "--seed", "--text", "--slope", "--multiples", "--beta-fast", "--beta-slow", "--low-freq-factor",
               "--high-freq-factor", "--mscale", "--mscale-all-dim", "--attention-factor", "--no-truncate", "--config",
               "--preset"};
  v.params = {&table::kHeadDim, &params::rope::kBase, &table::kTrainedLength, &scaling::kFactor, &scaling::kBetaFast,
              &scaling::kBetaSlow, &scaling::kLowFreqFactor, &scaling::kHighFreqFactor, &scaling::kMscale,
              &scaling::kMscaleAllDim, &scaling::kAttentionFactor, &params::alibi::kSlope};
  v.setDefaults = labDefaults;
  v.applyModel = labModel;
  v.parse = labParse;
  v.elements = labElements;
  v.compute = computeLab;
  return {v};
}

}  // namespace posviz::cli
