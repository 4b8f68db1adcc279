// `posviz export VIEW --size WxH` (app/cli/views/averaged.cpp): the averaged picture of each
// grid view equals area_average of the view's own full export, positions reach 2^31, the budget
// counts the picture, and every --size error names the flag (exit 2).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <stb_image.h>

#include "app/cli/cli.hpp"
#include "tests/support/cli_support.hpp"
#include "core/area_average.hpp"
#include "core/exact_average.hpp"
#include "core/pixel_stats.hpp"
#include "core/random.hpp"
#include "core/learned.hpp"
#include "core/npy.hpp"
#include "core/sinusoidal.hpp"

namespace fs = std::filesystem;

namespace {

using posviz::test::CliRun;
using posviz::test::runCli;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "cli_size" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

posviz::Grid asGrid(const posviz::NpyArray& a) {
  REQUIRE(a.shape.size() >= 2);
  posviz::Grid g(static_cast<int>(a.data.size() / static_cast<std::size_t>(a.shape.back())), static_cast<int>(a.shape.back()));
  g.values = a.data;
  return g;
}

// Exports VIEW whole and at --size WxH; the sized values must be area_average of the whole ones
// (all-masked blocks: NaN there, -inf here).
void checkAgainstWhole(const std::string& view, std::vector<std::string> options, int width, int height, double tol) {
  CAPTURE(view);
  const fs::path dir = scratch(view);
  std::vector<std::string> whole = {"export", view};
  whole.insert(whole.end(), options.begin(), options.end());
  std::vector<std::string> sized = whole;
  whole.insert(whole.end(), {"-o", (dir / "whole.npy").string()});
  sized.insert(sized.end(), {"--size", std::to_string(width) + "x" + std::to_string(height), "-o", (dir / "sized.npy").string()});
  const CliRun a = runCli(whole), b = runCli(sized);
  REQUIRE_MESSAGE(a.code == 0, a.err);
  REQUIRE_MESSAGE(b.code == 0, b.err);
  const posviz::Grid full = asGrid(posviz::readNpy((dir / "whole.npy").string()));
  const posviz::NpyArray got = posviz::readNpy((dir / "sized.npy").string());
  REQUIRE(got.shape.size() == 2);
  CHECK(got.shape[0] == height);
  CHECK(got.shape[1] == width);
  posviz::Grid want;
  posviz::areaAverageWindow(full, posviz::fullWindow(full.rows, full.cols, height, width), want);
  REQUIRE(want.values.size() == got.data.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < got.data.size(); ++i) {
    if (std::isnan(want.values[i])) {
      CHECK(got.data[i] == -INFINITY);
      continue;
    }
    worst = std::max(worst, std::fabs(static_cast<double>(want.values[i]) - got.data[i]));
  }
  CHECK(worst <= tol);
}

}  // namespace

