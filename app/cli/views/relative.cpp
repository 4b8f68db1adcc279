// relative.cpp: relative-position schemes beyond the documents' four as exportable views: T5's
// relative buckets and a seeded bias table over them (core/relative_bias.hpp), xPos's scales
// (core/xpos.hpp), KERPLE's kernel biases (core/kerple.hpp) and FIRE's learned-function biases
// (core/fire.hpp).
#include <cmath>
#include <string>

#include "core/untrusted_text.hpp"
#include "app/cli/config_readings.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/views/view_support.hpp"
#include "core/fire.hpp"
#include "core/kerple.hpp"
#include "core/relative_bias.hpp"
#include "core/xpos.hpp"

namespace posviz::cli {

namespace {

namespace table = params;

// [SECTION] t5-buckets

void t5Defaults(Request& r) {
  r.positions = static_cast<int>(table::relative::kPositions.defaultInt());
  r.numBuckets = static_cast<int>(table::t5::kNumBuckets.defaultInt());
  r.maxDistance = static_cast<int>(table::t5::kMaxDistance.defaultInt());
}

T5BucketParams t5Params(const Request& r) { return {r.numBuckets, r.maxDistance, !r.causal}; }

// Checked here, not in core, so the message names the flag and its range.
void t5BucketsParse(Request& r, const ParsedOptions& o) {
  const Param& buckets = table::t5::kNumBuckets;
  const Param& distance = table::t5::kMaxDistance;
  readParam(o, buckets, r.numBuckets);  // an odd bidirectional count is split as HF splits it (num_buckets // 2)
  // The exact range: T5 gives distances below it a bucket each; max_distance must lie above it.
  const int exact = (r.causal ? r.numBuckets : r.numBuckets / 2) / 2;
  const std::string distanceFlag(distance.flag);
  if (auto d = o.value(distanceFlag)) {
    r.maxDistance = static_cast<int>(parseIntOption(distanceFlag, *d, exact + 1, static_cast<long long>(distance.max)));
  } else if (r.maxDistance <= exact) {
    throw UsageError(distanceFlag + ": the default " + std::to_string(distance.defaultInt()) + " is within the exact range " +
                     std::to_string(exact) + " of --num-buckets " + std::to_string(r.numBuckets) + "; give " + distanceFlag +
                     " in [" + std::to_string(exact + 1) + ", " + std::to_string(static_cast<long long>(distance.max)) + "]");
  }
}

void t5Parse(Request& r, const ParsedOptions& o) {
  if (o.has("--dtype")) throw UsageError("--dtype: t5-buckets writes bucket ids as int32 (exact); --dtype does not apply");
  t5BucketsParse(r, o);
}

std::uint64_t t5Elements(const Request& r) {
  const auto n = static_cast<std::uint64_t>(r.positions);
  return checkedProduct({n, n});
}

Dataset computeT5Buckets(const Request& r, const ExportProgress& progress) {
  Dataset d;
  const T5BucketParams p = t5Params(r);
  d.grid = t5BucketGrid(p, r.positions);
  d.shape = {r.positions, r.positions};
  d.int32Values = true;
  d.document["params"] = {{"num_buckets", p.numBuckets}, {"max_distance", p.maxDistance},
                          {"bidirectional", p.bidirectional}, {"positions", r.positions}};
  d.rowTitle = "query position i";
  d.colTitle = "key position j";
  d.valueName = "bucket";
  d.csvComments = {"t5 relative buckets of relative_position = j - i (HF T5Attention._relative_position_bucket): rows = "
                   "query i, cols = key j, " + std::string(p.bidirectional ? "bidirectional" : "causal")};
  progress(1.0);
  return d;
}

// --config / --preset: a T5 model's buckets, max distance and heads.
void t5Model(Request& r, const ModelConfig& m, const std::string& source) {
  const auto reading = readT5Config(m);
  if (!reading) modelMismatch(r, m, source, "a T5-bucket model");
  r.numBuckets = reading->numBuckets.value_or(r.numBuckets);
  r.maxDistance = reading->maxDistance.value_or(r.maxDistance);
  r.heads = reading->heads.value_or(r.heads);
}

// [SECTION] t5-bias-table, t5-bias: a seeded table of one scalar per (bucket, head), as T5 learns it

void t5TableDefaults(Request& r) {
  t5Defaults(r);
  r.heads = static_cast<int>(table::t5::kHeads.defaultInt());
}

void t5TableParse(Request& r, const ParsedOptions& o) { readParam(o, table::t5::kNumBuckets, r.numBuckets); }

// --head counts from 1, as the tab and alibi-bias do; checked against --heads.
void t5BiasParse(Request& r, const ParsedOptions& o) {
  t5BucketsParse(r, o);
  const Param& head = table::t5::kHead;
  r.head = static_cast<int>(head.defaultInt()) - 1;
  if (auto h = o.value(std::string(head.flag))) r.head = static_cast<int>(parseIntOption(std::string(head.flag), *h, 1, r.heads)) - 1;
}

std::uint64_t t5TableElements(const Request& r) {
  return checkedProduct({static_cast<std::uint64_t>(r.numBuckets), static_cast<std::uint64_t>(r.heads)});
}

Dataset computeT5BiasTable(const Request& r, const ExportProgress& progress) {
  Dataset d;
  d.grid = t5BiasTable(r.numBuckets, r.heads, r.seed);
  d.shape = {d.grid.rows, d.grid.cols};
  d.document["params"] = {{"num_buckets", r.numBuckets}, {"heads", r.heads}, {"seed", r.seed}};
  d.rowTitle = "bucket";
  d.colTitle = "head (from 0)";
  d.valueName = "bias";
  d.csvComments = {"t5 bias table, seeded N(0, 1) in place of trained weights: rows = bucket, cols = head (from 0)"};
  progress(1.0);
  return d;
}

Dataset computeT5Bias(const Request& r, const ExportProgress& progress) {
  Dataset d;
  const T5BucketParams p = t5Params(r);
  const int head = r.head.value_or(0);
  d.grid = t5BiasGrid(p, t5BiasTable(r.numBuckets, r.heads, r.seed), head, r.positions);
  d.shape = {r.positions, r.positions};
  d.document["params"] = {{"num_buckets", p.numBuckets}, {"max_distance", p.maxDistance}, {"bidirectional", p.bidirectional},
                          {"heads", r.heads}, {"head", head + 1}, {"seed", r.seed}, {"positions", r.positions}};
  d.rowTitle = "query position i";
  d.colTitle = "key position j";
  d.valueName = "bias";
  d.csvComments = {"t5 bias of head " + std::to_string(head + 1) + " (numbered from 1): table[bucket(j - i)][head], seeded "
                   "table: rows = query i, cols = key j"};
  progress(1.0);
  return d;
}

// [SECTION] xpos-scale

void xposDefaults(Request& r) {
  r.positions = static_cast<int>(table::xpos::kPositions.defaultInt());
  r.rope.headDim = static_cast<int>(table::rope::kHeadDim.defaultInt());
  r.scaleBase = table::xpos::kScaleBase.def;
}

void xposParse(Request& r, const ParsedOptions& o) {
  readParam(o, table::rope::kHeadDim, r.rope.headDim);
  readParam(o, table::xpos::kScaleBase, r.scaleBase);
  readParam(o, table::xpos::kSide, r.xposSide);
  if (o.has("--torchscale-positions")) {
    if (o.has("--position")) throw UsageError("--torchscale-positions: numbers the rows itself; give it or --position, not both");
    r.firstPos = xposTorchscaleFirstPosition(r.positions);
  }
}

XposParams xposParams(const Request& r) {
  XposParams p;
  p.headDim = r.rope.headDim;
  p.scaleBase = r.scaleBase;
  return p;
}

std::uint64_t xposElements(const Request& r) {
  return checkedProduct({static_cast<std::uint64_t>(r.positions), static_cast<std::uint64_t>(r.rope.headDim / 2)});
}

Dataset computeXposScale(const Request& r, const ExportProgress& progress) {
  Dataset d;
  const XposParams p = xposParams(r);
  d.grid = xposScaleGrid(p, r.xposSide, r.positions, r.firstPos);
  const bool key = r.xposSide == XposSide::Key;
  d.shape = {d.grid.rows, d.grid.cols};
  if (wantsDouble(r)) {
    d.exact.resize(d.grid.values.size());
    for (int n = 0; n < d.grid.rows; ++n) {
      for (int i = 0; i < d.grid.cols; ++i) {
        d.exact[static_cast<std::size_t>(n) * static_cast<std::size_t>(d.grid.cols) + static_cast<std::size_t>(i)] =
            key ? xposKeyScale(p, i, static_cast<double>(r.firstPos + n)) : xposQueryScale(p, i, static_cast<double>(r.firstPos + n));
      }
    }
  }
  d.document["params"] = {{"head_dim", p.headDim}, {"scale_base", p.scaleBase}, {"positions", r.positions},
                          {"first_position", r.firstPos}, {"side", xposSideName(r.xposSide)}};
  d.rowTitle = "position n";
  d.colTitle = "pair i";
  d.valueName = key ? "zeta_i^(-n/scale_base)" : "zeta_i^(n/scale_base)";
  d.csvComments = {std::string("xpos ") + (key ? "key scales zeta_i^(-n/scale_base)" : "query scales zeta_i^(n/scale_base)") +
                   ", zeta_i = (2i/d + 0.4)/1.4: rows = positions n from " + std::to_string(r.firstPos) + ", cols = pairs i"};
  progress(1.0);
  return d;
}

// [SECTION] kerple-bias, fire-bias

void kerpleDefaults(Request& r) {
  r.positions = static_cast<int>(table::relative::kPositions.defaultInt());
  r.kerplePower = table::kerple::kKernel.defaultInt() == 1;
  r.kerpleR1 = table::kerple::kR1.def;
  r.kerpleR2 = table::kerple::kR2.def;
}

void fireDefaults(Request& r) {
  r.positions = static_cast<int>(table::relative::kPositions.defaultInt());
  r.fireC = table::fire::kC.def;
  r.fireThreshold = table::fire::kThreshold.def;
  r.fireHidden = static_cast<int>(table::fire::kHidden.defaultInt());
}

std::uint64_t squareElements(const Request& r) {
  const auto n = static_cast<std::uint64_t>(r.positions);
  return checkedProduct({n, n});
}

void kerpleParse(Request& r, const ParsedOptions& o) {
  if (int kernel = 0; readParam(o, table::kerple::kKernel, kernel)) r.kerplePower = kernel == 1;
  readParam(o, table::kerple::kR1, r.kerpleR1);
  const Param& r2 = table::kerple::kR2;
  const double r2Max = r.kerplePower ? 2.0 : r2.max;
  if (auto v = o.value(std::string(r2.flag))) {
    try {
      r.kerpleR2 = parseRealOption(std::string(r2.flag), *v, RealRange{r2.min, r2Max, r2.minExclusive, false});
    } catch (const UsageError&) {
      throw UsageError("--r2: got " + quotedText(*v) + ", expected a number in (0, " + (r.kerplePower ? "2" : "1e6") + "]" +
                       (r.kerplePower ? " for --kernel power (the kernel is conditionally positive definite only there)" : ""));
    }
  }
}

KerpleParams kerpleParams(const Request& r) {
  return {r.kerplePower ? KerpleKernel::Power : KerpleKernel::Log, r.kerpleR1, r.kerpleR2};
}

Dataset squareBias(Grid g, const Request& r, bool masked) {
  Dataset d;
  d.grid = std::move(g);
  d.shape = {r.positions, r.positions};
  d.rowTitle = "query position i";
  d.colTitle = "key position j";
  d.valueName = "bias";
  d.allowNegativeInfinity = masked;
  return d;
}

Dataset computeKerpleBias(const Request& r, const ExportProgress& progress) {
  const KerpleParams p = kerpleParams(r);
  Dataset d = squareBias(kerpleBiasGrid(p, r.positions, r.causal), r, r.causal);
  d.document["params"] = {{"kernel", kerpleKernelName(p.kernel)}, {"r1", p.r1}, {"r2", p.r2}, {"positions", r.positions},
                          {"causal", r.causal}};
  d.csvComments = {std::string("kerple bias, ") + (r.kerplePower ? "-r1*|i-j|^r2" : "-r1*log(1 + r2*|i-j|)") +
                   ": rows = query i, cols = key j" + (r.causal ? "; masked entries -inf" : "")};
  progress(1.0);
  return d;
}

void fireParse(Request& r, const ParsedOptions& o) {
  readParam(o, table::fire::kC, r.fireC);
  readParam(o, table::fire::kThreshold, r.fireThreshold);
  readParam(o, table::fire::kHidden, r.fireHidden);
}

Dataset computeFireBias(const Request& r, const ExportProgress& progress) {
  const FireParams p{r.fireC, r.fireThreshold};
  const FireMlp f = fireSeededMlp(r.fireHidden, r.seed);
  Dataset d = squareBias(fireBiasGrid(p, f, r.positions), r, true);
  d.document["params"] = {{"c", p.c}, {"threshold", p.threshold}, {"hidden", r.fireHidden}, {"seed", r.seed},
                          {"positions", r.positions}};
  d.document["mlp"] = {{"w1", f.w1}, {"b1", f.b1}, {"w2", f.w2}, {"b2", f.b2}};
  d.csvComments = {"fire bias f(log(c(i-j) + 1) / log(c max(L, i) + 1)), seeded MLP: rows = query i, cols = key j; masked "
                   "entries (j > i) -inf"};
  progress(1.0);
  return d;
}

}  // namespace

namespace {

// t5-buckets, t5-bias-table, t5-bias: T5's buckets and their per-head bias.
std::vector<ViewDef> t5Views() {
  ViewDef t5;
  t5.name = "t5-buckets";
  t5.aliases = {"t5-bucket"};
  t5.tab = "relative";
  t5.summary = "T5 relative position buckets of j - i (HF T5Attention._relative_position_bucket), query i x key j; "
               "--causal: decoder buckets (only the past counts, later keys share bucket 0)";
  t5.layout = ".npy: (positions, positions) int32 bucket ids, row = query i, col = key j, numpy indexes a bias "
              "table with it (table[b] is (positions, positions, heads)); .csv: the same matrix; .json: shape, params, "
              "values; .png/.svg: the grid";
  t5.png = true;
  t5.options = {"--positions", "--num-buckets", "--max-distance", "--causal", "--config", "--preset"};
  t5.params = {&table::relative::kPositions, &table::t5::kNumBuckets, &table::t5::kMaxDistance, &table::t5::kCausal};
  t5.setDefaults = t5Defaults;
  t5.parse = t5Parse;
  t5.elements = t5Elements;
  t5.compute = computeT5Buckets;
  t5.applyModel = t5Model;

  ViewDef t5Table;
  t5Table.name = "t5-bias-table";
  t5Table.tab = "relative";
  t5Table.summary = "a seeded T5 relative bias table, one scalar per (bucket, head), N(0, 1) in place of trained weights";
  t5Table.layout = ".npy: (num_buckets, heads), row = bucket, col = head (from 0); .csv: the same matrix; .json: shape, "
                   "params, values; .png/.svg: the grid";
  t5Table.png = true;
  t5Table.options = {"--num-buckets", "--heads", "--seed", "--config", "--preset"};
  t5Table.params = {&table::t5::kNumBuckets, &table::t5::kHeads};
  t5Table.setDefaults = t5TableDefaults;
  t5Table.parse = t5TableParse;
  t5Table.elements = t5TableElements;
  t5Table.compute = computeT5BiasTable;
  t5Table.applyModel = t5Model;

  ViewDef t5Bias;
  t5Bias.name = "t5-bias";
  t5Bias.tab = "relative";
  t5Bias.summary = "one head's T5 relative bias table[bucket(j - i)][head] from a seeded table (t5-bias-table), query i x "
                   "key j; --causal: decoder buckets";
  t5Bias.layout = ".npy: (positions, positions), row = query i, col = key j; .csv: the same matrix; .json: shape, params, "
                  "values; .png/.svg: the grid";
  t5Bias.png = true;
  t5Bias.options = {"--positions", "--num-buckets", "--max-distance", "--causal", "--heads", "--head", "--seed", "--config", "--preset"};
  t5Bias.params = {&table::relative::kPositions, &table::t5::kNumBuckets, &table::t5::kMaxDistance, &table::t5::kCausal,
                   &table::t5::kHeads, &table::t5::kHead};
  t5Bias.setDefaults = t5TableDefaults;
  t5Bias.parse = t5BiasParse;
  t5Bias.elements = t5Elements;
  t5Bias.compute = computeT5Bias;
  t5Bias.applyModel = t5Model;

  return {t5, t5Table, t5Bias};
}

}  // namespace

std::vector<ViewDef> relativeViews() {
  ViewDef xpos;
  xpos.name = "xpos-scale";
  xpos.aliases = {"xpos"};
  xpos.tab = "relative";
  xpos.summary = "xPos scales zeta_i^(n/scale_base) on the query side, zeta_i^(-n/scale_base) on the key side (--side), "
                 "zeta_i = (2i/d + 0.4)/1.4 (Sun et al. 2022); --torchscale-positions numbers n as torchscale's XPOS does";
  xpos.layout = ".npy: (positions, head_dim/2), row = position n (from --position, default 0, or torchscale's "
                "-(positions) // 2), col = pair i; .csv: the same matrix; .json: shape, params, values; .png/.svg: the grid";
  xpos.png = true;
  xpos.exactDouble = true;
  xpos.options = {"--head-dim", "--positions", "--position", "--scale-base", "--side", "--torchscale-positions"};
  xpos.params = {&table::rope::kHeadDim, &table::xpos::kPositions, &table::xpos::kScaleBase, &table::xpos::kSide,
                 &table::xpos::kTorchscalePositions};
  xpos.setDefaults = xposDefaults;
  xpos.parse = xposParse;
  xpos.elements = xposElements;
  xpos.compute = computeXposScale;

  ViewDef kerple;
  kerple.name = "kerple-bias";
  kerple.aliases = {"kerple"};
  kerple.tab = "relative";
  kerple.summary = "KERPLE bias (Chi et al. 2022): log -r1*log(1 + r2*|i-j|) or power -r1*|i-j|^r2, j > i masked "
                   "(--causal)";
  kerple.layout = ".npy: (positions, positions), row = query i, col = key j, masked entries -inf; .csv: the same matrix; "
                  ".json: shape, params, values (masked entries null); .png/.svg: the grid";
  kerple.png = true;
  kerple.options = {"--positions", "--kernel", "--r1", "--r2", "--causal"};
  kerple.params = {&table::relative::kPositions, &table::kerple::kKernel, &table::kerple::kR1, &table::kerple::kR2,
                   &table::alibi::kCausal};
  kerple.setDefaults = kerpleDefaults;
  kerple.parse = kerpleParse;
  kerple.elements = squareElements;
  kerple.compute = computeKerpleBias;

  ViewDef fire;
  fire.name = "fire-bias";
  fire.aliases = {"fire"};
  fire.tab = "relative";
  fire.summary = "FIRE bias (Li et al. 2023): f(psi(i-j) / psi(max(L, i))), psi(x) = log(c*x + 1), f a seeded MLP; "
                 "causal";
  fire.layout = ".npy: (positions, positions), row = query i, col = key j, j > i masked -inf; .csv: the same matrix; "
                ".json: shape, params, the MLP's weights (w1, b1, w2, b2), values (masked entries null); .png/.svg: the grid";
  fire.png = true;
  fire.options = {"--positions", "--fire-c", "--fire-threshold", "--fire-hidden", "--seed"};
  fire.params = {&table::relative::kPositions, &table::fire::kC, &table::fire::kThreshold, &table::fire::kHidden};
  fire.setDefaults = fireDefaults;
  fire.parse = fireParse;
  fire.elements = squareElements;
  fire.compute = computeFireBias;
  std::vector<ViewDef> views = t5Views();
  views.insert(views.end(), {xpos, kerple, fire});
  return views;
}

}  // namespace posviz::cli
