// gpu_compute.hpp: the OpenGL 4.3 compute mirror of core's grids.
//
// CONTRACT
//   Every function here computes the same grid as the core function of the same name, within
//   the tolerance tests/gpu states (1e-4 absolute). None of them is the only way to a result:
//   computeXxx() in backend.hpp picks CPU or GPU and falls back to the CPU with a notice when the
//   GPU is missing or fails. A GpuCompute needs a current GL context made by GLFW (the app's
//   window, or the hidden one createHiddenContext() makes for tests and the CLI).
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
//   (several may be given, comma-separated). createHiddenContext() reads "context",
//   GpuCompute::create() reads the others, so set the variable before the call it should affect.
//
// ERRORS
//   Invalid arguments and grids over core's memory budget throw std::invalid_argument exactly as
//   the core function of the same name does, before any GL call or allocation. Everything the
//   GPU cannot do (a GL error, an out-of-memory texture, positions past 2^24, a forced failure)
//   returns nullopt with lastError() naming the function and the cause; the GL state is left
//   clean. Debug builds (NDEBUG undefined) also route GL debug messages into lastError().
//
// ACCURACY
//   Angles pos * theta are formed in two-float arithmetic from core's float64 frequencies and
//   reduced modulo pi/2 before float sin/cos (shaders/precise_angle.glsl): angles, sin, cos and
//   the sinusoidal PE agree with core to < 1e-6 for positions below 2^24 (larger positions are
//   refused: nullopt). Score grids add compensated float32 sums over headDim (~1e-7 of |s|); ALiBi
//   biases are rounded exactly as core rounds them.
//
// THREADS / LIFETIME
//   Use a GpuCompute and its GpuGrids only on the thread whose context is current, and destroy
//   them while that context is still current (or after it is gone: then nothing is freed).
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

// Tiles cover the grid row-major: tile (row0, col0) holds rows row0 .. row0+rows-1 and cols
// col0 .. col0+cols-1; texel (x, y) of a tile is grid cell (row0 + y, col0 + x).
struct GpuGrid {
  int rows = 0, cols = 0;
  std::vector<GpuTile> tiles;
  ~GpuGrid();
  GpuGrid() = default;
  GpuGrid(const GpuGrid&) = delete;
  GpuGrid& operator=(const GpuGrid&) = delete;
  GpuGrid(GpuGrid&&) noexcept;
  GpuGrid& operator=(GpuGrid&&) noexcept;
  // Copies every tile into a core Grid (glGetTexImage), in the context that made the grid (it
  // must be current). Throws std::runtime_error naming the GL error if the copy fails.
  Grid readBack() const;
};

class GpuCompute {
 public:
  // Compiles the embedded shaders in the current context. On failure returns nullptr and sets
  // *why ("no compute shaders: GL 3.3 context", "shader sinusoidal.comp failed to compile
  // (sources: 1 = sinusoidal.comp, 2 = precise_angle.glsl): 1:12(3): error: ...").
  // The info log's "N:LINE" names the source by number as listed.
  static std::unique_ptr<GpuCompute> create(std::string* why);
  ~GpuCompute();

  // Each returns nullopt and sets lastError() when the GPU cannot deliver, and throws
  // std::invalid_argument on bad input or an over-budget grid (see ERRORS above).
  std::optional<GpuGrid> sinusoidalGrid(const SinusoidalParams& p, int numPositions, long long firstPos = 0);
  std::optional<GpuGrid> ropeAngleGrid(const RopeParams& p, int numPositions, long long firstPos = 0);
  std::optional<GpuGrid> ropeCosGrid(const RopeParams& p, int numPositions, long long firstPos = 0);
  std::optional<GpuGrid> ropeSinGrid(const RopeParams& p, int numPositions, long long firstPos = 0);
  std::optional<GpuGrid> ropeScoreGrid(const RopeParams& p, std::span<const float> q, std::span<const float> k,
                                       int numPositions, long long firstPos = 0);
  std::optional<GpuGrid> alibiBiasGrid(double slope, int numPositions, bool causal);

  // Recompiles every kernel from shaderDir (e.g. the source tree's shaders/) for shader work
  // without a rebuild. All or nothing: if any fails, returns false with *why (file and info
  // log) and keeps the last good programs.
  bool reloadShaders(const std::string& shaderDir, std::string* why);

  const std::string& lastError() const { return lastError_; }
  int maxTextureSize() const { return maxTextureSize_; }  // GL_MAX_TEXTURE_SIZE
  const std::string& renderer() const { return renderer_; }  // GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
  // True for CPU rasterizers (Mesa llvmpipe/softpipe, SwiftShader): correct, but usually slower
  // than core on large grids, which a UI may want to say next to the GPU choice.
  bool softwareRenderer() const;

  // Tiles at most size x size texels (never more than maxTextureSize()); 0 restores the
  // default. Lets tests exercise tiling with small grids.
  void setMaxTileSizeForTesting(int size);
  int tileSize() const;  // the edge length tiles are cut to now

 private:
  GpuCompute() = default;
  std::optional<GpuGrid> ropeTrigGrid(const char* fn, const RopeParams& p, int numPositions, long long firstPos,
                                      int kind);
  std::optional<GpuGrid> fail(const std::string& message);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string lastError_;
  std::string renderer_;
  int maxTextureSize_ = 0;
};

// A hidden GLFW window with a GL 4.3 core forward-compatible context (a debug context when
// NDEBUG is undefined), made current. nullptr + *why on failure. Initializes GLFW if needed and
// leaves it initialized (the caller may glfwTerminate() at exit).
struct HiddenContext;
std::unique_ptr<HiddenContext, void (*)(HiddenContext*)> createHiddenContext(std::string* why);

// Why the GPU is unavailable: the message of the last createHiddenContext() or
// GpuCompute::create() that failed; "" once one succeeded. The computeXxx() notices quote it
// when they get no GpuCompute. Thread-safe.
std::string gpuUnavailableReason();

}  // namespace posviz::gpu
