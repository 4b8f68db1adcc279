// writeSvg (app/cli/export.cpp): the PNG's picture as a vector document.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <stb_image.h>

#include "app/cli/args.hpp"
#include "app/cli/cli.hpp"
#include "app/cli/export.hpp"
#include "core/learned.hpp"
#include "core/colormap.hpp"
#include "core/grid.hpp"
#include "tests/support/export_support.hpp"

namespace fs = std::filesystem;
using posviz::ColorScale;
using posviz::Colormap;
using posviz::Grid;
using posviz::cli::PngOptions;
using posviz::test::readText;

namespace {

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + part.size())) ++n;
  return n;
}

std::string hex(posviz::Rgba8 c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

}  // namespace

TEST_SUITE("svg") {

TEST_CASE("svg: a small grid is one rectangle per cell, coloured as the PNG, at the PNG's size") {
  const fs::path dir = posviz::test::exportScratch("svg-small");
  const Grid g = posviz::test::ramp(2, 3);   // -5 .. 0
  PngOptions o;
  o.scale = ColorScale{Colormap::Viridis, -5.0f, 0.0f};
  o.cellScale = 10;
  posviz::cli::writeSvg((dir / "a.svg").string(), g, o);
  const std::string svg = readText(dir / "a.svg");
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("width=\"30\" height=\"20\"") != std::string::npos);   // undecorated: cols*scale x rows*scale
  CHECK(count(svg, "<rect x=") == 6);
  // Cell (1, 2) = 0: the top of the scale, at x = 2*10, y = 1*10.
  const std::string cell = "<rect x=\"20\" y=\"10\" width=\"10\" height=\"10\" fill=\"" +
                           hex(posviz::mapValue(o.scale, 0.0f)) + "\"/>";
  CHECK(svg.find(cell) != std::string::npos);
  CHECK(svg.find("<image") == std::string::npos);
  CHECK(svg.find("<text") == std::string::npos);   // no decorations asked for
}

TEST_CASE("svg: decorations are vector text and a gradient, placed as in the PNG") {
  const fs::path dir = posviz::test::exportScratch("svg-decorated");
  const Grid g = posviz::test::ramp(4, 4);
  PngOptions o;
  o.scale = ColorScale{Colormap::RdBu, -10.0f, 10.0f};
  o.cellScale = 8;
  o.colorbar = o.axisTitles = true;
  o.rowTitle = "position";
  o.colTitle = "dimension";
  o.valueName = "PE";
  o.caption = "d_model=4 & <base> \"10000\"";
  posviz::cli::writeSvg((dir / "d.svg").string(), g, o);
  posviz::cli::writePng((dir / "d.png").string(), g, o);
  const std::string svg = readText(dir / "d.svg");
  const posviz::cli::RgbImage png = posviz::cli::renderHeatmapImage(g, o);
  CHECK(svg.find("width=\"" + std::to_string(png.width) + "\" height=\"" + std::to_string(png.height) + "\"") !=
        std::string::npos);
  CHECK(svg.find("d_model=4 &amp; &lt;base&gt; &quot;10000&quot;") != std::string::npos);   // escaped, not raw
  CHECK(svg.find(">dimension</text>") != std::string::npos);
  CHECK(svg.find("rotate(-90)\" text-anchor=\"middle\">position</text>") != std::string::npos);
  CHECK(svg.find(">PE</text>") != std::string::npos);
  CHECK(count(svg, "<stop ") == 33);
  CHECK(svg.find("fill=\"url(#colorbar)\"") != std::string::npos);
  // The first cell sits where the PNG puts cell (0, 0).
  CHECK(svg.find("<rect x=\"" + std::to_string(png.heatmapX) + "\" y=\"" + std::to_string(png.heatmapY) + "\"") !=
        std::string::npos);
}

