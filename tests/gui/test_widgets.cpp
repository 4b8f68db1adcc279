// The app's pieces that need no window: area averaging (core, as the heatmap uses it), plot ticks,
// the worker, settings.
#include <doctest/doctest.h>
#include <iterator>

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "app/gui/widgets/heatmap.hpp"
#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/retained.hpp"
#include "app/gui/shell/settings.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "app/gui/widgets/worker.hpp"
#include "core/area_average.hpp"

using namespace posviz;
using namespace posviz::app;

TEST_SUITE("app") {

TEST_CASE("heatmap: display cells partition the logical cells exactly once") {
  SUBCASE("7 cells into 3") {
    CHECK(areaCellBegin(7, 3, 0) == 0);
    CHECK(areaCellBegin(7, 3, 1) == 2);
    CHECK(areaCellBegin(7, 3, 2) == 4);
    CHECK(areaCellBegin(7, 3, 3) == 7);
  }
  SUBCASE("131072 positions into 800 pixels") {
    long long covered = 0;
    for (int i = 0; i < 800; ++i) {
      CAPTURE(i);
      const long long n = areaCellBegin(131072, 800, i + 1) - areaCellBegin(131072, 800, i);
      CHECK((n == 163 || n == 164));
      covered += n;
    }
    CHECK(covered == 131072);
  }
}

TEST_CASE("heatmap: area average is the mean of the covered cells, masks left out") {
  Grid g(4, 4);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) g.at(r, c) = static_cast<float>(r * 4 + c);
  Grid out;
  HeatmapWindow w = fullWindow(4, 4, 2, 2);
  areaAverageWindow(g, w, out);
  REQUIRE(out.rows == 2);
  REQUIRE(out.cols == 2);
  // Top-left block {0, 1, 4, 5}: mean 2.5; bottom-right {10, 11, 14, 15}: 12.5.
  CHECK(out.at(0, 0) == doctest::Approx(2.5));
  CHECK(out.at(0, 1) == doctest::Approx(4.5));
  CHECK(out.at(1, 0) == doctest::Approx(10.5));
  CHECK(out.at(1, 1) == doctest::Approx(12.5));

  // A window: rows 1..3, cols 2..3 at full resolution is a plain copy.
  HeatmapWindow sub;
  sub.row0 = 1;
  sub.rows = 3;
  sub.col0 = 2;
  sub.cols = 2;
  sub.outRows = 3;
  sub.outCols = 2;
  areaAverageWindow(g, sub, out);
  CHECK(out.at(0, 0) == 6.0f);
  CHECK(out.at(2, 1) == 15.0f);

  // Masked (-inf, NaN) cells do not enter the mean; an all-masked cell stays NaN.
  g.at(0, 0) = -INFINITY;
  g.at(0, 1) = NAN;
  g.at(1, 0) = NAN;
  g.at(1, 1) = NAN;
  areaAverageWindow(g, w, out);
  CHECK(std::isnan(out.at(0, 0)));
  g.at(1, 1) = 5.0f;
  areaAverageWindow(g, w, out);
  CHECK(out.at(0, 0) == 5.0f);
}

TEST_CASE("heatmap: computing a window by rows gives the same average as the full grid") {
  const int rows = 1000, cols = 37;
  Grid full(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) full.at(r, c) = static_cast<float>(std::sin(0.01 * r * (c + 1)));
  HeatmapWindow w;
  w.row0 = 123;
  w.rows = 777;
  w.col0 = 5;
  w.cols = 30;
  w.outRows = 101;
  w.outCols = 7;
  Grid a, b;
  areaAverageWindow(full, w, a);
  int calls = 0;
  const bool done = areaAverageComputed(
      w, cols,
      [&](long long first, int n, float* dst) {
        ++calls;
        for (int k = 0; k < n; ++k)
          for (int c = 0; c < cols; ++c) dst[k * cols + c] = full.at(static_cast<int>(first + k), c);
      },
      b);
  CHECK(done);
  CHECK(calls >= 101);
  REQUIRE(a.rows == b.rows);
  for (int r = 0; r < a.rows; ++r)
    for (int c = 0; c < a.cols; ++c) {
      CAPTURE(r);
      CAPTURE(c);
      CHECK(b.at(r, c) == doctest::Approx(a.at(r, c)).epsilon(1e-6));
    }
  // Cancellation stops before the end.
  int n = 0;
  CHECK_FALSE(areaAverageComputed(w, cols, [&](long long, int, float*) {}, b, [&] { return ++n > 3; }));
}

