// posviz: the desktop app. Command-line work (export, examples, --help) goes to the CLI first;
// anything else opens the window.
//
//   posviz [--panel NAME] [--screenshot-path FILE] [--size WxH] [--no-settings] [--gl33]
//   posviz --screenshot-all DIR      render every view and save DIR/<view>.png, then exit
//   posviz --bench-frames N          drag a parameter for N frames per workload, print frame times
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>

#include "app/app_shell.hpp"
#include "app/bench_frames.hpp"
#include "app/cli.hpp"
#include "app/panels.hpp"

namespace {

void printGuiUsage() {
  std::fprintf(stderr,
               "usage: posviz [--panel NAME] [--screenshot-path FILE] [--size WxH] [--no-settings] [--gl33]\n"
               "       posviz --screenshot-all DIR\n"
               "       posviz --bench-frames N   (10 <= N <= 100000)\n"
               "       posviz --help   (export and examples commands)\n"
               "views:");
  for (const auto& p : posviz::app::panels()) std::fprintf(stderr, " %s", p.name);
  std::fprintf(stderr, "\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (const std::optional<int> rc = posviz::cli::runCli(argc, argv)) return *rc;

  posviz::app::AppOptions options;
  std::string screenshotAll;
  int benchFrames = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "posviz: %s needs a value\n", flag);
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "--panel") {
      const char* v = value("--panel");
      if (!v) return 2;
      if (posviz::app::findPanel(v) < 0) {
        std::fprintf(stderr, "posviz: --panel: unknown view '%s'\n", v);
        printGuiUsage();
        return 2;
      }
      options.startPanel = v;
    } else if (a == "--screenshot-all") {
      const char* v = value("--screenshot-all");
      if (!v) return 2;
      screenshotAll = v;
    } else if (a == "--bench-frames") {
      const char* v = value("--bench-frames");
      if (!v) return 2;
      const char* end = v + std::strlen(v);
      const auto [ptr, ec] = std::from_chars(v, end, benchFrames);
      if (ec != std::errc{} || ptr != end || benchFrames < 10 || benchFrames > 100000) {
        std::fprintf(stderr, "posviz: --bench-frames must be a whole number of frames, 10 .. 100000, got '%s'\n", v);
        return 2;
      }
    } else if (a == "--screenshot-path") {
      const char* v = value("--screenshot-path");
      if (!v) return 2;
      options.screenshotPath = v;
    } else if (a == "--size") {
      const char* v = value("--size");
      if (!v) return 2;
      int w = 0, h = 0;
      char tail = 0;
      if (std::sscanf(v, "%dx%d%c", &w, &h, &tail) != 2 || w < 320 || h < 240 || w > 16384 || h > 16384) {
        std::fprintf(stderr, "posviz: --size must be WxH with 320 <= W, 240 <= H, got '%s'\n", v);
        return 2;
      }
      options.width = w;
      options.height = h;
    } else if (a == "--no-settings") {
      options.useSettings = false;
    } else if (a == "--gl33") {
      options.forceGl33 = true;
    } else {
      std::fprintf(stderr, "posviz: unknown argument '%s'\n", a.c_str());
      printGuiUsage();
      return 2;
    }
  }
  if (!screenshotAll.empty() || benchFrames > 0) {
    // Reproducible pictures and timings: a fixed size and no saved settings.
    options.useSettings = false;
    if (options.width == 0) {
      options.width = 1440;
      options.height = 900;
    }
  }

  std::string error;
  auto app = posviz::app::AppShell::create(options, &error);
  if (!app) {
    std::fprintf(stderr, "posviz: %s\n", error.c_str());
    return 1;
  }
  if (!app->context().gpuNotice.empty()) std::fprintf(stderr, "posviz: %s\n", app->context().gpuNotice.c_str());
  if (!screenshotAll.empty()) return posviz::app::screenshotAllPanels(*app, screenshotAll) == 0 ? 0 : 1;
  if (benchFrames > 0) return posviz::app::benchFrames(*app, benchFrames);
  while (!app->shouldClose()) app->frame();
  return 0;
}
