// The headless CLI (app/cli.cpp, app/cli_args.cpp), run in-process: round trips against core,
// PNG colours, help text, and every error path (exit 2 naming the flag, no file left behind).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <stb_image.h>

#include "app/cli/cli.hpp"
#include "tests/support/cli_support.hpp"
#include "app/cli/args.hpp"
#include "app/cli/export.hpp"
#include "app/cli/model_config.hpp"
#include "core/alibi.hpp"
#include "core/attention.hpp"
#include "core/colormap.hpp"
#include "core/learned.hpp"
#include "core/npy.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using posviz::test::CliRun;
using posviz::test::runCli;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "cli" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::size_t filesIn(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The float64 payload of a '<f8' .npy, read byte for byte (readNpy rounds to float32).
std::vector<double> readNpyDoubles(const fs::path& p) {
  const std::string bytes = readText(p);
  REQUIRE(bytes.size() > 10);
  REQUIRE(bytes.compare(0, 6, "\x93NUMPY") == 0);
  const std::size_t headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  REQUIRE(contains(bytes.substr(10, headerLen), "'<f8'"));
  const std::size_t start = 10 + headerLen;
  std::vector<double> out((bytes.size() - start) / 8);
  std::memcpy(out.data(), bytes.data() + start, out.size() * 8);
  return out;
}

}  // namespace

TEST_SUITE("cli") {

TEST_CASE("cli: only the CLI commands are taken; anything else starts the app") {
  char prog[] = "posviz";
  char* none[] = {prog, nullptr};
  CHECK_FALSE(posviz::cli::runCli(1, none).has_value());
  char gui[] = "--fullscreen";
  char* guiArgs[] = {prog, gui, nullptr};
  CHECK_FALSE(posviz::cli::runCli(2, guiArgs).has_value());
  char other[] = "exports";
  char* otherArgs[] = {prog, other, nullptr};
  CHECK_FALSE(posviz::cli::runCli(2, otherArgs).has_value());
}

TEST_CASE("cli: --help, export --help and export VIEW --help document every view, option and preset") {
  const CliRun help = runCli({"--help"});
  CHECK(help.code == 0);
  CHECK(runCli({"-h"}).out == help.out);
  for (const char* view : {"sinusoidal", "learned", "rope-freqs", "rope-angles", "rope-rotate", "rope-scores", "rope-decay",
                           "alibi-slopes", "alibi-bias", "attention"}) {
    CAPTURE(view);
    CHECK(contains(help.out, view));
    const CliRun vh = runCli({"export", view, "--help"});
    CHECK(vh.code == 0);
    CHECK(contains(vh.out, std::string("posviz export ") + view));
    CHECK(contains(vh.out, "Output:"));
    CHECK(contains(vh.out, "--dtype"));
  }
  for (const std::string& p : posviz::cli::presetNames()) {
    CAPTURE(p);
    CHECK(contains(help.out, p));
  }
  CHECK(contains(help.out, "Exit codes"));
  const CliRun eh = runCli({"export", "--help"});
  CHECK(eh.code == 0);
  for (const char* opt : {"--d-model", "--head-dim", "--base", "--positions", "--position", "--key-position", "--heads",
                          "--layout", "--scaling", "--factor", "--original-max-positions", "--seq-len", "--beta-fast",
                          "--beta-slow", "--low-freq-factor", "--high-freq-factor", "--mscale", "--mscale-all-dim",
                          "--short-factor", "--long-factor", "--attention-factor", "--rotary-fraction", "--causal",
                          "--seed", "--q", "--k", "--colormap", "--dtype", "--config", "--preset", "--scale", "--colorbar",
                          "--caption", "--budget", "--table", "--text", "--encoding"}) {
    CAPTURE(opt);
    CHECK(contains(eh.out, std::string(opt) + " "));
  }
  // The --dtype note lists the views from the table, each on the side its exactDouble flag says.
  CHECK(contains(eh.out, "computed in double precision: sinusoidal, "));
  CHECK(contains(eh.out, "the float32 result widened:   sinusoidal-similarity, learned, "));
  const CliRun rope = runCli({"export", "rope-rotate", "--help"});
  CHECK(contains(rope.out, "--key-position"));
  CHECK_FALSE(contains(rope.out, "--heads "));
  const CliRun version = runCli({"--version"});
  CHECK(version.code == 0);
  CHECK(version.out == std::string("posviz ") + POSVIZ_VERSION + "\n");
}

TEST_CASE("cli: sinusoidal .npy is (positions, d_model) and equals core, float32 and float64") {
  const fs::path dir = scratch("sinusoidal");
  const CliRun r = runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "16", "-o", (dir / "pe.npy").string()});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  const posviz::NpyArray a = posviz::readNpy((dir / "pe.npy").string());
  CHECK(a.shape == std::vector<std::int64_t>{16, 8});
  CHECK(a.sourceType == posviz::DType::F32);
  posviz::SinusoidalParams p;
  p.dModel = 8;
  const posviz::Grid g = posviz::sinusoidalGrid(p, 16);
  CHECK(a.data == g.values);
  // PE at pos 3 with d_model 8, dim 0: sin(3).
  CHECK(a.data[3 * 8 + 0] == doctest::Approx(std::sin(3.0)));

  CHECK(runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "16", "--position", "100", "--dtype", "f64",
                "--layout", "t2t", "--base", "500", "-o", (dir / "pe64.npy").string()}).code == 0);
  const std::vector<double> d = readNpyDoubles(dir / "pe64.npy");
  REQUIRE(d.size() == 16 * 8);
  p.layout = posviz::SinusoidalLayout::Tensor2Tensor;
  p.base = 500.0;
  for (int row = 0; row < 16; ++row) {
    const std::vector<double> v = posviz::sinusoidalVector(p, 100.0 + row);
    for (int c = 0; c < 8; ++c) {
      CAPTURE(row);
      CAPTURE(c);
      CHECK(d[static_cast<std::size_t>(row * 8 + c)] == v[static_cast<std::size_t>(c)]);
    }
  }
}

TEST_CASE("cli: sinusoidal .csv and .json hold the same numbers") {
  const fs::path dir = scratch("formats");
  REQUIRE(runCli({"export", "sinusoidal", "--d-model", "4", "--positions", "3", "-o", (dir / "pe.csv").string()}).code == 0);
  REQUIRE(runCli({"export", "sinusoidal", "--d-model", "4", "--positions", "3", "-o", (dir / "pe.json").string()}).code == 0);
  posviz::SinusoidalParams p;
  p.dModel = 4;
  const posviz::Grid g = posviz::sinusoidalGrid(p, 3);
  std::istringstream csv(readText(dir / "pe.csv"));
  std::string line;
  int row = 0;
  while (std::getline(csv, line)) {
    if (line.rfind("#", 0) == 0) continue;
    std::istringstream cells(line);
    std::string cell;
    int col = 0;
    while (std::getline(cells, cell, ',')) {
      CAPTURE(row);
      CAPTURE(col);
      CHECK(std::stof(cell) == g.at(row, col));
      ++col;
    }
    CHECK(col == 4);
    ++row;
  }
  CHECK(row == 3);
  const json j = json::parse(readText(dir / "pe.json"));
  CHECK(j["shape"] == json::array({3, 4}));
  CHECK(j["view"] == "sinusoidal");
  CHECK(j["params"]["d_model"] == 4);
  CHECK(j["values"][2][1].get<float>() == g.at(2, 1));
}

