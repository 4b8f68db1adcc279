#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <thread>

#include "core/alibi.hpp"
#include "gpu_test_support.hpp"

using namespace posviz;
using namespace posviz::gpu;

namespace {

// Restores the shared GpuCompute's tile size whatever a test does.
struct TileLimit {
  GpuCompute* gpu;
  explicit TileLimit(GpuCompute* g, int size) : gpu(g) { gpu->setMaxTileSizeForTesting(size); }
  ~TileLimit() { gpu->setMaxTileSizeForTesting(0); }
};

struct BudgetGuard {
  std::uint64_t old = memoryBudgetBytes();
  ~BudgetGuard() { setMemoryBudgetBytes(old); }
};

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("gpu") {

TEST_CASE("gpu: a 300 x 200 grid cut into 64 x 64 tiles equals the untiled grid") {
  POSVIZ_REQUIRE_GPU(gpu);
  SinusoidalParams p;
  p.dModel = 200;
  std::optional<GpuGrid> whole = gpu->sinusoidalGrid(p, 300, 131000);
  REQUIRE(whole.has_value());
  CHECK(whole->tiles.size() == 1);
  std::optional<GpuGrid> tiled;
  {
    TileLimit limit(gpu, 64);
    CHECK(gpu->tileSize() == 64);
    tiled = gpu->sinusoidalGrid(p, 300, 131000);
  }
  REQUIRE(tiled.has_value());
  CHECK(tiled->tiles.size() == 5 * 4);  // ceil(300/64) x ceil(200/64)
  const GpuTile& last = tiled->tiles.back();
  CHECK(last.row0 == 256);
  CHECK(last.col0 == 192);
  CHECK(last.rows == 300 - 256);
  CHECK(last.cols == 200 - 192);
  const Grid a = whole->readBack();
  const Grid b = tiled->readBack();
  CHECK(a.values == b.values);  // tile offsets change nothing, bit for bit
  POSVIZ_CHECK_GRIDS_MATCH("sinusoidal tiled 64", b, sinusoidalGrid(p, 300, 131000), false);
}

TEST_CASE("gpu: score and alibi grids tile the same as untiled (tiles cut through the workgroups)") {
  POSVIZ_REQUIRE_GPU(gpu);
  RopeParams p;
  p.headDim = 48;
  const std::vector<float> q = testing::testVector(48, 0.1), k = testing::testVector(48, 2.2);
  std::optional<GpuGrid> scoreWhole = gpu->ropeScoreGrid(p, q, k, 150, 131000);
  std::optional<GpuGrid> alibiWhole = gpu->alibiBiasGrid(0.0625, 150, true);
  std::optional<GpuGrid> scoreTiled, alibiTiled;
  {
    TileLimit limit(gpu, 40);  // not a multiple of the 16 x 16 workgroup
    scoreTiled = gpu->ropeScoreGrid(p, q, k, 150, 131000);
    alibiTiled = gpu->alibiBiasGrid(0.0625, 150, true);
  }
  REQUIRE(scoreWhole.has_value());
  REQUIRE(scoreTiled.has_value());
  REQUIRE(alibiWhole.has_value());
  REQUIRE(alibiTiled.has_value());
  CHECK(scoreTiled->tiles.size() == 16);
  CHECK(scoreWhole->readBack().values == scoreTiled->readBack().values);
  CHECK(alibiWhole->readBack().values == alibiTiled->readBack().values);
  POSVIZ_CHECK_GRIDS_MATCH("rope score tiled 40", scoreTiled->readBack(), ropeScoreGrid(p, q, k, 150, 131000), false);
}

TEST_CASE("gpu: rows past GL_MAX_TEXTURE_SIZE are tiled at the real limit") {
  POSVIZ_REQUIRE_GPU(gpu);
  SinusoidalParams p;
  p.dModel = 4;
  const int rows = gpu->maxTextureSize() + 17;
  std::optional<GpuGrid> g = gpu->sinusoidalGrid(p, rows, 0);
  REQUIRE_MESSAGE(g.has_value(), gpu->lastError());
  REQUIRE(g->tiles.size() == 2);
  CHECK(g->tiles[1].row0 == gpu->maxTextureSize());
  CHECK(g->tiles[1].rows == 17);
  POSVIZ_CHECK_GRIDS_MATCH("sinusoidal past GL_MAX_TEXTURE_SIZE", g->readBack(), sinusoidalGrid(p, rows, 0), false);
}

TEST_CASE("gpu: a grid over the memory budget is refused with the size it would need") {
  POSVIZ_REQUIRE_GPU(gpu);
  BudgetGuard guard;
  setMemoryBudgetBytes(1 << 20);  // 1 MiB
  RopeParams p;
  p.headDim = 64;
  const std::vector<float> q(64, 0.5f), k(64, 0.25f);
  // 1024 x 1024 x 4 B = 4 MiB.
  CHECK_THROWS_WITH_AS(gpu->ropeScoreGrid(p, q, k, 1024),
                       "ropeScoreGrid: a grid of 1024 x 1024 x float32 needs 4.0 MiB, over the memory budget of 1.0 MiB",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(gpu->alibiBiasGrid(0.5, 1024, false),
                       "alibiBiasGrid: a grid of 1024 x 1024 x float32 needs 4.0 MiB, over the memory budget of 1.0 MiB",
                       std::invalid_argument);
  SinusoidalParams s;
  s.dModel = 4096;
  CHECK_THROWS_WITH_AS(gpu->sinusoidalGrid(s, 32768),
                       "sinusoidalGrid: a grid of 32768 x 4096 x float32 needs 512.0 MiB, over the memory budget of 1.0 MiB",
                       std::invalid_argument);
  // The backend refuses the same way on every path: no fallback can make the grid fit.
  CHECK_THROWS_WITH_AS(computeRopeScoreGrid(gpu, Backend::Gpu, p, q, k, 1024), doctest::Contains("needs 4.0 MiB"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(computeRopeScoreGrid(gpu, Backend::Cpu, p, q, k, 1024), doctest::Contains("needs 4.0 MiB"),
                       std::invalid_argument);
  // Within the budget the same call works.
  CHECK(gpu->ropeScoreGrid(p, q, k, 256).has_value());
}

TEST_CASE("gpu: backend choice: Auto keeps to the CPU on a software renderer unless allowed") {
  POSVIZ_REQUIRE_GPU(gpu);
  SinusoidalParams p;
  p.dModel = 64;
  const int bigRows = static_cast<int>(kGpuThresholdCells / 64);
  ::unsetenv("POSVIZ_AUTO_SOFTWARE_GPU");
  const Computed big = computeSinusoidalGrid(gpu, Backend::Auto, p, bigRows);
  CAPTURE(gpu->renderer());
  CHECK(big.onGpu == !gpu->softwareRenderer());
  CHECK(big.notice.empty());
  CHECK(autoUsesGpu(gpu) == !gpu->softwareRenderer());
  CHECK_FALSE(autoUsesGpu(nullptr));
  ::setenv("POSVIZ_AUTO_SOFTWARE_GPU", "1", 1);
  CHECK(autoUsesGpu(gpu));
  ::unsetenv("POSVIZ_AUTO_SOFTWARE_GPU");
}

TEST_CASE("gpu: backend choice: Auto uses the GPU from kGpuThresholdCells, Cpu never, Gpu always") {
  POSVIZ_REQUIRE_GPU(gpu);
  ::setenv("POSVIZ_AUTO_SOFTWARE_GPU", "1", 1);  // llvmpipe in CI counts as a GPU for this test
  SinusoidalParams p;
  p.dModel = 64;
  const Computed small = computeSinusoidalGrid(gpu, Backend::Auto, p, 100);
  CHECK_FALSE(small.onGpu);
  CHECK(small.notice.empty());
  CHECK(small.grid.values == sinusoidalGrid(p, 100).values);
  const int bigRows = static_cast<int>(kGpuThresholdCells / 64);  // exactly the threshold
  const Computed big = computeSinusoidalGrid(gpu, Backend::Auto, p, bigRows);
  CHECK(big.onGpu);
  CHECK(big.notice.empty());
  CHECK(big.grid.rows == bigRows);
  CHECK(big.millis > 0.0);
  POSVIZ_CHECK_GRIDS_MATCH("sinusoidal via Auto", big.grid, sinusoidalGrid(p, bigRows), false);
  ::unsetenv("POSVIZ_AUTO_SOFTWARE_GPU");
  const Computed forcedCpu = computeSinusoidalGrid(gpu, Backend::Cpu, p, bigRows);
  CHECK_FALSE(forcedCpu.onGpu);
  CHECK(forcedCpu.notice.empty());
  const Computed forcedGpu = computeAlibiBiasGrid(gpu, Backend::Gpu, 0.25, 33, true);
  CHECK(forcedGpu.onGpu);
  CHECK(forcedGpu.grid.values == alibiBiasGrid(0.25, 33, true).values);
  const Computed noGpu = computeAlibiBiasGrid(nullptr, Backend::Cpu, 0.25, 33, true);
  CHECK_FALSE(noGpu.onGpu);
  CHECK(noGpu.notice.empty());
}

TEST_CASE("gpu: each forced failure falls back to core with a notice naming the cause") {
  POSVIZ_REQUIRE_GPU(gpu);
  RopeParams p;
  p.headDim = 32;
  const Grid expected = ropeSinGrid(p, 40, 131000);

  SUBCASE("context") {
    std::unique_ptr<HiddenContext, void (*)(HiddenContext*)> ctx(nullptr, nullptr);
    std::string why;
    {
      testing::ScopedEnv env("POSVIZ_GPU_FAIL", "context");
      ctx = createHiddenContext(&why);
    }
    CHECK(ctx == nullptr);
    CHECK(contains(why, "no GL context"));
    CHECK(contains(why, "POSVIZ_GPU_FAIL=context"));
    const Computed c = computeRopeSinGrid(nullptr, Backend::Gpu, p, 40, 131000);
    CHECK_FALSE(c.onGpu);
    CHECK(contains(c.notice, "no GL context"));
    CHECK(c.grid.values == expected.values);
    // Auto for a big grid says why too, since creating the GPU backend failed.
    const Computed autoBig = computeRopeSinGrid(nullptr, Backend::Auto, p, static_cast<int>(kGpuThresholdCells / 16), 0);
    CHECK_FALSE(autoBig.onGpu);
    CHECK(contains(autoBig.notice, "no GL context"));
  }
  SUBCASE("compute") {
    std::string why;
    std::unique_ptr<GpuCompute> g;
    {
      testing::ScopedEnv env("POSVIZ_GPU_FAIL", "compute");
      g = GpuCompute::create(&why);
    }
    CHECK(g == nullptr);
    CHECK(contains(why, "no compute shaders: GL "));
    const Computed c = computeRopeSinGrid(g.get(), Backend::Gpu, p, 40, 131000);
    CHECK_FALSE(c.onGpu);
    CHECK(contains(c.notice, "no compute shaders"));
    CHECK(c.grid.values == expected.values);
  }
  SUBCASE("compile") {
    std::string why;
    std::unique_ptr<GpuCompute> g;
    {
      testing::ScopedEnv env("POSVIZ_GPU_FAIL", "compile");
      g = GpuCompute::create(&why);
    }
    CHECK(g == nullptr);
    MESSAGE("forced compile failure: " << why);
    CHECK(contains(why, "shader sinusoidal.comp failed to compile"));
    CHECK(contains(why, "3:1"));  // the injected line, as the real compiler's info log reports it
    const Computed c = computeRopeSinGrid(g.get(), Backend::Gpu, p, 40, 131000);
    CHECK_FALSE(c.onGpu);
    CHECK(contains(c.notice, "failed to compile"));
    CHECK(c.grid.values == expected.values);
  }
  SUBCASE("dispatch") {
    std::string why;
    std::unique_ptr<GpuCompute> g;
    {
      testing::ScopedEnv env("POSVIZ_GPU_FAIL", "dispatch");
      g = GpuCompute::create(&why);
    }
    REQUIRE_MESSAGE(g != nullptr, why);
    CHECK_FALSE(g->ropeSinGrid(p, 40, 131000).has_value());
    CHECK(contains(g->lastError(), "ropeSinGrid: dispatch failed"));
    const Computed c = computeRopeSinGrid(g.get(), Backend::Gpu, p, 40, 131000);
    CHECK_FALSE(c.onGpu);
    CHECK(contains(c.notice, "dispatch failed"));
    CHECK(contains(c.notice, "POSVIZ_GPU_FAIL=dispatch"));
    CHECK(c.grid.values == expected.values);
    const Computed a = computeAlibiBiasGrid(g.get(), Backend::Gpu, 0.5, 20, true);
    CHECK_FALSE(a.onGpu);
    CHECK(contains(a.notice, "alibiBiasGrid: dispatch failed"));
  }
  // A successful creation clears the reason, and the shared backend still works.
  std::string why;
  std::unique_ptr<GpuCompute> fresh = GpuCompute::create(&why);
  REQUIRE_MESSAGE(fresh != nullptr, why);
  CHECK(gpuUnavailableReason().empty());
  const Computed ok = computeRopeSinGrid(gpu, Backend::Gpu, p, 40, 131000);
  CHECK(ok.onGpu);
  CHECK(ok.notice.empty());
}

TEST_CASE("gpu: a call from a thread without the GL context falls back to core instead of crashing") {
  POSVIZ_REQUIRE_GPU(gpu);
  RopeParams p;
  p.headDim = 16;
  Computed c;
  std::thread worker([&] { c = computeRopeCosGrid(gpu, Backend::Gpu, p, 30, 5); });
  worker.join();
  CHECK_FALSE(c.onGpu);
  CHECK(contains(c.notice, "ropeCosGrid: its GL context is not current on this thread"));
  CHECK(c.grid.values == ropeCosGrid(p, 30, 5).values);
  // Back on the context's thread the same call runs on the GPU.
  CHECK(computeRopeCosGrid(gpu, Backend::Gpu, p, 30, 5).onGpu);
}

TEST_CASE("gpu: reloadShaders compiles from a directory and keeps the last good programs on failure") {
  POSVIZ_REQUIRE_GPU(gpu);
  namespace fs = std::filesystem;
  const fs::path source = fs::path(POSVIZ_SOURCE_DIR) / "shaders";
  RopeParams p;
  p.headDim = 24;
  std::string why;
  REQUIRE_MESSAGE(gpu->reloadShaders(source.string(), &why), why);

  const fs::path broken = fs::temp_directory_path() / ("posviz-gpu-reload-" + std::to_string(getpid()));
  fs::create_directories(broken);
  for (const fs::directory_entry& e : fs::directory_iterator(source)) fs::copy_file(e.path(), broken / e.path().filename(), fs::copy_options::overwrite_existing);
  {
    std::ofstream out(broken / "rope_grid.comp", std::ios::app);
    out << "\nvoid main() {}\n";  // a second main: a real compile error
  }
  CHECK_FALSE(gpu->reloadShaders(broken.string(), &why));
  CHECK(contains(why, "rope_grid.comp failed to compile"));
  CHECK(contains(why, "keeping the last good programs"));
  CHECK_FALSE(gpu->reloadShaders((broken / "missing").string(), &why));
  CHECK(contains(why, "cannot be read"));
  fs::remove_all(broken);

  std::optional<GpuGrid> g = gpu->ropeCosGrid(p, 50, 131000);
  REQUIRE_MESSAGE(g.has_value(), gpu->lastError());
  POSVIZ_CHECK_GRIDS_MATCH("rope cos after a failed reload", g->readBack(), ropeCosGrid(p, 50, 131000), false);
}

}  // TEST_SUITE
