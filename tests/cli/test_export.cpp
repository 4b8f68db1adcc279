// Exporters (app/export.cpp): PNG size and cell colours, decorations, CSV/JSON text, safe writes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <sys/resource.h>

#include <nlohmann/json.hpp>
#include <stb_image.h>

#include "app/cli/export.hpp"
#include "core/npy.hpp"
#include "core/colormap.hpp"
#include "core/grid.hpp"
#include "tests/support/export_support.hpp"

namespace fs = std::filesystem;
using posviz::ColorScale;
using posviz::Colormap;
using posviz::Grid;
using posviz::Rgba8;
using posviz::cli::PngOptions;
using posviz::cli::RgbImage;

using posviz::test::checkPixel;
using posviz::test::ramp;
using posviz::test::readText;

namespace {

fs::path scratch(const std::string& name) { return posviz::test::exportScratch(name); }

std::size_t filesIn(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_SUITE("export") {

TEST_CASE("export: a native PNG has one pixel per cell, coloured by mapValue") {
  const Grid g = ramp(3, 5);
  PngOptions o;
  o.scale = ColorScale{Colormap::Viridis, -5.0f, 9.0f};
  const RgbImage img = posviz::cli::renderHeatmapImage(g, o);
  CHECK(img.width == 5);
  CHECK(img.height == 3);
  CHECK(img.heatmapX == 0);
  CHECK(img.heatmapY == 0);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 5; ++c) {
      CAPTURE(r);
      CAPTURE(c);
      checkPixel(img.pixel(c, r), posviz::mapValue(o.scale, g.at(r, c)));
    }
  }
  // The first and last cells are the ends of the colormap.
  checkPixel(img.pixel(0, 0), posviz::colormapColor(Colormap::Viridis, 0.0f));
  checkPixel(img.pixel(4, 2), posviz::colormapColor(Colormap::Viridis, 1.0f));
}

TEST_CASE("export: the written PNG decodes to the same size and colours, scale N makes N x N blocks") {
  const fs::path dir = scratch("png");
  Grid g = ramp(4, 6);
  g.at(1, 2) = -std::numeric_limits<float>::infinity();  // a masked cell
  PngOptions o;
  o.scale = posviz::cli::autoColorScale(g, nullptr, false);
  o.cellScale = 3;
  const fs::path path = dir / "ramp.png";
  posviz::cli::writePng(path.string(), g, o);
  int w = 0, h = 0, n = 0;
  unsigned char* pixels = stbi_load(path.string().c_str(), &w, &h, &n, 3);
  REQUIRE(pixels != nullptr);
  CHECK(w == 18);
  CHECK(h == 12);
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 6; ++c) {
      const Rgba8 expected = posviz::mapValue(o.scale, g.at(r, c));
      for (int dy = 0; dy < 3; ++dy) {
        for (int dx = 0; dx < 3; ++dx) {
          CAPTURE(r);
          CAPTURE(c);
          const unsigned char* p = pixels + ((r * 3 + dy) * w + (c * 3 + dx)) * 3;
          checkPixel(p, expected);
        }
      }
    }
  }
  const unsigned char* masked = pixels + ((1 * 3) * w + 2 * 3) * 3;
  checkPixel(masked, posviz::kMaskColor);
  stbi_image_free(pixels);
  // Data range -5..18 contains 0 on both sides: a diverging map centred on 0.
  CHECK(posviz::colormapKind(o.scale.map) == posviz::ColormapKind::Diverging);
  CHECK(o.scale.min == doctest::Approx(-18.0f));
  CHECK(o.scale.max == doctest::Approx(18.0f));
  CHECK(filesIn(dir) == 1);  // no temporary file left
}

TEST_CASE("export: colorbar, axis titles and caption add margins and leave the cells exact") {
  const Grid g = ramp(40, 30);
  PngOptions o;
  o.scale = ColorScale{Colormap::Magma, -5.0f, 1194.0f};
  o.cellScale = 2;
  o.colorbar = true;
  o.axisTitles = true;
  o.rowTitle = "position";
  o.colTitle = "dimension";
  o.valueName = "PE";
  o.caption = "sinusoidal d_model=30 base=10000";
  const RgbImage img = posviz::cli::renderHeatmapImage(g, o);
  CHECK(img.heatmapX > 0);
  CHECK(img.heatmapY > 0);
  CHECK(img.width > img.heatmapX + 60);
  CHECK(img.height > img.heatmapY + 80);
  for (int r : {0, 17, 39}) {
    for (int c : {0, 11, 29}) {
      CAPTURE(r);
      CAPTURE(c);
      checkPixel(img.pixel(img.heatmapX + 2 * c + 1, img.heatmapY + 2 * r + 1), posviz::mapValue(o.scale, g.at(r, c)));
    }
  }
  // Text was drawn: the caption row holds dark pixels, the margin corner stays white.
  bool dark = false;
  for (int x = 0; x < img.width; ++x) {
    for (int y = 0; y < img.heatmapY; ++y) dark = dark || img.pixel(x, y)[0] < 100;
  }
  CHECK(dark);
  const std::uint8_t* corner = img.pixel(img.width - 1, img.height - 1);
  CHECK(static_cast<int>(corner[0]) == 255);
  // The colorbar's top is the colormap's end, its bottom the start.
  const int barX = img.heatmapX + 60 + 8 + 4;
  checkPixel(img.pixel(barX, img.heatmapY), posviz::colormapColor(Colormap::Magma, 1.0f));
  checkPixel(img.pixel(barX, img.heatmapY + 79), posviz::colormapColor(Colormap::Magma, 0.0f));
}

