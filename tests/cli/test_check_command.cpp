// `posviz check` (app/cli/check_command.cpp, core/rope_check.cpp) on tensors made the way HF
// transformers makes them, right and with each listed mistake: tests/data/rope-check, written by
// tests/reference/rope_check_mistakes.py (float32 torch). Every case must exit as its manifest says
// and name its mistake.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/npy.hpp"
#include "core/rope_check.hpp"
#include "tests/support/cli_support.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kDir = POSVIZ_SOURCE_DIR "/tests/data/rope-check/";

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

nlohmann::json manifest() {
  std::ifstream in(kDir + "manifest.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

std::vector<std::string> argsOf(const nlohmann::json& c) {
  std::vector<std::string> args = {"check", "--preset", c.at("preset").get<std::string>()};
  for (const auto& [flag, file] : c.at("files").items()) {
    args.push_back("--" + flag);
    args.push_back(kDir + c.at("case").get<std::string>() + "/" + file.get<std::string>() + ".npy");
  }
  return args;
}

}  // namespace

TEST_CASE("check: every case made by the reference script exits as listed and names its mistake") {
  const nlohmann::json cases = manifest();
  REQUIRE(cases.size() >= 16);
  std::set<std::string> named;
  for (const nlohmann::json& c : cases) {
    CAPTURE(c.at("case").get<std::string>());
    const posviz::test::CliRun r = posviz::test::runCli(argsOf(c));
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.code == c.at("exit").get<int>());
    CHECK(contains(r.out, "reference: "));
    if (c.at("exit") == 0) {
      CHECK(contains(r.out, "MATCH: matches the reference"));
      CHECK(contains(r.out, "float32 rounding"));  // the fixtures are float32, the reference float64
    } else {
      CHECK(contains(r.out, "MISMATCH: "));
      CHECK(contains(r.out, "mistake: " + c.at("mistake").get<std::string>() + "\n"));
      named.insert(c.at("mistake").get<std::string>());
    }
  }
  // Each mistake the issue lists is among the cases.
  for (const char* m : {"layout-swapped", "wrong-base", "scaling-missing", "scaling-twice", "wrong-width", "attention-factor-missing",
                        "attention-factor-misplaced", "position-offset"}) {
    CHECK(named.count(m) == 1);
  }
}

TEST_CASE("check: the diagnosis says what the values were made with") {
  const nlohmann::json cases = manifest();
  for (const nlohmann::json& c : cases) {
    const std::string name = c.at("case");
    const posviz::test::CliRun r = posviz::test::runCli(argsOf(c));
    if (name == "llama31-base-10000") CHECK(contains(r.out, "made with base 10000, the model uses 500000"));
    if (name == "llama31-positions-from-1") CHECK(contains(r.out, "position p + 1"));
    if (name == "gptj-whole-head") CHECK(contains(r.out, "256 dims (128 pairs), the model rotates 64 of head_dim 256"));
    if (name == "phi35-no-attention-factor") CHECK(contains(r.out, "attention factor 1.19024 is missing"));
  }
}

