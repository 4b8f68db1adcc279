// panel_model_compare.cpp: the Model tab's views for engineers: every RoPE layer kind's
// wavelengths against the trained and the maximum context, and other models side by side.
#include <algorithm>
#include <cmath>
#include <numbers>

#include <imgui.h>

#include "app/cli/model_compare.hpp"
#include "app/gui/panels/panel_model.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/regime_bands.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::app {

namespace {

// One curve: wavelength of pair i against i / pairs (so heads of any width share the x axis).
PlotSeries wavelengthSeries(const std::string& label, const RopeParams& p, unsigned int color, float thickness) {
  PlotSeries ser;
  ser.label = label;
  ser.color = color;
  ser.thickness = thickness;
  const RopeFrequencies f = ropeFrequencies(p);
  const double n = static_cast<double>(f.invFreq.size());
  for (std::size_t i = 0; i < f.invFreq.size(); ++i) {
    ser.x.push_back(static_cast<double>(i) / n);
    ser.y.push_back(2.0 * std::numbers::pi / f.invFreq[i]);
  }
  return ser;
}

PlotSeries level(const std::string& label, double y, unsigned int color) {
  PlotSeries ser;
  ser.label = label;
  ser.x = {0.0, 1.0};
  ser.y = {y, y};
  ser.color = color;
  ser.thickness = 1.0f;
  return ser;
}

PlotSpec wavelengthSpec(const ModelPanelState& s) {
  const cli::ModelConfig& m = *s.config;
  PlotSpec ps;
  ps.title = "Wavelength of each rotary pair, per layer kind";
  ps.xTitle = "rotary pair i / number of pairs";
  ps.xTip = "Pair i of d/2 turns by theta'_i per position (after the model's scaling); x = i / (d/2), so heads of "
            "different widths line up.";
  ps.yTitle = "wavelength (positions)";
  ps.yTip = "2 pi / theta'_i: the positions one full turn of the pair takes. A pair whose wavelength is longer than the "
            "trained context never completed a turn in training.";
  ps.logY = true;
  ps.legendAbove = true;
  int color = 0;
  for (int k = 0; k < static_cast<int>(m.layerKinds.size()); ++k) {
    const cli::LayerKind& kind = m.layerKinds[static_cast<std::size_t>(k)];
    if (kind.scheme != cli::LayerScheme::Rope) continue;
    ps.series.push_back(wavelengthSeries(m.name + " " + kind.attention, kind.rope, plotColor(color++), k == s.selectedKind ? 3.0f : 1.5f));
  }
  for (const cli::ModelConfig& o : s.others) {
    if (const cli::LayerKind* kind = cli::mainRopeKind(o)) {
      ps.series.push_back(wavelengthSeries(o.name + " " + kind->attention, kind->rope, plotColor(color++), 1.5f));
    }
  }
  const cli::LayerKind* sel = s.selectedKind >= 0 && s.selectedKind < static_cast<int>(m.layerKinds.size())
                                  ? &m.layerKinds[static_cast<std::size_t>(s.selectedKind)] : cli::mainRopeKind(m);
  if (sel != nullptr && sel->scheme == cli::LayerScheme::Rope) {
    const RopeScaling& sc = sel->rope.scaling;
    const RopeFrequencies f = ropeFrequencies(sel->rope);
    if (sc.method != ScalingMethod::None) {
      ps.series.push_back(level("trained context " + std::to_string(sc.originalMaxPositions), sc.originalMaxPositions, themed(IM_COL32(220, 220, 220, 220))));
      addRegimeBands(ps, f.regime, 1.0 / static_cast<double>(f.invFreq.size()));
    }
  }
  if (m.maxPositions > 0) ps.series.push_back(level("maximum context " + std::to_string(m.maxPositions), static_cast<double>(m.maxPositions), themed(IM_COL32(150, 150, 150, 200))));
  return ps;
}

void addModel(ModelPanelState& s, cli::ModelConfig m) {
  s.others.push_back(std::move(m));
  s.addError.clear();
  rebuildCompareRows(s);
}

void drawRows(const ModelPanelState& s) {
  const int cols = 1 + static_cast<int>(s.others.size()) + 1;
  if (!ImGui::BeginTable("compare", cols, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn(s.config->name.c_str());
  for (const cli::ModelConfig& o : s.others) ImGui::TableSetupColumn(o.name.c_str());
  ImGui::TableHeadersRow();
  for (const cli::CompareRow& r : s.rows) {
    ImGui::TableNextRow();
    if (r.differs) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, themed(IM_COL32(120, 90, 20, 90)));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.field.c_str());
    for (const std::string& v : r.values) {
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s", v.c_str());
    }
  }
  ImGui::EndTable();
}

}  // namespace

void rebuildCompareRows(ModelPanelState& s) {
  s.rows.clear();
  if (!s.config || s.others.empty()) return;
  std::vector<cli::ModelConfig> all = {*s.config};
  all.insert(all.end(), s.others.begin(), s.others.end());
  s.rows = cli::compareModels(all);
}

void drawModelWavelengths(const ModelPanelState& s) {
  if (!s.config || cli::mainRopeKind(*s.config) == nullptr) return;
  drawPlot("model-wavelengths", wavelengthSpec(s), 0.0f, ImGui::GetFontSize() * 16.0f);
}

void drawModelCompare(ModelPanelState& s) {
  if (!s.config) return;
  const std::vector<std::string> names = cli::presetNames();
  ImGui::TextUnformatted("Compare with");
  ImGui::SameLine();
  s.addPreset = std::clamp(s.addPreset, 0, std::max(0, static_cast<int>(names.size()) - 1));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14.0f);
  if (!names.empty() && ImGui::BeginCombo("##addpreset", names[static_cast<std::size_t>(s.addPreset)].c_str())) {
    for (int i = 0; i < static_cast<int>(names.size()); ++i) {
      if (ImGui::Selectable(names[static_cast<std::size_t>(i)].c_str(), i == s.addPreset)) s.addPreset = i;
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::Button("Add preset") && !names.empty()) {
    try {
      addModel(s, cli::loadPreset(names[static_cast<std::size_t>(s.addPreset)]));
    } catch (const std::exception& e) {
      s.addError = displayMessage(e.what());
    }
  }
  ImGui::SameLine();
  const bool enter = PathAsked::No != pathField({"##addpath", "or a config.json path", {".json"}, false, ImGui::GetFontSize() * 16.0f}, s.addPath,
                               sizeof s.addPath, s.addPick);
  ImGui::SameLine();
  if ((ImGui::Button("Add file") || enter) && s.addPath[0] != '\0') {
    try {
      addModel(s, cli::loadModelConfig(s.addPath));
    } catch (const std::exception& e) {
      s.addError = displayMessage(e.what());
    }
  }
  if (!s.others.empty()) {
    ImGui::SameLine();
    if (ImGui::Button("Clear")) {
      s.others.clear();
      s.rows.clear();
    }
  }
  ImGui::SameLine();
  HelpMarker("Other models beside this one: their full-attention wavelengths join the plot, and the table lists every "
             "property that decides positions, the differing rows marked. The same table: posviz model --compare A B.");
  if (!s.addError.empty()) ErrorText(s.addError);
  if (!s.rows.empty()) drawRows(s);
}

}  // namespace posviz::app
