#include <doctest/doctest.h>

#include "gpu_test_support.hpp"

using namespace posviz;
using namespace posviz::gpu;

namespace {

struct NamedScaling {
  const char* name;
  RopeScaling scaling;
};

// Every scaling method, each with a factor that moves the frequencies (factor 1 is plain RoPE).
// numPairs sizes the LongRope factor lists.
std::vector<NamedScaling> everyScaling(int numPairs) {
  std::vector<NamedScaling> all;
  all.push_back({"none", {}});
  RopeScaling s;
  s.method = ScalingMethod::Linear;
  s.factor = 4.0;
  all.push_back({"linear", s});
  s = {};
  s.method = ScalingMethod::NtkAware;
  s.factor = 4.0;
  all.push_back({"ntk", s});
  s = {};
  s.method = ScalingMethod::DynamicNtk;
  s.factor = 2.0;
  s.seqLen = 20000;
  all.push_back({"dynamic", s});
  s = {};
  s.method = ScalingMethod::Yarn;
  s.factor = 16.0;
  s.originalMaxPositions = 4096;
  all.push_back({"yarn", s});  // attention factor 0.1 ln 16 + 1
  s.mscale = 1.0;
  s.mscaleAllDim = 0.707;
  all.push_back({"yarn-mscale", s});  // DeepSeek: get(16, 1) / get(16, 0.707)
  s = {};
  s.method = ScalingMethod::Llama3;
  s.factor = 8.0;
  s.originalMaxPositions = 8192;
  s.lowFreqFactor = 1.0;
  s.highFreqFactor = 4.0;
  all.push_back({"llama3", s});
  s = {};
  s.method = ScalingMethod::LongRope;
  s.factor = 32.0;
  s.originalMaxPositions = 4096;
  for (int i = 0; i < numPairs; ++i) {
    s.shortFactor.push_back(1.0 + 0.05 * i);
    s.longFactor.push_back(1.0 + 0.9 * i);
  }
  s.seqLen = 131072;  // past L0: the long factors
  all.push_back({"longrope-long", s});
  s.seqLen = 2048;    // within L0: the short factors
  all.push_back({"longrope-short", s});
  return all;
}

}  // namespace