TEST_CASE("cli: learned exports the seeded table, a loaded table, and refuses rows past max_len") {
  const fs::path dir = scratch("learned");
  REQUIRE(runCli({"export", "learned", "--seed", "7", "--max-len", "32", "--d-model", "16", "-o", (dir / "t.npy").string()}).code == 0);
  const posviz::NpyArray a = posviz::readNpy((dir / "t.npy").string());
  CHECK(a.shape == std::vector<std::int64_t>{32, 16});
  CHECK(a.data == posviz::learnedInit(32, 16, 7).values);

  const posviz::Grid table = posviz::learnedInit(10, 6, 3);
  posviz::saveLearnedTable((dir / "in.npy").string(), table);
  REQUIRE(runCli({"export", "learned", "--table", (dir / "in.npy").string(), "-o", (dir / "out.npy").string()}).code == 0);
  CHECK(posviz::readNpy((dir / "out.npy").string()).data == table.values);

  const CliRun past = runCli({"export", "learned", "--max-len", "32", "--d-model", "16", "--positions", "40", "-o",
                              (dir / "past.npy").string()});
  CHECK(past.code == 2);
  CHECK(contains(past.err, "--positions"));
  CHECK(contains(past.err, "max_len 32"));
  CHECK_FALSE(fs::exists(dir / "past.npy"));

  const CliRun preset = runCli({"export", "learned", "--preset", "gpt2", "--positions", "4", "-o", (dir / "gpt2.npy").string()});
  CHECK(preset.code == 0);
  CHECK(posviz::readNpy((dir / "gpt2.npy").string()).shape == std::vector<std::int64_t>{4, 768});
  const CliRun ceiling = runCli({"export", "learned", "--preset", "bert-base-uncased", "--positions", "1024", "-o",
                                 (dir / "bert.npy").string()});
  CHECK(ceiling.code == 2);
  CHECK(contains(ceiling.err, "512"));
  CHECK_FALSE(fs::exists(dir / "bert.npy"));

  std::ofstream(dir / "bad.npy") << "not an npy file";
  const CliRun bad = runCli({"export", "learned", "--table", (dir / "bad.npy").string(), "-o", (dir / "x.npy").string()});
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "--table"));
  CHECK_FALSE(fs::exists(dir / "x.npy"));
}

TEST_CASE("cli: rope-freqs of a preset: .json has inv_freq and attention_factor, .npy holds inv_freq") {
  const fs::path dir = scratch("rope-freqs");
  REQUIRE(runCli({"export", "rope-freqs", "--preset", "llama-3.1-8b", "-o", (dir / "f.json").string()}).code == 0);
  REQUIRE(runCli({"export", "rope-freqs", "--preset", "llama-3.1-8b", "--dtype", "f64", "-o", (dir / "f.npy").string()}).code == 0);
  const posviz::RopeFrequencies f = posviz::ropeFrequencies(posviz::cli::loadPreset("llama-3.1-8b").rope);
  const json j = json::parse(readText(dir / "f.json"));
  REQUIRE(j["inv_freq"].size() == 64);
  CHECK(j["method"] == "llama3");
  CHECK(j["attention_factor"].get<double>() == 1.0);
  CHECK(j["regime"][0] == "kept");
  CHECK(j["regime"][63] == "interpolated");
  for (std::size_t i = 0; i < 64; ++i) {
    CAPTURE(i);
    CHECK(j["inv_freq"][i].get<double>() == static_cast<double>(static_cast<float>(f.invFreq[i])));
  }
  const std::vector<double> d = readNpyDoubles(dir / "f.npy");
  CHECK(d == f.invFreq);

  REQUIRE(runCli({"export", "rope-freqs", "--head-dim", "64", "--scaling", "yarn", "--factor", "4",
                  "--original-max-positions", "2048", "--dtype", "f64", "-o", (dir / "y.json").string()}).code == 0);
  const json y = json::parse(readText(dir / "y.json"));
  // YaRN attention factor 0.1 * ln(4) + 1.
  CHECK(y["attention_factor"].get<double>() == doctest::Approx(0.1 * std::log(4.0) + 1.0));
  CHECK(y["params"]["scaling"]["method"] == "yarn");
}

TEST_CASE("cli: rope-rotate puts q at --position and k at --key-position and reports their score") {
  const fs::path dir = scratch("rope-rotate");
  REQUIRE(runCli({"export", "rope-rotate", "--q", "1,0", "--k", "1,0", "--base", "10000", "--position", "5",
                  "--key-position", "2", "--dtype", "f64", "-o", (dir / "r.json").string()}).code == 0);
  const json j = json::parse(readText(dir / "r.json"));
  // head_dim 2 (from --q): theta = 1 rad, q at angle 5, k at angle 2, score cos(3).
  CHECK(j["q"][0].get<double>() == doctest::Approx(std::cos(5.0)));
  CHECK(j["q"][1].get<double>() == doctest::Approx(std::sin(5.0)));
  CHECK(j["k"][0].get<double>() == doctest::Approx(std::cos(2.0)));
  CHECK(j["score"].get<double>() == doctest::Approx(std::cos(3.0)));

  const std::vector<float> q = {0.5f, -1.0f, 2.0f, 0.25f}, k = {1.0f, 1.0f, -0.5f, 3.0f};
  REQUIRE(runCli({"export", "rope-rotate", "--q", "0.5,-1,2,0.25", "--k", "1,1,-0.5,3", "--position", "7", "-o",
                  (dir / "r.npy").string()}).code == 0);
  const posviz::NpyArray a = posviz::readNpy((dir / "r.npy").string());
  CHECK(a.shape == std::vector<std::int64_t>{2, 4});
  posviz::RopeParams p;
  p.headDim = 4;
  const std::vector<float> rq = posviz::ropeRotate(p, std::span<const float>(q), 7.0);
  const std::vector<float> rk = posviz::ropeRotate(p, std::span<const float>(k), 7.0);  // key position defaults to M
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(a.data[i] == rq[i]);
    CHECK(a.data[4 + i] == rk[i]);
  }
}

TEST_CASE("cli: rope-angles, rope-scores and rope-decay match core") {
  const fs::path dir = scratch("rope-grids");
  REQUIRE(runCli({"export", "rope-angles", "--head-dim", "16", "--positions", "20", "--position", "3", "--layout",
                  "interleaved", "-o", (dir / "a.npy").string()}).code == 0);
  posviz::RopeParams p;
  p.headDim = 16;
  p.layout = posviz::RopeLayout::Interleaved;
  const posviz::NpyArray a = posviz::readNpy((dir / "a.npy").string());
  CHECK(a.shape == std::vector<std::int64_t>{20, 8});
  CHECK(a.data == posviz::ropeAngleGrid(p, 20, 3).values);

  REQUIRE(runCli({"export", "rope-scores", "--q", "1,2,3,4", "--k", "4,3,2,1", "--positions", "12", "-o",
                  (dir / "s.npy").string()}).code == 0);
  posviz::RopeParams p4;
  p4.headDim = 4;
  const std::vector<float> q = {1, 2, 3, 4}, k = {4, 3, 2, 1};
  const posviz::NpyArray s = posviz::readNpy((dir / "s.npy").string());
  CHECK(s.shape == std::vector<std::int64_t>{12, 12});
  CHECK(s.data == posviz::ropeScoreGrid(p4, q, k, 12).values);

  REQUIRE(runCli({"export", "rope-decay", "--head-dim", "32", "--positions", "50", "--dtype", "f64", "-o",
                  (dir / "d.npy").string()}).code == 0);
  posviz::RopeParams p32;
  p32.headDim = 32;
  const std::vector<double> bound = posviz::ropeDecayBound(p32, 49);
  const std::vector<double> d = readNpyDoubles(dir / "d.npy");
  REQUIRE(d.size() == 100);
  for (std::size_t i = 0; i < 50; ++i) {
    CHECK(d[2 * i] == static_cast<double>(i));
    CHECK(d[2 * i + 1] == bound[i]);
  }
  REQUIRE(runCli({"export", "rope-decay", "--head-dim", "32", "--positions", "3", "-o", (dir / "d.csv").string()}).code == 0);
  CHECK(readText(dir / "d.csv").rfind("distance,bound\n0,", 0) == 0);
}

