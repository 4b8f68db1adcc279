// Every registered view rendered in a real window (run under xvfb-run), saved as a PNG to
// POSVIZ_TEST_OUT, checked to be not blank, and checked to change when one of its parameters
// changes.
#include <doctest/doctest.h>
#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/shell/app_shell.hpp"
#include "app/cli/tabs.hpp"
#include "app/gui/panels/panel_learn.hpp"
#include "app/gui/panels/panel_rope.hpp"
#include "app/gui/panels/panels.hpp"
#include "tests/gui/test_shell.hpp"
#include "core/angle.hpp"
#include "core/axial_rope.hpp"
#include "core/npy.hpp"
#include "core/exact_average.hpp"
#include "core/pixel_stats.hpp"
#include "core/sinusoidal.hpp"

using namespace posviz::app;

namespace {

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
};

Image loadPng(const std::string& path) {
  Image img;
  int comp = 0;
  unsigned char* data = stbi_load(path.c_str(), &img.width, &img.height, &comp, 3);
  if (!data) return img;
  img.rgb.assign(data, data + static_cast<std::size_t>(img.width) * img.height * 3);
  stbi_image_free(data);
  return img;
}

// Standard deviation of luminance over all pixels.
double luminanceStdDev(const Image& img) {
  double sum = 0.0, sum2 = 0.0;
  const std::size_t n = img.rgb.size() / 3;
  for (std::size_t i = 0; i < n; ++i) {
    const double y = 0.299 * img.rgb[3 * i] + 0.587 * img.rgb[3 * i + 1] + 0.114 * img.rgb[3 * i + 2];
    sum += y;
    sum2 += y * y;
  }
  const double mean = sum / static_cast<double>(n);
  return std::sqrt(std::max(0.0, sum2 / static_cast<double>(n) - mean * mean));
}

// Fraction of pixels that differ by more than a rounding step in any channel.
double changedFraction(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height) return 1.0;
  std::size_t changed = 0;
  const std::size_t n = a.rgb.size() / 3;
  for (std::size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      if (std::abs(static_cast<int>(a.rgb[3 * i + c]) - static_cast<int>(b.rgb[3 * i + c])) > 2) {
        ++changed;
        break;
      }
    }
  }
  return static_cast<double>(changed) / static_cast<double>(n);
}

std::string outDir() {
  const std::string dir = std::string(POSVIZ_TEST_OUT) + "/views";
  std::filesystem::create_directories(dir);
  return dir;
}

std::unique_ptr<AppShell> makeShell() { return testing::makeTestShell(1280, 800); }

// The sinusoidal tab, on sub-view v from the next frame.
SinusoidalPanelState& openSinusoidal(AppShell& app, SinusoidalView v) {
  app.selectPanel(findPanel("sinusoidal"));
  SinusoidalPanelState& s = app.state().sinusoidal;
  s.view = v;
  s.selectView = true;
  return s;
}

Image renderAndSave(AppShell& app, const std::string& path) {
  CHECK(app.renderUntilIdle(4, 120.0));
  std::string error;
  const bool saved = app.frame(path, &error);
  CAPTURE(error);
  CHECK(saved);
  return loadPng(path);
}

}  // namespace

