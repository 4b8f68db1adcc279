// axial.cpp: 2-D axial RoPE for image patches (core/axial_rope.hpp) and Llama 4's NoPE-layer
// attention temperature (core/attn_temperature.hpp) as exportable views.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/untrusted_text.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/views/view_support.hpp"
#include "core/attn_temperature.hpp"
#include "core/axial_rope.hpp"

namespace posviz::cli {

namespace {

namespace table = params::axial;
using params::axial::kMaxGridSide;

AxialRopeParams axialParams(const Request& r) { return {r.rope.headDim, r.rope.base, r.axialVariant}; }

// A Pixtral vision config: its head_dim, rope_theta and whole patch grid.
void axialModel(Request& r, const ModelConfig& m, const std::string& source) {
  if (m.rope2d != "pixtral") modelMismatch(r, m, source, "a vision tower with a 2-D RoPE (Pixtral)");
  r.rope.headDim = m.rope.headDim;
  r.rope.base = m.rope.base;
  r.axialVariant = AxialRopeVariant::Pixtral;
  r.gridRows = m.patchGrid;
  r.gridCols = m.patchGrid;
}

// core's AxialRopeParams: head_dim 64, rope-vit's theta 100.
void axialDefaults(Request& r) {
  r.rope.headDim = static_cast<int>(table::kHeadDim.defaultInt());
  r.rope.base = table::kBase.def;
}

// --grid RxC, --head-dim (a multiple of 4), --q/--k of head_dim values.
void axialParse(Request& r, const ParsedOptions& o) {
  if (auto g = o.value("--grid")) {
    const std::size_t x = g->find_first_of("xX");
    auto side = [&](const std::string& t, const char* what) {
      const bool digits = !t.empty() && t.size() <= 5 && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits || std::stoi(t) < 1 || std::stoi(t) > kMaxGridSide)
        throw UsageError("--grid: " + std::string(what) + " must be 1.." + std::to_string(kMaxGridSide) + ", got " + quotedText(*g) +
                         " (expected rows x columns such as 16x16)");
      return std::stoi(t);
    };
    if (x == std::string::npos) throw UsageError("--grid: expected rows x columns such as 16x16, got " + quotedText(*g));
    r.gridRows = side(g->substr(0, x), "rows");
    r.gridCols = side(g->substr(x + 1), "columns");
  }
  readParam(o, table::kScheme, r.axialVariant);
  if (readParam(o, table::kHeadDim, r.rope.headDim) && r.rope.headDim % 4 != 0) {
    throw UsageError("--head-dim: got " + std::to_string(r.rope.headDim) + ", expected a multiple of 4 (half the pairs per image axis)");
  }
  if (auto q = o.value("--q")) r.q = finiteList("--q", *q);
  if (auto k = o.value("--k")) r.k = finiteList("--k", *k);
  const auto dim = static_cast<std::size_t>(r.rope.headDim);
  if (r.q.empty()) r.q.assign(dim, 1.0);
  if (r.k.empty()) r.k = r.q;
  for (const auto& [flag, v] : {std::pair<const char*, const std::vector<double>*>{"--q", &r.q}, {"--k", &r.k}})
    if (v->size() != dim)
      throw UsageError(std::string(flag) + ": has " + std::to_string(v->size()) + " values, expected head_dim = " + std::to_string(dim));
}

std::uint64_t axialAnglesElements(const Request& r) {
  return checkedProduct({static_cast<std::uint64_t>(r.gridRows), static_cast<std::uint64_t>(r.gridCols),
                         static_cast<std::uint64_t>(r.rope.headDim / 2)});
}

std::uint64_t axialScoresElements(const Request& r) {
  return checkedProduct({static_cast<std::uint64_t>(2 * r.gridRows - 1), static_cast<std::uint64_t>(2 * r.gridCols - 1)});
}

nlohmann::json axialParamsJson(const Request& r) {
  return {{"head_dim", r.rope.headDim}, {"base", r.rope.base}, {"grid_rows", r.gridRows}, {"grid_cols", r.gridCols},
          {"image_scheme", axialRopeVariantName(r.axialVariant)}};
}

Dataset computeAxialAngles(const Request& r, const ExportProgress& progress) {
  Dataset d;
  d.grid = axialRopeAngleGrid(axialParams(r), r.gridRows, r.gridCols);
  d.shape = {d.grid.rows, d.grid.cols};
  d.document["params"] = axialParamsJson(r);
  d.rowTitle = "patch t = row * columns + column";
  d.colTitle = r.axialVariant == AxialRopeVariant::Pixtral ? "pair i (first half: row, second: column)"
                                                           : "pair i (first half: column, second: row)";
  d.valueName = "angle (rad)";
  d.isAngle = true;
  d.csvComments = {"axial rope angles mod 2pi: rows = patches (t = row * " + std::to_string(r.gridCols) +
                   " + column), cols = pairs; pairs 0.." + std::to_string(r.rope.headDim / 4 - 1) +
                   " follow the column, the rest the row"};
  progress(1.0);
  return d;
}

Dataset computeAxialScores(const Request& r, const ExportProgress& progress) {
  Dataset d;
  const std::vector<float> q(r.q.begin(), r.q.end()), k(r.k.begin(), r.k.end());
  d.grid = axialRopeOffsetScores(axialParams(r), q, k, r.gridRows, r.gridCols);
  d.shape = {d.grid.rows, d.grid.cols};
  d.document["params"] = axialParamsJson(r);
  d.document["q"] = r.q;
  d.document["k"] = r.k;
  d.rowTitle = "row offset (query row - key row) + " + std::to_string(r.gridRows - 1);
  d.colTitle = "column offset (query column - key column) + " + std::to_string(r.gridCols - 1);
  d.valueName = "score";
  d.csvComments = {"axial rope score <R q, R k> of two patches: row = row offset + " + std::to_string(r.gridRows - 1) +
                   ", col = column offset + " + std::to_string(r.gridCols - 1)};
  progress(1.0);
  return d;
}

void temperatureDefaults(Request& r) { r.positions = 65536; }

// --config / --preset: a Llama 4 text config's floor_scale and attn_scale (its class defaults where
// the file is silent), when attn_temperature_tuning is on.
void temperatureModel(Request& r, const ModelConfig& m, const std::string& source) {
  if (!m.nopeTemperature) modelMismatch(r, m, source, "a model with Llama 4's NoPE-layer attention temperature");
  r.temperature = *m.nopeTemperature;
}

void temperatureParse(Request& r, const ParsedOptions& o) {
  readParam(o, params::temperature::kFloorScale, r.temperature.floorScale);
  readParam(o, params::temperature::kAttnScale, r.temperature.attnScale);
}

std::uint64_t temperatureElements(const Request& r) { return checkedProduct({static_cast<std::uint64_t>(r.positions), 2}); }

Dataset computeTemperature(const Request& r, const ExportProgress& progress) {
  Dataset d;
  const std::vector<double> scale = llama4AttnScales(r.temperature, r.firstPos, r.positions);
  std::vector<double> position(scale.size());
  for (std::size_t i = 0; i < scale.size(); ++i) position[i] = static_cast<double>(r.firstPos) + static_cast<double>(i);
  d.shape = {static_cast<std::int64_t>(scale.size())};
  d.exact = scale;
  d.grid = Grid(1, static_cast<int>(scale.size()));
  for (std::size_t i = 0; i < scale.size(); ++i) d.grid.values[i] = static_cast<float>(scale[i]);
  d.document = {{"position", position}, {"scale", scale},
                {"params", {{"floor_scale", r.temperature.floorScale}, {"attn_scale", r.temperature.attnScale},
                            {"first_position", r.firstPos}, {"positions", r.positions}}},
                {"formula", "scale = ln(floor((pos + 1) / floor_scale) + 1) * attn_scale + 1, multiplying q on NoPE layers"}};
  d.jsonComplete = true;
  d.columnNames = {"position", "scale"};
  std::vector<double> shown(scale);
  if (r.dtype != DType::F64) for (double& x : shown) x = static_cast<double>(static_cast<float>(x));
  d.columns = {position, shown};
  progress(1.0);
  return d;
}

}  // namespace