TEST_CASE("heatmap: colours made on the worker are the widget's, with the scale they were made for") {
  using namespace posviz::app;
  HeatmapImage img;
  img.cells.rows = 1;
  img.cells.cols = 5;
  img.cells.values = {-2.0f, -0.5f, 0.0f, 1.0f, std::numeric_limits<float>::quiet_NaN()};
  img.range = {-0.5f, 2.0f};
  HeatmapSpec spec;
  spec.colormap = posviz::Colormap::RdBu;
  spec.symmetricRange = true;   // diverging: centred on 0, as far as the larger end
  colorHeatmapImage(img, spec);
  CHECK(img.colorScale.map == posviz::Colormap::RdBu);
  CHECK(img.colorScale.min == -2.0f);
  CHECK(img.colorScale.max == 2.0f);
  REQUIRE(img.colors.size() == 5);
  std::vector<posviz::Rgba8> want(5);
  posviz::colormapLutColors(img.colorScale, img.cells.values, want);
  for (std::size_t i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(img.colors[i].r == want[i].r);
    CHECK(img.colors[i].g == want[i].g);
    CHECK(img.colors[i].b == want[i].b);
  }
  CHECK(img.colors[0].b > img.colors[0].r);   // -2: the blue end; NaN: the mask colour
  CHECK(img.colors[4].r == posviz::kMaskColor.r);
  // A fixed range wins over the image's; a sequential map spans it as given.
  spec.colormap = posviz::Colormap::Viridis;
  spec.symmetricRange = false;
  spec.fixedRange = true;
  spec.rangeMin = -1.0f;
  spec.rangeMax = 3.0f;
  colorHeatmapImage(img, spec);
  CHECK(img.colorScale.map == posviz::Colormap::Viridis);
  CHECK(img.colorScale.min == -1.0f);
  CHECK(img.colorScale.max == 3.0f);
}

TEST_CASE("plot: nice ticks are 1-2-5 steps inside the range") {
  const auto t = niceTicks(-0.087, 0.087, 10);
  REQUIRE(t.size() == 9);
  CHECK(t.front() == doctest::Approx(-0.08));
  CHECK(t.back() == doctest::Approx(0.08));
  CHECK(t[4] == 0.0);
  CHECK(formatTick(t[4], 0.02) == "0.00");
  CHECK(formatTick(-0.04, 0.02) == "-0.04");
  CHECK(formatTick(500, 100) == "500");
  const auto big = niceTicks(0, 131072, 5);
  REQUIRE(big.size() >= 2);
  CHECK(big[1] - big[0] == doctest::Approx(50000));
  const auto lt = logTicks(0.0001, 10000, 10);
  REQUIRE(lt.size() == 9);
  CHECK(lt.front() == doctest::Approx(1e-4));
  CHECK(lt.back() == doctest::Approx(1e4));
  CHECK(logTicks(-1, 10, 5).empty());
  // Two decades: 2 and 5 times each only while the labels fit, else only 5s, else decades.
  const auto all = logTicks(0.003, 0.92, 10);
  const std::vector<double> allWant{0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5};
  REQUIRE(all.size() == allWant.size());
  for (std::size_t i = 0; i < all.size(); ++i) CHECK(all[i] == doctest::Approx(allWant[i]));
  const auto fives = logTicks(0.003, 0.92, 5);
  REQUIRE(fives.size() == 5);
  for (std::size_t i = 0; i < 5; ++i) CHECK(fives[i] == doctest::Approx(std::vector<double>{0.005, 0.01, 0.05, 0.1, 0.5}[i]));
  CHECK(logTicks(0.003, 0.92, 4) == std::vector<double>{0.01, 0.1});
}

TEST_CASE("plot: a fitted axis hugs the data (ALiBi slopes below 1 never get an axis to 10)") {
  // 12-head ALiBi slopes: 2^-8 .. 2^-0.5.
  const AxisRange lg = fittedAxis(std::pow(2.0, -8), std::pow(2.0, -0.5), true);
  CHECK(lg.lo == doctest::Approx(std::pow(2.0, -8) / 1.3));
  CHECK(lg.hi == doctest::Approx(std::pow(2.0, -0.5) * 1.3));
  CHECK(lg.hi < 1.0);
  const AxisRange lin = fittedAxis(0.25, 0.5, false);
  CHECK(lin.lo == 0.0);                              // non-negative data from 0
  CHECK(lin.hi == doctest::Approx(0.5 + 0.25 * 0.06));
  const AxisRange neg = fittedAxis(-2.0, 2.0, false);
  CHECK(neg.lo == doctest::Approx(-2.24));
  CHECK(neg.hi == doctest::Approx(2.24));
  const AxisRange flat = fittedAxis(3.0, 3.0, false);
  CHECK(flat.hi > flat.lo);
}

// Every cell of every column once, nothing outside: counts per (column, row) over the rectangles.
void checkBandCover(const std::vector<posviz::app::BandColumn>& cols) {
  using posviz::app::BandRect;
  const std::vector<BandRect> rects = posviz::app::bandRects(cols);
  std::map<std::pair<int, int>, int> covered;
  for (const BandRect& r : rects) {
    REQUIRE(r.x0 < r.x1);
    REQUIRE(r.y0 < r.y1);
    for (int x = r.x0; x < r.x1; ++x)
      for (int y = static_cast<int>(r.y0); y < static_cast<int>(r.y1); ++y) ++covered[{x, y}];
  }
  std::size_t cells = 0;
  for (const auto& c : cols)
    for (int y = static_cast<int>(c.top); y < static_cast<int>(c.bottom); ++y, ++cells) CHECK(covered[{c.px, y}] == 1);
  CHECK(covered.size() == cells);   // no cell outside the columns was drawn
}

