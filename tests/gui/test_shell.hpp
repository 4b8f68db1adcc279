// test_shell.hpp: the window the view tests draw into.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "app/gui/shell/app_shell.hpp"

namespace posviz::app::testing {

// A window with options o, the pointer parked off
// it, drawing continuously (no idle wait between frames). nullptr with a loud message when there
// is no display, which fails the test in CI (CI=true).
inline std::unique_ptr<AppShell> makeTestShell(const AppOptions& o) {
  std::string error;
  // Right after a long burst of frames the X server can refuse a new connection for a moment
  // (seen once with Xvfb after the soak test): a few tries, a quarter second apart.
  std::unique_ptr<AppShell> app;
  for (int attempt = 0; attempt < 8 && !app; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    app = AppShell::create(o, &error);
  }
  if (!app) {
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true") FAIL("no window in CI: " << error);
    MESSAGE("SKIPPED: no window (" << error << "); run under xvfb-run");
    return app;
  }
  app->parkMouse();
  app->setContinuous(true);
  return app;
}

// A width x height window with default settings (none read or written).
inline std::unique_ptr<AppShell> makeTestShell(int width, int height) {
  AppOptions o;
  o.width = width;
  o.height = height;
  o.useSettings = false;
  return makeTestShell(o);
}

}  // namespace posviz::app::testing
