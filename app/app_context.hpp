// app_context.hpp: what every panel may use besides its own state: the compute backend, the
// status bar, notices and the font scale. Owned by main(), passed to each draw function.
#pragma once

#include <string>

namespace posviz::gpu { class GpuCompute; }

namespace posviz::app {

enum class BackendChoice { Auto, Cpu, Gpu };

struct StatusInfo {               // the active panel fills this each frame
  std::string backend;            // "CPU", "GPU", "CPU (GPU unavailable: ...)"
  std::string gridSize;           // "131072 x 128 (64.0 MiB)"
  double computeMs = 0.0;         // last computation's wall time
  bool busy = false;              // a computation is running (last result stays up)
  float progress = -1.0f;         // 0..1 when known, < 0 otherwise
};

struct AppContext {
  gpu::GpuCompute* gpu = nullptr;     // null or unusable: everything runs on the CPU
  BackendChoice backend = BackendChoice::Auto;
  std::string gpuNotice;              // non-empty: shown as a visible notice (why CPU is used)
  StatusInfo status;
  float uiScale = 1.0f;               // DPI scale for sizes
  long long frame = 0;
};

}  // namespace posviz::app
