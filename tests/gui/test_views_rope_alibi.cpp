// State logic of the RoPE, context-extension and ALiBi views: a parameter change marks the
// state dirty and the next update recomputes from core; bad input keeps the last good values;
// configs from File > Open / Presets reach every panel of their encoding. No window is needed: updateXxxPanel() makes
// no ImGui calls, and without a GpuCompute every grid comes from core.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <span>
#include <thread>

#include "app/gui/panels/panel_alibi.hpp"
#include "app/gui/panels/panel_extrapolation.hpp"
#include "app/gui/panels/panel_image.hpp"
#include "core/mrope.hpp"
#include "app/gui/panels/panel_context.hpp"
#include "app/gui/panels/panel_rope.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/alibi.hpp"
#include "core/area_average.hpp"
#include "core/attention.hpp"
#include "core/context_extension.hpp"
#include "core/grid.hpp"
#include "core/random.hpp"
#include "core/rope.hpp"

using namespace posviz;
using namespace posviz::app;
using namespace posviz::cli;

TEST_SUITE("views") {

TEST_CASE("parseNumberList: commas and spaces, errors name the bad value") {
  std::vector<double> v{9.0};
  std::string err;
  CHECK(parseNumberList("0.5, -1 2e-3", v, &err));
  REQUIRE(v.size() == 3);
  CHECK(v[0] == doctest::Approx(0.5));
  CHECK(v[1] == doctest::Approx(-1.0));
  CHECK(v[2] == doctest::Approx(0.002));
  CHECK(err.empty());

  CHECK_FALSE(parseNumberList("1, x, 3", v, &err));
  CHECK(err == "value 2 is not a finite number: 'x'");
  CHECK(v.size() == 3);  // untouched
  CHECK_FALSE(parseNumberList("1, inf", v, &err));
  CHECK(err == "value 2 is not a finite number: 'inf'");
  CHECK_FALSE(parseNumberList(" , ", v, &err));
  CHECK(err == "no values: type numbers separated by commas");
}

TEST_CASE("rope view: first update gives core's q, k, rotations and s by offset") {
  RopePanelState s;
  AppContext ctx;
  s.params.headDim = 64;
  s.numPositions = 64;
  updateRopePanel(s, ctx);
  CHECK_FALSE(s.dirty);
  CHECK(s.error.empty());
  REQUIRE(s.q.size() == 64);
  CHECK(s.q == randomNormalVector(64, 1));
  CHECK(s.k == randomNormalVector(64, 2));
  const std::vector<float> qRot = ropeRotate(s.params, std::span<const float>(s.q), static_cast<double>(s.posM));
  CHECK(s.qRot == qRot);

  REQUIRE(s.score.waitIdle(30.0));
  const RopeScoreResult* r = s.score.result();
  REQUIRE(r != nullptr);
  CHECK(r->inputVersion == s.inputVersion);
  REQUIRE(r->byOffset->size() == 127);
  REQUIRE(r->decayBound->size() == 64);
  for (int m : {0, 5, 63}) {
    for (int n : {0, 17, 63}) {
      CAPTURE(m);
      CAPTURE(n);
      CHECK((*r->byOffset)[static_cast<std::size_t>(m - n + 63)] ==
            doctest::Approx(ropeScore(s.params, s.q, s.k, m, n)).epsilon(1e-9));
    }
  }
  // The image is the full 64 x 64 grid (display cells = logical cells): equal to core's grid.
  REQUIRE(r->image.cells.rows == 64);
  REQUIRE(r->image.cells.cols == 64);
  const Grid full = ropeScoreGrid(s.params, s.q, s.k, 64);
  for (int m = 0; m < 64; m += 7) {
    for (int n = 0; n < 64; n += 5) {
      CAPTURE(m);
      CAPTURE(n);
      CHECK(r->image.cells.at(m, n) == doctest::Approx(full.at(m, n)).epsilon(1e-6));
    }
  }
}

TEST_CASE("rope view: a downsampled window is the area average of core's grid") {
  RopePanelState s;
  AppContext ctx;
  s.numPositions = 40;
  updateRopePanel(s, ctx);
  REQUIRE(s.score.waitIdle(30.0));
  CHECK(s.score.result()->image.cells.rows == 40);
  // The heatmap asks for 10 x 10 display cells: only the window is recomputed.
  s.scoreHeatmap.wanted = HeatmapWindow{0, 40, 0, 40, 10, 10};
  const long long version = s.inputVersion;
  updateRopePanel(s, ctx);
  CHECK(s.inputVersion == version);
  REQUIRE(s.score.waitIdle(30.0));
  const RopeScoreResult* r = s.score.result();
  REQUIRE(r != nullptr);
  REQUIRE(r->image.cells.rows == 10);
  const Grid full = ropeScoreGrid(s.params, s.q, s.k, 40);
  // Display cell (1, 2) covers rows 4..7 and cols 8..11.
  double sum = 0.0;
  for (int m = 4; m < 8; ++m)
    for (int n = 8; n < 12; ++n) sum += full.at(m, n);
  CHECK(r->image.cells.at(1, 2) == doctest::Approx(sum / 16.0).epsilon(1e-5));
}

TEST_CASE("rope view: base change recomputes, m/n change only re-rotates") {
  RopePanelState s;
  AppContext ctx;
  s.numPositions = 32;
  updateRopePanel(s, ctx);
  REQUIRE(s.score.waitIdle(30.0));
  const long long v0 = s.inputVersion;
  const double before = (*s.score.result()->byOffset)[40];

  s.posM = 20;
  s.posDirty = true;
  updateRopePanel(s, ctx);
  CHECK(s.inputVersion == v0);  // s(m, n) does not depend on the chosen m, n
  const std::vector<float> qRot = ropeRotate(s.params, std::span<const float>(s.q), 20.0);
  CHECK(s.qRot == qRot);

  s.params.base = 500.0;
  s.dirty = true;
  updateRopePanel(s, ctx);
  CHECK(s.inputVersion == v0 + 1);
  REQUIRE(s.score.waitIdle(30.0));
  const RopeScoreResult* r = s.score.result();
  CHECK(r->inputVersion == v0 + 1);
  const double after = (*r->byOffset)[40];
  CHECK(after != doctest::Approx(before));
  CHECK(after == doctest::Approx(ropeScore(s.params, s.q, s.k, 40 - 31, 0)).epsilon(1e-9));
}

TEST_CASE("rope view: typed vectors set head_dim; bad input keeps the last good values") {
  RopePanelState s;
  AppContext ctx;
  s.numPositions = 8;
  s.typedVectors = true;
  s.qText = "1, 0, 0, 1";
  s.kText = "0.5 0.5 -1 2";
  updateRopePanel(s, ctx);
  CHECK(s.params.headDim == 4);
  CHECK(s.q == std::vector<float>{1.0f, 0.0f, 0.0f, 1.0f});
  CHECK(s.k == std::vector<float>{0.5f, 0.5f, -1.0f, 2.0f});
  CHECK(s.qError.empty());

  s.qText = "1, 0, zero, 1";
  s.dirty = true;
  updateRopePanel(s, ctx);
  CHECK(s.qError == "value 3 is not a finite number: 'zero'");
  CHECK(s.q == std::vector<float>{1.0f, 0.0f, 0.0f, 1.0f});
  CHECK(s.params.headDim == 4);

  s.qText = "1, 2, 3";
  s.kText = "1, 2, 3";
  s.dirty = true;
  updateRopePanel(s, ctx);
  CHECK(s.qError == "q and k need an even number of values (2 .. 256), got 3");
  CHECK(s.q.size() == 4);
  CHECK(s.error.empty());
}

TEST_CASE("rope view: a RoPE config sets the parameters; other encodings leave them alone") {
  RopePanelState s;
  AppContext ctx;
  s.numPositions = 16;
  ModelConfig c;
  c.name = "test";
  c.encoding = ModelEncoding::Alibi;
  c.numHeads = 8;
  ConfigNotes notes;
  applyRopeConfig(s, c, notes);
  updateRopePanel(s, ctx);
  CHECK(s.params.headDim == RopeParams{}.headDim);
  CHECK(s.params.base == 10000.0);

  c.encoding = ModelEncoding::Rope;
  c.rope.headDim = 32;
  c.rope.base = 500000.0;
  c.rope.scaling.method = ScalingMethod::Linear;
  c.rope.scaling.factor = 2.0;
  applyRopeConfig(s, c, notes);
  CHECK(notes.empty());
  updateRopePanel(s, ctx);
  CHECK(s.params.headDim == 32);
  CHECK(s.params.base == 500000.0);
  CHECK(s.q.size() == 32);
  REQUIRE(s.freqs.invFreq.size() == 16);
  CHECK(s.freqs.invFreq[0] == doctest::Approx(0.5));  // theta_0 = 1, linear x2

  // Past the sliders' usual span: used exactly, the sliders widen to show it.
  c.rope.headDim = 512;
  c.rope.base = 5.0e8;
  applyRopeConfig(s, c, notes);
  CHECK(s.params.headDim == 512);
  CHECK(s.params.base == 5.0e8);
  CHECK(notes.empty());
}

TEST_CASE("context view: every method from core; a bad parameter keeps that method's last result") {
  ContextExtensionPanelState s;
  AppContext ctx;
  updateContextExtensionPanel(s, ctx);
  CHECK(s.error.empty());
  CHECK(s.rotaryDims == 128);
  for (int i = 0; i < kNumScalingMethods; ++i) {
    CAPTURE(i);
    CHECK(s.errors[static_cast<std::size_t>(i)].empty());
    RopeScaling sc = s.scaling[static_cast<std::size_t>(i)];
    sc.method = static_cast<ScalingMethod>(i);
    const RopeFrequencies f = computeRopeFrequencies(128, 10000.0, sc);
    CHECK(s.freqs[static_cast<std::size_t>(i)].invFreq == f.invFreq);
    CHECK(s.freqs[static_cast<std::size_t>(i)].attentionFactor == doctest::Approx(f.attentionFactor));
  }
  // Linear with factor 4: every pair divided by 4.
  const auto lin = static_cast<std::size_t>(ScalingMethod::Linear);
  CHECK(s.freqs[lin].invFreq[0] == doctest::Approx(0.25));
  // YaRN's default attention factor 0.1 ln 4 + 1.
  const auto yarn = static_cast<std::size_t>(ScalingMethod::Yarn);
  CHECK(s.freqs[yarn].attentionFactor == doctest::Approx(0.1 * std::log(4.0) + 1.0));
  const std::vector<double> goodYarn = s.freqs[yarn].invFreq;

  s.scaling[yarn].betaFast = 0.5;  // <= betaSlow = 1
  s.dirty = true;
  updateContextExtensionPanel(s, ctx);
  CHECK_FALSE(s.errors[yarn].empty());
  CHECK(s.errors[yarn].find("beta") != std::string::npos);
  CHECK(s.freqs[yarn].invFreq == goodYarn);
  CHECK(s.errors[lin].empty());
}

TEST_CASE("context view: each table column says n/a, with why, for the methods it means nothing for") {
  ContextExtensionPanelState s;
  AppContext ctx;
  updateContextExtensionPanel(s, ctx);
  // Which method each column applies to, by hand from the methods' definitions: only yarn and
  // longrope have an attention factor; only ntk and dynamic replace the base; only linear, yarn
  // and llama3 sort pairs into kept / blended / interpolated.
  //                        none   linear ntk    dynamic yarn  llama3 longrope
  const bool factor[] = {false, false, false, false, true, false, true};
  const bool base[] = {false, false, true, true, false, false, false};
  const bool regimes[] = {false, true, false, false, true, true, false};
  for (int mi = 0; mi < kNumScalingMethods; ++mi) {
    const auto m = static_cast<ScalingMethod>(mi);
    CAPTURE(scalingName(m));
    const RopeFrequencies& f = s.freqs[static_cast<std::size_t>(mi)];
    const struct {
      MethodColumn column;
      bool applies;
    } cols[] = {{MethodColumn::AttentionFactor, factor[mi]}, {MethodColumn::ScoreScale, factor[mi]},
                {MethodColumn::EffectiveBase, base[mi]}, {MethodColumn::Regimes, regimes[mi]}};
    for (const auto& c : cols) {
      CAPTURE(static_cast<int>(c.column));
      const MethodTableCell cell = methodTableCell(m, c.column, f);
      CHECK(cell.applies == c.applies);
      CHECK_FALSE(cell.why.empty());                      // a tooltip either way
      if (!c.applies) CHECK(cell.text == "n/a");
      else CHECK(cell.text != "n/a");
    }
    CHECK(methodHasRegimes(m) == regimes[mi]);
  }
  // The numbers where they apply: yarn's factor 0.1 ln(4) + 1 (s = 4, mscale 1), its square;
  // ntk's base 10000 * 4^(128/126); llama3's counts add up to the 64 pairs.
  const auto cell = [&](ScalingMethod m, MethodColumn c) { return methodTableCell(m, c, s.freqs[static_cast<std::size_t>(m)]).text; };
  CHECK(cell(ScalingMethod::Yarn, MethodColumn::AttentionFactor) == formatShort(0.1 * std::log(4.0) + 1.0, 5));
  CHECK(cell(ScalingMethod::Yarn, MethodColumn::ScoreScale) == formatShort(std::pow(0.1 * std::log(4.0) + 1.0, 2), 5));
  CHECK(cell(ScalingMethod::NtkAware, MethodColumn::EffectiveBase) == formatShort(10000.0 * std::pow(4.0, 128.0 / 126.0), 6));
  CHECK(cell(ScalingMethod::Linear, MethodColumn::Regimes) == "0 / 0 / 64");
  const std::string llama = cell(ScalingMethod::Llama3, MethodColumn::Regimes);
  int k = 0, b = 0, i = 0;
  REQUIRE(std::sscanf(llama.c_str(), "%d / %d / %d", &k, &b, &i) == 3);
  CHECK(k + b + i == 64);
  CHECK(k > 0);
  CHECK(i > 0);
}

TEST_CASE("context view: automatic LongRoPE lists follow head_dim") {
  ContextExtensionPanelState s;
  AppContext ctx;
  s.headDim = 64;
  updateContextExtensionPanel(s, ctx);
  const auto lr = static_cast<std::size_t>(ScalingMethod::LongRope);
  REQUIRE(s.scaling[lr].longFactor.size() == 32);
  CHECK(s.scaling[lr].longFactor.front() == doctest::Approx(1.0));
  CHECK(s.scaling[lr].longFactor.back() == doctest::Approx(4.0));
  CHECK(s.errors[lr].empty());
  // seqLen 16384 > L0 4096: the long factors apply, so the last pair is divided by 4.
  CHECK(s.freqs[lr].invFreq.back() == doctest::Approx(s.freqs[lr].baseInvFreq.back() / 4.0));
}

TEST_CASE("context view: a RoPE config sets the shared parameters and the selected method") {
  ContextExtensionPanelState s;
  AppContext ctx;
  ModelConfig c;
  c.name = "llama-ish";
  c.encoding = ModelEncoding::Rope;
  c.rope.headDim = 64;
  c.rope.base = 500000.0;
  c.rope.scaling.method = ScalingMethod::Llama3;
  c.rope.scaling.factor = 8.0;
  c.rope.scaling.originalMaxPositions = 8192;
  ConfigNotes contextNotes;
  applyContextExtensionConfig(s, c, contextNotes);
  updateContextExtensionPanel(s, ctx);
  CHECK(s.headDim == 64);
  CHECK(s.base == 500000.0);
  CHECK(s.selected == static_cast<int>(ScalingMethod::Llama3));
  CHECK(s.rotaryDims == 64);
  const auto l3 = static_cast<std::size_t>(ScalingMethod::Llama3);
  CHECK(s.freqs[l3].invFreq == computeRopeFrequencies(64, 500000.0, c.rope.scaling).invFreq);
  // Linked factor: the other methods now extend x8 over 8192 too.
  CHECK(s.scaling[static_cast<std::size_t>(ScalingMethod::Linear)].factor == 8.0);
  CHECK(s.scaling[static_cast<std::size_t>(ScalingMethod::Linear)].originalMaxPositions == 8192);

  // Applied once: a later edit stays.
  s.base = 10000.0;
  s.dirty = true;
  updateContextExtensionPanel(s, ctx);
  CHECK(s.base == 10000.0);

  // Another encoding's config leaves the panel alone.
  c.encoding = ModelEncoding::Alibi;
  c.rope.headDim = 32;
  applyContextExtensionConfig(s, c, contextNotes);
  CHECK(s.headDim == 64);
}

TEST_CASE("applyModelConfig: one config reaches every panel of its encoding at once") {
  AppState a;
  const SinusoidalParams sinusoidalBefore = a.sinusoidal.params;
  const int learnedBefore = a.learned.maxLen;
  const int headsBefore = a.alibi.numHeads;

  ModelConfig rope;
  rope.name = "llama-ish";
  rope.encoding = ModelEncoding::Rope;
  rope.rope.headDim = 64;
  rope.rope.base = 500000.0;
  rope.rope.scaling.method = ScalingMethod::Llama3;
  rope.rope.scaling.factor = 8.0;
  rope.rope.scaling.originalMaxPositions = 8192;
  CHECK(applyModelConfig(a, rope).empty());
  CHECK(a.rope.params.headDim == 64);
  CHECK(a.rope.params.base == 500000.0);
  CHECK(a.rope.params.scaling.method == ScalingMethod::Llama3);
  CHECK(a.rope.dirty);
  CHECK(a.context.headDim == 64);
  CHECK(a.context.base == 500000.0);
  CHECK(a.context.selected == static_cast<int>(ScalingMethod::Llama3));
  CHECK(a.context.dirty);
  // The Extrapolation tab runs it as itself: Llama 3 scaling from L0 8192, factor 8, base 500000.
  CHECK(a.extrapolation.trainedLength == 8192);
  CHECK(a.extrapolation.base == 500000.0);
  CHECK(a.extrapolation.headDim == 64);
  CHECK_FALSE(a.extrapolation.autoFactor);
  CHECK(a.extrapolation.factor == 8.0f);
  CHECK(a.extrapolation.scaling.method == ScalingMethod::Llama3);
  CHECK(a.extrapolation.show == std::array<bool, kExtrapolationEncodings>{false, false, false, false, false, false, true, false});
  CHECK(a.sinusoidal.params == sinusoidalBefore);
  CHECK(a.learned.maxLen == learnedBefore);
  CHECK(a.alibi.numHeads == headsBefore);

  ModelConfig alibi;
  alibi.encoding = ModelEncoding::Alibi;
  alibi.numHeads = 16;
  CHECK(applyModelConfig(a, alibi).empty());
  CHECK(a.alibi.numHeads == 16);
  CHECK(a.rope.params.headDim == 64);
  CHECK(a.context.headDim == 64);

  ModelConfig learned;
  learned.encoding = ModelEncoding::Learned;
  learned.maxPositions = 1024;
  learned.hiddenSize = 768;
  const ConfigNotes learnedNotes = applyModelConfig(a, learned);
  // The Extrapolation tab runs the model as itself, its toy model as wide as hidden_size.
  CHECK(learnedNotes.empty());
  CHECK(a.extrapolation.headDim == 768);
  CHECK(a.extrapolation.trainedLength == 1024);
  CHECK(a.extrapolation.show == std::array<bool, kExtrapolationEncodings>{false, true, false, false, false, false, false, false});
  CHECK(a.learned.maxLen == 1024);
  CHECK(a.learned.dModel == 768);
  CHECK(a.learned.numPositions == 1280);   // a quarter past the last row
  CHECK(a.learned.lookupPos == 1024);
  CHECK(a.learned.tableDirty);

  ModelConfig sinusoidal;
  sinusoidal.encoding = ModelEncoding::Sinusoidal;
  sinusoidal.hiddenSize = 513;
  sinusoidal.maxPositions = 4096;
  ConfigNotes oddWidth = applyModelConfig(a, sinusoidal);
  CHECK(a.sinusoidal.params.dModel == 512);   // even, and said
  REQUIRE(oddWidth.size() == 1);
  CHECK(oddWidth[0] == "Sinusoidal tab: hidden_size 513 is not an even integer in [2, 1048576]: shown at 512");
  CHECK(a.sinusoidal.numPositions == 4096);
  CHECK(a.learned.maxLen == 1024);
  CHECK(a.alibi.numHeads == 16);

  // A value past a slider's usual span is used as it is (the slider widens to show it).
  sinusoidal.hiddenSize = 8192;
  ConfigNotes notes = applyModelConfig(a, sinusoidal);
  CHECK(a.sinusoidal.params.dModel == 8192);
  CHECK(notes.empty());
  alibi.numHeads = 200;
  notes = applyModelConfig(a, alibi);
  CHECK(a.alibi.numHeads == 128);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "ALiBi tab: num_attention_heads 200 is not an integer in [1, 128]: shown at 128");
  learned.hiddenSize = 12288;
  learned.maxPositions = 1 << 20;
  notes = applyModelConfig(a, learned);
  CHECK(a.learned.dModel == 12288);   // any width the table allows; the rows shrink to the window's budget
  CHECK(a.learned.maxLen == learnedMaxCells() / 12288);
  CHECK(notes.size() == 3);  // Learned: the table's size; Extrapolation: L0 and the toy width
  CHECK(a.extrapolation.trainedLength == kLabMaxTrainedLength);
}