TEST_CASE("cli: alibi-slopes is (heads,) and alibi-bias (heads, positions, positions) with -inf masks") {
  const fs::path dir = scratch("alibi");
  REQUIRE(runCli({"export", "alibi-slopes", "--heads", "12", "--dtype", "f64", "-o", (dir / "s.npy").string()}).code == 0);
  CHECK(readNpyDoubles(dir / "s.npy") == posviz::alibiSlopes(12));
  REQUIRE(runCli({"export", "alibi-slopes", "--preset", "bloom-560m", "-o", (dir / "bloom.npy").string()}).code == 0);
  CHECK(posviz::readNpy((dir / "bloom.npy").string()).shape == std::vector<std::int64_t>{16});

  REQUIRE(runCli({"export", "alibi-bias", "--heads", "4", "--positions", "5", "--causal", "-o", (dir / "b.npy").string()}).code == 0);
  const posviz::NpyArray b = posviz::readNpy((dir / "b.npy").string());
  CHECK(b.shape == std::vector<std::int64_t>{4, 5, 5});
  const std::vector<double> slopes = posviz::alibiSlopes(4);
  for (int h = 0; h < 4; ++h) {
    const posviz::Grid g = posviz::alibiBiasGrid(slopes[static_cast<std::size_t>(h)], 5, true);
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 5; ++j) {
        CAPTURE(h);
        CAPTURE(i);
        CAPTURE(j);
        const float v = b.data[static_cast<std::size_t>((h * 5 + i) * 5 + j)];
        if (j > i) {
          CHECK(std::isinf(v));
          CHECK(v < 0);
        } else {
          CHECK(v == g.at(i, j));
        }
      }
    }
  }
  // --head counts from 1: head 3 is slopes[2].
  REQUIRE(runCli({"export", "alibi-bias", "--heads", "4", "--head", "3", "--positions", "6", "-o", (dir / "h.npy").string()}).code == 0);
  const posviz::NpyArray h2 = posviz::readNpy((dir / "h.npy").string());
  CHECK(h2.shape == std::vector<std::int64_t>{6, 6});
  CHECK(h2.data[5] == static_cast<float>(-slopes[2] * 5.0));  // symmetric -m*|i-j| at (0, 5)
}

TEST_CASE("cli: attention exports weights and outputs of the toy sentence") {
  const fs::path dir = scratch("attention");
  REQUIRE(runCli({"export", "attention", "--text", "dog bites man", "--encoding", "rope", "-o", (dir / "a.json").string()}).code == 0);
  posviz::ToyModel m;
  const posviz::AttentionResult ref = posviz::toyAttention(m, {"dog", "bites", "man"}, posviz::PositionEncoding::Rope);
  const json j = json::parse(readText(dir / "a.json"));
  CHECK(j["tokens"] == json::array({"dog", "bites", "man"}));
  CHECK(j["encoding"] == "rope");
  REQUIRE(j["weights"].size() == 3);
  REQUIRE(j["output"][0].size() == 8);
  for (int i = 0; i < 3; ++i) {
    double rowSum = 0.0;
    for (int k = 0; k < 3; ++k) {
      CHECK(j["weights"][i][k].get<float>() == ref.weights.at(i, k));
      rowSum += j["weights"][i][k].get<double>();
    }
    CHECK(rowSum == doctest::Approx(1.0).epsilon(1e-6));
  }
  REQUIRE(runCli({"export", "attention", "--array", "output", "-o", (dir / "o.npy").string()}).code == 0);
  CHECK(posviz::readNpy((dir / "o.npy").string()).shape == std::vector<std::int64_t>{3, 8});
}

TEST_CASE("cli: a PNG without decorations has --scale pixels per cell in the colormap's colours") {
  const fs::path dir = scratch("png");
  REQUIRE(runCli({"export", "sinusoidal", "--d-model", "16", "--positions", "10", "--scale", "2", "--colormap", "rdbu",
                  "--no-colorbar", "--no-axis-titles", "--no-caption", "-o", (dir / "pe.png").string()}).code == 0);
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load((dir / "pe.png").string().c_str(), &w, &h, &n, 3);
  REQUIRE(px != nullptr);
  CHECK(w == 32);
  CHECK(h == 20);
  posviz::SinusoidalParams p;
  p.dModel = 16;
  const posviz::Grid g = posviz::sinusoidalGrid(p, 10);
  const posviz::ValueRange range = posviz::finiteRange(g);
  const float a = std::max(std::fabs(range.min), std::fabs(range.max));
  const posviz::ColorScale scale{posviz::Colormap::RdBu, -a, a};
  for (int r : {0, 3, 9}) {
    for (int c : {0, 1, 7, 15}) {
      CAPTURE(r);
      CAPTURE(c);
      const posviz::Rgba8 want = posviz::mapValue(scale, g.at(r, c));
      const unsigned char* pix = px + ((2 * r + 1) * w + 2 * c + 1) * 3;
      CHECK(static_cast<int>(pix[0]) == want.r);
      CHECK(static_cast<int>(pix[1]) == want.g);
      CHECK(static_cast<int>(pix[2]) == want.b);
    }
  }
  stbi_image_free(px);
  REQUIRE(runCli({"export", "alibi-bias", "--heads", "2", "--positions", "8", "--causal", "--colorbar", "--axis-titles",
                  "--caption", "auto", "-o", (dir / "bias.png").string()}).code == 0);
  px = stbi_load((dir / "bias.png").string().c_str(), &w, &h, &n, 3);
  REQUIRE(px != nullptr);
  CHECK(w > 8);
  CHECK(h > 16);
  stbi_image_free(px);
}

namespace {

// Where the cells of g, each scale x scale pixels of mapValue(s, value), lie in an image: the
// top-left pixel of cell (0, 0), or {-1, -1} when no placement matches every cell's centre and corners.
std::pair<int, int> findCells(const unsigned char* px, int w, int h, const posviz::Grid& g, const posviz::ColorScale& s,
                              int scale) {
  auto is = [&](int x, int y, posviz::Rgba8 c) {
    const unsigned char* p = px + (static_cast<std::size_t>(y) * w + x) * 3;
    return p[0] == c.r && p[1] == c.g && p[2] == c.b;
  };
  for (int y0 = 0; y0 + g.rows * scale <= h; ++y0) {
    for (int x0 = 0; x0 + g.cols * scale <= w; ++x0) {
      bool all = true;
      for (int r = 0; r < g.rows && all; ++r) {
        for (int c = 0; c < g.cols && all; ++c) {
          const posviz::Rgba8 want = posviz::mapValue(s, g.at(r, c));
          const int x = x0 + c * scale, y = y0 + r * scale;
          // Corners and the middle of the left edge: a small grid's cell prints its value in its centre.
          all = is(x, y, want) && is(x + scale - 1, y + scale - 1, want) && is(x, y + scale / 2, want);
        }
      }
      if (all) return {x0, y0};
    }
  }
  return {-1, -1};
}

// Pixels in [x0, x1) x [y0, y1) darker than 80 in every channel: text, on the white margin.
int darkPixels(const unsigned char* px, int w, int x0, int y0, int x1, int y1) {
  int n = 0;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) {
      const unsigned char* p = px + (static_cast<std::size_t>(y) * w + x) * 3;
      n += p[0] < 80 && p[1] < 80 && p[2] < 80;
    }
  }
  return n;
}

