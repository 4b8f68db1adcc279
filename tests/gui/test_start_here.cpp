// The first-run "Start here" window: shown on a fresh settings file when the window asks for it,
// never after its dismissal is saved and read back, never unless asked (screenshots, benchmarks
// and every other test), and its three links switch the tab. Run under xvfb-run.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "app/cli/model_config.hpp"
#include "tests/gui/test_shell.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/shell/app_shell.hpp"
#include "core/lessons/lessons.hpp"

using namespace posviz::app;
using namespace posviz::cli;

namespace {

// POSVIZ_CONFIG_DIR pointed at a fresh folder for the life of the object (settings.json and
// imgui.ini go there), and put back afterwards.
struct FreshConfigDir {
  std::filesystem::path dir;
  std::string previous;
  bool hadPrevious = false;
  FreshConfigDir() {
    dir = std::filesystem::path(POSVIZ_TEST_OUT) / "start-here-config";
    std::filesystem::remove_all(dir);
    if (const char* p = std::getenv("POSVIZ_CONFIG_DIR")) {
      previous = p;
      hadPrevious = true;
    }
    setenv("POSVIZ_CONFIG_DIR", dir.c_str(), 1);
  }
  ~FreshConfigDir() {
    if (hadPrevious) setenv("POSVIZ_CONFIG_DIR", previous.c_str(), 1);
    else unsetenv("POSVIZ_CONFIG_DIR");
  }
  nlohmann::json settings() const {
    std::ifstream in(dir / "settings.json");
    if (!in) return nlohmann::json();
    return nlohmann::json::parse(in, nullptr, false);
  }
};

// A window that reads and writes the settings in POSVIZ_CONFIG_DIR; startHere as the
// interactive window sets it. nullptr (and a message) without a display.
std::unique_ptr<AppShell> makeShell(bool startHere) {
  AppOptions o;
  o.width = 1280;
  o.height = 800;
  o.useSettings = true;
  o.startHere = startHere;
  return testing::makeTestShell(o);
}

void frames(AppShell& app, int n) {
  for (int i = 0; i < n; ++i) app.frame();
}

}  // namespace

TEST_SUITE("app") {

TEST_CASE("start here: shown on a fresh settings file, saved when dismissed, never shown again") {
  FreshConfigDir cfg;
  {
    auto app = makeShell(true);
    if (!app) return;
    CHECK(app->startHereOpen());
    std::string error;
    CHECK(app->frame((cfg.dir / "start-here.png").string(), &error));   // drawn (looked at by hand)
    CHECK(app->startHereOpen());
    app->dismissStartHere();   // what "Don't show again" and the window's close button call
    CHECK_FALSE(app->startHereOpen());
    // Saved at once, not only at exit.
    const nlohmann::json j = cfg.settings();
    REQUIRE(j.is_object());
    CHECK(j.value("start_here_dismissed", false) == true);
    frames(*app, 2);
    CHECK_FALSE(app->startHereOpen());
  }
  {
    // Read back: the next start does not show it.
    auto app = makeShell(true);
    REQUIRE(app);
    CHECK_FALSE(app->startHereOpen());
    // Help > Start here still opens it, and closing it again keeps the file's record.
    app->openStartHere();
    CHECK(app->startHereOpen());
    frames(*app, 2);
    app->dismissStartHere();
  }
  CHECK(cfg.settings().value("start_here_dismissed", false) == true);
}

TEST_CASE("start here: not shown unless the window asks (screenshots, benchmarks, other tests)") {
  FreshConfigDir cfg;
  auto app = makeShell(false);
  if (!app) return;
  CHECK_FALSE(app->startHereOpen());
  frames(*app, 2);
  CHECK_FALSE(app->startHereOpen());
  // Not asking is not dismissing: a later interactive start on the same file still shows it.
  app.reset();
  CHECK(cfg.settings().value("start_here_dismissed", true) == false);
  app = makeShell(true);
  REQUIRE(app);
  CHECK(app->startHereOpen());
}

TEST_CASE("start here: each link switches to its tab with the promised content") {
  FreshConfigDir cfg;
  auto app = makeShell(true);
  if (!app) return;
  REQUIRE(app->startHereOpen());
  AppState& a = app->state();

  // The documents' first worked example, from its first step, in the Worked examples tab.
  a.examples.selected = 3;
  a.examples.step = 2;
  app->followStartHereLink(StartHereLink::FirstExample);
  frames(*app, 3);
  CHECK(app->activePanel() == findPanel("examples"));
  // A followed link closes the window, so it covers nothing of what it opened; Help brings it back.
  CHECK_FALSE(app->startHereOpen());
  app->openStartHere();
  CHECK(a.examples.selected == 0);
  CHECK(a.examples.step == 0);
  REQUIRE_FALSE(a.examples.examples.empty());
  CHECK(a.examples.examples.front().name == posviz::workedExampleNames().front());

  app->followStartHereLink(StartHereLink::Sinusoidal);
  frames(*app, 3);
  CHECK(app->activePanel() == findPanel("sinusoidal"));
  app->followStartHereLink(StartHereLink::Learn);
  frames(*app, 3);
  CHECK(app->activePanel() == findPanel("learn"));

  // A shipped published preset in the Model tab; the RoPE views get its parameters too.
  const ModelConfig want = loadPreset(kStartHerePreset);
  app->followStartHereLink(StartHereLink::ModelPreset);
  frames(*app, 3);
  CHECK(app->activePanel() == findPanel("model"));
  REQUIRE(a.model.config.has_value());
  CHECK(a.model.config->name == want.name);
  CHECK(a.rope.params.base == doctest::Approx(want.rope.base));   // 500000 for Llama 3.1
  CHECK(want.rope.base == doctest::Approx(500000.0));
  // Following a link closes the window without recording "don't show again".
  CHECK_FALSE(app->startHereOpen());
  app.reset();   // the settings are written on exit
  CHECK_FALSE(cfg.settings().value("start_here_dismissed", true));
}

TEST_CASE("settings saved under a tab's older name still load into it") {
  FreshConfigDir cfg;
  std::filesystem::create_directories(cfg.dir);
  {
    std::ofstream out(cfg.dir / "settings.json");
    out << R"({"panel": "pipeline", "panels": {"pipeline": {"rotate_values": true, "concatenate": true}, "order": {}}})";
  }
  auto app = makeShell(false);
  if (!app) return;
  frames(*app, 2);
  CHECK(app->state().pipeline.rotateValues);
  CHECK(app->state().pipeline.concatenate);
  CHECK(app->activePanel() == findPanel("where-position-enters"));
  app.reset();   // saved under the tab's own name from now on
  const nlohmann::json saved = cfg.settings();
  CHECK(saved["panel"] == "where-position-enters");
  CHECK(saved["panels"]["where-position-enters"]["rotate_values"] == true);
}

}  // TEST_SUITE