TEST_SUITE("app") {

TEST_CASE("views: every panel renders a non-blank picture that changes with a parameter") {
  auto app = makeShell();
  if (!app) return;
  const std::string dir = outDir();
  const auto& table = panels();
  REQUIRE(table.size() == posviz::cli::tabs().size());   // one panel per tab of the vocabulary
  REQUIRE(table.size() >= 8);
  for (std::size_t i = 0; i < table.size(); ++i) {
    const PanelInfo& p = table[i];
    CAPTURE(p.name);
    app->selectPanel(static_cast<int>(i));
    const Image before = renderAndSave(*app, dir + "/" + p.name + ".png");
    CHECK(app->activePanel() == static_cast<int>(i));
    REQUIRE(before.width == app->framebufferWidth());
    REQUIRE(before.height == app->framebufferHeight());
    // A blank or single-colour window has a luminance spread near 0; a view with text, axes and
    // a heatmap is far above 20 on a 0..255 scale.
    CHECK(luminanceStdDev(before) > 20.0);

    REQUIRE(static_cast<bool>(p.def->tweak));
    p.def->tweak(app->state());
    const Image after = renderAndSave(*app, dir + "/" + p.name + "-changed.png");
    const double changed = changedFraction(before, after);
    CAPTURE(changed);
    CHECK(changed > 0.002);
  }
}

TEST_CASE("views: the ALiBi view draws every head the controls ask for, 12 by default, 32 and 128 with scrolling") {
  auto app = makeShell();
  if (!app) return;
  app->selectPanel(findPanel("alibi"));
  AlibiPanelState& s = app->state().alibi;
  for (int heads : {12, 32, 128}) {
    CAPTURE(heads);
    s.numHeads = heads;
    if (heads == 128) s.numPositions = 256;   // the tab's largest setting
    s.dirty = true;
    renderAndSave(*app, outDir() + "/alibi-" + std::to_string(heads) + "-heads.png");
    REQUIRE(s.smallMaps.size() == static_cast<std::size_t>(heads));
    // drawHeatmap sets `wanted` for each grid it draws. Heads scrolled out of sight keep their
    // place but draw nothing: at 1440 x 900, two rows of five show; the rest scroll.
    int drawn = 0;
    for (int h = 0; h < heads; ++h) drawn += s.smallMaps[static_cast<std::size_t>(h)].wanted.outRows > 0 ? 1 : 0;
    CAPTURE(drawn);
    CHECK(s.smallMaps.front().wanted.outRows > 0);
    CHECK(s.smallMaps.back().wanted.outRows == 0);
    CHECK(drawn >= 5);
    CHECK(drawn < 20);
    for (int h = 0; h < heads; ++h) {
      CAPTURE(h);
      // Its picture, made on the worker, covers the whole T x T grid at the drawn heads' size.
      CHECK(s.smallImages[static_cast<std::size_t>(h)].window.rows == s.numPositions);
      CHECK(s.smallImages[static_cast<std::size_t>(h)].logicalCols == s.numPositions);
      CHECK(s.smallImages[static_cast<std::size_t>(h)].window.outRows == s.smallMaps.front().wanted.outRows);
    }
    if (heads == 128) {
      // The toy's head slider picks head 128: its grid scrolls into view and is drawn; the first
      // row scrolls out of sight.
      s.selectedHead = 127;
      renderAndSave(*app, outDir() + "/alibi-128-heads-last.png");
      CHECK(s.scrolledToHead == 127);
      CHECK(s.smallMaps.back().wanted.outRows > 0);
      CHECK(s.smallMaps.back().wanted.outRows == s.smallImages.back().window.outRows);
      s.smallMaps.front().wanted = {};
      CHECK(app->renderUntilIdle(2, 120.0));
      CHECK(s.smallMaps.front().wanted.outRows == 0);
    }
    // The last head's picture is core's exact block means at its view's window.
    const HeatmapImage& last = s.smallImages[static_cast<std::size_t>(heads - 1)];
    const posviz::Grid want =
        posviz::narrowPicture(posviz::alibiExactPicture(s.slopes[static_cast<std::size_t>(heads - 1)], s.causal, last.window));
    REQUIRE(last.cells.values.size() == want.values.size());
    for (std::size_t i = 0; i < want.values.size(); ++i) {
      if (std::isnan(want.values[i])) CHECK(std::isnan(last.cells.values[i]));
      else CHECK(last.cells.values[i] == want.values[i]);
    }
  }
}

TEST_CASE("views: the sinusoidal sub-views render and follow their parameters") {
  auto app = makeShell();
  if (!app) return;
  const std::string dir = outDir();
  app->selectPanel(findPanel("sinusoidal"));
  SinusoidalPanelState& s = app->state().sinusoidal;
  const struct {
    SinusoidalView view;
    const char* name;
  } views[] = {{SinusoidalView::Clock, "clock"}, {SinusoidalView::Similarity, "similarity"}, {SinusoidalView::Offset, "offset"}};
  for (const auto& v : views) {
    CAPTURE(v.name);
    s.view = v.view;
    s.selectView = true;
    const Image before = renderAndSave(*app, dir + "/sinusoidal-" + v.name + ".png");
    CHECK(luminanceStdDev(before) > 20.0);
    CHECK(s.view == v.view);
    // The clock hands turn with pos; similarity and M_k follow d_model.
    if (v.view == SinusoidalView::Clock) s.pos += 3;
    else {
      s.params.dModel = s.params.dModel == 128 ? 32 : 128;
      s.dirty = true;
    }
    const Image after = renderAndSave(*app, dir + "/sinusoidal-" + v.name + "-changed.png");
    CHECK(changedFraction(before, after) > 0.002);
  }
}

TEST_CASE("views: the offset tab builds M_k once per d_model, base, layout and k, not per frame") {
  auto app = makeShell();
  if (!app) return;
  SinusoidalPanelState& s = openSinusoidal(*app, SinusoidalView::Offset);
  REQUIRE(app->renderUntilIdle(4, 60.0));
  REQUIRE(s.offset.matrix != nullptr);
  const posviz::SinusoidalParams p = s.params;
  const int d = p.dModel;
  CHECK(*s.offset.matrix == posviz::sinusoidalOffsetMatrix(p, s.offsetK));
  CHECK(s.offset.worst < 1e-12);
  const std::vector<double>* built = s.offset.matrix.get();

  // Frames, another pair or another pos reuse it; pos only redoes the O(d) check.
  app->frame();
  s.pair = 5;
  app->frame();
  s.pos = 40;
  app->frame();
  CHECK(s.offset.matrix.get() == built);
  CHECK(s.offset.pos == 40);
  CHECK(s.offset.pe == posviz::sinusoidalVector(p, 40.0));
  CHECK(s.offset.image.cells.rows == d);

  // A new k rebuilds it from core.
  s.offsetK = -3;
  app->frame();
  REQUIRE(s.offset.matrix != nullptr);
  CHECK(s.offset.matrix.get() != built);
  CHECK(*s.offset.matrix == posviz::sinusoidalOffsetMatrix(p, -3.0));
  CHECK(s.offset.peK == posviz::sinusoidalVector(p, 37.0));
  CHECK(s.offset.worst < 1e-12);

  // Above d_model 1024 there is no full matrix, and no picture of it.
  s.params.dModel = 2048;
  s.dirty = true;
  app->frame();
  CHECK(s.offset.matrix == nullptr);
  CHECK(s.offset.image.cells.values.empty());
  CHECK(s.offset.pe.size() == 2048);
}

TEST_CASE("views: a huge sinusoidal grid never blocks a frame and the last picture stays up") {
  auto app = makeShell();
  if (!app) return;
  SinusoidalPanelState& s = openSinusoidal(*app, SinusoidalView::Encoding);
  REQUIRE(app->renderUntilIdle(4, 60.0));
  REQUIRE(s.peImage.result() != nullptr);
  // 131072 x 4096 = 512 Mi cells: computed on the worker, area-averaged to the screen.
  s.numPositions = 131072;
  s.params.dModel = 4096;
  s.peMap.resetView();
  s.dirty = true;
  app->frame();
  app->frame();
  CHECK(s.peImage.result() != nullptr);   // the previous image is still there while computing
  const Image picture = renderAndSave(*app, outDir() + "/sinusoidal-131072x4096.png");
  CHECK(luminanceStdDev(picture) > 20.0);
  const HeatmapImage* img = s.peImage.result();
  MESSAGE("131072 x 4096 area-averaged to " << (img ? img->cells.rows : 0) << " x " << (img ? img->cells.cols : 0)
                                            << " in " << s.peImage.millis() << " ms");
  REQUIRE(img != nullptr);
  CHECK(img->window.rows == 131072);
  CHECK(img->window.cols == 4096);
  CHECK(img->cells.rows == img->window.outRows);
  CHECK(img->cells.rows < 2000);          // screen resolution, not the full grid
  CHECK(s.peImage.error().empty());
}

TEST_CASE("views: the learned view shows positions past max_len as a no-row region") {
  auto app = makeShell();
  if (!app) return;
  app->selectPanel(findPanel("learned"));
  LearnedPanelState& s = app->state().learned;
  s.maxLen = 64;
  s.numPositions = 96;
  s.tableDirty = true;
  REQUIRE(app->renderUntilIdle(4, 60.0));
  REQUIRE(s.table != nullptr);
  CHECK(s.table->rows == 64);
  const HeatmapImage* img = s.image.result();
  REQUIRE(img != nullptr);
  CHECK(img->window.rows == 96);
  // Display rows past max_len hold no numbers (NaN: drawn hatched), rows before it do.
  CHECK(std::isnan(img->cells.at(img->cells.rows - 1, 0)));
  CHECK(std::isfinite(img->cells.at(0, 0)));
  // A missing .npy keeps the last good table and says which file failed.
  s.fromFile = true;
  s.path = std::string(POSVIZ_TEST_OUT) + "/does-not-exist.npy";
  requestLearnedTable(s);
  REQUIRE(app->renderUntilIdle(4, 30.0));
  CHECK(s.loadError.find("does-not-exist.npy") != std::string::npos);
  REQUIRE(s.table != nullptr);
  CHECK(s.table->rows == 64);
  // A real .npy replaces it: 3 x 2 with known values.
  const std::string good = std::string(POSVIZ_TEST_OUT) + "/table-3x2.npy";
  const float values[] = {1.0f, -2.0f, 0.5f, 0.25f, -1.0f, 3.0f};
  posviz::writeNpy(good, {3, 2}, values);
  s.path = good;
  requestLearnedTable(s);
  REQUIRE(app->renderUntilIdle(4, 30.0));
  CHECK(s.loadError.empty());
  REQUIRE(s.table != nullptr);
  CHECK(s.table->rows == 3);
  CHECK(s.table->cols == 2);
  CHECK(s.table->at(1, 1) == 0.25f);
  CHECK(s.maxLen == 3);
}

TEST_CASE("views: Image RoPE at its largest grid: the angle picture is each pixel's block mean, made on a worker") {
  auto app = makeShell();
  if (!app) return;
  app->selectPanel(findPanel("image-rope"));
  ImagePanelState& s = app->state().image;
  s.rows = s.cols = 64;
  s.headDim = 256;
  s.base = 100.0;
  s.dirty = true;
  REQUIRE(app->renderUntilIdle(4, 60.0));
  renderAndSave(*app, outDir() + "/image-rope-64x64-d256.png");
  REQUIRE(s.angles.rows == 4096);
  REQUIRE(s.angles.cols == 128);
  const HeatmapImage& img = s.angleImage;
  // The view asked for its own pixels: fewer display rows than 4096 patches, each the mean of its block.
  REQUIRE(img.window.rows == 4096);
  REQUIRE(img.cells.rows == img.window.outRows);
  CHECK(img.window.outRows < 4096);
  CHECK(img.window == s.angleMap.wanted);
  posviz::Grid want;
  posviz::areaAverageWindow(s.angles, img.window, want);
  CHECK(img.cells.values == want.values);
  // A base dragged once the view has its window: the worker makes and colours that picture.
  s.base = 200.0;
  s.dirty = true;
  REQUIRE(app->renderUntilIdle(4, 60.0));
  CHECK(s.angleImage.window == s.angleMap.wanted);
  CHECK(s.angleImage.colors.size() == s.angleImage.cells.values.size());
  posviz::areaAverageWindow(s.angles, s.angleImage.window, want);
  CHECK(s.angleImage.cells.values == want.values);
  CHECK(s.angles.at(1, 1) == doctest::Approx(posviz::wrapAngle(posviz::axialRopeAngle({256, 200.0, s.variant}, 1, 0.0, 1.0))).epsilon(1e-6));
  // The offset scores follow the query grid: 127 x 127 offsets, the query's row read from them.
  CHECK(s.offsetScores.rows == 127);
  CHECK(s.queryScores.at(0, 0) == s.offsetScores.at(s.queryRow + 63, s.queryCol + 63));
}

TEST_CASE("views: a large seeded learned table's pixels show the RMS under auto, each block exact") {
  auto app = makeShell();
  if (!app) return;
  app->selectPanel(findPanel("learned"));
  LearnedPanelState& s = app->state().learned;
  // 32768 x 512 seeded rows shown to 40960: hundreds of cells a pixel, the last fifth past max_len.
  s.maxLen = 32768;
  s.dModel = 512;
  s.numPositions = 40960;
  s.pixel = static_cast<int>(posviz::PixelChoice::Auto);
  s.tableDirty = true;
  s.dirty = true;
  REQUIRE(app->renderUntilIdle(4, 120.0));
  renderAndSave(*app, outDir() + "/learned-32768-auto.png");
  REQUIRE(s.table != nullptr);
  const HeatmapImage* img = s.image.result();
  REQUIRE(img != nullptr);
  REQUIRE(img->window.rows == 40960);
  REQUIRE(img->window.outRows < img->window.rows);
  // N(0, 0.02^2) cells: block means ~0 flatten out, so auto shows each block's RMS (~0.02).
  CHECK(img->pixelStat == "RMS");
  CHECK(img->pixelNote.find("auto") != std::string::npos);
  const posviz::ExactPicture rms = posviz::gridStatPicture(*s.table, img->window, posviz::PixelStat::Rms, 40960);
  REQUIRE(img->cells.values.size() == rms.values.size());
  for (std::size_t i = 0; i < rms.values.size(); i += 97) {
    CAPTURE(i);
    if (std::isnan(rms.values[i])) CHECK(std::isnan(img->cells.values[i]));
    else CHECK(img->cells.values[i] == doctest::Approx(rms.values[i]).epsilon(1e-6));
  }
  CHECK(img->cells.at(0, 0) == doctest::Approx(0.02).epsilon(0.1));
  CHECK(std::isnan(img->cells.at(img->cells.rows - 1, 0)));   // past max_len: no cells
  // The status bar says what a pixel is.
  CHECK(app->context().status.gridSize.find("RMS of") != std::string::npos);
  // Asked for the mean, the picture is the block means again.
  s.pixel = static_cast<int>(posviz::PixelChoice::Mean);
  s.dirty = true;
  REQUIRE(app->renderUntilIdle(4, 60.0));
  img = s.image.result();
  REQUIRE(img != nullptr);
  CHECK(img->pixelStat == "mean");
  CHECK(std::fabs(img->cells.at(0, 0)) < 0.005f);
  renderAndSave(*app, outDir() + "/learned-32768-mean.png");
}

}  // TEST_SUITE

