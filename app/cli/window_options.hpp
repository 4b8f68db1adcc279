// window_options.hpp: the window's command-line flags, parsed by the same parser as every CLI
// command (app/cli/args.hpp), so `posviz --help` lists them and a headless build can say what it
// cannot do.
//   posviz [--panel NAME] [--step STEP] [--screenshot-path FILE] [--size WxH] [--no-settings] [--gl33]
//   posviz --screenshot-all DIR      render every tab and save DIR/<tab>.png, then exit
//   posviz --screenshot FILE         render the start tab (--panel) and save FILE, then exit
//   posviz --config FILE | --preset NAME   open with a model's config applied (as File > Open config)
//   posviz --bench-frames N [--bench-tabs LIST]   drag a parameter for N frames per workload (of
//                                    every tab, or those listed), print frame times
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "app/cli/model_config.hpp"
#include "app/cli/session.hpp"

namespace posviz::cli {

struct WindowOptions {
  std::string panel;            // a tab name (app/cli/tabs.hpp), aliases resolved; "" = from settings
  std::string step;             // a Learn step id (core/lessons/learn.hpp); implies --panel learn
  std::string screenshotPath;   // F12 writes here; "" = ./posviz-<tab>-<n>.png
  std::string screenshotAll;    // non-empty: render every tab into this folder and exit
  std::string screenshot;       // non-empty: render the start tab into this PNG and exit
  std::optional<ModelConfig> model;   // --config / --preset, loaded and checked
  int benchFrames = 0;          // > 0: run the frame benchmark with this many frames and exit
  std::vector<std::string> benchTabs;   // --bench-tabs: only these tabs' workloads (empty: every tab)
  int width = 0, height = 0;    // window size in pixels; 0 = from settings
  bool useSettings = true;      // read and write settings.json and imgui.ini
  bool gl33 = false;            // a 3.3 context without compute shaders (tests the CPU fallback)
  std::optional<Session> session;   // --session FILE, read and checked (app/cli/session.hpp)
};

const std::vector<OptionSpec>& windowOptionSpecs();

// args: argv without the program name. Throws UsageError naming the flag, the value and what is
// allowed. --screenshot-all, --screenshot and --bench-frames imply a fixed 1440x900 window without
// settings (unless --size).
WindowOptions parseWindowOptions(const std::vector<std::string>& args);

}  // namespace posviz::cli
