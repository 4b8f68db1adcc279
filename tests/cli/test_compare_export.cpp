// posviz export compare: the computed comparison table as .json and .csv, and its usage errors.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli_support.hpp"

using posviz::test::runCli;

namespace {

std::string outPath(const std::string& name) {
  const std::string dir = std::string(POSVIZ_TEST_OUT) + "/compare-export";
  std::filesystem::create_directories(dir);
  return dir + "/" + name;
}

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_SUITE("cli") {

TEST_CASE("export compare: .json holds the computed cells and the claims' verdicts") {
  const std::string json = outPath("c.json");
  const auto run = runCli({"export", "compare", "--d-model", "64", "--original-max-positions", "512", "--positions", "2048",
                           "--heads", "4", "-o", json});
  CAPTURE(run.err);
  REQUIRE(run.code == 0);
  const nlohmann::json d = nlohmann::json::parse(readText(json));
  CHECK(d["params"]["head_dim"] == 16);
  REQUIRE(d["schemes"].size() == 5);
  CHECK(d["schemes"][1]["scheme"] == "learned");
  CHECK(d["schemes"][1]["numbers"]["parameters"] == 512.0 * 64.0);
  CHECK(d["schemes"][1]["numbers"]["error_at_L"] == "learnedLookup: pos 2047 has no row: the table has max_len 512 (rows 0..511)");
  CHECK(d["schemes"][2]["numbers"]["relative_max_error"].get<double>() < 1e-5);
  CHECK(d["schemes"][0]["numbers"]["relative_max_error"].get<double>() > 1e-2);
  CHECK(d["schemes"][3]["numbers"]["alibi_bias_at_L"][0] == doctest::Approx(-2047.0 / 4.0));  // 4 heads: m_1 = 2^-2
  // Used by: from the shipped presets' configs.
  const auto learnedBy = d["schemes"][1]["numbers"]["used_by"].get<std::vector<std::string>>();
  CHECK(learnedBy == std::vector<std::string>{"bert-base-uncased", "gpt2"});
  const auto alibiBy = d["schemes"][3]["numbers"]["used_by"].get<std::vector<std::string>>();
  CHECK(alibiBy == std::vector<std::string>{"bloom-560m", "mpt-7b"});
  CHECK(d["schemes"][4]["numbers"]["used_by"][0] == "exaone-4.0-32b");  // its full-attention layers are NoPE
  // Coupling: ALiBi's effect ignores content, RoPE's does not; sinusoidal has cross terms.
  CHECK(d["schemes"][3]["numbers"]["content_dependence"].get<double>() < 1e-12);
  CHECK(d["schemes"][2]["numbers"]["content_dependence"].get<double>() > 1e-2);
  CHECK(d["schemes"][0]["numbers"]["cross_share"].get<double>() > 0.05);
  for (const auto& c : d["claims"])
    if (c["row"] == "used-by" && c["scheme"] == "rope") CHECK(c["verdict"] == "agrees");
  int qualifies = 0;
  for (const auto& c : d["claims"]) qualifies += c["verdict"] == "qualifies";
  CHECK(qualifies > 0);
}

TEST_CASE("export compare: .csv is one row per scheme, the metrics named in its comments") {
  const std::string csv = outPath("c.csv");
  REQUIRE(runCli({"export", "compare", "--d-model", "8", "--original-max-positions", "4", "--positions", "8", "--heads", "1", "-o", csv}).code == 0);
  const std::string text = readText(csv);
  CHECK(text.find("# rows: sinusoidal, learned, rope, alibi, nope") == 0);
  CHECK(text.find("\n32,0,0,") != std::string::npos);  // learned: 4 x 8 parameters, embedding input, no row at 7
}

TEST_CASE("export compare: bad shapes are usage errors naming the flag") {
  const std::string json = outPath("bad.json");
  auto run = runCli({"export", "compare", "--heads", "3", "-o", json});
  CHECK(run.code == 2);
  CHECK(run.err.find("--heads: got 3, expected a head count that divides --d-model 512 into an even head dim") != std::string::npos);
  run = runCli({"export", "compare", "--positions", "1", "-o", json});
  CHECK(run.code == 2);
  CHECK(run.err.find("--positions: got \"1\" (out of range), expected an integer in [2, ") != std::string::npos);
  run = runCli({"export", "compare", "--original-max-positions", "1", "-o", json});
  CHECK(run.code == 2);
  CHECK(run.err.find("--original-max-positions") != std::string::npos);
}

}