TEST_SUITE("app") {

TEST_CASE("views: the sinusoidal heatmap from the GPU backend matches the CPU one") {
  auto app = makeShell();
  if (!app) return;
  if (!app->context().gpu) {
    MESSAGE("SKIPPED: no GPU compute (" << app->context().gpuNotice << ")");
    return;
  }
  app->selectPanel(findPanel("sinusoidal"));
  SinusoidalPanelState& s = app->state().sinusoidal;
  app->context().backend = BackendChoice::Cpu;
  app->context().backendEpoch++;
  REQUIRE(app->renderUntilIdle(4, 60.0));
  REQUIRE(s.peImage.result() != nullptr);
  const posviz::Grid cpu = s.peImage.result()->cells;
  CHECK_FALSE(s.lastOnGpu);
  app->context().backend = BackendChoice::Gpu;
  app->context().backendEpoch++;
  REQUIRE(app->renderUntilIdle(4, 60.0));
  CHECK(s.lastOnGpu);
  CAPTURE(s.gpuNotice);
  const posviz::Grid& gpu = s.peImage.result()->cells;
  REQUIRE(gpu.rows == cpu.rows);
  REQUIRE(gpu.cols == cpu.cols);
  // 1e-4: the GPU mirror's stated tolerance (float sin of pos * omega); means of such values
  // cannot drift further.
  for (std::size_t i = 0; i < cpu.values.size(); i += 97) {
    CAPTURE(i);
    CHECK(gpu.values[i] == doctest::Approx(cpu.values[i]).epsilon(1e-4).scale(1.0));
  }
}

}  // TEST_SUITE

