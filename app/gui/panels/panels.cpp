#include "app/gui/panels/panels.hpp"

#include <algorithm>
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
  readSetting(j, "d_model", s.params.dModel, 2, 4096);
  s.params.dModel -= s.params.dModel % 2;
  readSetting(j, "base", s.params.base, 10.0, 1e6);
  if (std::string layout; readSetting(j, "layout", layout))
    s.params.layout = layout == "tensor2tensor" ? SinusoidalLayout::Tensor2Tensor : SinusoidalLayout::Interleaved;
  readSetting(j, "positions", s.numPositions, 1, 131072);
  readSetting(j, "pos", s.pos, 0, 131071);
  readSetting(j, "k", s.offsetK, -4096, 4096);
  readSetting(j, "pair", s.pair, 0, s.params.dModel / 2 - 1);
  readSetting(j, "similarity_positions", s.simPositions, 2, 2048);
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
  readSetting(j, "max_len", s.maxLen, 1, 131072);
  readSetting(j, "d_model", s.dModel, 1, 4096);
  readSetting(j, "seed", s.seed, 0, std::numeric_limits<std::uint64_t>::max());
  readSetting(j, "std", s.stddev, 1e-6f, 10.0f);
  readSetting(j, "positions", s.numPositions, 1, 131072);
  readSetting(j, "lookup_pos", s.lookupPos, 0, 131071);
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

void tweakModel(AppState& a) {
  if (!a.model.config || a.model.config->layerKinds.empty()) return;
  a.model.selectedKind = (a.model.selectedKind + 1) % static_cast<int>(a.model.config->layerKinds.size());
}

// The Model view's "Open": that layer kind's parameters become every panel's, and its tab opens
// (context extension when the RoPE is scaled).
void openLayerKind(AppState& a, int kindIndex) {
  ModelConfig c = *a.model.config;
  const LayerKind& k = c.layerKinds.at(static_cast<std::size_t>(kindIndex));
  const char* target = "rope";
  switch (k.scheme) {
    case LayerScheme::Rope:
      c.encoding = ModelEncoding::Rope;
      c.rope = k.rope;
      target = k.rope.scaling.method == ScalingMethod::None ? "rope" : "context";
      break;
    case LayerScheme::Alibi: c.encoding = ModelEncoding::Alibi; target = "alibi"; break;
    case LayerScheme::Learned: c.encoding = ModelEncoding::Learned; target = "learned"; break;
    case LayerScheme::NoPE:
    case LayerScheme::None: return;
  }
  a.model.selectedKind = kindIndex;
  applyModelConfig(a, c);
  a.requestedPanel = findPanel(target);
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
    {"sinusoidal", [](AppState& a, AppContext& c) { drawSinusoidalPanel(a.sinusoidal, c); }, saveSinusoidal,
     loadSinusoidal, tweakSinusoidal},
    {"learned", [](AppState& a, AppContext& c) { drawLearnedPanel(a.learned, c); }, saveLearned, loadLearned,
     tweakLearned},
    {"rope", [](AppState& a, AppContext& c) { drawRopePanel(a.rope, c); },
     [](const AppState& a, nlohmann::json& j) { saveRopePanel(a.rope, j); },
     [](AppState& a, const nlohmann::json& j) { loadRopePanel(a.rope, j); }, tweakRope},
    {"context", [](AppState& a, AppContext& c) { drawContextExtensionPanel(a.context, c); },
     [](const AppState& a, nlohmann::json& j) { saveContextExtensionPanel(a.context, j); },
     [](AppState& a, const nlohmann::json& j) { loadContextExtensionPanel(a.context, j); }, tweakContext},
    {"alibi", [](AppState& a, AppContext& c) { drawAlibiPanel(a.alibi, c); },
     [](const AppState& a, nlohmann::json& j) { saveAlibiPanel(a.alibi, j); },
     [](AppState& a, const nlohmann::json& j) { loadAlibiPanel(a.alibi, j); }, tweakAlibi},
    {"relative", [](AppState& a, AppContext& c) { drawRelativePanel(a.relative, c); },
     [](const AppState& a, nlohmann::json& j) { saveRelativePanel(a.relative, j); },
     [](AppState& a, const nlohmann::json& j) { loadRelativePanel(a.relative, j); },
     [](AppState& a) { a.relative.t5Causal = !a.relative.t5Causal; a.relative.dirty = true; }},
    {"examples", [](AppState& a, AppContext& c) { drawExamplesPanel(a.examples, c); }, nullptr, nullptr, tweakExamples},
    {"order", [](AppState& a, AppContext& c) { drawOrderPanel(a.order, c); }, nullptr, nullptr, tweakOrder},
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

void applyModelConfig(AppState& a, const ModelConfig& config) {
  applySinusoidalConfig(a.sinusoidal, config);
  applyLearnedConfig(a.learned, config);
  applyRopeConfig(a.rope, config);
  applyContextExtensionConfig(a.context, config);
  applyAlibiConfig(a.alibi, config);
  applyModelPanelConfig(a.model, config);
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
