// Sessions (app/cli/session.hpp, File > Save session / Open session / Copy session as text):
// a session saved, the window changed, the session reopened, and the window compared pixel for
// pixel; the pasted line; what is refused, with nothing changed.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <stb_image.h>

#include "app/cli/session.hpp"
#include "app/gui/panels/panels.hpp"
#include "tests/gui/test_shell.hpp"

namespace fs = std::filesystem;
using namespace posviz::app;

namespace {

fs::path scratch() {
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "gui" / "session";
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The window's pixels above the status bar (whose compute time differs from frame to frame).
std::vector<unsigned char> shot(AppShell& app, const fs::path& png) {
  REQUIRE(app.renderUntilIdle(3, 60.0));
  std::string error;
  REQUIRE(app.frame(png.string(), &error));
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load(png.string().c_str(), &w, &h, &n, 3);
  REQUIRE(px != nullptr);
  const std::size_t rows = static_cast<std::size_t>(h - 40);
  std::vector<unsigned char> out(px, px + rows * static_cast<std::size_t>(w) * 3);
  stbi_image_free(px);
  return out;
}

void moveRope(AppShell& app, double base, int positions) {
  app.state().rope.params.base = base;
  app.state().rope.numPositions = positions;
  app.state().rope.dirty = true;
}

}  // namespace

TEST_CASE("session: saved, changed, reopened: the window is the same, pixel for pixel") {
  const fs::path dir = scratch();
  auto app = testing::makeTestShell(1024, 700);
  if (!app) return;
  app->selectPanel(findPanel("rope"));
  moveRope(*app, 500.0, 96);
  const std::vector<unsigned char> before = shot(*app, dir / "before.png");

  const posviz::cli::Session saved = app->captureSession();
  CHECK(saved.panel == "rope");
  posviz::cli::writeSessionFile((dir / "lecture.posviz").string(), saved);
  const std::string line = posviz::cli::sessionLine(saved, app->defaultPanelParams());
  CHECK(line.rfind("posviz-session-1:", 0) == 0);
  CHECK(line.size() < 400);   // only what differs from the defaults: a line to paste

  moveRope(*app, 20000.0, 256);
  app->selectPanel(findPanel("alibi"));
  const std::vector<unsigned char> changed = shot(*app, dir / "changed.png");
  CHECK(changed != before);

  std::string error;
  REQUIRE(app->openSessionFile((dir / "lecture.posviz").string(), &error));
  CHECK(app->state().rope.params.base == 500.0);
  CHECK(shot(*app, dir / "reopened.png") == before);

  moveRope(*app, 20000.0, 256);
  REQUIRE(app->openSessionText(line, &error));
  CHECK(shot(*app, dir / "pasted.png") == before);

  // Refused by name, and nothing changes.
  moveRope(*app, 7000.0, 64);
  {
    std::ofstream(dir / "newer.posviz") << R"({"format": "posviz-session", "version": 2, "panels": {}})";
    std::ofstream(dir / "other.posviz") << R"({"panels": {"rope": {"base": 3}}})";
    std::ofstream(dir / "deep.posviz") << std::string(5000, '[');
  }
  CHECK_FALSE(app->openSessionFile((dir / "newer.posviz").string(), &error));
  CHECK(error.find("version 2 was saved by a newer posviz; this one reads version 1; nothing was changed") != std::string::npos);
  CHECK_FALSE(app->openSessionFile((dir / "other.posviz").string(), &error));
  CHECK(error.find("not a posviz session") != std::string::npos);
  CHECK_FALSE(app->openSessionFile((dir / "deep.posviz").string(), &error));
  CHECK(error.find("nests deeper than the 64 levels allowed") != std::string::npos);
  CHECK_FALSE(app->openSessionFile((dir / "missing.posviz").string(), &error));
  CHECK(error.find("missing.posviz") != std::string::npos);
  CHECK_FALSE(app->openSessionFile(dir.string(), &error));   // a folder
  CHECK_FALSE(app->openSessionText("posviz-session-1:***", &error));
  CHECK(error.find("damaged session line") != std::string::npos);
  CHECK(app->state().rope.params.base == 7000.0);
  CHECK(app->state().rope.numPositions == 64);
}

TEST_CASE("session: a zoomed figure reopens zoomed, pixel for pixel; the others unzoomed") {
  const fs::path dir = scratch();
  auto app = testing::makeTestShell(1024, 700);
  if (!app) return;
  app->selectPanel(findPanel("rope"));
  moveRope(*app, 10000.0, 128);
  shot(*app, dir / "start.png");
  HeatmapState& score = app->state().rope.scoreHeatmap;
  score.viewRow0 = 20;   // rows 20..51 and cols 8..39 of the 128 x 128 score grid
  score.viewRows = 32;
  score.viewCol0 = 8;
  score.viewCols = 32;
  const std::vector<unsigned char> zoomed = shot(*app, dir / "zoomed.png");

  const posviz::cli::Session saved = app->captureSession();
  REQUIRE(saved.views.size() == 1);
  CHECK(saved.views.begin()->first.size() == 8);   // the figure's id in hex
  CHECK(saved.views.begin()->second == posviz::cli::FigureView{20, 32, 8, 32});
  posviz::cli::writeSessionFile((dir / "zoomed.posviz").string(), saved);
  const std::string line = posviz::cli::sessionLine(saved, app->defaultPanelParams());

  score.resetView();   // unzoomed: the picture changes
  CHECK(shot(*app, dir / "unzoomed.png") != zoomed);
  std::string error;
  REQUIRE(app->openSessionFile((dir / "zoomed.posviz").string(), &error));
  CHECK(shot(*app, dir / "reopened.png") == zoomed);
  score.viewRow0 = 0;
  score.viewRows = 64;
  REQUIRE(app->openSessionText(line, &error));
  CHECK(shot(*app, dir / "pasted.png") == zoomed);

  // A session with no views opens every figure unzoomed.
  posviz::cli::Session plain = saved;
  plain.views.clear();
  app->applySession(plain);
  shot(*app, dir / "plain.png");
  CHECK(app->state().rope.scoreHeatmap.viewRows == 128.0);
  CHECK(app->captureSession().views.empty());
}