TEST_CASE("views: 2^31 positions: each pixel is its rows' closed-form mean, hover stays exact") {
  auto app = makeShell();
  if (!app) return;
  SinusoidalPanelState& s = openSinusoidal(*app, SinusoidalView::Encoding);
  s.numPositions = 2147483647;
  s.params.dModel = 4096;
  s.pixel = static_cast<int>(posviz::PixelChoice::Mean);   // auto would show the RMS here (next test)
  s.peMap.resetView();
  s.dirty = true;
  REQUIRE(app->renderUntilIdle(4, 60.0));
  const Image picture = renderAndSave(*app, outDir() + "/sinusoidal-2147483647x4096.png");
  CHECK(luminanceStdDev(picture) > 5.0);
  const HeatmapImage* img = s.peImage.result();
  REQUIRE(img != nullptr);
  MESSAGE("2147483647 x 4096 averaged to " << img->cells.rows << " x " << img->cells.cols << " in "
                                            << s.peImage.millis() << " ms");
  const posviz::GridWindow& w = img->window;
  REQUIRE(w.rows == 2147483647);
  REQUIRE(img->cells.rows == w.outRows);
  CHECK(img->colors.size() == img->cells.values.size());   // coloured on the worker: the UI thread only uploads
  for (int i : {0, w.outRows - 1}) {
    for (int j : {0, w.outCols / 2, w.outCols - 1}) {
      CAPTURE(i);
      CAPTURE(j);
      const long long r0 = posviz::areaCellBegin(w.rows, w.outRows, i), r1 = posviz::areaCellBegin(w.rows, w.outRows, i + 1);
      const long long c0 = posviz::areaCellBegin(w.cols, w.outCols, j), c1 = posviz::areaCellBegin(w.cols, w.outCols, j + 1);
      CHECK(img->cells.at(i, j) == doctest::Approx(posviz::sinusoidalBlockMean(s.params, r0, r1, static_cast<int>(c0),
                                                                       static_cast<int>(c1))).epsilon(1e-6));
    }
  }
}

