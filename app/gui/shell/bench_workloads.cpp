// bench_workloads.cpp: see bench_workloads.hpp.
#include "app/gui/shell/bench_workloads.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "app/cli/model_config.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/base/config_notes.hpp"
#include "app/gui/panels/panels.hpp"
#include "core/lessons/learn.hpp"

namespace posviz::app {

namespace {

namespace P = cli::params;

// 0, 1, .., span, span - 1, .., 0, 1, ..: frame i of an integer dragged one step a frame down
// from its end and back, so it stays in range and two frames in a row differ.
int pingPong(int i, int span) {
  const int p = i % (2 * span);
  return p <= span ? p : 2 * span - p;
}

// "w0 w1 .. w{n-1}" (or reversed): n distinct words for the toy tabs' sentences.
std::string words(int n, bool reversed = false) {
  std::string s;
  for (int k = 0; k < n; ++k) s += (k == 0 ? "w" : " w") + std::to_string(reversed ? n - 1 - k : k);
  return s;
}

template <std::size_t N>
void setText(char (&dst)[N], const std::string& src) {
  std::snprintf(dst, N, "%s", src.c_str());
}

int end(const cli::Param& p) { return static_cast<int>(p.spanMax()); }   // where the slider ends

// Sinusoidal and RoPE score from 512 to 2^31 positions: what the closed-form pictures promise.
std::vector<Workload> sizeWorkloads() {
  auto sinusoidal = [](int positions, int dModel) {
    return Workload{
        "sinusoidal " + std::to_string(positions) + " x " + std::to_string(dModel), "sinusoidal",
        [positions, dModel](AppState& s) {
          SinusoidalPanelState& p = s.sinusoidal;
          p.numPositions = positions;
          p.params.dModel = dModel;
          p.params.base = 10000.0;
          p.view = SinusoidalView::Encoding;
          p.selectView = true;
          p.peMap.resetView();
          p.dirty = true;
        },
        [](AppState& s, int i) {   // base from 10000 upwards, 0.5 % per frame: a slow slider drag
          s.sinusoidal.params.base = 10000.0 * (1.0 + 0.005 * (i + 1));
          s.sinusoidal.dirty = true;
        },
        [](AppState& s) { return s.sinusoidal.peImage.result() ? s.sinusoidal.peImage.result()->version : -1LL; }};
  };
  auto ropeScore = [](int positions) {
    return Workload{
        "RoPE score s(m, n) " + std::to_string(positions) + " x " + std::to_string(positions), "rope",
        [positions](AppState& s) {
          RopePanelState& p = s.rope;
          p.numPositions = positions;
          p.params.base = 10000.0;
          p.gridKind = RopeGridKind::Score;
          p.dirty = true;
        },
        [](AppState& s, int i) {
          s.rope.params.base = 10000.0 * (1.0 + 0.005 * (i + 1));
          s.rope.dirty = true;
        },
        [](AppState& s) { return s.rope.score.result() ? s.rope.score.result()->inputVersion : -1LL; }};
  };
  // 512 x 4096 beside 2^31 x 4096 tells what d_model costs a frame from what the positions do.
  return {sinusoidal(512, 64),   sinusoidal(512, 4096), sinusoidal(131072, 128), sinusoidal(32768, 4096), sinusoidal(2147483647, 4096),
          ropeScore(512),        ropeScore(16384),        ropeScore(1 << 20)};
}

// Learn: the step whose figure computes the most (the comparison table), l0 at its end, dragged.
Workload learnWorkload() {
  static constexpr const char* kStep = "choose-table";
  return Workload{
      "Learn choose-table, L0 dragged", "learn",
      [](AppState& s) {
        learnGo(s.learn, kStep, false);
        s.learn.playing = false;
        if (const auto r = learn::findStep(kStep)) {
          const learn::Step& st = r->get();
          std::vector<double> v = learn::defaultValues(st);
          for (std::size_t k = 0; k < st.controls.size(); ++k)
            if (st.controls[k].kind != learn::ControlKind::Switch && !st.controls[k].extra) v[k] = st.controls[k].max;
          s.learn.values[st.id] = v;
        }
      },
      [](AppState& s, int i) {
        const auto r = learn::findStep(kStep);
        std::vector<double>& v = s.learn.values[kStep];
        if (r && !v.empty()) v[0] = r->get().controls[0].max - pingPong(i + 1, 64);
      },
      [](AppState& s) -> long long {
        const LearnPanelState& l = s.learn;
        return l.shownStep == kStep && !l.shownValues.empty() ? std::llround(l.shownValues[0]) : -1LL;
      }};
}

// Learned: the largest random table the tab builds; a new seed rebuilds it whole.
Workload learnedWorkload() {
  const int maxLen = end(P::learned::kTabPositions), dModel = static_cast<int>(std::min<long long>(end(P::learned::kDModel), learnedMaxCells() / maxLen));
  return Workload{
      "Learned " + std::to_string(maxLen) + " x " + std::to_string(dModel) + ", seed", "learned",
      [maxLen, dModel](AppState& s) {
        LearnedPanelState& p = s.learned;
        p.fromFile = false;
        p.maxLen = maxLen;
        p.dModel = dModel;
        p.seed = static_cast<std::uint64_t>(P::learned::kSeed.def);
        p.numPositions = maxLen;
        p.map.resetView();
        p.tableDirty = true;
        p.dirty = true;
      },
      [](AppState& s, int i) {
        s.learned.seed = static_cast<std::uint64_t>(i + 1);
        s.learned.tableDirty = true;
      },
      [](AppState& s) { return s.learned.image.result() ? s.learned.image.result()->version : -1LL; }};
}

// Context extension: every method's frequencies at the largest head_dim; the base moves them all.
Workload contextWorkload() {
  const int headDim = end(P::rope::kHeadDim);
  return Workload{
      "Context extension head_dim " + std::to_string(headDim) + ", base", "context-extension",
      [headDim](AppState& s) {
        ContextExtensionPanelState& p = s.context;
        p.headDim = headDim;
        p.base = P::rope::kBase.def;
        p.rotaryFraction = 1.0;
        p.visible.fill(true);
        p.dirty = true;
      },
      [](AppState& s, int i) {
        s.context.base = P::rope::kBase.def * (1.0 + 0.005 * (i + 1));
        s.context.dirty = true;
      },
      [](AppState& s) -> long long {
        return s.context.freqs[0].invFreq.empty() ? -1LL : std::llround(s.context.freqs[0].effectiveBase * 1000.0);
      }};
}

// Image RoPE: the largest patch grid and M-RoPE sequence; the axial base moves every grid.
Workload imageWorkload() {
  const int rows = end(P::axial::kPatchRows), cols = end(P::axial::kPatchCols);
  return Workload{
      "Image RoPE " + std::to_string(rows) + " x " + std::to_string(cols) + " patches, base", "image-rope",
      [rows, cols](AppState& s) {
        ImagePanelState& p = s.image;
        p.base = AxialRopeParams{}.base;
        p.rows = rows;
        p.cols = cols;
        p.queryRow = rows / 2;
        p.queryCol = cols / 2;
        p.textBefore = end(P::mrope::kTextBefore);
        p.imageH = end(P::mrope::kImageRows);
        p.imageW = end(P::mrope::kImageCols);
        p.textAfter = end(P::mrope::kTextAfter);
        for (HeatmapState* m : {&p.queryMap, &p.offsetMap, &p.angleMap, &p.idsMap, &p.mropeMap}) m->resetView();
        p.dirty = true;
      },
      [](AppState& s, int i) {
        s.image.base = AxialRopeParams{}.base * (1.0 + 0.005 * (i + 1));
        s.image.dirty = true;
      },
      [](AppState& s) { return s.image.version; }};
}

// ALiBi: every head's bias grid at the largest T; the head count changes every slope.
Workload alibiWorkload() {
  const int heads = end(P::alibi::kTabHeads), positions = end(P::alibi::kTabPositions);
  return Workload{
      "ALiBi " + std::to_string(heads) + " heads x " + std::to_string(positions) + ", heads", "alibi",
      [heads, positions](AppState& s) {
        AlibiPanelState& p = s.alibi;
        p.numHeads = heads;
        p.numPositions = positions;
        p.showAll = true;
        p.selectedHead = 0;
        for (HeatmapState& m : p.smallMaps) m.resetView();
        p.dirty = true;
      },
      [heads](AppState& s, int i) {
        s.alibi.numHeads = heads - pingPong(i + 1, std::min(16, heads - 1));
        s.alibi.dirty = true;
      },
      [](AppState& s) { return s.alibi.version; }};
}

// Relative: every grid at the largest T and bucket table; FIRE's c changes the costliest grid.
Workload relativeWorkload() {
  const int positions = end(P::relative::kTabPositions);
  return Workload{
      "Relative T " + std::to_string(positions) + ", FIRE c", "relative",
      [positions](AppState& s) {
        RelativePanelState& p = s.relative;
        p.numPositions = positions;
        p.numBuckets = end(P::t5::kNumBuckets);
        p.t5Heads = end(P::t5::kHeads);
        p.fireHidden = end(P::fire::kHidden);
        p.fireC = FireParams{}.c;
        p.headDim = end(P::rope::kHeadDim);
        p.maxOffset = end(P::xpos::kMaxOffset);
        p.txlDModel = end(P::txl::kDModel);
        p.txlDHead = end(P::txl::kDHead);
        for (HeatmapState* m : {&p.bucketMap, &p.tableMap, &p.t5BiasMap, &p.kerpleMap, &p.fireMap, &p.alibiMap}) m->resetView();
        p.dirty = true;
      },
      [](AppState& s, int i) {
        s.relative.fireC = FireParams{}.c * (1.0 + 0.005 * (i + 1));
        s.relative.dirty = true;
      },
      [](AppState& s) { return s.relative.version; }};
}

// Worked examples: no size; every step of every example in turn (a recompute would reset the step).
Workload examplesWorkload() {
  return Workload{
      "Worked examples, every step", "worked-examples",
      [](AppState& s) {
        s.examples.showTests = false;
        s.examples.selected = 0;
        s.examples.step = 0;
        s.examples.map.resetView();
      },
      [](AppState& s, int i) {
        ExamplesPanelState& e = s.examples;
        int k = i + 1, total = 0;
        for (const auto& ex : e.examples) total += static_cast<int>(ex.steps.size());
        if (total == 0) return;
        k %= total;
        for (std::size_t x = 0; x < e.examples.size(); ++x) {
          const int n = static_cast<int>(e.examples[x].steps.size());
          if (k < n) {
            e.selected = static_cast<int>(x);
            e.step = k;
            return;
          }
          k -= n;
        }
      },
      [](AppState& s) -> long long {
        return s.examples.shownExample < 0 ? -1LL : static_cast<long long>(s.examples.shownExample) * 100000LL + s.examples.shownStep;
      }};
}

// Compare: the largest model and L0, d_model dragged in steps that keep 64 heads valid. Every
// column's checks depend on d_model (an L0 drag recomputes only the learned column's).
Workload compareWorkload() {
  const int dModel = end(P::compare::kDModel), l0 = end(P::compare::kTrainedLength);
  return Workload{
      "Compare d_model " + std::to_string(dModel) + ", L0 " + std::to_string(l0) + ", d_model", "compare",
      [dModel, l0](AppState& s) {
        ComparePanelState& p = s.compare;
        p.dModel = dModel;
        p.numHeads = std::min(end(P::compare::kHeads), dModel / 2);
        p.trainedLength = l0;
        p.targetLength = std::max(end(P::compare::kTargetLength), l0 + 1);
        p.dirty = true;
      },
      [dModel](AppState& s, int i) {
        s.compare.dModel = dModel - 128 * pingPong(i + 1, 32);
        s.compare.dirty = true;
      },
      [](AppState& s) -> long long { return s.compare.table ? static_cast<long long>(s.compare.table->params.dModel) : -1LL; }};
}

// Where position enters: the longest sentence and the largest toy model; the seed redraws all.
Workload pipelineWorkload() {
  const int d = end(P::toy::kDModel);
  return Workload{
      "Where position enters " + std::to_string(kPipelineMaxTokens) + " x " + std::to_string(d) + ", seed", "where-position-enters",
      [d](AppState& s) {
        PipelinePanelState& p = s.pipeline;
        setText(p.sentence, words(kPipelineMaxTokens));
        p.rotateValues = true;
        p.toyDModel = d;
        p.toySeed = static_cast<int>(P::toy::kSeed.def);
        for (HeatmapState* m : {&p.mapPlain, &p.mapRotated}) m->resetView();
        p.dirty = true;
      },
      [](AppState& s, int i) {
        s.pipeline.toySeed = (i + 1) % (static_cast<int>(P::toy::kSeed.max) + 1);
        s.pipeline.dirty = true;
      },
      [](AppState& s) { return s.pipeline.version; }};
}

// Word order: the longest sentence and the largest toy model; the seed redraws every encoding.
Workload orderWorkload() {
  const int d = end(P::toy::kDModel);
  return Workload{
      "Word order " + std::to_string(kOrderMaxTokens) + " words x " + std::to_string(d) + ", seed", "word-order",
      [d](AppState& s) {
        OrderPanelState& p = s.order;
        setText(p.sentence, words(kOrderMaxTokens));
        setText(p.shuffled, words(kOrderMaxTokens, true));
        p.nopeView = false;
        p.toyDModel = d;
        p.toySeed = static_cast<int>(P::toy::kSeed.def);
        for (HeatmapState* m : {&p.mapOriginal, &p.mapShuffled, &p.mapExpected, &p.mapOutShuffled, &p.mapOutExpected}) m->resetView();
        p.dirty = true;
      },
      [](AppState& s, int i) {
        s.order.toySeed = (i + 1) % (static_cast<int>(P::toy::kSeed.max) + 1);
        s.order.dirty = true;
      },
      [](AppState& s) { return s.order.version; }};
}

// Extrapolation: the largest L0 its slider reaches, curves at 8 L0; L0 moves every run's keys.
Workload extrapolationWorkload() {
  const int l0 = std::min(end(P::extrapolation::kTrainedLength), kLabMaxTrainedLength);
  return Workload{
      "Extrapolation L0 " + std::to_string(l0) + ", L0", "extrapolation",
      [l0](AppState& s) {
        ExtrapolationPanelState& p = s.extrapolation;
        p.trainedLength = l0;
        p.headDim = ExtrapolationSetup{}.model.dModel;
        p.base = P::rope::kBase.def;
        p.autoFactor = true;
        p.multiple = static_cast<int>(kExtrapolationMultiples.size()) - 1;
        p.show.fill(true);
        p.dirty = true;
        p.plotsDirty = true;
      },
      [l0](AppState& s, int i) {
        s.extrapolation.trainedLength = l0 - pingPong(i + 1, 64);
        s.extrapolation.dirty = true;
      },
      [](AppState& s) { return s.extrapolation.plottedId; }};
}

// Train: nothing trains per frame; the trained length redraws the task's example sequences.
Workload trainWorkload() {
  const int l = end(P::training::kTrainLength);
  return Workload{
      "Train L " + std::to_string(l) + ", task examples", "train",
      [l](AppState& s) { s.train.trainLength = l; },
      [l](AppState& s, int i) { s.train.trainLength = l - pingPong(i + 1, std::min(16, l - 1)); },
      [](AppState& s) -> long long { return s.train.session ? -1LL : static_cast<long long>(s.train.trainLength); }};
}

// Model: the preset with the most layers and two RoPE kinds; the selected kind redraws the tab.
Workload modelWorkload() {
  static constexpr const char* kPreset = "olmo-3.1-32b-instruct";
  return Workload{
      "Model olmo-3.1-32b (64 layers), kind", "model",
      [](AppState& s) {
        ModelPanelState& m = s.model;
        m.others.clear();
        ConfigNotes notes;
        try {
          applyModelPanelConfig(m, cli::loadPreset(kPreset), notes);
        } catch (const std::exception& e) {
          m.error = e.what();
        }
        m.selectedKind = 0;
      },
      [](AppState& s, int i) {
        ModelPanelState& m = s.model;
        if (m.config && !m.config->layerKinds.empty()) m.selectedKind = (i + 1) % static_cast<int>(m.config->layerKinds.size());
      },
      [](AppState& s) -> long long { return s.model.config ? static_cast<long long>(s.model.selectedKind) : -1LL; }};
}

}  // namespace

std::vector<Workload> benchWorkloads() {
  std::vector<Workload> all = sizeWorkloads();
  for (Workload (*make)() : {learnWorkload, learnedWorkload, contextWorkload, imageWorkload, alibiWorkload, relativeWorkload,
                             examplesWorkload, compareWorkload, pipelineWorkload, orderWorkload, extrapolationWorkload,
                             trainWorkload, modelWorkload})
    all.push_back(make());
  return all;
}

}  // namespace posviz::app