TEST_CASE("svg and png: a small grid prints every value in its cell and labels every index, where the text fits") {
  const fs::path dir = posviz::test::exportScratch("svg-values");
  // The interview guide's ALiBi bias for four tokens, m = 0.5.
  Grid g(4, 4);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) g.at(i, j) = -0.5f * static_cast<float>(std::abs(i - j));
  PngOptions o;
  o.scale = ColorScale{Colormap::Viridis, -1.5f, 0.0f};
  o.cellScale = 64;
  o.axisTitles = true;
  posviz::cli::writeSvg((dir / "b.svg").string(), g, o);
  const std::string svg = readText(dir / "b.svg");
  CHECK(count(svg, ">-1.5</text>") == 2);   // the two far corners
  CHECK(count(svg, ">-0.5</text>") == 6);
  CHECK(count(svg, ">0</text>") == 4 + 2);   // the diagonal, and index 0 on both axes
  CHECK(count(svg, ">3</text>") == 2);       // every index labelled: 3 on both axes
  CHECK(count(svg, ">2</text>") == 2);
  // Dark ink on the light diagonal, white on the dark corners.
  CHECK(svg.find("fill=\"#141414\">0</text>") != std::string::npos);
  CHECK(svg.find("fill=\"#fafafa\">-1.5</text>") != std::string::npos);
  // Cells too small for the text: no values; a grid over 16 x 16: no values and only the end indices.
  o.cellScale = 8;
  posviz::cli::writeSvg((dir / "small.svg").string(), g, o);
  CHECK(readText(dir / "small.svg").find(">-1.5</text>") == std::string::npos);
  const Grid big = posviz::test::ramp(17, 17);
  o.cellScale = 64;
  o.scale = ColorScale{Colormap::Viridis, -300.0f, 0.0f};
  posviz::cli::writeSvg((dir / "big.svg").string(), big, o);
  const std::string bigSvg = readText(dir / "big.svg");
  CHECK(bigSvg.find(">7</text>") == std::string::npos);
  CHECK(bigSvg.find(">16</text>") != std::string::npos);
  // Without axis titles (--plain, --no-axis-titles) a picture prints no values.
  o.axisTitles = false;
  posviz::cli::writeSvg((dir / "bare.svg").string(), g, o);
  CHECK(readText(dir / "bare.svg").find("<text") == std::string::npos);
}

TEST_CASE("svg and png: a long caption wraps to the picture's width, word by word") {
  const fs::path dir = posviz::test::exportScratch("svg-caption");
  PngOptions o;
  o.scale = ColorScale{Colormap::Viridis, -5.0f, 64.0f};
  o.cellScale = 4;   // 64 x 64 cells: 256 px
  std::string caption;
  for (int i = 0; i < 40; ++i) caption += (i ? " word" : "word") + std::to_string(i);
  o.caption = caption;
  posviz::cli::writeSvg((dir / "c.svg").string(), posviz::test::ramp(8, 64), o);
  const std::string svg = readText(dir / "c.svg");
  const std::size_t lines = count(svg, "<text x=\"8\"");
  CHECK(lines >= 4);   // 40 words of about 45 px in lines of at most 360 px
  const std::size_t w = svg.find("width=\"");
  CHECK(std::stoi(svg.substr(w + 7)) <= 360 + 16);
  CHECK(svg.find(">word0 word1 ") != std::string::npos);   // words stay in order, joined by one space
  CHECK(svg.find("word39</text>") != std::string::npos);
  // The PNG takes the same lines: as tall as the SVG, text in each line's band.
  const posviz::cli::RgbImage img = posviz::cli::renderHeatmapImage(posviz::test::ramp(8, 64), o);
  CHECK(std::to_string(img.height) == svg.substr(svg.find("height=\"") + 8, std::to_string(img.height).size()));
  CHECK(static_cast<std::size_t>(img.heatmapY) > lines * 10);
}