int pixelsOf(const unsigned char* px, int w, int x0, int y0, int x1, int y1, posviz::Rgba8 c) {
  int n = 0;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) {
      const unsigned char* p = px + (static_cast<std::size_t>(y) * w + x) * 3;
      n += p[0] == c.r && p[1] == c.g && p[2] == c.b;
    }
  }
  return n;
}

}  // namespace

TEST_CASE("cli: the documents' d_model = 8 PNG is a picture for people: 64 px cells, colorbar, axis titles") {
  const fs::path dir = scratch("readable");
  const CliRun run = runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "4", "-o", (dir / "pe.png").string()});
  REQUIRE_MESSAGE(run.code == 0, run.err);
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load((dir / "pe.png").string().c_str(), &w, &h, &n, 3);
  REQUIRE(px != nullptr);
  CHECK(w >= 512);   // the 8 columns are 8 x 64 = 512 px, with margins around them
  CHECK(h >= 256);
  posviz::SinusoidalParams p;
  p.dModel = 8;
  const posviz::Grid g = posviz::sinusoidalGrid(p, 4);
  const posviz::ColorScale scale = posviz::cli::autoColorScale(g, nullptr, false);
  // autoCellScale(4, 8) = ceil(512 / 8) = 64 pixels per cell side (the 4 rows need only 16 for 64 px).
  CHECK(posviz::cli::autoCellScale(4, 8) == 64);
  const auto [x0, y0] = findCells(px, w, h, g, scale, 64);
  REQUIRE(x0 >= 0);
  const int heatRight = x0 + 8 * 64, heatBottom = y0 + 4 * 64;
  // The colorbar right of the cells runs from the colormap's top colour to its bottom one.
  CHECK(pixelsOf(px, w, heatRight + 1, y0, w, heatBottom, posviz::colormapColor(scale.map, 1.0f)) >= 16);
  CHECK(pixelsOf(px, w, heatRight + 1, y0, w, heatBottom, posviz::colormapColor(scale.map, 0.0f)) >= 16);
  // Axis titles and index labels: dark text left of the cells and below them.
  CHECK(darkPixels(px, w, 0, y0, x0, heatBottom) > 50);
  CHECK(darkPixels(px, w, x0, heatBottom, heatRight, h) > 50);
  // The caption above: the view and its parameters.
  CHECK(darkPixels(px, w, 0, 0, w, y0) > 50);
  // A grid this small prints each value in its cell (PE(3, 0) = sin 3 = "0.1411" on a light cell):
  // the cell's centre holds dark text pixels, its corners none.
  CHECK(darkPixels(px, w, x0 + 10, y0 + 3 * 64 + 20, x0 + 54, y0 + 3 * 64 + 44) > 20);
  CHECK(darkPixels(px, w, x0, y0 + 3 * 64, x0 + 6, y0 + 3 * 64 + 6) == 0);
  stbi_image_free(px);

  // --plain: exactly one pixel per cell, nothing else.
  REQUIRE(runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "4", "--plain", "-o", (dir / "plain.png").string()})
              .code == 0);
  px = stbi_load((dir / "plain.png").string().c_str(), &w, &h, &n, 3);
  REQUIRE(px != nullptr);
  CHECK(w == 8);
  CHECK(h == 4);
  CHECK(findCells(px, w, h, g, scale, 1) == std::pair<int, int>{0, 0});
  stbi_image_free(px);

  // --scale N and --no-* override one default each.
  REQUIRE(runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "4", "--scale", "3", "--no-axis-titles", "--no-caption",
                  "-o", (dir / "s3.png").string()}).code == 0);
  px = stbi_load((dir / "s3.png").string().c_str(), &w, &h, &n, 3);
  REQUIRE(px != nullptr);
  const auto [sx, sy] = findCells(px, w, h, g, scale, 3);
  CHECK(sx >= 0);
  CHECK(w > 24);   // a colorbar right of the 24 px of cells
  stbi_image_free(px);
}

TEST_CASE("cli: picture defaults: small grids are scaled to be read, large ones stay one pixel per cell") {
  using posviz::cli::autoCellScale;
  CHECK(autoCellScale(4, 8) == 64);       // 512 x 256
  CHECK(autoCellScale(1, 1) == 512);
  CHECK(autoCellScale(3, 1) == 171);      // ceil(512 / 3)
  CHECK(autoCellScale(2, 64) == 32);      // 2048 x 64, not a 512 x 16 strip
  CHECK(autoCellScale(300, 2) == 6);      // 32 would make the 300 rows 9600 px: capped at floor(2048 / 300)
  CHECK(autoCellScale(511, 511) == 2);    // 1022 x 1022
  CHECK(autoCellScale(512, 64) == 1);     // the learned tab's table: already readable
  CHECK(autoCellScale(2048, 3) == 1);     // too long to widen
  CHECK(autoCellScale(131072, 128) == 1);
  // The rule, over many shapes: the smallest scale that reaches 512 px along the longer side and
  // 64 px along the shorter one, without a scaled side past 2048 px.
  const long long sides[] = {1, 2, 3, 5, 8, 13, 21, 34, 63, 64, 100, 255, 511, 512, 513, 1000, 1024, 2047, 2048, 5000};
  for (long long rows : sides) {
    for (long long cols : sides) {
      CAPTURE(rows);
      CAPTURE(cols);
      const long long s = autoCellScale(rows, cols);
      const long long longer = std::max(rows, cols), shorter = std::min(rows, cols);
      REQUIRE(s >= 1);
      if (s > 1) CHECK(longer * s <= 2048);
      const bool capped = longer * (s + 1) > 2048;
      CHECK((longer * s >= 512 || capped));
      CHECK((shorter * s >= 64 || capped));
      CHECK((s == 1 || longer * (s - 1) < 512 || shorter * (s - 1) < 64));   // no larger than needed
      CHECK(static_cast<std::uint64_t>(rows * s) * static_cast<std::uint64_t>(cols * s) <=
            std::max<std::uint64_t>(posviz::cli::kMaxAutoScaledPixels, static_cast<std::uint64_t>(rows * cols)));
    }
  }
  const fs::path dir = scratch("readable-size");
  // 1000 positions averaged to 8 x 4: the picture is scaled like any 8 x 4 grid.
  REQUIRE(runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "1000", "--size", "8x4", "-o", (dir / "a.png").string()})
              .code == 0);
  int w = 0, h = 0, n = 0;
  REQUIRE(stbi_info((dir / "a.png").string().c_str(), &w, &h, &n) == 1);
  CHECK(w >= 512);
  REQUIRE(runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "1000", "--size", "8x4", "--plain", "-o",
                  (dir / "b.png").string()}).code == 0);
  REQUIRE(stbi_info((dir / "b.png").string().c_str(), &w, &h, &n) == 1);
  CHECK(w == 8);
  CHECK(h == 4);
  // A 2048 x 16 grid is too long to widen: one pixel per cell.
  REQUIRE(runCli({"export", "sinusoidal", "--d-model", "16", "--positions", "2048", "--no-colorbar", "--no-axis-titles",
                  "--no-caption", "-o", (dir / "c.png").string()}).code == 0);
  REQUIRE(stbi_info((dir / "c.png").string().c_str(), &w, &h, &n) == 1);
  CHECK(w == 16);
  CHECK(h == 2048);
  // 600 x 16: the 16 columns widened to 48 px (scale 3: 1800 px tall, the most under 2048).
  REQUIRE(runCli({"export", "sinusoidal", "--d-model", "16", "--positions", "600", "--no-colorbar", "--no-axis-titles",
                  "--no-caption", "-o", (dir / "d.png").string()}).code == 0);
  REQUIRE(stbi_info((dir / "d.png").string().c_str(), &w, &h, &n) == 1);
  CHECK(w == 48);
  CHECK(h == 1800);
}

