// The RoPE-family tabs (RoPE, Context extension, Image RoPE, Extrapolation) on the parameter table:
// core's defaults, settings under the keys older files used, a config's value kept as it is where
// the parameter allows it, and a note where a tab cannot run it. No window is needed.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

#include "app/gui/panels/panel_context.hpp"
#include "app/gui/panels/panel_extrapolation.hpp"
#include "app/gui/panels/panel_image.hpp"
#include "app/gui/panels/panel_rope.hpp"
#include "core/axial_rope.hpp"
#include "core/extrapolation.hpp"
#include "core/rope.hpp"

using namespace posviz;
using namespace posviz::app;
using namespace posviz::cli;

namespace {

bool hasNote(const ConfigNotes& notes, const std::string& text) {
  return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

TEST_SUITE("views") {

TEST_CASE("RoPE-family tabs open on core's defaults") {
  const RopePanelState rope;
  CHECK(rope.params.headDim == RopeParams{}.headDim);
  CHECK(rope.params.base == RopeParams{}.base);
  CHECK(rope.numPositions == params::rope::kPositions.def);
  const ContextExtensionPanelState context;
  CHECK(context.headDim == RopeParams{}.headDim);
  CHECK(context.base == RopeParams{}.base);
  const ImagePanelState image;
  CHECK(image.headDim == AxialRopeParams{}.headDim);
  CHECK(image.base == AxialRopeParams{}.base);
  const ExtrapolationPanelState lab;
  CHECK(lab.trainedLength == ExtrapolationSetup{}.trainedLength);
  CHECK(lab.headDim == ExtrapolationSetup{}.model.dModel);
  CHECK(lab.base == ExtrapolationSetup{}.base);
}

TEST_CASE("RoPE-family settings: the keys older files used, values the parameter allows") {
  // A file written before the table: the same keys are read.
  const nlohmann::json old = {{"head_dim", 96}, {"base", 5.0e7}, {"rotary_fraction", 0.5}, {"layout", "interleaved"},
                              {"positions", 64}, {"m", 10}, {"n", 3}, {"seed", 7}};
  RopePanelState rope;
  loadRopePanel(rope, old);
  CHECK(rope.params.headDim == 96);
  CHECK(rope.params.base == 5.0e7);   // past the old slider's 1e7: the parameter allows it
  CHECK(rope.params.rotaryFraction == 0.5);
  CHECK(rope.params.layout == RopeLayout::Interleaved);
  CHECK(rope.numPositions == 64);
  CHECK(rope.posM == 10);
  CHECK(rope.posN == 3);
  CHECK(rope.seed == 7);
  nlohmann::json saved;
  saveRopePanel(rope, saved);
  for (const auto& [key, value] : old.items()) {
    CAPTURE(key);
    CHECK(saved.at(key) == value);
  }
  // Not allowed: left alone.
  loadRopePanel(rope, nlohmann::json{{"head_dim", 7}, {"base", 1.0}, {"m", 64}, {"rotary_fraction", 0.01}});
  CHECK(rope.params.headDim == 96);
  CHECK(rope.params.base == 5.0e7);
  CHECK(rope.posM == 10);
  CHECK(rope.params.rotaryFraction == 0.5);

  ContextExtensionPanelState context;
  loadContextExtensionPanel(context, nlohmann::json{{"head_dim", 512}, {"methods", {{"yarn", {{"beta_fast", 300.0},
                                                                                            {"seq_len", 0},
                                                                                            {"original_max_positions", 2048}}}}}});
  const RopeScaling& yarn = context.scaling[static_cast<std::size_t>(ScalingMethod::Yarn)];
  CHECK(context.headDim == 512);
  CHECK(yarn.betaFast == 300.0);
  CHECK(yarn.seqLen == 0);
  CHECK(yarn.originalMaxPositions == 2048);
  loadContextExtensionPanel(context, nlohmann::json{{"head_dim", 2}});   // fewer than 4 rotary dims
  CHECK(context.headDim == 512);
  nlohmann::json contextSaved;
  saveContextExtensionPanel(context, contextSaved);
  CHECK(contextSaved["methods"]["yarn"]["beta_fast"] == 300.0);
  CHECK(contextSaved["methods"]["yarn"]["original_max_positions"] == 2048);

  ImagePanelState image;
  loadImagePanel(image, nlohmann::json{{"head_dim", 32}, {"base", 2.0e7}, {"mrope_head_dim", 64}, {"section_t", 8},
                                       {"section_h", 12}, {"rows", 20}, {"query_row", 19}});
  CHECK(image.headDim == 32);
  CHECK(image.base == 2.0e7);
  CHECK(image.mropeHeadDim == 64);
  CHECK(image.sectionT == 8);
  CHECK(image.sectionH == 12);
  CHECK(image.rows == 20);
  CHECK(image.queryRow == 19);
  loadImagePanel(image, nlohmann::json{{"head_dim", 30}, {"mrope_head_dim", 512}, {"rows", 65}});   // not a multiple of 4; past the tab
  CHECK(image.headDim == 32);
  CHECK(image.mropeHeadDim == 64);
  CHECK(image.rows == 20);

  ExtrapolationPanelState lab;
  loadExtrapolationPanel(lab, nlohmann::json{{"trained_length", 100000}, {"head_dim", 512}, {"base", 50.0},
                                             {"alibi_slope", 0.125}, {"seed", 5}, {"factor", 100.0}});
  CHECK(lab.trainedLength == 100000);
  CHECK(lab.headDim == 512);
  CHECK(lab.base == 50.0);
  CHECK(lab.alibiSlope == 0.125f);
  CHECK(lab.seed == 5);
  CHECK(lab.factor == 100.0f);
  // L0 x 8 must be a run core takes; rope-ntk needs two pairs.
  loadExtrapolationPanel(lab, nlohmann::json{{"trained_length", kLabMaxTrainedLength + 1}, {"head_dim", 2}});
  CHECK(lab.trainedLength == 100000);
  CHECK(lab.headDim == 512);
}

TEST_CASE("RoPE-family configs: kept as they are where the parameter allows, a note where a tab cannot run them") {
  ModelConfig c;
  c.name = "wide";
  c.encoding = ModelEncoding::Rope;
  c.rope.headDim = 512;
  c.rope.base = 5.0e8;
  c.maxPositions = 8192;
  ConfigNotes notes;
  ContextExtensionPanelState context;
  applyContextExtensionConfig(context, c, notes);
  CHECK(context.headDim == 512);
  CHECK(context.base == 5.0e8);
  CHECK(notes.empty());

  ExtrapolationPanelState lab;
  applyExtrapolationConfig(lab, c, notes);
  CHECK(lab.headDim == 512);
  CHECK(lab.base == 5.0e8);
  CAPTURE(notes);
  CHECK(notes.empty());
  c.rope.headDim = 8192;   // wider than the toy model
  applyExtrapolationConfig(lab, c, notes);
  CHECK(lab.headDim == kMaxToyDim);
  CHECK(hasNote(notes, "Extrapolation tab: head_dim 8192 is not an even integer in [2, 4096]: shown at 4096"));

  ImagePanelState image;
  c.rope.headDim = 12;
  c.mropeSection = {2, 2, 2};
  notes.clear();
  applyImageConfig(image, c, notes);
  CHECK(image.mropeHeadDim == 12);
  CHECK(notes.empty());
  c.rope.headDim = 14;   // 7 pairs: not a multiple of 4
  c.mropeSection = {3, 2, 2};
  applyImageConfig(image, c, notes);
  CHECK(image.mropeHeadDim == 12);
  CHECK(hasNote(notes, "Image RoPE tab: rotary dims 14 is not a multiple of 4: shown at 12"));
}

}  // TEST_SUITE