TEST_CASE("applyModelConfig: the Image RoPE tab takes a config's M-RoPE as mrope-angles --config does") {
  AppState a;
  // (Other tabs may note a value past their sliders; the Image RoPE tab takes these whole.)
  const auto noImageNote = [](const ConfigNotes& notes) {
    return std::none_of(notes.begin(), notes.end(), [](const std::string& n) { return n.rfind("Image RoPE", 0) == 0; });
  };
  // Qwen2.5-VL: head_dim 128, mrope_section 16, 24, 24 in blocks, base 1e6. Qwen3.5: M-RoPE over
  // the 64 rotary dims of head_dim 256 (partial_rotary_factor 0.25), 11, 11, 10 interleaved, base 1e7.
  const struct {
    const char* preset;
    int headDim;
    double base;
    int t, h, w;
    bool interleaved;
  } cases[] = {{"qwen2.5-vl-7b", 128, 1.0e6, 16, 24, 24, false}, {"qwen3.5-27b", 64, 1.0e7, 11, 11, 10, true}};
  for (const auto& c : cases) {
    CAPTURE(c.preset);
    CHECK(noImageNote(applyModelConfig(a, loadPreset(c.preset))));
    CHECK(a.image.mropeHeadDim == c.headDim);
    CHECK(a.image.mropeBase == c.base);
    CHECK(a.image.sectionT == c.t);
    CHECK(a.image.sectionH == c.h);
    CHECK(a.image.sectionW == c.w);
    CHECK(a.image.mropeInterleaved == c.interleaved);
  }
  // The tab's angles are core's for the same parameters, pair axes interleaved.
  updateImagePanel(a.image);
  REQUIRE(a.image.mropeError.empty());
  REQUIRE(a.image.pairAxis.size() == 32);
  CHECK(a.image.pairAxis[0] == 0);
  CHECK(a.image.pairAxis[1] == 1);
  CHECK(a.image.pairAxis[2] == 2);
  RopeParams p;
  p.headDim = 64;
  p.base = 1.0e7;
  const std::vector<MropeSegment> seg = {mropeText(4), mropeImage(1, 4, 6), mropeText(3)};  // the tab's default sequence
  const Grid expected = mropeAngleGrid(p, {11, 11, 10}, true, mropePositionIds(seg));
  CHECK(a.image.mropeAngles.values == expected.values);
  // A plain RoPE config leaves the tab alone.
  ModelConfig plain = loadPreset("llama-3.1-8b");
  a.image.mropeHeadDim = 32;
  applyModelConfig(a, plain);
  CHECK(a.image.mropeHeadDim == 32);
}