TEST_CASE("views: 2^31 positions: auto shows the RMS where the mean flattens out, and each stat on request") {
  auto app = makeShell();
  if (!app) return;
  SinusoidalPanelState& s = openSinusoidal(*app, SinusoidalView::Encoding);
  s.numPositions = 2147483647;
  s.params.dModel = 256;
  s.peMap.resetView();
  s.dirty = true;
  REQUIRE(app->renderUntilIdle(4, 60.0));
  const HeatmapImage* img = s.peImage.result();
  REQUIRE(img != nullptr);
  CHECK(img->pixelStat == "RMS");
  CHECK(img->pixelNote.find("the means flatten out") != std::string::npos);
  CHECK(app->context().status.gridSize.find("1 px = RMS of") != std::string::npos);
  const posviz::GridWindow& w = img->window;
  const long long r0 = posviz::areaCellBegin(w.rows, w.outRows, 3), r1 = posviz::areaCellBegin(w.rows, w.outRows, 4);
  const long long c0 = posviz::areaCellBegin(w.cols, w.outCols, 5), c1 = posviz::areaCellBegin(w.cols, w.outCols, 6);
  const posviz::BlockStats b = posviz::sinusoidalBlockStats(s.params, r0, r1, static_cast<int>(c0), static_cast<int>(c1));
  CHECK(img->cells.at(3, 5) == doctest::Approx(b.rms).epsilon(1e-6));
  renderAndSave(*app, outDir() + "/sinusoidal-2147483647-RMS.png");
  const struct {
    posviz::PixelChoice choice;
    const char* word;
    double value;
  } picks[] = {{posviz::PixelChoice::Min, "least", b.min}, {posviz::PixelChoice::Max, "greatest", b.max},
               {posviz::PixelChoice::Mean, "mean", b.mean}};
  for (const auto& pick : picks) {
    CAPTURE(pick.word);
    s.pixel = static_cast<int>(pick.choice);
    s.dirty = true;
    REQUIRE(app->renderUntilIdle(4, 60.0));
    img = s.peImage.result();
    REQUIRE(img != nullptr);
    CHECK(img->pixelStat == pick.word);
    CHECK(img->pixelNote.empty());
    CHECK(img->cells.at(3, 5) == doctest::Approx(pick.value).epsilon(1e-6));
    renderAndSave(*app, outDir() + "/sinusoidal-2147483647-" + pick.word + ".png");
  }
}

