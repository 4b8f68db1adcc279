#include <doctest/doctest.h>

#include "gpu_test_support.hpp"

using namespace posviz;
using namespace posviz::gpu;

TEST_SUITE("gpu") {

TEST_CASE("gpu: a hidden GL 4.3 context compiles every embedded shader") {
  POSVIZ_REQUIRE_GPU(gpu);
  CHECK(gpu->maxTextureSize() >= 1024);  // GL 4.3 guarantees at least 16384; 1024 is GL 3's floor
  CHECK(gpu->tileSize() == gpu->maxTextureSize());
  CHECK_FALSE(gpu->renderer().empty());
  const std::string kind = gpu->softwareRenderer() ? "software" : "hardware";
  MESSAGE("GL renderer: " << gpu->renderer() << " (" << kind << ")");
}

TEST_CASE("gpu: sinusoidal grid matches core in every layout, up to position 131256") {
  POSVIZ_REQUIRE_GPU(gpu);
  struct Size { int rows, dModel; };
  // 1 x 2 is a single cell pair; 17 x 30 and 257 x 130 are not multiples of the 16 x 16 workgroup.
  const Size sizes[] = {{1, 2}, {17, 30}, {257, 130}};
  const long long firstPositions[] = {0, 131000};
  for (SinusoidalLayout layout : {SinusoidalLayout::Interleaved, SinusoidalLayout::Tensor2Tensor, SinusoidalLayout::Halves}) {
    for (const Size& s : sizes) {
      for (long long firstPos : firstPositions) {
        SinusoidalParams p;
        p.dModel = s.dModel;
        p.layout = layout;
        if (layout == SinusoidalLayout::Tensor2Tensor) p.minTimescale = 0.5;  // frequencies up to 2 rad/pos
        CAPTURE(s.rows);
        CAPTURE(s.dModel);
        CAPTURE(firstPos);
        CAPTURE(static_cast<int>(layout));
        std::optional<GpuGrid> g = gpu->sinusoidalGrid(p, s.rows, firstPos);
        REQUIRE_MESSAGE(g.has_value(), gpu->lastError());
        CHECK(g->rows == s.rows);
        CHECK(g->cols == s.dModel);
        const Grid cpu = sinusoidalGrid(p, s.rows, firstPos);
        const std::string layoutName = layout == SinusoidalLayout::Interleaved ? "interleaved"
                                     : layout == SinusoidalLayout::Halves    ? "halves" : "t2t";
        POSVIZ_CHECK_GRIDS_MATCH("sinusoidal " << layoutName << " from pos " << firstPos,
                                 g->readBack(), cpu, false);
      }
    }
  }
}

TEST_CASE("gpu: an 8192 x 256 sinusoidal window ending at position 131071 matches core") {
  POSVIZ_REQUIRE_GPU(gpu);
  for (SinusoidalLayout layout : {SinusoidalLayout::Interleaved, SinusoidalLayout::Tensor2Tensor}) {
    SinusoidalParams p;
    p.dModel = 256;
    p.layout = layout;
    std::optional<GpuGrid> g = gpu->sinusoidalGrid(p, 8192, 131072 - 8192);
    REQUIRE_MESSAGE(g.has_value(), gpu->lastError());
    const std::string layoutName = layout == SinusoidalLayout::Interleaved ? "interleaved"
                                     : layout == SinusoidalLayout::Halves    ? "halves" : "t2t";
    POSVIZ_CHECK_GRIDS_MATCH("sinusoidal " << layoutName << " (largest)", g->readBack(),
                             sinusoidalGrid(p, 8192, 131072 - 8192), false);
  }
}

TEST_CASE("gpu: a plain float32 angle misses the tolerance at large positions") {
  // Guards the comparison above: sin(float32(pos) * float32(omega)) near pos 131072 is off by
  // more than 1e-4, so a shader that skipped the two-float reduction would fail it.
  const double omega = 0.7;
  double worst = 0.0;
  for (int pos = 131000; pos <= 131072; ++pos) {
    const float naive = std::sin(static_cast<float>(pos) * static_cast<float>(omega));
    worst = std::max(worst, std::fabs(static_cast<double>(naive) - std::sin(pos * omega)));
  }
  MESSAGE("float32 angle error near pos 131072: " << worst);
  CHECK(worst > testing::kGpuTolerance);
}

}  // TEST_SUITE