TEST_SUITE("export") {

TEST_CASE("export --size: each grid view's picture is the area average of its full export") {
  checkAgainstWhole("sinusoidal", {"--d-model", "16", "--positions", "3000", "--position", "2147480000"}, 7, 11, 1e-6);
  checkAgainstWhole("sinusoidal", {"--d-model", "16", "--positions", "999", "--layout", "t2t"}, 16, 999, 1e-6);
  checkAgainstWhole("learned", {"--d-model", "32", "--positions", "700", "--seed", "3"}, 9, 13, 1e-6);
  checkAgainstWhole("rope-angles", {"--head-dim", "32", "--positions", "2000", "--position", "2147481000"}, 5, 17, 1e-6);
  checkAgainstWhole("rope-scores", {"--head-dim", "16", "--positions", "400", "--position", "2147483000"}, 13, 7, 1e-5);
  checkAgainstWhole("alibi-bias", {"--heads", "4", "--head", "1", "--positions", "300"}, 23, 19, 1e-4);
  checkAgainstWhole("alibi-bias", {"--heads", "4", "--head", "2", "--positions", "300", "--causal"}, 23, 19, 1e-4);
}

TEST_CASE("export --size: 2^31 positions, and the budget counts the picture, not the grid") {
  const fs::path dir = scratch("huge");
  // 131072^2 float32 cells would need 64 GiB; the 1024 x 1024 picture needs 12 MiB.
  const CliRun s = runCli({"export", "rope-scores", "--preset", "llama-3.1-8b", "--positions", "131072", "--size",
                           "1024x1024", "--plain", "-o", (dir / "s.png").string()});
  REQUIRE_MESSAGE(s.code == 0, s.err);
  int w = 0, h = 0, n = 0;
  REQUIRE(stbi_info((dir / "s.png").string().c_str(), &w, &h, &n) == 1);
  CHECK(w == 1024);
  CHECK(h == 1024);
  // Without --size the same request is refused by the budget.
  const CliRun refused = runCli({"export", "rope-scores", "--preset", "llama-3.1-8b", "--positions", "131072", "-o",
                                 (dir / "t.png").string()});
  CHECK(refused.code == 2);
  CHECK_FALSE(fs::exists(dir / "t.png"));
  // 2^31 - 1 positions of sinusoidal: each of the 4 display rows is the exact mean of ~2^29 rows.
  const CliRun big = runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "2147483647", "--size", "8x4", "-o",
                             (dir / "big.npy").string()});
  REQUIRE_MESSAGE(big.code == 0, big.err);
  const posviz::NpyArray a = posviz::readNpy((dir / "big.npy").string());
  REQUIRE(a.shape == std::vector<std::int64_t>{4, 8});
  posviz::SinusoidalParams p;
  p.dModel = 8;
  for (int i = 0; i < 4; ++i)
    for (int d = 0; d < 8; ++d) {
      CAPTURE(i);
      CAPTURE(d);
      const long long r0 = posviz::areaCellBegin(2147483647, 4, i), r1 = posviz::areaCellBegin(2147483647, 4, i + 1);
      CHECK(a.data[static_cast<std::size_t>(i * 8 + d)] ==
            doctest::Approx(posviz::sinusoidalBlockMean(p, r0, r1, d, d + 1)).epsilon(1e-6));
    }
  // Pair 3 (w = 10000^-0.75 = 0.001) averages sin over 2^29 rows: far below one.
  CHECK(std::fabs(a.data[6]) < 1e-4);
  // --pixel: the same blocks' RMS, least and greatest (core/pixel_stats.hpp), in the file's
  // document; a bad name is refused with the choices.
  for (const char* stat : {"rms", "min", "max"}) {
    CAPTURE(stat);
    const fs::path out = dir / (std::string(stat) + ".json");
    const CliRun run = runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "2147483647", "--size", "8x4",
                               "--pixel", stat, "--dtype", "f64", "-o", out.string()});
    REQUIRE_MESSAGE(run.code == 0, run.err);
    std::ifstream in(out);
    const nlohmann::json j = nlohmann::json::parse(in);
    CHECK(j["pixel"]["shows"] == stat);
    const long long r0 = posviz::areaCellBegin(2147483647, 4, 2), r1 = posviz::areaCellBegin(2147483647, 4, 3);
    const posviz::BlockStats b = posviz::sinusoidalBlockStats(p, r0, r1, 6, 7);
    const double want = std::string(stat) == "rms" ? b.rms : std::string(stat) == "min" ? b.min : b.max;
    CHECK(j["values"][2][6].get<double>() == doctest::Approx(want).epsilon(1e-12));
  }
  const CliRun badPixel = runCli({"export", "sinusoidal", "--pixel", "median", "-o", (dir / "bad.npy").string()});
  CHECK(badPixel.code == 2);
  CHECK(badPixel.err.find("auto|mean|min|max|rms") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "bad.npy"));
  // All 8 ALiBi heads: (heads, H, W).
  REQUIRE(runCli({"export", "alibi-bias", "--positions", "2147483647", "--size", "16x8", "-o", (dir / "al.npy").string()})
              .code == 0);
  CHECK(posviz::readNpy((dir / "al.npy").string()).shape == std::vector<std::int64_t>{8, 8, 16});
}

