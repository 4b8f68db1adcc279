#include "core/gpu/backend.hpp"

#include <chrono>
#include <cstdlib>
#include <string>
#include <functional>
#include <stdexcept>

namespace posviz::gpu {

namespace {

// Runs the GPU path when it is wanted and possible, else (or when it fails) core. Bad input and
// grids over the memory budget throw std::invalid_argument from either path, as core does.
Computed runOn(GpuCompute* gpu, Backend b, long long cells, const std::function<std::optional<GpuGrid>(GpuCompute&)>& onGpu,
               const std::function<Grid()>& onCpu) {
  const auto start = std::chrono::steady_clock::now();
  Computed c;
  const bool bigEnough = cells >= kGpuThresholdCells;
  if (b == Backend::Auto && bigEnough && gpu != nullptr && !autoUsesGpu(gpu)) b = Backend::Cpu;
  const bool wanted = b == Backend::Gpu || (b == Backend::Auto && bigEnough);
  if (wanted && gpu != nullptr) {
    try {
      if (std::optional<GpuGrid> g = onGpu(*gpu)) {
        c.grid = g->readBack();
        c.onGpu = true;
      } else {
        c.notice = "computed on the CPU: " + gpu->lastError();
      }
    } catch (const std::runtime_error& e) {
      c.notice = std::string("computed on the CPU: ") + e.what();
    }
  } else if (wanted) {
    const std::string reason = gpuUnavailableReason();
    // Auto without a GpuCompute stays quiet unless creating one failed: then the user should know.
    if (b == Backend::Gpu || !reason.empty())
      c.notice = "computed on the CPU: GPU unavailable (" + (reason.empty() ? std::string("no GPU compute backend") : reason) + ")";
  }
  if (!c.onGpu) c.grid = onCpu();
  c.millis = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return c;
}

long long cellsOf(long long rows, long long cols) { return rows > 0 && cols > 0 ? rows * cols : 0; }

}  // namespace

bool autoUsesGpu(const GpuCompute* gpu) {
  if (gpu == nullptr) return false;
  if (!gpu->softwareRenderer()) return true;
  const char* allow = std::getenv("POSVIZ_AUTO_SOFTWARE_GPU");
  return allow != nullptr && std::string(allow) == "1";
}

Computed computeSinusoidalGrid(GpuCompute* gpu, Backend b, const SinusoidalParams& p, int numPositions, long long firstPos) {
  return runOn(
      gpu, b, cellsOf(numPositions, p.dModel),
      [&](GpuCompute& g) { return g.sinusoidalGrid(p, numPositions, firstPos); },
      [&] { return sinusoidalGrid(p, numPositions, firstPos); });
}

Computed computeRopeAngleGrid(GpuCompute* gpu, Backend b, const RopeParams& p, int numPositions, long long firstPos) {
  return runOn(
      gpu, b, cellsOf(numPositions, ropeNumPairs(p)),
      [&](GpuCompute& g) { return g.ropeAngleGrid(p, numPositions, firstPos); },
      [&] { return ropeAngleGrid(p, numPositions, firstPos); });
}

Computed computeRopeCosGrid(GpuCompute* gpu, Backend b, const RopeParams& p, int numPositions, long long firstPos) {
  return runOn(
      gpu, b, cellsOf(numPositions, ropeNumPairs(p)),
      [&](GpuCompute& g) { return g.ropeCosGrid(p, numPositions, firstPos); },
      [&] { return ropeCosGrid(p, numPositions, firstPos); });
}

Computed computeRopeSinGrid(GpuCompute* gpu, Backend b, const RopeParams& p, int numPositions, long long firstPos) {
  return runOn(
      gpu, b, cellsOf(numPositions, ropeNumPairs(p)),
      [&](GpuCompute& g) { return g.ropeSinGrid(p, numPositions, firstPos); },
      [&] { return ropeSinGrid(p, numPositions, firstPos); });
}

Computed computeRopeScoreGrid(GpuCompute* gpu, Backend b, const RopeParams& p, std::span<const float> q,
                              std::span<const float> k, int numPositions, long long firstPos) {
  return runOn(
      gpu, b, cellsOf(numPositions, numPositions),
      [&](GpuCompute& g) { return g.ropeScoreGrid(p, q, k, numPositions, firstPos); },
      [&] { return ropeScoreGrid(p, q, k, numPositions, firstPos); });
}

Computed computeAlibiBiasGrid(GpuCompute* gpu, Backend b, double slope, int numPositions, bool causal) {
  return runOn(
      gpu, b, cellsOf(numPositions, numPositions),
      [&](GpuCompute& g) { return g.alibiBiasGrid(slope, numPositions, causal); },
      [&] { return alibiBiasGrid(slope, numPositions, causal); });
}

}  // namespace posviz::gpu