TEST_CASE("plot: a dense band is covered exactly once by few wide rectangles") {
  using posviz::app::BandColumn;
  // A steady band: one rectangle, whatever its width.
  std::vector<BandColumn> steady;
  for (int x = 10; x < 310; ++x) steady.push_back({x, 40.0f, 90.0f});
  checkBandCover(steady);
  CHECK(posviz::app::bandRects(steady).size() == 1);

  // A noisy band (ragged top and bottom, as s(m - n) at 2^20 positions draws): exact cover, and
  // far fewer rectangles than the two per column a per-column split would give.
  std::vector<BandColumn> noisy;
  std::uint32_t seed = 12345;
  auto next = [&seed] { return (seed = seed * 1664525u + 1013904223u) >> 24; };   // 0 .. 255
  for (int x = 0; x < 400; ++x) noisy.push_back({x, 20.0f + static_cast<float>(next() % 12), 100.0f + static_cast<float>(next() % 9)});
  checkBandCover(noisy);
  std::size_t area = 0, coreArea = 0;
  for (const auto& r : posviz::app::bandRects(noisy)) {
    const auto a = static_cast<std::size_t>((r.x1 - r.x0) * static_cast<int>(r.y1 - r.y0));
    area += a;
    coreArea = std::max(coreArea, a);
  }
  CHECK(coreArea * 10 >= area * 8);   // one wide rectangle carries most of the band

  // Columns that share no row split the run; a gap in px starts a new one; a single column is one rectangle.
  std::vector<BandColumn> split{{0, 0.0f, 10.0f}, {1, 5.0f, 20.0f}, {2, 30.0f, 40.0f}, {3, 35.0f, 50.0f}, {7, 1.0f, 2.0f}};
  checkBandCover(split);
  CHECK(posviz::app::bandRects({}).empty());
}

// Every taken cell once, nothing else: counts per (column, row) over the rectangles.
std::size_t checkCellCover(const std::vector<char>& taken, int gw, int gh) {
  using posviz::app::CellRect;
  const std::vector<CellRect> rects = posviz::app::cellRects(taken, gw, gh);
  std::vector<int> covered(taken.size(), 0);
  for (const CellRect& r : rects) {
    REQUIRE(0 <= r.gx0);
    REQUIRE(r.gx0 < r.gx1);
    REQUIRE(r.gx1 <= gw);
    REQUIRE(0 <= r.gy0);
    REQUIRE(r.gy0 < r.gy1);
    REQUIRE(r.gy1 <= gh);
    for (int x = r.gx0; x < r.gx1; ++x)
      for (int y = r.gy0; y < r.gy1; ++y) ++covered[static_cast<std::size_t>(x) * static_cast<std::size_t>(gh) + static_cast<std::size_t>(y)];
  }
  int wrong = 0;
  for (std::size_t i = 0; i < taken.size(); ++i) wrong += covered[i] != (taken[i] ? 1 : 0);
  CHECK(wrong == 0);
  return rects.size();
}

TEST_CASE("plot: a dense scatter's cells are covered exactly once, a flat stretch by one rectangle") {
  const int gw = 200, gh = 120;
  auto at = [&](std::vector<char>& t, int x, int y) -> char& { return t[static_cast<std::size_t>(x) * gh + static_cast<std::size_t>(y)]; };
  // cos of the slow dims at d_model 4096: a flat line of dots 2 cells thick.
  std::vector<char> flat(static_cast<std::size_t>(gw) * gh, 0);
  for (int x = 30; x < 190; ++x) at(flat, x, 10) = at(flat, x, 11) = 1;
  CHECK(checkCellCover(flat, gw, gh) == 1);
  // A slope of one cell a column: every run differs from its neighbour's, one rectangle each.
  std::vector<char> slope(static_cast<std::size_t>(gw) * gh, 0);
  for (int x = 0; x < 100; ++x) at(slope, x, x) = 1;
  CHECK(checkCellCover(slope, gw, gh) == 100);
  // Two runs in a column, one of them continuing: the other ends, the continuing one widens.
  std::vector<char> fork(static_cast<std::size_t>(gw) * gh, 0);
  at(fork, 5, 3) = at(fork, 5, 4) = at(fork, 5, 20) = 1;
  at(fork, 6, 20) = at(fork, 7, 20) = at(fork, 7, 50) = 1;
  CHECK(checkCellCover(fork, gw, gh) == 3);
  // Scattered dots (the fast dims): still an exact cover, never more rectangles than runs.
  std::vector<char> noisy(static_cast<std::size_t>(gw) * gh, 0);
  std::uint32_t seed = 99;
  for (int i = 0; i < 3000; ++i) {
    seed = seed * 1664525u + 1013904223u;
    at(noisy, static_cast<int>((seed >> 8) % gw), static_cast<int>((seed >> 20) % gh)) = 1;
  }
  std::size_t runs = 0;
  for (int x = 0; x < gw; ++x)
    for (int y = 0; y < gh; ++y) runs += at(noisy, x, y) && (y == 0 || !at(noisy, x, y - 1));
  CHECK(checkCellCover(noisy, gw, gh) <= runs);
  CHECK(checkCellCover(std::vector<char>(static_cast<std::size_t>(gw) * gh, 0), gw, gh) == 0);
}

