// learned.cpp: a learned absolute position table (seeded GPT-2 style init, or a loaded .npy).
#include <algorithm>
#include <cmath>
#include <span>

#include "app/cli/config_readings.hpp"
#include "app/cli/learned_source.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/views/view_support.hpp"
#include "core/learned.hpp"
#include "core/pixel_stats.hpp"

namespace posviz::cli {

namespace {

using nlohmann::json;

namespace table = params::learned;

void learnedDefaults(Request& r) {
  r.dModel = static_cast<int>(table::kDModel.defaultInt());
  r.maxLen = static_cast<int>(table::kMaxLen.defaultInt());
  r.learnedStd = table::kStd.def;
}

void learnedModel(Request& r, const ModelConfig& m, const std::string& source) {
  const auto reading = readLearnedConfig(m);
  if (!reading) modelMismatch(r, m, source, "a learned-position model");
  if (reading->dModel) r.dModel = *reading->dModel;
  if (reading->maxPositions) r.maxLen = static_cast<int>(std::min<long long>(*reading->maxPositions, kMaxInt));
}

void learnedParse(Request& r, const ParsedOptions& o) {
  if (auto t = o.value("--table")) {
    for (const char* conflicting : {"--d-model", "--seed", "--std", "--max-len", "--config", "--preset"}) {
      if (o.has(conflicting)) throw UsageError(std::string(conflicting) + ": does not apply with --table (the file sets the table)");
    }
    r.tablePath = *t;
  }
  readParam(o, table::kMaxLen, r.maxLen);
  readParam(o, table::kStd, r.learnedStd);
  readParam(o, table::kPixel, r.pixel);
  if (!r.positionsGiven && r.tablePath.empty()) {
    r.positions = static_cast<int>(std::max<long long>(1, r.maxLen - r.firstPos));  // the rest of the table
  }
}

std::uint64_t learnedElements(const Request& r) {
  if (!r.tablePath.empty()) return 0;  // the reader checks the file's size against the budget
  return checkedProduct({std::max<std::uint64_t>(static_cast<std::uint64_t>(r.positions), static_cast<std::uint64_t>(r.maxLen)),
                         static_cast<std::uint64_t>(r.dModel)});
}

Dataset computeLearned(const Request& r, const ExportProgress& progress) {
  Dataset d;
  Grid table;
  if (!r.tablePath.empty()) {
    try {
      table = loadLearnedSource(r.tablePath);  // a .npy, or a trained run's table
    } catch (const std::runtime_error& e) {    // NpyError, WeightsError, no learned table
      throw UsageError(std::string("--table: ") + e.what());
    } catch (const std::invalid_argument& e) {  // a table over the memory budget
      throw UsageError(std::string("--table: ") + e.what());
    }
  } else {
    table = learnedInit(r.maxLen, r.dModel, r.seed, r.learnedStd);
  }
  // A loaded table is exported whole (from --position) unless --positions asks for fewer rows.
  const long long available = std::max<long long>(0, table.rows - r.firstPos);
  const int rows = r.positionsGiven || r.tablePath.empty() ? r.positions : static_cast<int>(std::max<long long>(1, available));
  try {
    d.grid = learnedSlice(table, r.firstPos, rows);
  } catch (const std::out_of_range& e) {
    throw UsageError(std::string("--positions: ") + e.what());
  }
  d.shape = {d.grid.rows, d.grid.cols};
  d.document["params"] = {{"max_len", table.rows}, {"d_model", table.cols}, {"positions", d.grid.rows},
                          {"first_position", r.firstPos}};
  if (r.tablePath.empty()) {
    d.document["params"]["seed"] = r.seed;
    d.document["params"]["init_std"] = r.learnedStd;
  } else {
    d.document["params"]["table"] = r.tablePath;
  }
  d.rowTitle = "position";
  d.colTitle = "dimension";
  d.valueName = "P";
  d.csvComments = {"learned table: rows = positions, cols = dims"};
  labelAxes(d, r.firstPos, d.grid.rows, 0, d.grid.cols);
  progress(1.0);
  d.skipFiniteCheck = !r.tablePath.empty();
  return d;
}

std::uint64_t learnedAveragedElements(const Request& r, int width, int height) {
  if (!r.tablePath.empty()) return 0;  // the reader checks the file; the size is checked on load
  const std::uint64_t picture = requireFits(r, {r.positions, r.dModel}, {width, height}, 0);
  // The table is held whole to build its summed-area table (8 bytes a cell, counted as 2 floats).
  const auto table = checkedProduct({std::max<std::uint64_t>(static_cast<std::uint64_t>(r.positions),
                                                             static_cast<std::uint64_t>(r.maxLen)),
                                     static_cast<std::uint64_t>(r.dModel)});
  return 3 * table + picture;
}

// A table has no formula: its summed-area table gives every block's mean in O(1); --pixel's other
// stats visit each cell (core gridStatPicture).
Dataset learnedAveraged(const Request& r, int width, int height, const ExportProgress& progress) {
  Dataset d = computeLearned(r, [&](double f) { progress(0.5 * f); });
  const GridShape g{d.grid.rows, d.grid.cols};
  requireFits(r, g, {width, height}, 0);
  const GridWindow w = fullWindow(g.rows, g.cols, height, width);
  const ValueRange range = finiteRange(d.grid);
  const double bound = std::max(std::fabs(static_cast<double>(range.min)), std::fabs(static_cast<double>(range.max)));
  ChosenPicture chosen = chosenExportPicture(r, w, bound, [&](PixelStat stat) {
    return stat == PixelStat::Mean ? SummedAreaTable(d.grid).averagePicture(w) : gridStatPicture(d.grid, w, stat);
  });
  const PixelStat stat = chosen.stat;
  setPicture(d, r, std::move(chosen.picture));
  describeAveraged(d, r, g, {width, height}, r.firstPos, 0, stat);
  // A stat is coloured over the table's range, +-its largest |value| (the diverging map's 0 white).
  describePixel(d, r, chosen, {-static_cast<float>(bound), static_cast<float>(bound)});
  progress(1.0);
  return d;
}

}  // namespace

std::vector<ViewDef> learnedViews() {
  ViewDef v;
  v.name = "learned";
  v.tab = "learned";
  v.summary = "learned absolute table (seeded N(0, std^2) init, std 0.02 as GPT-2, or a loaded .npy)";
  v.layout = ".npy/.csv: (positions, d_model); .json: shape, params, values; .png: heatmap";
  v.png = true;
  v.options = {"--d-model", "--positions", "--position", "--max-len", "--seed", "--std", "--table", "--pixel", "--config", "--preset"};
  v.params = {&table::kDModel, &table::kMaxLen, &table::kStd, &table::kPixel};
  v.setDefaults = learnedDefaults;
  v.applyModel = learnedModel;
  v.parse = learnedParse;
  v.elements = learnedElements;
  v.compute = computeLearned;
  v.computeAveraged = learnedAveraged;
  v.averagedElements = learnedAveragedElements;
  return {v};
}

}  // namespace posviz::cli
