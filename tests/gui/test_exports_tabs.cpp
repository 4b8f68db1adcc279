// File > Export of the Learned, ALiBi, Relative, Compare, Where position enters and Word order
// tabs: each picture is a typed call of a view (app/cli/view_call.hpp), the window writes the bytes
// its printed command writes, and the numbers are the ones the tab shows (seeds as --seed).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/cli.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/panels/app_state.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/shell/view_export.hpp"
#include "core/alibi.hpp"
#include "core/npy.hpp"
#include "tests/gui/export_check.hpp"
#include "tests/gui/test_shell.hpp"
#include "tests/support/export_support.hpp"

namespace fs = std::filesystem;
using posviz::app::ExportableView;
using posviz::app::ViewExportKind;

using posviz::test::contains;
using posviz::test::exportsOf;
using posviz::test::sameAsCommand;

namespace {


// The picture and the numbers from the window and from the command; the numbers as read back.
posviz::NpyArray pictureAndNumbers(const ExportableView& v, const fs::path& dir, const std::string& stem) {
  sameAsCommand(v, ViewExportKind::HeatmapPng, dir, stem);
  sameAsCommand(v, ViewExportKind::HeatmapNpy, dir, stem);
  return posviz::readNpy((dir / (stem + "-window.npy")).string());
}


}  // namespace

