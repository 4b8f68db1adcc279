// bench_frames.cpp: see bench_frames.hpp.
#include "app/gui/shell/bench_frames.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/gui/shell/app_shell.hpp"
#include "app/gui/panels/panels.hpp"

namespace posviz::app {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const std::size_t i = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// One workload: a view, a size, the parameter the drag moves, and the version of the picture
// on screen (so that frames showing a new result can be counted).
struct Workload {
  std::string name;
  const char* panel;
  std::function<void(AppState&)> setSize;
  std::function<void(AppState&, int)> drag;      // frame i of the drag
  std::function<long long(AppState&)> shown;     // version of the picture shown, -1 = none
};

std::vector<Workload> workloads() {
  auto sinusoidal = [](int positions, int dModel) {
    return Workload{
        "sinusoidal " + std::to_string(positions) + " x " + std::to_string(dModel), "sinusoidal",
        [positions, dModel](AppState& s) {
          SinusoidalPanelState& p = s.sinusoidal;
          p.numPositions = positions;
          p.params.dModel = dModel;
          p.params.base = 10000.0;
          p.view = SinusoidalView::Encoding;
          p.selectView = true;
          p.peMap.resetView();
          p.dirty = true;
        },
        [](AppState& s, int i) {   // base from 10000 upwards, 0.5 % per frame: a slow slider drag
          s.sinusoidal.params.base = 10000.0 * (1.0 + 0.005 * (i + 1));
          s.sinusoidal.dirty = true;
        },
        [](AppState& s) { return s.sinusoidal.peImage.result() ? s.sinusoidal.peImage.result()->version : -1LL; }};
  };
  auto ropeScore = [](int positions) {
    return Workload{
        "RoPE score s(m, n) " + std::to_string(positions) + " x " + std::to_string(positions), "rope",
        [positions](AppState& s) {
          RopePanelState& p = s.rope;
          p.numPositions = positions;
          p.params.base = 10000.0;
          p.gridKind = RopeGridKind::Score;
          p.dirty = true;
        },
        [](AppState& s, int i) {
          s.rope.params.base = 10000.0 * (1.0 + 0.005 * (i + 1));
          s.rope.dirty = true;
        },
        [](AppState& s) { return s.rope.score.result() ? s.rope.score.result()->inputVersion : -1LL; }};
  };
  return {sinusoidal(512, 64),   sinusoidal(131072, 128), sinusoidal(32768, 4096), sinusoidal(2147483647, 4096),
          ropeScore(512),        ropeScore(16384),        ropeScore(1 << 20)};
}

}  // namespace

int benchFrames(AppShell& app, int frames) {
  app.setContinuous(true);
  app.parkMouse();
  std::printf("frame benchmark: %d frames per workload, one parameter dragged every frame, window %dx%d\n", frames,
              app.framebufferWidth(), app.framebufferHeight());
  std::printf("%-34s %9s %9s %9s %12s %14s\n", "workload", "p50 ms", "p95 ms", "max ms", "new pictures",
              "settle ms");
  int status = 0;
  double smallSinP95 = 0.0, bigSinP95 = 0.0, smallP50 = 0.0;
  std::vector<std::pair<std::string, std::pair<double, double>>> ratios;   // name -> (p50, p95)
  for (const Workload& w : workloads()) {
    app.selectPanel(findPanel(w.panel));
    w.setSize(app.state());
    if (!app.renderUntilIdle(4, 300.0)) {
      std::printf("%-34s did not settle in 300 s\n", w.name.c_str());
      status = 1;
      continue;
    }
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(frames));
    long long lastShown = w.shown(app.state());
    int newPictures = 0;
    for (int i = 0; i < frames; ++i) {
      w.drag(app.state(), i);
      const Clock::time_point t0 = Clock::now();
      app.frame();
      times.push_back(msSince(t0));
      const long long v = w.shown(app.state());
      if (v != lastShown) {
        ++newPictures;
        lastShown = v;
      }
    }
    // After the drag stops: how long until the picture for the last value is on screen.
    const Clock::time_point t0 = Clock::now();
    const bool settled = app.renderUntilIdle(2, 300.0);
    const double settleMs = msSince(t0);
    const double p50 = percentile(times, 0.50), p95 = percentile(times, 0.95);
    const double worst = *std::max_element(times.begin(), times.end());
    std::printf("%-34s %9.2f %9.2f %9.2f %12d %14.1f%s\n", w.name.c_str(), p50, p95, worst, newPictures, settleMs,
                settled ? "" : "  (did not settle)");
    std::fflush(stdout);
    if (!settled) status = 1;
    if (w.name == "sinusoidal 512 x 64") {
      smallSinP95 = p95;
      smallP50 = p50;
    }
    ratios.push_back({w.name, {p50, p95}});
    if (w.name == "sinusoidal 131072 x 128") bigSinP95 = std::max(bigSinP95, p95);
    if (w.name == "sinusoidal 32768 x 4096") bigSinP95 = std::max(bigSinP95, p95);
  }
  if (smallSinP95 > 0.0) {
    std::printf("p95 ratio, largest sinusoidal grid / 512 x 64: %.2f (target <= 1.5)\n", bigSinP95 / smallSinP95);
    // The closed-form pictures' promise: the largest grids of each kind cost what 512 x 64 does.
    for (const auto& [name, t] : ratios)
      if (name == "sinusoidal 2147483647 x 4096" || name == "RoPE score s(m, n) 1048576 x 1048576")
        std::printf("p95 ratio, %s / sinusoidal 512 x 64: %.2f (target <= 1.2)\n", name.c_str(), t.second / smallSinP95);
    // Every workload against the smallest: the closed-form pictures keep these near 1 at any size.
    for (const auto& [name, t] : ratios)
      std::printf("ratio vs sinusoidal 512 x 64, %-34s p50 %.2f  p95 %.2f\n", name.c_str(), t.first / smallP50,
                  t.second / smallSinP95);
  }
  app.setContinuous(false);
  return status;
}

}  // namespace posviz::app
