// backend.hpp: one entry point per grid that picks the CPU (core) or the GPU mirror.
//
//   Auto: GPU when a GpuCompute is available, is not a software renderer (autoUsesGpu), and the
//         grid has at least kGpuThresholdCells cells; CPU otherwise. Cpu: always core. Gpu: GPU when available, else CPU + notice.
//   Whenever the GPU was wanted but could not deliver (no context, no compute, compile or
//   dispatch failure), the result comes from core and `notice` says why. Never blank, never stale.
//
//   NOTICES start with "computed on the CPU: " and then name the cause: the GpuCompute's
//   lastError() ("ropeCosGrid: dispatch failed (forced by POSVIZ_GPU_FAIL=dispatch)"), or, with
//   no GpuCompute, gpuUnavailableReason() ("GPU unavailable (no compute shaders: GL 3.3 ...)").
//   Auto without a GpuCompute stays silent unless creating one failed.
//
//   ERRORS: bad arguments and grids over core's memory budget throw std::invalid_argument with
//   core's message on every path (no backend can make them valid), before anything is computed.
//
//   millis is the wall time of the whole call, the GPU's read-back included.
#pragma once

#include <string>

#include "core/gpu/gpu_compute.hpp"

namespace posviz::gpu {

enum class Backend { Auto, Cpu, Gpu };
constexpr long long kGpuThresholdCells = 1 << 20;

// Whether Auto may use this GpuCompute. A software renderer (Mesa llvmpipe, softpipe, swrast)
// runs shaders on the same CPU cores, several times slower than core's own loops, so Auto keeps
// to the CPU there; Gpu still uses it. POSVIZ_AUTO_SOFTWARE_GPU=1 lets Auto use it anyway.
bool autoUsesGpu(const GpuCompute* gpu);

struct Computed {
  Grid grid;
  bool onGpu = false;       // where it was actually computed
  std::string notice;       // non-empty when the GPU was wanted but the CPU answered
  double millis = 0.0;
};

Computed computeSinusoidalGrid(GpuCompute* gpu, Backend b, const SinusoidalParams& p, int numPositions, long long firstPos = 0);
Computed computeRopeAngleGrid(GpuCompute* gpu, Backend b, const RopeParams& p, int numPositions, long long firstPos = 0);
Computed computeRopeCosGrid(GpuCompute* gpu, Backend b, const RopeParams& p, int numPositions, long long firstPos = 0);
Computed computeRopeSinGrid(GpuCompute* gpu, Backend b, const RopeParams& p, int numPositions, long long firstPos = 0);
Computed computeRopeScoreGrid(GpuCompute* gpu, Backend b, const RopeParams& p, std::span<const float> q,
                              std::span<const float> k, int numPositions, long long firstPos = 0);
Computed computeAlibiBiasGrid(GpuCompute* gpu, Backend b, double slope, int numPositions, bool causal);

}  // namespace posviz::gpu