TEST_CASE("views: RoPE s(m, n) at 2^17 positions and the cos grid show each block's envelope and RMS on request") {
  auto app = makeShell();
  if (!app) return;
  RopePanelState& s = app->state().rope;
  app->selectPanel(findPanel("rope"));
  s.numPositions = 1 << 17;   // hundreds of rows a pixel: the closed-form path, as at 2^20, at an eighth of the work
  s.pixel = static_cast<int>(posviz::PixelChoice::Max);
  s.dirty = true;
  REQUIRE(app->renderUntilIdle(4, 60.0));
  const RopeScoreResult* res = s.score.result();
  REQUIRE(res != nullptr);
  const HeatmapImage& img = res->image;
  CHECK(img.pixelStat == "greatest");
  CHECK(app->context().status.gridSize.find("1 px = greatest of") != std::string::npos);
  const posviz::GridWindow& w = img.window;
  REQUIRE(w.rows == 1 << 17);
  // Block (2, 7): its greatest s over its cells, from s at its own offsets m - n.
  const long long m0 = posviz::areaCellBegin(w.rows, w.outRows, 2), m1 = posviz::areaCellBegin(w.rows, w.outRows, 3);
  const long long n0 = posviz::areaCellBegin(w.cols, w.outCols, 7), n1 = posviz::areaCellBegin(w.cols, w.outCols, 8);
  const std::vector<double> f = posviz::ropeScoreAtOffsets(s.params, s.q, s.k, m0 - n1 + 1, m1 - m0 + n1 - n0 - 1);
  const double most = *std::max_element(f.begin(), f.end());
  CHECK(img.cells.at(2, 7) == doctest::Approx(most).epsilon(1e-6));
  renderAndSave(*app, outDir() + "/rope-score-greatest.png");
  // The cos grid (T = 16384, 32 rows a pixel or more): each pixel its block's least, the grid's own cells.
  s.gridKind = RopeGridKind::Cos;
  s.numPositions = kRopePairGridMaxPositions;
  s.pixel = static_cast<int>(posviz::PixelChoice::Min);
  s.dirty = true;
  REQUIRE(app->renderUntilIdle(4, 60.0));
  CHECK(s.pairImage.pixelStat == "least");
  const posviz::GridWindow& pw = s.pairImage.window;
  REQUIRE(pw.rows > pw.outRows);
  const long long r0 = posviz::areaCellBegin(pw.rows, pw.outRows, 1), r1 = posviz::areaCellBegin(pw.rows, pw.outRows, 2);
  const long long c0 = posviz::areaCellBegin(pw.cols, pw.outCols, 0), c1 = posviz::areaCellBegin(pw.cols, pw.outCols, 1);
  float least = 2.0f;
  for (long long r = r0; r < r1; ++r)
    for (long long c = c0; c < c1; ++c) least = std::min(least, s.pairGrid.at(static_cast<int>(r), static_cast<int>(c)));
  CHECK(s.pairImage.cells.at(1, 0) == least);
  const posviz::BlockStats b = posviz::ropePairBlockStats(s.params, posviz::RopePairValue::Cos, r0, r1, static_cast<int>(c0),
                                                          static_cast<int>(c1));
  CHECK(b.min == doctest::Approx(least).epsilon(1e-5));
  renderAndSave(*app, outDir() + "/rope-cos-least.png");
}

