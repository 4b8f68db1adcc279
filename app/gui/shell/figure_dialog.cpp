// figure_dialog.cpp: see figure_dialog.hpp.
#include "app/gui/shell/figure_dialog.hpp"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "app/gui/widgets/ui_common.hpp"

namespace posviz::app {

namespace {

void setExtension(SaveAsState& file, bool svg) {
  std::filesystem::path p(file.name);
  p.replace_extension(svg ? ".svg" : ".png");
  file.name = p.string();
}

void drawFormatAndSize(FigureDialog& d) {
  bool changed = ImGui::RadioButton("PNG (pixels, as on screen)", !d.svg);
  if (changed) d.svg = false;
  ImGui::SameLine();
  if (ImGui::RadioButton("SVG (vector: shapes, text as text)", d.svg)) {
    d.svg = true;
    changed = true;
  }
  if (changed) setExtension(d.file, d.svg);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
  ImGui::InputInt("width (px)", &d.width, 100, 400);
  d.width = std::clamp(d.width, kMinFigureWidth, kMaxFigureWidth);
  ImGui::SameLine();
  ImGui::Checkbox("text as on screen", &d.textAsOnScreen);
  if (d.textAsOnScreen) d.textScale = textScaleAsOnScreen(d.width, d.figure.size.x);
  ImGui::BeginDisabled(d.textAsOnScreen);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12.0f);
  ImGui::SliderFloat("text size", &d.textScale, kMinFigureTextScale, kMaxFigureTextScale, "%.2fx");
  ImGui::EndDisabled();
  const float h = static_cast<float>(d.width) * d.figure.size.y / std::max(d.figure.size.x, 1.0f);
  ImGui::TextDisabled("%d x about %.0f px (the figure's shape on screen), text %.0f px", d.width, static_cast<double>(h),
                      static_cast<double>(kBaseFontPx * d.textScale));
}

void save(FigureDialog& d) {
  FigureExportOptions o;
  o.path = saveAsPath(d.file);
  o.width = d.width;
  o.textScale = d.textScale;
  o.caption = d.caption;
  const std::string problem = checkFigureExport(o);
  d.result.clear();
  if (!problem.empty()) {
    d.result = problem;
    d.failed = true;
    return;
  }
  requestFigureExport(d.figure, o);
  d.waiting = true;
}

}  // namespace

std::string figureFileName(const FigureEntry& e, bool svg) {
  std::string name;
  for (const char c : e.name) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '-';
  if (name.empty()) name = "figure";
  return name + (svg ? ".svg" : ".png");
}

std::string figureCaption(const FigureEntry& e, const std::string& tabCaption) {
  if (!e.text.caption.empty()) return e.text.caption;
  if (tabCaption.empty()) return e.text.title;
  return e.text.title + ". " + tabCaption;
}

void openFigureDialog(FigureDialog& d, const FigureEntry& e, const std::string& folder, int width, const std::string& tabCaption) {
  d.openRequested = true;
  d.figure = e;
  d.svg = false;
  openSaveAs(d.file, folder, figureFileName(e, false));
  d.width = std::clamp(width, kMinFigureWidth, kMaxFigureWidth);
  d.textAsOnScreen = true;
  d.caption = figureCaption(e, tabCaption);
  d.waiting = false;
  d.result.clear();
  d.failed = false;
}

void drawFigureDialog(FigureDialog& d, std::string& folder, int& width) {
  if (d.openRequested) {
    ImGui::OpenPopup("Export figure");
    d.openRequested = false;
  }
  if (!ImGui::BeginPopupModal("Export figure", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  const float w = ImGui::GetFontSize() * 36.0f;
  ImGui::PushTextWrapPos(w);
  ImGui::TextWrapped("Write '%s' as it looks on screen: title, axes, legend and colorbar, at the width and text size chosen.",
                     d.figure.text.title.c_str());
  drawFormatAndSize(d);
  ImGui::TextUnformatted("Caption under the figure (empty: none)");
  inputTextMultilineString("##caption", d.caption, w, ImGui::GetTextLineHeight() * 3.5f);
  if (ImGui::CalcTextSize(d.caption.c_str()).x > w) ImGui::TextDisabled("%s", ("In the file it wraps: " + d.caption).c_str());
  const bool enter = drawSaveAs(d.file, w);
  if (d.waiting) {
    if (std::optional<FigureExportResult> r = takeFigureExportResult()) {
      d.waiting = false;
      d.result = r->message;
      d.failed = !r->ok;
      if (r->ok) {
        folder = d.file.folder;
        width = d.width;
      }
    } else {
      BusySpinner("figure-export", -1.0f);
      ImGui::SameLine();
      ImGui::TextUnformatted("writing...");
    }
  }
  if (!d.result.empty()) {
    if (d.failed) ErrorText(d.result);
    else ImGui::TextWrapped("%s", d.result.c_str());
  }
  ImGui::BeginDisabled(d.waiting);
  if (ImGui::Button("Save") || (enter && !d.waiting)) save(d);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button(d.result.empty() || d.failed ? "Cancel" : "Close")) ImGui::CloseCurrentPopup();
  ImGui::PopTextWrapPos();
  ImGui::EndPopup();
}

}  // namespace posviz::app