TEST_SUITE("gpu") {

TEST_CASE("gpu: rope angle, cos and sin grids match core for every scaling method, up to position 131256") {
  POSVIZ_REQUIRE_GPU(gpu);
  struct Size { int rows, headDim; double rotaryFraction; };
  // 1 x 2 pairs (NTK needs 4 rotary dims); 17 x 15 pairs; 257 x 130 pairs; a partial rotary
  // head (96 of 128 dims: 48 pairs).
  const Size sizes[] = {{1, 4, 1.0}, {17, 30, 1.0}, {257, 260, 1.0}, {40, 128, 0.75}};
  double worst[3] = {0.0, 0.0, 0.0};
  for (const Size& size : sizes) {
    RopeParams base;
    base.headDim = size.headDim;
    base.rotaryFraction = size.rotaryFraction;
    const int numPairs = ropeNumPairs(base);
    for (const NamedScaling& ns : everyScaling(numPairs)) {
      for (long long firstPos : {0LL, 131000LL}) {
        RopeParams p = base;
        p.scaling = ns.scaling;
        const std::string method = ns.name;
        CAPTURE(method);
        CAPTURE(size.rows);
        CAPTURE(size.headDim);
        CAPTURE(firstPos);
        for (int kind = 0; kind < 3; ++kind) {
          CAPTURE(kind);
          std::optional<GpuGrid> g = kind == 0   ? gpu->ropeAngleGrid(p, size.rows, firstPos)
                                     : kind == 1 ? gpu->ropeCosGrid(p, size.rows, firstPos)
                                                 : gpu->ropeSinGrid(p, size.rows, firstPos);
          REQUIRE_MESSAGE(g.has_value(), gpu->lastError());
          const Grid cpu = kind == 0   ? ropeAngleGrid(p, size.rows, firstPos)
                           : kind == 1 ? ropeCosGrid(p, size.rows, firstPos)
                                       : ropeSinGrid(p, size.rows, firstPos);
          const Grid got = g->readBack();
          const testing::GridDiff d = testing::compareGrids(got, cpu, testing::kGpuTolerance, kind == 0);
          worst[kind] = std::max(worst[kind], d.maxAbs);
          CAPTURE(d.firstBadRow);
          CAPTURE(d.firstBadCol);
          CAPTURE(d.firstBadGpu);
          CAPTURE(d.firstBadCpu);
          CHECK(d.badCells == 0);
          if (kind == 0) {
            // Angles stay in [0, 2 pi) as core's do.
            int outside = 0;
            for (float v : got.values) outside += v >= 0.0f && v < static_cast<float>(2.0 * std::numbers::pi) ? 0 : 1;
            CHECK(outside == 0);
          }
        }
      }
    }
  }
  MESSAGE("rope angle (circular), largest 257 x 130 from pos 131000, every scaling: max |gpu - core| = " << worst[0]);
  MESSAGE("rope cos, largest 257 x 130 from pos 131000, every scaling: max |gpu - core| = " << worst[1]);
  MESSAGE("rope sin, largest 257 x 130 from pos 131000, every scaling: max |gpu - core| = " << worst[2]);
}

TEST_CASE("gpu: rope cos carries the attention factor of yarn and longrope") {
  POSVIZ_REQUIRE_GPU(gpu);
  RopeParams p;
  p.headDim = 64;
  p.scaling.method = ScalingMethod::Yarn;
  p.scaling.factor = 16.0;
  std::optional<GpuGrid> g = gpu->ropeCosGrid(p, 1, 0);
  REQUIRE(g.has_value());
  // At pos 0 every cos is 1, so the grid is the attention factor: 0.1 ln 16 + 1.
  const Grid got = g->readBack();
  for (float v : got.values) CHECK(v == doctest::Approx(0.1 * std::log(16.0) + 1.0).epsilon(1e-6));
}

TEST_CASE("gpu: rope score grid matches core in both layouts, partial rotary, scaled, near position 131072") {
  POSVIZ_REQUIRE_GPU(gpu);
  struct Case { const char* name; int headDim; double rotaryFraction; RopeLayout layout; ScalingMethod method; };
  const Case cases[] = {
      {"half-split d64", 64, 1.0, RopeLayout::HalfSplit, ScalingMethod::None},
      {"interleaved d64", 64, 1.0, RopeLayout::Interleaved, ScalingMethod::None},
      {"half-split d30 (not a multiple of 16)", 30, 1.0, RopeLayout::HalfSplit, ScalingMethod::Linear},
      {"half-split d64 partial 0.25", 64, 0.25, RopeLayout::HalfSplit, ScalingMethod::None},
      {"interleaved d80 partial 0.5 yarn", 80, 0.5, RopeLayout::Interleaved, ScalingMethod::Yarn},
      {"half-split d128 llama3", 128, 1.0, RopeLayout::HalfSplit, ScalingMethod::Llama3},
  };
  const int sizes[] = {1, 17, 257};
  double worst = 0.0;
  for (const Case& c : cases) {
    RopeParams p;
    p.headDim = c.headDim;
    p.rotaryFraction = c.rotaryFraction;
    p.layout = c.layout;
    p.scaling.method = c.method;
    p.scaling.factor = c.method == ScalingMethod::None ? 1.0 : 8.0;
    p.scaling.originalMaxPositions = 8192;
    const std::vector<float> q = testing::testVector(c.headDim, 0.3);
    const std::vector<float> k = testing::testVector(c.headDim, 1.9);
    for (int n : sizes) {
      for (long long firstPos : {0LL, 131000LL}) {
        const std::string name = c.name;
        CAPTURE(name);
        CAPTURE(n);
        CAPTURE(firstPos);
        std::optional<GpuGrid> g = gpu->ropeScoreGrid(p, q, k, n, firstPos);
        REQUIRE_MESSAGE(g.has_value(), gpu->lastError());
        const Grid got = g->readBack();
        const Grid cpu = ropeScoreGrid(p, q, k, n, firstPos);
        const testing::GridDiff d = testing::compareGrids(got, cpu, testing::kGpuTolerance);
        worst = std::max(worst, d.maxAbs);
        CAPTURE(d.firstBadRow);
        CAPTURE(d.firstBadCol);
        CAPTURE(d.firstBadGpu);
        CAPTURE(d.firstBadCpu);
        CHECK(d.badCells == 0);
      }
    }
  }
  MESSAGE("rope score, largest 257 x 257 (d up to 128) from pos 131000: max |gpu - core| = " << worst);
}

TEST_CASE("gpu: rope score grid matches core for every scaling method in both layouts") {
  POSVIZ_REQUIRE_GPU(gpu);
  double worst = 0.0;
  for (RopeLayout layout : {RopeLayout::HalfSplit, RopeLayout::Interleaved}) {
    RopeParams base;
    base.headDim = 72;
    base.rotaryFraction = 0.9;  // 64 rotary dims (32 pairs), 8 pass through
    base.layout = layout;
    const std::vector<float> q = testing::testVector(72, 0.4), k = testing::testVector(72, 1.1);
    for (const NamedScaling& ns : everyScaling(ropeNumPairs(base))) {
      RopeParams p = base;
      p.scaling = ns.scaling;
      const std::string method = ns.name;
      const std::string layoutName = ropeLayoutName(layout);
      CAPTURE(method);
      CAPTURE(layoutName);
      std::optional<GpuGrid> g = gpu->ropeScoreGrid(p, q, k, 97, 131000);
      REQUIRE_MESSAGE(g.has_value(), gpu->lastError());
      const testing::GridDiff d =
          testing::compareGrids(g->readBack(), ropeScoreGrid(p, q, k, 97, 131000), testing::kGpuTolerance);
      worst = std::max(worst, d.maxAbs);
      CAPTURE(d.firstBadRow);
      CAPTURE(d.firstBadCol);
      CHECK(d.badCells == 0);
    }
  }
  MESSAGE("rope score, 97 x 97 from pos 131000, every scaling, both layouts: max |gpu - core| = " << worst);
}

TEST_CASE("gpu: rope score with partial rotary adds the pass-through q.k unrotated") {
  POSVIZ_REQUIRE_GPU(gpu);
  // Only pair 0 rotates (headDim 8, fraction 0.25); with q, k zero in it the score is the
  // pass-through dot product on every cell: 1*2 + 3*4 + ... hand-computed below.
  RopeParams p;
  p.headDim = 8;
  p.rotaryFraction = 0.25;
  const std::vector<float> q = {0, 0, 1, 3, 5, 7, 9, 11};
  const std::vector<float> k = {0, 0, 2, 4, 6, 8, 10, 12};
  std::optional<GpuGrid> g = gpu->ropeScoreGrid(p, q, k, 5, 100);
  REQUIRE(g.has_value());
  const Grid got = g->readBack();
  for (float v : got.values) CHECK(v == doctest::Approx(2 + 12 + 30 + 56 + 90 + 132));
}

TEST_CASE("gpu: every position 0 .. 131071 of a 128-dim YaRN head matches core") {
  POSVIZ_REQUIRE_GPU(gpu);
  RopeParams p;
  p.headDim = 128;
  p.base = 500000.0;
  p.scaling.method = ScalingMethod::Yarn;
  p.scaling.factor = 32.0;
  p.scaling.originalMaxPositions = 4096;
  const int n = 131072;
  std::optional<GpuGrid> cosGrid = gpu->ropeCosGrid(p, n);
  std::optional<GpuGrid> sinGrid = gpu->ropeSinGrid(p, n);
  std::optional<GpuGrid> angleGrid = gpu->ropeAngleGrid(p, n);
  REQUIRE_MESSAGE(cosGrid.has_value(), gpu->lastError());
  REQUIRE_MESSAGE(sinGrid.has_value(), gpu->lastError());
  REQUIRE_MESSAGE(angleGrid.has_value(), gpu->lastError());
  POSVIZ_CHECK_GRIDS_MATCH("rope cos yarn (full)", cosGrid->readBack(), ropeCosGrid(p, n), false);
  POSVIZ_CHECK_GRIDS_MATCH("rope sin yarn (full)", sinGrid->readBack(), ropeSinGrid(p, n), false);
  POSVIZ_CHECK_GRIDS_MATCH("rope angle yarn (full, circular)", angleGrid->readBack(), ropeAngleGrid(p, n), true);
}

TEST_CASE("gpu: a 1024 x 1024 score grid of a 128-dim Llama 3.1 head matches core") {
  POSVIZ_REQUIRE_GPU(gpu);
  RopeParams p;
  p.headDim = 128;
  p.base = 500000.0;
  p.layout = RopeLayout::Interleaved;
  p.scaling.method = ScalingMethod::Llama3;
  p.scaling.factor = 8.0;
  p.scaling.originalMaxPositions = 8192;
  const std::vector<float> q = testing::testVector(128, 0.7), k = testing::testVector(128, 2.9);
  std::optional<GpuGrid> g = gpu->ropeScoreGrid(p, q, k, 1024, 130048);  // positions 130048 .. 131071
  REQUIRE_MESSAGE(g.has_value(), gpu->lastError());
  const Grid cpu = ropeScoreGrid(p, q, k, 1024, 130048);
  const ValueRange range = finiteRange(cpu);
  MESSAGE("score range [" << range.min << ", " << range.max << "]");
  POSVIZ_CHECK_GRIDS_MATCH("rope score llama3 (largest)", g->readBack(), cpu, false);
}

TEST_CASE("gpu: rope rejects bad input exactly as core does") {
  POSVIZ_REQUIRE_GPU(gpu);
  RopeParams p;
  p.headDim = 63;
  CHECK_THROWS_WITH_AS(gpu->ropeCosGrid(p, 4), "ropeCosGrid: headDim must be even and > 0, got 63", std::invalid_argument);
  p.headDim = 64;
  CHECK_THROWS_WITH_AS(gpu->ropeAngleGrid(p, 0), "ropeAngleGrid: numPositions must be > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(gpu->ropeSinGrid(p, 4, -1), "ropeSinGrid: firstPos must be >= 0, got -1", std::invalid_argument);
  const std::vector<float> q(64, 1.0f), k(32, 1.0f);
  CHECK_THROWS_WITH_AS(gpu->ropeScoreGrid(p, q, k, 4), "ropeScoreGrid: q and k must have the same size, got 64 and 32",
                       std::invalid_argument);
  CHECK_THROWS_AS(ropeScoreGrid(p, q, k, 4), std::invalid_argument);
}

TEST_CASE("gpu: positions past 2^24 are refused by the GPU and answered by core") {
  POSVIZ_REQUIRE_GPU(gpu);
  RopeParams p;
  p.headDim = 8;
  CHECK_FALSE(gpu->ropeCosGrid(p, 4, 1LL << 24).has_value());
  CHECK(gpu->lastError().find("past 2^24") != std::string::npos);
  const Computed c = computeRopeCosGrid(gpu, Backend::Gpu, p, 4, 1LL << 24);
  CHECK_FALSE(c.onGpu);
  CHECK(c.notice.find("past 2^24") != std::string::npos);
  CHECK(c.grid.values == ropeCosGrid(p, 4, 1LL << 24).values);
}

}  // TEST_SUITE
