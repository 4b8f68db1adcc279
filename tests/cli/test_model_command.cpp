// `posviz model` (app/cli/model_command.cpp) and the RoPE views' --layer-type.
#include <doctest/doctest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/cli.hpp"
#include "tests/support/cli_support.hpp"
#include "app/cli/model_command.hpp"

namespace fs = std::filesystem;

namespace {

using Run = posviz::test::CliRun;
Run run(std::vector<std::string> args) { return posviz::test::runCli(std::move(args)); }

const std::string kDir = POSVIZ_SOURCE_DIR "/tests/data/published-configs/";

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "model_command" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

nlohmann::json readJson(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_SUITE("model_command") {

TEST_CASE("model: layer ranges collapse runs") {
  CHECK(posviz::cli::layerRangesText({0, 1, 2, 4, 6, 7}) == "0-2, 4, 6-7");
  CHECK(posviz::cli::layerRangesText({5}) == "5");
  CHECK(posviz::cli::layerRangesText({}) == "all");
}

TEST_CASE("model: EXAONE 4.0 prints its sliding RoPE layers and its global NoPE layers") {
  const Run r = run({"model", "--config", kDir + "EXAONE-4.0-32B.json"});
  CHECK(r.code == 0);
  CAPTURE(r.out);
  CHECK(contains(r.out, "sliding_attention: 48 layers [0-2, 4-6,"));
  CHECK(contains(r.out, "RoPE, rotary dims 128 of head_dim 128, base 1e+06, half-split, llama3 x16 from 8192"));
  CHECK(contains(r.out, "sliding window 4096"));
  CHECK(contains(r.out, "full_attention: 16 layers [3, 7, 11,"));
  CHECK(contains(r.out, "NoPE"));
}

TEST_CASE("model: --json lists each kind with its layers, scheme, RoPE and extras (DeepSeek-V3 preset)") {
  const Run r = run({"model", "--preset", "deepseek-v3", "--json"});
  REQUIRE(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["num_layers"] == 61);
  REQUIRE(j["layer_kinds"].size() == 1);
  const nlohmann::json& k = j["layer_kinds"][0];
  CHECK(k["scheme"] == "rope");
  CHECK(k["rope"]["rotary_dims"] == 64);
  CHECK(k["rope"]["layout"] == "interleaved");
  CHECK(k["rope"]["scaling"]["method"] == "yarn");
  CHECK(k["layers"].size() == 61);
  REQUIRE(j["extras"].size() == 1);
  CHECK(contains(j["extras"][0].get<std::string>(), "x1.87385"));
  const Run vl = run({"model", "--preset", "qwen2.5-vl-7b", "--json"});
  REQUIRE(vl.code == 0);
  CHECK(nlohmann::json::parse(vl.out)["mrope_section"] == nlohmann::json::array({16, 24, 24}));
}

TEST_CASE("model: usage errors exit 2 naming the problem") {
  // A bare `posviz model`: the problem and the short usage on stderr, one command prefix.
  const Run bare = run({"model"});
  CHECK(bare.code == 2);
  CHECK(bare.out.empty());
  CHECK(bare.err.rfind("posviz model: give exactly one of --config FILE or --preset NAME (or --compare A B ...)\nusage: posviz model", 0) == 0);
  CHECK(std::count(bare.err.begin(), bare.err.end(), '\n') <= 15);
  CHECK(run({"model", "--help"}).out.rfind("usage: posviz model", 0) == 0);
  CHECK(contains(run({"model", "--preset"}).err, "--preset: needs a value"));
  CHECK(contains(run({"model", "--bogus"}).err, "unknown argument \"--bogus\""));
  const Run unknown = run({"model", "--preset", "no-such-model"});
  CHECK(unknown.code == 2);
  CHECK(contains(unknown.err, "available presets are"));
  CHECK(run({"model", "--help"}).code == 0);
}

TEST_CASE("rope views: --layer-type picks the layer kind; the full-attention default refuses NoPE layers") {
  const fs::path dir = scratch("layer_type");
  const std::string exaone = kDir + "EXAONE-4.0-32B.json";
  const Run nope = run({"export", "rope-freqs", "--config", exaone, "-o", (dir / "a.json").string()});
  CHECK(nope.code == 2);
  CHECK(contains(nope.err, "full_attention layers use nope, not RoPE"));
  CHECK(contains(nope.err, "sliding_attention (48 layers, rope)"));
  CHECK_FALSE(fs::exists(dir / "a.json"));
  for (const char* spelling : {"sliding", "sliding_attention"}) {
    CAPTURE(spelling);
    const Run ok = run({"export", "rope-freqs", "--config", exaone, "--layer-type", spelling, "-o", (dir / "b.json").string()});
    REQUIRE(ok.code == 0);
    CHECK(readJson(dir / "b.json")["params"]["scaling"]["method"] == "llama3");
  }
  // Gemma 3: the default is the global layers (base 1e6, linear x8); sliding gives base 1e4 unscaled.
  const std::string gemma = kDir + "gemma-3-4b-it.json";
  REQUIRE(run({"export", "rope-freqs", "--config", gemma, "-o", (dir / "g.json").string()}).code == 0);
  CHECK(readJson(dir / "g.json")["params"]["base"] == 1.0e6);
  REQUIRE(run({"export", "rope-angles", "--config", gemma, "--layer-type", "sliding", "--positions", "4", "-o",
               (dir / "s.json").string()}).code == 0);
  CHECK(readJson(dir / "s.json")["params"]["base"] == 1.0e4);
  const Run bad = run({"export", "rope-freqs", "--config", gemma, "--layer-type", "local", "-o", (dir / "c.json").string()});
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "--layer-type"));
  CHECK(contains(bad.err, "\"local\""));
  const Run none = run({"export", "rope-freqs", "--config", kDir + "Qwen3-8B.json", "--layer-type", "sliding", "-o",
                        (dir / "d.json").string()});
  CHECK(none.code == 2);
  CHECK(contains(none.err, "no sliding_attention layers"));
  const Run noModel = run({"export", "rope-freqs", "--layer-type", "full", "-o", (dir / "e.json").string()});
  CHECK(noModel.code == 2);
  CHECK(contains(noModel.err, "--layer-type: needs --config FILE or --preset NAME"));
  // DeepSeek-V3: 64 interleaved rotary dims (before: hidden_size / heads = 56).
  REQUIRE(run({"export", "rope-freqs", "--preset", "deepseek-v3", "-o", (dir / "ds.json").string()}).code == 0);
  const nlohmann::json ds = readJson(dir / "ds.json");
  CHECK(ds["params"]["rotary_dims"] == 64);
  CHECK(ds["params"]["layout"] == "interleaved");
  CHECK(ds["inv_freq"].size() == 32);
}

}  // TEST_SUITE