// The vertices drawPlot adds for spec's series: the plot drawn with and without them, in a
// context of its own (no window, no GL: nothing is retained), and the y extent of the first
// series' colour.
struct SeriesDrawn {
  int vertices = 0;
  float top = 0, bottom = 0;
};
SeriesDrawn drawnSeries(const posviz::app::PlotSpec& spec) {
  using namespace posviz::app;
  ImGuiContext* previous = ImGui::GetCurrentContext();
  ImGuiContext* ctx = ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;   // no imgui.ini left in the working folder
  io.DisplaySize = ImVec2(800, 600);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  setRetainedEnabled(false);
  int counts[2] = {0, 0};
  SeriesDrawn out;
  for (int withSeries = 0; withSeries < 2; ++withSeries) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(800, 600));
    ImGui::Begin("plot");
    PlotSpec s = spec;
    if (!withSeries)
      for (PlotSeries& series : s.series) series.x.clear(), series.y.clear();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int v0 = dl->VtxBuffer.Size;
    drawPlot("p", s, 400, 300);
    counts[withSeries] = dl->VtxBuffer.Size - v0;
    if (withSeries) {
      out.top = 1e9f;
      out.bottom = -1e9f;
      for (int i = v0; i < dl->VtxBuffer.Size; ++i) {
        // Opaque vertices of the first series' colour (anti-aliased fringes are transparent).
        if (dl->VtxBuffer[i].col != spec.series.front().color) continue;
        out.top = std::min(out.top, dl->VtxBuffer[i].pos.y);
        out.bottom = std::max(out.bottom, dl->VtxBuffer[i].pos.y);
      }
    }
    ImGui::End();
    ImGui::Render();
  }
  setRetainedEnabled(true);
  ImGui::DestroyContext(ctx);
  ImGui::SetCurrentContext(previous);
  out.vertices = counts[1] - counts[0];
  return out;
}

TEST_CASE("plot: a smooth line denser than the pixels is a few strokes; an oscillating one is still a band") {
  using namespace posviz::app;
  // d_model 4096's wavelengths on a log axis: 2048 points along a straight line, over ~350 pixel
  // columns. One point a column lets the simplification keep a handful; a min and a max a column
  // made a staircase of 1 px steps (2,186 vertices for this line).
  PlotSpec smooth;
  smooth.logY = true;
  PlotSeries line{"", {}, {}, plotColor(1), false, 2.0f};   // no label: no legend swatch
  for (int i = 0; i < 2048; ++i) {
    line.x.push_back(i);
    line.y.push_back(2.0 * 3.141592653589793 * std::pow(10000.0, i / 2048.0));
  }
  smooth.series = {line};
  const SeriesDrawn a = drawnSeries(smooth);
  CHECK(a.vertices > 0);
  CHECK(a.vertices < 200);
  // A curve oscillating faster than the pixels: its min and max per column are kept, as a band
  // from -1 to 1 (the data area's full height but the axis margins).
  PlotSpec fast;
  PlotSeries wave{"", {}, {}, plotColor(0), false, 2.0f};
  for (int i = 0; i < 4096; ++i) {
    wave.x.push_back(i);
    wave.y.push_back(std::sin(0.9 * i));
  }
  fast.series = {wave};
  const SeriesDrawn b = drawnSeries(fast);
  const SeriesDrawn flat = drawnSeries([&] {
    PlotSpec f = fast;
    for (double& y : f.series[0].y) y = 0.0;
    return f;
  }());
  CHECK(b.vertices > 0);
  CHECK(b.bottom - b.top > 150.0f);          // the band spans the plot's height (300 px widget)
  CHECK(flat.bottom - flat.top < 10.0f);     // a flat line does not
}

TEST_CASE("ui: numbers and sizes read well") {
  CHECK(formatCount(131072) == "131,072");
  CHECK(formatCount(-1000) == "-1,000");
  CHECK(formatCount(12) == "12");
  CHECK(formatGridSize(512, 128) == "512 x 128 (256.0 KiB)");
  CHECK(formatShort(0.5) == "0.5");
  CHECK(formatShort(1e6) == "1.000e+06");
  CHECK(formatShort(NAN) == "nan");
}