TEST_CASE("alibi view: slopes, bias grids and toy attention from core") {
  AlibiPanelState s;
  AppContext ctx;
  updateAlibiPanel(s, ctx);
  CHECK(s.error.empty());
  CHECK(s.slopes == alibiSlopes(12));
  // The window opens at 12 heads and draws every one of them: T = 24 cells a side, one a
  // display cell before a view asks, so each picture is the bias grid itself (masked cells NaN).
  REQUIRE(s.smallImages.size() == 12);
  for (int h = 0; h < 12; ++h) {
    CAPTURE(h);
    const Grid g = alibiBiasGrid(s.slopes[static_cast<std::size_t>(h)], s.numPositions, true);
    const Grid& cells = s.smallImages[static_cast<std::size_t>(h)].cells;
    REQUIRE(cells.values.size() == g.values.size());
    for (std::size_t c = 0; c < g.values.size(); ++c) {
      if (std::isinf(g.values[c])) CHECK(std::isnan(cells.values[c]));
      else CHECK(cells.values[c] == g.values[c]);   // -m (i - j): one rounding, in float64 and in float32
    }
    CHECK(cells.at(5, 2) == doctest::Approx(-3.0 * s.slopes[static_cast<std::size_t>(h)]));
    // Coloured where they were made, for the scale the view draws them with.
    CHECK(s.smallImages[static_cast<std::size_t>(h)].colors.size() == g.values.size());
    // Each small picture's range comes from core's corner values: the grid's own finite range.
    const ValueRange fr = finiteRange(g);
    CHECK(s.smallImages[static_cast<std::size_t>(h)].range.min == fr.min);
    CHECK(s.smallImages[static_cast<std::size_t>(h)].range.max == fr.max);
  }
  // Shared colour scale: from the steepest head's -m (T - 1) to 0. With 12 heads the steepest is
  // head 9, m = 2^-0.5 (the first of the 16-head slopes), not head 1's 2^-1.
  CHECK(s.sharedRange.min == doctest::Approx(-std::pow(2.0, -0.5) * (s.numPositions - 1)));
  CHECK(s.sharedRange.max == doctest::Approx(0.0));

  REQUIRE(s.toyError.empty());
  const int t = static_cast<int>(s.tokens.size());
  CHECK(t == 10);
  REQUIRE(s.weightsPlain.rows == t);
  for (int i = 0; i < t; ++i) {
    CAPTURE(i);
    double a = 0.0, b = 0.0;
    for (int j = 0; j < t; ++j) {
      a += s.weightsPlain.at(i, j);
      b += s.weightsBiased.at(i, j);
    }
    CHECK(a == doctest::Approx(1.0).epsilon(1e-5));
    CHECK(b == doctest::Approx(1.0).epsilon(1e-5));
    for (int j = i + 1; j < t; ++j) CHECK(s.weightsBiased.at(i, j) == 0.0f);  // causal
  }
  // The bias of head 1 (m = 1/2) changes the weights of a late query.
  CHECK(s.weightsBiased.at(t - 1, 0) != doctest::Approx(s.weightsPlain.at(t - 1, 0)));
}

