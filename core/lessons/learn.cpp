// learn.cpp: the Learn path's navigation, value clamping and claim texts (the chapters
// themselves are in learn_path.cpp).
#include "core/lessons/learn.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace posviz::learn {

bool Figure::empty() const {
  for (const CellGrid& g : grids)
    if (g.grid.rows > 0 && g.grid.cols > 0) return false;
  if (!dials.empty()) return false;
  if (plane && !plane->arrows.empty()) return false;
  if (bars && !bars->values.empty()) return false;
  if (table && !table->rows.empty()) return false;
  if (lines)
    for (const MiniSeries& s : lines->series)
      if (!s.y.empty()) return false;
  return true;
}

int stepCount() {
  int n = 0;
  for (const Chapter& c : chapters()) n += static_cast<int>(c.steps.size());
  return n;
}

const Step& StepRef::get() const { return chapters().at(static_cast<std::size_t>(chapter)).steps.at(static_cast<std::size_t>(step)); }
const Step* StepRef::operator->() const { return &get(); }

std::optional<StepRef> findStep(std::string_view id) {
  const auto& cs = chapters();
  for (std::size_t c = 0; c < cs.size(); ++c)
    for (std::size_t s = 0; s < cs[c].steps.size(); ++s)
      if (cs[c].steps[s].id == id) return StepRef{static_cast<int>(c), static_cast<int>(s)};
  return std::nullopt;
}

int flatIndex(StepRef r) {
  int n = 0;
  const auto& cs = chapters();
  for (int c = 0; c < r.chapter && c < static_cast<int>(cs.size()); ++c) n += static_cast<int>(cs[static_cast<std::size_t>(c)].steps.size());
  return n + r.step;
}

StepRef stepAt(int flat) {
  const auto& cs = chapters();
  flat = std::clamp(flat, 0, stepCount() - 1);
  for (std::size_t c = 0; c < cs.size(); ++c) {
    const int n = static_cast<int>(cs[c].steps.size());
    if (flat < n) return {static_cast<int>(c), flat};
    flat -= n;
  }
  return {0, 0};
}

StepRef nextStep(StepRef r) { return stepAt(flatIndex(r) + 1); }
StepRef previousStep(StepRef r) { return stepAt(flatIndex(r) - 1); }

std::vector<double> defaultValues(const Step& s) {
  std::vector<double> v;
  for (const Control& c : s.controls) v.push_back(c.value);
  return v;
}

std::vector<double> clampValues(const Step& s, std::span<const double> values) {
  std::vector<double> out = defaultValues(s);
  for (std::size_t i = 0; i < out.size() && i < values.size(); ++i) {
    const Control& c = s.controls[i];
    double v = values[i];
    if (!std::isfinite(v)) continue;
    v = std::clamp(v, c.min, c.max);
    if (c.kind == ControlKind::Int) v = std::round(v);
    if (c.kind == ControlKind::Switch) v = v >= 0.5 ? 1.0 : 0.0;
    out[i] = v;
  }
  return out;
}

Figure stepFigure(const Step& s, std::span<const double> values, const Inputs& inputs) {
  const std::vector<double> v = clampValues(s, values);
  if (s.figureWith != nullptr) return s.figureWith(v, inputs);
  if (s.figure == nullptr) throw std::logic_error("learn step '" + s.id + "' has no figure");
  return s.figure(v);
}

std::string claimVerdict(const ArticleClaim& c) {
  std::string out = c.verdict;
  const std::string key = "{value}";
  for (std::size_t at = out.find(key); at != std::string::npos; at = out.find(key, at)) {
    if (c.value == nullptr) throw std::logic_error("learn claim '" + c.quote + "' has {value} but no value function");
    const std::string v = c.value();
    out.replace(at, key.size(), v);
    at += v.size();
  }
  return out;
}

std::vector<OpenSetting> openSettings(const Step& s, std::span<const double> values) {
  const std::vector<double> v = clampValues(s, values);
  std::vector<OpenSetting> out;
  for (const auto& [key, from] : s.openWith) {
    if (!from.empty() && from[0] == '=') {
      out.push_back({key, std::stod(from.substr(1)), false});
      continue;
    }
    bool found = false;
    for (std::size_t i = 0; i < s.controls.size(); ++i)
      if (s.controls[i].key == from) {
        out.push_back({key, v[i], s.controls[i].kind == ControlKind::Switch});
        found = true;
      }
    if (!found) throw std::logic_error("learn step '" + s.id + "' opens with unknown control '" + from + "'");
  }
  return out;
}

bool predictionMatches(const Prediction& p, double typed) {
  if (p.answer == nullptr || !std::isfinite(typed)) return false;
  const double half = 0.5 * std::pow(10.0, -p.decimals) + 1e-12;
  return std::abs(typed - p.answer()) <= half;
}

}  // namespace posviz::learn