TEST_CASE("export: a heatmap too narrow for its column title puts the title on a line of its own, unclipped") {
  PngOptions o;
  o.scale = ColorScale{Colormap::Viridis, -5.0f, 2000.0f};
  o.axisTitles = true;
  o.rowTitle = "position";
  o.colTitle = "dimension i (column)";
  // 100 rows: taller than the row title, so the cells alone set the content's height.
  const RgbImage wide = posviz::cli::renderHeatmapImage(ramp(100, 300), o);
  const RgbImage narrow = posviz::cli::renderHeatmapImage(ramp(100, 4), o);
  REQUIRE(wide.heatmapY == narrow.heatmapY);
  // Same rows, so the same height but for the title's own line.
  CHECK(narrow.height > wide.height + 10);
  // Dark text in that extra band, and none of it cut off at the right edge.
  auto darkIn = [](const RgbImage& img, int x0, int y0, int x1, int y1) {
    int n = 0;
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) n += img.pixel(x, y)[0] < 100;
    }
    return n;
  };
  CHECK(darkIn(narrow, 0, wide.height, narrow.width, narrow.height) > 30);
  CHECK(darkIn(narrow, narrow.width - 1, 0, narrow.width, narrow.height) == 0);
  CHECK(darkIn(wide, 0, wide.height - 2, wide.width, wide.height) == 0);
  // The SVG places it at the same spot: a <text> whose baseline is in the extra band.
  const fs::path dir = scratch("narrow");
  posviz::cli::writeSvg((dir / "n.svg").string(), ramp(100, 4), o);
  const std::string svg = readText(dir / "n.svg");
  const std::size_t at = svg.find(">dimension i (column)</text>");
  REQUIRE(at != std::string::npos);
  const std::size_t y = svg.rfind(" y=\"", at);
  REQUIRE(y != std::string::npos);
  CHECK(std::stod(svg.substr(y + 4)) > wide.height);
}

TEST_CASE("export: a heatmap shorter than its row title grows a taller band; labels and title stay apart") {
  PngOptions o;
  o.scale = ColorScale{Colormap::Viridis, -5.0f, 60.0f};
  o.axisTitles = true;
  o.rowTitle = "query position i";
  o.colTitle = "key";
  o.caption = "a caption above";
  const Grid g = ramp(2, 32);   // cellScale 1: the cells are 2 px tall
  const RgbImage img = posviz::cli::renderHeatmapImage(g, o);
  // The rotated title sits below the caption band and inside the image: the rows above the cells'
  // top hold only the caption, whose text ends before the title's column would start.
  auto darkIn = [&](int x0, int y0, int x1, int y1) {
    int n = 0;
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) n += img.pixel(x, y)[0] < 100;
    }
    return n;
  };
  const int titleX0 = 8, titleX1 = 8 + 20;   // kMargin, one line wide
  CHECK(darkIn(titleX0, img.heatmapY, titleX1, img.height) > 100);   // the title, all of it below the cells' top
  CHECK(darkIn(0, img.heatmapY - 4, img.width, img.heatmapY) == 0);  // nothing overhangs into the caption band
  // The last row's label "1" is drawn below the "0", not over it: dark pixels in two separate bands.
  const int labelX0 = img.heatmapX - 14, labelX1 = img.heatmapX - 1;
  const int firstBand = darkIn(labelX0, img.heatmapY, labelX1, img.heatmapY + 17);
  const int secondBand = darkIn(labelX0, img.heatmapY + 18, labelX1, img.heatmapY + 36);
  CHECK(firstBand > 5);
  CHECK(secondBand > 5);
}

