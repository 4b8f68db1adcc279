// bench_workloads.hpp: what `posviz --bench-frames` drags in each tab (bench_frames.cpp).
//
// One workload a tab: the tab at its largest setting, where its slider ends (Param::spanMax(), or
// the tab's own cap), with its heaviest parameter (the one whose change recomputes the most)
// moved a little every frame, as a slow slider drag. Names start with the tab's title. Each
// setSize puts the dragged value back where the drag starts, so every round begins alike.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace posviz::app {

struct AppState;

struct Workload {
  std::string name;
  const char* panel;                              // panels.hpp name
  std::function<void(AppState&)> setSize;
  std::function<void(AppState&, int)> drag;       // frame i of the drag
  std::function<long long(AppState&)> shown;      // changes when a new result is on screen; -1 = none
};

// Sinusoidal and RoPE score at the sizes the closed-form pictures promise (bench_frames.cpp's
// first eight), then one workload for each other tab.
std::vector<Workload> benchWorkloads();

}  // namespace posviz::app
