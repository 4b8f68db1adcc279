// The real app shell under abuse (run under xvfb-run): a window shrunk to 1 x 1 or minimized, a
// soak that sweeps every panel's parameters for thousands of frames while watching the resident
// memory, and bad values entered where the app takes them (typed lists, file paths, saved
// settings, model configs): each must show an inline error and keep the last good result.
#include <doctest/doctest.h>
#include <epoxy/gl.h>
#include <GLFW/glfw3.h>
#include <malloc.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/shell/app_shell.hpp"
#include "app/gui/panels/panel_rope.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "app/gui/panels/panels.hpp"
#include "tests/gui/test_shell.hpp"

using namespace posviz::app;

namespace {

// A small window (fast on llvmpipe), or nullptr with a loud message when there is no display
// (a failure in CI).
std::unique_ptr<AppShell> makeSmallShell() { return testing::makeTestShell(640, 480); }

// Every GL error raised since the last call (the frame just drawn).
std::vector<GLenum> drainGlErrors() {
  std::vector<GLenum> errors;
  for (int i = 0; i < 64; ++i) {
    const GLenum e = glGetError();
    if (e == GL_NO_ERROR) break;
    errors.push_back(e);
  }
  return errors;
}

// Resident set size in bytes, after returning freed heap pages to the system so that only
// memory still allocated counts.
std::size_t residentBytes() {
  malloc_trim(0);
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// Bytes the allocator has handed out and not had back, over every arena (glibc sums them), the
// large blocks it maps on its own included: what a leak grows, whatever the freed pages do.
std::size_t heapInUseBytes() {
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

// The frame count after which a triangle wave over [0, steps) repeats.
int triangle(long long frame, int steps) {
  const long long period = 2LL * (steps - 1);
  const long long k = frame % period;
  return static_cast<int>(k < steps ? k : period - k);
}

// Moves the main parameters of panel `name` to step `f` of a sweep across their ranges, as the
// sliders would (same ranges, the same dirty flags).
void sweepPanel(AppState& a, const std::string& name, long long f) {
  if (name == "sinusoidal") {
    SinusoidalPanelState& s = a.sinusoidal;
    s.params.dModel = 2 * (1 + triangle(f, 64) * 8);                          // 2 .. 1010
    s.numPositions = 1 + triangle(f * 7, 40) * 200;                           // 1 .. 7801
    s.params.base = std::pow(10.0, 1.0 + 5.0 * triangle(f * 3, 50) / 49.0);   // 10 .. 1e6
    s.params.layout = (f / 17) % 2 ? posviz::SinusoidalLayout::Tensor2Tensor : posviz::SinusoidalLayout::Interleaved;
    s.pos = triangle(f * 5, 100) * 10;
    s.pair = std::min(s.pair, s.params.dModel / 2 - 1);
    s.simPositions = 2 + triangle(f * 11, 30) * 60;                           // 2 .. 1742
    if (f % 40 == 0) {
      s.view = static_cast<SinusoidalView>((f / 40) % 4);
      s.selectView = true;
    }
    s.dirty = true;
  } else if (name == "learned") {
    LearnedPanelState& s = a.learned;
    s.maxLen = 1 + triangle(f, 40) * 100;             // 1 .. 3901
    s.dModel = 1 + triangle(f * 3, 32) * 16;          // 1 .. 497
    s.seed = static_cast<std::uint64_t>(f);
    s.numPositions = 1 + triangle(f * 5, 50) * 100;   // 1 .. 4901
    s.lookupPos = triangle(f * 7, 60) * 80;
    s.fromFile = false;
    s.tableDirty = true;
    s.dirty = true;
  } else if (name == "rope") {
    RopePanelState& s = a.rope;
    s.params.headDim = 2 * (1 + triangle(f, 64) * 2);                          // 2 .. 254
    s.params.base = std::pow(10.0, 2.0 + 4.0 * triangle(f * 3, 40) / 39.0);    // 100 .. 1e6
    s.params.rotaryFraction = 0.25 + 0.75 * triangle(f * 5, 4) / 3.0;
    s.params.layout = (f / 13) % 2 ? posviz::RopeLayout::Interleaved : posviz::RopeLayout::HalfSplit;
    s.numPositions = 2 + triangle(f * 7, 40) * 50;                             // 2 .. 1952
    s.posM = triangle(f * 11, 50) * 30;
    s.posN = triangle(f * 13, 50) * 30;
    s.seed = static_cast<int>(f % 1000);
    s.gridKind = static_cast<RopeGridKind>((f / 25) % 4);
    posviz::RopeScaling& sc = s.params.scaling;
    const int m = static_cast<int>((f / 30) % 4);
    sc.method = m == 0 ? posviz::ScalingMethod::None
              : m == 1 ? posviz::ScalingMethod::Linear
              : m == 2 ? posviz::ScalingMethod::NtkAware
                       : posviz::ScalingMethod::Yarn;
    sc.factor = 1.0 + triangle(f, 8);
    if (s.params.headDim < 8 && m == 2) sc.method = posviz::ScalingMethod::Linear;   // ntk needs 4 rotary dims
    s.dirty = true;
  } else if (name == "context") {
    ContextExtensionPanelState& s = a.context;
    s.headDim = 4 + 2 * triangle(f, 127);                                    // 4 .. 256
    s.base = std::pow(10.0, 2.0 + 4.0 * triangle(f * 3, 40) / 39.0);
    s.rotaryFraction = 0.5 + 0.5 * triangle(f * 5, 3) / 2.0;
    s.selected = static_cast<int>((f / 10) % kNumScalingMethods);
    s.wavelength = (f / 50) % 2 == 1;
    for (auto& sc : s.scaling) sc.factor = 1.0 + triangle(f * 7, 16);
    s.listsAuto = true;
    s.dirty = true;
  } else if (name == "alibi") {
    AlibiPanelState& s = a.alibi;
    s.numHeads = 1 + triangle(f, static_cast<int>(posviz::cli::params::alibi::kTabHeads.max));             // 1 .. 128
    s.numPositions = 2 + triangle(f * 3, static_cast<int>(posviz::cli::params::alibi::kTabPositions.max) - 1);   // 2 .. 256
    s.causal = (f / 7) % 2 == 0;
    s.showAll = (f / 11) % 2 == 0;
    s.selectedHead = static_cast<int>(f % s.numHeads);
    s.toyDModel = 2 * (1 + triangle(f * 5, 32));                             // 2 .. 64
    s.toySeed = static_cast<int>(f % 100);
    s.dirty = true;
  } else if (name == "examples") {
    ExamplesPanelState& s = a.examples;
    if (!s.examples.empty()) {
      s.selected = static_cast<int>(f % static_cast<long long>(s.examples.size()));
      const auto steps = s.examples[static_cast<std::size_t>(s.selected)].steps.size();
      s.step = steps > 0 ? static_cast<int>(f % static_cast<long long>(steps)) : 0;
    }
  } else if (name == "order") {
    OrderPanelState& s = a.order;
    s.encoding = static_cast<int>(f % static_cast<long long>(orderEncodings().size()));
    s.causal = (f / 5) % 2 == 0;
    s.toyDModel = 2 * (1 + triangle(f * 3, 32));
    s.toySeed = static_cast<int>(f % 50);
    s.dirty = true;
  }
}

// Writes text to a fresh file under the test output directory and returns its path.
std::string writeTestFile(const std::string& name, const std::string& bytes) {
  const std::string dir = std::string(POSVIZ_TEST_OUT) + "/robustness";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace

TEST_SUITE("app") {

TEST_CASE("robustness: a 1 x 1 or minimized window renders every panel without a crash or GL error") {
  auto app = makeSmallShell();
  if (!app) return;
  GLFWwindow* w = app->window();
  REQUIRE(w != nullptr);
  const auto& table = panels();
  for (std::size_t i = 0; i < table.size(); ++i) {
    const PanelInfo& p = table[i];
    CAPTURE(p.name);
    app->selectPanel(static_cast<int>(i));
    REQUIRE(app->renderUntilIdle(3, 60.0));
    drainGlErrors();

    glfwSetWindowSize(w, 1, 1);
    for (int f = 0; f < 8; ++f) {
      CAPTURE(f);
      app->frame();
      const std::vector<GLenum> errors = drainGlErrors();
      CAPTURE(errors.size());
      CHECK_MESSAGE(errors.empty(), "GL error 0x" << std::hex << (errors.empty() ? 0u : errors[0]) << " at 1 x 1");
    }
    CHECK(app->framebufferWidth() >= 0);
    CHECK(app->framebufferWidth() <= 64);   // the resize took effect (no window manager under xvfb)

    // Minimized: without a window manager the request may not take effect; the frames must
    // survive either way. A 0 x 0 framebuffer is what a minimized window reports elsewhere.
    glfwIconifyWindow(w);
    for (int f = 0; f < 8; ++f) {
      app->frame();
      CHECK(drainGlErrors().empty());
    }
    glfwRestoreWindow(w);
    glfwSetWindowSize(w, 640, 480);
    CHECK(app->renderUntilIdle(3, 60.0));
    CHECK(drainGlErrors().empty());
    CHECK(app->activePanel() == static_cast<int>(i));
    CHECK(app->framebufferWidth() == 640);
  }
}

TEST_CASE("robustness: sweeping every panel's parameters for thousands of frames does not grow memory") {
  auto app = makeSmallShell();
  if (!app) return;
  const auto& table = panels();
  const int framesPerPanel = 300;     // 13 panels: 3900 frames in all
  // Warm-up: every panel once through every mode its sweep visits (the sinusoidal tabs change
  // every 40 frames, 4 of them; RoPE's scaling every 30, 4 of them), so that fonts, textures,
  // worker threads and caches reach their working size before the first reading. With 60
  // frames the first sweep's new tabs alone added some 18 MiB, all at once and never again.
  const int warmupFrames = 160;
  long long frames = 0;
  for (std::size_t i = 0; i < table.size(); ++i) {
    app->selectPanel(static_cast<int>(i));
    for (int f = 0; f < warmupFrames; ++f, ++frames) {
      sweepPanel(app->state(), table[i].name, f);
      app->frame();
    }
    REQUIRE(app->renderUntilIdle(2, 120.0));
  }
  // Every reading is taken in the same state: every panel back at its sweep's first step, idle.
  struct Reading {
    std::size_t rss, heap;
  };
  auto atFirstStep = [&] {
    for (std::size_t i = 0; i < table.size(); ++i) {
      app->selectPanel(static_cast<int>(i));
      sweepPanel(app->state(), table[i].name, 0);
      REQUIRE(app->renderUntilIdle(2, 120.0));
    }
    return Reading{residentBytes(), heapInUseBytes()};
  };
  // Two passes of the sweep. A leak adds in both. The resident size also moves with what the
  // allocator keeps of freed memory, and with the machine's load: one pass has added 5 to 34 MiB
  // beside the other suites while the heap in use stayed within 3 MiB.
  std::vector<Reading> at{atFirstStep()};
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < table.size(); ++i) {
      CAPTURE(table[i].name);
      app->selectPanel(static_cast<int>(i));
      for (int f = 0; f < framesPerPanel; ++f, ++frames) {
        sweepPanel(app->state(), table[i].name, warmupFrames + pass * framesPerPanel + f);
        app->frame();
      }
      CHECK(app->renderUntilIdle(2, 120.0));
      CHECK(drainGlErrors().empty());
    }
    at.push_back(atFirstStep());
  }
  auto mib = [](std::size_t a, std::size_t b) { return (static_cast<double>(b) - static_cast<double>(a)) / (1024.0 * 1024.0); };
  const double heapFirst = mib(at[0].heap, at[1].heap), heapSecond = mib(at[1].heap, at[2].heap);
  const double rssSecond = mib(at[1].rss, at[2].rss);
  MESSAGE("soak: " << frames << " frames; heap in use " << at[0].heap / (1024 * 1024) << " -> " << at[1].heap / (1024 * 1024)
                   << " -> " << at[2].heap / (1024 * 1024) << " MiB; RSS " << at[0].rss / (1024 * 1024) << " -> "
                   << at[1].rss / (1024 * 1024) << " -> " << at[2].rss / (1024 * 1024) << " MiB");
  CHECK(frames >= 2000);
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer has its own allocator and holds freed memory in quarantine (256 MiB by
  // default), so neither reading says anything there; LeakSanitizer checks at exit instead.
  MESSAGE("AddressSanitizer build: the bounds are checked in the plain build only");
#else
  CHECK(heapFirst < 16.0);
  CHECK(heapSecond < 16.0);
  CHECK(rssSecond < 48.0);
#endif
}

TEST_CASE("robustness: typed q and k that are not numbers show an inline error and keep the last good vectors") {
  auto app = makeSmallShell();
  if (!app) return;
  app->selectPanel(findPanel("rope"));
  RopePanelState& s = app->state().rope;
  s.typedVectors = true;
  s.qText = "1, 2, 3, 4";
  s.kText = "4, 3, 2, 1";
  s.dirty = true;
  REQUIRE(app->renderUntilIdle(3, 60.0));
  REQUIRE(s.qError.empty());
  REQUIRE(s.error.empty());
  REQUIRE(s.q == std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f});
  REQUIRE(s.params.headDim == 4);
  REQUIRE(s.score.result() != nullptr);
  const std::vector<float> goodQRot = s.qRot;

  const char* bad[] = {"abc", "nan, 1, 1, 1", "1, inf, 1, 1", "1e999, 1, 1, 1", "", "   ", "1, 2, 3", "1, 2, 3, 4x",
                       "0x, 1, 1, 1"};
  for (const char* text : bad) {
    CAPTURE(text);
    s.qText = text;
    s.kText = "4, 3, 2, 1";
    s.dirty = true;
    CHECK(app->renderUntilIdle(2, 60.0));
    CHECK_FALSE((s.qError.empty() && s.kError.empty()));
    CHECK(s.q == std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f});   // the last good q
    CHECK(s.params.headDim == 4);
    CHECK(s.error.empty());
    CHECK(s.qRot == goodQRot);
    CHECK(s.score.result() != nullptr);                          // the grid stays up
  }
  // A good value clears the error.
  s.qText = "1, 0, 0, 1";
  s.dirty = true;
  CHECK(app->renderUntilIdle(2, 60.0));
  CHECK(s.qError.empty());
  CHECK(s.q == std::vector<float>{1.0f, 0.0f, 0.0f, 1.0f});
}

TEST_CASE("robustness: the number-list parser behind every typed list rejects what is not a finite number") {
  std::vector<double> out{42.0};
  std::string error;
  for (const char* text : {"abc", "nan", "1,nan", "inf", "-inf", "1e999", "", " , ,", "12x", "1;2;x", "--1"}) {
    CAPTURE(text);
    CHECK_FALSE(parseNumberList(text, out, &error));
    CHECK_FALSE(error.empty());
    CHECK(out == std::vector<double>{42.0});   // untouched on failure
  }
  CHECK(parseNumberList(" 0.5, -1,2e-3 ", out, &error));
  CHECK(out == std::vector<double>{0.5, -1.0, 2e-3});
  CHECK(error.empty());
}

TEST_CASE("robustness: parameters a config or settings file can carry but core rejects show an error, not a crash") {
  auto app = makeSmallShell();
  if (!app) return;

  SUBCASE("rope: odd head_dim, NaN and infinite base, zero rotary fraction") {
    app->selectPanel(findPanel("rope"));
    RopePanelState& s = app->state().rope;
    REQUIRE(app->renderUntilIdle(3, 60.0));
    REQUIRE(s.error.empty());
    const std::size_t goodPairs = s.freqs.invFreq.size();
    REQUIRE(goodPairs == static_cast<std::size_t>(s.params.headDim / 2));
    const posviz::RopeParams good = s.params;
    struct Bad {
      const char* what;
      void (*apply)(posviz::RopeParams&);
    } cases[] = {
        {"head_dim 63", [](posviz::RopeParams& p) { p.headDim = 63; }},
        {"head_dim 0", [](posviz::RopeParams& p) { p.headDim = 0; }},
        {"base NaN", [](posviz::RopeParams& p) { p.base = std::numeric_limits<double>::quiet_NaN(); }},
        {"base inf", [](posviz::RopeParams& p) { p.base = std::numeric_limits<double>::infinity(); }},
        {"base 1", [](posviz::RopeParams& p) { p.base = 1.0; }},
        {"rotary fraction 0", [](posviz::RopeParams& p) { p.rotaryFraction = 0.0; }},
        {"yarn factor NaN", [](posviz::RopeParams& p) {
           p.scaling.method = posviz::ScalingMethod::Yarn;
           p.scaling.factor = std::numeric_limits<double>::quiet_NaN();
         }},
    };
    for (const Bad& b : cases) {
      CAPTURE(b.what);
      s.params = good;
      b.apply(s.params);
      s.dirty = true;
      for (int f = 0; f < 4; ++f) app->frame();
      CHECK_FALSE(s.error.empty());
      CHECK(s.freqs.invFreq.size() == goodPairs);   // the last good frequencies stay
      CHECK(drainGlErrors().empty());
    }
    s.params = good;
    s.dirty = true;
    CHECK(app->renderUntilIdle(2, 60.0));
    CHECK(s.error.empty());
  }

  SUBCASE("sinusoidal: odd or zero d_model, NaN base") {
    app->selectPanel(findPanel("sinusoidal"));
    SinusoidalPanelState& s = app->state().sinusoidal;
    s.view = SinusoidalView::Encoding;
    s.selectView = true;
    REQUIRE(app->renderUntilIdle(3, 60.0));
    REQUIRE(s.peImage.result() != nullptr);
    const long long goodCols = s.peImage.result()->window.cols;
    const posviz::SinusoidalParams good = s.params;
    for (int which = 0; which < 3; ++which) {
      CAPTURE(which);
      s.params = good;
      if (which == 0) s.params.dModel = 63;
      if (which == 1) s.params.dModel = 0;
      if (which == 2) s.params.base = std::numeric_limits<double>::quiet_NaN();
      s.dirty = true;
      for (int f = 0; f < 4; ++f) app->frame();
      CHECK_FALSE((s.error.empty() && s.peImage.error().empty()));   // shown inline
      REQUIRE(s.peImage.result() != nullptr);
      CHECK(s.peImage.result()->window.cols == goodCols);           // the last good picture stays
    }
    s.params = good;
    s.dirty = true;
    CHECK(app->renderUntilIdle(2, 60.0));
  }

  SUBCASE("alibi: zero heads, one position, odd toy d_model, an empty sentence") {
    app->selectPanel(findPanel("alibi"));
    AlibiPanelState& s = app->state().alibi;
    REQUIRE(app->renderUntilIdle(3, 60.0));
    REQUIRE(s.error.empty());
    const std::vector<double> goodSlopes = s.slopes;
    s.numHeads = 0;
    s.dirty = true;
    for (int f = 0; f < 4; ++f) app->frame();
    CHECK_FALSE(s.error.empty());
    CHECK(s.slopes == goodSlopes);
    s.numHeads = static_cast<int>(goodSlopes.size());
    s.toyDModel = 7;
    s.dirty = true;
    for (int f = 0; f < 4; ++f) app->frame();
    CHECK_FALSE((s.toyError.empty() && s.error.empty()));
    s.toyDModel = 16;
    s.sentence = "   ";
    s.dirty = true;
    for (int f = 0; f < 4; ++f) app->frame();
    CHECK_FALSE(s.toyError.empty());
    CHECK(drainGlErrors().empty());
  }

  SUBCASE("order: an empty sentence and a shuffle that is not a permutation") {
    app->selectPanel(findPanel("order"));
    OrderPanelState& s = app->state().order;
    REQUIRE(app->renderUntilIdle(3, 60.0));
    REQUIRE(s.error.empty());
    const std::size_t goodResults = s.results.size();
    REQUIRE(goodResults > 0);
    std::snprintf(s.sentence, sizeof s.sentence, "%s", "   ");
    s.dirty = true;
    for (int f = 0; f < 4; ++f) app->frame();
    CHECK_FALSE(s.error.empty());
    CHECK(s.results.size() == goodResults);
    std::snprintf(s.sentence, sizeof s.sentence, "%s", "the cat sat");
    std::snprintf(s.shuffled, sizeof s.shuffled, "%s", "the dog sat");
    s.dirty = true;
    for (int f = 0; f < 4; ++f) app->frame();
    CHECK_FALSE(s.error.empty());
    CHECK(s.results.size() == goodResults);
  }
}

TEST_CASE("robustness: a bad .npy path or file keeps the last good learned table and shows why") {
  auto app = makeSmallShell();
  if (!app) return;
  app->selectPanel(findPanel("learned"));
  LearnedPanelState& s = app->state().learned;
  REQUIRE(app->renderUntilIdle(3, 60.0));
  REQUIRE(s.table != nullptr);
  const std::shared_ptr<const posviz::Grid> good = s.table;
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }";
  const std::string padded = header + std::string(117 - header.size(), ' ') + "\n";   // 10 + 118 = 2 * 64
  const std::string huge = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(padded.size()) + '\0' + padded + std::string(16, '\0');
  const std::string paths[] = {
      "/nonexistent/table.npy",
      std::string(POSVIZ_TEST_OUT),                                  // a directory
      writeTestFile("junk.npy", "not a numpy file"),
      writeTestFile("empty.npy", ""),
      writeTestFile("huge.npy", huge),                               // claims 10^12 float32 values
  };
  for (const std::string& path : paths) {
    CAPTURE(path);
    s.fromFile = true;
    s.path = path;
    requestLearnedTable(s);
    CHECK(app->renderUntilIdle(3, 60.0));
    CHECK_FALSE(s.loadError.empty());
    CHECK(s.table == good);
    CHECK(drainGlErrors().empty());
  }
}

TEST_CASE("robustness: saved settings with wrong types and values out of range are ignored") {
  auto app = makeSmallShell();
  if (!app) return;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const nlohmann::json bad = {
      {"d_model", "abc"}, {"base", nan}, {"positions", -5}, {"pos", 1e300}, {"pair", 99999}, {"k", "x"},
      {"head_dim", 63}, {"max_len", 0}, {"seed", -1}, {"std", nan}, {"lookup_pos", -1}, {"num_heads", 100000},
      {"heads", 0}, {"layout", 7}, {"colormap", "jet"}, {"method", "warp"}, {"factor", nan}, {"path", 3},
      {"similarity_positions", 1e20}, {"rotary_fraction", 5.0}, {"scaling", {{"factor", "big"}}}};
  const auto& table = panels();
  for (std::size_t i = 0; i < table.size(); ++i) {
    const PanelInfo& p = table[i];
    if (!p.def->load) continue;
    CAPTURE(p.name);
    CHECK_NOTHROW(p.def->load(app->state(), bad));
    app->selectPanel(static_cast<int>(i));
    CHECK(app->renderUntilIdle(3, 60.0));
    CHECK(drainGlErrors().empty());
  }
  const AppState& a = app->state();
  CHECK(a.sinusoidal.params.dModel % 2 == 0);
  CHECK(a.sinusoidal.params.dModel >= 2);
  CHECK(std::isfinite(a.sinusoidal.params.base));
  CHECK(a.sinusoidal.numPositions >= 1);
  CHECK(a.sinusoidal.pair < a.sinusoidal.params.dModel / 2);
  CHECK(a.learned.maxLen >= 1);
  CHECK(std::isfinite(a.learned.stddev));
  CHECK(a.rope.params.headDim % 2 == 0);
  CHECK(std::isfinite(a.rope.params.base));
  CHECK(a.rope.params.rotaryFraction <= 1.0);
  CHECK(a.alibi.numHeads >= 1);
  CHECK(a.alibi.numHeads <= posviz::cli::params::alibi::kTabHeads.max);
  CHECK(a.context.headDim % 2 == 0);
}

TEST_CASE("settings: every loader takes exactly the range its parameter allows, no less and no more") {
  // For each setting: the slider's end (read back) and the first value past it (ignored). The
  // sinusoidal positions slider reaches 2^31 - 1; its loader used to stop at 131072.
  struct Case {
    const char* panel;
    const char* key;
    double atEnd, pastEnd;
    double (*get)(const AppState&);
  };
  const Case cases[] = {
      {"sinusoidal", "positions", 2147483647.0, 2147483648.0, [](const AppState& a) { return double(a.sinusoidal.numPositions); }},
      {"sinusoidal", "pos", 2147483646.0, 2147483647.0, [](const AppState& a) { return double(a.sinusoidal.pos); }},
      {"sinusoidal", "k", -1024.0, -1025.0, [](const AppState& a) { return double(a.sinusoidal.offsetK); }},
      {"sinusoidal", "k", 1024.0, 1025.0, [](const AppState& a) { return double(a.sinusoidal.offsetK); }},
      // Table parameters (app/cli/params/sinusoidal.hpp): what the parameter allows, the slider widening to it.
      {"sinusoidal", "d_model", 1048576.0, 1048578.0, [](const AppState& a) { return double(a.sinusoidal.params.dModel); }},
      {"sinusoidal", "d_model", 2.0, 0.0, [](const AppState& a) { return double(a.sinusoidal.params.dModel); }},
      {"sinusoidal", "base", 1e12 + 0.5, 1.0, [](const AppState& a) { return a.sinusoidal.params.base; }},   // > 1
      {"sinusoidal", "similarity_positions", 2048.0, 2049.0, [](const AppState& a) { return double(a.sinusoidal.simPositions); }},
      // The Learned tab builds at most learnedMaxCells() values: max_len x d_model (768 by default).
      {"learned", "max_len", double(learnedMaxCells() / 768), double(learnedMaxCells() / 768 + 1), [](const AppState& a) { return double(a.learned.maxLen); }},
      {"learned", "positions", 131072.0, 131073.0, [](const AppState& a) { return double(a.learned.numPositions); }},
      {"learned", "lookup_pos", 131071.0, 131072.0, [](const AppState& a) { return double(a.learned.lookupPos); }},
      {"learned", "d_model", double(learnedMaxCells() / 1024), double(learnedMaxCells() / 1024 + 1), [](const AppState& a) { return double(a.learned.dModel); }},
      {"learned", "std", 1.0, 1.5, [](const AppState& a) { return double(a.learned.stddev); }},
      {"learned", "std", 0.001, 0.0005, [](const AppState& a) { return double(a.learned.stddev); }},
      {"learned", "seed", 2147483647.0, 2147483648.0, [](const AppState& a) { return double(a.learned.seed); }},
      {"rope", "positions", double(kRopeMaxPositions), double(kRopeMaxPositions) + 1, [](const AppState& a) { return double(a.rope.numPositions); }},
      // The RoPE tabs' head_dim and base: what the parameter allows (cli::params::rope), not the sliders' usual span.
      {"rope", "head_dim", double(posviz::cli::kMaxHeadDim), double(posviz::cli::kMaxHeadDim) + 2, [](const AppState& a) { return double(a.rope.params.headDim); }},
      {"rope", "base", 1.5, 1.0, [](const AppState& a) { return a.rope.params.base; }},   // base > 1
      {"context", "head_dim", double(posviz::cli::kMaxHeadDim), double(posviz::cli::kMaxHeadDim) + 2, [](const AppState& a) { return double(a.context.headDim); }},
      {"context", "base", 1.5, 1.0, [](const AppState& a) { return a.context.base; }},
      {"alibi", "heads", 128.0, 129.0, [](const AppState& a) { return double(a.alibi.numHeads); }},
      {"alibi", "positions", 256.0, 257.0, [](const AppState& a) { return double(a.alibi.numPositions); }},
      {"alibi", "first_heads", 32.0, 33.0, [](const AppState& a) { return double(a.alibi.smallCount); }},
  };
  for (const Case& c : cases) {
    CAPTURE(c.panel);
    CAPTURE(c.key);
    const PanelInfo& p = panels()[static_cast<std::size_t>(findPanel(c.panel))];
    REQUIRE(static_cast<bool>(p.def->load));
    auto a = std::make_unique<AppState>();
    nlohmann::json j;
    // Integers as JSON integers (the seed must be one), others as doubles.
    const bool seed = std::string(c.key) == "seed";
    if (seed) j[c.key] = static_cast<unsigned long long>(c.atEnd);
    else if (c.atEnd == std::floor(c.atEnd)) j[c.key] = static_cast<long long>(c.atEnd);
    else j[c.key] = c.atEnd;   // as typed: 0.001, a hair below the float 0.001f the slider holds
    p.def->load(*a, j);
    CHECK(c.get(*a) == doctest::Approx(c.atEnd));
    const double before = c.get(*a);
    if (seed) j[c.key] = static_cast<unsigned long long>(c.pastEnd);
    else if (c.pastEnd == std::floor(c.pastEnd)) j[c.key] = static_cast<long long>(c.pastEnd);
    else j[c.key] = c.pastEnd;
    p.def->load(*a, j);
    CHECK(c.get(*a) == doctest::Approx(before));
  }
  // The context methods' seq_len: 0 (= L0, core's default) .. 10^18, as --seq-len.
  auto a = std::make_unique<AppState>();
  const PanelInfo& ctxPanel = panels()[static_cast<std::size_t>(findPanel("context"))];
  ctxPanel.def->load(*a, nlohmann::json{{"methods", {{"dynamic", {{"seq_len", 1LL << 22}}}}}});
  CHECK(a->context.scaling[static_cast<std::size_t>(posviz::ScalingMethod::DynamicNtk)].seqLen == (1LL << 22));
  ctxPanel.def->load(*a, nlohmann::json{{"methods", {{"dynamic", {{"seq_len", 0}}}}}});
  CHECK(a->context.scaling[static_cast<std::size_t>(posviz::ScalingMethod::DynamicNtk)].seqLen == 0);
  ctxPanel.def->load(*a, nlohmann::json{{"methods", {{"dynamic", {{"seq_len", -1}}}}}});
  CHECK(a->context.scaling[static_cast<std::size_t>(posviz::ScalingMethod::DynamicNtk)].seqLen == 0);
}

}  // TEST_SUITE
