// Figures (app/gui/widgets/figure_export.hpp): every figure of every tab written as PNG and SVG
// through the path File > Export figure and the right-click menu take; what a file holds; what is
// refused; present mode.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <stb_image.h>

#include "app/cli/export.hpp"
#include "app/gui/panels/panel_learn.hpp"
#include "app/gui/panels/panel_sinusoidal.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/widgets/figure_export.hpp"
#include "tests/gui/test_shell.hpp"
#include "tests/support/export_support.hpp"

namespace fs = std::filesystem;
using namespace posviz::app;
using posviz::test::readText;

namespace {

fs::path scratch(const char* name) {
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "gui" / "figures" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Writes figure e to path: asks, draws frames until the figure has written it.
FigureExportResult exportFigure(AppShell& app, const FigureEntry& e, const fs::path& path, int width, float textScale = 1.0f,
                                const std::string& caption = "") {
  FigureExportOptions o;
  o.path = path.string();
  o.width = width;
  o.textScale = textScale;
  o.caption = caption;
  REQUIRE(checkFigureExport(o).empty());
  requestFigureExport(e, o);
  for (int i = 0; i < 4 && figureExportPending(); ++i) app.frame();
  const std::optional<FigureExportResult> r = takeFigureExportResult();
  REQUIRE(r.has_value());
  return *r;
}

struct Png {
  int w = 0, h = 0;
  std::set<unsigned> colours;
};

Png readPng(const fs::path& p) {
  Png out;
  int n = 0;
  unsigned char* px = stbi_load(p.string().c_str(), &out.w, &out.h, &n, 3);
  REQUIRE(px != nullptr);
  for (int i = 0; i < out.w * out.h; i += 7) out.colours.insert(px[i * 3] << 16 | px[i * 3 + 1] << 8 | px[i * 3 + 2]);
  stbi_image_free(px);
  return out;
}

// The text of an SVG's <text> elements, joined by newlines.
std::string svgText(const std::string& svg) {
  std::string out;
  for (std::size_t at = svg.find("<text"); at != std::string::npos; at = svg.find("<text", at + 1)) {
    const std::size_t open = svg.find('>', at), close = svg.find("</text>", at);
    if (open == std::string::npos || close == std::string::npos || open > close) break;
    out += svg.substr(open + 1, close - open - 1) + "\n";
  }
  return out;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

// The first few words of a title, as they appear in one text run (a title may be cut at the
// figure's edge or carry symbols the file writes escaped).
std::string titleStart(const std::string& title) {
  std::string out;
  int words = 0;
  for (const char c : title) {
    if (c == '&' || c == '<' || c == '>' || static_cast<unsigned char>(c) >= 0x80 || c == '(' || c == ':') break;
    if (c == ' ' && ++words == 2) break;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

TEST_CASE("figures: every figure of every tab is written as PNG and as SVG") {
  const fs::path dir = scratch("all");
  auto app = testing::makeTestShell(1280, 800);
  if (!app) return;
  std::ofstream list(dir / "figures.txt");
  int total = 0;
  for (const PanelInfo& tab : panels()) {
    app->selectPanel(findPanel(tab.name));
    REQUIRE(app->renderUntilIdle(3, 120.0));
    app->frame();
    const std::vector<FigureEntry> figures = figuresShown();
    INFO("tab " << std::string(tab.name));
    CHECK(!figures.empty());
    std::set<std::string> names;
    for (const FigureEntry& e : figures) {
      INFO("figure " << e.name << " (" << e.text.title << ")");
      CHECK(names.insert(e.name + "|" + e.text.title).second);
      CHECK(!e.text.title.empty());
      CHECK(e.size.x > 10.0f);
      CHECK(e.size.y > 10.0f);
      const fs::path png = dir / (std::string(tab.name) + "-" + std::to_string(total) + ".png");
      const FigureExportResult r = exportFigure(*app, e, png, 640);
      CHECK_MESSAGE(r.ok, r.message);
      if (!r.ok) continue;
      CHECK(r.message.find(fs::absolute(png).lexically_normal().string()) != std::string::npos);
      const Png p = readPng(png);
      CHECK(p.w == 640);
      // The figure's shape on screen, plus the margins (0.8 of a 15 px line each side).
      const int margins = 2 * 12;
      const double expected = (640.0 - margins) * e.size.y / e.size.x + margins;
      CHECK(std::abs(p.h - expected) <= 2.0);
      CHECK(p.colours.size() >= 3);   // more than a background and one ink

      const fs::path svg = dir / (std::string(tab.name) + "-" + std::to_string(total) + ".svg");
      const FigureExportResult s = exportFigure(*app, e, svg, 640);
      CHECK_MESSAGE(s.ok, s.message);
      const std::string text = readText(svg);
      CHECK(text.rfind("<?xml", 0) == 0);
      CHECK(count(text, "<g ") == count(text, "</g>"));
      CHECK(count(text, "<text") == count(text, "</text>"));
      CHECK(text.find("width=\"640\"") != std::string::npos);
      CHECK(count(text, "<text") + count(text, "<path") > 2);
      list << tab.name << "\t" << e.name << "\t" << e.text.title << "\t" << p.w << "x" << p.h << "\t" << fs::file_size(png) << "\t"
           << fs::file_size(svg) << "\n";
      ++total;
    }
  }
  MESSAGE(total << " figures written, listed in " << (dir / "figures.txt").string());
  CHECK(total >= 40);
}

TEST_CASE("figures: every Learn step's figure, and the Sinusoidal tab's other views, are written") {
  const fs::path dir = scratch("steps");
  auto app = testing::makeTestShell(1280, 800);
  if (!app) return;
  std::ofstream list(dir / "figures.txt");
  app->selectPanel(findPanel("learn"));
  REQUIRE(app->renderUntilIdle(3, 60.0));
  std::set<std::string> titles;
  for (int step = 0; step < 40; ++step) {
    REQUIRE(app->renderUntilIdle(2, 60.0));
    app->frame();
    const std::vector<FigureEntry> figures = figuresShown();
    const auto it = std::find_if(figures.begin(), figures.end(), [](const FigureEntry& e) { return e.name == "learn-figure"; });
    if (it != figures.end() && titles.insert(it->text.title).second) {
      INFO("step " << it->text.title);
      const FigureExportResult r = exportFigure(*app, *it, dir / ("learn-" + std::to_string(step) + ".png"), 480);
      CHECK_MESSAGE(r.ok, r.message);
      CHECK(readPng(dir / ("learn-" + std::to_string(step) + ".png")).w == 480);
      list << "learn\t" << it->text.title << "\n";
    }
    learnNext(app->state().learn);
  }
  CHECK(titles.size() >= 25);   // the path's steps that draw a figure

  app->selectPanel(findPanel("sinusoidal"));
  for (const SinusoidalView view : {SinusoidalView::Clock, SinusoidalView::Similarity, SinusoidalView::Offset}) {
    app->state().sinusoidal.view = view;
    app->state().sinusoidal.selectView = true;
    REQUIRE(app->renderUntilIdle(3, 60.0));
    app->frame();
    for (const FigureEntry& e : figuresShown()) {
      INFO("figure " << e.name);
      const fs::path png = dir / ("sinusoidal-" + e.name + ".png");
      const FigureExportResult r = exportFigure(*app, e, png, 480);
      CHECK_MESSAGE(r.ok, r.message);
      list << "sinusoidal\t" << e.name << "\t" << e.text.title << "\n";
    }
  }
}

TEST_CASE("figures: a plot's SVG keeps its words as text and its heatmap as one picture") {
  const fs::path dir = scratch("svg");
  auto app = testing::makeTestShell(1280, 800);
  if (!app) return;
  app->selectPanel(findPanel("sinusoidal"));
  REQUIRE(app->renderUntilIdle(3, 60.0));
  app->frame();
  const std::vector<FigureEntry> figures = figuresShown();
  const auto plot = std::find_if(figures.begin(), figures.end(), [](const FigureEntry& e) { return e.name == "wavelength"; });
  const auto heat = std::find_if(figures.begin(), figures.end(), [](const FigureEntry& e) { return e.name == "pe"; });
  REQUIRE(plot != figures.end());
  REQUIRE(heat != figures.end());

  REQUIRE(exportFigure(*app, *plot, dir / "wavelength.svg", 900, 1.5f, "Wavelength of each pair: d_model 128, base 10000").ok);
  const std::string svg = readText(dir / "wavelength.svg");
  const std::string words = svgText(svg);
  INFO(words);
  CHECK(words.find(titleStart(plot->text.title)) != std::string::npos);
  CHECK(words.find("Wavelength of each pair: d_model 128, base 10000") != std::string::npos);   // the caption, one line
  CHECK(svg.find("<image") == std::string::npos);   // a plot is all vector
  char size[64];   // 1.5 x 15 px lines, as an SVG em
  std::snprintf(size, sizeof size, "font-size=\"%.2f\"", static_cast<double>(posviz::cli::svgFontSize(22.5f)));
  CHECK(posviz::cli::svgFontSize(22.5f) == doctest::Approx(22.5 * 2048.0 / (1901.0 + 483.0)).epsilon(1e-4));   // DejaVu Sans' em and hhea
  CHECK(svg.find(size) != std::string::npos);

  REQUIRE(exportFigure(*app, *heat, dir / "pe.svg", 900).ok);
  const std::string hs = readText(dir / "pe.svg");
  CHECK(count(hs, "<image") == 1);   // the cells: one embedded picture, not a rectangle each
  CHECK(hs.find("image-rendering:pixelated") != std::string::npos);
  CHECK(svgText(hs).find("position") != std::string::npos);   // the axis title stays text
  CHECK(fs::file_size(dir / "pe.svg") < 300u * 1024u);

  // Larger text: the same width, larger glyphs.
  REQUIRE(exportFigure(*app, *plot, dir / "w1.png", 900, 1.0f).ok);
  REQUIRE(exportFigure(*app, *plot, dir / "w2.png", 900, 2.0f).ok);
  CHECK(readPng(dir / "w1.png").w == readPng(dir / "w2.png").w);
  CHECK(readPng(dir / "w2.png").h > readPng(dir / "w1.png").h);   // the margins grow with the text
}

TEST_CASE("figures: what is refused, with no file") {
  const fs::path dir = scratch("refused");
  FigureExportOptions o;
  o.path = (dir / "a.jpg").string();
  CHECK(checkFigureExport(o) == "the file name must end in .png or .svg");
  o.path = (dir / ".png").string();
  CHECK(checkFigureExport(o) == "the file needs a name before .png or .svg");
  o.path = (dir / "a.png").string();
  o.width = 100;
  CHECK(checkFigureExport(o) == "width 100 px is outside 160..8192");
  o.width = 800;
  o.textScale = 9.0f;
  CHECK(checkFigureExport(o) == "text size 9.00 is outside 0.5..6.0");
  o.textScale = 1.0f;
  o.path = (dir / "missing" / "a.png").string();
  CHECK(checkFigureExport(o) == "folder " + (dir / "missing").string() + " does not exist");
  o.path = (dir / "a.svg").string();
  CHECK(checkFigureExport(o).empty());

  auto app = testing::makeTestShell(1024, 700);
  if (!app) return;
  app->selectPanel(findPanel("alibi"));
  REQUIRE(app->renderUntilIdle(3, 60.0));
  app->frame();
  const FigureEntry e = figuresShown().front();
  app->selectPanel(findPanel("rope"));   // the figure leaves the screen before it is drawn again
  app->frame();
  app->frame();
  requestFigureExport(e, o);
  for (int i = 0; i < 4; ++i) app->frame();
  const std::optional<FigureExportResult> r = takeFigureExportResult();
  REQUIRE(r.has_value());
  CHECK_FALSE(r->ok);
  CHECK(r->message == "Figure not written: it is no longer on screen");
  CHECK_FALSE(fs::exists(o.path));
}

TEST_CASE("figures: present mode shows one figure over the window and leaves with its tab") {
  auto app = testing::makeTestShell(1024, 700);
  if (!app) return;
  app->selectPanel(findPanel("alibi"));
  REQUIRE(app->renderUntilIdle(3, 60.0));
  app->frame();
  const FigureEntry e = figuresShown().front();
  setPresentedFigure(e.id, nullptr);
  app->frame();
  app->frame();
  CHECK(presentedFigure() == e.id);
  const std::vector<FigureEntry> shown = figuresShown();
  CHECK(std::any_of(shown.begin(), shown.end(), [&](const FigureEntry& f) { return f.id == e.id; }));
  app->selectPanel(findPanel("rope"));
  for (int i = 0; i < 3; ++i) app->frame();
  CHECK(presentedFigure() == 0);
}