TEST_CASE("check: positions from a file or a first position; float64 values are held to float64 rounding") {
  // Positions 1..16 given explicitly make the offset case right.
  const fs::path dir = fs::temp_directory_path() / "posviz-test-check";
  fs::create_directories(dir);
  std::vector<float> pos(16);
  for (int i = 0; i < 16; ++i) pos[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
  posviz::writeNpy((dir / "pos.npy").string(), {16}, pos.data());
  const std::string cos = kDir + "llama31-positions-from-1/cos.npy", sin = kDir + "llama31-positions-from-1/sin.npy";
  CHECK(posviz::test::runCli({"check", "--preset", "llama-3.1-8b", "--cos", cos, "--sin", sin, "--positions", (dir / "pos.npy").string()}).code == 0);
  CHECK(posviz::test::runCli({"check", "--preset", "llama-3.1-8b", "--cos", cos, "--sin", sin, "--first-position", "1"}).code == 0);
  // The exact reference in float64 matches exactly; one value off by 1e-7 is no longer rounding.
  posviz::RopeCheckInput in;
  in.params.headDim = 64;
  in.params.base = 10000.0;
  in.float32 = false;
  in.invFreq = posviz::ropeFrequencies(in.params).invFreq;
  CHECK(posviz::checkRope(in).match);
  in.invFreq[5] *= 1.0 + 1e-7;
  const posviz::RopeCheckResult off = posviz::checkRope(in);
  CHECK_FALSE(off.match);
  CHECK(off.mistake == "unrecognised");
  fs::remove_all(dir);
}

TEST_CASE("check: bad input exits 2 naming it") {
  const std::string inv = kDir + "llama31-inv-freq/inv_freq.npy";
  // A (2, 4, 8) array, and positions holding 1e30 (one per row of the cos/sin test data).
  const fs::path tmp = fs::path(POSVIZ_TEST_OUT) / "check-bad-shapes";
  fs::create_directories(tmp);
  const std::string rank3 = (tmp / "rank3.npy").string(), huge = (tmp / "huge.npy").string();
  const std::vector<double> halves(64, 0.5);
  posviz::writeNpy(rank3, {2, 4, 8}, halves.data());
  const std::int64_t rowsOfCos = posviz::readNpy(kDir + "llama31-cos-sin/cos.npy").shape.front();
  std::vector<double> positions(static_cast<std::size_t>(rowsOfCos), 1.0);
  positions.back() = 1e30;
  posviz::writeNpy(huge, {rowsOfCos}, positions.data());
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"check", "--inv-freq", inv}, "give exactly one of --config FILE or --preset NAME"},
      {{"check", "--preset", "llama-3.1-8b"}, "give one of --inv-freq"},
      {{"check", "--preset", "llama-3.1-8b", "--cos", inv}, "--cos and --sin go together"},
      {{"check", "--preset", "bloom-560m", "--inv-freq", inv}, "uses no RoPE"},
      {{"check", "--preset", "llama-3.1-8b", "--inv-freq", "/nonexistent.npy"}, "nonexistent.npy"},
      {{"check", "--preset", "llama-3.1-8b", "--inv-freq", inv, "--first-position", "-3"}, "--first-position must be an integer"},
      {{"check", "--preset", "llama-3.1-8b", "--cos", kDir + "llama31-cos-sin/cos.npy", "--sin", inv}, "must have one shape"},
      {{"check", "--preset", "llama-3.1-8b", "--q", inv, "--rotated", inv}, "at least 2 dims"},
      {{"check", "--preset", "llama-3.1-8b", "--bogus", "1"}, "unknown option \"--bogus\""},
      // Tables are refused by their shape, not flattened (an (8, 8) array once read as 64 frequencies).
      {{"check", "--preset", "llama-3.1-8b", "--inv-freq", kDir + "llama31-cos-sin/cos.npy"}, "--inv-freq must be 1-D"},
      {{"check", "--preset", "llama-3.1-8b", "--inv-freq", rank3}, "got shape (2, 4, 8)"},
      {{"check", "--preset", "llama-3.1-8b", "--cos", kDir + "llama31-cos-sin/cos.npy", "--sin", kDir + "llama31-cos-sin/sin.npy",
        "--positions", rank3}, "--positions must be 1-D"},
      {{"check", "--preset", "llama-3.1-8b", "--cos", kDir + "llama31-cos-sin/cos.npy", "--sin", kDir + "llama31-cos-sin/sin.npy",
        "--positions", huge}, "--positions must hold whole numbers in [0, 2^53], got 1.0000000150474662e+30"},   // 1e30 as float32
  };
  for (const Case& c : cases) {
    CAPTURE(c.says);
    const posviz::test::CliRun r = posviz::test::runCli(c.args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(contains(r.err, "posviz check: "));
    CHECK(contains(r.err, c.says));
  }
  CHECK(posviz::test::runCli({"check", "--help"}).out.rfind("usage: posviz check", 0) == 0);
}
