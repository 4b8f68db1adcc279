// alibi.cpp: ALiBi's head slopes and bias grids (Press et al. 2022) as exportable views.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <utility>

#include "app/cli/config_readings.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/views/view_support.hpp"
#include "core/alibi.hpp"

namespace posviz::cli {

namespace {

using nlohmann::json;

void alibiModel(Request& r, const ModelConfig& m, const std::string& source) {
  const auto reading = readAlibiConfig(m);
  if (!reading) modelMismatch(r, m, source, "an ALiBi model");
  r.heads = reading->heads.value_or(0);  // 0: refused below as a head count out of range
}

namespace table = params::alibi;

void alibiSlopesDefaults(Request& r) { r.heads = static_cast<int>(table::kHeads.defaultInt()); }

void alibiBiasDefaults(Request& r) {
  alibiSlopesDefaults(r);
  r.positions = static_cast<int>(table::kPositions.defaultInt());
}

// --head counts from 1 as the paper and the window do; the request keeps the 0-based index.
// Neither --head nor --slope has a default (without them: every head), so --help keeps their
// own lines; their values are checked here as the table says (--head also against --heads).
void alibiBiasParse(Request& r, const ParsedOptions& o) {
  readParam(o, table::kPixel, r.pixel);
  if (auto h = o.value("--head")) r.head = static_cast<int>(parseIntOption(std::string(table::kHead.flag), *h, 1, r.heads)) - 1;
  if (o.has("--slope")) {
    for (const char* other : {"--heads", "--head", "--config", "--preset"}) {
      if (o.has(other)) throw UsageError(std::string("--slope: given together with ") + other + "; --slope is one head by itself");
    }
    double slope = 0.0;
    readParam(o, table::kSlope, slope);
    r.slope = slope;
  }
}

std::uint64_t alibiSlopesElements(const Request& r) { return checkedProduct({static_cast<std::uint64_t>(r.heads), 2}); }

std::uint64_t alibiBiasElements(const Request& r) {
  const auto n = static_cast<std::uint64_t>(r.positions);
  return checkedProduct({r.head || r.slope ? 1 : static_cast<std::uint64_t>(r.heads), n, n});
}

Dataset computeAlibiSlopes(const Request& r, const ExportProgress& progress) {
  Dataset d;
  const std::vector<double> slopes = alibiSlopes(r.heads);
  d.shape = {static_cast<std::int64_t>(slopes.size())};
  d.exact = slopes;
  d.grid = Grid(1, static_cast<int>(slopes.size()));
  for (std::size_t i = 0; i < slopes.size(); ++i) d.grid.values[i] = static_cast<float>(slopes[i]);
  d.document = {{"slopes", slopes}, {"heads", r.heads}};
  if (r.model) d.document["model"] = r.model->name;
  d.jsonComplete = true;
  d.columnNames = {"head", "slope"};
  std::vector<double> head(slopes.size());
  for (std::size_t i = 0; i < slopes.size(); ++i) head[i] = static_cast<double>(i + 1);   // heads from 1
  d.columns = {head, slopes};  // exact slopes in either dtype, as the table always was
  progress(1.0);
  return d;
}

// The slopes a bias export shows: --slope's one, --head's one, or every head's.
std::vector<double> shownSlopes(const Request& r) {
  if (r.slope) return {*r.slope};
  const std::vector<double> all = alibiSlopes(r.heads);
  if (r.head) return {all[static_cast<std::size_t>(*r.head)]};
  return all;
}

// Parameters, titles, the .csv comment and the 3-D shape: the whole grid and its --size picture
// alike (rows and cols are the per-head grid's).
void describeAlibiBias(Dataset& d, const Request& r, long long rows, long long cols) {
  const bool one = r.head || r.slope;
  const int n = r.positions;
  if (r.slope) {
    d.document["params"] = {{"slope", *r.slope}, {"positions", n}, {"causal", r.causal}};
  } else {
    d.document["params"] = {{"heads", r.heads}, {"positions", n}, {"causal", r.causal}};
    if (r.head) d.document["params"]["head"] = *r.head + 1;   // numbered from 1
    d.document["slopes"] = alibiSlopes(r.heads);
  }
  d.rowTitle = one ? "query position i" : "head * rows + query position i";
  d.colTitle = "key position j";
  d.valueName = "bias";
  const std::string masked = r.causal ? "; masked entries -inf" : "";
  d.csvComments = {"alibi bias: rows = (head - 1) * " + std::to_string(rows) + " + query position i, cols = key position j, "
                   "heads numbered from 1" + masked};
  if (r.head) d.csvComments = {"alibi bias of head " + std::to_string(*r.head + 1) + " (numbered from 1): rows = query i, cols = key j" + masked};
  if (r.slope) d.csvComments = {"alibi bias with slope " + formatNumber(*r.slope) + ": rows = query i, cols = key j" + masked};
  d.allowNegativeInfinity = r.causal;
  d.shape = {rows, cols};
  if (!one) d.shape.insert(d.shape.begin(), r.heads);
}

Dataset computeAlibiBias(const Request& r, const ExportProgress& progress) {
  Dataset d;
  const int n = r.positions;
  const std::size_t cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const std::vector<double> slopes = shownSlopes(r);
  const int count = static_cast<int>(slopes.size());
  requireBudget("posviz export alibi-bias", checkedProduct({static_cast<std::uint64_t>(count), cells}), 4, "ALiBi bias volume");
  d.grid.rows = count * n;  // int: count * n * n fits the budget check above, rows fit too
  d.grid.cols = n;
  d.grid.values.resize(static_cast<std::size_t>(count) * cells);
  for (int h = 0; h < count; ++h) {
    alibiBiasGridInto(slopes[static_cast<std::size_t>(h)], n, r.causal, d.grid.values.data() + static_cast<std::size_t>(h) * cells);
    progress(static_cast<double>(h + 1) / count);
  }
  describeAlibiBias(d, r, n, n);
  return d;
}

std::uint64_t alibiAveragedElements(const Request& r, int width, int height) {
  const std::uint64_t picture = requireFits(r, {r.positions, r.positions}, {width, height}, r.positions);
  return checkedProduct({static_cast<std::uint64_t>(r.head || r.slope ? 1 : r.heads), picture});
}

Dataset alibiAveraged(const Request& r, int width, int height, const ExportProgress& progress) {
  const GridShape g{r.positions, r.positions};
  const std::vector<double> slopes = shownSlopes(r);
  const int count = static_cast<int>(slopes.size());
  const GridWindow w = wholeWindow(0, 0, g, {width, height});
  const double steepest = *std::max_element(slopes.begin(), slopes.end());
  const double bound = steepest * static_cast<double>(r.positions - 1);   // |bias| at the farthest cell
  // Every head's picture of one stat, stacked; auto decides on all of them at once.
  ChosenPicture chosen = chosenExportPicture(r, w, bound, [&](PixelStat stat) {
    ExactPicture all{count * height, width, {}};
    all.values.reserve(static_cast<std::size_t>(count) * static_cast<std::size_t>(height) * static_cast<std::size_t>(width));
    for (int h = 0; h < count; ++h) {
      const ExactPicture one = alibiStatPicture(slopes[static_cast<std::size_t>(h)], r.causal, w, stat);
      // A block whose every cell is masked is masked (-inf), as the grid's own masked cells.
      for (double v : one.values) all.values.push_back(std::isnan(v) ? -std::numeric_limits<double>::infinity() : v);
      progress(static_cast<double>(h + 1) / count);
    }
    return all;
  });
  Dataset d;
  const PixelStat stat = chosen.stat;
  setPicture(d, r, std::move(chosen.picture));
  describeAlibiBias(d, r, height, width);
  const std::vector<std::int64_t> shape = d.shape;   // per head: (heads, H, W) or (H, W)
  describeAveraged(d, r, g, {width, height}, 0, 0, stat);
  // The bias is <= 0; its RMS is a size, >= 0: each on its own side of 0.
  const auto b = static_cast<float>(bound);
  describePixel(d, r, chosen, stat == PixelStat::Rms ? ValueRange{0.0f, b} : ValueRange{-b, 0.0f});
  d.shape = shape;
  if (count > 1) d.rowLast = std::to_string(static_cast<long long>(count) * g.rows - 1);   // heads stacked
  if (r.causal) d.csvComments.push_back("masked cells are left out of each block; a block with every cell masked is -inf");
  return d;
}

}  // namespace

std::vector<ViewDef> alibiViews() {
  ViewDef slopes;
  slopes.name = "alibi-slopes";
  slopes.tab = "alibi";
  slopes.summary = "ALiBi head slopes (Press et al. 2022)";
  slopes.layout = ".npy: (heads,); .csv: head,slope with heads numbered from 1; .json: slopes, heads";
  slopes.exactDouble = true;
  slopes.buildsDocument = true;
  slopes.options = {"--heads", "--config", "--preset"};
  slopes.params = {&table::kHeads};
  slopes.setDefaults = alibiSlopesDefaults;
  slopes.applyModel = alibiModel;
  slopes.elements = alibiSlopesElements;
  slopes.compute = computeAlibiSlopes;

  ViewDef bias;
  bias.name = "alibi-bias";
  bias.tab = "alibi";
  bias.summary = "ALiBi bias per head, -m*|i-j| (symmetric) or -m*(i-j) with j > i masked (--causal)";
  bias.layout = ".npy: (heads, positions, positions), masked entries -inf; with --head H: (positions, positions); .csv: "
                "rows (head-1)*positions + i, cols j; .json: shape, params, values (masked entries null); .png: heads stacked "
                "vertically; with --head H (from 1) or --slope M one (positions, positions) grid";
  bias.png = true;
  bias.options = {"--heads", "--head", "--slope", "--positions", "--causal", "--pixel", "--config", "--preset"};
  bias.params = {&table::kHeads, &table::kPositions, &table::kCausal, &table::kPixel};
  bias.setDefaults = alibiBiasDefaults;
  bias.applyModel = alibiModel;
  bias.parse = alibiBiasParse;
  bias.elements = alibiBiasElements;
  bias.compute = computeAlibiBias;
  bias.computeAveraged = alibiAveraged;
  bias.averagedElements = alibiAveragedElements;
  return {slopes, bias};
}

}  // namespace posviz::cli
