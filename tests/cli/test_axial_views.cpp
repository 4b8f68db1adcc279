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