TEST_SUITE("exports_tabs") {

TEST_CASE("Learned tab: the seeded table exports as learned --seed --std, a loaded one as learned --table") {
  auto app = posviz::app::testing::makeTestShell(1280, 800);
  if (!app) return;
  const fs::path dir = posviz::test::exportScratch("learned-tab");
  posviz::app::LearnedPanelState& s = app->state().learned;
  ExportableView v = exportsOf(*app, "learned");
  REQUIRE(v.call.has_value());
  CHECK(posviz::cli::commandLine(posviz::app::exportArguments(v, ViewExportKind::HeatmapPng, "t.png")) ==
        "posviz export learned --d-model 768 --max-len 1024 --seed 0 --std 0.02 --colormap rdbu -o t.png");
  s.maxLen = 40;
  s.dModel = 12;
  s.seed = 9;
  s.stddev = 0.125;
  s.tableDirty = true;
  s.dirty = true;
  v = exportsOf(*app, "learned");
  const posviz::NpyArray seeded = pictureAndNumbers(v, dir, "seeded");
  REQUIRE(s.table != nullptr);
  CHECK(seeded.shape == std::vector<std::int64_t>{40, 12});
  CHECK(seeded.data == s.table->values);
  CHECK(contains(posviz::cli::commandLine(posviz::app::exportArguments(v, ViewExportKind::HeatmapNpy, "t.npy")),
                 "--seed 9 --std 0.125 "));
  REQUIRE(v.plotColumns);
  CHECK(v.plotColumns().front().size() == 40);

  const posviz::Grid file = posviz::test::ramp(7, 3);
  const fs::path table = dir / "table it's.npy";   // a path the command must quote
  posviz::writeNpy(table.string(), {7, 3}, file.values.data());
  s.path = table.string();
  s.fromFile = true;
  posviz::app::requestLearnedTable(s);
  v = exportsOf(*app, "learned");
  const std::string command = sameAsCommand(v, ViewExportKind::HeatmapNpy, dir, "file");
  CHECK(contains(command, "posviz export learned --table "));
  CHECK_FALSE(contains(command, "--seed"));
  CHECK(posviz::readNpy((dir / "file-window.npy").string()).data == file.values);
  sameAsCommand(v, ViewExportKind::HeatmapPng, dir, "file");
}

TEST_CASE("ALiBi tab: the selected head's bias exports as alibi-bias --heads --head --positions [--causal]") {
  auto app = posviz::app::testing::makeTestShell(1280, 800);
  if (!app) return;
  const fs::path dir = posviz::test::exportScratch("alibi-tab");
  posviz::app::AlibiPanelState& s = app->state().alibi;
  ExportableView v = exportsOf(*app, "alibi");
  REQUIRE(v.call.has_value());
  const std::string command = sameAsCommand(v, ViewExportKind::HeatmapPng, dir, "head1");
  CHECK(contains(command, "posviz export alibi-bias --heads 12 --head 1 --positions 24 --causal --colormap viridis -o "));
  s.selectedHead = 4;
  s.causal = false;
  s.dirty = true;
  v = exportsOf(*app, "alibi");
  const posviz::NpyArray a = pictureAndNumbers(v, dir, "head5");
  CHECK(a.data == posviz::alibiBiasGrid(s.slopes[4], 24, false).values);
  CHECK_FALSE(contains(posviz::cli::commandLine(posviz::app::exportArguments(v, ViewExportKind::HeatmapNpy, "b.npy")), "--causal"));
  REQUIRE(v.plotColumns);
  CHECK(v.plotColumns()[1] == s.slopes);
}

TEST_CASE("Relative tab: every grid it shows exports through its own view, chosen by the export choice") {
  auto app = posviz::app::testing::makeTestShell(1280, 800);
  if (!app) return;
  const fs::path dir = posviz::test::exportScratch("relative-tab");
  posviz::app::RelativePanelState& s = app->state().relative;
  s.t5Causal = true;
  s.t5Head = 2;
  s.kerplePower = true;
  s.dirty = true;
  const posviz::cli::Param& choice = posviz::cli::params::relative::kTabExport;
  const posviz::Grid* shown[] = {&s.buckets, &s.biasTable, &s.t5Bias, &s.kerple, &s.fire, &s.alibi};
  const char* expected[] = {
      "posviz export t5-buckets --positions 48 --num-buckets 32 --max-distance 128 --causal ",
      "posviz export t5-bias-table --num-buckets 32 --heads 8 --seed 0 ",
      "posviz export t5-bias --positions 48 --num-buckets 32 --max-distance 128 --heads 8 --head 3 --seed 0 --causal ",
      "posviz export kerple-bias --positions 48 --kernel power --r1 1 --r2 1 --causal ",
      "posviz export fire-bias --positions 48 --fire-c 0.1 --fire-threshold 512 --fire-hidden 32 --seed 0 ",
      "posviz export alibi-bias --slope 0.0625 --positions 48 --causal ",
      "posviz export txl-terms --positions 48 --d-model 16 --head-dim 8 --seed 0 "};
  for (int grid = 0; grid < choice.choiceCount(); ++grid) {
    const std::string view(choice.choiceName(grid));
    CAPTURE(view);
    s.exportGrid = grid;
    const ExportableView v = exportsOf(*app, "relative");
    REQUIRE(v.call.has_value());
    CHECK(v.call->view == view);
    CHECK(contains(posviz::cli::commandLine(posviz::app::exportArguments(v, ViewExportKind::HeatmapNpy, "g.npy")), expected[grid]));
    if (grid == 0) {   // bucket ids are int32 in .npy: read them from the .json
      sameAsCommand(v, ViewExportKind::HeatmapPng, dir, view);
      sameAsCommand(v, ViewExportKind::HeatmapJson, dir, view);
      const nlohmann::json j = nlohmann::json::parse(posviz::test::readText(dir / (view + "-window.json")));
      std::vector<float> ids;
      for (const auto& row : j.at("values"))
        for (const auto& id : row) ids.push_back(id.get<float>());
      CHECK(ids == s.buckets.values);
      continue;
    }
    const posviz::NpyArray a = pictureAndNumbers(v, dir, view);
    if (grid < 6) {
      CHECK(a.data == shown[grid]->values);
      continue;
    }
    // txl-terms: (4, T, T); the tab plots row txlQuery of each term.
    const std::size_t t = static_cast<std::size_t>(s.numPositions), row = static_cast<std::size_t>(s.txlQuery);
    REQUIRE(a.data.size() == 4 * t * t);
    for (std::size_t k = 0; k < 4; ++k)
      for (std::size_t j = 0; j < t; ++j) CHECK(a.data[(k * t + row) * t + j] == doctest::Approx(s.txlTerm[k][j]).epsilon(1e-5));
    REQUIRE(v.plotColumns);
    CHECK(v.plotColumns()[5] == s.txlTotal);
  }
}

TEST_CASE("Compare tab: the table exports as compare --seed, its JSON and numbers the command's") {
  auto app = posviz::app::testing::makeTestShell(1280, 800);
  if (!app) return;
  const fs::path dir = posviz::test::exportScratch("compare-tab");
  posviz::app::ComparePanelState& s = app->state().compare;
  s.seed = 17;
  s.numHeads = 4;
  s.dirty = true;
  const ExportableView v = exportsOf(*app, "compare");
  REQUIRE(v.call.has_value());
  const std::string command = sameAsCommand(v, ViewExportKind::HeatmapJson, dir, "compare");
  CHECK(contains(command, "posviz export compare --d-model 512 --heads 4 --original-max-positions "));
  CHECK(contains(command, " --seed 17 -o "));
  sameAsCommand(v, ViewExportKind::HeatmapNpy, dir, "compare");
  sameAsCommand(v, ViewExportKind::HeatmapCsv, dir, "compare");
  const std::string json = posviz::test::readText(dir / "compare-window.json");
  CHECK(contains(json, "\"seed\": 17"));
  REQUIRE(s.table.has_value());
  const posviz::NpyArray a = posviz::readNpy((dir / "compare-window.npy").string());
  CHECK(a.data[0] == static_cast<float>(s.table->columns.front().parameters));
}

TEST_CASE("Where position enters tab: the outputs export as rope-outputs, --rotate-v when V is rotated too") {
  auto app = posviz::app::testing::makeTestShell(1280, 800);
  if (!app) return;
  const fs::path dir = posviz::test::exportScratch("pipeline-tab");
  posviz::app::PipelinePanelState& s = app->state().pipeline;
  ExportableView v = exportsOf(*app, "where-position-enters");
  REQUIRE(v.call.has_value());
  const std::string plain = sameAsCommand(v, ViewExportKind::HeatmapPng, dir, "plain");
  CHECK(contains(plain, "posviz export rope-outputs --d-model 8 --seed 0 --text 'The cat sat on the mat' --colormap rdbu -o "));
  sameAsCommand(v, ViewExportKind::HeatmapNpy, dir, "plain");
  REQUIRE(s.rotate.has_value());
  CHECK(posviz::readNpy((dir / "plain-window.npy").string()).data == s.rotate->plain.output.values);

  s.rotateValues = true;
  s.causal = true;
  s.toySeed = 3;
  std::snprintf(s.sentence, sizeof s.sentence, "%s", "it's a  dog");
  s.dirty = true;
  v = exportsOf(*app, "where-position-enters");
  const posviz::NpyArray a = pictureAndNumbers(v, dir, "rotated");
  CHECK(a.data == s.rotate->rotated.output.values);
  CHECK(contains(posviz::cli::commandLine(posviz::app::exportArguments(v, ViewExportKind::HeatmapNpy, "r.npy")),
                 "--seed 3 --text 'it'\\''s a  dog' --causal --rotate-v -o r.npy"));
}

TEST_CASE("Word order tab: the chosen map exports as order-attention, the NoPE counting head as nope-counting") {
  auto app = posviz::app::testing::makeTestShell(1280, 800);
  if (!app) return;
  const fs::path dir = posviz::test::exportScratch("order-tab");
  posviz::app::OrderPanelState& s = app->state().order;
  ExportableView v = exportsOf(*app, "word-order");
  REQUIRE(v.call.has_value());
  CHECK(v.name == "order-weights-shuffled-none");
  const std::string command = sameAsCommand(v, ViewExportKind::HeatmapPng, dir, "shuffled");
  CHECK(contains(command, "posviz export order-attention --d-model 8 --seed 0 --encoding none --matrix shuffled --text 'The cat "
                          "sat on the mat' --shuffled 'mat the on sat cat The' --colormap magma -o "));
  sameAsCommand(v, ViewExportKind::HeatmapNpy, dir, "shuffled");
  CHECK(posviz::readNpy((dir / "shuffled-window.npy").string()).data == s.results[0].permuted.weights.values);

  const std::vector<posviz::PositionEncoding>& encs = posviz::app::orderEncodings();
  s.encoding = static_cast<int>(std::find(encs.begin(), encs.end(), posviz::PositionEncoding::Rope) - encs.begin());
  s.causal = true;
  s.dirty = true;
  for (int m = 0; m < posviz::cli::params::order::kMatrix.choiceCount(); ++m) {
    CAPTURE(m);
    s.exportMatrix = m;
    v = exportsOf(*app, "word-order");
    const posviz::NpyArray a = pictureAndNumbers(v, dir, "rope" + std::to_string(m));
    const posviz::OrderComparison& c = s.results[static_cast<std::size_t>(s.encoding)];
    const posviz::Grid* grids[] = {&c.original.weights, &c.permuted.weights, &c.originalWeightsPermuted, &c.permuted.output,
                                   &c.originalOutputPermuted};
    CHECK(a.data == grids[m]->values);
  }

  s.nopeView = true;
  s.dirty = true;
  v = exportsOf(*app, "word-order");
  CHECK(v.name == "order-nope-counting-weights");
  REQUIRE(v.call.has_value());
  CHECK(v.call->view == "nope-counting");
  const posviz::NpyArray n = pictureAndNumbers(v, dir, "nope");
  CHECK(n.data == s.counting.weights.values);
}

}  // TEST_SUITE
