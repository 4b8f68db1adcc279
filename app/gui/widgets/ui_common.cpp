#include "app/gui/widgets/ui_common.hpp"
#include "app/gui/widgets/theme.hpp"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cmath>
#include <cstdio>

#include "core/attention.hpp"
#include "core/grid.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::app {

namespace {
bool gInlineHelp = true;   // View > Control help on screen; set by the shell each frame
}  // namespace

void setInlineHelp(bool on) { gInlineHelp = on; }

std::string firstSentence(const char* text) {
  // A sentence ends at a period followed by a line break, the end, or a space and a capital
  // letter ("0 .. 65536" and "e.g. a" do not end one); a line break ends it too.
  const std::string s = text;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n') return s.substr(0, i);
    if (s[i] != '.' || (i > 0 && s[i - 1] == '.') || (i + 1 < s.size() && s[i + 1] == '.')) continue;
    if (i + 1 == s.size() || s[i + 1] == '\n') return s.substr(0, i + 1);
    if (s[i + 1] == ' ' && i + 2 < s.size() && std::isupper(static_cast<unsigned char>(s[i + 2]))) return s.substr(0, i + 1);
  }
  return s;
}

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
  if (!gInlineHelp) return;
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(firstSentence(text).c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
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
  ImGui::PushStyleColor(ImGuiCol_Text, themed(IM_COL32(255, 110, 100, 255)));
  ImGui::TextWrapped("%s", withoutCodeNames(message).c_str());
  ImGui::PopStyleColor();
}

void NoticeText(const std::string& message) {
  ImGui::PushStyleColor(ImGuiCol_Text, themed(IM_COL32(255, 196, 80, 255)));
  ImGui::TextWrapped("%s", withoutCodeNames(message).c_str());
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

bool SliderDouble(const char* label, double* v, double lo, double hi, const char* format, bool log) {
  const ImGuiSliderFlags flags = ImGuiSliderFlags_AlwaysClamp | (log ? ImGuiSliderFlags_Logarithmic : 0);
  return ImGui::SliderScalar(label, ImGuiDataType_Double, v, &lo, &hi, format, flags);
}

bool SliderIntEven(const char* label, int* v, int lo, int hi) {
  int x = *v;
  if (!ImGui::SliderInt(label, &x, lo, hi, "%d", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp)) return false;
  x = std::clamp(x - (x % 2), lo, hi);
  if (x == *v) return false;
  *v = x;
  return true;
}


// -----------------------------------------------------------------------------------------------
// Typed number lists and string input
// -----------------------------------------------------------------------------------------------

bool parseNumberList(const std::string& text, std::vector<double>& out, std::string* error) {
  std::vector<double> values;
  std::size_t i = 0;
  const auto isSep = [](char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == ';'; };
  while (i < text.size()) {
    while (i < text.size() && isSep(text[i])) ++i;
    if (i >= text.size()) break;
    std::size_t j = i;
    while (j < text.size() && !isSep(text[j])) ++j;
    const std::string token = text.substr(i, j - i);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(token.c_str(), &end);
    if (end != token.c_str() + token.size() || errno == ERANGE || !std::isfinite(v)) {
      if (error) *error = "value " + std::to_string(values.size() + 1) + " is not a finite number: '" + token + "'";
      return false;
    }
    values.push_back(v);
    i = j;
  }
  if (values.empty()) {
    if (error) *error = "no values: type numbers separated by commas";
    return false;
  }
  out = std::move(values);
  if (error) error->clear();
  return true;
}

std::string formatNumberList(const std::vector<double>& v, int significant) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += formatShort(v[i], significant);
  }
  return s;
}

namespace {

int stringResizeCallback(ImGuiInputTextCallbackData* data) {
  if (data->EventFlag == ImGuiInputTextFlags_CallbackResize) {
    auto* str = static_cast<std::string*>(data->UserData);
    str->resize(static_cast<std::size_t>(data->BufTextLen));
    data->Buf = str->data();
  }
  return 0;
}

}  // namespace

bool inputTextString(const char* label, std::string& str, int flags) {
  return ImGui::InputText(label, str.data(), str.capacity() + 1, flags | ImGuiInputTextFlags_CallbackResize,
                          stringResizeCallback, &str);
}

bool inputTextMultilineString(const char* label, std::string& str, float width, float height) {
  return ImGui::InputTextMultiline(label, str.data(), str.capacity() + 1, ImVec2(width, height), ImGuiInputTextFlags_CallbackResize,
                                   stringResizeCallback, &str);
}

// -----------------------------------------------------------------------------------------------
// Attention weights
// -----------------------------------------------------------------------------------------------

HeatmapSpec attentionWeightSpec(const Grid& w, const std::vector<std::string>& rowsTok,
                                const std::vector<std::string>& colsTok, const std::string& what) {
  HeatmapSpec spec;
  spec.title = what;
  spec.logicalRows = w.rows;
  spec.logicalCols = w.cols;
  spec.rowAxis = {"query token i", 0.0, 1.0};
  spec.colAxis = {"key token j", 0.0, 1.0};
  spec.valueName = "weight";
  spec.colormap = Colormap::Magma;
  spec.fixedRange = true;
  spec.rangeMin = 0.0f;
  spec.rangeMax = 1.0f;
  spec.exactValue = [w](long long r, long long c) { return static_cast<double>(w.at(static_cast<int>(r), static_cast<int>(c))); };
  spec.formula = [w, rowsTok, colsTok, what](long long r, long long c) {
    return what + ": '" + rowsTok[static_cast<std::size_t>(r)] + "' (" + std::to_string(r) + ") attends to '" +
           colsTok[static_cast<std::size_t>(c)] + "' (" + std::to_string(c) + ") = " +
           formatShort(w.at(static_cast<int>(r), static_cast<int>(c)), 6);
  };
  spec.maskedReason = "masked (causal): a token does not attend to later tokens";
  return spec;
}

bool sentenceTokens(const std::string& text, int maxTokens, std::vector<std::string>& out, std::string* error) {
  std::vector<std::string> tokens = splitTokens(text);
  if (tokens.empty()) {
    *error = "sentence: type at least one word";
    return false;
  }
  if (maxTokens > 0 && static_cast<int>(tokens.size()) > maxTokens) {
    *error = "sentence: at most " + std::to_string(maxTokens) + " words, got " + std::to_string(tokens.size());
    return false;
  }
  out = std::move(tokens);
  return true;
}

}  // namespace posviz::app
