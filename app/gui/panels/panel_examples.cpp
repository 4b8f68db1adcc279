// panel_examples.cpp: the Worked Examples view.
//
// [SECTION] State: examples, navigation, the mini view's image
// [SECTION] Drawing: mini views (heatmap, clock, plot)
// [SECTION] Drawing: the list and the step
#include "app/cli/params/lessons.hpp"
#include "app/gui/panels/app_state.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/widgets/figure_export.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/panel_examples.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <numbers>

#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/angle.hpp"
#include "core/lessons/articles.hpp"

namespace posviz::app {

//-----------------------------------------------------------------------------
// [SECTION] State: examples, navigation, the mini view's image
//-----------------------------------------------------------------------------

namespace {

const ImVec4 kAgreeColor(0.40f, 0.85f, 0.45f, 1.0f);
const ImVec4 kTruncatedColor(0.95f, 0.85f, 0.35f, 1.0f);
const ImVec4 kDifferColor(1.00f, 0.42f, 0.38f, 1.0f);
const ImVec4 kCauseColor(1.00f, 0.78f, 0.45f, 1.0f);

std::string numberText(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

void ensureExamples(ExamplesPanelState& s) {
  if (!s.dirty) return;
  s.dirty = false;
  s.error.clear();
  try {
    s.examples = workedExamples();
    s.tests = documentTestGrid();
  } catch (const std::exception& e) {
    s.examples.clear();
    s.error = e.what();
  }
  s.selected = std::clamp(s.selected, 0, std::max(0, static_cast<int>(s.examples.size()) - 1));
  s.step = 0;
  s.shownExample = s.shownStep = -1;
}

const Step* currentStep(const ExamplesPanelState& s) {
  if (s.selected < 0 || s.selected >= static_cast<int>(s.examples.size())) return nullptr;
  const WorkedExample& e = s.examples[static_cast<std::size_t>(s.selected)];
  if (s.step < 0 || s.step >= static_cast<int>(e.steps.size())) return nullptr;
  return &e.steps[static_cast<std::size_t>(s.step)];
}

// When the step changes: a fresh view of the new grid with its place highlighted.
void syncMiniView(ExamplesPanelState& s) {
  if (s.shownExample == s.selected && s.shownStep == s.step) return;
  s.shownExample = s.selected;
  s.shownStep = s.step;
  s.map.resetView();
  s.map.highlightRow = s.map.highlightCol = -1;
  const Step* st = currentStep(s);
  if (!st || st->view.grid.values.empty()) return;
  s.map.wanted = HeatmapWindow{};
  refreshImage(st->view.grid, s.map, s.image, s.version, true);
  s.map.highlightRow = st->view.highlightRow;
  s.map.highlightCol = st->view.highlightRow >= 0 ? st->view.highlightCol : -1;
}

}  // namespace

void examplesSelect(ExamplesPanelState& s, int example) {
  if (s.examples.empty()) return;
  s.showTests = false;
  s.selected = std::clamp(example, 0, static_cast<int>(s.examples.size()) - 1);
  s.step = 0;
}

void examplesSelectByName(ExamplesPanelState& s, const std::string& name) {
  ensureExamples(s);
  for (std::size_t i = 0; i < s.examples.size(); ++i)
    if (s.examples[i].name == name) examplesSelect(s, static_cast<int>(i));
}

void examplesNextStep(ExamplesPanelState& s) {
  if (s.selected < 0 || s.selected >= static_cast<int>(s.examples.size())) return;
  const int n = static_cast<int>(s.examples[static_cast<std::size_t>(s.selected)].steps.size());
  s.step = std::clamp(s.step + 1, 0, std::max(0, n - 1));
}

void examplesPreviousStep(ExamplesPanelState& s) { s.step = std::max(0, s.step - 1); }

//-----------------------------------------------------------------------------
// [SECTION] Drawing: mini views (heatmap, clock, plot)
//-----------------------------------------------------------------------------

namespace {

HeatmapSpec miniSpec(const MiniView& v) {
  HeatmapSpec spec;
  spec.logicalRows = v.grid.rows;
  spec.logicalCols = v.grid.cols;
  spec.rowAxis = {v.rowTitle, v.rowOrigin, 1.0};
  spec.colAxis = {v.colTitle, 0.0, 1.0};
  spec.valueName = v.valueName;
  spec.colormap = v.symmetricRange ? Colormap::RdBu : Colormap::Viridis;
  spec.symmetricRange = v.symmetricRange;
  spec.noDataRowsFrom = v.noDataRowsFrom;
  spec.noDataLabel = v.noDataLabel;
  const Grid g = v.grid;
  spec.exactValue = [g](long long r, long long c) { return static_cast<double>(g.at(static_cast<int>(r), static_cast<int>(c))); };
  const std::string rowTitle = v.rowTitle, colTitle = v.colTitle, valueName = v.valueName;
  const double origin = v.rowOrigin;
  spec.formula = [g, rowTitle, colTitle, valueName, origin](long long r, long long c) {
    return valueName + " at " + rowTitle + " " + std::to_string(static_cast<long long>(origin) + r) + ", " + colTitle + " " +
           std::to_string(c) + " = " + numberText(g.at(static_cast<int>(r), static_cast<int>(c)));
  };
  return spec;
}

// The widget outlines single cells; a whole-row highlight (highlightCol < 0) is outlined here,
// over the widget's plot area. The margins mirror drawHeatmap's layout (heatmap.cpp).
void outlineRow(const HeatmapState& hs, int row, ImVec2 origin, float w, float h) {
  if (row < 0 || hs.viewRows <= 0.0 || hs.viewCols <= 0.0) return;
  const float fh = ImGui::GetFontSize();
  const ImVec2 p0(origin.x + fh * 4.2f, origin.y + fh * 1.6f);
  const float right = hs.showColorbar ? fh * 6.0f : fh * 0.5f;
  const ImVec2 p1(origin.x + std::max(w - right, fh * 4.2f + 20.0f), origin.y + std::max(h - fh * 2.9f, fh * 1.6f + 20.0f));
  const float ph = p1.y - p0.y;
  const auto toY = [&](double r) { return p0.y + static_cast<float>((r - hs.viewRow0) / hs.viewRows * ph); };
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(ImVec2(p0.x - 3, p0.y - 3), ImVec2(p1.x + 3, p1.y + 3), true);
  dl->AddRect(ImVec2(p0.x - 1, toY(row) - 1), ImVec2(p1.x + 1, toY(row + 1.0) + 1), themed(IM_COL32(255, 255, 255, 255)), 0.0f, 0, 2.5f);
  dl->PopClipRect();
}

void drawMiniHeatmap(ExamplesPanelState& s, const MiniView& v, float w, float h) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  if (drawHeatmap("example-grid", s.map, miniSpec(v), s.image, w, h)) refreshImage(v.grid, s.map, s.image, s.version, false);
  if (v.highlightRow >= 0 && v.highlightCol < 0) outlineRow(s.map, v.highlightRow, origin, w, h);
}

// A dial with one hand per ClockHand: x = cos(angle), y = sin(angle), counter-clockwise from +x.
void drawClock(const MiniView& v, float size) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##clock", ImVec2(size, size));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fh = ImGui::GetFontSize();
  const ImVec2 c(origin.x + size * 0.5f, origin.y + size * 0.5f);
  const float r = size * 0.5f - fh * 1.6f;
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  dl->AddCircleFilled(c, r, themed(IM_COL32(30, 34, 42, 255)), 96);
  dl->AddCircle(c, r, dim, 96, 1.5f);
  dl->AddLine(ImVec2(c.x - r, c.y), ImVec2(c.x + r, c.y), dim, 1.0f);
  dl->AddLine(ImVec2(c.x, c.y - r), ImVec2(c.x, c.y + r), dim, 1.0f);
  dl->AddText(ImVec2(c.x + r + 4, c.y - fh * 0.5f), dim, "cos");
  dl->AddText(ImVec2(c.x - fh * 0.8f, c.y - r - fh * 1.3f), dim, "sin");
  dl->AddText(ImVec2(c.x + r - fh * 0.7f, c.y + 2), dim, "0");
  for (std::size_t i = 0; i < v.hands.size(); ++i) {
    const ClockHand& hand = v.hands[i];
    const ImU32 col = plotColor(static_cast<int>(i));
    const float len = r * static_cast<float>(std::clamp(hand.length, 0.05, 1.0));
    const ImVec2 tip(c.x + len * static_cast<float>(std::cos(hand.angle)), c.y - len * static_cast<float>(std::sin(hand.angle)));
    dl->AddLine(c, tip, col, 3.0f);
    dl->AddCircleFilled(tip, 4.0f, col);
  }
  dl->AddCircleFilled(c, 3.0f, text);
  // Legend: label, angle in [0, 2pi) and the hand's (cos, sin).
  for (std::size_t i = 0; i < v.hands.size(); ++i) {
    const ClockHand& hand = v.hands[i];
    const double wrapped = wrapAngle(hand.angle);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(plotColor(static_cast<int>(i))));
    ImGui::Bullet();
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::Text("%s: angle %s rad (%s deg), cos %s, sin %s", hand.label.c_str(), formatShort(hand.angle, 6).c_str(),
                formatShort(wrapped * 180.0 / std::numbers::pi, 4).c_str(), formatShort(std::cos(hand.angle), 6).c_str(),
                formatShort(std::sin(hand.angle), 6).c_str());
  }
}

