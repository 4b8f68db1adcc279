// run_window.cpp: the window's entry point (app/window.hpp): parse the window's flags with the
// CLI's parser, open the window, then run it, its screenshots or its frame benchmark.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/window_options.hpp"
#include "app/gui/platform/platform.hpp"
#include "app/gui/shell/app_shell.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/shell/bench_frames.hpp"
#include "app/window.hpp"
#include "core/grid.hpp"
#include "core/untrusted_text.hpp"

namespace posviz {

int runWindow(int argc, char** argv) {
  cli::WindowOptions w;
  std::string optionsNotice;
  try {
    w = cli::parseWindowOptions(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const cli::UsageError& e) {
    std::fprintf(stderr, "posviz: %s\n", displayMessage(e.what()).c_str());
    // The page's options come from its address, where a shared link may carry words of its own:
    // the page opens all the same, and says what it did not take.
    if (!app::platform::hasAddress()) return 2;
    optionsNotice = "The address's options were not used (" + displayMessage(e.what(), 300) + ").";
  }
  app::AppOptions options;
  options.startPanel = w.panel;
  options.screenshotPath = w.screenshotPath;
  options.width = w.width;
  options.height = w.height;
  options.useSettings = w.useSettings;
  options.forceGl33 = w.gl33;
  // A first run opens on the Learn tab (the settings' default panel); "Start here" stays in the Help
  // menu and does not cover the path.
  options.startHere = false;

  std::string error;
  if (const std::uint64_t cap = app::platform::memoryBudgetCap(); cap > 0 && cap < memoryBudgetBytes()) setMemoryBudgetBytes(cap);
  auto app = app::AppShell::create(options, &error);
  if (!app) {
    std::fprintf(stderr, "posviz: %s\n", error.c_str());
    return 1;
  }
  if (!app->context().gpuNotice.empty()) std::fprintf(stderr, "posviz: %s\n", app->context().gpuNotice.c_str());
  if (!optionsNotice.empty()) app->state().notice = optionsNotice;
  if (w.session) app->applySession(*w.session);
  if (!w.step.empty()) app::learnGo(app->state().learn, w.step, false);  // opening on a step is no transition
  if (w.model) {
    app->showConfigNotes(w.model->name, app::applyModelConfig(app->state(), *w.model));
    if (w.panel.empty()) app->selectPanel(app::findPanel("model"));
  }
  if (!w.screenshotAll.empty()) return app::screenshotAllPanels(*app, w.screenshotAll) == 0 ? 0 : 1;
  if (!w.screenshot.empty()) {
    app->parkMouse();
    if (!app->renderUntilIdle(4, 120.0)) std::fprintf(stderr, "posviz: still computing after 120 s; saving what is drawn\n");
    std::string err;
    if (!app->frame(w.screenshot, &err)) {
      std::fprintf(stderr, "posviz: %s\n", err.c_str());
      return 1;
    }
    std::printf("%s\n", w.screenshot.c_str());
    return 0;
  }
  if (w.benchFrames > 0) return app::benchFrames(*app, w.benchFrames, w.benchTabs);
  // The page's address may hold a session (a link): it wins over the settings, as --session does.
  std::string linkError;
  if (!app->applyAddress(&linkError)) app->state().notice = linkError;
  // The loop owns the window: in the page, runFrames() never returns and the stack it was called
  // from is gone, so nothing the frames use may live there.
  app::platform::runFrames([shell = std::shared_ptr<app::AppShell>(std::move(app))] {
    if (shell->shouldClose()) return false;
    shell->frame();
    return true;
  });
  return 0;
}

}  // namespace posviz
