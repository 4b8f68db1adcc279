// posviz export axial-angles / axial-scores / nope-temperature (app/cli/views/axial.cpp): files
// read back hold naver-ai/rope-vit's angles and scores (models/vit_rope.py compute_axial_cis,
// numbers from that code in torch, as in tests/core/test_axial_rope.cpp) and Llama 4's NoPE-layer
// scale (HF modeling_llama4.py Llama4TextAttention); bad flags are named.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/npy.hpp"
#include "tests/support/cli_support.hpp"

namespace fs = std::filesystem;
using posviz::test::CliRun;
using posviz::test::runCli;

namespace {

fs::path out(const std::string& name) {
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "cli_axial";
  fs::create_directories(dir);
  return dir / name;
}

const char* kQ = "1,0.5,-0.25,2,0.75,-1,0.5,0.125";
const char* kK = "0.3,-0.7,1.1,0.2,-0.4,0.9,0.6,-1.3";

}  // namespace

TEST_SUITE("cli") {

TEST_CASE("axial-angles: (rows * cols, D/2), patch 5 of 2 x 3 rotates by column 2 and row 1") {
  const CliRun run = runCli({"export", "axial-angles", "--head-dim", "8", "--grid", "2x3", "-o", out("a.npy").string()});
  REQUIRE_MESSAGE(run.code == 0, run.err);
  const posviz::NpyArray a = posviz::readNpy(out("a.npy").string());
  REQUIRE(a.shape == std::vector<std::int64_t>{6, 4});
  CHECK(a.data[5 * 4 + 0] == doctest::Approx(2.0));
  CHECK(a.data[5 * 4 + 1] == doctest::Approx(0.2));
  CHECK(a.data[5 * 4 + 2] == doctest::Approx(1.0));
  CHECK(a.data[5 * 4 + 3] == doctest::Approx(0.1));
}

TEST_CASE("axial-scores: entry (dr + rows - 1, dc + cols - 1) is rope-vit's score") {
  const CliRun run = runCli({"export", "axial-scores", "--head-dim", "8", "--grid", "2x3", "--q", kQ, "--k", kK, "-o",
                             out("s.npy").string()});
  REQUIRE_MESSAGE(run.code == 0, run.err);
  const posviz::NpyArray s = posviz::readNpy(out("s.npy").string());
  REQUIRE(s.shape == std::vector<std::int64_t>{3, 5});
  CHECK(s.data[2 * 5 + 4] == doctest::Approx(-1.429117494635284).epsilon(1e-6));    // dr = 1, dc = 2
  CHECK(s.data[2 * 5 + 0] == doctest::Approx(1.0107000784948466).epsilon(1e-6));    // dr = 1, dc = -2
  CHECK(s.data[2 * 5 + 2] == doctest::Approx(-0.27752436798889635).epsilon(1e-6));  // dr = 1, dc = 0
}

TEST_CASE("axial-angles --image-scheme pixtral: the angles of Pixtral's own rotary code, and a Pixtral config's grid") {
  // tests/data/axial-rope/pixtral.json: PixtralRotaryEmbedding.compute_default_rope_parameters run
  // for head_dim 16, theta 10000, indexed by position_ids_in_meshgrid over a 3 x 4 image.
  std::ifstream in(POSVIZ_SOURCE_DIR "/tests/data/axial-rope/pixtral.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json ref = nlohmann::json::parse(ss.str());
  const CliRun run = runCli({"export", "axial-angles", "--image-scheme", "pixtral", "--head-dim", "16", "--base", "10000",
                             "--grid", "3x4", "--dtype", "f64", "-o", out("p.npy").string()});
  REQUIRE_MESSAGE(run.code == 0, run.err);
  const posviz::NpyArray a = posviz::readNpy(out("p.npy").string());
  REQUIRE(a.shape == std::vector<std::int64_t>{12, 8});
  for (std::size_t t = 0; t < 12; ++t) {
    for (std::size_t i = 0; i < 8; ++i) {
      CAPTURE(t);
      CAPTURE(i);
      // Reference angles are float32 and unreduced; posviz's are mod 2 pi.
      const double d = std::remainder(a.data[t * 8 + i] - ref["angles"][t][i].get<double>(), 2.0 * M_PI);
      CHECK(std::abs(d) < 1e-6);
    }
  }
  // Patch 5 = row 1, column 1: pair 1 by the row at 10000^(-4/16), pair 4 by the column at 10000^(-2/16).
  CHECK(a.data[5 * 8 + 1] == doctest::Approx(std::pow(1e4, -0.25)));
  CHECK(a.data[5 * 8 + 4] == doctest::Approx(std::pow(1e4, -0.125)));
  // A Pixtral vision config: head_dim 64, rope_theta 10000, image_size 1024 / patch_size 16 = 64 a side.
  const fs::path cfg = out("pixtral.json");
  std::ofstream(cfg) << R"({"model_type": "pixtral", "hidden_size": 1024, "num_attention_heads": 16, "head_dim": 64,
                            "rope_theta": 10000.0, "image_size": 1024, "patch_size": 16})";
  const CliRun m = runCli({"export", "axial-angles", "--config", cfg.string(), "-o", out("pc.json").string()});
  REQUIRE_MESSAGE(m.code == 0, m.err);
  std::ifstream jin(out("pc.json"));
  std::stringstream js;
  js << jin.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(js.str());
  CHECK(doc["shape"] == nlohmann::json({4096, 32}));
  CHECK(doc["params"]["image_scheme"] == "pixtral");
  CHECK(doc["params"]["base"] == 10000.0);
  const CliRun model = runCli({"model", "--config", cfg.string()});
  CHECK(model.out.find("2-D RoPE over a 64 x 64 patch grid (Pixtral)") != std::string::npos);
  // A 2-D RoPE posviz does not draw is refused by name, never read as 1-D RoPE.
  std::ofstream(out("dino.json")) << R"({"model_type": "dinov3_vit", "hidden_size": 384, "num_attention_heads": 6})";
  const CliRun dino = runCli({"model", "--config", out("dino.json").string()});
  CHECK(dino.code == 2);
  CHECK(dino.err.find("\"dinov3_vit\" uses a 2-D RoPE over image patches of its own kind") != std::string::npos);
}