TEST_CASE("alibi view: only the first heads when asked; symmetric, configs and bad sentences") {
  AlibiPanelState s;
  AppContext ctx;
  s.showAll = false;
  s.smallCount = 5;
  updateAlibiPanel(s, ctx);
  REQUIRE(s.smallImages.size() == 12);
  for (int h = 0; h < 12; ++h) {
    CAPTURE(h);
    CHECK(s.smallImages[static_cast<std::size_t>(h)].cells.values.empty() == (h >= 5));
  }
  s.showAll = true;
  s.dirty = true;
  s.causal = false;
  s.numPositions = 8;
  updateAlibiPanel(s, ctx);
  REQUIRE(s.smallImages.size() == 12);
  CHECK(s.smallImages[11].cells.at(2, 5) == doctest::Approx(-alibiSlopes(12)[11] * 3.0));
  CHECK(s.smallImages[11].cells.at(5, 2) == doctest::Approx(-alibiSlopes(12)[11] * 3.0));

  ModelConfig c;
  c.name = "bloom-ish";
  c.encoding = ModelEncoding::Alibi;
  c.numHeads = 16;
  ConfigNotes notes;
  applyAlibiConfig(s, c, notes);
  CHECK(notes.empty());
  updateAlibiPanel(s, ctx);
  CHECK(s.numHeads == 16);
  CHECK(s.slopes == alibiSlopes(16));

  s.sentence = "alone";
  s.dirty = true;
  updateAlibiPanel(s, ctx);
  CHECK(s.toyError == "type at least two words");
  CHECK(s.error.empty());
}