TEST_CASE("export --size --pixel: RoPE grids and ALiBi show each block's envelope or RMS, exactly") {
  const fs::path dir = scratch("pixel-grids");
  auto json = [](const fs::path& f) {
    std::ifstream in(f);
    return nlohmann::json::parse(in);
  };
  // rope-cos at 2^31 positions: each value the greatest cos of its block, the attention factor's
  // swing included (yarn x4: 0.1 ln 4 + 1).
  posviz::RopeParams p;
  p.headDim = 16;
  p.scaling.method = posviz::ScalingMethod::Yarn;
  p.scaling.factor = 4.0;
  p.scaling.originalMaxPositions = 2048;
  const CliRun cos = runCli({"export", "rope-cos", "--head-dim", "16", "--scaling", "yarn", "--factor", "4",
                             "--original-max-positions", "2048", "--positions", "2147483647", "--size", "8x4", "--pixel",
                             "max", "--dtype", "f64", "-o", (dir / "cos.json").string()});
  REQUIRE_MESSAGE(cos.code == 0, cos.err);
  const nlohmann::json c = json(dir / "cos.json");
  CHECK(c["pixel"]["shows"] == "max");
  const long long r0 = posviz::areaCellBegin(2147483647, 4, 1), r1 = posviz::areaCellBegin(2147483647, 4, 2);
  CHECK(c["values"][1][7].get<double>() ==
        doctest::Approx(posviz::ropePairBlockStats(p, posviz::RopePairValue::Cos, r0, r1, 7, 8).max).epsilon(1e-12));
  CHECK(c["values"][1][0].get<double>() == doctest::Approx(posviz::ropeFrequencies(p).attentionFactor).epsilon(1e-12));
  // Angles have no RMS: refused, naming the choice, nothing written.
  const CliRun angleRms = runCli({"export", "rope-angles", "--positions", "100000", "--size", "8x4", "--pixel", "rms", "-o",
                                  (dir / "a.png").string()});
  CHECK(angleRms.code == 2);
  CHECK(angleRms.err.find("--pixel rms") != std::string::npos);
  CHECK(angleRms.err.find("no RMS") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "a.png"));
  // rope-scores: one block's least against visiting its cells.
  const CliRun sc = runCli({"export", "rope-scores", "--head-dim", "8", "--seed", "3", "--positions", "4096", "--size",
                            "16x16", "--pixel", "min", "--dtype", "f64", "-o", (dir / "s.json").string()});
  REQUIRE_MESSAGE(sc.code == 0, sc.err);
  posviz::RopeParams sp;
  sp.headDim = 8;
  const std::vector<float> q = posviz::randomNormalVector(8, 3), k = posviz::randomNormalVector(8, 4);
  double least = 1e300;
  for (long long m = 256 * 5; m < 256 * 6; ++m)
    for (long long n = 256 * 2; n < 256 * 3; ++n)
      least = std::min(least, posviz::ropeScore(sp, q, k, static_cast<double>(m), static_cast<double>(n)));
  CHECK(json(dir / "s.json")["values"][5][2].get<double>() == doctest::Approx(least).epsilon(1e-9));
  // The envelope of scores needs s at each offset of the window: past 2^23 offsets, refused.
  const CliRun wide = runCli({"export", "rope-scores", "--positions", "2147483647", "--size", "8x8", "--pixel", "max", "-o",
                              (dir / "w.png").string()});
  CHECK(wide.code == 2);
  CHECK(wide.err.find("at most 8388608") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "w.png"));
  // alibi-bias, causal, 2^31 positions: each block's RMS in closed form.
  const CliRun al = runCli({"export", "alibi-bias", "--slope", "0.5", "--causal", "--positions", "2147483647", "--size",
                            "4x4", "--pixel", "rms", "--dtype", "f64", "-o", (dir / "al.json").string()});
  REQUIRE_MESSAGE(al.code == 0, al.err);
  const long long a0 = posviz::areaCellBegin(2147483647, 4, 2), a1 = posviz::areaCellBegin(2147483647, 4, 3);
  const long long b0 = posviz::areaCellBegin(2147483647, 4, 1), b1 = posviz::areaCellBegin(2147483647, 4, 2);
  CHECK(json(dir / "al.json")["values"][2][1].get<double>() ==
        doctest::Approx(posviz::alibiBlockStats(0.5, true, a0, a1, b0, b1).rms).epsilon(1e-12));
}

