// posviz export extrapolation: the lab's numbers (core/extrapolation.hpp) in each format, the
// options it shares with the RoPE views, and its errors.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/extrapolation.hpp"
#include "core/npy.hpp"
#include "tests/support/cli_support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using posviz::test::runCli;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "extrapolation_view" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

json readJson(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
}

posviz::ExtrapolationSetup smallSetup() {
  posviz::ExtrapolationSetup s;
  s.model.dModel = 8;
  s.trainedLength = 16;
  return s;
}

}  // namespace

TEST_SUITE("extrapolation_view") {

TEST_CASE("extrapolation view: .json holds core's runs, summary, sweep and the trained range") {
  const fs::path dir = scratch("json");
  REQUIRE(runCli({"export", "extrapolation", "--head-dim", "8", "--original-max-positions", "16", "--positions", "64",
                  "--dtype", "f64", "-o", (dir / "x.json").string()}).code == 0);
  const json j = readJson(dir / "x.json");
  CHECK(j["view"] == "extrapolation");
  CHECK(j["trained_range"]["positions"] == json::array({0, 15}));
  CHECK(j["trained_range"]["query_trained"] == false);
  REQUIRE(j["runs"].size() == 8);   // every encoding by default
  const posviz::ExtrapolationSetup s = smallSetup();
  for (std::size_t k = 0; k < 8; ++k) {
    const posviz::ExtrapolationEncoding e = posviz::allExtrapolationEncodings()[k];
    CAPTURE(posviz::extrapolationEncodingName(e));
    const posviz::ExtrapolationRun ref = posviz::runExtrapolation(s, e, 64);
    const json& run = j["runs"][k];
    CHECK(run["encoding"] == posviz::extrapolationEncodingName(e));
    CHECK(j["summary"][k]["encoding"] == run["encoding"]);
    if (e == posviz::ExtrapolationEncoding::Learned) {
      CHECK(run["weights"].is_null());
      CHECK(run["entropy"].is_null());
      CHECK(run["error"] == ref.error);
      CHECK(run["missing_positions"] == json{{"first", 16}, {"last", 63}, {"count", 48}});
      CHECK(run["key_has_row"][15] == 1);
      CHECK(run["key_has_row"][16] == 0);
      continue;
    }
    CHECK(run["error"].is_null());
    CHECK(run["entropy"].get<double>() == ref.entropy);
    CHECK(run["entropy_ratio"].get<double>() == ref.entropyRatio);
    REQUIRE(run["weights"].size() == 64);
    for (int r = 0; r < 64; ++r) CHECK(run["weights"][r].get<double>() == ref.weights[static_cast<std::size_t>(r)]);
    if (posviz::isRotary(e)) {
      CHECK(run["rotary"]["unseen_share_mean"].get<double>() == ref.unseenShareMean);
      CHECK(run["rotary"]["unseen_share"].size() == 4);
      CHECK(run["factor"].get<double>() == (e == posviz::ExtrapolationEncoding::Rope ? 1.0 : 4.0));  // auto: L / L0
    }
  }
  REQUIRE(j["sweep"].size() == 4);
  CHECK(j["sweep"][2]["length"] == 64);
  CHECK(j["sweep"][0]["runs"][1]["error"].is_null());          // learned at L0 has every row
  CHECK(j["sweep"][1]["runs"][1]["error"].is_string());        // and not at 2 L0
  CHECK(j["sweep"][2]["runs"][2]["entropy"] == j["summary"][2]["entropy"]);
}

TEST_CASE("extrapolation view: .csv and .npy are the distance table, NaN where learned has no row") {
  const fs::path dir = scratch("table");
  const std::vector<std::string> common = {"export", "extrapolation", "--head-dim", "8", "--original-max-positions", "16",
                                           "--positions", "32"};
  std::vector<std::string> a = common, b = common;
  a.insert(a.end(), {"-o", (dir / "x.csv").string()});
  b.insert(b.end(), {"--dtype", "f64", "-o", (dir / "x.npy").string()});
  REQUIRE(runCli(a).code == 0);
  REQUIRE(runCli(b).code == 0);
  const posviz::NpyArray npy = posviz::readNpy((dir / "x.npy").string());
  REQUIRE(npy.shape == std::vector<std::int64_t>{32, 12});
  const posviz::ExtrapolationRun alibi = posviz::runExtrapolation(smallSetup(), posviz::ExtrapolationEncoding::Alibi, 32);
  for (int r = 0; r < 32; ++r) {
    CAPTURE(r);
    const auto at = [&](int c) { return npy.data[static_cast<std::size_t>(r) * 12 + static_cast<std::size_t>(c)]; };
    CHECK(at(0) == r);
    CHECK(at(1) == 31 - r);
    CHECK(at(2) == (31 - r < 16 ? 1.0 : 0.0));   // key position trained
    CHECK(at(3) == (r < 16 ? 1.0 : 0.0));        // distance trained
    CHECK(std::isnan(at(5)));                    // learned past L0: no value
    CHECK(at(11) == static_cast<float>(alibi.weights[static_cast<std::size_t>(r)]));  // readNpy gives float32
  }
  std::ifstream in(dir / "x.csv");
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  CHECK(header == "distance,key_position,position_trained,distance_trained,weight_sinusoidal,weight_learned,weight_rope,"
                  "weight_rope-linear,weight_rope-ntk,weight_rope-yarn,weight_rope-llama3,weight_alibi");
  CHECK(first.rfind("0,31,0,1,", 0) == 0);
  CHECK(first.find(",nan,") != std::string::npos);
}

TEST_CASE("extrapolation view: --encoding rope --scaling yarn --factor runs one encoding with that factor") {
  const fs::path dir = scratch("yarn");
  REQUIRE(runCli({"export", "extrapolation", "--encoding", "rope", "--scaling", "yarn", "--factor", "4",
                  "--original-max-positions", "64", "--head-dim", "16", "--positions", "256", "--multiples", "1,8",
                  "--dtype", "f64", "-o", (dir / "y.json").string()}).code == 0);
  const json j = readJson(dir / "y.json");
  REQUIRE(j["runs"].size() == 1);
  CHECK(j["runs"][0]["encoding"] == "rope-yarn");
  CHECK(j["runs"][0]["attention_factor"].get<double>() == doctest::Approx(0.1 * std::log(4.0) + 1.0));
  posviz::ExtrapolationSetup s;
  s.model.dModel = 16;
  s.trainedLength = 64;
  s.factor = 4.0;
  CHECK(j["runs"][0]["entropy"].get<double>() == posviz::runExtrapolation(s, posviz::ExtrapolationEncoding::RopeYarn, 256).entropy);
  CHECK(j["sweep"][1]["length"] == 512);
  CHECK(j["sweep"][1]["runs"][0]["unseen_share_mean"].get<double>() ==
        posviz::runExtrapolation(s, posviz::ExtrapolationEncoding::RopeYarn, 512).unseenShareMean);
  CHECK(j["params"]["factor"] == 4.0);
  // --scaling alone means RoPE; --preset sets head_dim, base, L0 and the scaling (Llama 3.1: llama3 x8 over 8192).
  REQUIRE(runCli({"export", "extrapolation", "--scaling", "linear", "--positions", "8", "--original-max-positions", "4",
                  "--head-dim", "8", "-o", (dir / "l.json").string()}).code == 0);
  CHECK(readJson(dir / "l.json")["runs"][0]["encoding"] == "rope-linear");
  REQUIRE(runCli({"export", "extrapolation", "--preset", "llama-3.1-8b", "--multiples", "1", "-o", (dir / "p.json").string()}).code == 0);
  const json p = readJson(dir / "p.json");
  CHECK(p["runs"][0]["encoding"] == "rope-llama3");
  CHECK(p["params"]["trained_length"] == 8192);
  CHECK(p["params"]["positions"] == 32768);
  CHECK(p["params"]["base"] == 500000.0);
  CHECK(p["runs"][0]["factor"] == 8.0);
  // ALiBi (BLOOM, 16 heads): its steepest head, 2^-0.5.
  REQUIRE(runCli({"export", "extrapolation", "--preset", "bloom-560m", "--original-max-positions", "64", "--head-dim", "8",
                  "-o", (dir / "b.json").string()}).code == 0);
  const json b = readJson(dir / "b.json");
  CHECK(b["runs"][0]["encoding"] == "alibi");
  CHECK(b["params"]["alibi_slope"].get<double>() == doctest::Approx(std::pow(2.0, -0.5)));
}

TEST_CASE("extrapolation view: bad options name the option and what is allowed") {
  const fs::path dir = scratch("errors");
  const std::string out = (dir / "e.json").string();
  const struct {
    std::vector<std::string> args;
    const char* message;
  } cases[] = {
      {{"--encoding", "none"}, "--encoding: got \"none\""},
      {{"--encoding", "alibi", "--scaling", "yarn"}, "--scaling: applies to --encoding rope, not alibi"},
      {{"--scaling", "dynamic"}, "--scaling: got \"dynamic\""},
      {{"--positions", "2000000"}, "--positions: got 2000000, expected 1..1048576"},
      {{"--original-max-positions", "1"}, "--original-max-positions"},
      {{"--head-dim", "8192"}, "--head-dim"},
      {{"--head-dim", "7"}, "--head-dim"},
      {{"--factor", "0.5"}, "--factor"},
      {{"--encoding", "alibi", "--factor", "2"}, "--factor: applies to scaled RoPE runs"},
      {{"--multiples", "1,300"}, "--multiples: 300 x L0 4096"},
      {{"--multiples", "0"}, "--multiples"},
      {{"--text", "   "}, "--text: got \"   \", expected at least one word"},
      {{"--slope", "0"}, "--slope"},
      {{"--beta-fast", "0.5"}, "--beta-fast: got 0.5, expected a number >= --beta-slow 1"},
      {{"--preset", "phi-3-mini-longrope"}, "scales RoPE with longrope, which the lab does not run"},
      {{"--preset", "gpt2", "--positions", "4096"}, ""},
      {{"-o", (dir / "e.png").string()}, ".png is not available for view extrapolation"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"export", "extrapolation"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    if (c.args.front() != "-o") args.insert(args.end(), {"-o", out});
    CAPTURE(c.message);
    const posviz::test::CliRun run = runCli(args);
    CAPTURE(run.err);
    if (std::string(c.message).empty()) {   // learned: L0 = max_position_embeddings, the table is the model's width
      CHECK(run.code == 0);
      const json j = readJson(out);
      CHECK(j["runs"][0]["encoding"] == "learned");
      CHECK(j["params"]["trained_length"] == 1024);
      CHECK(j["params"]["head_dim"] == 768);
      CHECK(j["runs"][0]["missing_positions"]["count"] == 3072);
      continue;
    }
    CHECK(run.code == 2);
    CHECK(run.err.find(c.message) != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "e.png"));
  }
}

}  // TEST_SUITE
