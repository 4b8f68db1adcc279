// gpu_compute.hpp: the OpenGL 4.3 compute mirror of core's grids.
//
// CONTRACT
//   Every function here computes the same grid as the core function of the same name, within
//   the tolerance tests/gpu states (1e-4 absolute). None of them is the only way to a result:
//   computeXxx() in backend.hpp picks CPU or GPU and falls back to the CPU with a notice when the
//   GPU is missing or fails. A GpuCompute needs a current GL context (the app's window, or the
//   hidden one createHiddenContext() makes for tests and the CLI).
//
// RESULTS
//   GpuGrid keeps the result in R32F textures (tiled when larger than GL_MAX_TEXTURE_SIZE) that
//   the app can draw directly; readBack() copies it into a core Grid.
//
// FORCED FAILURES (for tests): environment variable POSVIZ_GPU_FAIL =
//   "context"  no GL context can be created
//   "compute"  the context reports no compute shaders (as GL < 4.3)
//   "compile"  every shader fails to compile
//   "dispatch" every dispatch reports failure
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/alibi.hpp"
#include "core/grid.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

namespace posviz::gpu {

struct GpuTile {
  unsigned int texture = 0;   // GL_R32F, tile.rows x tile.cols
  int row0 = 0, col0 = 0, rows = 0, cols = 0;
};

struct GpuGrid {
  int rows = 0, cols = 0;
  std::vector<GpuTile> tiles;
  ~GpuGrid();
  GpuGrid() = default;
  GpuGrid(const GpuGrid&) = delete;
  GpuGrid& operator=(const GpuGrid&) = delete;
  GpuGrid(GpuGrid&&) noexcept;
  GpuGrid& operator=(GpuGrid&&) noexcept;
  Grid readBack() const;
};

class GpuCompute {
 public:
  // Compiles the embedded shaders in the current context. On failure returns nullptr and sets
  // *why ("no compute shaders: GL 3.3 context", "shader sinusoidal.comp failed: <log>").
  static std::unique_ptr<GpuCompute> create(std::string* why);
  ~GpuCompute();

  // Each returns nullopt and sets lastError() when the dispatch fails.
  std::optional<GpuGrid> sinusoidalGrid(const SinusoidalParams& p, int numPositions, long long firstPos = 0);
  std::optional<GpuGrid> ropeAngleGrid(const RopeParams& p, int numPositions, long long firstPos = 0);
  std::optional<GpuGrid> ropeCosGrid(const RopeParams& p, int numPositions, long long firstPos = 0);
  std::optional<GpuGrid> ropeSinGrid(const RopeParams& p, int numPositions, long long firstPos = 0);
  std::optional<GpuGrid> ropeScoreGrid(const RopeParams& p, std::span<const float> q, std::span<const float> k,
                                       int numPositions, long long firstPos = 0);
  std::optional<GpuGrid> alibiBiasGrid(double slope, int numPositions, bool causal);

  const std::string& lastError() const { return lastError_; }
  int maxTextureSize() const { return maxTextureSize_; }

 private:
  GpuCompute() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string lastError_;
  int maxTextureSize_ = 0;
};

// A hidden GLFW window with a GL 4.3 core context, made current. nullptr + *why on failure.
struct HiddenContext;
std::unique_ptr<HiddenContext, void (*)(HiddenContext*)> createHiddenContext(std::string* why);

}  // namespace posviz::gpu