TEST_CASE("export --size --pixel: a learned table's blocks, visited cell by cell; auto turns to the RMS of a seeded table") {
  const fs::path dir = scratch("pixel-learned");
  auto json = [](const fs::path& f) {
    std::ifstream in(f);
    return nlohmann::json::parse(in);
  };
  // 3000 x 64 seeded rows in 6 x 4 pixels: 500 x 16 cells a pixel.
  const posviz::Grid table = posviz::learnedInit(3000, 64, 7, 0.02);
  const posviz::GridWindow w = posviz::fullWindow(3000, 64, 6, 4);
  for (const char* stat : {"min", "max", "rms"}) {
    CAPTURE(stat);
    const fs::path out = dir / (std::string(stat) + ".json");
    const CliRun run = runCli({"export", "learned", "--d-model", "64", "--max-len", "3000", "--seed", "7", "--size", "4x6",
                               "--pixel", stat, "--dtype", "f64", "-o", out.string()});
    REQUIRE_MESSAGE(run.code == 0, run.err);
    const nlohmann::json j = json(out);
    CHECK(j["pixel"]["shows"] == stat);
    const posviz::PixelStat st = std::string(stat) == "min" ? posviz::PixelStat::Min
                                 : std::string(stat) == "max" ? posviz::PixelStat::Max : posviz::PixelStat::Rms;
    const posviz::ExactPicture want = posviz::gridStatPicture(table, w, st);
    for (int i = 0; i < 6; ++i)
      for (int k = 0; k < 4; ++k) CHECK(j["values"][i][k].get<double>() == want.values[static_cast<std::size_t>(i * 4 + k)]);
  }
  // N(0, 0.02^2) cells: the block means are ~0.02 / sqrt(8000), far inside a tenth of the largest
  // |cell| (~0.08), so auto's picture is the RMS, ~0.02 everywhere; the .json says why.
  const CliRun autoSvg = runCli({"export", "learned", "--d-model", "64", "--max-len", "3000", "--seed", "7", "--size", "4x6",
                                 "-o", (dir / "auto.svg").string()});
  REQUIRE_MESSAGE(autoSvg.code == 0, autoSvg.err);
  std::ifstream svgFile(dir / "auto.svg");
  const std::string svg((std::istreambuf_iterator<char>(svgFile)), std::istreambuf_iterator<char>());
  CHECK(svg.find("block rms") != std::string::npos);
  CHECK(svg.find("block mean") == std::string::npos);
  const CliRun autoJson = runCli({"export", "learned", "--d-model", "64", "--max-len", "3000", "--seed", "7", "--size", "4x6",
                                  "--pixel", "auto", "-o", (dir / "auto.json").string()});
  REQUIRE_MESSAGE(autoJson.code == 0, autoJson.err);
  CHECK(json(dir / "auto.json")["pixel"]["shows"] == "mean");   // numbers stay the mean unless a stat is named
}

TEST_CASE("export --size: errors name the flag, exit 2, write nothing") {
  const fs::path dir = scratch("errors");
  const std::string out = (dir / "x.npy").string();
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const Case cases[] = {
      {{"export", "sinusoidal", "--size", "0x5", "-o", out}, "--size: width must be 1..16384, got 0"},
      {{"export", "sinusoidal", "--size", "5x16385", "-o", out}, "--size: height must be 1..16384, got 16385"},
      {{"export", "sinusoidal", "--size", "abc", "-o", out}, "--size: expected WxH such as 1024x768, got \"abc\""},
      {{"export", "sinusoidal", "--size", "4x-3", "-o", out}, "--size: expected WxH such as 1024x768, got \"4x-3\""},
      {{"export", "sinusoidal", "--d-model", "8", "--size", "9x4", "-o", out},
       "--size: width 9 exceeds the grid's 8 columns (sinusoidal); use a width of at most 8"},
      {{"export", "rope-scores", "--positions", "100", "--size", "10x101", "-o", out},
       "--size: height 101 exceeds the grid's 100 rows (rope-scores); use a height of at most 100"},
      {{"export", "rope-freqs", "--size", "4x4", "-o", out},
       "--size: applies to the grid views (sinusoidal, learned, rope-angles, rope-cos, rope-sin, rope-scores, alibi-bias), not rope-freqs"},
      {{"export", "sinusoidal", "--positions", "2000", "--position", "4294967000", "--size", "4x4", "-o", out},
       "--size: exact means cover positions below 2^32; --position + --positions reach 4294969000"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.message);
    const CliRun r = runCli(c.args);
    CHECK(r.code == 2);
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
}

}  // TEST_SUITE
