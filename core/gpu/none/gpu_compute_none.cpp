// gpu_compute_none.cpp: GpuCompute where there are no compute shaders (the browser build: WebGL 2
// is OpenGL ES 3.0). create() makes nothing and says why, so backend.cpp's computeXxx() answer
// every grid with core's numbers, and the status line names the CPU as the backend.
// gpu_compute.hpp is the contract; nothing here computes.
#include <stdexcept>

#include "core/gpu/gpu_compute.hpp"

namespace posviz::gpu {

namespace {
constexpr const char* kWhy = "WebGL 2 has no compute shaders";
}

struct GpuCompute::Impl {};
struct HiddenContext {};

GpuGrid::~GpuGrid() = default;
GpuGrid::GpuGrid(GpuGrid&& o) noexcept : rows(o.rows), cols(o.cols), tiles(std::move(o.tiles)) {}
GpuGrid& GpuGrid::operator=(GpuGrid&& o) noexcept {
  rows = o.rows;
  cols = o.cols;
  tiles = std::move(o.tiles);
  return *this;
}
Grid GpuGrid::readBack() const { throw std::runtime_error(std::string("GpuGrid::readBack: ") + kWhy); }

std::unique_ptr<GpuCompute> GpuCompute::create(std::string* why) {
  if (why) *why = kWhy;
  return nullptr;
}
GpuCompute::~GpuCompute() = default;

// No GpuCompute is ever made, so the members below are never called; they answer as a failed GPU.
std::optional<GpuGrid> GpuCompute::fail(const std::string& message) {
  lastError_ = message;
  return std::nullopt;
}
std::optional<GpuGrid> GpuCompute::sinusoidalGrid(const SinusoidalParams&, int, long long) { return fail(kWhy); }
std::optional<GpuGrid> GpuCompute::ropeAngleGrid(const RopeParams&, int, long long) { return fail(kWhy); }
std::optional<GpuGrid> GpuCompute::ropeCosGrid(const RopeParams&, int, long long) { return fail(kWhy); }
std::optional<GpuGrid> GpuCompute::ropeSinGrid(const RopeParams&, int, long long) { return fail(kWhy); }
std::optional<GpuGrid> GpuCompute::ropeScoreGrid(const RopeParams&, std::span<const float>, std::span<const float>, int,
                                                 long long) {
  return fail(kWhy);
}
std::optional<GpuGrid> GpuCompute::alibiBiasGrid(double, int, bool) { return fail(kWhy); }
std::optional<GpuGrid> GpuCompute::ropeTrigGrid(const char*, const RopeParams&, int, long long, int) { return fail(kWhy); }
bool GpuCompute::reloadShaders(const std::string&, std::string* why) {
  if (why) *why = kWhy;
  return false;
}
bool GpuCompute::softwareRenderer() const { return false; }
void GpuCompute::setMaxTileSizeForTesting(int) {}
int GpuCompute::tileSize() const { return 0; }

std::unique_ptr<HiddenContext, void (*)(HiddenContext*)> createHiddenContext(std::string* why) {
  if (why) *why = kWhy;
  return {nullptr, [](HiddenContext*) {}};
}

std::string gpuUnavailableReason() { return kWhy; }

}  // namespace posviz::gpu