void drawMiniPlot(const MiniView& v, float w, float h) {
  PlotSpec ps;
  ps.xTitle = v.xTitle;
  ps.yTitle = v.yTitle;
  ps.logY = v.logY;
  for (std::size_t i = 0; i < v.series.size(); ++i) {
    PlotSeries series;
    series.label = v.series[i].label;
    series.x = v.series[i].x;
    series.y = v.series[i].y;
    series.color = plotColor(static_cast<int>(i));
    series.scatter = v.series[i].x.size() <= 16;
    if (v.series[i].x.size() <= 2) series.thickness = 4.0f;  // a single claimed point must stand out
    ps.series.push_back(std::move(series));
  }
  if (v.markerX) ps.markers.push_back({*v.markerX, v.markerLabel, 0});
  drawPlot("example-plot", ps, w, h);
}

void drawMiniView(ExamplesPanelState& s, const MiniView& v) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (!v.title.empty()) ImGui::TextWrapped("%s", v.title.c_str());
  const bool hasGrid = !v.grid.values.empty(), hasClock = !v.hands.empty(), hasPlot = !v.series.empty();
  const int parts = (hasGrid ? 1 : 0) + (hasClock ? 1 : 0) + (hasPlot ? 1 : 0);
  if (parts == 0) {
    ImGui::TextDisabled("(this step has numbers only)");
    return;
  }
  const float h = std::max(160.0f, (ImGui::GetContentRegionAvail().y - 4.0f) / static_cast<float>(parts));
  if (hasGrid) drawMiniHeatmap(s, v, avail.x, std::min(h, avail.x * 0.95f));
  if (hasClock) {
    const float lines = static_cast<float>(v.hands.size()) * ImGui::GetTextLineHeightWithSpacing();
    const float side = std::max(140.0f, std::min(avail.x, h - lines));
    drawFigure("example-clock", {v.title.empty() ? "Each pair as a clock hand" : v.title, ""}, ImVec2(side, 0.0f),
               [&](ImVec2 size) { drawClock(v, size.x); });
  }
  if (hasPlot) drawMiniPlot(v, avail.x, h);
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: the list and the step
//-----------------------------------------------------------------------------