TEST_CASE("cli: the memory budget counts the scaled picture, and --plain only the cells") {
  const fs::path dir = scratch("readable-budget");
  // 32 float32 cells = 128 B, but the readable picture may hold up to 2048 x 2048 RGB pixels (12 MiB).
  const CliRun big = runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "4", "--budget", "4M", "-o",
                             (dir / "x.png").string()});
  CHECK(big.code == 2);
  CHECK(contains(big.err, "scaled to be readable"));
  CHECK(contains(big.err, "needs 12.0 MiB"));
  CHECK(filesIn(dir) == 0);
  CHECK(runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "4", "--budget", "4M", "--plain", "-o",
                (dir / "x.png").string()}).code == 0);
  // --scale 1000 on 32 cells: 32 x 1000^2 x 3 bytes of pixels, plus 4 per value.
  const CliRun scaled = runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "4", "--scale", "1000", "--budget", "64M",
                                "-o", (dir / "y.png").string()});
  CHECK(scaled.code == 2);
  CHECK(contains(scaled.err, "--scale 1000"));
  CHECK(contains(scaled.err, "needs 91.6 MiB"));
  // A grid too large to draw whole is pointed at --size.
  const CliRun huge = runCli({"export", "rope-scores", "--positions", "131072", "-o", (dir / "s.png").string()});
  CHECK(huge.code == 2);
  CHECK(contains(huge.err, "--size WxH"));
}

TEST_CASE("cli: SVG defaults match the PNG: readable size, colorbar, axis titles in text") {
  const fs::path dir = scratch("readable-svg");
  REQUIRE(runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "4", "-o", (dir / "pe.svg").string()}).code == 0);
  const std::string svg = readText(dir / "pe.svg");
  const std::size_t at = svg.find("<svg ");
  REQUIRE(at != std::string::npos);
  CHECK(std::stoi(svg.substr(svg.find("width=\"", at) + 7)) >= 512);
  CHECK(contains(svg, ">dimension</text>"));
  CHECK(contains(svg, "rotate(-90)\" text-anchor=\"middle\">position</text>"));
  CHECK(contains(svg, "fill=\"url(#colorbar)\""));
  // The caption in words: what the view shows, then its parameters by their labels.
  CHECK(contains(svg, ">sinusoidal PE matrix: d_model 8, base 10000"));
  CHECK(contains(svg, "width=\"64\" height=\"64\""));
  REQUIRE(runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "4", "--plain", "-o", (dir / "plain.svg").string()})
              .code == 0);
  const std::string plain = readText(dir / "plain.svg");
  CHECK(contains(plain, "width=\"8\" height=\"4\""));
  CHECK_FALSE(contains(plain, "<text"));
}

TEST_CASE("cli: contradictory picture options are refused, naming both") {
  const fs::path dir = scratch("readable-refused");
  const std::string out = (dir / "x.png").string();
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const Case cases[] = {
      {{"--plain", "--colorbar"}, "--plain: one pixel per cell without decorations, but --colorbar asks for one"},
      {{"--plain", "--axis-titles"}, "--plain: one pixel per cell without decorations, but --axis-titles asks for one"},
      {{"--plain", "--caption", "auto"}, "--plain: one pixel per cell without decorations, but --caption asks for one"},
      {{"--plain", "--scale", "4"}, "--plain: one pixel per cell, but --scale 4 asks for more"},
      {{"--colorbar", "--no-colorbar"}, "--colorbar: given together with --no-colorbar"},
      {{"--axis-titles", "--no-axis-titles"}, "--axis-titles: given together with --no-axis-titles"},
      {{"--caption", "x", "--no-caption"}, "--caption: given together with --no-caption"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"export", "sinusoidal"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"-o", out});
    const CliRun r = runCli(args);
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.rfind("posviz export: " + c.message, 0) == 0);
  }
  CHECK(runCli({"export", "sinusoidal", "--plain", "-o", (dir / "x.npy").string()}).err ==
        "posviz export: --plain: applies to .png and .svg output only, not .npy\n");
  // Redundant but not contradictory: --plain with --no-colorbar.
  CHECK(runCli({"export", "sinusoidal", "--plain", "--no-colorbar", "-o", out}).code == 0);
}

TEST_CASE("cli: a bare posviz export prints a short usage on stderr; export --help the full help") {
  const CliRun bare = runCli({"export"});
  CHECK(bare.code == 2);
  CHECK(bare.out.empty());
  const auto lines = std::count(bare.err.begin(), bare.err.end(), '\n');
  CHECK(lines <= 15);
  CHECK(bare.err.rfind("posviz export: a view is required\n", 0) == 0);
  for (const char* part : {"usage: posviz export VIEW", "sinusoidal", "attention", "example: posviz export sinusoidal --d-model 8",
                           "posviz export VIEW --help", "posviz export --help"}) {
    CAPTURE(part);
    CHECK(contains(bare.err, part));
  }
  const CliRun help = runCli({"export", "--help"});
  CHECK(help.code == 0);
  CHECK(help.err.empty());
  CHECK(std::count(help.out.begin(), help.out.end(), '\n') > 40);
  for (const char* part : {"--plain ", "--no-caption ", "512 px along its longer side", "default \"auto\""}) {
    CAPTURE(part);
    CHECK(contains(help.out, part));
  }
  const CliRun view = runCli({"export", "alibi-bias", "--help"});
  CHECK(contains(view.out, "Pictures (.png, .svg) are made to be read"));
  CHECK(contains(view.out, "--plain "));
  CHECK(contains(runCli({"export", "rope-freqs", "--help"}).out, ".png and .svg are not available"));
}

TEST_CASE("cli: every CSV ends with a newline") {
  const fs::path dir = scratch("csv-newline");
  const std::vector<std::vector<std::string>> cases = {
      {"sinusoidal", "--d-model", "4", "--positions", "3"},
      {"sinusoidal", "--d-model", "4", "--positions", "3", "--dtype", "f64"},
      {"learned", "--d-model", "4", "--positions", "3"},
      {"rope-freqs"},
      {"rope-angles", "--head-dim", "4", "--positions", "3"},
      {"rope-rotate", "--head-dim", "4"},
      {"rope-scores", "--head-dim", "4", "--positions", "3"},
      {"rope-decay", "--positions", "3"},
      {"mrope-angles", "--preset", "qwen2.5-vl-7b"},
      {"alibi-slopes"},
      {"alibi-bias", "--heads", "2", "--positions", "3"},
      {"attention"},
  };
  for (std::vector<std::string> args : cases) {
    CAPTURE(args[0]);
    args.insert(args.begin(), "export");
    args.insert(args.end(), {"-o", (dir / "x.csv").string()});
    const CliRun r = runCli(args);
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const std::string text = readText(dir / "x.csv");
    REQUIRE_FALSE(text.empty());
    CHECK(text.back() == '\n');
    CHECK(text.find("\n\n") == std::string::npos);
  }
}

