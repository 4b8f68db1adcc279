// File > Export of the active view (app/gui/shell/view_export.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <sys/resource.h>

#include <nlohmann/json.hpp>
#include <stb_image.h>

#include "app/cli/export.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/shell/view_export.hpp"
#include "core/atomic_file.hpp"
#include "app/gui/panels/panels.hpp"
#include "tests/gui/test_shell.hpp"
#include "app/cli/cli.hpp"
#include "app/cli/view_table.hpp"
#include "core/npy.hpp"
#include "core/colormap.hpp"
#include "core/grid.hpp"
#include "tests/support/export_support.hpp"

namespace fs = std::filesystem;
using posviz::ColorScale;
using posviz::Colormap;
using posviz::Grid;
using posviz::Rgba8;
using posviz::cli::PngOptions;
using posviz::cli::RgbImage;

using posviz::test::checkPixel;
using posviz::test::ramp;
using posviz::test::readText;

namespace {

fs::path scratch(const std::string& name) { return posviz::test::exportScratch(name); }

}  // namespace

TEST_SUITE("view_export") {

TEST_CASE("export: File > Export writes the active view's heatmap and plot data") {
  const fs::path dir = scratch("view");
  posviz::app::ExportableView v;
  v.name = "alibi-bias-head0";
  v.caption = "heads=8 positions=4";
  v.rowTitle = "query i";
  v.colTitle = "key j";
  v.valueName = "bias";
  v.colormap = Colormap::Viridis;
  // ALiBi's bias of head 1 of 8 (m = 1/2) over 4 positions, not causal: -m |i - j|.
  posviz::cli::ViewCall call{"alibi-bias"};
  call.set(posviz::cli::params::alibi::kHeads, 8).set(posviz::cli::params::alibi::kHead, 1);
  call.set(posviz::cli::params::alibi::kPositions, 4);
  v.call = call;
  v.plotColumnNames = {"distance", "slope"};
  v.plotColumns = [] { return std::vector<std::vector<double>>{{0, 1, 2}, {0.5, 0.25, 0.125}}; };
  using posviz::app::ViewExportKind;
  CHECK(posviz::app::defaultExportFileName(v, ViewExportKind::HeatmapPng) == "alibi-bias-head0.png");
  CHECK(posviz::app::defaultExportFileName(v, ViewExportKind::PlotCsv) == "alibi-bias-head0-plot.csv");

  posviz::app::ViewExportOptions plain;
  plain.colorbar = plain.axisTitles = plain.caption = false;
  plain.cellScale = 2;
  posviz::app::exportView(v, ViewExportKind::HeatmapPng, (dir / "v.png").string(), plain);
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load((dir / "v.png").string().c_str(), &w, &h, &n, 3);
  REQUIRE(px != nullptr);
  CHECK(w == 8);
  CHECK(h == 8);
  stbi_image_free(px);
  posviz::app::exportView(v, ViewExportKind::HeatmapPng, (dir / "decorated.png").string());
  px = stbi_load((dir / "decorated.png").string().c_str(), &w, &h, &n, 3);
  REQUIRE(px != nullptr);
  // By default the 4 x 4 cells are scaled up to a readable 512 x 512 (128 px per cell), as posviz export does.
  CHECK(w >= 512 + 16);
  CHECK(h >= 512);
  stbi_image_free(px);

  posviz::app::exportView(v, ViewExportKind::HeatmapNpy, (dir / "v.npy").string());
  const posviz::NpyArray a = posviz::readNpy((dir / "v.npy").string());
  CHECK(a.shape == std::vector<std::int64_t>{4, 4});
  REQUIRE(a.data.size() == 16);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) CHECK(a.data[static_cast<std::size_t>(i * 4 + j)] == doctest::Approx(-0.5 * std::abs(i - j)));
  posviz::app::exportView(v, ViewExportKind::HeatmapCsv, (dir / "v.csv").string());
  CHECK(readText(dir / "v.csv").find("0,-0.5,-1,-1.5\n") != std::string::npos);
  posviz::app::exportView(v, ViewExportKind::PlotCsv, (dir / "p.csv").string());
  CHECK(readText(dir / "p.csv") == "distance,slope\n0,0.5\n1,0.25\n2,0.125\n");

  posviz::app::ExportableView empty;
  CHECK(empty.empty());
  CHECK_THROWS_WITH_AS(posviz::app::exportView(empty, ViewExportKind::HeatmapPng, (dir / "e.png").string()),
                       doctest::Contains("has no heatmap"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::app::exportView(empty, ViewExportKind::PlotCsv, (dir / "e.csv").string()),
                       doctest::Contains("has no plot data"), std::invalid_argument);
  CHECK_FALSE(fs::exists(dir / "e.png"));
  CHECK_FALSE(fs::exists(dir / "e.csv"));
}


TEST_CASE("view_export: the message after a write names the whole path and the size") {
  const fs::path dir = scratch("done-message");
  const fs::path file = dir / "x.csv";
  { std::ofstream(file) << std::string(2048, 'a'); }
  // A relative name is shown from the root, as the folder the window runs in would resolve it.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir);
  const std::string relative = posviz::app::exportDoneMessage("x.csv", 12.0);
  fs::current_path(cwd);
  CHECK(relative == "Wrote " + fs::absolute(file).lexically_normal().string() + " (2.0 KiB, 12 ms)");
  fs::create_directories(dir / "sub");
  CHECK(posviz::app::exportDoneMessage((dir / "sub" / ".." / "x.csv").string(), 0.5) ==
        "Wrote " + fs::absolute(file).lexically_normal().string() + " (2.0 KiB, 0.5 ms)");
  // A file that is not there (removed since) still gets a message, without a size.
  CHECK(posviz::app::exportDoneMessage((dir / "gone.csv").string(), 3.0).ends_with("gone.csv (3 ms)"));
}

namespace {

// The sinusoidal tab's view as File > Export sees it: d_model 8, 4 positions, base 100, RdBu.
posviz::app::ExportableView sinusoidalView() {
  posviz::app::ExportableView v;
  v.name = "sinusoidal-pe";
  v.colormap = Colormap::RdBu;
  posviz::cli::ViewCall call{"sinusoidal"};
  call.set(posviz::cli::params::sinusoidal::kDModel, 8).set(posviz::cli::params::sinusoidal::kPositions, 4);
  call.set(posviz::cli::params::sinusoidal::kBase, 100);
  v.call = call;
  return v;
}

}  // namespace

TEST_CASE("view_export: a view with export arguments writes what posviz export writes") {
  const fs::path dir = scratch("cli");
  const posviz::app::ExportableView v = sinusoidalView();
  using posviz::app::ViewExportKind;
  CHECK_FALSE(v.empty());
  posviz::app::ViewExportOptions o;
  o.cellScale = 3;
  o.caption = false;
  CHECK(posviz::app::exportArguments(v, ViewExportKind::HeatmapPng, "x.png", o) ==
        std::vector<std::string>{"sinusoidal", "--d-model", "8", "--positions", "4", "--base", "100", "--colormap", "rdbu",
                                 "--scale", "3", "--no-caption", "-o", "x.png"});
  // The defaults are posviz export's own (readable scale, colorbar, axis titles, caption): nothing to spell out.
  CHECK(posviz::app::exportArguments(v, ViewExportKind::HeatmapPng, "x.png") ==
        std::vector<std::string>{"sinusoidal", "--d-model", "8", "--positions", "4", "--base", "100", "--colormap", "rdbu", "-o", "x.png"});
  posviz::app::ViewExportOptions bare;
  bare.colorbar = bare.axisTitles = false;
  CHECK(posviz::app::exportArguments(v, ViewExportKind::HeatmapSvg, "x.svg", bare) ==
        std::vector<std::string>{"sinusoidal", "--d-model", "8", "--positions", "4", "--base", "100", "--colormap", "rdbu",
                                 "--no-colorbar", "--no-axis-titles", "-o", "x.svg"});
  CHECK(posviz::app::exportArguments(v, ViewExportKind::PlotCsv, "x.csv").empty());

  posviz::app::exportView(v, ViewExportKind::HeatmapNpy, (dir / "window.npy").string());
  const posviz::NpyArray a = posviz::readNpy((dir / "window.npy").string());
  REQUIRE(a.shape == std::vector<std::int64_t>{4, 8});
  CHECK(a.data[2 * 8 + 2] == doctest::Approx(std::sin(2.0 / std::sqrt(10.0))));   // PE(2, 2) = sin(2 / 100^(2/8))
  posviz::cli::exportWithArguments({"sinusoidal", "--d-model", "8", "--positions", "4", "--base", "100", "-o",
                                    (dir / "cli.npy").string()});
  CHECK(readText(dir / "window.npy") == readText(dir / "cli.npy"));
  posviz::app::exportView(v, ViewExportKind::HeatmapJson, (dir / "window.json").string());
  CHECK(readText(dir / "window.json").find("\"view\": \"sinusoidal\"") != std::string::npos);
  CHECK(posviz::app::defaultExportFileName(v, ViewExportKind::HeatmapJson) == "sinusoidal-pe.json");
  CHECK(posviz::app::defaultExportFileName(v, ViewExportKind::HeatmapSvg) == "sinusoidal-pe.svg");
  posviz::app::exportView(v, ViewExportKind::HeatmapSvg, (dir / "window.svg").string(), o);
  posviz::cli::exportWithArguments({"sinusoidal", "--d-model", "8", "--positions", "4", "--base", "100", "--colormap", "rdbu",
                                    "--scale", "3", "--colorbar", "--axis-titles", "--no-caption", "-o", (dir / "cli.svg").string()});
  CHECK(readText(dir / "window.svg") == readText(dir / "cli.svg"));
  // File > Export's default picture is the one `posviz export` writes without options: 512 px wide.
  posviz::app::exportView(v, ViewExportKind::HeatmapPng, (dir / "window.png").string());
  posviz::cli::exportWithArguments({"sinusoidal", "--d-model", "8", "--positions", "4", "--base", "100", "--colormap", "rdbu", "-o",
                                    (dir / "cli.png").string()});
  CHECK(readText(dir / "window.png") == readText(dir / "cli.png"));
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load((dir / "window.png").string().c_str(), &w, &h, &n, 3);
  REQUIRE(px != nullptr);
  CHECK(w >= 512);
  stbi_image_free(px);
  CHECK(readText(dir / "window.svg").find("<svg") != std::string::npos);

}

TEST_CASE("view_export: Animation as GIF sweeps one of the view's numbers, as posviz export --animate does") {
  const fs::path dir = scratch("gif");
  const posviz::app::ExportableView v = sinusoidalView();
  using posviz::app::ViewExportKind;
  const std::vector<posviz::app::SweepableParam> sweep = posviz::app::sweepableParams(v);
  REQUIRE(sweep.size() == 3);
  CHECK(sweep[2].flag == "--base");
  CHECK(sweep[2].step == 0);
  CHECK(sweep[0].step == 2);   // d_model: even
  CHECK(sweep[1].step == 1);   // positions: whole
  // No position among the numbers: the base, from 100 to 200.
  const posviz::app::ViewAnimation first = posviz::app::defaultAnimation(v);
  CHECK(first.flag == "--base");
  CHECK(first.from == 100);
  CHECK(first.to == 200);
  CHECK(first.frames == 60);
  // d_model 8 to 16 in even steps: 5 frames.
  const posviz::app::ViewAnimation dims = posviz::app::sweepOf(sweep[0], 30.0);
  CHECK(dims.to == 16);
  CHECK(dims.frames == 5);
  posviz::app::ViewExportOptions o;
  o.animation = posviz::app::sweepOf(sweep[2], 10.0);   // base 100 -> 200
  o.animation.frames = 5;
  CHECK(posviz::app::defaultExportFileName(v, ViewExportKind::AnimatedGif) == "sinusoidal-pe.gif");
  const std::vector<std::string> args = posviz::app::exportArguments(v, ViewExportKind::AnimatedGif, (dir / "window.gif").string(), o);
  CHECK(args == std::vector<std::string>{"sinusoidal", "--d-model", "8", "--positions", "4", "--colormap", "rdbu", "--animate",
                                         "base=100:200", "--frames", "5", "--fps", "10", "-o", (dir / "window.gif").string()});
  posviz::app::exportView(v, ViewExportKind::AnimatedGif, (dir / "window.gif").string(), o);
  posviz::cli::exportWithArguments({"sinusoidal", "--d-model", "8", "--positions", "4", "--colormap", "rdbu", "--animate", "base=100:200",
                                    "--frames", "5", "--fps", "10", "-o", (dir / "cli.gif").string()});
  CHECK(readText(dir / "window.gif") == readText(dir / "cli.gif"));
  CHECK(readText(dir / "window.gif").rfind("GIF89a", 0) == 0);
  o.animation.flag.clear();
  CHECK_THROWS_WITH_AS(posviz::app::exportView(v, ViewExportKind::AnimatedGif, (dir / "none.gif").string(), o),
                       "export: choose the number to animate", std::invalid_argument);
  CHECK_FALSE(fs::exists(dir / "none.gif"));

  // The window runs it as a job: progress rises to 1, and a Cancel (the progress callback
  // throwing, as JobControl's throwIfCancelled does) leaves no file and no temporary one.
  o.animation = posviz::app::sweepOf(sweep[2], 10.0);
  o.animation.frames = 20;
  std::vector<double> seen;
  posviz::app::exportView(v, ViewExportKind::AnimatedGif, (dir / "progress.gif").string(), o, [&](double f) { seen.push_back(f); });
  REQUIRE(seen.size() >= 20);
  CHECK(std::is_sorted(seen.begin(), seen.end()));
  CHECK(seen.back() == 1.0);
  struct Stop {};
  CHECK_THROWS_AS(posviz::app::exportView(v, ViewExportKind::AnimatedGif, (dir / "cancelled.gif").string(), o,
                                          [](double f) {
                                            if (f > 0.3) throw Stop{};
                                          }),
                  Stop);
  CHECK_FALSE(fs::exists(dir / "cancelled.gif"));
  CHECK(posviz::pendingTemporaryFiles() == 0);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  CHECK(files == 2 + 1);   // window.gif, cli.gif, progress.gif
}

TEST_CASE("view_export: every tab's File > Export picture is the readable, decorated one") {
  auto app = posviz::app::testing::makeTestShell(1280, 800);
  if (!app) return;
  const fs::path dir = scratch("tabs");
  using posviz::app::ViewExportKind;
  int pictures = 0;
  for (std::size_t i = 0; i < posviz::app::panels().size(); ++i) {
    const std::string name = posviz::app::panels()[i].name;
    CAPTURE(name);
    app->selectPanel(static_cast<int>(i));
    REQUIRE(app->renderUntilIdle(4, 120.0));
    const posviz::app::ExportableView v = app->activeExports();
    // The menu offers a picture for a grid that is not 1-D data (app_shell.cpp's hasPng).
    const posviz::cli::ViewDef* cliView = v.call ? posviz::cli::findView(v.call->view) : nullptr;
    if (cliView == nullptr || !cliView->png) continue;
    const fs::path png = dir / (name + ".png");
    posviz::app::exportView(v, ViewExportKind::HeatmapPng, png.string());
    int w = 0, h = 0, n = 0;
    REQUIRE(stbi_info(png.string().c_str(), &w, &h, &n) == 1);
    CAPTURE(w);
    CAPTURE(h);
    // The heatmap's longer side is at least 512 px, plus the margins of its colorbar and titles.
    CHECK(std::max(w, h) >= 512 + 16);
    CHECK(std::min(w, h) > 16);
    ++pictures;
  }
  CHECK(pictures >= 5);
}

}  // TEST_SUITE