// What the reader should take from the article at this example, errors counted once per cause:
// green when it holds, amber when the article is wrong (the app is not).
void drawArticleSummary(const VerdictCount& n) {
  const bool holds = n.differs == 0 && n.truncated == 0;
  const std::string text = articleSummary(n);
  ImGui::TextColored(holds ? kAgreeColor : n.differs == 0 ? kTruncatedColor : kCauseColor, "%s%s", holds ? "" : "article: ", text.c_str());
}

const char* severityLabel(Severity v) {
  switch (v) {
    case Severity::Holds: return "HOLDS";
    case Severity::Rounded: return "ROUNDED";
    case Severity::WrongNumber: return "WRONG NUMBER";
    case Severity::WrongConcept: return "WRONG CONCEPT";
  }
  return "";
}

const ImVec4& severityColor(Severity v) {
  return v == Severity::Holds ? kAgreeColor : v == Severity::Rounded ? kTruncatedColor : v == Severity::WrongNumber ? kCauseColor : kDifferColor;
}

// The examples by article, in reading order; the code audits can be hidden so only the lessons show.
void drawList(ExamplesPanelState& s) {
  ImGui::TextUnformatted("Worked examples");
  HelpMarker("Every example of the four articles posviz was built from, by article in reading order, recomputed exactly.\n"
             "Holds: the article's number is right at the precision it prints. Rounded: right, but its last digit is cut\n"
             "off instead of rounded. Wrong number: a slip in a value. Wrong concept: a reversed order, a listing that\n"
             "computes something else, a property that does not hold. Each step gives the correct value and the cause;\n"
             "an error repeated over many claims counts once.");
  ImGui::Checkbox("show the code audits", &s.showAudits);
  ImGui::Separator();
  if (s.showAudits) {
    if (ImGui::Selectable("Test list of Teaching Transformers to Count, per listing", s.showTests)) s.showTests = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The \"Test Coverage\" list of Teaching Transformers to Count, run against every code listing of the documents");
  }
  const Article* heading = nullptr;
  for (int i = 0; i < static_cast<int>(s.examples.size()); ++i) {
    const WorkedExample& e = s.examples[static_cast<std::size_t>(i)];
    if (!s.showAudits && e.topic == "code_audits") continue;
    if (const Article* a = findArticle(e.article); a != heading) {
      heading = a;
      ImGui::Spacing();
      ImGui::TextColored(themed(ImVec4(0.62f, 0.78f, 1.0f, 1.0f)), "%s", a != nullptr ? a->short_ : e.article.c_str());
      if (a != nullptr && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", a->title);
    }
    ImGui::PushID(i);
    ImGui::Indent();
    if (ImGui::Selectable(e.title.c_str(), !s.showTests && i == s.selected)) examplesSelect(s, i);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s\n(posviz examples %s)", e.title.c_str(), e.source.c_str(), e.name.c_str());
    ImGui::Indent();
    drawArticleSummary(countVerdicts(e));
    ImGui::Unindent();
    ImGui::Unindent();
    ImGui::PopID();
  }
}

