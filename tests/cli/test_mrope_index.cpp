// M-RoPE position ids as each family's get_rope_index computes them (core/mrope.hpp), through
// `posviz export mrope-angles`: the ids in tests/data/mrope-index/cases.json come from running the
// get_rope_index methods of Hugging Face transformers d6a6c826 themselves
// (tests/reference/mrope_index_reference.py), and the rule, merge size and tokens per second a
// config gives come from the table of model types and the file's vision_config.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/model_types.hpp"
#include "tests/support/cli_support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using posviz::test::runCli;

namespace {

json readJson(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "posviz-mrope-index-test";
  fs::create_directories(dir);
  return dir / name;
}

// The ids `posviz export mrope-angles ARGS` writes to .json.
json exportedIds(std::vector<std::string> args) {
  const fs::path out = scratch("ids.json");
  fs::remove(out);
  args.insert(args.begin(), {"export", "mrope-angles"});
  args.insert(args.end(), {"-o", out.string()});
  const auto run = runCli(args);
  INFO(run.err);
  REQUIRE(run.code == 0);
  return readJson(out);
}

}  // namespace

TEST_SUITE("mrope-index") {

TEST_CASE("mrope-angles: every case's ids equal those of the family's own get_rope_index") {
  const json doc = readJson(POSVIZ_SOURCE_DIR "/tests/data/mrope-index/cases.json");
  REQUIRE(doc.at("cases").size() == 9);
  for (const json& c : doc.at("cases")) {
    const std::string name = c.at("name").get<std::string>();
    CAPTURE(name);
    // head_dim 8: four pairs, one each on t and h, two on w; the ids do not depend on it.
    const json out = exportedIds({"--head-dim", "8", "--section", "1,1,2", "--sequence", c.at("sequence").get<std::string>(),
                                  "--index-rule", c.at("rule").get<std::string>(), "--spatial-merge",
                                  std::to_string(c.at("spatial_merge").get<int>()), "--tokens-per-second",
                                  std::to_string(c.at("tokens_per_second").get<int>()), "--timestamp-tokens",
                                  std::to_string(c.at("timestamp_tokens").get<int>())});
    CHECK(out.at("position_ids").at("t") == c.at("t"));
    CHECK(out.at("position_ids").at("h") == c.at("h"));
    CHECK(out.at("position_ids").at("w") == c.at("w"));
    CHECK(out.at("params").at("index_rule") == c.at("rule"));
  }
}

TEST_CASE("mrope-index: hand-checked ids for the three rules") {
  // Qwen2.5-VL, 2 s per grid at 2 tokens per second: time ids 0, 4, 8 from the video's start 2;
  // the 4 x 4 grid merges (2 x 2) to 2 x 2, so text after starts at 2 + 8 + 1 = 11.
  json out = exportedIds({"--preset", "qwen2.5-vl-7b", "--sequence", "2,v3x4x4@2,1"});
  CHECK(out.at("params").at("index_rule") == "seconds");
  CHECK(out.at("params").at("spatial_merge") == 2);
  CHECK(out.at("params").at("tokens_per_second") == 2.0);
  CHECK(out.at("position_ids").at("t") == json({0, 1, 2, 2, 2, 2, 6, 6, 6, 6, 10, 10, 10, 10, 11}));
  CHECK(out.at("position_ids").at("w") == json({0, 1, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 11}));
  // The same video under Qwen2-VL's rule: time steps of 1.
  out = exportedIds({"--preset", "qwen2.5-vl-7b", "--index-rule", "steps", "--sequence", "2,v3x4x4@2,1"});
  CHECK(out.at("position_ids").at("t") == json({0, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5}));
  // Qwen3-VL's frames: per frame 1 timestamp token + vision start, the 2 x 2 merged frame at
  // t = 0 from its start s, vision end; text after the first frame's ids starts at s + 2.
  out = exportedIds({"--preset", "qwen2.5-vl-7b", "--index-rule", "frames", "--timestamp-tokens", "1", "--sequence",
                     "1,v2x4x4,1"});
  CHECK(out.at("position_ids").at("t") == json({0, 1, 2, 3, 3, 3, 3, 5, 6, 7, 8, 8, 8, 8, 10, 11}));
  CHECK(out.at("position_ids").at("h") == json({0, 1, 2, 3, 3, 4, 4, 5, 6, 7, 8, 8, 9, 9, 10, 11}));
}

TEST_CASE("mrope-index: the table names each family's rule and its vision defaults") {
  using posviz::cli::findModelType;
  struct Want {
    const char* type;
    const char* rule;
  };
  for (const Want& w : {Want{"qwen2_vl", "steps"}, Want{"paddleocr_vl", "steps"}, Want{"qwen2_5_vl", "seconds"},
                        Want{"qwen2_5_vl_text", "seconds"}, Want{"qwen3_vl", "frames"}, Want{"qwen3_vl_moe", "frames"},
                        Want{"glm4v", "frames"}, Want{"qwen2_5_omni_thinker", "own"}, Want{"ernie4_5_vl_moe", "own"},
                        Want{"llama", ""}}) {
    CAPTURE(w.type);
    const auto* e = findModelType(w.type);
    REQUIRE(e != nullptr);
    CHECK(e->mropeIndex == w.rule);
  }
  // A published Qwen3-VL file: interleaved sections 24/20/20, the frames rule, the file's merge size 2.
  const auto run = runCli({"model", "--config", POSVIZ_SOURCE_DIR "/tests/data/published-configs/Qwen3-VL-Embedding-8B.json", "--json"});
  REQUIRE(run.code == 0);
  const json m = json::parse(run.out);
  CHECK(m.at("mrope_index_rule") == "frames");
  CHECK(m.at("spatial_merge_size") == 2);
  CHECK(m.at("mrope_section") == json({24, 20, 20}));
  CHECK(m.at("mrope_interleaved") == true);
  // configuration_qwen2_5_vl.py Qwen2_5_VLVisionConfig: spatial_merge_size=2, tokens_per_second=4.
  CHECK(findModelType("qwen2_5_vl")->visionSpatialMerge == 2);
  CHECK(findModelType("qwen2_5_vl")->visionTokensPerSecond == 4.0);
}

TEST_CASE("mrope-index: bad sequences, merge sizes and unmodelled rules are refused by name") {
  auto fails = [](std::vector<std::string> args, const std::string& part) {
    args.insert(args.begin(), {"export", "mrope-angles"});
    args.insert(args.end(), {"-o", scratch("bad.json").string()});
    const auto run = runCli(args);
    CAPTURE(run.err);
    CHECK(run.code == 2);
    CHECK(run.err.find(part) != std::string::npos);
    CHECK_FALSE(fs::exists(scratch("bad.json")));
  };
  fails({"--preset", "qwen2.5-vl-7b", "--sequence", "2,v3x5x4,2"}, "gridH 5 is not a multiple of the spatial merge size 2");
  fails({"--preset", "qwen2.5-vl-7b", "--sequence", "2,v3x4x4@x,2"}, "\"v3x4x4@x\"");
  fails({"--preset", "qwen2.5-vl-7b", "--sequence", "2,v3x4,2"}, "expected an image TxHxW or a video vTxHxW[@SECONDS]");
  fails({"--preset", "qwen2.5-vl-7b", "--index-rule", "hours"}, "--index-rule");
  fails({"--preset", "qwen2.5-vl-7b", "--spatial-merge", "0"}, "--spatial-merge");
  // A family whose get_rope_index posviz does not model (Qwen2.5-Omni's audio positions).
  const fs::path cfg = scratch("omni.json");
  std::ofstream(cfg) << R"({"model_type": "qwen2_5_omni_text", "hidden_size": 3584, "num_attention_heads": 28,
                            "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}})";
  fails({"--config", cfg.string()}, "\"qwen2_5_omni_text\"'s own get_rope_index");
  const json out = exportedIds({"--config", cfg.string(), "--index-rule", "steps", "--sequence", "1,1x2x2"});
  CHECK(out.at("position_ids").at("t") == json({0, 1}));  // merge 2 from the class: one 1 x 1 patch
}

}  // TEST_SUITE