TEST_CASE("export: bad PNG requests are refused before writing") {
  const fs::path dir = scratch("png-bad");
  const Grid g = ramp(2, 2);
  PngOptions o;
  o.cellScale = 0;
  CHECK_THROWS_WITH_AS(posviz::cli::writePng((dir / "a.png").string(), g, o), doctest::Contains("cellScale"), std::invalid_argument);
  o.cellScale = 1;
  CHECK_THROWS_AS(posviz::cli::writePng((dir / "a.png").string(), Grid(), o), std::invalid_argument);
  const std::uint64_t old = posviz::memoryBudgetBytes();
  posviz::setMemoryBudgetBytes(1024);
  o.cellScale = 100;
  CHECK_THROWS_WITH_AS(posviz::cli::writePng((dir / "a.png").string(), g, o), doctest::Contains("memory budget"), std::invalid_argument);
  posviz::setMemoryBudgetBytes(old);
  CHECK(filesIn(dir) == 0);
  CHECK_THROWS_WITH_AS(posviz::cli::writePng((dir / "no-such-dir" / "a.png").string(), g, PngOptions{}),
                       doctest::Contains("cannot write"), std::runtime_error);
  CHECK(filesIn(dir) == 0);
}

TEST_CASE("export: numbers are written in shortest round-trip form") {
  CHECK(posviz::cli::formatNumber(0.1) == "0.1");
  CHECK(posviz::cli::formatNumber(0.1f) == "0.1");
  CHECK(posviz::cli::formatNumber(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(posviz::cli::formatNumber(std::numeric_limits<double>::quiet_NaN()) == "nan");
  for (double v : {1.0 / 3.0, 6.02214076e23, -2.5e-300, 0.8414709848078965}) {
    CAPTURE(v);
    CHECK(std::stod(posviz::cli::formatNumber(v)) == v);
  }
}

TEST_CASE("export: CSV grids and columns") {
  const fs::path dir = scratch("csv");
  Grid g(2, 3);
  g.values = {0.5f, -1.0f, 0.1f, 3.0f, -std::numeric_limits<float>::infinity(), 7.25f};
  posviz::cli::writeCsvGrid((dir / "g.csv").string(), g, {"rows = a, cols = b"});
  CHECK(readText(dir / "g.csv") == "# rows = a, cols = b\n0.5,-1,0.1\n3,-inf,7.25\n");
  posviz::cli::writeCsvGrid((dir / "d.csv").string(), std::vector<double>{0.1, 0.2}, 1, 2, {});
  CHECK(readText(dir / "d.csv") == "0.1,0.2\n");
  CHECK_THROWS_AS(posviz::cli::writeCsvGrid((dir / "e.csv").string(), std::vector<double>{0.1, 0.2}, 2, 2, {}), std::invalid_argument);
  posviz::cli::writeCsvColumns((dir / "c.csv").string(), {"distance", "bound"}, {{0, 1, 2}, {1.0, 0.75, 0.5}});
  CHECK(readText(dir / "c.csv") == "distance,bound\n0,1\n1,0.75\n2,0.5\n");
  CHECK_THROWS_WITH_AS(posviz::cli::writeCsvColumns((dir / "x.csv").string(), {"a", "b"}, {{1, 2}, {1}}),
                       doctest::Contains("column b has 1 values"), std::invalid_argument);
  CHECK_THROWS_AS(posviz::cli::writeCsvColumns((dir / "x.csv").string(), {"a"}, {{1}, {2}}), std::invalid_argument);
  CHECK_FALSE(fs::exists(dir / "x.csv"));
  CHECK_FALSE(fs::exists(dir / "e.csv"));
}

TEST_CASE("export: JSON is pretty-printed, non-finite numbers become null, and a failed write leaves nothing") {
  const fs::path dir = scratch("json");
  nlohmann::json doc = {{"score", 0.25}, {"masked", -std::numeric_limits<double>::infinity()}, {"name", "dog"}};
  posviz::cli::writeJson((dir / "a.json").string(), doc);
  const nlohmann::json back = nlohmann::json::parse(readText(dir / "a.json"));
  CHECK(back["score"].get<double>() == 0.25);
  CHECK(back["masked"].is_null());
  CHECK(back["name"] == "dog");
  CHECK_THROWS_AS(posviz::cli::writeJson((dir / "missing" / "a.json").string(), doc), std::runtime_error);
  CHECK(filesIn(dir) == 1);
}

TEST_CASE("export: writeJsonWithValues writes the same text as writeJson of the nested document") {
  const fs::path dir = scratch("json-streamed");
  const nlohmann::json head = {{"view", "t"}, {"params", {{"base", 10000.0}, {"layout", "x"}}}, {"dtype", "float32"}};
  SUBCASE("float32 values, 3-D, with non-finite entries") {
    const std::vector<std::int64_t> shape = {2, 3, 2};
    std::vector<float> v = {0.1f, -2.5f, 1e-7f, 3.0f, 0.0f, -0.0f, 1e30f, 7.25f, -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), 12345.678f, -1.0f};
    nlohmann::json nested = head;
    nested["values"] = nlohmann::json::array();
    for (int a = 0; a < 2; ++a) {
      nlohmann::json plane = nlohmann::json::array();
      for (int b = 0; b < 3; ++b) {
        nlohmann::json row = nlohmann::json::array();
        for (int c = 0; c < 2; ++c) row.push_back(v[static_cast<std::size_t>(a * 6 + b * 2 + c)]);
        plane.push_back(row);
      }
      nested["values"].push_back(plane);
    }
    posviz::cli::writeJson((dir / "whole.json").string(), nested);
    posviz::cli::writeJsonWithValues((dir / "streamed.json").string(), head, "values", shape, v.data());
    CHECK(readText(dir / "streamed.json") == readText(dir / "whole.json"));
    const nlohmann::json back = nlohmann::json::parse(readText(dir / "streamed.json"));
    CHECK(back["values"][1][0][1].get<double>() == 7.25);
    CHECK(back["values"][1][1][0].is_null());  // -inf
    CHECK(back["values"][0][0][0].get<float>() == 0.1f);
  }
  SUBCASE("float64 values, 1-D, and an empty axis") {
    const std::vector<double> v = {0.1, 2.0, -3.5e-300};
    nlohmann::json nested = head;
    nested["values"] = v;
    posviz::cli::writeJson((dir / "whole.json").string(), nested);
    posviz::cli::writeJsonWithValues((dir / "streamed.json").string(), head, "values", {3}, v.data());
    CHECK(readText(dir / "streamed.json") == readText(dir / "whole.json"));
    nested["values"] = nlohmann::json::array({nlohmann::json::array(), nlohmann::json::array()});
    posviz::cli::writeJson((dir / "empty-whole.json").string(), nested);
    posviz::cli::writeJsonWithValues((dir / "empty-streamed.json").string(), head, "values", {2, 0}, v.data());
    CHECK(readText(dir / "empty-streamed.json") == readText(dir / "empty-whole.json"));
  }
}

TEST_CASE("export: the streamed PNG file holds exactly the bytes encodePng makes") {
  const fs::path dir = scratch("png-stream");
  PngOptions o;
  o.scale = posviz::cli::autoColorScale(ramp(7, 5), nullptr, false);
  o.cellScale = 3;
  const RgbImage img = posviz::cli::renderHeatmapImage(ramp(7, 5), o);
  const std::vector<std::uint8_t> bytes = posviz::cli::encodePng(img);
  posviz::cli::writePngImage((dir / "a.png").string(), img);
  const std::string file = readText(dir / "a.png");
  REQUIRE(file.size() == bytes.size());
  CHECK(std::equal(bytes.begin(), bytes.end(), file.begin(),
                   [](std::uint8_t a, char b) { return a == static_cast<std::uint8_t>(b); }));
  CHECK(filesIn(dir) == 1);
}

TEST_CASE("export: a write over the file size limit reports the OS reason and leaves nothing") {
  // RLIMIT_FSIZE with SIGXFSZ ignored makes write(2) fail with EFBIG, as a full disk fails with
  // ENOSPC: each writer must name that reason, not a generic stream failure.
  const fs::path dir = scratch("efbig");
  rlimit old{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  void (*oldHandler)(int) = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 16 * 1024;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  const Grid big = ramp(256, 256);  // 256 KiB as float32, more as text
  std::string csvError, jsonError, streamedError, pngError;
  try {
    posviz::cli::writeCsvGrid((dir / "a.csv").string(), big, {"comment"});
  } catch (const std::runtime_error& e) {
    csvError = e.what();
  }
  try {
    nlohmann::json doc = {{"values", big.values}};
    posviz::cli::writeJson((dir / "a.json").string(), doc);
  } catch (const std::runtime_error& e) {
    jsonError = e.what();
  }
  try {
    posviz::cli::writeJsonWithValues((dir / "b.json").string(), {{"view", "v"}}, "values", {256, 256}, big.values.data());
  } catch (const std::runtime_error& e) {
    streamedError = e.what();
  }
  try {
    PngOptions o;
    Grid noisy = big;  // pseudo-random cells: the PNG cannot compress under 16 KiB
    std::uint64_t state = 88172645463325252ull;
    for (float& x : noisy.values) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      x = static_cast<float>(state >> 40);
    }
    o.scale = posviz::cli::autoColorScale(noisy, nullptr, false);
    posviz::cli::writePng((dir / "a.png").string(), noisy, o);
  } catch (const std::runtime_error& e) {
    pngError = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, oldHandler);
  const std::string reason = std::strerror(EFBIG);
  for (const std::string& err : {csvError, jsonError, streamedError, pngError}) {
    CAPTURE(err);
    CHECK(err.find(reason) != std::string::npos);
    CHECK(err.find("cannot write") != std::string::npos);
  }
  CHECK(filesIn(dir) == 0);
}

}  // TEST_SUITE