void drawNumbers(const Step& st) {
  if (st.numbers.empty()) return;
  ImGui::TextDisabled("the numbers, computed");
  if (ImGui::BeginTable("numbers", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp)) {
    for (const auto& [name, value] : st.numbers) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s", name.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(numberText(value).c_str());
    }
    ImGui::EndTable();
  }
}

void drawClaims(const Step& st) {
  if (st.claims.empty()) return;
  ImGui::TextDisabled("the article's claims, checked");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("claims", 4, flags)) return;
  ImGui::TableSetupColumn("the article is", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("claim", ImGuiTableColumnFlags_WidthStretch, 3.0f);
  ImGui::TableSetupColumn("article", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableSetupColumn("computed", ImGuiTableColumnFlags_WidthStretch, 1.6f);
  ImGui::TableHeadersRow();
  for (const Claim& c : st.claims) {
    const bool ok = c.verdict == Verdict::Agrees;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const Severity sev = claimSeverity(c);
    ImGui::TextColored(severityColor(sev), "%s", severityLabel(sev));
    if (!c.behaviour.empty()) {
      ImGui::TextColored(c.behaviour == "agrees" ? kAgreeColor : kCauseColor, "[%s]", c.behaviour.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("what the listing did at this edge when run");
    }
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", c.text.c_str());
    if (!ok) {
      ImGui::PushStyleColor(ImGuiCol_Text, kCauseColor);
      if (c.verdict == Verdict::Truncated)
        ImGui::TextWrapped("The article prints %s; rounded it is %s. %s", c.claimedText.c_str(), c.computedText.c_str(), c.likelyCause.c_str());
      else
        ImGui::TextWrapped("The article says %s; the correct value is %s, because %s", c.claimedText.c_str(), c.computedText.c_str(),
                           c.likelyCause.empty() ? "of a cause the numbers do not show." : c.likelyCause.c_str());
      ImGui::PopStyleColor();
    }
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", c.claimedText.c_str());
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", c.computedText.c_str());
    ImGui::TextDisabled("(%s)", c.precision.c_str());
  }
  ImGui::EndTable();
}

const ImVec4& cellColor(TestCell c) {
  return c == TestCell::Pass ? kAgreeColor : c == TestCell::Fail ? kDifferColor : kTruncatedColor;
}

// 001's test list: one row per test, one column per listing; hover a cell for what it ran.
void drawTestGrid(const TestGrid& g) {
  ImGui::TextUnformatted("The \"Test Coverage\" list of Teaching Transformers to Count, run against every code listing of the documents");
  ImGui::TextDisabled("pass / FAIL computed from the listings' transcriptions; n/a: the test is about another kind of module. Hover a cell.");
  const int cols = static_cast<int>(g.listings.size()) + 1;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("test-grid", cols, flags)) return;
  ImGui::TableSetupColumn("test", ImGuiTableColumnFlags_WidthStretch, 3.0f);
  // "Teaching: sinusoidal" -> "Teaching:\nsinusoidal": two header lines keep eleven columns readable.
  for (std::string l : g.listings) {
    const std::size_t space = l.find(' ');
    if (space != std::string::npos) l[space] = '\n';
    ImGui::TableSetupColumn(l.c_str(), ImGuiTableColumnFlags_WidthStretch, 1.0f);
  }
  ImGui::TableHeadersRow();
  for (std::size_t t = 0; t < g.tests.size(); ++t) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", g.tests[t].c_str());
    for (std::size_t l = 0; l < g.listings.size(); ++l) {
      ImGui::TableNextColumn();
      const TestCell c = g.at(t, l);
      if (c == TestCell::NotApplicable) ImGui::TextDisabled("n/a");
      else ImGui::TextColored(cellColor(c), "%s", testCellName(c));
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s, %s:\n%s", g.listings[l].c_str(), g.tests[t].c_str(), g.notes[t * g.listings.size() + l].c_str());
    }
  }
  ImGui::EndTable();
  ImGui::Spacing();
  ImGui::TextDisabled("what each failing cell ran");
  for (std::size_t t = 0; t < g.tests.size(); ++t)
    for (std::size_t l = 0; l < g.listings.size(); ++l)
      if (g.at(t, l) == TestCell::Fail)
        ImGui::TextWrapped("%s / %s: %s", g.listings[l].c_str(), g.tests[t].c_str(), g.notes[t * g.listings.size() + l].c_str());
}

