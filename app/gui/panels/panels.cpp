#include "app/gui/panels/panels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "app/cli/tabs.hpp"
#include "app/gui/shell/settings.hpp"

namespace posviz::app {

namespace {

void saveSinusoidal(const AppState& a, nlohmann::json& j) {
  const SinusoidalPanelState& s = a.sinusoidal;
  j["d_model"] = s.params.dModel;
  j["base"] = s.params.base;
  j["layout"] = s.params.layout == SinusoidalLayout::Tensor2Tensor ? "tensor2tensor" : "interleaved";
  j["positions"] = s.numPositions;
  j["pos"] = s.pos;
  j["k"] = s.offsetK;
  j["pair"] = s.pair;
  j["similarity_positions"] = s.simPositions;
  j["colormap"] = colormapName(s.colormap);
}

void loadSinusoidal(AppState& a, const nlohmann::json& j) {
  SinusoidalPanelState& s = a.sinusoidal;
  readSetting(j, "d_model", s.params.dModel, 2, kSinusoidalMaxDModel);
  s.params.dModel -= s.params.dModel % 2;
  readSetting(j, "base", s.params.base, kSinusoidalMinBase, kSinusoidalMaxBase);
  if (std::string layout; readSetting(j, "layout", layout))
    s.params.layout = layout == "tensor2tensor" ? SinusoidalLayout::Tensor2Tensor : SinusoidalLayout::Interleaved;
  readSetting(j, "positions", s.numPositions, 1, kSinusoidalMaxPositions);
  readSetting(j, "pos", s.pos, 0, kSinusoidalMaxPositions - 1);
  readSetting(j, "k", s.offsetK, -kSinusoidalMaxOffsetK, kSinusoidalMaxOffsetK);
  readSetting(j, "pair", s.pair, 0, s.params.dModel / 2 - 1);
  readSetting(j, "similarity_positions", s.simPositions, 2, kSinusoidalMaxSimilarity);
  readSetting(j, "colormap", s.colormap);
  s.dirty = true;
}

void tweakSinusoidal(AppState& a) {
  a.sinusoidal.params.base = a.sinusoidal.params.base > 1000.0 ? 100.0 : 10000.0;
  a.sinusoidal.dirty = true;
}

void saveLearned(const AppState& a, nlohmann::json& j) {
  const LearnedPanelState& s = a.learned;
  j["max_len"] = s.maxLen;
  j["d_model"] = s.dModel;
  j["seed"] = s.seed;
  j["std"] = s.stddev;
  j["positions"] = s.numPositions;
  j["lookup_pos"] = s.lookupPos;
  j["path"] = s.path;
  j["colormap"] = colormapName(s.colormap);
}

void loadLearned(AppState& a, const nlohmann::json& j) {
  LearnedPanelState& s = a.learned;
  readSetting(j, "max_len", s.maxLen, 1, kLearnedMaxPositions);
  readSetting(j, "d_model", s.dModel, 1, kLearnedMaxDModel);
  readSetting(j, "seed", s.seed, 0, static_cast<std::uint64_t>(std::numeric_limits<int>::max()));   // the seed field is an int
  // Compared as the float the slider holds: 0.001f saved reads back as 0.001, just below 0.001f.
  if (double sd = 0.0; readSetting(j, "std", sd, 0.0, 1e30)) {
    const float f = static_cast<float>(sd);
    if (f >= kLearnedMinStd && f <= kLearnedMaxStd) s.stddev = f;
  }
  readSetting(j, "positions", s.numPositions, 1, kLearnedMaxPositions);
  readSetting(j, "lookup_pos", s.lookupPos, 0, kLearnedMaxPositions - 1);
  readSetting(j, "path", s.path);
  readSetting(j, "colormap", s.colormap);
  s.tableDirty = true;
  s.dirty = true;
}

void tweakLearned(AppState& a) {
  a.learned.seed += 1;
  a.learned.tableDirty = true;
  a.learned.dirty = true;
}

// One visible change per view, for tests (the picture must differ afterwards).
void tweakRope(AppState& a) {
  a.rope.params.base = a.rope.params.base > 1000.0 ? 100.0 : 10000.0;
  a.rope.dirty = true;
}
void tweakContext(AppState& a) {
  a.context.base = a.context.base > 1000.0 ? 100.0 : 10000.0;
  a.context.dirty = true;
}
void tweakImage(AppState& a) {
  a.image.base = a.image.base > 1000.0 ? 100.0 : 10000.0;
  a.image.dirty = true;
}
void tweakAlibi(AppState& a) {
  a.alibi.causal = !a.alibi.causal;
  a.alibi.dirty = true;
}
void tweakExamples(AppState& a) {
  a.examples.selected = a.examples.selected == 0 ? 1 : 0;
  a.examples.step = 0;
  a.examples.dirty = true;
}
void tweakOrder(AppState& a) {
  a.order.encoding = a.order.encoding == 0 ? 1 : 0;
  a.order.dirty = true;
}

void tweakExtrapolation(AppState& a) {
  a.extrapolation.multiple = a.extrapolation.multiple == 0 ? 3 : 0;
  a.extrapolation.plotsDirty = true;
}

void tweakModel(AppState& a) {
  if (!a.model.config || a.model.config->layerKinds.empty()) return;
  a.model.selectedKind = (a.model.selectedKind + 1) % static_cast<int>(a.model.config->layerKinds.size());
}

// The Compare and Where-position-enters views: their parameters are kept between runs.
void saveCompare(const AppState& a, nlohmann::json& j) {
  j["d_model"] = a.compare.dModel;
  j["heads"] = a.compare.numHeads;
  j["trained_length"] = a.compare.trainedLength;
  j["target_length"] = a.compare.targetLength;
  j["seed"] = a.compare.seed;
}
void loadCompare(AppState& a, const nlohmann::json& j) {
  ComparePanelState& s = a.compare;
  readSetting(j, "d_model", s.dModel, 2, 8192);
  s.dModel -= s.dModel % 2;
  readSetting(j, "heads", s.numHeads, 1, 64);
  readSetting(j, "trained_length", s.trainedLength, 2, 1 << 20);
  readSetting(j, "target_length", s.targetLength, 2, 1 << 29);
  readSetting(j, "seed", s.seed, 0, 999);
  s.dirty = true;
}
void tweakCompare(AppState& a) {
  a.compare.targetLength = a.compare.targetLength > a.compare.trainedLength ? a.compare.trainedLength / 2 : a.compare.trainedLength * 4;
  a.compare.dirty = true;
}
void savePipeline(const AppState& a, nlohmann::json& j) {
  j["encoding"] = positionEncodingName(pipelineEncodings()[static_cast<std::size_t>(std::clamp(a.pipeline.encoding, 0, 4))]);
  j["concatenate"] = a.pipeline.concatenate;
  j["rotate_values"] = a.pipeline.rotateValues;
}
void loadPipeline(AppState& a, const nlohmann::json& j) {
  PipelinePanelState& s = a.pipeline;
  if (std::string enc; readSetting(j, "encoding", enc))
    for (std::size_t i = 0; i < pipelineEncodings().size(); ++i)
      if (enc == positionEncodingName(pipelineEncodings()[i])) s.encoding = static_cast<int>(i);
  readSetting(j, "concatenate", s.concatenate);
  readSetting(j, "rotate_values", s.rotateValues);
  s.dirty = true;
}
void tweakPipeline(AppState& a) {
  a.pipeline.encoding = (a.pipeline.encoding + 2) % static_cast<int>(pipelineEncodings().size());
  a.pipeline.rotateValues = !a.pipeline.rotateValues;
  a.pipeline.dirty = true;
}

// The Model view's "Open": that layer kind's parameters become every panel's, and its tab opens
// (context extension when the RoPE is scaled).
void openLayerKind(AppState& a, int kindIndex) {
  cli::ModelConfig c = *a.model.config;
  const cli::LayerKind& k = c.layerKinds.at(static_cast<std::size_t>(kindIndex));
  switch (k.scheme) {
    case cli::LayerScheme::Rope:
      c.encoding = cli::ModelEncoding::Rope;
      c.rope = k.rope;
      break;
    case cli::LayerScheme::Alibi: c.encoding = cli::ModelEncoding::Alibi; break;
    case cli::LayerScheme::Learned: c.encoding = cli::ModelEncoding::Learned; break;
    case cli::LayerScheme::NoPE:
    case cli::LayerScheme::None: return;
  }
  a.model.selectedKind = kindIndex;
  if (const ConfigNotes notes = applyModelConfig(a, c); !notes.empty()) a.notice = configNotesText(c.name, notes);
  a.requestedPanel = findPanel(cli::tabShowing(c.encoding, c.encoding == cli::ModelEncoding::Rope && k.rope.scaling.method != ScalingMethod::None));
}

// The Learn path: where the student is, what they have seen, the values they set per step.
void saveLearn(const AppState& a, nlohmann::json& j) {
  const LearnPanelState& s = a.learn;
  j["step"] = s.step;
  j["visited"] = s.visited;
  nlohmann::json values = nlohmann::json::object();
  for (const auto& [id, v] : s.values) values[id] = v;
  j["values"] = values;
  j["speed"] = s.playSpeed;
  j["show_claims"] = s.showClaim;
}
void loadLearn(AppState& a, const nlohmann::json& j) {
  LearnPanelState& s = a.learn;
  if (std::string step; readSetting(j, "step", step) && learn::findStep(step)) s.step = step;
  if (j.contains("visited") && j["visited"].is_array())
    for (const nlohmann::json& id : j["visited"])
      if (id.is_string() && learn::findStep(id.get<std::string>())) s.visited.insert(id.get<std::string>());
  if (j.contains("values") && j["values"].is_object())
    for (const auto& [id, v] : j["values"].items()) {
      const auto ref = learn::findStep(id);
      if (!ref || !v.is_array()) continue;
      std::vector<double> values;
      for (const nlohmann::json& x : v) values.push_back(x.is_number() ? x.get<double>() : std::nan(""));
      s.values[id] = learn::clampValues(ref->get(), values);  // out-of-range values come back clamped, NaN as defaults
    }
  readSetting(j, "speed", s.playSpeed, 0.25f, 20.0f);
  readSetting(j, "show_claims", s.showClaim);
}
void tweakLearn(AppState& a) { learnNext(a.learn); }

// Learn's "Open in <tab>": the step's values become that tab's settings, and the tab opens.
void openFromLearn(AppState& a, const OpenRequest& r) {
  const int index = findPanel(r.tab);
  if (index < 0) return;
  if (index == findPanel("worked-examples")) examplesSelectByName(a.examples, r.example);
  nlohmann::json j = nlohmann::json::object();
  for (const learn::OpenSetting& o : r.settings) {
    if (o.isSwitch)
      j[o.key] = o.value >= 0.5;
    else if (o.value == std::floor(o.value) && std::abs(o.value) < 1e15)
      j[o.key] = static_cast<long long>(o.value);
    else
      j[o.key] = o.value;
  }
  const PanelInfo& p = panels()[static_cast<std::size_t>(index)];
  if (p.load != nullptr && !r.settings.empty()) p.load(a, j);
  a.requestedPanel = index;
}

// Each tab of the vocabulary (app/cli/tabs.hpp) with the functions that draw and keep it.
struct PanelFunctions {
  const char* name;
  void (*draw)(AppState&, AppContext&);
  void (*save)(const AppState&, nlohmann::json&);
  void (*load)(AppState&, const nlohmann::json&);
  void (*tweak)(AppState&);
};

const PanelFunctions kFunctions[] = {
    {"learn", [](AppState& a, AppContext& c) { if (auto r = drawLearnPanel(a.learn, c)) openFromLearn(a, *r); }, saveLearn, loadLearn,
     tweakLearn},
    {"sinusoidal", [](AppState& a, AppContext& c) { drawSinusoidalPanel(a.sinusoidal, c); }, saveSinusoidal,
     loadSinusoidal, tweakSinusoidal},
    {"learned", [](AppState& a, AppContext& c) { drawLearnedPanel(a.learned, c); }, saveLearned, loadLearned,
     tweakLearned},
    {"rope", [](AppState& a, AppContext& c) { drawRopePanel(a.rope, c); },
     [](const AppState& a, nlohmann::json& j) { saveRopePanel(a.rope, j); },
     [](AppState& a, const nlohmann::json& j) { loadRopePanel(a.rope, j); }, tweakRope},
    {"context-extension", [](AppState& a, AppContext& c) { drawContextExtensionPanel(a.context, c); },
     [](const AppState& a, nlohmann::json& j) { saveContextExtensionPanel(a.context, j); },
     [](AppState& a, const nlohmann::json& j) { loadContextExtensionPanel(a.context, j); }, tweakContext},
    {"image-rope", [](AppState& a, AppContext& c) { drawImagePanel(a.image, c); },
     [](const AppState& a, nlohmann::json& j) { saveImagePanel(a.image, j); },
     [](AppState& a, const nlohmann::json& j) { loadImagePanel(a.image, j); }, tweakImage},
    {"alibi", [](AppState& a, AppContext& c) { drawAlibiPanel(a.alibi, c); },
     [](const AppState& a, nlohmann::json& j) { saveAlibiPanel(a.alibi, j); },
     [](AppState& a, const nlohmann::json& j) { loadAlibiPanel(a.alibi, j); }, tweakAlibi},
    {"relative", [](AppState& a, AppContext& c) { drawRelativePanel(a.relative, c); },
     [](const AppState& a, nlohmann::json& j) { saveRelativePanel(a.relative, j); },
     [](AppState& a, const nlohmann::json& j) { loadRelativePanel(a.relative, j); },
     [](AppState& a) { a.relative.t5Causal = !a.relative.t5Causal; a.relative.dirty = true; }},
    {"worked-examples", [](AppState& a, AppContext& c) { drawExamplesPanel(a.examples, c); }, nullptr, nullptr, tweakExamples},
    {"compare", [](AppState& a, AppContext& c) { if (auto t = drawComparePanel(a.compare, c); !t.empty()) a.requestedPanel = findPanel(t); },
     saveCompare, loadCompare, tweakCompare},
    {"where-position-enters", [](AppState& a, AppContext& c) { drawPipelinePanel(a.pipeline, c); }, savePipeline, loadPipeline, tweakPipeline},
    {"word-order", [](AppState& a, AppContext& c) { drawOrderPanel(a.order, c); }, nullptr, nullptr, tweakOrder},
    {"extrapolation", [](AppState& a, AppContext& c) { drawExtrapolationPanel(a.extrapolation, c); },
     [](const AppState& a, nlohmann::json& j) { saveExtrapolationPanel(a.extrapolation, j); },
     [](AppState& a, const nlohmann::json& j) { loadExtrapolationPanel(a.extrapolation, j); }, tweakExtrapolation},
    {"model", [](AppState& a, AppContext& c) { if (auto k = drawModelPanel(a.model, c)) openLayerKind(a, *k); }, nullptr, nullptr,
     tweakModel},
};

std::vector<PanelInfo> buildPanels() {
  std::vector<PanelInfo> out;
  for (const cli::TabDef& tab : cli::tabs()) {
    const PanelFunctions* f = nullptr;
    for (const PanelFunctions& candidate : kFunctions)
      if (tab.name == candidate.name) f = &candidate;
    if (f == nullptr) throw std::logic_error("panels: tab \"" + tab.name + "\" has no panel in app/gui/panels/panels.cpp");
    out.push_back({tab.name.c_str(), tab.title.c_str(), tab.summary.c_str(), f->draw, f->save, f->load, f->tweak});
  }
  return out;
}

}  // namespace

ConfigNotes applyModelConfig(AppState& a, const cli::ModelConfig& config) {
  ConfigNotes notes;
  applySinusoidalConfig(a.sinusoidal, config, notes);
  applyLearnedConfig(a.learned, config, notes);
  applyRopeConfig(a.rope, config, notes);
  applyContextExtensionConfig(a.context, config, notes);
  applyAlibiConfig(a.alibi, config, notes);
  applyExtrapolationConfig(a.extrapolation, config, notes);
  applyImageConfig(a.image, config, notes);
  applyModelPanelConfig(a.model, config, notes);
  return notes;
}

const std::vector<PanelInfo>& panels() {
  static const std::vector<PanelInfo> kPanels = buildPanels();
  return kPanels;
}

int findPanel(std::string_view name) {
  const cli::TabDef* tab = cli::findTab(name);
  if (tab == nullptr) return -1;
  const auto& t = panels();
  for (std::size_t i = 0; i < t.size(); ++i)
    if (tab->name == t[i].name) return static_cast<int>(i);
  return -1;
}

}  // namespace posviz::app