TEST_CASE("cli: errors name the command once") {
  const fs::path dir = scratch("prefix");
  const std::string out = (dir / "x.npy").string();
  const std::vector<std::vector<std::string>> bad = {
      {"export", "foo", "-o", out},
      {"export", "--d-model", "8"},
      {"export", "examples", "-o", out},
      {"export", "sinusoidal", "stray", "-o", out},
      {"export", "sinusoidal", "--bogus", "-o", out},
      {"export", "sinusoidal", "-o", (dir / "x.txt").string()},
      {"export", "sinusoidal", "--plain", "--colorbar", "-o", (dir / "x.png").string()},
      {"export", "rope-freqs", "--preset", "nope", "-o", out},
      {"export", "rope-freqs", "--config", (dir / "missing.json").string(), "-o", out},
      {"export", "sinusoidal", "-o", (dir / "missing" / "x.npy").string()},
      {"model"},
      {"model", "--bogus"},
      {"model", "--preset", "nope"},
  };  // posviz examples writes with stdio, out of this runner's reach: tests/scripts/cli_errors.sh covers it
  for (const auto& args : bad) {
    const CliRun r = runCli(args);
    CAPTURE(r.err);
    CHECK(r.code != 0);
    const std::string first = r.err.substr(0, r.err.find('\n'));
    const std::string prefix = "posviz " + args[0] + ": ";
    REQUIRE(first.rfind(prefix, 0) == 0);
    const std::string rest = first.substr(prefix.size());
    for (const char* doubled : {"export:", "export ", "model:", "examples:", "posviz"}) {
      CAPTURE(doubled);
      CHECK(rest.rfind(doubled, 0) != 0);
    }
  }
  CHECK(runCli({"export", "foo", "-o", out}).err.rfind("posviz export: unknown view \"foo\"; views: sinusoidal, ", 0) == 0);
  CHECK(posviz::cli::checkExportArguments({"foo", "-o", out}).rfind("unknown view \"foo\"", 0) == 0);
}

TEST_CASE("cli: config files and presets feed the views; flags override them") {
  const fs::path dir = scratch("config");
  std::ofstream(dir / "config.json") << R"({"hidden_size": 512, "num_attention_heads": 8, "rope_theta": 50000,
      "max_position_embeddings": 4096, "rope_scaling": {"rope_type": "linear", "factor": 2}})";
  REQUIRE(runCli({"export", "rope-freqs", "--config", (dir / "config.json").string(), "--dtype", "f64", "-o",
                  (dir / "f.json").string()}).code == 0);
  const json j = json::parse(readText(dir / "f.json"));
  CHECK(j["params"]["head_dim"] == 64);
  CHECK(j["params"]["base"].get<double>() == 50000.0);
  CHECK(j["method"] == "linear");
  CHECK(j["inv_freq"][0].get<double>() == doctest::Approx(0.5));  // theta_0 = 1, divided by 2
  REQUIRE(runCli({"export", "rope-freqs", "--config", (dir / "config.json").string(), "--scaling", "none", "--base",
                  "10000", "-o", (dir / "g.json").string()}).code == 0);
  const json g = json::parse(readText(dir / "g.json"));
  CHECK(g["method"] == "none");
  CHECK(g["params"]["base"].get<double>() == 10000.0);
  CHECK(g["inv_freq"][0].get<double>() == 1.0);

  const CliRun wrongKind = runCli({"export", "alibi-slopes", "--preset", "llama-2-7b", "-o", (dir / "x.npy").string()});
  CHECK(wrongKind.code == 2);
  CHECK(contains(wrongKind.err, "uses RoPE"));
  std::ofstream(dir / "bad.json") << R"({"hidden_size": 512, "num_attention_heads": 8, "rope_scaling": {"type": "warp", "factor": 2}})";
  const CliRun badConfig = runCli({"export", "rope-freqs", "--config", (dir / "bad.json").string(), "-o", (dir / "x.json").string()});
  CHECK(badConfig.code == 2);
  CHECK(contains(badConfig.err, "rope_scaling.type"));
  CHECK(contains(badConfig.err, "warp"));
  const CliRun missing = runCli({"export", "rope-freqs", "--config", (dir / "nope.json").string(), "-o", (dir / "x.json").string()});
  CHECK(missing.code == 2);
  CHECK(contains(missing.err, "nope.json"));
  const CliRun unknown = runCli({"export", "rope-freqs", "--preset", "llama-9", "-o", (dir / "x.json").string()});
  CHECK(unknown.code == 2);
  CHECK(contains(unknown.err, "llama-3.1-8b"));
  CHECK_FALSE(fs::exists(dir / "x.json"));
  CHECK_FALSE(fs::exists(dir / "x.npy"));
}

TEST_CASE("cli: every numeric option rejects 0/negative where not allowed, NaN, inf, huge, junk and empty") {
  const fs::path dir = scratch("bad-numbers");
  struct Opt {
    std::vector<std::string> args;  // view and other options; the value goes after the last element
    std::vector<std::string> bad;
  };
  const std::vector<std::string> common = {"nan", "NaN", "inf", "-inf", "1e999", "abc", "", "12x", " 5", "0x10"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), common.begin(), common.end());
    return extra;
  };
  const std::vector<Opt> opts = {
      {{"sinusoidal", "--d-model"}, with({"0", "-2", "63", "99999999999999999999", "4.0"})},
      {{"rope-freqs", "--head-dim"}, with({"0", "-8", "7", "2097152"})},
      {{"rope-freqs", "--base"}, with({"0", "-10", "1", "0.5"})},
      {{"sinusoidal", "--positions"}, with({"0", "-1", "2147483648", "1.5"})},
      {{"sinusoidal", "--position"}, with({"-1", "2.5"})},
      {{"rope-rotate", "--position"}, with({"-1"})},
      {{"rope-rotate", "--key-position"}, with({"-0.5"})},
      {{"alibi-slopes", "--heads"}, with({"0", "-4", "65537"})},
      {{"alibi-bias", "--heads", "4", "--head"}, with({"0", "-1", "5"})},
      {{"alibi-bias", "--slope"}, with({"0", "-0.5", "nan", "1e7"})},
      {{"rope-freqs", "--scaling", "linear", "--factor"}, with({"0", "-2", "0.5"})},
      {{"rope-freqs", "--scaling", "yarn", "--original-max-positions"}, with({"0", "-4096", "3000000000"})},
      {{"rope-freqs", "--scaling", "dynamic", "--seq-len"}, with({"-1"})},   // 0 = L0, core's default
      {{"rope-freqs", "--scaling", "yarn", "--beta-fast"}, with({"0", "-32", "0.5"})},
      {{"rope-freqs", "--scaling", "yarn", "--beta-slow"}, with({"0", "-1", "64"})},
      {{"rope-freqs", "--scaling", "llama3", "--factor", "8", "--low-freq-factor"}, with({"0", "-1", "4"})},
      {{"rope-freqs", "--scaling", "llama3", "--factor", "8", "--high-freq-factor"}, with({"0", "-4", "1"})},
      {{"rope-freqs", "--scaling", "yarn", "--mscale"}, with({"-1"})},           // 0 = unset, core's default
      {{"rope-freqs", "--scaling", "yarn", "--mscale-all-dim"}, with({"-1"})},
      {{"rope-freqs", "--scaling", "yarn", "--attention-factor"}, with({"0", "-1"})},
      {{"rope-freqs", "--rotary-fraction"}, with({"0", "-0.5", "1.5", "0.001"})},
      {{"rope-freqs", "--head-dim", "4", "--scaling", "longrope", "--long-factor", "1,1", "--short-factor"},
       with({"0,1", "-1,1", "1,nan", "1,,1", "1,2,3", "1", ",", "1,abc"})},
      {{"rope-rotate", "--q"}, with({"1,2,nan", "1,,2", "1,inf", "1,2,3"})},
      {{"learned", "--seed"}, with({"-1", "18446744073709551616", "1.5"})},
      {{"learned", "--max-len"}, with({"0", "-1"})},
      {{"sinusoidal", "--scale"}, with({"0", "-1", "4097", "2.5"})},
      {{"sinusoidal", "--budget"}, with({"0", "-1", "5X", "99999999999999999999G", "1.5G"})},
  };
  for (const Opt& o : opts) {
    const std::string flag = o.args.back();
    for (const std::string& value : o.bad) {
      std::vector<std::string> args = {"export"};
      args.insert(args.end(), o.args.begin(), o.args.end());
      args.push_back(value);
      const bool png = flag == "--scale";
      const fs::path out = dir / (png ? "out.png" : (o.args[0] == "rope-freqs" || o.args[0] == "rope-rotate" ? "out.json" : "out.npy"));
      args.push_back("-o");
      args.push_back(out.string());
      CAPTURE(flag);
      CAPTURE(value);
      const CliRun r = runCli(args);
      CAPTURE(r.err);
      CHECK(r.code == 2);
      CHECK(contains(r.err, flag));
      CHECK(r.out.empty());
      CHECK(filesIn(dir) == 0);
    }
  }
}

