// bench_frames.hpp: `posviz --bench-frames N`, the frame-time benchmark of the live views.
//
// WHAT
//   For each workload (a view at a grid size), drags one parameter by a small step on every
//   frame, as a slider drag does, for N frames, and prints the p50 / p95 / max frame times, how
//   many frames showed a new picture, and how long the last picture took to arrive after the
//   drag stopped; then the CPU a dragged frame cost each kind of thread (the frame loop, the GL
//   driver, the views' jobs), which says where a slower workload's time went. The views compute
//   the visible window on a worker thread, so frame times must not grow with the grid: the last
//   lines compare each workload's p95 to the sinusoidal 512 x 64 one's. The workloads
//   (bench_workloads.hpp): sinusoidal and RoPE score from 512 to 2^31 positions, then every other
//   tab at the largest setting its sliders reach, its heaviest parameter dragged.
#pragma once

#include <string>
#include <vector>

namespace posviz::app {

class AppShell;

// Runs the benchmark in app's window; prints the table to stdout. 0 on success, 1 when a view
// did not settle (a result never arrived).
// tabs: only the workloads of these tabs (panels.hpp names); empty: every workload.
int benchFrames(AppShell& app, int frames, const std::vector<std::string>& tabs = {});

}  // namespace posviz::app
