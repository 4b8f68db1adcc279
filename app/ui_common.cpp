#include "app/ui_common.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/grid.hpp"

namespace posviz::app {

void HelpMarker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 35.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

std::string formatShort(double v, int significant) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const double a = std::fabs(v);
  if (a != 0.0 && (a < 1e-3 || a >= 1e5)) {
    std::snprintf(buf, sizeof buf, "%.*e", std::max(0, significant - 1), v);
  } else {
    std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  }
  return buf;
}

std::string formatCount(long long v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  const int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[static_cast<std::size_t>(i)];
  }
  return v < 0 ? "-" + out : out;
}

std::string formatGridSize(long long rows, long long cols) {
  const auto bytes = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols) * 4u;
  return formatCount(rows) + " x " + formatCount(cols) + " (" + formatBytes(bytes) + ")";
}

void ErrorText(const std::string& message) {
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 110, 100, 255));
  ImGui::TextWrapped("%s", message.c_str());
  ImGui::PopStyleColor();
}

void NoticeText(const std::string& message) {
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 196, 80, 255));
  ImGui::TextWrapped("%s", message.c_str());
  ImGui::PopStyleColor();
}

void BusySpinner(const char* id, float progress) {
  ImGui::PushID(id);
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(h, h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 c(p.x + h * 0.5f, p.y + h * 0.5f);
  const float r = h * 0.38f;
  const ImU32 col = ImGui::GetColorU32(ImGuiCol_PlotHistogram);
  if (progress >= 0.0f) {
    dl->AddCircle(c, r, ImGui::GetColorU32(ImGuiCol_TextDisabled), 24, 1.5f);
    const float a1 = -1.5707963f + 6.2831853f * std::clamp(progress, 0.0f, 1.0f);
    dl->PathArcTo(c, r, -1.5707963f, a1, 24);
    dl->PathStroke(col, 0, 2.5f);
  } else {
    const auto t = static_cast<float>(ImGui::GetTime());
    dl->PathArcTo(c, r, t * 6.0f, t * 6.0f + 4.0f, 24);
    dl->PathStroke(col, 0, 2.5f);
  }
  ImGui::PopID();
}

bool SliderIntLog(const char* label, int* v, int lo, int hi, const char* format) {
  return ImGui::SliderInt(label, v, lo, hi, format, ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
}

bool SliderIntEven(const char* label, int* v, int lo, int hi) {
  int x = *v;
  if (!ImGui::SliderInt(label, &x, lo, hi, "%d", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp)) return false;
  x = std::clamp(x - (x % 2), lo, hi);
  if (x == *v) return false;
  *v = x;
  return true;
}

}  // namespace posviz::app