TEST_CASE("svg: 64 x 64 cells stay rectangles; a 256 x 256 grid is one embedded PNG, under 300 KB") {
  const fs::path dir = posviz::test::exportScratch("svg-threshold");
  PngOptions o;
  o.scale = ColorScale{Colormap::Viridis, -5.0f, 65536.0f};
  posviz::cli::writeSvg((dir / "64.svg").string(), posviz::test::ramp(64, 64), o);
  const std::string small = readText(dir / "64.svg");
  CHECK(count(small, "<rect x=") == 64 * 64);
  CHECK(count(small, "<image ") == 0);
  posviz::cli::writeSvg((dir / "65.svg").string(), posviz::test::ramp(65, 64), o);
  CHECK(count(readText(dir / "65.svg"), "<image ") == 1);
  // 256 x 256 cells, decorated, of noise (the worst case for the embedded PNG's compression).
  o.cellScale = 3;
  o.colorbar = true;
  o.axisTitles = true;
  o.caption = "s(m, n)";
  o.rowTitle = "query position m";
  o.colTitle = "key position n";
  const Grid noise = posviz::learnedInit(256, 256, 7, 1.0);
  o.scale = ColorScale{Colormap::RdBu, -4.0f, 4.0f};
  posviz::cli::writeSvg((dir / "256.svg").string(), noise, o);
  const std::string big = readText(dir / "256.svg");
  CHECK(count(big, "<image ") == 1);
  CHECK(count(big, "<rect x=") <= 1);   // the colorbar's frame, no cell
  CHECK(big.find(">query position m</text>") != std::string::npos);   // decorations stay vector
  CHECK(fs::file_size(dir / "256.svg") < 300u * 1024u);
}

TEST_CASE("svg: a large grid embeds its cells as one PNG; a failed write leaves nothing") {
  const fs::path dir = posviz::test::exportScratch("svg-large");
  const Grid g = posviz::test::ramp(300, 300);   // 90000 cells: over the rectangle limit
  PngOptions o;
  o.scale = ColorScale{Colormap::Viridis, -5.0f, 89994.0f};
  posviz::cli::writeSvg((dir / "l.svg").string(), g, o);
  const std::string svg = readText(dir / "l.svg");
  CHECK(count(svg, "<image ") == 1);
  CHECK(svg.find("href=\"data:image/png;base64,iVBORw0KGgo") != std::string::npos);   // the PNG signature in base64
  CHECK(count(svg, "<rect x=") == 0);
  CHECK_THROWS_AS(posviz::cli::writeSvg((dir / "missing" / "x.svg").string(), g, o), std::runtime_error);
  CHECK_FALSE(fs::exists(dir / "missing"));
  PngOptions bad = o;
  bad.cellScale = 0;
  CHECK_THROWS_WITH_AS(posviz::cli::writeSvg((dir / "b.svg").string(), g, bad), doctest::Contains("cellScale"),
                       std::invalid_argument);
  CHECK_FALSE(fs::exists(dir / "b.svg"));
}