namespace {

// A core-wait probe the tests steer: while gStarved holds, the thread has waited for a core the
// whole time (its wait grows with the clock); otherwise it never waits.
std::atomic<bool> gStarved{false};
long long steeredCoreWait(int) {
  if (!gStarved.load()) return 0;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// What one run of a job saw: its thread's scheduling class and whether it was cancelled.
struct RunLog {
  std::mutex mutex;
  std::vector<std::pair<int, bool>> runs;
  void add(int cls, bool cancelled) {
    std::lock_guard lock(mutex);
    runs.emplace_back(cls, cancelled);
  }
  std::vector<std::pair<int, bool>> all() {
    std::lock_guard lock(mutex);
    return runs;
  }
};

// A job that sleeps ms in 1 ms steps (so its thread is never short of a core of its own accord),
// stops when cancelled, and returns its thread's scheduling class.
std::function<int(JobControl&)> sleepingJob(RunLog& log, int ms) {
  return [&log, ms](JobControl& jc) {
    const int cls = sched_getscheduler(0);
    for (int i = 0; i < ms; ++i) {
      if (jc.cancelled()) {
        log.add(cls, true);
        throw JobCancelled{};
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    log.add(cls, false);
    return cls;
  };
}

}  // namespace

TEST_CASE("worker: a running job finishes, waiting requests collapse to the latest, cancelAll stops") {
  // The idle thread is never found starved here, whatever else the machine runs: every job
  // starts once.
  gStarved = false;
  AsyncResult<int> r(steeredCoreWait);
  std::atomic<int> started{0}, cancelledJobs{0};
  std::atomic<int> startedValues[4] = {0, 0, 0, 0};
  auto slow = [&](int value) {
    return [&, value](JobControl& jc) {
      ++started;
      ++startedValues[value];
      for (int i = 0; i < 100; ++i) {
        if (jc.cancelled()) {
          ++cancelledJobs;
          throw JobCancelled{};
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      return value;
    };
  };
  r.request(slow(1));
  while (started.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  r.request(slow(2));   // waits for 1
  r.request(slow(3));   // replaces 2 before it starts
  // Job 1 is not cancelled: its result arrives while 3 still waits or runs (a drag shows it).
  bool sawOne = false;
  for (int i = 0; i < 5000 && !sawOne; ++i) {
    r.poll();
    sawOne = r.result() != nullptr && *r.result() == 1;
    if (!sawOne) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(sawOne);
  REQUIRE(r.waitIdle(10.0));
  REQUIRE(r.result() != nullptr);
  CHECK(*r.result() == 3);
  CHECK(started.load() == 2);
  CHECK(startedValues[2].load() == 0);
  CHECK(cancelledJobs.load() == 0);
  CHECK(r.millis() > 0.0);
  CHECK_FALSE(r.busy());

  // cancelAll stops a running job; its result never replaces the last good one.
  r.request(slow(2));
  while (startedValues[2].load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  r.cancelAll();
  REQUIRE(r.waitIdle(10.0));
  CHECK(cancelledJobs.load() == 1);
  CHECK(*r.result() == 3);
}

TEST_CASE("worker: a job whose idle thread waits for a core is started again at ordinary priority") {
  gStarved = true;
  AsyncResult<int> r(steeredCoreWait);
  RunLog log;
  r.request(sleepingJob(log, 400));
  REQUIRE(r.waitIdle(10.0));
  REQUIRE(r.result() != nullptr);
  CHECK(*r.result() == SCHED_OTHER);
  const auto runs = log.all();
  if (!r.worker().idleClass()) {
    MESSAGE("no idle scheduling class here: jobs run at nice 10 on one thread");
    CHECK(runs.size() == 1);
    gStarved = false;
    return;
  }
  CHECK(r.worker().rescued() == 1);
  // Started on the idle thread and taken over after kStarvedAfter (two runs, the first cancelled
  // and its result dropped); or, where the idle thread did not even wake in time, run by the
  // watcher from the start.
  REQUIRE(runs.size() >= 1);
  REQUIRE(runs.size() <= 2);
  if (runs.size() == 2) {
    CHECK(runs[0] == std::pair{SCHED_IDLE, true});
    CHECK(runs[1] == std::pair{SCHED_OTHER, false});
  }

  // Within kStarvedFor the next job goes straight to the watcher: one run, ordinary class.
  RunLog next;
  r.request(sleepingJob(next, 1));
  REQUIRE(r.waitIdle(10.0));
  CHECK(*r.result() == SCHED_OTHER);
  CHECK(next.all().size() == 1);
  CHECK(r.worker().rescued() == 1);

  // Once the idle thread gets its cores again, jobs go back to it after kStarvedFor. (Only if it
  // did not wake within kStarvedAfter on a busy machine may the watcher take the job; that counts
  // as a rescue.)
  gStarved = false;
  std::this_thread::sleep_for(Worker::kStarvedFor + std::chrono::milliseconds(100));
  RunLog back;
  r.request(sleepingJob(back, 1));
  REQUIRE(r.waitIdle(10.0));
  CHECK(back.all().size() == 1);
  CHECK(*r.result() == (r.worker().rescued() == 1 ? SCHED_IDLE : SCHED_OTHER));
}

TEST_CASE("worker: a job whose idle thread gets its cores is never started again") {
  gStarved = false;
  AsyncResult<int> r(steeredCoreWait);
  RunLog log;
  r.request(sleepingJob(log, 300));   // three times kStarvedAfter
  REQUIRE(r.waitIdle(10.0));
  REQUIRE(r.result() != nullptr);
  const auto runs = log.all();
  REQUIRE(runs.size() == 1);
  CHECK_FALSE(runs[0].second);
  if (!r.worker().idleClass()) {
    CHECK(*r.result() == SCHED_OTHER);
    return;
  }
  // On the idle thread, unless that thread did not wake within kStarvedAfter (a rescue).
  CHECK(r.worker().rescued() <= 1);
  CHECK(*r.result() == (r.worker().rescued() == 0 ? SCHED_IDLE : SCHED_OTHER));
}

TEST_CASE("worker: with every core kept busy by other threads, a job's result still arrives soon") {
  // Ordinary threads keep every core busy, as a build or a training run would. An idle-class
  // thread would get about 0.3 % of a core (30 ms of work: some 10 s). Whether the kernel starves
  // it here depends on the kernel and on what else runs, so the test checks what the watcher did
  // against what the run went through: a run left on the idle thread was not starved for long.
  AsyncResult<int> r;
  r.request([](JobControl&) { return 1; });   // starts the threads
  REQUIRE(r.waitIdle(5.0));
  std::atomic<bool> stop{false};
  std::vector<std::thread> spinners;
  for (unsigned i = 0; i < std::max(2u, std::thread::hardware_concurrency()); ++i)
    spinners.emplace_back([&stop] {
      volatile unsigned long long x = 0;
      while (!stop.load(std::memory_order_relaxed)) x = x + 1;
    });
  std::atomic<int> runs{0};
  std::atomic<double> idleWallMs{0.0}, idleWaitShare{0.0};
  r.request([&](JobControl& jc) {
    ++runs;
    const int tid = static_cast<int>(gettid());
    const long long wait0 = Worker::kernelCoreWait(tid);
    const auto wall0 = std::chrono::steady_clock::now();
    timespec t0{}, t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do {   // 30 ms of this thread's own CPU time
      throwIfCancelled(jc);
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000ll + (t.tv_nsec - t0.tv_nsec) < 30000000ll);
    const int cls = sched_getscheduler(0);
    if (cls == SCHED_IDLE) {
      const double wallNs = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - wall0).count();
      idleWallMs = wallNs / 1e6;
      idleWaitShare = static_cast<double>(Worker::kernelCoreWait(tid) - wait0) / wallNs;
    }
    return cls;
  });
  const bool done = r.waitIdle(10.0);
  stop = true;
  for (std::thread& t : spinners) t.join();
  REQUIRE(done);
  CHECK(runs.load() >= 1);
  CHECK(runs.load() <= 2);
  if (!r.worker().idleClass()) {
    CHECK(*r.result() == SCHED_OTHER);
    CHECK(runs.load() == 1);
    return;
  }
  // The result comes from the watcher exactly when the watcher stepped in.
  CHECK(*r.result() == (r.worker().rescued() >= 1 ? SCHED_OTHER : SCHED_IDLE));
  if (*r.result() == SCHED_IDLE) {
    MESSAGE("the kernel let the idle thread run: " << idleWallMs.load() << " ms, waiting for a core "
                                                   << 100.0 * idleWaitShare.load() << " % of it");
    // The watcher looks every 20 ms once a run is kStarvedAfter old: a run that waited for a core
    // nearly all of a much longer time was missed.
    CHECK_FALSE((idleWallMs.load() > 500.0 && idleWaitShare.load() > 0.9));
  }
}

TEST_CASE("worker: cancelAll drops a result that finished but was not taken; keepFinished keeps it") {
  for (const bool keep : {false, true}) {
    CAPTURE(keep);
    AsyncResult<int> r;
    r.request([](JobControl&) { return 1; });
    REQUIRE(r.waitIdle(5.0));
    std::atomic<bool> ran{false};
    r.request([&ran](JobControl&) {
      ran = true;
      return 2;
    });
    // The job ends on its thread; nothing polls, so its result waits in the slot.
    for (int i = 0; i < 10000 && !(ran && !r.worker().busy()); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    REQUIRE(ran);
    REQUIRE_FALSE(r.worker().busy());
    r.cancelAll(keep);
    r.poll();
    REQUIRE(r.result() != nullptr);
    CHECK(*r.result() == (keep ? 2 : 1));
    CHECK_FALSE(r.busy());
  }
}

TEST_CASE("worker: a failing job reports its error and keeps the last good result") {
  AsyncResult<int> r;
  r.request([](JobControl&) { return 7; });
  REQUIRE(r.waitIdle(5.0));
  r.request([](JobControl&) -> int { throw std::invalid_argument("budget: too big"); });
  REQUIRE(r.waitIdle(5.0));
  CHECK(r.error() == "budget: too big");
  REQUIRE(r.result() != nullptr);
  CHECK(*r.result() == 7);
  r.request([](JobControl& jc) {
    jc.setProgress(0.5f);
    return 8;
  });
  REQUIRE(r.waitIdle(5.0));
  CHECK(r.error().empty());
  CHECK(*r.result() == 8);
}

TEST_CASE("settings: round trip, and a corrupt file is ignored with a notice") {
  const std::filesystem::path dir = std::filesystem::path(POSVIZ_TEST_OUT) / "settings";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "settings.json").string();
  Settings s;
  s.windowWidth = 1000;
  s.windowHeight = 700;
  s.panel = "alibi";
  s.backend = BackendChoice::Cpu;
  s.fontScale = 1.25f;
  s.panels["sinusoidal"] = {{"base", 500.0}};
  s.recentConfigs = {"/models/a/config.json", "/models/b/config.json"};
  std::string error;
  REQUIRE(saveSettings(path, s, &error));
  std::string notice;
  const Settings t = loadSettings(path, &notice);
  CHECK(notice.empty());
  CHECK(t.windowWidth == 1000);
  CHECK(t.windowHeight == 700);
  CHECK(t.panel == "alibi");
  CHECK(t.backend == BackendChoice::Cpu);
  CHECK(t.fontScale == doctest::Approx(1.25));
  CHECK(t.panels["sinusoidal"]["base"] == 500.0);
  CHECK(t.recentConfigs == std::vector<std::string>{"/models/a/config.json", "/models/b/config.json"});

  {
    std::ofstream out(path, std::ios::trunc);
    out << "{ \"window_width\": 1000, oops";
  }
  const Settings u = loadSettings(path, &notice);
  CHECK(notice.find("could not be read") != std::string::npos);
  CHECK(notice.find(path) != std::string::npos);
  CHECK(u.windowWidth == Settings{}.windowWidth);

  // Out-of-range values fall back to the defaults one by one.
  {
    std::ofstream out(path, std::ios::trunc);
    out << R"({"window_width": -5, "window_height": 600, "font_scale": 99, "backend": "gpu", "recent_configs": [3, "", "/ok.json", null]})";
  }
  notice.clear();
  const Settings v = loadSettings(path, &notice);
  CHECK(notice.empty());
  CHECK(v.windowWidth == Settings{}.windowWidth);
  CHECK(v.windowHeight == 600);
  CHECK(v.fontScale == 1.0f);
  CHECK(v.backend == BackendChoice::Gpu);
  CHECK(v.recentConfigs == std::vector<std::string>{"/ok.json"});  // only non-empty paths are kept

  // An unwritable target: an error, and the directory holds no stray temporary file.
  CHECK_FALSE(saveSettings("/proc/posviz-no/settings.json", s, &error));
  CHECK_FALSE(error.empty());
}

namespace {
std::string fileText(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void writeText(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}
// The names beside `path` that start with its file name and ".bad-": where a refused link was put.
std::vector<std::filesystem::path> keptAside(const std::filesystem::path& path) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(path.parent_path()))
    if (e.path().filename().string().rfind(path.filename().string() + ".bad-", 0) == 0) out.push_back(e.path());
  return out;
}
}  // namespace

TEST_CASE("settings: a linked settings.json or imgui.ini is followed only to posviz's own kind of file") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "settings-links";
  fs::remove_all(dir);
  fs::create_directories(dir / "config");
  fs::create_directories(dir / "elsewhere");
  const fs::path settings = dir / "config" / "settings.json", layout = dir / "config" / "imgui.ini";
  Settings s;
  s.panel = "rope";
  std::string error, notice;

  SUBCASE("a link to another program's JSON object: left as it is, the link moved aside") {
    const std::string foreign = "{\"name\": \"another program\", \"theme\": \"blue\"}\n";
    writeText(dir / "elsewhere" / "x.json", foreign);
    fs::create_symlink("../elsewhere/x.json", settings);
    const Settings t = loadSettings(settings.string(), &notice);
    CHECK(notice.find("is a link to ../elsewhere/x.json, which is not a posviz settings file") != std::string::npos);
    CHECK(t.panel == Settings{}.panel);
    REQUIRE(keptAside(settings).size() == 1);
    CHECK(fs::is_symlink(keptAside(settings).front()));
    REQUIRE(saveSettings(settings.string(), s, &error));
    CHECK(fileText(dir / "elsewhere" / "x.json") == foreign);
    CHECK_FALSE(fs::is_symlink(settings));
    CHECK(loadSettings(settings.string(), &error).panel == "rope");
  }
  SUBCASE("a link to a text file as imgui.ini: left as it is") {
    writeText(dir / "elsewhere" / "notes.txt", "my notes\nsecond line\n");
    fs::create_symlink(dir / "elsewhere" / "notes.txt", layout);
    CHECK(loadLayout(layout.string(), &notice).empty());
    CHECK(notice.find("which is not a posviz window layout file") != std::string::npos);
    REQUIRE(saveLayout(layout.string(), "[Window][Debug##Default]\nPos=60,60\n", &error));
    CHECK(fileText(dir / "elsewhere" / "notes.txt") == "my notes\nsecond line\n");
    CHECK_FALSE(fs::is_symlink(layout));
  }
  SUBCASE("a link to posviz's own files elsewhere (a dotfiles folder): updated where they point") {
    writeText(dir / "elsewhere" / "settings.json", "{\"panel\": \"alibi\", \"font_scale\": 1.5}\n");
    writeText(dir / "elsewhere" / "imgui.ini", "[Window][posviz]\nPos=0,0\nSize=800,600\n");
    fs::create_symlink("../elsewhere/settings.json", settings);
    fs::create_symlink("../elsewhere/imgui.ini", layout);
    const Settings t = loadSettings(settings.string(), &notice);
    CHECK(notice.empty());
    CHECK(t.panel == "alibi");
    CHECK(loadLayout(layout.string(), &notice) == "[Window][posviz]\nPos=0,0\nSize=800,600\n");
    CHECK(notice.empty());
    REQUIRE(saveSettings(settings.string(), s, &error));
    REQUIRE(saveLayout(layout.string(), "[Window][posviz]\nPos=5,5\n", &error));
    CHECK(fs::is_symlink(settings));
    CHECK(fs::is_symlink(layout));
    CHECK(fileText(dir / "elsewhere" / "settings.json").find("\"panel\": \"rope\"") != std::string::npos);
    CHECK(fileText(dir / "elsewhere" / "imgui.ini") == "[Window][posviz]\nPos=5,5\n");
    CHECK(keptAside(settings).empty());
  }
  SUBCASE("a dangling link: nothing is made where it points") {
    fs::create_symlink("../elsewhere/missing.json", settings);
    loadSettings(settings.string(), &notice);
    CHECK(notice.find("is a link to ../elsewhere/missing.json") != std::string::npos);
    REQUIRE(saveSettings(settings.string(), s, &error));
    CHECK_FALSE(fs::exists(dir / "elsewhere" / "missing.json"));
    CHECK(fs::is_regular_file(settings));
  }
  SUBCASE("a foreign link planted after the start is not written through either") {
    writeText(dir / "elsewhere" / "x.json", "{\"other\": true}");
    fs::create_symlink("../elsewhere/x.json", settings);
    REQUIRE(saveSettings(settings.string(), s, &error));
    CHECK(fileText(dir / "elsewhere" / "x.json") == "{\"other\": true}");
    CHECK_FALSE(fs::is_symlink(settings));
    CHECK(keptAside(settings).size() == 1);
  }
}

TEST_CASE("settings: readSetting takes a value only when its type and range are right") {
  const nlohmann::json j = {{"n", 12.7},  {"big", 1e300},         {"text", "half-split"}, {"flag", true},
                            {"nan", NAN}, {"seed", 18446744073709551615ull}, {"neg", -1}, {"map", "twilight"},
                            {"bad_map", "jet"}};
  int n = 3;
  CHECK(readSetting(j, "n", n, 0, 20));
  CHECK(n == 12);   // truncated, as a slider would
  CHECK_FALSE(readSetting(j, "n", n, 0, 10));
  CHECK_FALSE(readSetting(j, "big", n, 0, 100));
  CHECK_FALSE(readSetting(j, "text", n, 0, 100));
  CHECK_FALSE(readSetting(j, "missing", n, 0, 100));
  double x = 2.5;
  CHECK_FALSE(readSetting(j, "nan", x, -1e9, 1e9));
  CHECK(x == 2.5);
  CHECK(n == 12);

  std::uint64_t seed = 7;
  CHECK(readSetting(j, "seed", seed, 0, std::numeric_limits<std::uint64_t>::max()));
  CHECK(seed == 18446744073709551615ull);   // exact, not through a double
  CHECK_FALSE(readSetting(j, "neg", seed, 0, std::numeric_limits<std::uint64_t>::max()));

  std::string text = "x";
  CHECK(readSetting(j, "text", text));
  CHECK(text == "half-split");
  CHECK_FALSE(readSetting(j, "flag", text));
  bool flag = false;
  CHECK(readSetting(j, "flag", flag));
  CHECK(flag);
  CHECK_FALSE(readSetting(j, "n", flag));

  posviz::Colormap map = posviz::Colormap::Viridis;
  CHECK(readSetting(j, "map", map));
  CHECK(map == posviz::Colormap::Twilight);
  CHECK_FALSE(readSetting(j, "bad_map", map));
  CHECK(map == posviz::Colormap::Twilight);
  CHECK_FALSE(readSetting(nlohmann::json::array(), "n", n, 0, 20));   // not an object
}

TEST_CASE("control help on screen: the first sentence of a help text") {
  CHECK(firstSentence("Width of the embeddings. Learned parameters = L0 x d_model.") == "Width of the embeddings.");
  CHECK(firstSentence("Model width: d_model/2 sin/cos pairs, even, 2 .. 65536. More.") == "Model width: d_model/2 sin/cos pairs, even, 2 .. 65536.");
  CHECK(firstSentence("theta_i = base^(-2i/d_model): the slowest pair\nturns once") == "theta_i = base^(-2i/d_model): the slowest pair");
  CHECK(firstSentence("e.g. two heads. Then") == "e.g. two heads.");
  CHECK(firstSentence("no period at all") == "no period at all");
  CHECK(firstSentence("") == "");
}

}  // TEST_SUITE