// A code audit's faulty line as the listing prints it, and the line that does what it claims.
void drawFixes(const WorkedExample& e) {
  if (e.fixes.empty()) return;
  ImGui::TextDisabled("the listing's faulty line, and its correction");
  for (const CodeFix& f : e.fixes) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kDifferColor, "-  %s", f.faulty.c_str());
    ImGui::TextColored(kAgreeColor, "+  %s", f.corrected.c_str());
    ImGui::PopTextWrapPos();
    ImGui::TextWrapped("%s", f.why.c_str());
    ImGui::Spacing();
  }
}

void drawStep(ExamplesPanelState& s, float scale) {
  const WorkedExample& e = s.examples[static_cast<std::size_t>(s.selected)];
  const int n = static_cast<int>(e.steps.size());
  ImGui::TextUnformatted(e.title.c_str());
  ImGui::SameLine();
  drawArticleSummary(countVerdicts(e));
  ImGui::TextDisabled("%s", e.source.c_str());
  ImGui::BeginDisabled(s.step <= 0);
  if (ImGui::ArrowButton("##back", ImGuiDir_Left)) examplesPreviousStep(s);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(s.step >= n - 1);
  if (ImGui::ArrowButton("##next", ImGuiDir_Right)) examplesNextStep(s);
  ImGui::EndDisabled();
  ImGui::SameLine();
  const Step* st = currentStep(s);
  if (!st) return;
  ImGui::Text("Step %d / %d: %s", s.step + 1, n, st->title.c_str());
  ImGui::SameLine();
  HelpMarker("Back / Next, or the Left / Right arrow keys.");
  ImGui::Separator();

  syncMiniView(s);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float textW = std::max(320.0f * scale, avail.x * 0.52f);
  ImGui::BeginChild("example-text", ImVec2(textW, avail.y), false);
  ImGui::TextDisabled("formula");
  ImGui::PushStyleColor(ImGuiCol_Text, themed(ImVec4(0.75f, 0.88f, 1.0f, 1.0f)));
  ImGui::TextWrapped("%s", st->formula.c_str());
  ImGui::PopStyleColor();
  if (!st->explanation.empty()) ImGui::TextWrapped("%s", st->explanation.c_str());
  ImGui::Spacing();
  drawClaims(*st);
  ImGui::Spacing();
  drawFixes(e);
  if (!st->numbers.empty())
    drawFigure("example-numbers", {st->title + ": the numbers", ""}, ImVec2(ImGui::GetContentRegionAvail().x, 0.0f),
               [&](ImVec2) { drawNumbers(*st); });
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("example-view", ImVec2(0, avail.y), true);
  drawMiniView(s, st->view);
  ImGui::EndChild();
}

}  // namespace

