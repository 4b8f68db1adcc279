// rope.cpp: the RoPE views (RoFormer, Su et al. 2021): inverse frequencies after context
// extension, the angle, cos and sin grids, one rotated q/k pair, the score grid s(m, n) and the
// decay bound. They share one set of options (head_dim, base, layout, partial rotary, scaling) and
// one parser; q and k are typed (--q, --k) or drawn from --seed as the RoPE tab draws them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <span>

#include "core/untrusted_text.hpp"
#include "app/cli/config_readings.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_call.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/views/rope_view.hpp"
#include "app/cli/views/view_support.hpp"
#include "core/context_extension.hpp"
#include "core/exact_average.hpp"
#include "core/random.hpp"

namespace posviz::cli {

namespace {

using nlohmann::json;

namespace table = params::rope;
namespace scaling = params::scaling;

const std::vector<std::string> kScalingOptions = {"--scaling", "--factor", "--original-max-positions", "--seq-len",
                                                  "--beta-fast", "--beta-slow", "--low-freq-factor", "--high-freq-factor",
                                                  "--mscale", "--mscale-all-dim", "--short-factor", "--long-factor",
                                                  "--attention-factor", "--no-truncate", "--rotary-fraction"};

std::vector<std::string> ropeOptions(std::vector<std::string> extra) {
  std::vector<std::string> o = {"--head-dim", "--base", "--layout", "--config", "--preset", "--layer-type"};
  o.insert(o.end(), kScalingOptions.begin(), kScalingOptions.end());
  o.insert(o.end(), extra.begin(), extra.end());
  return o;
}

}  // namespace

void ropeModel(Request& r, const ModelConfig& m, const std::string& source) {
  const auto rope = readRopeConfig(m, r.layerType, source);
  if (!rope) modelMismatch(r, m, source, "a RoPE model");
  r.rope = *rope;
}

namespace {

// The table's defaults (app/cli/params/rope.hpp): core's RopeParams, and T for the grids.
void ropeDefaults(Request& r) {
  r.rope.headDim = static_cast<int>(table::kHeadDim.defaultInt());
  r.rope.base = table::kBase.def;
  r.rope.layout = static_cast<RopeLayout>(table::kLayout.defaultInt());
  r.rope.rotaryFraction = table::kRotaryFraction.def;
  r.positions = static_cast<int>(table::kPositions.defaultInt());
}

// --seed N: q = head_dim random normal numbers from N, k from N + 1 (the RoPE tab's seeded q, k).
void seedVectors(Request& r, const ParsedOptions& o) {
  if (!o.has("--seed")) return;
  if (o.has("--q") || o.has("--k")) throw UsageError("--seed: draws q and k; give either --seed or --q/--k");
  const std::vector<float> q = randomNormalVector(r.rope.headDim, r.seed);
  const std::vector<float> k = randomNormalVector(r.rope.headDim, r.seed + 1);
  r.q.assign(q.begin(), q.end());
  r.k.assign(k.begin(), k.end());
}

void parseHeadAndVectors(Request& r, const ParsedOptions& o) {
  auto get = [&](const std::string& n) { return o.value(n); };
  if (auto q = get("--q")) r.q = finiteList("--q", *q);
  if (auto k = get("--k")) r.k = finiteList("--k", *k);
  const bool headDimGiven = readParam(o, table::kHeadDim, r.rope.headDim);
  if (!headDimGiven && !r.model && !r.q.empty()) {
    if (r.q.size() % 2 != 0) {
      throw UsageError("--q: has " + std::to_string(r.q.size()) + " values, expected an even count (RoPE rotates pairs; "
                       "the length of --q sets head_dim when --head-dim is not given)");
    }
    r.rope.headDim = static_cast<int>(r.q.size());  // the vector says how wide the head is
  }
  seedVectors(r, o);
}

void parseScaling(Request& r, const ParsedOptions& o) {
  auto get = [&](const std::string& n) { return o.value(n); };
  const RealRange positive{0.0, 1.0e300, true, false};
  readParam(o, table::kRotaryFraction, r.rope.rotaryFraction);
  RopeScaling& s = r.rope.scaling;
  if (auto m = get("--scaling")) {
    const std::string name = parseChoiceOption("--scaling", *m, {"none", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope"});
    s.method = *parseScalingName(name);
  }
  for (const std::string& name : kScalingOptions) {
    if (name == "--scaling" || name == "--rotary-fraction" || !o.has(name)) continue;
    if (s.method == ScalingMethod::None) {
      throw UsageError(name + ": needs --scaling METHOD (or a --config/--preset with rope_scaling); scaling is none");
    }
  }
  readParam(o, scaling::kOriginalMax, s.originalMaxPositions);
  readParam(o, scaling::kSeqLen, s.seqLen);
  readScalingKnobs(o, s);
  if (auto f = get("--short-factor")) s.shortFactor = parseRealListOption("--short-factor", *f, positive);
  if (auto f = get("--long-factor")) s.longFactor = parseRealListOption("--long-factor", *f, positive);
}

// Combinations no single option's range can refuse.
void checkRope(Request& r) {
  const RopeScaling& s = r.rope.scaling;
  checkScalingOrder(s, s.method == ScalingMethod::Yarn, s.method == ScalingMethod::Llama3);
  const int pairs = ropeRotaryDims(r.rope) / 2;
  if (pairs < 1) {
    throw UsageError("--rotary-fraction: " + formatNumber(r.rope.rotaryFraction) + " of head_dim " +
                     std::to_string(r.rope.headDim) + " leaves no rotating pair");
  }
  if (s.method == ScalingMethod::LongRope) {
    for (const auto& [list, flag] : {std::pair{&s.shortFactor, "--short-factor"}, std::pair{&s.longFactor, "--long-factor"}}) {
      if (static_cast<int>(list->size()) != pairs) {
        throw UsageError(std::string(flag) + ": has " + std::to_string(list->size()) + " values, expected " +
                         std::to_string(pairs) + " (one per rotary pair of head_dim " + std::to_string(r.rope.headDim) + ")");
      }
    }
  }
  if ((s.method == ScalingMethod::NtkAware || s.method == ScalingMethod::DynamicNtk) && ropeRotaryDims(r.rope) < 4) {
    throw UsageError("--scaling: " + std::string(scalingName(s.method)) + " needs at least 4 rotary dims, head_dim gives " +
                     std::to_string(ropeRotaryDims(r.rope)));
  }
  for (const auto& [vec, flag] : {std::pair{&r.q, "--q"}, std::pair{&r.k, "--k"}}) {
    if (!vec->empty() && static_cast<int>(vec->size()) != r.rope.headDim) {
      throw UsageError(std::string(flag) + ": has " + std::to_string(vec->size()) + " values, expected head_dim " +
                       std::to_string(r.rope.headDim));
    }
  }
  if (r.q.empty()) r.q.assign(static_cast<std::size_t>(r.rope.headDim), 1.0);
  if (r.k.empty()) r.k = r.q;
}

}  // namespace

void ropeParse(Request& r, const ParsedOptions& o) {
  readParam(o, table::kPixel, r.pixel);
  if (r.layerType && !r.model) throw UsageError("--layer-type: needs --config FILE or --preset NAME (it picks that model's layers)");
  readParam(o, table::kLayout, r.rope.layout);
  parseHeadAndVectors(r, o);
  parseScaling(r, o);
  checkRope(r);
}

namespace {

std::uint64_t pairs(const Request& r) { return static_cast<std::uint64_t>(std::max(1, ropeRotaryDims(r.rope) / 2)); }
std::uint64_t positions(const Request& r) { return static_cast<std::uint64_t>(r.positions); }

// inv_freq, base_inv_freq, ramp, regime and the pair index per pair.
std::uint64_t freqsElements(const Request& r) {
  return checkedProduct({static_cast<std::uint64_t>(std::max(1, r.rope.headDim / 2)), 5});
}
std::uint64_t anglesElements(const Request& r) { return checkedProduct({positions(r), pairs(r)}); }
// q and k as given and rotated.
std::uint64_t rotateElements(const Request& r) { return checkedProduct({static_cast<std::uint64_t>(r.rope.headDim), 4}); }
std::uint64_t scoresElements(const Request& r) { return checkedProduct({positions(r), positions(r)}); }
std::uint64_t decayElements(const Request& r) { return checkedProduct({positions(r), 2}); }

Dataset computeRopeFreqs(const Request& r, const ExportProgress& progress) {
  Dataset d;
  const RopeFrequencies f = ropeFrequencies(r.rope);
  json regimes = json::array();
  std::vector<double> pair, codes;
  for (std::size_t i = 0; i < f.regime.size(); ++i) {
    regimes.push_back(regimeName(f.regime[i]));
    pair.push_back(static_cast<double>(i));
    codes.push_back(static_cast<double>(static_cast<int>(f.regime[i])));
  }
  d.document = {{"inv_freq", f.invFreq}, {"base_inv_freq", f.baseInvFreq}, {"ramp", f.ramp}, {"regime", regimes},
                {"attention_factor", f.attentionFactor}, {"method", scalingName(r.rope.scaling.method)},
                {"effective_base", f.effectiveBase}, {"params", ropeParamsJson(r.rope)}};
  if (r.model) d.document["model"] = r.model->name;
  d.jsonComplete = true;
  d.shape = {static_cast<std::int64_t>(f.invFreq.size())};
  d.exact = f.invFreq;
  d.grid = Grid(1, static_cast<int>(f.invFreq.size()));
  for (std::size_t i = 0; i < f.invFreq.size(); ++i) d.grid.values[i] = static_cast<float>(f.invFreq[i]);
  d.columnNames = {"pair", "inv_freq", "base_inv_freq", "ramp", "regime_code"};
  // .npy holds inv_freq alone (d.exact, or the float grid); .csv the table, in the output's precision.
  const bool f64 = r.dtype == DType::F64;
  auto precision = [&](const std::vector<double>& v) {
    std::vector<double> out(v);
    if (!f64) for (double& x : out) x = static_cast<double>(static_cast<float>(x));
    return out;
  };
  d.columns = {pair, precision(f.invFreq), precision(f.baseInvFreq), precision(f.ramp), codes};
  progress(1.0);
  return d;
}

// Parameters, titles and the .csv comment of an angle, cos or sin grid: the whole grid and its
// --size picture alike.
void describeRopePairs(Dataset& d, const Request& r, RopePairValue value) {
  d.document["params"] = ropeParamsJson(r.rope);
  d.document["params"]["positions"] = r.positions;
  d.document["params"]["first_position"] = r.firstPos;
  d.rowTitle = "position m";
  d.colTitle = "pair i";
  if (value == RopePairValue::Angle) {
    d.valueName = "angle (rad)";
    d.isAngle = true;
    d.csvComments = {"rope angles m*theta_i mod 2pi: rows = positions, cols = pairs"};
  } else {
    const char* f = value == RopePairValue::Cos ? "cos" : "sin";
    d.valueName = f;
    d.csvComments = {std::string("rope ") + f + "(m*theta_i) * attention_factor: rows = positions, cols = pairs"};
  }
  labelAxes(d, r.firstPos, r.positions, 0, ropeNumPairs(r.rope));
}

template <RopePairValue V>
Dataset computeRopePairs(const Request& r, const ExportProgress& progress) {
  Dataset d;
  if constexpr (V == RopePairValue::Angle) d.grid = ropeAngleGrid(r.rope, r.positions, r.firstPos);
  else if constexpr (V == RopePairValue::Cos) d.grid = ropeCosGrid(r.rope, r.positions, r.firstPos);
  else d.grid = ropeSinGrid(r.rope, r.positions, r.firstPos);
  d.shape = {d.grid.rows, d.grid.cols};
  describeRopePairs(d, r, V);
  progress(1.0);
  return d;
}

std::uint64_t ropePairsAveragedElements(const Request& r, int width, int height) {
  return requireFits(r, {r.positions, ropeNumPairs(r.rope)}, {width, height}, r.firstPos + r.positions);
}

template <RopePairValue V>
Dataset ropePairsAveraged(const Request& r, int width, int height, const ExportProgress& progress) {
  const GridShape g{r.positions, ropeNumPairs(r.rope)};
  const GridWindow w = wholeWindow(r.firstPos, 0, g, {width, height});
  // cos and sin swing within +-attention factor; angles fill [0, 2 pi).
  const double bound = V == RopePairValue::Angle ? 0.0 : ropeFrequencies(r.rope).attentionFactor;
  ChosenPicture chosen = chosenExportPicture(r, w, bound, [&](PixelStat stat) { return ropePairStatPicture(r.rope, V, w, stat); });
  Dataset d;
  const PixelStat stat = chosen.stat;
  setPicture(d, r, std::move(chosen.picture));
  describeRopePairs(d, r, V);
  describeAveraged(d, r, g, {width, height}, r.firstPos, 0, stat);
  const auto b = static_cast<float>(bound);
  describePixel(d, r, chosen, V == RopePairValue::Angle ? ValueRange{0.0f, 6.2831855f} : ValueRange{-b, b});
  progress(1.0);
  return d;
}

Dataset computeRopeRotate(const Request& r, const ExportProgress& progress) {
  Dataset d;
  const bool wantDouble = wantsDouble(r);
  const std::size_t hd = static_cast<std::size_t>(r.rope.headDim);
  std::vector<float> qf(r.q.begin(), r.q.end()), kf(r.k.begin(), r.k.end());
  std::vector<double> rq, rk;
  if (wantDouble) {
    rq = ropeRotate(r.rope, std::span<const double>(r.q), r.position);
    rk = ropeRotate(r.rope, std::span<const double>(r.k), r.keyPosition);
  } else {
    const std::vector<float> a = ropeRotate(r.rope, std::span<const float>(qf), r.position);
    const std::vector<float> b = ropeRotate(r.rope, std::span<const float>(kf), r.keyPosition);
    rq.assign(a.begin(), a.end());
    rk.assign(b.begin(), b.end());
  }
  const double score = ropeScore(r.rope, qf, kf, r.position, r.keyPosition);
  d.document = {{"q", rq}, {"k", rk}, {"score", score}, {"position", r.position}, {"key_position", r.keyPosition},
                {"q_input", r.q}, {"k_input", r.k}, {"params", ropeParamsJson(r.rope)}};
  d.jsonComplete = true;
  d.shape = {2, static_cast<std::int64_t>(hd)};
  d.grid = Grid(2, static_cast<int>(hd));
  for (std::size_t i = 0; i < hd; ++i) {
    d.grid.values[i] = static_cast<float>(rq[i]);
    d.grid.values[hd + i] = static_cast<float>(rk[i]);
  }
  if (wantDouble) {
    d.exact = rq;
    d.exact.insert(d.exact.end(), rk.begin(), rk.end());
  }
  d.columnNames = {"dim", "q", "k"};
  std::vector<double> dim(hd);
  for (std::size_t i = 0; i < hd; ++i) dim[i] = static_cast<double>(i);
  d.columns = {dim, rq, rk};
  progress(1.0);
  return d;
}

void describeRopeScores(Dataset& d, const Request& r) {
  d.document["params"] = ropeParamsJson(r.rope);
  d.document["params"]["positions"] = r.positions;
  d.document["params"]["first_position"] = r.firstPos;
  d.document["q"] = r.q;
  d.document["k"] = r.k;
  d.rowTitle = "query position m";
  d.colTitle = "key position n";
  d.valueName = "s(m,n)";
  d.csvComments = {"rope scores s(m,n) = <R_m q, R_n k>: rows = query position m, cols = key position n"};
  labelAxes(d, r.firstPos, r.positions, r.firstPos, r.positions);
}

Dataset computeRopeScores(const Request& r, const ExportProgress& progress) {
  Dataset d;
  std::vector<float> qf(r.q.begin(), r.q.end()), kf(r.k.begin(), r.k.end());
  d.grid = ropeScoreGrid(r.rope, qf, kf, r.positions, r.firstPos);
  d.shape = {d.grid.rows, d.grid.cols};
  describeRopeScores(d, r);
  progress(1.0);
  return d;
}

std::uint64_t ropeScoresAveragedElements(const Request& r, int width, int height) {
  return requireFits(r, {r.positions, r.positions}, {width, height}, r.firstPos + r.positions);
}

Dataset ropeScoresAveraged(const Request& r, int width, int height, const ExportProgress& progress) {
  const GridShape g{r.positions, r.positions};
  const std::vector<float> qf(r.q.begin(), r.q.end()), kf(r.k.begin(), r.k.end());
  const GridWindow w = wholeWindow(r.firstPos, r.firstPos, g, {width, height});
  // The most |s| can reach (core's ropeScoreBound): what auto measures a flattened mean against.
  const double bound = ropeScoreBound(r.rope, qf, kf);
  ChosenPicture chosen = chosenExportPicture(r, w, bound, [&](PixelStat stat) { return ropeScoreStatPicture(r.rope, qf, kf, w, stat); });
  Dataset d;
  const PixelStat stat = chosen.stat;
  setPicture(d, r, std::move(chosen.picture));
  describeRopeScores(d, r);
  describeAveraged(d, r, g, {width, height}, r.firstPos, r.firstPos, stat);
  const auto b = static_cast<float>(bound);
  describePixel(d, r, chosen, {-b, b});
  progress(1.0);
  return d;
}

Dataset computeRopeDecay(const Request& r, const ExportProgress& progress) {
  Dataset d;
  const std::vector<double> bound = ropeDecayBound(r.rope, r.positions - 1);
  d.shape = {static_cast<std::int64_t>(bound.size()), 2};
  std::vector<double> distance(bound.size());
  for (std::size_t i = 0; i < bound.size(); ++i) distance[i] = static_cast<double>(i);
  d.document = {{"distance", distance}, {"bound", bound}, {"params", ropeParamsJson(r.rope)}};
  d.jsonComplete = true;
  d.grid = Grid(static_cast<int>(bound.size()), 2);
  for (std::size_t i = 0; i < bound.size(); ++i) {
    d.exact.push_back(distance[i]);
    d.exact.push_back(bound[i]);
    d.grid.values[2 * i] = static_cast<float>(distance[i]);
    d.grid.values[2 * i + 1] = static_cast<float>(bound[i]);
  }
  d.columnNames = {"distance", "bound"};
  std::vector<double> boundOut(bound);
  if (r.dtype != DType::F64) for (double& x : boundOut) x = static_cast<double>(static_cast<float>(x));
  d.columns = {distance, boundOut};
  progress(1.0);
  return d;
}

}  // namespace

ViewDef ropeView(std::string name, std::string summary, std::string layout, std::vector<std::string> extra) {
  ViewDef v;
  v.name = std::move(name);
  v.tab = "rope";
  v.summary = std::move(summary);
  v.layout = std::move(layout);
  v.options = ropeOptions(std::move(extra));
  v.params = {&table::kHeadDim, &table::kBase, &table::kLayout, &table::kRotaryFraction, &scaling::kFactor,
              &scaling::kOriginalMax, &scaling::kSeqLen, &scaling::kBetaFast, &scaling::kBetaSlow,
              &scaling::kLowFreqFactor, &scaling::kHighFreqFactor, &scaling::kMscale, &scaling::kMscaleAllDim,
              &scaling::kAttentionFactor};
  if (std::find(v.options.begin(), v.options.end(), "--positions") != v.options.end()) v.params.push_back(&table::kPositions);
  v.setDefaults = ropeDefaults;
  v.applyModel = ropeModel;
  v.parse = ropeParse;
  return v;
}

namespace {

// rope-angles, rope-cos, rope-sin: one value of every pair at every position.
template <RopePairValue V>
ViewDef pairGridView(std::string name, std::string summary) {
  ViewDef v = ropeView(std::move(name), std::move(summary),
                       ".npy/.csv: (positions, pairs), row = position m, col = pair i; .json: shape, params, values; "
                       ".png: heatmap",
                       {"--positions", "--position", "--pixel"});
  v.params.push_back(&table::kPixel);
  v.png = true;
  v.elements = anglesElements;
  v.compute = computeRopePairs<V>;
  v.computeAveraged = ropePairsAveraged<V>;
  v.averagedElements = ropePairsAveragedElements;
  return v;
}

std::string listText(const std::vector<double>& v) {
  std::string out;
  for (double x : v) out += (out.empty() ? "" : ",") + formatNumber(x);
  return out;
}

}  // namespace

bool readScalingKnobs(const ParsedOptions& o, RopeScaling& s) {
  const bool factorGiven = readParam(o, scaling::kFactor, s.factor);
  readParam(o, scaling::kBetaFast, s.betaFast);
  readParam(o, scaling::kBetaSlow, s.betaSlow);
  readParam(o, scaling::kLowFreqFactor, s.lowFreqFactor);
  readParam(o, scaling::kHighFreqFactor, s.highFreqFactor);
  readParam(o, scaling::kMscale, s.mscale);
  readParam(o, scaling::kMscaleAllDim, s.mscaleAllDim);
  // An attention factor multiplies cos and sin, so scores grow with its square: past its 1e6 a
  // float32 score overflows for ordinary q and k, and real models use 1 to 2.
  if (double f = 0.0; readParam(o, scaling::kAttentionFactor, f)) s.attentionFactor = f;
  if (o.has("--no-truncate")) s.truncate = false;
  return factorGiven;
}

void checkScalingOrder(const RopeScaling& s, bool yarnBetas, bool llama3Factors) {
  if (yarnBetas && !(s.betaFast >= s.betaSlow)) {
    throw UsageError("--beta-fast: got " + formatNumber(s.betaFast) + ", expected a number >= --beta-slow " +
                     formatNumber(s.betaSlow));
  }
  if (llama3Factors && !(s.highFreqFactor > s.lowFreqFactor)) {
    throw UsageError("--high-freq-factor: got " + formatNumber(s.highFreqFactor) + ", expected a number > --low-freq-factor " +
                     formatNumber(s.lowFreqFactor));
  }
}

ViewCall& addRopeParams(ViewCall& call, const RopeParams& p) {
  namespace scaling = params::scaling;
  const RopeScaling& s = p.scaling;
  call.set(table::kHeadDim, p.headDim).set(table::kBase, p.base).set(table::kLayout, static_cast<double>(p.layout));
  if (p.rotaryFraction != 1.0) call.set(table::kRotaryFraction, p.rotaryFraction);
  if (s.method == ScalingMethod::None) return call;
  call.set(scaling::kMethod, static_cast<double>(s.method)).set(scaling::kFactor, s.factor);
  call.set(scaling::kOriginalMax, s.originalMaxPositions);
  if (s.seqLen > 0) call.set(scaling::kSeqLen, static_cast<double>(s.seqLen));
  if (s.method == ScalingMethod::Yarn) {
    call.set(scaling::kBetaFast, s.betaFast).set(scaling::kBetaSlow, s.betaSlow);
    if (s.mscale > 0) call.set(scaling::kMscale, s.mscale);
    if (s.mscaleAllDim > 0) call.set(scaling::kMscaleAllDim, s.mscaleAllDim);
    call.on(scaling::kNoTruncate, !s.truncate);
  }
  if (s.method == ScalingMethod::Llama3) call.set(scaling::kLowFreqFactor, s.lowFreqFactor).set(scaling::kHighFreqFactor, s.highFreqFactor);
  if (s.method == ScalingMethod::LongRope) call.set(scaling::kShortFactor, listText(s.shortFactor)).set(scaling::kLongFactor, listText(s.longFactor));
  if (s.attentionFactor) call.set(scaling::kAttentionFactor, *s.attentionFactor);
  return call;
}

std::vector<ViewDef> ropeViews() {
  ViewDef freqs = ropeView("rope-freqs", "RoPE inverse frequencies after scaling, attention factor, regime per pair",
                           ".json: inv_freq, base_inv_freq, ramp, regime (kept|blended|interpolated per pair), "
                           "attention_factor, method, effective_base, params; .npy: inv_freq (pairs,); .csv: "
                           "pair,inv_freq,base_inv_freq,ramp,regime_code (0 kept, 1 blended, 2 interpolated)",
                           {});
  freqs.tab = "context-extension";
  freqs.exactDouble = true;
  freqs.buildsDocument = true;
  freqs.elements = freqsElements;
  freqs.compute = computeRopeFreqs;

  ViewDef angles = pairGridView<RopePairValue::Angle>("rope-angles", "RoPE angles m * theta_i mod 2*pi (radians)");
  ViewDef cosines = pairGridView<RopePairValue::Cos>(
      "rope-cos", "cos(m * theta_i) times the attention factor: what multiplies q and k's pairs (rotate_half's cos)");
  ViewDef sines = pairGridView<RopePairValue::Sin>(
      "rope-sin", "sin(m * theta_i) times the attention factor: what multiplies q and k's pairs (rotate_half's sin)");

  ViewDef rotate = ropeView("rope-rotate", "q rotated to position M and k to position N, and their score",
                            ".json: q, k (rotated), score = <R_M q, R_N k>, position, key_position, q_input, k_input, "
                            "params; .npy: (2, head_dim), row 0 = rotated q, row 1 = rotated k; .csv: dim,q,k",
                            {"--q", "--k", "--seed", "--position", "--key-position"});
  rotate.exactDouble = true;
  rotate.buildsDocument = true;
  rotate.realPositions = true;
  rotate.elements = rotateElements;
  rotate.compute = computeRopeRotate;

  ViewDef scores = ropeView("rope-scores", "score grid s(m, n) = <R_m q, R_n k> for fixed q and k (--q, --k, or --seed N: "
                            "q random normal from N, k from N + 1)",
                            ".npy/.csv: (positions, positions), row = query position m, col = key position n; .json: "
                            "shape, params, values; .png: heatmap",
                            {"--q", "--k", "--seed", "--positions", "--position", "--pixel"});
  scores.params.push_back(&table::kPixel);
  scores.aliases = {"rope-score"};
  scores.png = true;
  scores.elements = scoresElements;
  scores.compute = computeRopeScores;
  scores.computeAveraged = ropeScoresAveraged;
  scores.averagedElements = ropeScoresAveragedElements;

  ViewDef decay = ropeView("rope-decay", "RoFormer's long-term decay bound (section 3.4.3) against relative distance",
                           ".npy: (positions, 2), columns distance, bound; .csv: distance,bound; .json: distance, bound, "
                           "params",
                           {"--positions"});
  decay.exactDouble = true;
  decay.buildsDocument = true;
  decay.elements = decayElements;
  decay.compute = computeRopeDecay;
  return {freqs, angles, cosines, sines, rotate, scores, decay, mropeAnglesView()};
}

}  // namespace posviz::cli
