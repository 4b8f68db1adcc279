// A model config means the same on the command line and in the window: each scheme's reading
// (app/cli/config_readings.hpp) is what both the view's --preset and the tab's loaded config use.
// Every embedded preset (assets/presets, real published config.json files) is read both ways.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "app/cli/config_readings.hpp"
#include "app/cli/request.hpp"
#include "app/cli/view_table.hpp"
#include "app/gui/panels/panels.hpp"
#include "tests/support/param_checks.hpp"

using namespace posviz;
using namespace posviz::cli;
using test::viewRequest;

namespace {

std::vector<std::string> presetArgs(const std::string& preset, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), {"--preset", preset});
  return extra;
}

bool sameRope(const RopeParams& a, const RopeParams& b) {
  const RopeScaling& x = a.scaling;
  const RopeScaling& y = b.scaling;
  return a.headDim == b.headDim && a.base == b.base && a.layout == b.layout && a.rotaryFraction == b.rotaryFraction &&
         x.method == y.method && x.factor == y.factor && x.originalMaxPositions == y.originalMaxPositions &&
         x.betaFast == y.betaFast && x.betaSlow == y.betaSlow && x.lowFreqFactor == y.lowFreqFactor &&
         x.highFreqFactor == y.highFreqFactor && x.shortFactor == y.shortFactor && x.longFactor == y.longFactor &&
         x.attentionFactor == y.attentionFactor;
}

}  // namespace

TEST_CASE("config readings: values restated from the published config.json files") {
  // meta-llama/Llama-3.1-8B config.json: rope_theta 500000, head_dim 4096/32, llama3 x8 from 8192.
  const auto llama = readRopeConfig(loadPreset("llama-3.1-8b"));
  REQUIRE(llama);
  CHECK(llama->base == 500000.0);
  CHECK(llama->headDim == 128);
  CHECK(llama->scaling.method == ScalingMethod::Llama3);
  CHECK(llama->scaling.factor == 8.0);
  CHECK(llama->scaling.originalMaxPositions == 8192);
  CHECK_FALSE(readLearnedConfig(loadPreset("llama-3.1-8b")));
  CHECK_FALSE(readAlibiConfig(loadPreset("llama-3.1-8b")));

  // google/gemma-3-4b-it: rope_theta 1e6 on the full layers, rope_local_base_freq 10000 on the sliding ones.
  const ModelConfig gemma = loadPreset("gemma-3-4b-it");
  CHECK(readRopeConfig(gemma)->base == 1.0e6);
  CHECK(readRopeConfig(gemma, std::string("sliding"))->base == 10000.0);
  CHECK(readRopeConfig(gemma, std::string("full_attention"))->base == 1.0e6);
  CHECK_THROWS_WITH_AS(readRopeConfig(gemma, std::string("chunked"), "--preset gemma-3-4b-it"),
                       doctest::Contains("--preset gemma-3-4b-it: the model has no chunked_attention layers"), UsageError);

  // openai-community/gpt2: n_embd 768, n_positions 1024, learned positions.
  const ModelConfig gpt2 = loadPreset("gpt2");
  REQUIRE(readLearnedConfig(gpt2));
  CHECK(readLearnedConfig(gpt2)->dModel == 768);
  CHECK(readLearnedConfig(gpt2)->maxPositions == 1024);
  CHECK_FALSE(readRopeConfig(gpt2));
  // A sinusoidal table at any model's width; the length only of a sinusoidal model.
  CHECK(readSinusoidalConfig(gpt2)->dModel == 768);
  CHECK_FALSE(readSinusoidalConfig(gpt2)->maxPositions);

  // bigscience/bloom-560m: n_head 16, ALiBi.
  REQUIRE(readAlibiConfig(loadPreset("bloom-560m")));
  CHECK(readAlibiConfig(loadPreset("bloom-560m"))->heads == 16);

  // Qwen/Qwen2.5-VL-7B-Instruct: mrope_section [16, 24, 24], rope_theta 1e6.
  const auto vl = readMropeConfig(loadPreset("qwen2.5-vl-7b"));
  REQUIRE(vl);
  CHECK(vl->section == std::vector<int>{16, 24, 24});
  CHECK(vl->rope.base == 1.0e6);
  CHECK_FALSE(vl->interleaved);
  CHECK_FALSE(readMropeConfig(loadPreset("llama-3.1-8b")));
}

TEST_CASE("config readings: every preset reaches the view and the tab alike") {
  int ropeModels = 0, learnedModels = 0, alibiModels = 0;
  for (const std::string& name : presetNames()) {
    CAPTURE(name);
    const ModelConfig m = loadPreset(name);
    app::AppState a;
    const app::ConfigNotes notes = app::applyModelConfig(a, m);
    const auto mentions = [&notes](const std::string& start) {
      for (const std::string& n : notes)
        if (n.starts_with(start)) return true;
      return false;
    };
    if (m.encoding == ModelEncoding::Rope) {
      ++ropeModels;
      // The views' default kind of layer, or where it has no RoPE the first kind that has, which
      // the view takes with --layer-type and the tab takes with a note.
      std::vector<std::string> layerType;
      std::optional<RopeParams> rope;
      try {
        rope = readRopeConfig(m);
      } catch (const UsageError&) {
        for (const LayerKind& k : m.layerKinds)
          if (k.scheme == LayerScheme::Rope && layerType.empty()) layerType = {"--layer-type", k.attention};
        REQUIRE_FALSE(layerType.empty());
        rope = readRopeConfig(m, layerType[1]);
        CHECK(mentions("RoPE tab: the model's full-attention layers have no RoPE; shown: its " + layerType[1]));
      }
      REQUIRE(rope);
      CHECK(sameRope(viewRequest("rope-angles", presetArgs(name, layerType)).rope, *rope));
      if (!mentions("RoPE tab: head_dim") && !mentions("RoPE tab: rope_theta")) CHECK(sameRope(a.rope.params, *rope));
      if (!mentions("Context extension tab: head_dim") && !mentions("Context extension tab: rope_theta")) {
        CHECK(a.context.base == rope->base);
        CHECK(a.context.headDim == rope->headDim);
        CHECK(a.context.selected == static_cast<int>(rope->scaling.method));
      }
    }
    if (const auto learned = readLearnedConfig(m)) {
      ++learnedModels;
      const Request r = viewRequest("learned", presetArgs(name));
      CHECK(r.dModel == *learned->dModel);
      CHECK(r.maxLen == *learned->maxPositions);
      if (!mentions("Learned tab")) {
        CHECK(a.learned.dModel == *learned->dModel);
        CHECK(a.learned.maxLen == *learned->maxPositions);
      }
    }
    if (const auto alibi = readAlibiConfig(m)) {
      ++alibiModels;
      CHECK(viewRequest("alibi-slopes", presetArgs(name)).heads == *alibi->heads);
      if (!mentions("ALiBi tab")) CHECK(a.alibi.numHeads == *alibi->heads);
    }
    if (const auto sinusoidal = readSinusoidalConfig(m); sinusoidal && sinusoidal->dModel) {
      CHECK(viewRequest("sinusoidal", presetArgs(name)).dModel == *sinusoidal->dModel);
      if (!mentions("Sinusoidal tab")) CHECK(a.sinusoidal.params.dModel == *sinusoidal->dModel);
    }
  }
  // The presets cover each family (assets/presets/SOURCES.md names each file's source).
  CHECK(ropeModels >= 20);
  CHECK(learnedModels >= 2);
  CHECK(alibiModels >= 2);
}
