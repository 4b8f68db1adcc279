// sinusoidal.cpp: the sinusoidal PE matrix (Vaswani et al. 2017) as an exportable view.
#include <algorithm>
#include <cmath>
#include <span>

#include "app/cli/config_readings.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/views/view_support.hpp"
#include "core/pixel_stats.hpp"

namespace posviz::cli {

namespace {

using nlohmann::json;

namespace table = params::sinusoidal;

void sinusoidalDefaults(Request& r) {
  r.dModel = static_cast<int>(table::kDModel.defaultInt());
  r.positions = static_cast<int>(table::kPositions.defaultInt());
  r.sin.layout = static_cast<SinusoidalLayout>(table::kLayout.defaultInt());
}

// Any model's width (config_readings.hpp); the grid's length stays --positions.
void sinusoidalModel(Request& r, const ModelConfig& m, const std::string&) {
  const auto reading = readSinusoidalConfig(m);
  if (reading && reading->dModel) r.dModel = *reading->dModel;
  if (reading && reading->layout) r.sin.layout = *reading->layout;
}

void sinusoidalParse(Request& r, const ParsedOptions& o) {
  readParam(o, table::kLayout, r.sin.layout);
  readParam(o, table::kPixel, r.pixel);
  r.sin.dModel = r.dModel;
}

std::uint64_t sinusoidalElements(const Request& r) {
  return checkedProduct({static_cast<std::uint64_t>(r.positions), static_cast<std::uint64_t>(r.dModel)});
}

// Parameters, titles and the .csv comment: the whole grid and its --size picture alike.
void describeSinusoidal(Dataset& d, const Request& r) {
  const SinusoidalParams& p = r.sin;
  d.document["params"] = {{"d_model", p.dModel}, {"base", p.base},
                          {"layout", std::string(table::kLayout.choiceName(static_cast<int>(p.layout)))},
                          {"positions", r.positions}, {"first_position", r.firstPos}};
  d.rowTitle = "position";
  d.colTitle = "dimension";
  d.valueName = "PE";
  d.csvComments = {"sinusoidal PE: rows = positions " + std::to_string(r.firstPos) + ".., cols = dims 0.." + std::to_string(p.dModel - 1)};
  labelAxes(d, r.firstPos, r.positions, 0, p.dModel);
}

Dataset computeSinusoidal(const Request& r, const ExportProgress& progress) {
  Dataset d;
  const bool wantDouble = wantsDouble(r);
  const SinusoidalParams& p = r.sin;
  validateSinusoidal("posviz export sinusoidal", p);
  d.shape = {r.positions, p.dModel};
  const std::size_t cols = static_cast<std::size_t>(p.dModel);
  if (wantDouble) {
    d.exact.resize(static_cast<std::size_t>(r.positions) * cols);
    for (int row = 0; row < r.positions; ++row) {
      const std::vector<double> vec = sinusoidalVector(p, static_cast<double>(r.firstPos + row));
      std::copy(vec.begin(), vec.end(), d.exact.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(row) * cols));
      if (row % 1024 == 0) progress(static_cast<double>(row) / r.positions);
    }
  } else {
    d.grid = Grid(r.positions, p.dModel);
    const int chunk = 4096;
    for (int row = 0; row < r.positions; row += chunk) {
      const int count = std::min(chunk, r.positions - row);
      sinusoidalGridInto(p, count, r.firstPos + row, d.grid.row(row));
      progress(static_cast<double>(row + count) / r.positions);
    }
  }
  describeSinusoidal(d, r);
  return d;
}

std::uint64_t sinusoidalAveragedElements(const Request& r, int width, int height) {
  return requireFits(r, {r.positions, r.sin.dModel}, {width, height}, r.firstPos + r.positions);
}

Dataset sinusoidalAveraged(const Request& r, int width, int height, const ExportProgress& progress) {
  const GridShape g{r.positions, r.sin.dModel};
  Dataset d;
  const GridWindow w = wholeWindow(r.firstPos, 0, g, {width, height});
  ChosenPicture chosen = chosenExportPicture(r, w, 1.0, [&](PixelStat stat) { return sinusoidalStatPicture(r.sin, w, stat); });
  const PixelStat stat = chosen.stat;
  setPicture(d, r, std::move(chosen.picture));
  describeSinusoidal(d, r);
  describeAveraged(d, r, g, {width, height}, r.firstPos, 0, stat);
  describePixel(d, r, chosen, {-1.0f, 1.0f});
  progress(1.0);
  return d;
}

// PE(a).PE(b) = sum_i cos((a - b) theta_i): a function of a - b alone, the paper's relative claim.
void similarityDefaults(Request& r) {
  sinusoidalDefaults(r);
  r.positions = static_cast<int>(table::kSimilarityPositions.defaultInt());
}

std::uint64_t similarityElements(const Request& r) {
  return checkedProduct({static_cast<std::uint64_t>(r.positions), static_cast<std::uint64_t>(r.positions)});
}

Dataset computeSimilarity(const Request& r, const ExportProgress& progress) {
  Dataset d;
  validateSinusoidal("posviz export sinusoidal-similarity", r.sin);
  d.grid = sinusoidalSimilarityGrid(r.sin, r.positions);
  d.shape = {r.positions, r.positions};
  d.document["params"] = {{"d_model", r.sin.dModel}, {"base", r.sin.base},
                          {"layout", std::string(table::kLayout.choiceName(static_cast<int>(r.sin.layout)))},
                          {"positions", r.positions}};
  d.rowTitle = "position a";
  d.colTitle = "position b";
  d.valueName = "PE(a).PE(b)";
  d.csvComments = {"sinusoidal similarity PE(a).PE(b): rows = a, cols = b, 0.." + std::to_string(r.positions - 1)};
  labelAxes(d, 0, r.positions, 0, r.positions);
  progress(1.0);
  return d;
}

}  // namespace

std::vector<ViewDef> sinusoidalViews() {
  ViewDef v;
  v.name = "sinusoidal";
  v.tab = "sinusoidal";
  v.summary = "sinusoidal PE matrix (Vaswani et al. 2017)";
  v.layout = ".npy/.csv: (positions, d_model), row = position, col = dim; .json: shape, params, values; .png: heatmap";
  v.png = true;
  v.exactDouble = true;
  v.options = {"--d-model", "--base", "--positions", "--position", "--layout", "--pixel", "--config", "--preset"};
  v.params = {&table::kDModel, &table::kBase, &table::kPositions, &table::kLayout, &table::kPixel};
  v.setDefaults = sinusoidalDefaults;
  v.applyModel = sinusoidalModel;
  v.parse = sinusoidalParse;
  v.elements = sinusoidalElements;
  v.compute = computeSinusoidal;
  v.computeAveraged = sinusoidalAveraged;
  v.averagedElements = sinusoidalAveragedElements;

  ViewDef sim;
  sim.name = "sinusoidal-similarity";
  sim.tab = "sinusoidal";
  sim.summary = "dot products PE(a).PE(b) of sinusoidal encodings: a function of a - b alone";
  sim.layout = ".npy/.csv: (positions, positions), row = a, col = b; .json: shape, params, values; .png: heatmap";
  sim.png = true;
  sim.options = {"--d-model", "--base", "--positions", "--layout", "--config", "--preset"};
  sim.params = {&table::kDModel, &table::kBase, &table::kSimilarityPositions, &table::kLayout};
  sim.setDefaults = similarityDefaults;
  sim.applyModel = sinusoidalModel;
  sim.parse = sinusoidalParse;
  sim.elements = similarityElements;
  sim.compute = computeSimilarity;
  return {v, sim};
}

}  // namespace posviz::cli
