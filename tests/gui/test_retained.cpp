// Retained drawings (app/gui/widgets/retained.hpp): a plot or diagram that holds still is shown
// from a texture. What the window shows must not change by a pixel beyond blending's rounding,
// every panel; a drawing must stay retained as long as it holds still (also past the idle
// eviction age of other drawings), and a changed input must be drawn at once.
#include <doctest/doctest.h>
#include <stb_image.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "app/gui/panels/panels.hpp"
#include "app/gui/shell/app_shell.hpp"
#include "app/gui/widgets/retained.hpp"
#include "tests/gui/test_shell.hpp"

using namespace posviz::app;

namespace {

std::vector<unsigned char> framePixels(AppShell& app, const std::string& path) {
  std::string error;
  CHECK(app.frame(path, &error));
  CAPTURE(error);
  int w = 0, h = 0, comp = 0;
  unsigned char* data = stbi_load(path.c_str(), &w, &h, &comp, 3);
  REQUIRE(data != nullptr);
  std::vector<unsigned char> rgb(data, data + static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
  stbi_image_free(data);
  return rgb;
}

struct Difference {
  int maxChannel = 0;
  std::size_t pixels = 0;   // pixels with any channel off by more than 2
};

Difference compare(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
  Difference d;
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); i += 3) {
    int worst = 0;
    for (std::size_t c = 0; c < 3; ++c) worst = std::max(worst, std::abs(static_cast<int>(a[i + c]) - static_cast<int>(b[i + c])));
    d.maxChannel = std::max(d.maxChannel, worst);
    if (worst > 2) ++d.pixels;
  }
  return d;
}

}  // namespace

TEST_SUITE("app") {

TEST_CASE("retained: every panel looks the same drawn from textures as drawn directly") {
  auto app = testing::makeTestShell(1280, 800);
  if (!app) return;
  const std::string dir = std::string(POSVIZ_TEST_OUT) + "/retained";
  std::filesystem::create_directories(dir);
  for (std::size_t i = 0; i < panels().size(); ++i) {
    const std::string name = panels()[i].name;
    CAPTURE(name);
    app->selectPanel(static_cast<int>(i));
    setRetainedEnabled(false);
    REQUIRE(app->renderUntilIdle(4, 120.0));
    const std::vector<unsigned char> direct = framePixels(*app, dir + "/" + name + "-direct.png");
    setRetainedEnabled(true);
    REQUIRE(app->renderUntilIdle(4, 120.0));
    int shown = 0;
    for (int f = 0; f < 3; ++f) {
      app->frame();
      shown = retainedShownThisFrame();
    }
    const std::vector<unsigned char> retained = framePixels(*app, dir + "/" + name + "-retained.png");
    CHECK(retainedShownThisFrame() == shown);
    // The plots (and the RoPE pairing diagram) each panel shows without scrolling.
    const std::map<std::string, int> drawings = {{"sinusoidal", 2}, {"learned", 1}, {"rope", 4}, {"context", 1},
                                                 {"alibi", 1}, {"relative", 2}, {"extrapolation", 3}};
    if (drawings.contains(name)) CHECK(shown >= drawings.at(name));
    const Difference d = compare(direct, retained);
    CAPTURE(d.maxChannel);
    CAPTURE(shown);
    // Blending into a texture rounds to 8 bits once more per layer: a step or two. A thin line
    // whose edge runs through pixel centres may cover a pixel more or less (the two targets'
    // coordinates round differently): a few pixels in a million, never a shape or a cut title.
    CHECK(d.pixels <= 32);
  }
  setRetainedEnabled(true);
}

TEST_CASE("retained: a drawing stays retained while it holds still, and a change is drawn at once") {
  auto app = testing::makeTestShell(1280, 800);
  if (!app) return;
  setRetainedEnabled(true);
  app->selectPanel(findPanel("rope"));
  REQUIRE(app->renderUntilIdle(4, 120.0));
  app->frame();
  app->frame();
  // The pairing diagram, q and k by dim, and the two curves: all still.
  const int still = retainedShownThisFrame();
  CHECK(still == 4);
  // Longer than a drawing may sit unused before its texture is given back: in use, it stays.
  int fewer = 0;
  for (int f = 0; f < 200; ++f) {
    app->frame();
    fewer += retainedShownThisFrame() < still;
  }
  CHECK(fewer == 0);
  // New q and k: their plot and the curves change, and are drawn directly in that very frame;
  // the pairing diagram does not.
  app->state().rope.seed += 1;
  app->state().rope.dirty = true;
  app->frame();
  CHECK(retainedShownThisFrame() < still);
  CHECK(retainedShownThisFrame() >= 1);
  REQUIRE(app->renderUntilIdle(4, 120.0));
  app->frame();
  app->frame();
  CHECK(retainedShownThisFrame() == still);
}

TEST_CASE("retained: at 2^20 positions a drag keeps the waiting curves retained from its first frame") {
  auto app = testing::makeTestShell(1280, 800);
  if (!app) return;
  setRetainedEnabled(true);
  app->selectPanel(findPanel("rope"));
  RopePanelState& s = app->state().rope;
  s.numPositions = 1 << 20;
  s.dirty = true;
  REQUIRE(app->renderUntilIdle(4, 300.0));
  app->frame();
  app->frame();
  REQUIRE(retainedShownThisFrame() == 4);
  // Each dragged value changes the score picture and the pair circles. The O(T) curves wait for
  // the drag to rest: their plots say "[previous value]" (drawn live) and stay textures.
  for (int f = 0; f < 10; ++f) {
    s.params.base *= 1.005;
    s.dirty = true;
    app->frame();
    CAPTURE(f);
    CHECK(retainedShownThisFrame() == 4);
  }
  CHECK(s.score.result()->curvesVersion != s.inputVersion);
}

}  // TEST_SUITE