TEST_CASE("svg: posviz export writes .svg for every picture view and refuses it where there is no grid") {
  const fs::path dir = posviz::test::exportScratch("svg-cli");
  posviz::cli::exportWithArguments({"sinusoidal", "--d-model", "8", "--positions", "4", "--scale", "10", "--colorbar", "-o",
                                    (dir / "pe.svg").string()});
  const std::string svg = readText(dir / "pe.svg");
  CHECK(count(svg, "<rect x=") == 8 * 4 + 1);   // one per cell, and the colorbar
  CHECK(svg.find("fill=\"url(#colorbar)\"") != std::string::npos);
  // The --size picture of a grid too big to export whole.
  posviz::cli::exportWithArguments({"rope-scores", "--preset", "llama-3.1-8b", "--positions", "131072", "--size", "64x64", "-o",
                                    (dir / "s.svg").string()});
  CHECK(count(readText(dir / "s.svg"), "<rect x=") == 64 * 64 + 1);   // the cells and the colorbar (drawn by default)
  CHECK(count(readText(dir / "s.svg"), "width=\"8\" height=\"8\"") == 64 * 64);   // 64 x 64 cells scaled to 512 x 512
  // Its axes end at the grid's last position, not the picture's last pixel; so do a whole grid's
  // from --position.
  CHECK(readText(dir / "s.svg").find(">131071</text>") != std::string::npos);
  CHECK(readText(dir / "s.svg").find(">63</text>") == std::string::npos);
  posviz::cli::exportWithArguments({"sinusoidal", "--d-model", "8", "--positions", "100", "--position", "1000", "-o",
                                    (dir / "from.svg").string()});
  CHECK(readText(dir / "from.svg").find(">1000</text>") != std::string::npos);
  CHECK(readText(dir / "from.svg").find(">1099</text>") != std::string::npos);
  CHECK_THROWS_WITH_AS(posviz::cli::exportWithArguments({"rope-freqs", "-o", (dir / "f.svg").string()}),
                       doctest::Contains(".svg is not available for view rope-freqs"), posviz::cli::UsageError);
  CHECK_THROWS_WITH_AS(posviz::cli::exportWithArguments({"sinusoidal", "--dtype", "f64", "-o", (dir / "d.svg").string()}),
                       doctest::Contains("not .svg"), posviz::cli::UsageError);
  CHECK_FALSE(fs::exists(dir / "f.svg"));
}

TEST_CASE("svg and png: --text-scale sizes every text, as the window's text size does") {
  const fs::path dir = posviz::test::exportScratch("text-scale");
  const std::vector<std::string> base = {"sinusoidal", "--d-model", "8", "--positions", "4"};
  auto with = [&](std::vector<std::string> extra, const fs::path& out) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"-o", out.string()});
    posviz::cli::exportWithArguments(args);
  };
  with({}, dir / "one.svg");
  with({"--text-scale", "2"}, dir / "two.svg");
  const std::string one = readText(dir / "one.svg"), two = readText(dir / "two.svg");
  // DejaVu Sans: an em is 2048 / (1901 + 483) of the line; 15 px and 30 px lines.
  char em1[64], em2[64];
  std::snprintf(em1, sizeof em1, "font-size=\"%g\"", static_cast<double>(posviz::cli::svgFontSize(15.0f)));
  std::snprintf(em2, sizeof em2, "font-size=\"%g\"", static_cast<double>(posviz::cli::svgFontSize(30.0f)));
  CHECK(one.find(em1) != std::string::npos);
  CHECK(two.find(em2) != std::string::npos);
  CHECK(posviz::cli::svgFontSize(30.0f) == doctest::Approx(30.0 * 2048.0 / 2384.0).epsilon(1e-4));
  // The picture grows around the same cells: the text takes more room.
  with({}, dir / "one.png");
  with({"--text-scale", "2"}, dir / "two.png");
  int aw = 0, ah = 0, bw = 0, bh = 0, n = 0;
  REQUIRE(stbi_info((dir / "one.png").string().c_str(), &aw, &ah, &n) == 1);
  REQUIRE(stbi_info((dir / "two.png").string().c_str(), &bw, &bh, &n) == 1);
  CHECK(bw > aw);
  CHECK(bh > ah);
  CHECK_THROWS_WITH_AS(with({"--text-scale", "0.2"}, dir / "x.png"), doctest::Contains("--text-scale"), posviz::cli::UsageError);
  CHECK_THROWS_WITH_AS(with({"--text-scale", "big"}, dir / "x.png"), doctest::Contains("--text-scale"), posviz::cli::UsageError);
  CHECK_THROWS_WITH_AS(with({"--text-scale", "2"}, dir / "x.npy"), "--text-scale: applies to .png and .svg output only, not .npy",
                       posviz::cli::UsageError);
  CHECK_FALSE(fs::exists(dir / "x.png"));
  CHECK_FALSE(fs::exists(dir / "x.npy"));
}

}  // TEST_SUITE
