#include "core/untrusted_text.hpp"
#include "app/cli/window_options.hpp"

#include <cstdio>

#include "app/cli/tabs.hpp"
#include "core/lessons/learn.hpp"

namespace posviz::cli {

const std::vector<OptionSpec>& windowOptionSpecs() {
  static const std::vector<OptionSpec> kSpecs = {
      {"--panel", true, "NAME", "open on this tab: " + tabList(" ")},
      {"--step", true, "STEP", "open the Learn tab on this step (posviz learn --list names them)"},
      {"--screenshot-path", true, "FILE", "where F12 saves a screenshot (default ./posviz-<tab>-<n>.png)"},
      {"--screenshot-all", true, "DIR", "render every tab to DIR/<tab>.png at 1440x900, then exit"},
      {"--screenshot", true, "FILE", "render the start tab (--panel) to FILE.png at 1440x900 (or --size), then exit"},
      {"--config", true, "FILE", "open with this model config.json applied to every tab (as File > Open config); Model tab"},
      {"--preset", true, "NAME", "open with a shipped model preset applied (posviz --help lists them); Model tab"},
      {"--bench-frames", true, "N", "frame benchmark: drag a parameter for N frames (10..100000) per workload"},
      {"--bench-tabs", true, "LIST", "with --bench-frames: only these tabs' workloads, comma-separated (" + tabList(" ") + ")"},
      {"--size", true, "WxH", "window size in pixels, 320x240 .. 16384x16384 (default: last size)"},
      {"--no-settings", false, "", "neither read nor write settings.json and imgui.ini"},
      {"--gl33", false, "", "ask for an OpenGL 3.3 context (no compute shaders: the CPU computes)"},
      {"--session", true, "FILE", "open a session saved by File > Save session (.posviz), or a file holding a copied session line"},
  };
  return kSpecs;
}

namespace {

void parseSize(const std::string& text, WindowOptions& w) {
  int width = 0, height = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%dx%d%c", &width, &height, &tail) != 2 || width < 320 || height < 240 ||
      width > 16384 || height > 16384) {
    throw UsageError("--size: got " + quotedText(text) + ", expected WxH with 320 <= W <= 16384 and 240 <= H <= 16384");
  }
  w.width = width;
  w.height = height;
}

}  // namespace

WindowOptions parseWindowOptions(const std::vector<std::string>& args) {
  const ParsedOptions o = parseOptions(args, windowOptionSpecs());
  if (!o.positional.empty()) {
    throw UsageError("unknown command " + quotedText(o.positional[0]) + "; commands: export, examples, learn, model (posviz --help)");
  }
  WindowOptions w;
  if (auto p = o.value("--panel")) {
    const TabDef* tab = findTab(*p);
    if (tab == nullptr) throw UsageError("--panel: got " + quotedText(*p) + ", expected one of " + tabList(", "));
    w.panel = tab->name;
  }
  if (auto p = o.value("--step")) {
    if (!learn::findStep(*p))
      throw UsageError("--step: got " + quotedText(*p) + ", expected a Learn step id; posviz learn --list shows the " +
                       std::to_string(learn::stepCount()) + " steps");
    if (!w.panel.empty() && w.panel != "learn") throw UsageError("--step: a Learn step, but --panel " + w.panel + " was given; use --panel learn or leave --panel out");
    w.step = *p;
    w.panel = "learn";
  }
  if (auto p = o.value("--screenshot-path")) w.screenshotPath = *p;
  if (auto p = o.value("--screenshot-all")) {
    if (p->empty()) throw UsageError("--screenshot-all: got \"\", expected a folder");
    w.screenshotAll = *p;
  }
  if (auto p = o.value("--screenshot")) {
    if (p->size() < 5 || p->substr(p->size() - 4) != ".png") throw UsageError("--screenshot: got " + quotedText(*p) + ", expected a file name ending in .png");
    w.screenshot = *p;
  }
  if (auto p = o.value("--session")) {
    try {
      w.session = readSessionFile(*p);
    } catch (const SessionError& e) {
      throw UsageError(std::string("--session: ") + e.what());
    }
  }
  if (o.has("--config") && o.has("--preset")) throw UsageError("--config: given together with --preset; give one");
  try {
    if (auto c = o.value("--config")) w.model = loadModelConfig(*c);
  } catch (const ConfigError& e) {
    throw UsageError(std::string("--config: ") + e.what());
  }
  try {
    if (auto c = o.value("--preset")) w.model = loadPreset(*c);
  } catch (const ConfigError& e) {
    throw UsageError(std::string("--preset: ") + e.what());
  }
  if (auto p = o.value("--bench-frames")) w.benchFrames = static_cast<int>(parseIntOption("--bench-frames", *p, 10, 100000));
  if (auto p = o.value("--bench-tabs")) {
    if (w.benchFrames == 0) throw UsageError("--bench-tabs: applies to --bench-frames only");
    std::size_t at = 0;
    while (at <= p->size()) {
      const std::size_t comma = std::min(p->find(',', at), p->size());
      const std::string name = p->substr(at, comma - at);
      const TabDef* tab = findTab(name);
      if (tab == nullptr) throw UsageError("--bench-tabs: got " + quotedText(name) + ", expected tab names from " + tabList(", "));
      w.benchTabs.push_back(tab->name);
      at = comma + 1;
    }
  }
  if (auto p = o.value("--size")) parseSize(*p, w);
  w.useSettings = !o.has("--no-settings");
  w.gl33 = o.has("--gl33");
  if (!w.screenshotAll.empty() || !w.screenshot.empty() || w.benchFrames > 0) {
    // Reproducible pictures and timings: a fixed size and no saved settings.
    w.useSettings = false;
    if (w.width == 0) {
      w.width = 1440;
      w.height = 900;
    }
  }
  return w;
}

}  // namespace posviz::cli
