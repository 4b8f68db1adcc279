#include "app/gui/panels/app_state.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/cli/tabs.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/panel_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/cli/model_command.hpp"
#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/attn_temperature.hpp"

namespace posviz::app {

namespace {

constexpr const char* kDefaultPreset = "gemma-3-4b-it";

// By scheme; RoPE layers by attention too, so Gemma's local and global layers differ.
ImVec4 kindColor(const cli::LayerKind& k) {
  switch (k.scheme) {
    case cli::LayerScheme::Rope:
      if (k.attention == "sliding_attention") return {0.50f, 0.82f, 0.98f, 1.0f};
      if (k.attention == "chunked_attention") return {0.30f, 0.75f, 0.65f, 1.0f};
      return {0.18f, 0.38f, 0.95f, 1.0f};
    case cli::LayerScheme::NoPE: return {0.55f, 0.55f, 0.55f, 1.0f};
    case cli::LayerScheme::Alibi: return {0.90f, 0.55f, 0.20f, 1.0f};
    case cli::LayerScheme::Learned: return {0.35f, 0.75f, 0.35f, 1.0f};
    case cli::LayerScheme::None: return {0.25f, 0.25f, 0.28f, 1.0f};
    case cli::LayerScheme::Sinusoidal: return {0.80f, 0.40f, 0.75f, 1.0f};
    case cli::LayerScheme::RelativeBuckets: return {0.85f, 0.75f, 0.25f, 1.0f};
    case cli::LayerScheme::RelativeKey: return {0.95f, 0.60f, 0.45f, 1.0f};
  }
  return {1, 1, 1, 1};
}

void buildTemperatureCurve(ModelPanelState& s);

void loadPresetInto(ModelPanelState& s, int index) {
  const std::vector<std::string> names = cli::presetNames();
  if (index < 0 || index >= static_cast<int>(names.size())) return;
  s.presetIndex = index;
  s.selectedKind = 0;
  try {
    s.config = cli::loadPreset(names[static_cast<std::size_t>(index)]);
    s.error.clear();
    buildTemperatureCurve(s);
    rebuildCompareRows(s);
  } catch (const std::exception& e) {  // a preset that does not load is shown, not thrown
    s.error = e.what();
  }
}

void drawPresetPicker(ModelPanelState& s) {
  const std::vector<std::string> names = cli::presetNames();
  if (!s.config && s.error.empty()) {
    const auto it = std::find(names.begin(), names.end(), kDefaultPreset);
    loadPresetInto(s, it == names.end() ? 0 : static_cast<int>(it - names.begin()));
  }
  const char* preview = s.presetIndex >= 0 ? names[static_cast<std::size_t>(s.presetIndex)].c_str() : "(config file)";
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16.0f);
  if (ImGui::BeginCombo("preset", preview)) {
    for (int i = 0; i < static_cast<int>(names.size()); ++i) {
      if (ImGui::Selectable(names[static_cast<std::size_t>(i)].c_str(), i == s.presetIndex)) loadPresetInto(s, i);
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  HelpMarker("A published config.json shipped with posviz (assets/presets/SOURCES.md), or the config opened with "
             "File > Open config. The same report: posviz model --preset NAME.");
}

// Where the reading comes from; a guess (a model_type the table lacks) as a banner; keys the
// family's code never reads.
void drawProvenance(const cli::ModelConfig& m) {
  if (!m.guess.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, themed(ImVec4(1.0f, 0.75f, 0.25f, 1.0f)));
    ImGui::TextWrapped("Guess: %s", m.guess.c_str());
    ImGui::PopStyleColor();
  }
  if (!m.family.empty()) ImGui::TextDisabled("Read as %s", m.family.c_str());
  for (const std::string& k : m.unreadKeys) {
    ImGui::TextWrapped("Note: the file gives %s, but this family's code never reads it.", k.c_str());
  }
}

// Encoder-decoder models number each stack from 0; the strip draws the decoder after the encoder.
int stripOffset(const cli::ModelConfig& m, int kind) {
  int offset = 0;
  for (int k = 0; k < kind; ++k) {
    const cli::LayerKind& prev = m.layerKinds[static_cast<std::size_t>(k)];
    if (prev.attention == "encoder") offset += static_cast<int>(prev.layers.size());
  }
  return m.layerKinds[static_cast<std::size_t>(kind)].attention == "decoder" ? offset : 0;
}

// One cell per layer, coloured by its kind's scheme; clicking selects the kind.
void drawLayerStrip(ModelPanelState& s) {
  const cli::ModelConfig& m = *s.config;
  std::vector<int> kindOf(static_cast<std::size_t>(std::max(m.numLayers, 0)), -1);
  for (int k = 0; k < static_cast<int>(m.layerKinds.size()); ++k) {
    for (int layer : m.layerKinds[static_cast<std::size_t>(k)].layers) {
      layer += stripOffset(m, k);
      if (layer >= 0 && layer < m.numLayers) kindOf[static_cast<std::size_t>(layer)] = k;
    }
  }
  const float cell = ImGui::GetFontSize() * 1.1f;
  const float right = ImGui::GetContentRegionAvail().x;
  float x = 0.0f;
  for (int layer = 0; layer < m.numLayers; ++layer) {
    const int k = kindOf[static_cast<std::size_t>(layer)];
    if (k < 0) continue;
    const cli::LayerKind& kind = m.layerKinds[static_cast<std::size_t>(k)];
    if (layer > 0 && x + cell <= right) ImGui::SameLine(0.0f, 2.0f);
    else x = 0.0f;
    ImGui::PushID(layer);
    ImVec4 color = kindColor(kind);
    if (k != s.selectedKind) color.w = 0.4f;  // the selected kind stands out
    if (ImGui::ColorButton("##layer", color, ImGuiColorEditFlags_NoTooltip, ImVec2(cell, cell * 1.6f))) s.selectedKind = k;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("layer %d: %s, %s", layer, kind.attention.c_str(), cli::layerSchemeName(kind.scheme));
    ImGui::PopID();
    x += cell + 2.0f;
  }
}

std::optional<int> drawKindTable(ModelPanelState& s) {
  const cli::ModelConfig& m = *s.config;
  std::optional<int> open;
  if (!ImGui::BeginTable("kinds", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return open;
  ImGui::TableSetupColumn("attention", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("layers");
  ImGui::TableSetupColumn("positional scheme");
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableHeadersRow();
  for (int k = 0; k < static_cast<int>(m.layerKinds.size()); ++k) {
    const cli::LayerKind& kind = m.layerKinds[static_cast<std::size_t>(k)];
    ImGui::PushID(k);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::ColorButton("##c", kindColor(kind), ImGuiColorEditFlags_NoTooltip, ImVec2(ImGui::GetFontSize(), ImGui::GetFontSize()));
    ImGui::SameLine();
    if (ImGui::Selectable(kind.attention.c_str(), k == s.selectedKind)) s.selectedKind = k;
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%zu: %s", kind.layers.size(), cli::layerRangesText(kind.layers).c_str());
    ImGui::TableNextColumn();
    std::string text = cli::layerKindText(kind);
    if (kind.slidingWindow > 0) text += "; sliding window " + std::to_string(kind.slidingWindow);
    if (kind.attentionChunk > 0) text += "; attention chunk " + std::to_string(kind.attentionChunk);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::TableNextColumn();
    const bool opens = kind.scheme != cli::LayerScheme::NoPE && kind.scheme != cli::LayerScheme::None;
    ImGui::BeginDisabled(!opens);
    if (ImGui::SmallButton("Open")) open = k;
    ImGui::EndDisabled();
    ImGui::PopID();
  }
  ImGui::EndTable();
  return open;
}

// Positions 0 .. maxPositions - 1, log-spaced from 1 plus every step of the floor (a step at each
// multiple of floor_scale; at most a few thousand points).
void buildTemperatureCurve(ModelPanelState& s) {
  s.temperaturePos.clear();
  s.temperatureScale.clear();
  if (!s.config || !s.config->nopeTemperature) return;
  const AttnTemperatureParams& p = *s.config->nopeTemperature;
  const long long last = std::max<long long>(s.config->maxPositions, static_cast<long long>(8 * p.floorScale)) - 1;
  std::vector<long long> at = {0};
  for (double x = 1.0; x < static_cast<double>(last); x *= 1.01) at.push_back(static_cast<long long>(x));
  // Both sides of every step, so the staircase is drawn as it is.
  for (double k = 1.0; k * p.floorScale - 1.0 <= static_cast<double>(last) && at.size() < 8192; k *= 2.0) {
    const auto edge = static_cast<long long>(std::ceil(k * p.floorScale - 1.0));
    at.push_back(edge - 1);
    at.push_back(edge);
  }
  at.push_back(last);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  for (long long pos : at) {
    if (pos < 0) continue;
    s.temperaturePos.push_back(static_cast<double>(pos));
    s.temperatureScale.push_back(llama4AttnScale(p, pos));
  }
}

void drawTemperature(const ModelPanelState& s) {
  if (s.temperaturePos.empty()) return;
  const AttnTemperatureParams& p = *s.config->nopeTemperature;
  PlotSpec ps;
  ps.title = "NoPE layers: query scale against position (attention temperature)";
  ps.xTitle = "position of the query";
  ps.xTip = "pos, 0-based (cache_position); log axis.";
  ps.yTitle = "factor multiplying q";
  ps.yTip = "ln(floor((pos + 1) / floor_scale) + 1) * attn_scale + 1, floor_scale " + formatShort(p.floorScale) +
            ", attn_scale " + formatShort(p.attnScale) + " (modeling_llama4.py, Llama4TextAttention).";
  ps.logX = true;
  PlotSeries ser{"q scale", s.temperaturePos, s.temperatureScale, plotColor(0), false, 2.0f};
  ps.series.push_back(std::move(ser));
  drawPlot("nope-temperature", ps, 0.0f, std::max(ImGui::GetFontSize() * 12.0f, ImGui::GetContentRegionAvail().y));
}

}  // namespace

void applyModelPanelConfig(ModelPanelState& s, const cli::ModelConfig& config, ConfigNotes& /*notes: the tab shows every field as it is*/) {
  const bool same = s.config && s.config->name == config.name && s.config->layerKinds.size() == config.layerKinds.size();
  if (!same) {
    s.selectedKind = 0;
    const std::vector<std::string> names = cli::presetNames();
    const auto it = std::find(names.begin(), names.end(), config.name);
    s.presetIndex = it == names.end() ? -1 : static_cast<int>(it - names.begin());
  }
  s.config = config;
  s.error.clear();
  buildTemperatureCurve(s);
  rebuildCompareRows(s);
}

std::optional<int> drawModelPanel(ModelPanelState& s, AppContext& /*ctx*/) {
  drawPresetPicker(s);
  if (!s.error.empty()) ImGui::TextColored(themed(ImVec4(1.0f, 0.4f, 0.4f, 1.0f)), "%s", s.error.c_str());
  if (!s.config) return std::nullopt;
  const cli::ModelConfig& m = *s.config;
  const std::string positions = m.maxPositions > 0 ? ", " + std::to_string(m.maxPositions) + " positions" : ", no position limit in the config";
  ImGui::Text("%s%s%s: %d layers%s", m.name.c_str(), m.modelType.empty() ? "" : ", model_type ", m.modelType.c_str(),
              m.numLayers, positions.c_str());
  drawProvenance(m);
  ImGui::Spacing();
  drawLayerStrip(s);
  ImGui::Spacing();
  const std::optional<int> open = drawKindTable(s);
  if (!m.mropeSection.empty()) {
    std::string sec;
    for (int v : m.mropeSection) sec += (sec.empty() ? "" : " / ") + std::to_string(v);
    ImGui::Text("M-RoPE: pairs per (t, h, w) axis %s, %s", sec.c_str(), m.mropeInterleaved ? "interleaved axes" : "contiguous sections");
    if (const std::string t = cli::mropeIndexText(m); !t.empty()) ImGui::BulletText("%s", t.c_str());
  }
  if (const std::string t = cli::rope2dText(m); !t.empty()) ImGui::BulletText("%s", t.c_str());
  for (const std::string& e : m.extras) ImGui::BulletText("%s", e.c_str());
  if (const std::string t = cli::mlaText(m); !t.empty()) ImGui::BulletText("%s", t.c_str());
  if (const std::string t = cli::tableText(m); !t.empty()) ImGui::BulletText("%s", t.c_str());
  ImGui::Spacing();
  drawModelCompare(s);
  drawModelCheck(s);
  drawModelWavelengths(s);
  drawTemperature(s);
  return open;
}


// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

void tweakModel(AppState& a) {
  if (!a.model.config || a.model.config->layerKinds.empty()) return;
  a.model.selectedKind = (a.model.selectedKind + 1) % static_cast<int>(a.model.config->layerKinds.size());
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
    case cli::LayerScheme::Sinusoidal: c.encoding = cli::ModelEncoding::Sinusoidal; break;
    case cli::LayerScheme::RelativeBuckets: c.encoding = cli::ModelEncoding::RelativeBuckets; break;
    case cli::LayerScheme::RelativeKey: c.encoding = cli::ModelEncoding::RelativeKey; break;
    case cli::LayerScheme::NoPE:
    case cli::LayerScheme::None: return;
  }
  a.model.selectedKind = kindIndex;
  if (const ConfigNotes notes = applyModelConfig(a, c); !notes.empty()) a.notice = configNotesText(c.name, notes);
  a.requestedPanel = findPanel(cli::tabShowing(c.encoding, c.encoding == cli::ModelEncoding::Rope && k.rope.scaling.method != ScalingMethod::None));
}

}  // namespace

const PanelDef kModelPanel{"model", [](AppState& a, AppContext& c) { if (auto k = drawModelPanel(a.model, c)) openLayerKind(a, *k); },
    [](AppState& a, const cli::ModelConfig& m, ConfigNotes& n) { applyModelPanelConfig(a.model, m, n); },
    nullptr, nullptr, tweakModel};

}  // namespace posviz::app