TEST_CASE("views: a slow Learn figure recomputes on the worker; the last one stays up until the new one arrives") {
  auto app = makeShell();
  if (!app) return;
  LearnPanelState& s = app->state().learn;
  app->selectPanel(findPanel("learn"));
  s.step = "choose-table";
  s.values["choose-table"] = {2048, 4};
  REQUIRE(app->renderUntilIdle(4, 60.0));
  REQUIRE(s.shownStep == "choose-table");
  CHECK(s.shownValues == std::vector<double>{2048, 4});   // the first figure of a step: in the frame
  REQUIRE(s.figureMs.count("choose-table") == 1);
  s.figureMs["choose-table"] = 10 * posviz::app::kLearnSyncMs;   // as if it had been slow
  REQUIRE(s.figure.table.has_value());
  const auto before = s.figure.table->rows;
  s.values["choose-table"] = {512, 4};
  app->frame();
  CHECK(s.pendingValues == std::vector<double>{512, 4});
  CHECK(s.shownValues == std::vector<double>{2048, 4});   // the old figure, still up
  CHECK(s.figure.table->rows == before);
  REQUIRE(app->renderUntilIdle(4, 60.0));
  CHECK(s.shownValues == std::vector<double>{512, 4});
  const auto ref = posviz::learn::findStep("choose-table");
  REQUIRE(ref.has_value());
  const std::vector<double> v = {512, 4};
  const posviz::learn::Figure want = posviz::learn::stepFigure(ref->get(), v, s.inputs ? *s.inputs : posviz::learn::Inputs{});
  REQUIRE(want.table.has_value());
  CHECK(s.figure.table->rows == want.table->rows);
  CHECK(s.figure.table->rows != before);   // L0 = 512 changes the computed cells
}

