#include "app/gui/panels/app_state.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/panel_learn.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "app/cli/learn_command.hpp"
#include "app/cli/tabs.hpp"
#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/figure.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/lessons/claims.hpp"

namespace posviz::app {

namespace {

using namespace posviz::learn;

learn::StepRef current(const LearnPanelState& s) {
  if (auto r = findStep(s.step)) return *r;
  return stepAt(0);
}

std::vector<double>& valuesOf(LearnPanelState& s, const learn::Step& st) {
  auto it = s.values.find(st.id);
  if (it == s.values.end() || it->second.size() != st.controls.size()) it = s.values.insert_or_assign(st.id, defaultValues(st)).first;
  return it->second;
}

bool chapterDone(const LearnPanelState& s, const Chapter& c) {
  for (const learn::Step& st : c.steps)
    if (!s.visited.contains(st.id)) return false;
  return true;
}

ImVec4 severityColour(Severity v) {
  switch (v) {
    case Severity::Holds: return themed(ImVec4(0.45f, 0.85f, 0.50f, 1.0f));
    case Severity::Rounded: return themed(ImVec4(0.95f, 0.85f, 0.40f, 1.0f));
    case Severity::WrongNumber: return themed(ImVec4(1.00f, 0.62f, 0.35f, 1.0f));
    case Severity::WrongConcept: return themed(ImVec4(1.00f, 0.45f, 0.42f, 1.0f));
  }
  return themed(ImVec4(1, 1, 1, 1));
}

void heading(const char* text) {
  ImGui::PushStyleColor(ImGuiCol_Text, themed(ImVec4(0.62f, 0.78f, 1.0f, 1.0f)));
  ImGui::TextUnformatted(text);
  ImGui::PopStyleColor();
}

void drawChapterList(LearnPanelState& s, StepRef at) {
  const auto& cs = chapters();
  for (std::size_t c = 0; c < cs.size(); ++c) {
    const Chapter& ch = cs[c];
    const bool done = chapterDone(s, ch);
    ImGui::PushStyleColor(ImGuiCol_Text, done ? themed(ImVec4(0.45f, 0.85f, 0.50f, 1.0f)) : themed(ImVec4(0.85f, 0.88f, 0.95f, 1.0f)));
    ImGui::TextWrapped("%s%s", ch.title.c_str(), done ? "  (done)" : "");
    ImGui::PopStyleColor();
    for (std::size_t i = 0; i < ch.steps.size(); ++i) {
      const learn::Step& st = ch.steps[i];
      const bool selected = at.chapter == static_cast<int>(c) && at.step == static_cast<int>(i);
      const std::string label = std::string(s.visited.contains(st.id) ? "   " : " * ") + st.title + "##" + st.id;
      if (ImGui::Selectable(label.c_str(), selected)) learnGo(s, st.id);
      if (selected && s.fade < 0.2f) ImGui::SetScrollHereY(0.3f);
    }
    ImGui::Spacing();
  }
}

bool drawControl(const Control& c, double& v, float width) {
  ImGui::PushID(c.key.c_str());
  bool changed = false;
  ImGui::SetNextItemWidth(width);
  if (c.kind == ControlKind::Switch) {
    bool b = v >= 0.5;
    if (ImGui::Checkbox(c.label.c_str(), &b)) {
      v = b ? 1.0 : 0.0;
      changed = true;
    }
  } else if (c.kind == ControlKind::Int) {
    int i = static_cast<int>(std::llround(v));
    if (ImGui::SliderInt(c.label.c_str(), &i, static_cast<int>(c.min), static_cast<int>(c.max), "%d", ImGuiSliderFlags_AlwaysClamp)) {
      v = i;
      changed = true;
    }
  } else {
    const bool logScale = c.min > 0 && c.max / c.min >= 100.0;
    changed = SliderDouble(c.label.c_str(), &v, c.min, c.max, "%.4g", logScale);
  }
  if (!c.help.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", c.help.c_str());
  }
  ImGui::PopID();
  return changed;
}

void drawControls(LearnPanelState& s, const learn::Step& st, std::vector<double>& v, float width) {
  bool anyExtra = false;
  for (std::size_t i = 0; i < st.controls.size(); ++i) {
    if (st.controls[i].extra) {
      anyExtra = true;
      continue;
    }
    drawControl(st.controls[i], v[i], width * 0.35f);
  }
  if (anyExtra) {
    ImGui::TextUnformatted("Your own q and k:");
    for (std::size_t i = 0; i < st.controls.size(); ++i) {
      if (!st.controls[i].extra) continue;
      ImGui::SameLine();
      ImGui::SetNextItemWidth(width * 0.11f);
      ImGui::PushID(st.controls[i].key.c_str());
      double x = v[i];
      if (ImGui::InputDouble(st.controls[i].label.c_str(), &x, 0.0, 0.0, "%.3f", ImGuiInputTextFlags_EnterReturnsTrue))
        v[i] = std::clamp(x, st.controls[i].min, st.controls[i].max);
      ImGui::PopID();
    }
  }
  if (st.playControl >= 0) {
    if (ImGui::Button(s.playing ? "Pause" : "Play")) s.playing = !s.playing;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(width * 0.2f);
    paramSlider(cli::params::learn::kPlaySpeed, s.playSpeed);
  }
}

void advancePlay(LearnPanelState& s, const learn::Step& st, std::vector<double>& v, AppContext& ctx) {
  if (!s.playing || st.playControl < 0) return;
  ctx.status.animating = true;
  s.playCarry += static_cast<double>(ctx.deltaTime) * s.playSpeed;
  const int whole = static_cast<int>(s.playCarry);
  if (whole <= 0) return;
  s.playCarry -= whole;
  const Control& c = st.controls[static_cast<std::size_t>(st.playControl)];
  double& x = v[static_cast<std::size_t>(st.playControl)];
  x += whole;
  if (x > c.max) x = c.min;  // wrap round
}

void drawClaim(const learn::Step& st) {
  if (!st.claim) return;
  const ArticleClaim& c = *st.claim;
  heading("What the article says");
  ImGui::TextWrapped("%s, \"%s\":", c.article.c_str(), c.section.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, themed(ImVec4(0.85f, 0.85f, 0.78f, 1.0f)));
  ImGui::TextWrapped("\"%s\"", c.quote.c_str());
  ImGui::PopStyleColor();
  ImGui::PushStyleColor(ImGuiCol_Text, severityColour(c.severity));
  std::string label = severityName(c.severity);
  label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
  ImGui::TextWrapped("%s. %s", label.c_str(), claimVerdict(c).c_str());
  ImGui::PopStyleColor();
}

void drawPrediction(LearnPanelState& s, const learn::Step& st, float width) {
  if (!st.predict) return;
  const Prediction& p = *st.predict;
  heading("Predict first");
  ImGui::TextWrapped("%s", p.question.c_str());
  ImGui::SetNextItemWidth(width * 0.4f);
  inputTextString("your answer", s.answer);
  ImGui::SameLine();
  if (ImGui::Button(s.revealed ? "Hide" : "Reveal")) s.revealed = !s.revealed;
  if (!s.revealed) return;
  const double answer = p.answer();
  char* end = nullptr;
  const double typed = std::strtod(s.answer.c_str(), &end);
  const bool gave = !s.answer.empty() && end != nullptr && *end == '\0';
  if (gave) {
    const bool right = predictionMatches(p, typed);
    ImGui::PushStyleColor(ImGuiCol_Text, right ? themed(ImVec4(0.45f, 0.85f, 0.5f, 1)) : themed(ImVec4(1.0f, 0.62f, 0.35f, 1)));
    ImGui::TextWrapped("%s The answer is %s.", right ? "Right." : "Not quite.", formatFixed(answer, p.decimals).c_str());
    ImGui::PopStyleColor();
  } else {
    ImGui::TextWrapped("The answer is %s.", formatFixed(answer, p.decimals).c_str());
  }
  ImGui::TextWrapped("%s", p.reveal.c_str());
}

}  // namespace

void learnGo(LearnPanelState& s, const std::string& stepId, bool animate) {
  if (!findStep(stepId) || stepId == s.step) return;
  s.step = stepId;
  s.visited.insert(stepId);
  s.playing = false;
  s.answer.clear();
  s.revealed = false;
  s.fade = animate ? 0.0f : 1.0f;
}

void learnNext(LearnPanelState& s) { learnGo(s, nextStep(current(s))->id); }
void learnBack(LearnPanelState& s) { learnGo(s, previousStep(current(s))->id); }

std::string learnTitle(const LearnPanelState& s) {
  const StepRef r = current(s);
  return "Learn " + std::to_string(flatIndex(r) + 1) + "/" + std::to_string(stepCount()) + ": " + r->title;
}

namespace {

// A step's figure for values v, timed, a failure kept as its message: in the frame or on the worker.
LearnFigureResult computeFigure(const learn::Step& st, const std::vector<double>& v, const std::shared_ptr<const learn::Inputs>& inputs) {
  LearnFigureResult r;
  r.step = st.id;
  r.values = v;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    r.figure = stepFigure(st, v, inputs ? *inputs : learn::Inputs{});
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  r.millis = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// Shows a computed figure and remembers how long its step took.
void showFigure(LearnPanelState& s, LearnFigureResult r) {
  s.figureMs[r.step] = r.millis;
  s.figure = std::move(r.figure);
  s.error = std::move(r.error);
  s.shownStep = std::move(r.step);
  s.shownValues = std::move(r.values);
}

// Recompute when the step or a value changed, never every frame: in the frame for a step's first
// figure and for quick ones, on the worker for a step whose figure took over kLearnSyncMs (a
// drag then shows each figure as it arrives, the last one staying up meanwhile).
void refreshFigure(LearnPanelState& s, const learn::Step& st, const std::vector<double>& v) {
  if (s.figureJob.poll()) {
    if (const LearnFigureResult* r = s.figureJob.result(); r && r->step == st.id) showFigure(s, *r);
  }
  if (s.shownStep == st.id && s.shownValues == v) return;
  if (st.figureWith != nullptr && !s.inputs) s.inputs = std::make_shared<const learn::Inputs>(cli::learnInputs());
  const auto slow = s.figureMs.find(st.id);
  if (s.shownStep == st.id && slow != s.figureMs.end() && slow->second > kLearnSyncMs) {
    if (s.pendingStep == st.id && s.pendingValues == v) return;   // asked already
    s.pendingStep = st.id;
    s.pendingValues = v;
    s.figureJob.request([step = &st, v, inputs = s.inputs](JobControl&) { return computeFigure(*step, v, inputs); });
    return;
  }
  showFigure(s, computeFigure(st, v, s.inputs));
  s.pendingStep.clear();
}

// Where the step is on the path, its title, the chapter's intro on its first step, and why.
void drawStepHeader(StepRef at, const learn::Step& st, float w) {
  const Chapter& ch = chapters()[static_cast<std::size_t>(at.chapter)];
  ImGui::TextDisabled("%s  -  step %d of %zu  -  %d of %d on the path", ch.title.c_str(), at.step + 1, ch.steps.size(), flatIndex(at) + 1, stepCount());
  ImGui::SetWindowFontScale(1.35f);
  ImGui::TextUnformatted(st.title.c_str());
  ImGui::SetWindowFontScale(1.0f);
  if (at.step == 0) {
    ImGui::PushStyleColor(ImGuiCol_Text, themed(ImVec4(0.75f, 0.80f, 0.90f, 1.0f)));
    ImGui::TextWrapped("%s", ch.intro.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::PushTextWrapPos(w);
  ImGui::TextWrapped("%s", st.why.c_str());
  ImGui::PopTextWrapPos();
  ImGui::Separator();
}

// The figure, its exact numbers and the controls, in a column figW wide.
void drawFigureColumn(LearnPanelState& s, const learn::Step& st, std::vector<double>& v, float figW, float figH) {
  ImGui::BeginGroup();
  if (!s.error.empty()) {
    ErrorText("This figure could not be drawn: " + s.error);
    ImGui::Dummy(ImVec2(figW, figH));
  } else {
    std::string readout;
    for (const std::string& r : s.figure.readout) readout += (readout.empty() ? "" : "; ") + r;
    const ImVec2 corner = ImGui::GetCursorScreenPos();
    drawLearnFigure(s.figure, {st.title, readout}, figW, figH, 0.25f + 0.75f * s.fade);
    if (s.figureJob.busy() && s.pendingStep == st.id)   // the figure shown is the last values'
      ImGui::GetWindowDrawList()->AddText(ImVec2(corner.x + 4.0f, corner.y + 2.0f), IM_COL32(255, 220, 120, 255), "updating...");
  }
  for (const std::string& r : s.figure.readout) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + figW);
    ImGui::TextWrapped("%s", r.c_str());
    ImGui::PopTextWrapPos();
  }
  drawControls(s, st, v, figW);
  ImGui::EndGroup();
}

// What to notice, the article's claim, the prediction, try this, and the ways deeper.
std::optional<OpenRequest> drawSideColumn(LearnPanelState& s, const learn::Step& st, const std::vector<double>& v, float sideW, float h) {
  std::optional<OpenRequest> open;
  ImGui::BeginChild("learn-side", ImVec2(sideW, h), false);
  heading("What to notice");
  ImGui::TextWrapped("%s", st.notice.c_str());
  ImGui::Spacing();
  if (s.showClaim) drawClaim(st);
  ImGui::Spacing();
  drawPrediction(s, st, sideW);
  ImGui::Spacing();
  heading("Try this");
  ImGui::TextWrapped("%s", st.tryThis.c_str());
  ImGui::Spacing();
  const cli::TabDef* tab = cli::findTab(st.openTab);
  const std::string openLabel = "Open in " + (tab ? tab->title : st.openTab);
  if (ImGui::Button(openLabel.c_str())) open = OpenRequest{st.openTab, openSettings(st, v), ""};
  if (!st.example.empty()) {
    if (ImGui::Button("See the worked example")) open = OpenRequest{"worked-examples", {}, st.example};
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Every number of this article's example, checked one by one, in the Worked examples tab");
  }
  ImGui::Checkbox("show the articles' claims", &s.showClaim);
  ImGui::EndChild();
  return open;
}

// Back and Next, with the next step's title on the button.
void drawNavigation(LearnPanelState& s, StepRef at, float scale) {
  ImGui::Separator();
  const bool first = flatIndex(at) == 0, last = flatIndex(at) == stepCount() - 1;
  ImGui::BeginDisabled(first);
  if (ImGui::Button("< Back", ImVec2(140.0f * scale, 0))) learnBack(s);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (last) {
    ImGui::TextDisabled("The end of the path. Every tab above goes deeper.");
  } else {
    const std::string next = "Next: " + nextStep(at)->title + " >";
    if (ImGui::Button(next.c_str())) learnNext(s);
  }
  ImGui::SameLine();
  ImGui::TextDisabled("(Page Down / Page Up)");
}

}  // namespace

std::optional<OpenRequest> drawLearnPanel(LearnPanelState& s, AppContext& ctx) {
  const StepRef at = current(s);
  const learn::Step& st = at.get();
  if (s.step.empty()) s.step = st.id;
  s.visited.insert(st.id);
  std::vector<double>& v = valuesOf(s, st);
  advancePlay(s, st, v, ctx);
  if (s.fade < 1.0f) {
    s.fade = std::min(1.0f, s.fade + ctx.deltaTime * 4.0f);
    ctx.status.animating = true;
  }
  refreshFigure(s, st, v);
  if (s.figureJob.busy()) {   // a figure on the worker: say so, and keep frames coming until it lands
    ctx.status.busy = true;
    ctx.status.progress = -1.0f;
  }

  const float scale = ctx.uiScale;
  ImGui::BeginChild("learn-chapters", ImVec2(270.0f * scale, 0), true);
  drawChapterList(s, at);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("learn-step", ImVec2(0, 0), false);
  const float w = ImGui::GetContentRegionAvail().x;
  drawStepHeader(at, st, w);

  const float sideW = std::max(300.0f * scale, w * 0.32f);
  const float figW = w - sideW - 16.0f * scale;
  const float navH = ImGui::GetFrameHeightWithSpacing() * 1.6f;
  const auto sliders = std::count_if(st.controls.begin(), st.controls.end(), [](const Control& c) { return !c.extra; });
  const float controlsH = ImGui::GetFrameHeightWithSpacing() * (static_cast<float>(sliders) + (st.playControl >= 0 ? 1.0f : 0.0f) + 1.0f);
  const float readoutH = ImGui::GetTextLineHeightWithSpacing() * (static_cast<float>(s.figure.readout.size()) * 1.5f + 0.5f);
  const float figH = std::max(200.0f * scale, ImGui::GetContentRegionAvail().y - controlsH - readoutH - navH);

  const float startX = ImGui::GetCursorPosX();
  drawFigureColumn(s, st, v, figW, figH);
  ImGui::SameLine(startX + figW + 16.0f * scale);
  const std::optional<OpenRequest> open = drawSideColumn(s, st, v, sideW, figH + readoutH + controlsH);
  drawNavigation(s, at, scale);
  ImGui::EndChild();
  return open;
}


// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

// The Learn path: where the student is, what they have seen, the values they set per step.
void saveLearn(const AppState& a, nlohmann::json& j) {
  const LearnPanelState& s = a.learn;
  j["step"] = s.step;
  j["visited"] = s.visited;
  nlohmann::json values = nlohmann::json::object();
  for (const auto& [id, v] : s.values) values[id] = v;
  j["values"] = values;
  cli::saveParam(j, cli::params::learn::kPlaySpeed, s.playSpeed);
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
  cli::loadParam(j, cli::params::learn::kPlaySpeed, s.playSpeed);
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
  if (p.def->load != nullptr && !r.settings.empty()) p.def->load(a, j);
  a.requestedPanel = index;
}

}  // namespace

const PanelDef kLearnPanel{"learn", [](AppState& a, AppContext& c) { if (auto r = drawLearnPanel(a.learn, c)) openFromLearn(a, *r); },
    nullptr,
    saveLearn, loadLearn, tweakLearn,
    [](const AppState& a) { return learnTitle(a.learn); },
    [](AppState& a, int direction) { direction > 0 ? learnNext(a.learn) : learnBack(a.learn); }};

}  // namespace posviz::app