TEST_CASE("cli: usage errors name the view, option or value and leave no file") {
  const fs::path dir = scratch("usage");
  const std::string out = (dir / "out.npy").string();
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> mustContain;
  };
  const std::vector<Case> cases = {
      {{"export", "spiral", "-o", out}, {"unknown view \"spiral\"", "sinusoidal"}},
      {{"export", "--d-model", "8"}, {"view comes first"}},
      {{"export", "sinusoidal", "--dmodel", "8", "-o", out}, {"unknown option \"--dmodel\"", "--d-model"}},
      {{"export", "sinusoidal", "--heads", "8", "-o", out}, {"--heads", "does not apply to view sinusoidal"}},
      {{"export", "sinusoidal"}, {"-o", "required"}},
      {{"export", "sinusoidal", "-o", (dir / "out.txt").string()}, {"out.txt", ".png, .svg, .npy, .csv or .json"}},
      {{"export", "sinusoidal", "-o"}, {"-o", "needs a value"}},
      {{"export", "sinusoidal", "--positions", "8", "--positions", "9", "-o", out}, {"--positions", "more than once"}},
      {{"export", "sinusoidal", "--causal", "-o", out}, {"--causal", "does not apply"}},
      {{"export", "alibi-bias", "--causal=yes", "-o", out}, {"--causal", "takes no value"}},
      {{"export", "sinusoidal", "extra", "-o", out}, {"unexpected argument \"extra\""}},
      {{"export", "sinusoidal", "--layout", "half-split", "-o", out}, {"--layout", "half-split", "interleaved|t2t"}},
      {{"export", "rope-angles", "--layout", "t2t", "-o", out}, {"--layout", "t2t", "half-split|interleaved"}},
      {{"export", "rope-freqs", "--scaling", "warp", "-o", out}, {"--scaling", "warp", "none|linear|ntk|dynamic|yarn|llama3|longrope"}},
      {{"export", "rope-freqs", "--factor", "4", "-o", out}, {"--factor", "needs --scaling"}},
      {{"export", "rope-freqs", "--scaling", "yarn", "--factor", "4", "--beta-fast", "2", "--beta-slow", "3", "-o", out}, {"--beta-fast", "--beta-slow"}},
      {{"export", "rope-freqs", "--scaling", "longrope", "--head-dim", "8", "--short-factor", "1,1,1,1", "-o", out}, {"--long-factor", "has 0 values, expected 4"}},
      {{"export", "rope-rotate", "--head-dim", "4", "--q", "1,2", "-o", out}, {"--q", "has 2 values, expected head_dim 4"}},
      {{"export", "rope-freqs", "--scaling", "ntk", "--factor", "2", "--head-dim", "2", "-o", out}, {"--scaling", "4 rotary dims"}},
      {{"export", "rope-decay", "-o", (dir / "d.png").string()}, {".png is not available", "rope-decay"}},
      {{"export", "sinusoidal", "--dtype", "f16", "-o", out}, {"--dtype", "f16", "f32|f64"}},
      {{"export", "sinusoidal", "--dtype", "f64", "-o", (dir / "a.png").string()}, {"--dtype", ".png"}},
      {{"export", "sinusoidal", "--colormap", "jet", "-o", (dir / "a.png").string()}, {"--colormap", "jet", "viridis"}},
      {{"export", "sinusoidal", "--colormap", "magma", "-o", out}, {"--colormap", "applies to .png"}},
      {{"export", "sinusoidal", "--caption", "", "-o", (dir / "a.png").string()}, {"--caption"}},
      {{"export", "attention", "--encoding", "relative", "-o", out}, {"--encoding", "relative", "none|sinusoidal|learned|rope|alibi"}},
      {{"export", "attention", "--text", "   ", "-o", out}, {"--text", "at least one word"}},
      {{"export", "learned", "--table", (dir / "missing.npy").string(), "-o", out}, {"--table", "missing.npy"}},
      {{"export", "learned", "--table", (dir / "t.npy").string(), "--seed", "3", "-o", out}, {"--seed", "does not apply with --table"}},
      {{"export", "rope-freqs", "--config", "a.json", "--preset", "gpt2", "-o", out}, {"--config", "--preset"}},
      {{"export", "sinusoidal", "-o", dir.string()}, {"is a directory"}},
  };
  for (const Case& c : cases) {
    std::string joined;
    for (const std::string& a : c.args) joined += a + " ";
    CAPTURE(joined);
    const CliRun r = runCli(c.args);
    CAPTURE(r.err);
    CHECK(r.code == 2);
    for (const std::string& part : c.mustContain) {
      CAPTURE(part);
      CHECK(contains(r.err, part));
    }
    CHECK(filesIn(dir) == 0);
  }
  const CliRun noView = runCli({"export"});  // the export help, as a usage error on stderr
  CHECK(noView.code == 2);
  CHECK(noView.out.empty());
  CHECK(contains(noView.err, "a view is required"));
}

TEST_CASE("cli: a request over the memory budget is refused before any work, with the size it needs") {
  const fs::path dir = scratch("budget");
  const CliRun r = runCli({"export", "sinusoidal", "--positions", "1000000", "--d-model", "1024", "--budget", "64M", "-o",
                           (dir / "big.npy").string()});
  CHECK(r.code == 2);
  CHECK(contains(r.err, "memory budget"));
  CHECK(contains(r.err, "3.81 GiB"));  // 1e6 x 1024 x 4 bytes
  const CliRun bias = runCli({"export", "alibi-bias", "--heads", "65536", "--positions", "2147483647", "-o",
                              (dir / "huge.npy").string()});
  CHECK(bias.code == 2);
  CHECK(contains(bias.err, "memory budget"));
  CHECK(filesIn(dir) == 0);
  CHECK(posviz::memoryBudgetBytes() == posviz::kDefaultMemoryBudgetBytes);  // --budget applies to one export
}

TEST_CASE("cli: the 1-D and document views have sizes too: a small --budget refuses them before any work") {
  const fs::path dir = scratch("budget-small-views");
  struct Case {
    std::vector<std::string> args;
    std::string size;
  };
  const std::vector<Case> cases = {
      // 524288 pairs x 5 numbers x 64 bytes of JSON document
      {{"export", "rope-freqs", "--head-dim", "1048576"}, "160.0 MiB"},
      {{"export", "alibi-slopes", "--heads", "65536"}, "8.0 MiB"},           // 65536 x 2 x 64
      {{"export", "rope-rotate", "--head-dim", "1048576"}, "256.0 MiB"},     // 2^20 x 4 x 64
      {{"export", "attention", "--text", "a b c d e f g h"}, "8.0 KiB"},     // 8 x (8 + 8) x 64
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    for (const char* a : {"--budget", "1K", "-o"}) args.emplace_back(a);
    args.push_back((dir / "x.json").string());
    const CliRun r = runCli(args);
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(contains(r.err, "needs " + c.size));
    CHECK(contains(r.err, "over the memory budget of 1.0 KiB"));
  }
  CHECK(filesIn(dir) == 0);
  // A PNG counts its pixels next to the float32 grid: 65536 x 256 x (4 + 3) bytes = 112 MiB.
  const CliRun png = runCli({"export", "sinusoidal", "--positions", "65536", "--d-model", "256", "--budget", "96M", "-o",
                             (dir / "x.png").string()});
  CHECK(png.code == 2);
  CHECK(contains(png.err, "picture's pixels"));
  CHECK(contains(png.err, "needs 112.0 MiB"));
  CHECK(filesIn(dir) == 0);
}

