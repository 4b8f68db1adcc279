// The Model tab for engineers (app/gui/panels/panel_model_compare.cpp): other models side by side
// with their differences marked, and the wavelength plot drawn with them.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "app/cli/model_config.hpp"
#include "app/gui/panels/app_state.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/shell/app_shell.hpp"
#include "tests/gui/test_shell.hpp"

using namespace posviz::app;

namespace {

// A window on the Model tab showing a preset (nullptr without a display).
std::unique_ptr<AppShell> modelTabWith(const std::string& preset) {
  auto app = testing::makeTestShell(1440, 900);
  if (!app) return app;
  app->selectPanel(findPanel("model"));
  ConfigNotes notes;
  applyModelPanelConfig(app->state().model, posviz::cli::loadPreset(preset), notes);
  return app;
}

}  // namespace

TEST_SUITE("app") {

TEST_CASE("model tab: compared models give one row per property, the differing ones marked, and draw") {
  auto app = modelTabWith("llama-3.1-8b");
  if (!app) return;
  ModelPanelState& s = app->state().model;
  ConfigNotes notes;
  CHECK(s.rows.empty());  // nothing to compare yet
  s.others.push_back(posviz::cli::loadPreset("llama-2-7b"));
  s.others.push_back(posviz::cli::loadPreset("gemma-3-4b-it"));
  rebuildCompareRows(s);
  REQUIRE(!s.rows.empty());
  bool sawBase = false;
  for (const posviz::cli::CompareRow& r : s.rows) {
    REQUIRE(r.values.size() == 3);
    if (r.field == "RoPE base") {
      sawBase = true;
      CHECK(r.values == std::vector<std::string>{"500000", "10000", "1e+06"});
      CHECK(r.differs);
    }
    if (r.field == "pairing") CHECK_FALSE(r.differs);  // all three rotate halves
  }
  CHECK(sawBase);
  // A new main model keeps the compared ones and rebuilds the rows against it.
  applyModelPanelConfig(s, posviz::cli::loadPreset("qwen3-8b"), notes);
  REQUIRE(s.rows.size() > 2);
  CHECK(s.rows[0].values[0] == "qwen3");
  const std::string path = (std::filesystem::temp_directory_path() / "posviz-model-compare.png").string();
  CHECK(app->renderUntilIdle(3, 60.0));
  std::string error;
  CHECK(app->frame(path, &error));
  CAPTURE(error);
  CHECK(std::filesystem::file_size(path) > 10000);
}

TEST_CASE("model tab: a model's scaled RoPE opens the context-extension tab on its own method beside plain RoPE") {
  AppState a;
  applyModelConfig(a, posviz::cli::loadPreset("llama-3.1-8b"));
  for (int i = 0; i < static_cast<int>(a.context.visible.size()); ++i) {
    CAPTURE(i);
    const bool own = i == static_cast<int>(posviz::ScalingMethod::Llama3) || i == static_cast<int>(posviz::ScalingMethod::None);
    CHECK(a.context.visible[static_cast<std::size_t>(i)] == own);
  }
  CHECK(a.context.selected == static_cast<int>(posviz::ScalingMethod::Llama3));
}

TEST_CASE("model tab: a T5 config sets the Relative tab's buckets, max distance and heads") {
  AppState a;
  a.relative.numBuckets = 8;
  applyModelConfig(a, posviz::cli::loadModelConfig(POSVIZ_SOURCE_DIR "/tests/data/published-configs/flan-t5-large.json"));
  CHECK(a.relative.numBuckets == 32);   // relative_attention_num_buckets
  CHECK(a.relative.maxDistance == 128);  // relative_attention_max_distance
  CHECK(a.relative.t5Heads == 16);       // num_heads
}

TEST_CASE("model tab: OPT's and RoBERTa's offset rows reach the Learned tab, Pixtral's 2-D RoPE the Image RoPE tab") {
  AppState a;
  // modeling_opt.py OPTLearnedPositionalEmbedding: offset 2, num_embeddings + offset rows.
  applyModelConfig(a, posviz::cli::loadModelConfig(POSVIZ_SOURCE_DIR "/tests/data/published-configs/opt-125m.json"));
  CHECK(a.learned.offsetRows == 2);
  CHECK(a.learned.offsetRowsAdded);
  CHECK(a.learned.maxLen == 2048);
  // RobertaEmbeddings: padding_idx + 1 = 2 rows out of max_position_embeddings (514).
  applyModelConfig(a, posviz::cli::loadModelConfig(POSVIZ_SOURCE_DIR "/tests/data/published-configs/distilroberta-base.json"));
  CHECK(a.learned.offsetRows == 2);
  CHECK_FALSE(a.learned.offsetRowsAdded);
  const posviz::cli::ModelConfig pix = posviz::cli::parseModelConfig(
      R"({"model_type": "pixtral", "hidden_size": 1024, "num_attention_heads": 16, "head_dim": 64, "rope_theta": 10000.0,
          "image_size": 1024, "patch_size": 16})", "pixtral.json");
  applyModelConfig(a, pix);
  CHECK(a.image.variant == posviz::AxialRopeVariant::Pixtral);
  CHECK(a.image.base == 10000.0);
  CHECK(a.image.headDim == 64);
  CHECK(a.image.rows == 64);   // image_size / patch_size, the tab's largest grid
}

TEST_CASE("model tab: Check my RoPE names the mistake in the user's cos and sin, as posviz check does") {
  auto app = modelTabWith("llama-3.1-8b");
  if (!app) return;
  ModelPanelState& s = app->state().model;
  ConfigNotes notes;
  const std::string dir = POSVIZ_SOURCE_DIR "/tests/data/rope-check/llama31-repeat-interleave/";
  std::snprintf(s.checkCos, sizeof s.checkCos, "%s", (dir + "cos.npy").c_str());
  std::snprintf(s.checkSin, sizeof s.checkSin, "%s", (dir + "sin.npy").c_str());
  runModelCheck(s);  // the Check button
  CHECK_FALSE(s.checkMatch);
  CHECK(s.checkVerdict.find("pairing layout swapped") != std::string::npos);
  // The right tensors match, up to float32 rounding.
  const std::string right = POSVIZ_SOURCE_DIR "/tests/data/rope-check/llama31-cos-sin/";
  std::snprintf(s.checkCos, sizeof s.checkCos, "%s", (right + "cos.npy").c_str());
  std::snprintf(s.checkSin, sizeof s.checkSin, "%s", (right + "sin.npy").c_str());
  runModelCheck(s);
  CHECK(s.checkMatch);
  CHECK(s.checkVerdict.find("float32 rounding") != std::string::npos);
  // A missing file is said, not thrown.
  std::snprintf(s.checkSin, sizeof s.checkSin, "%s", "/nonexistent/sin.npy");
  runModelCheck(s);
  CHECK_FALSE(s.checkMatch);
  CHECK(s.checkVerdict.rfind("Cannot check: ", 0) == 0);
  std::snprintf(s.checkCos, sizeof s.checkCos, "%s", (dir + "cos.npy").c_str());
  std::snprintf(s.checkSin, sizeof s.checkSin, "%s", (dir + "sin.npy").c_str());
  runModelCheck(s);
  CHECK(s.checkVerdict.find("pairing layout swapped") != std::string::npos);
  const std::string path = (std::filesystem::temp_directory_path() / "posviz-model-check.png").string();
  CHECK(app->renderUntilIdle(3, 60.0));
  std::string error;
  CHECK(app->frame(path, &error));
}

}  // TEST_SUITE