TEST_CASE("alibi view: the small multiples place every head, as large as fits, scrolling below a minimum") {
  // 12 heads in 1000 x 330 px, 8 px gaps, cells 150..320: 6 per row in 2 rows of 160 px
  // (7 per row would be 135 < 150; 5 per row needs 3 rows of 193 = 595 > 330).
  SmallMultipleLayout a = smallMultipleLayout(12, 1000.0f, 330.0f, 8.0f, 150.0f, 320.0f);
  CHECK(a.perRow == 6);
  CHECK(a.rows == 2);
  CHECK(a.cell == doctest::Approx((1000.0 - 5 * 8.0) / 6.0));
  CHECK(a.perRow * a.rows >= 12);
  // One head: as large as allowed, not the whole region.
  SmallMultipleLayout one = smallMultipleLayout(1, 1000.0f, 600.0f, 8.0f, 150.0f, 320.0f);
  CHECK(one.cell == doctest::Approx(320.0));
  CHECK(one.rows == 1);
  // 128 heads cannot fit 1000 x 330 at 150 px: minimum-size grids, 6 per row ((1000 + 8) / 158),
  // 22 rows, and the region scrolls; still every head has a place.
  SmallMultipleLayout many = smallMultipleLayout(128, 1000.0f, 330.0f, 8.0f, 150.0f, 320.0f);
  CHECK(many.perRow == 6);
  CHECK(many.rows == 22);
  CHECK(many.cell >= 150.0f);
  CHECK(many.perRow * many.rows >= 128);
  for (int n = 1; n <= 128; ++n) {
    CAPTURE(n);
    const SmallMultipleLayout l = smallMultipleLayout(n, 700.0f, 400.0f, 8.0f, 120.0f, 300.0f);
    CHECK(l.perRow * l.rows >= n);
    CHECK((l.rows - 1) * l.perRow < n);   // no empty row
    CHECK(l.cell >= 120.0f);
    CHECK(l.cell <= 300.0f);
    CHECK(static_cast<float>(l.perRow) * l.cell + static_cast<float>(l.perRow - 1) * 8.0f <= 700.5f);
  }
  CHECK(smallMultipleLayout(0, 700.0f, 400.0f, 8.0f, 120.0f, 300.0f).rows == 0);
}

