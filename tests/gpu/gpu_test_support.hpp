// gpu_test_support.hpp: the shared hidden context, the skip-or-fail rule and grid comparison
// for TEST_SUITE("gpu").
//
// CONTEXT
//   One hidden GL 4.3 context and one GpuCompute for the whole run (made on first use). When
//   either cannot be made: with CI=true the test FAILS (a GPU suite that silently skips cannot
//   fail); otherwise it prints a loud MESSAGE and returns.
//
// TOLERANCE
//   kGpuTolerance = 1e-4 absolute, the contract of gpu_compute.hpp. float32 pos * theta alone
//   would miss it by far (at pos 131072 one float ulp of the angle is ~0.008 rad); the shaders'
//   two-float angle reduction leaves ~1e-6, so 1e-4 catches any loss of the reduction while
//   allowing the float32 sin/cos polynomials and the float32 sums of a score grid.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "core/gpu/backend.hpp"
#include "core/gpu/gpu_compute.hpp"

namespace posviz::gpu::testing {

constexpr double kGpuTolerance = 1e-4;

struct GpuFixture {
  std::unique_ptr<HiddenContext, void (*)(HiddenContext*)> context{nullptr, nullptr};
  std::unique_ptr<GpuCompute> gpu;
  std::string why;
};

inline GpuFixture& gpuFixture() {
  static GpuFixture f = [] {
    GpuFixture made;
    made.context = createHiddenContext(&made.why);
    if (made.context) made.gpu = GpuCompute::create(&made.why);
    return made;
  }();
  return f;
}

inline bool runningInCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// The shared GpuCompute, or nullptr after FAIL (CI) / a loud MESSAGE (elsewhere).
inline GpuCompute* gpuOrSkip() {
  GpuFixture& f = gpuFixture();
  if (f.gpu) return f.gpu.get();
  if (runningInCi()) FAIL("no GL 4.3 compute context in CI: " << f.why);
  MESSAGE("!!! SKIPPING GPU TEST: no GL 4.3 compute context (" << f.why
                                                             << "). Run under xvfb-run; with CI=true this fails. !!!");
  return nullptr;
}

#define POSVIZ_REQUIRE_GPU(var)                    \
  ::posviz::gpu::GpuCompute* var = ::posviz::gpu::testing::gpuOrSkip(); \
  if (var == nullptr) return

struct GridDiff {
  double maxAbs = 0.0;   // over finite cells
  int badCells = 0;      // cells off by more than the tolerance (or inf/nan mismatch)
  int firstBadRow = -1, firstBadCol = -1;
  float firstBadGpu = 0.0f, firstBadCpu = 0.0f;
};

// Compares cell by cell. circular: values are angles in [0, 2 pi), compared around the circle
// (core and GPU may put an angle a rounding away from 2 pi on either side of the wrap).
inline GridDiff compareGrids(const Grid& gpu, const Grid& cpu, double tolerance, bool circular = false) {
  GridDiff d;
  REQUIRE(gpu.rows == cpu.rows);
  REQUIRE(gpu.cols == cpu.cols);
  REQUIRE(gpu.values.size() == cpu.values.size());
  for (int r = 0; r < cpu.rows; ++r) {
    for (int c = 0; c < cpu.cols; ++c) {
      const float g = gpu.at(r, c);
      const float e = cpu.at(r, c);
      double diff = 0.0;
      if (std::isfinite(e) || std::isfinite(g)) {
        if (!std::isfinite(e) || !std::isfinite(g)) {
          diff = INFINITY;
        } else {
          diff = std::fabs(static_cast<double>(g) - static_cast<double>(e));
          if (circular) diff = std::min(diff, std::fabs(2.0 * std::numbers::pi - diff));
        }
      } else if (std::signbit(g) != std::signbit(e) || std::isnan(g) != std::isnan(e)) {
        diff = INFINITY;
      }
      if (std::isfinite(diff)) d.maxAbs = std::max(d.maxAbs, diff);
      if (!(diff <= tolerance)) {
        if (d.badCells == 0) {
          d.firstBadRow = r;
          d.firstBadCol = c;
          d.firstBadGpu = g;
          d.firstBadCpu = e;
        }
        ++d.badCells;
      }
    }
  }
  return d;
}

// Checks every cell within kGpuTolerance and reports the largest difference.
#define POSVIZ_CHECK_GRIDS_MATCH(label, gpuGrid, cpuGrid, circular)                                        \
  do {                                                                                                      \
    const ::posviz::gpu::testing::GridDiff posvizDiff_ =                                                    \
        ::posviz::gpu::testing::compareGrids(gpuGrid, cpuGrid, ::posviz::gpu::testing::kGpuTolerance, circular); \
    MESSAGE(label << ": " << (cpuGrid).rows << " x " << (cpuGrid).cols << ", max |gpu - core| = " << posvizDiff_.maxAbs); \
    CAPTURE(posvizDiff_.firstBadRow);                                                                       \
    CAPTURE(posvizDiff_.firstBadCol);                                                                       \
    CAPTURE(posvizDiff_.firstBadGpu);                                                                       \
    CAPTURE(posvizDiff_.firstBadCpu);                                                                       \
    CHECK(posvizDiff_.badCells == 0);                                                                       \
    CHECK(posvizDiff_.maxAbs <= ::posviz::gpu::testing::kGpuTolerance);                                     \
  } while (false)

// Sets an environment variable for one scope, restoring the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    if (old != nullptr) old_ = old;
    hadOld_ = old != nullptr;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (hadOld_) setenv(name_.c_str(), old_.c_str(), 1);
    else unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, old_;
  bool hadOld_ = false;
};

// Deterministic, irregular test vectors (no RNG state shared between tests).
inline std::vector<float> testVector(int n, double phase) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) v[static_cast<std::size_t>(j)] = static_cast<float>(std::sin(1.7 * j + phase) * (0.5 + 0.01 * j));
  return v;
}

}  // namespace posviz::gpu::testing