TEST_CASE("views: the heatmap shows its picture's colours cell for cell, from padded and unpadded textures") {
  // A display-resolution picture sits in the corner of power-of-two texture storage; every pixel
  // of the drawn image must still show the colour of the cell its centre falls in (nearest), from
  // the first row and column to the last, and nothing of the padding.
  auto app = makeShell();
  if (!app) return;
  SinusoidalPanelState& s = openSinusoidal(*app, SinusoidalView::Encoding);
  struct Size {
    int positions, dModel;
  };
  for (const Size size : {Size{300, 100}, Size{512, 64}, Size{2147483647, 4096}}) {
    CAPTURE(size.positions);
    CAPTURE(size.dModel);
    s.numPositions = size.positions;
    s.params.dModel = size.dModel;
    s.peMap.resetView();
    s.dirty = true;
    const Image shot = renderAndSave(*app, outDir() + "/heatmap-cells-" + std::to_string(size.dModel) + ".png");
    const HeatmapImage* img = s.peImage.result();
    REQUIRE(img != nullptr);
    const HeatmapState& st = s.peMap;
    REQUIRE(st.textureRows == img->cells.rows);
    REQUIRE(st.textureCols == img->cells.cols);
    CHECK(st.storageRows >= st.textureRows);
    CHECK(st.storageCols >= st.textureCols);
    CHECK((st.storageRows & (st.storageRows - 1)) == 0);   // padded to powers of two: never minified here
    CHECK((st.storageCols & (st.storageCols - 1)) == 0);
    const float x0 = st.imageX0, y0 = st.imageY0, x1 = st.imageX1, y1 = st.imageY1;
    REQUIRE(x1 - x0 > 50.0f);
    REQUIRE(y1 - y0 > 50.0f);
    int compared = 0, wrong = 0;
    // Inside the frame the border draws on the image's outermost pixels.
    for (int py = static_cast<int>(std::ceil(y0)) + 1; py < static_cast<int>(y1) - 1; py += 7) {
      for (int px = static_cast<int>(std::ceil(x0)) + 1; px < static_cast<int>(x1) - 1; px += 5) {
        const double u = (px + 0.5 - x0) / (x1 - x0) * img->cells.cols, v = (py + 0.5 - y0) / (y1 - y0) * img->cells.rows;
        if (u - std::floor(u) < 0.02 || u - std::floor(u) > 0.98 || v - std::floor(v) < 0.02 || v - std::floor(v) > 0.98)
          continue;   // on a cell's edge either neighbour is right
        const auto i = static_cast<std::size_t>(v), j = static_cast<std::size_t>(u);
        if (i >= static_cast<std::size_t>(img->cells.rows) || j >= static_cast<std::size_t>(img->cells.cols)) continue;
        const posviz::Rgba8 want = img->colors[i * static_cast<std::size_t>(img->cells.cols) + j];
        const unsigned char* got = &shot.rgb[(static_cast<std::size_t>(py) * static_cast<std::size_t>(shot.width) + static_cast<std::size_t>(px)) * 3];
        ++compared;
        if (got[0] != want.r || got[1] != want.g || got[2] != want.b) { ++wrong; if (wrong < 12) MESSAGE("px " << px << "," << py << " of " << x0 << ".." << x1 << " x " << y0 << ".." << y1 << " got " << int(got[0]) << " " << int(got[1]) << " " << int(got[2]) << " want " << int(want.r) << " " << int(want.g) << " " << int(want.b)); }
      }
    }
    CAPTURE(compared);
    CHECK(compared > 1000);
    CHECK(wrong == 0);
  }
}

TEST_CASE("views: a 2^20-position RoPE drag shows each new picture at once; the O(T) curves follow when it rests") {
  auto app = makeShell();
  if (!app) return;
  app->selectPanel(findPanel("rope"));
  RopePanelState& s = app->state().rope;
  s.gridKind = RopeGridKind::Score;
  s.numPositions = 1 << 20;
  s.dirty = true;
  REQUIRE(app->renderUntilIdle(4, 120.0));
  REQUIRE(s.score.result() != nullptr);
  REQUIRE(s.score.result()->curvesVersion == s.inputVersion);
  // A drag: the base moves every frame. Pictures for the moving value arrive while the curves
  // stay those of the value before the drag.
  const long long restedVersion = s.inputVersion;
  int pictures = 0;
  long long last = s.score.result()->inputVersion;
  for (int i = 0; i < 40; ++i) {
    s.params.base = 10000.0 * (1.0 + 0.01 * (i + 1));
    s.dirty = true;
    app->frame();             // the change is seen and its picture requested at once
    REQUIRE(s.score.waitIdle(30.0));
    s.score.poll();           // as the next frame would, before it could ask for anything else
    const RopeScoreResult* r = s.score.result();
    CHECK(r->inputVersion == s.inputVersion);
    if (r->inputVersion != last) ++pictures;
    last = r->inputVersion;
    CHECK(r->curvesVersion == restedVersion);
  }
  CHECK(pictures >= 30);
  std::string error;   // one frame as the drag left it: new picture, curves of the value before
  CHECK(app->frame(outDir() + "/rope-1048576-dragging.png", &error));
  CAPTURE(error);
  // At rest the curves catch up with the last value.
  REQUIRE(app->renderUntilIdle(4, 120.0));
  const RopeScoreResult* r = s.score.result();
  CHECK(r->curvesVersion == s.inputVersion);
  CHECK(r->inputVersion == s.inputVersion);
  const Image picture = renderAndSave(*app, outDir() + "/rope-1048576.png");
  CHECK(luminanceStdDev(picture) > 5.0);
}
