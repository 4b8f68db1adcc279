#include "app/gui/widgets/param_widgets.hpp"

#include <algorithm>
#include <cmath>

#include <imgui.h>

#include "app/gui/widgets/ui_common.hpp"

namespace posviz::app {

std::string paramHelpText(const cli::Param& p, const char* teach) {
  std::string out;
  if (teach != nullptr && *teach != '\0') out = std::string(teach) + "\n";
  out += std::string(p.help) + ".\n";
  out += "Allowed: " + cli::describeAllowed(p);
  if (!p.unit.empty()) out += " " + std::string(p.unit);
  out += "; default " + cli::formatDefault(p) + ".";
  if (!p.flag.empty()) out += " Command line: " + std::string(p.flag) + ".";
  if (p.kind != cli::ParamKind::Choice) out += " Ctrl+click to type a value.";
  return out;
}

SliderSpan sliderSpanFor(const cli::Param& p, double v, const std::optional<SliderSpan>& span) {
  double lo = std::min(p.spanMin(), v), hi = std::max(p.spanMax(), v);
  lo = std::max(lo, p.min);
  hi = std::min(hi, p.max);
  if (span) {
    lo = std::max(lo, span->lo);
    hi = std::min(hi, span->hi);
  }
  if (p.minExclusive && lo <= p.min) lo = p.min + std::max(1e-9, (hi - p.min) * 1e-4);
  if (hi < lo) hi = lo;
  return {lo, hi};
}

namespace {

ImGuiSliderFlags flagsOf(const cli::Param& p, const SliderSpan& s) {
  ImGuiSliderFlags f = ImGuiSliderFlags_AlwaysClamp;
  if (p.log && s.lo > 0.0) f |= ImGuiSliderFlags_Logarithmic;
  return f;
}

bool integerSlider(const cli::Param& p, long long& v, const char* teach, const std::optional<SliderSpan>& span) {
  const SliderSpan s = sliderSpanFor(p, static_cast<double>(v), span);
  long long lo = static_cast<long long>(std::ceil(s.lo)), hi = static_cast<long long>(std::floor(s.hi));
  if (p.kind == cli::ParamKind::EvenInt) {
    lo += lo % 2;
    hi -= hi % 2;
  }
  long long x = std::clamp(v, lo, std::max(lo, hi));
  const std::string label(p.label);
  const bool moved = ImGui::SliderScalar(label.c_str(), ImGuiDataType_S64, &x, &lo, &hi, "%lld", flagsOf(p, s));
  HelpMarker(paramHelpText(p, teach).c_str());
  if (!moved) return false;
  if (p.kind == cli::ParamKind::EvenInt) x -= x % 2;
  x = std::clamp(x, lo, std::max(lo, hi));
  if (x == v) return false;
  v = x;
  return true;
}

}  // namespace

bool paramSlider(const cli::Param& p, long long& v, const char* teach, std::optional<SliderSpan> span) {
  return integerSlider(p, v, teach, span);
}

bool paramSlider(const cli::Param& p, int& v, const char* teach, std::optional<SliderSpan> span) {
  long long x = v;
  if (!integerSlider(p, x, teach, span)) return false;
  v = static_cast<int>(x);
  return true;
}

bool paramSlider(const cli::Param& p, double& v, const char* teach, std::optional<SliderSpan> span) {
  SliderSpan s = sliderSpanFor(p, v, span);
  double x = std::clamp(v, s.lo, s.hi);
  const std::string label(p.label), format(p.format);
  const bool moved = ImGui::SliderScalar(label.c_str(), ImGuiDataType_Double, &x, &s.lo, &s.hi, format.c_str(), flagsOf(p, s));
  HelpMarker(paramHelpText(p, teach).c_str());
  if (!moved || x == v || !cli::fitsParam(p, x)) return false;
  v = x;
  return true;
}

bool paramSlider(const cli::Param& p, float& v, const char* teach, std::optional<SliderSpan> span) {
  double x = static_cast<double>(v);
  if (!paramSlider(p, x, teach, span)) return false;
  v = static_cast<float>(x);
  return true;
}

bool paramChoiceIndex(const cli::Param& p, int& index, const char* teach) {
  int chosen = index;
  for (int i = 0; i < p.choiceCount(); ++i) {
    if (i > 0) ImGui::SameLine();
    const std::string name(p.choiceName(i));
    ImGui::RadioButton(name.c_str(), &chosen, i);
  }
  HelpMarker(paramHelpText(p, teach).c_str());
  if (chosen == index) return false;
  index = chosen;
  return true;
}

}  // namespace posviz::app