TEST_CASE("nope-temperature: Llama 4's steps at multiples of floor_scale, as a position,scale table") {
  const CliRun run = runCli({"export", "nope-temperature", "--positions", "4", "--position", "8189", "-o", out("t.csv").string()});
  REQUIRE_MESSAGE(run.code == 0, run.err);
  std::ifstream in(out("t.csv"));
  std::stringstream text;
  text << in.rdbuf();
  const std::string csv = text.str();
  CHECK(csv.find("position,scale") != std::string::npos);
  CHECK(csv.find("8190,1\n") != std::string::npos);
  CHECK(csv.find("8191,1.06931") != std::string::npos);   // 1 + 0.1 ln 2
  const CliRun own = runCli({"export", "nope-temperature", "--positions", "3", "--floor-scale", "2", "--attn-scale", "1",
                             "--dtype", "f64", "-o", out("t.npy").string()});
  REQUIRE_MESSAGE(own.code == 0, own.err);
  const posviz::NpyArray t = posviz::readNpy(out("t.npy").string());
  REQUIRE(t.data.size() == 3);
  CHECK(t.data[0] == 1.0f);
  CHECK(t.data[1] == doctest::Approx(1.0 + std::log(2.0)));   // floor(2 / 2) = 1
}

TEST_CASE("bad axial and temperature flags are named with what is allowed") {
  struct Bad {
    std::vector<std::string> args;
    const char* want;
  };
  const std::vector<Bad> bad = {
      {{"export", "axial-angles", "--head-dim", "6"}, "--head-dim: got 6, expected a multiple of 4"},
      {{"export", "axial-angles", "--grid", "0x3"}, "--grid: rows must be 1..4096"},
      {{"export", "axial-angles", "--grid", "16"}, "--grid: expected rows x columns"},
      {{"export", "axial-scores", "--q", "1,2"}, "--q: has 2 values, expected head_dim = 64"},
      {{"export", "nope-temperature", "--attn-scale", "-1"}, "--attn-scale"},
      {{"export", "nope-temperature", "--grid", "2x2"}, "--grid: does not apply to view nope-temperature"},
  };
  for (const Bad& b : bad) {
    std::vector<std::string> args = b.args;
    args.insert(args.end(), {"-o", out("bad.npy").string()});
    const CliRun run = runCli(args);
    CAPTURE(b.want);
    CHECK(run.code == 2);
    CHECK(run.err.find(b.want) != std::string::npos);
  }
  CHECK_FALSE(fs::exists(out("bad.npy")));
}

}  // TEST_SUITE