TEST_CASE("cli: ranges that keep results finite, and a result that would overflow is refused") {
  const fs::path dir = scratch("finite");
  const std::string json = (dir / "x.json").string();
  const CliRun wide = runCli({"export", "attention", "--d-model", "8192", "-o", json});
  CHECK(wide.code == 2);
  CHECK(contains(wide.err, "--d-model"));
  CHECK(contains(wide.err, "[2, 4096]"));
  const CliRun af = runCli({"export", "rope-freqs", "--head-dim", "8", "--scaling", "yarn", "--factor", "2",
                            "--attention-factor", "1e300", "-o", json});
  CHECK(af.code == 2);
  CHECK(contains(af.err, "--attention-factor"));
  CHECK(contains(af.err, "(0, 1000000]"));
  CHECK(filesIn(dir) == 0);
  REQUIRE(runCli({"export", "rope-freqs", "--head-dim", "8", "--scaling", "yarn", "--factor", "2", "--attention-factor",
                  "1000000", "-o", json}).code == 0);
  CHECK(json::parse(readText(json))["attention_factor"].get<double>() == 1e6);
  fs::remove(json);

  // <R_M q, R_N k> with q = k = (1e30, 1e30) at M = N is 2e60: past float32, within float64.
  const std::vector<std::string> big = {"export", "rope-rotate", "--q", "1e30,1e30", "--k", "1e30,1e30", "-o", json};
  const CliRun f32 = runCli(big);
  CHECK(f32.code == 2);
  CHECK(contains(f32.err, "inf at score"));
  CHECK(contains(f32.err, "--q"));
  CHECK(contains(f32.err, "--dtype f64"));
  CHECK(f32.out.empty());
  CHECK(filesIn(dir) == 0);
  std::vector<std::string> wider = big;
  wider.insert(wider.end() - 2, {"--dtype", "f64"});
  REQUIRE(runCli(wider).code == 0);
  CHECK(json::parse(readText(json))["score"].get<double>() == doctest::Approx(2e60));
  fs::remove(json);
  const CliRun grid = runCli({"export", "rope-scores", "--q", "1e30,1e30", "--positions", "3", "-o", (dir / "s.npy").string()});
  CHECK(grid.code == 2);
  CHECK(contains(grid.err, "inf at value index 0"));
  CHECK(filesIn(dir) == 0);
  // Masked ALiBi entries are -inf by design and stay allowed.
  REQUIRE(runCli({"export", "alibi-bias", "--heads", "2", "--positions", "3", "--causal", "-o", (dir / "b.npy").string()}).code == 0);
}

TEST_CASE("cli: an unwritable destination is a runtime failure (exit 1) that leaves no file") {
  const fs::path dir = scratch("unwritable");
  const CliRun missingDir = runCli({"export", "alibi-slopes", "-o", (dir / "no" / "such" / "s.npy").string()});
  CHECK(missingDir.code == 1);
  CHECK(contains(missingDir.err, "does not exist"));
  if (::geteuid() == 0) {
    MESSAGE("running as root: directory permissions are not enforced, read-only directory check skipped");
  } else {
    const fs::path ro = dir / "ro";
    fs::create_directories(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    const CliRun r = runCli({"export", "alibi-slopes", "-o", (ro / "s.npy").string()});
    CHECK(r.code == 1);
    CHECK(contains(r.err, "not writable"));
    fs::permissions(ro, fs::perms::owner_all);
    CHECK(filesIn(ro) == 0);
  }
}

TEST_CASE("cli: checkExportArguments validates without writing, and agrees with runCli") {
  const fs::path dir = scratch("check");
  const std::string out = (dir / "x.npy").string();
  CHECK(posviz::cli::checkExportArguments({"sinusoidal", "--d-model", "8", "-o", out}) == "");
  CHECK(posviz::cli::checkExportArguments({"rope-freqs", "--preset", "phi-3-mini-128k", "-o", out}) == "");
  const std::vector<std::vector<std::string>> bad = {
      {"sinusoidal", "--d-model", "7", "-o", out},
      {"sinusoidal", "--positions", "nan", "-o", out},
      {"spiral", "-o", out},
      {"rope-freqs", "--preset", "bloom-560m", "-o", out},
      {"sinusoidal", "--positions", "2000000000", "--d-model", "1048576", "-o", out},
      {},
  };
  for (const auto& args : bad) {
    const std::string msg = posviz::cli::checkExportArguments(args);
    CAPTURE(msg);
    CHECK_FALSE(msg.empty());
    std::vector<std::string> full = {"export"};
    full.insert(full.end(), args.begin(), args.end());
    CHECK(runCli(full).code == 2);
  }
  CHECK(filesIn(dir) == 0);
  CHECK(posviz::memoryBudgetBytes() == posviz::kDefaultMemoryBudgetBytes);
}

TEST_CASE("cli_args: the parser's own rules") {
  using posviz::cli::OptionSpec;
  using posviz::cli::UsageError;
  const std::vector<OptionSpec> specs = {{"--n", true, "N", ""}, {"--flag", false, "", ""}};
  const posviz::cli::ParsedOptions o = posviz::cli::parseOptions({"a", "--n=-3", "--flag", "--", "--n"}, specs);
  CHECK(o.value("--n") == std::optional<std::string>("-3"));
  CHECK(o.has("--flag"));
  CHECK(o.positional == std::vector<std::string>{"a", "--n"});
  CHECK(posviz::cli::parseOptions({"--n", "-5"}, specs).value("--n") == std::optional<std::string>("-5"));
  CHECK_THROWS_WITH_AS(posviz::cli::parseOptions({"--nn", "1"}, specs), doctest::Contains("did you mean --n"), UsageError);
  CHECK(posviz::cli::parseIntOption("--n", "42", 1, 100) == 42);
  CHECK_THROWS_WITH_AS(posviz::cli::parseIntOption("--n", "101", 1, 100), "--n: got \"101\" (out of range), expected an integer in [1, 100]", UsageError);
  CHECK(posviz::cli::parseRealOption("--x", "+2.5e3", {}) == 2500.0);
  CHECK_THROWS_WITH_AS(posviz::cli::parseRealOption("--x", "1", {1.0, 1e300, true, false}), doctest::Contains("expected a number > 1"), UsageError);
  CHECK(posviz::cli::parseRealListOption("--q", "1,-2.5,3e-1", {}) == std::vector<double>{1.0, -2.5, 0.3});
  CHECK(posviz::cli::parseByteSizeOption("--b", "2G") == (2ull << 30));
  CHECK(posviz::cli::parseByteSizeOption("--b", "512KiB") == (512ull << 10));
  CHECK(posviz::cli::parseByteSizeOption("--b", "1000") == 1000ull);
  CHECK_THROWS_AS(posviz::cli::parseByteSizeOption("--b", "17179869184T"), UsageError);
  CHECK(posviz::cli::parseChoiceOption("--c", "b", {"a", "b"}) == "b");
  CHECK_THROWS_WITH_AS(posviz::cli::parseChoiceOption("--c", "B", {"a", "b"}), "--c: got \"B\", expected one of a|b", UsageError);
  CHECK_THROWS_WITH_AS(posviz::cli::parseIntOption("--n", std::string("1\n2"), 1, 100), doctest::Contains("\\x0a"), UsageError);
}

}  // TEST_SUITE