TEST_CASE("view settings: save then load restores the parameters; bad values are ignored") {
  RopePanelState r;
  r.params.headDim = 32;
  r.params.base = 500000.0;
  r.params.layout = RopeLayout::Interleaved;
  r.numPositions = 2048;
  r.posM = 100;
  r.gridKind = RopeGridKind::Cos;
  nlohmann::json jr;
  saveRopePanel(r, jr);
  RopePanelState r2;
  r2.dirty = false;
  loadRopePanel(r2, jr);
  CHECK(r2.dirty);
  CHECK(r2.params.headDim == 32);
  CHECK(r2.params.base == 500000.0);
  CHECK(r2.params.layout == RopeLayout::Interleaved);
  CHECK(r2.numPositions == 2048);
  CHECK(r2.posM == 100);
  CHECK(r2.gridKind == RopeGridKind::Cos);
  jr["head_dim"] = 999;
  jr["base"] = "big";
  jr["positions"] = -5;
  RopePanelState r3;
  loadRopePanel(r3, jr);
  CHECK(r3.params.headDim == RopeParams{}.headDim);
  CHECK(r3.params.base == 10000.0);
  CHECK(r3.numPositions == 256);

  ContextExtensionPanelState c;
  c.selected = static_cast<int>(ScalingMethod::Llama3);
  c.wavelength = true;
  c.scaling[static_cast<std::size_t>(ScalingMethod::Yarn)].betaFast = 16.0;
  nlohmann::json jc;
  saveContextExtensionPanel(c, jc);
  ContextExtensionPanelState c2;
  loadContextExtensionPanel(c2, jc);
  CHECK(c2.selected == static_cast<int>(ScalingMethod::Llama3));
  CHECK(c2.wavelength);
  CHECK(c2.scaling[static_cast<std::size_t>(ScalingMethod::Yarn)].betaFast == 16.0);

  AlibiPanelState a;
  a.numHeads = 40;
  a.causal = false;
  a.selectedHead = 30;
  a.sentence = "a b c";
  nlohmann::json ja;
  saveAlibiPanel(a, ja);
  AlibiPanelState a2;
  loadAlibiPanel(a2, ja);
  CHECK(a2.numHeads == 40);
  CHECK_FALSE(a2.causal);
  CHECK(a2.selectedHead == 30);
  CHECK(a2.sentence == "a b c");
}

}  // TEST_SUITE