std::vector<ViewDef> axialViews() {
  ViewDef angles;
  angles.name = "axial-angles";
  angles.aliases = {"axial-rope", "rope-2d"};
  angles.tab = "image-rope";
  angles.summary = "2-D RoPE angles for image patches, rope-vit's (Heo et al. 2024) or Pixtral's: half the pairs by "
                   "column, half by row";
  angles.layout = ".npy/.csv: (rows * columns, head_dim / 2), row = patch t = row * columns + column, col = pair; "
                  ".json: shape, params, values; .png: heatmap";
  angles.png = true;
  angles.options = {"--head-dim", "--base", "--grid", "--image-scheme", "--config"};
  angles.params = {&table::kHeadDim, &table::kBase, &table::kScheme};
  angles.applyModel = axialModel;
  angles.setDefaults = axialDefaults;
  angles.parse = axialParse;
  angles.elements = axialAnglesElements;
  angles.compute = computeAxialAngles;

  ViewDef scores = angles;
  scores.name = "axial-scores";
  scores.aliases = {};
  scores.summary = "2-D axial RoPE score of two patches against their row and column offsets";
  scores.layout = ".npy/.csv: (2 rows - 1, 2 columns - 1), entry (row offset + rows - 1, column offset + columns - 1); "
                  ".json: shape, params, q, k, values; .png: heatmap";
  scores.options = {"--head-dim", "--base", "--grid", "--image-scheme", "--config", "--q", "--k"};
  scores.elements = axialScoresElements;
  scores.compute = computeAxialScores;

  ViewDef temperature;
  temperature.name = "nope-temperature";
  temperature.aliases = {"irope-temperature"};
  temperature.tab = "model";
  temperature.summary = "Llama 4's query scale on its NoPE layers (iRoPE attention temperature) against position";
  temperature.layout = ".npy: (positions,) scales; .csv: position,scale; .json: position, scale, params, formula";
  temperature.exactDouble = true;
  temperature.buildsDocument = true;
  temperature.options = {"--positions", "--position", "--floor-scale", "--attn-scale", "--config", "--preset"};
  temperature.params = {&params::temperature::kFloorScale, &params::temperature::kAttnScale};
  temperature.setDefaults = temperatureDefaults;
  temperature.parse = temperatureParse;
  temperature.elements = temperatureElements;
  temperature.compute = computeTemperature;
  temperature.applyModel = temperatureModel;
  return {angles, scores, temperature};
}

}  // namespace posviz::cli
