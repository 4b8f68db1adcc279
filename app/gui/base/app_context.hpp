// app_context.hpp: what every panel may use besides its own state: the compute backend, the
// status bar, notices and the font scale. Owned by main(), passed to each draw function.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/view_call.hpp"
#include "core/colormap.hpp"
#include "core/grid.hpp"

#include "core/gpu/backend.hpp"

namespace posviz::app {

// The backend menu's choice is the GPU layer's own: Auto, Cpu or Gpu.
using BackendChoice = gpu::Backend;

struct StatusInfo {               // the active panel fills this each frame
  std::string backend;            // "CPU", "GPU", "CPU (GPU unavailable: ...)"
  std::string gridSize;           // "131072 x 128 (64.0 MiB)"
  double computeMs = 0.0;         // last computation's wall time
  bool busy = false;              // a computation is running (last result stays up)
  float progress = -1.0f;         // 0..1 when known, < 0 otherwise
  bool animating = false;         // the view moves on its own (play): keep drawing frames
};

// What a tab offers to File > Export: its PanelDef::exports builds it from the tab's state when the
// File menu opens (never every frame).
struct ExportableView {
  std::string name;                       // file-name stem: "sinusoidal-pe", "alibi-bias-head3"
  std::string caption;                    // parameters, for PNG captions: "d_model=128 base=10000 ..."
  std::string rowTitle, colTitle, valueName;
  Colormap colormap = Colormap::Viridis;
  bool symmetricRange = false;            // diverging: colorbar centred on 0
  // The main heatmap as a typed `posviz export` call: File > Export writes exactly what the command
  // line writes, and shows that command.
  std::optional<cli::ViewCall> call;
  // The main plot's data as CSV columns of equal lengths, computed when exported: a 2^20-position
  // curve is no thing to copy while a menu is open.
  std::vector<std::string> plotColumnNames;
  std::function<std::vector<std::vector<double>>()> plotColumns;
  bool empty() const { return !call && !plotColumns; }
};

struct AppContext {
  gpu::GpuCompute* gpu = nullptr;     // null or unusable: everything runs on the CPU
  BackendChoice backend = BackendChoice::Auto;
  std::string gpuNotice;              // non-empty: shown as a visible notice (why CPU is used)
  StatusInfo status;
  float uiScale = 1.0f;               // DPI scale for sizes
  long long frame = 0;
  int backendEpoch = 0;               // bumps when `backend` changes: views recompute
  double time = 0.0;                  // seconds since start (animation)
  float deltaTime = 0.0f;             // seconds since the last frame
};

// BackendChoice lists Auto, Cpu, Gpu in gpu::Backend's order: static_cast converts.

}  // namespace posviz::app