TEST_CASE("rope view: a 2^20-position score picture is each block's exact mean (triangular offset weights)") {
  RopePanelState s;
  AppContext ctx;
  s.numPositions = 1 << 20;
  s.gridKind = RopeGridKind::Score;
  updateRopePanel(s, ctx);
  REQUIRE(s.score.waitIdle(60.0));
  // Inputs that just changed at T > kRopeLiveCurvePositions: the picture comes first, the O(T)
  // curves wait until the inputs rest, and the colours span the picture's own range meanwhile.
  const RopeScoreResult* first = s.score.result();
  REQUIRE(first != nullptr);
  CHECK(first->inputVersion == s.inputVersion);
  CHECK(first->curvesVersion != s.inputVersion);
  CHECK(first->byOffset == nullptr);
  CHECK(first->image.window.rows == (1 << 20));
  CHECK(first->image.range.max == finiteRange(first->image.cells).max);
  // Rested: the next update asks for the curves, and they belong to these inputs.
  std::this_thread::sleep_for(std::chrono::duration<double>(kRopeCurveRestSeconds + 0.05));
  updateRopePanel(s, ctx);
  REQUIRE(s.score.waitIdle(60.0));
  const RopeScoreResult* r = s.score.result();
  REQUIRE(r != nullptr);
  REQUIRE(r->curvesVersion == s.inputVersion);
  REQUIRE(r->byOffset != nullptr);
  CHECK(r->byOffset->size() == (std::size_t{1} << 21) - 1);
  CHECK(r->decayBound->size() == std::size_t{1} << 20);
  CHECK(r->image.range.max == finiteRange(*r->byOffset).max);
  const HeatmapWindow& w = r->image.window;
  REQUIRE(w.rows == (1 << 20));
  REQUIRE(r->image.cells.rows == w.outRows);
  const long long T = 1 << 20;
  const std::vector<double>& f = *r->byOffset;   // s(m - n), index m - n + T - 1
  for (int i : {0, w.outRows / 2, w.outRows - 1}) {
    for (int j : {0, w.outCols - 1}) {
      CAPTURE(i);
      CAPTURE(j);
      const long long m0 = areaCellBegin(T, w.outRows, i), m1 = areaCellBegin(T, w.outRows, i + 1);
      const long long n0 = areaCellBegin(T, w.outCols, j), n1 = areaCellBegin(T, w.outCols, j + 1);
      // Brute force: each offset d = m - n weighted by how many cells of the block have it.
      long double sum = 0;
      for (long long d = m0 - (n1 - 1); d <= (m1 - 1) - n0; ++d) {
        const long long mLo = std::max(m0, n0 + d), mHi = std::min(m1 - 1, n1 - 1 + d);
        sum += static_cast<long double>(mHi - mLo + 1) * f[static_cast<std::size_t>(d + T - 1)];
      }
      const double brute = static_cast<double>(sum / static_cast<long double>((m1 - m0) * (n1 - n0)));
      CHECK(r->image.cells.at(i, j) == doctest::Approx(brute).epsilon(1e-5));
    }
  }
}