void drawExamplesPanel(ExamplesPanelState& s, AppContext& ctx) {
  const float scale = ctx.uiScale;
  ensureExamples(s);
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !ImGui::GetIO().WantTextInput) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) examplesNextStep(s);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) examplesPreviousStep(s);
  }

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  ImGui::BeginChild("examples-list", ImVec2(std::min(380.0f * scale, avail.x * 0.3f), avail.y), true);
  drawList(s);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("examples-step", ImVec2(0, avail.y), false);
  if (!s.error.empty()) ErrorText("computing the worked examples failed: " + s.error);
  else if (s.showTests)
    drawFigure("test-grid", {"The documents' code listings against the Test Coverage list", ""}, ImVec2(ImGui::GetContentRegionAvail().x, 0.0f),
               [&](ImVec2) { drawTestGrid(s.tests); });
  else if (!s.examples.empty()) drawStep(s, scale);
  ImGui::EndChild();

  ctx.status.backend = "CPU";
  ctx.status.busy = false;
  ctx.status.progress = -1.0f;
  ctx.status.computeMs = 0.0;
  ctx.status.gridSize.clear();
  if (const Step* st = s.showTests ? nullptr : currentStep(s); st != nullptr && !st->view.grid.values.empty())
    ctx.status.gridSize = formatGridSize(st->view.grid.rows, st->view.grid.cols);
}

namespace {

// File > Export: the step's picture (the view `example`) and its plot's first series.
ExportableView examplesExports(const ExamplesPanelState& s) {
  ExportableView ex;
  const Step* st = s.showTests || s.examples.empty() ? nullptr : currentStep(s);
  if (st == nullptr) return ex;
  const WorkedExample& e = s.examples[static_cast<std::size_t>(s.selected)];
  ex.name = "example-" + e.name + "-step" + std::to_string(s.step + 1);
  ex.caption = e.title + ": " + st->title;
  if (!st->view.grid.values.empty()) {
    ex.colormap = st->view.symmetricRange ? Colormap::RdBu : Colormap::Viridis;
    ex.symmetricRange = st->view.symmetricRange;
    cli::ViewCall call{"example"};
    call.set(cli::params::example::kName, e.name).set(cli::params::example::kStep, s.step + 1);
    ex.call = std::move(call);
  }
  if (!st->view.series.empty()) {
    const MiniSeries& ms = st->view.series.front();
    ex.plotColumnNames = {st->view.xTitle, ms.label};
    ex.plotColumns = [cols = std::vector<std::vector<double>>{ms.x, ms.y}] { return cols; };
  }
  return ex;
}

}  // namespace

// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

void tweakExamples(AppState& a) {
  a.examples.selected = a.examples.selected == 0 ? 1 : 0;
  a.examples.step = 0;
  a.examples.dirty = true;
}

}  // namespace

const PanelDef kExamplesPanel{"worked-examples", [](AppState& a, AppContext& c) { drawExamplesPanel(a.examples, c); },
    nullptr,
    nullptr, nullptr, tweakExamples, nullptr, nullptr,
    [](AppState& a) {   // workedExamples() order: the documents' first example
      a.examples.selected = 0;
      a.examples.step = 0;
    },
    nullptr, [](const AppState& a) { return examplesExports(a.examples); }};

}  // namespace posviz::app
