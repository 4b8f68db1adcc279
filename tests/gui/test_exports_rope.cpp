// File > Export of the RoPE, Context extension, Image RoPE and Extrapolation tabs: each picture is
// a typed call of a view (app/cli/view_call.hpp), the window writes the bytes its printed command
// writes, and the numbers are the ones the tab shows (a seeded q and k as --seed, never as lists).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "app/cli/cli.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/shell/view_export.hpp"
#include "core/npy.hpp"
#include "core/rope.hpp"
#include "tests/gui/export_check.hpp"
#include "tests/gui/test_shell.hpp"
#include "tests/support/export_support.hpp"

namespace fs = std::filesystem;
using posviz::app::ExportableView;
using posviz::app::ViewExportKind;

using posviz::test::contains;
using posviz::test::exportsOf;
using posviz::test::sameAsCommand;

TEST_SUITE("exports_rope") {

TEST_CASE("RoPE tab: s(m, n) exports as rope-scores --seed, typed q and k as lists, angle / cos / sin as their views") {
  auto app = posviz::app::testing::makeTestShell(1280, 800);
  if (!app) return;
  const fs::path dir = posviz::test::exportScratch("rope-tab");
  posviz::app::RopePanelState& s = app->state().rope;

  ExportableView v = exportsOf(*app, "rope");
  REQUIRE(v.call.has_value());
  CHECK(v.call->view == "rope-scores");
  const std::string seeded = sameAsCommand(v, ViewExportKind::HeatmapPng, dir, "scores");
  CAPTURE(seeded);
  CHECK(contains(seeded, "posviz export rope-scores --head-dim 128 --base 10000 --layout half-split --positions 256 --seed 1 "));
  CHECK_FALSE(contains(seeded, "--q"));
  CHECK_FALSE(contains(seeded, "--k"));
  sameAsCommand(v, ViewExportKind::HeatmapNpy, dir, "scores");
  // The seed draws the very q and k the tab shows.
  const posviz::NpyArray a = posviz::readNpy((dir / "scores-window.npy").string());
  CHECK(a.data == posviz::ropeScoreGrid(s.shown, s.q, s.k, s.numPositions).values);
  CHECK(v.plotColumns);

  s.typedVectors = true;
  s.qText = "1, 2, 0.1, -4";
  s.kText = "4,3,2,1";
  s.dirty = true;
  v = exportsOf(*app, "rope");
  const std::string typed = sameAsCommand(v, ViewExportKind::HeatmapNpy, dir, "typed");
  CAPTURE(typed);
  CHECK(contains(typed, "--head-dim 4 "));
  CHECK(contains(typed, "--positions 256 --q 1,2,0.1,-4 --k 4,3,2,1 "));   // the shortest text of the float q holds
  CHECK_FALSE(contains(typed, "--seed"));
  CHECK(posviz::readNpy((dir / "typed-window.npy").string()).data == posviz::ropeScoreGrid(s.shown, s.q, s.k, s.numPositions).values);

  s.typedVectors = false;
  s.params.headDim = 16;
  s.numPositions = 48;
  // A config's YaRN without rounding (gpt-oss) is said with --no-truncate.
  s.params.scaling.method = posviz::ScalingMethod::Yarn;
  s.params.scaling.factor = 4.0;
  s.params.scaling.originalMaxPositions = 32;
  s.params.scaling.truncate = false;
  for (const auto& [kind, view] : {std::pair{posviz::app::RopeGridKind::Angle, "rope-angles"}, {posviz::app::RopeGridKind::Cos, "rope-cos"},
                            {posviz::app::RopeGridKind::Sin, "rope-sin"}}) {
    CAPTURE(view);
    s.gridKind = kind;
    s.dirty = true;
    v = exportsOf(*app, "rope");
    REQUIRE(v.call.has_value());
    CHECK(v.call->view == view);
    const std::string command = sameAsCommand(v, ViewExportKind::HeatmapPng, dir, view);
    CAPTURE(command);
    CHECK(contains(command, "--scaling yarn --factor 4 --original-max-positions 32 --beta-fast 32 --beta-slow 1 --positions 48 "
                            "--no-truncate "));
    CHECK_FALSE(contains(command, "--seed"));
    sameAsCommand(v, ViewExportKind::HeatmapNpy, dir, view);
    const posviz::Grid expected = kind == posviz::app::RopeGridKind::Angle ? posviz::ropeAngleGrid(s.shown, 48)
                                  : kind == posviz::app::RopeGridKind::Cos ? posviz::ropeCosGrid(s.shown, 48)
                                                                           : posviz::ropeSinGrid(s.shown, 48);
    CHECK(posviz::readNpy((dir / (std::string(view) + "-window.npy")).string()).data == expected.values);
  }
}

TEST_CASE("Context extension tab: the selected method exports as rope-freqs; the plot's numbers as CSV") {
  auto app = posviz::app::testing::makeTestShell(1280, 800);
  if (!app) return;
  const fs::path dir = posviz::test::exportScratch("context-tab");
  const ExportableView v = exportsOf(*app, "context-extension");
  REQUIRE(v.call.has_value());
  const std::string command = sameAsCommand(v, ViewExportKind::HeatmapJson, dir, "freqs");
  CAPTURE(command);
  CHECK(contains(command, "posviz export rope-freqs --head-dim 128 --base 10000 --layout half-split --scaling yarn --factor 4 "
                          "--original-max-positions 4096 --seq-len 16384 --beta-fast 32 --beta-slow 1 -o "));
  sameAsCommand(v, ViewExportKind::HeatmapNpy, dir, "freqs");
  const posviz::app::ContextExtensionPanelState& s = app->state().context;
  const std::vector<double>& yarn = s.freqs[static_cast<std::size_t>(posviz::ScalingMethod::Yarn)].invFreq;
  const posviz::NpyArray a = posviz::readNpy((dir / "freqs-window.npy").string());
  REQUIRE(a.data.size() == yarn.size());
  for (std::size_t i = 0; i < yarn.size(); ++i) CHECK(a.data[i] == static_cast<float>(yarn[i]));
  REQUIRE(v.plotColumns);
  CHECK(v.plotColumns().size() == v.plotColumnNames.size());
  CHECK(v.plotColumnNames.front() == "pair");
}

TEST_CASE("Image RoPE tab: the offset scores export as axial-scores with the tab's grid") {
  auto app = posviz::app::testing::makeTestShell(1280, 800);
  if (!app) return;
  const fs::path dir = posviz::test::exportScratch("image-tab");
  posviz::app::ImagePanelState& s = app->state().image;
  s.base = 123.5;
  s.rows = 5;
  s.cols = 9;
  s.dirty = true;
  const ExportableView v = exportsOf(*app, "image-rope");
  const std::string command = sameAsCommand(v, ViewExportKind::HeatmapPng, dir, "axial");
  CAPTURE(command);
  CHECK(contains(command, "posviz export axial-scores --head-dim 64 --base 123.5 --grid 5x9 "));
  sameAsCommand(v, ViewExportKind::HeatmapNpy, dir, "axial");
  CHECK(posviz::readNpy((dir / "axial-window.npy").string()).data == s.offsetScores.values);
}

TEST_CASE("Extrapolation tab: the lab exports as the extrapolation view, a model's YaRN settings included") {
  auto app = posviz::app::testing::makeTestShell(1280, 800);
  if (!app) return;
  const fs::path dir = posviz::test::exportScratch("extrapolation-tab");
  posviz::app::ExtrapolationPanelState& s = app->state().extrapolation;
  s.trainedLength = 64;
  s.headDim = 16;
  s.seed = 5;
  s.scaling.mscale = 0.8;
  s.scaling.truncate = false;
  s.dirty = true;
  ExportableView v = exportsOf(*app, "extrapolation");
  REQUIRE(s.lab.waitIdle(120.0));
  v = exportsOf(*app, "extrapolation");
  const std::string command = sameAsCommand(v, ViewExportKind::HeatmapNpy, dir, "lab");
  CAPTURE(command);
  CHECK(contains(command, "posviz export extrapolation --head-dim 16 --original-max-positions 64 --positions 256 --base 10000 "
                          "--seed 5 --slope 0.5 --mscale 0.8 --text 'The cat sat on the mat' --no-truncate -o "));
  sameAsCommand(v, ViewExportKind::HeatmapJson, dir, "lab");
  // The view's weights are the tab's: columns 4.. of the table, one per encoding.
  const posviz::NpyArray a = posviz::readNpy((dir / "lab-window.npy").string());
  const posviz::app::ExtrapolationLabResult* r = s.lab.result();
  REQUIRE(r != nullptr);
  const std::vector<posviz::ExtrapolationRun>& runs = r->runs[static_cast<std::size_t>(s.multiple)];
  REQUIRE(a.shape.size() == 2);
  const auto cols = static_cast<std::size_t>(a.shape[1]);
  REQUIRE(cols == 4 + runs.size());
  for (std::size_t e = 0; e < runs.size(); ++e) {
    CAPTURE(e);
    if (!runs[e].error.empty()) continue;
    for (std::size_t d = 0; d < runs[e].weights.size(); d += 17) CHECK(a.data[d * cols + 4 + e] == static_cast<float>(runs[e].weights[d]));
  }
  REQUIRE(v.plotColumns);
  CHECK(v.plotColumns().front().size() == 256);
}

}  // TEST_SUITE
