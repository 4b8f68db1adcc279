// panel_compare.cpp: the comparison table and the decision chart.
//
// [SECTION] Update: parameters -> computed table -> verdicts
// [SECTION] Drawing: parameters
// [SECTION] Drawing: the table
// [SECTION] Drawing: the decision chart
#include "app/gui/panels/app_state.hpp"
#include "app/gui/widgets/figure_export.hpp"
#include "app/gui/panels/panel_train.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/panels/panel_compare.hpp"

#include <imgui.h>

#include <algorithm>
#include <exception>

#include "app/cli/preset_schemes.hpp"
#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::app {

//-----------------------------------------------------------------------------
// [SECTION] Update: parameters -> computed table -> verdicts
//-----------------------------------------------------------------------------

ComparisonParams comparisonParams(const ComparePanelState& s) {
  ComparisonParams p;
  p.dModel = s.dModel;
  p.numHeads = s.numHeads;
  p.trainedLength = s.trainedLength;
  p.targetLength = s.targetLength;
  p.seed = static_cast<std::uint64_t>(s.seed);
  return p;
}

namespace {

CompareComputed computeCompare(const ComparisonParams& p, const std::vector<ModelSchemes>& models, const ComparisonOptions& options = {}) {
  CompareComputed out{computeComparison(p, models, options), {}};
  for (const ComparisonClaim& claim : comparisonClaims().claims) out.verdicts.push_back(judgeClaim(claim, out.table));
  return out;
}

// Asks the worker for a table of `shifts` shifts, lending checks from the last table of its kind.
void requestCompare(ComparePanelState& s, int shifts) {
  const bool full = shifts == kMaxShifts;
  std::optional<Comparison> lender = full ? s.lastFull : s.lastCoarse;
  s.refineOwed = !full;
  s.refineRunning = full;
  s.job.request([p = comparisonParams(s), models = s.models, shifts, lender = std::move(lender)](JobControl& jc) {
    ComparisonOptions options;
    options.shifts = shifts;
    options.reuse = lender ? &*lender : nullptr;
    options.afterColumn = [&jc](int done, int total) {
      throwIfCancelled(jc);
      jc.setProgress(static_cast<float>(done) / static_cast<float>(total));
    };
    return computeCompare(p, models, options);
  });
}

// A change seen: its coarse table is asked for when the pacer allows and no coarse table is
// computing. A full table still computing is for inputs now gone, so it stops.
void requestAfterChange(ComparePanelState& s) {
  if (!s.pacer.pending) return;
  // At once, whatever the pacer says: a full table that went on computing could still land.
  if (s.refineRunning && s.job.busy()) s.job.cancelAll();
  const bool coarseRunning = s.job.busy() && !s.refineRunning;
  if (coarseRunning || !s.pacer.ready()) return;
  s.pacer.started();
  try {
    if (s.models.empty()) s.models = cli::presetSchemes();   // shipped files, read once, here
    requestCompare(s, kCompareCoarseShifts);
  } catch (const std::exception& e) {
    s.error = e.what();
  }
}

// The full table, once the coarse one is in and no change has come for kCompareRestSeconds.
void requestAfterRest(ComparePanelState& s) {
  if (s.pacer.pending || !s.refineOwed || s.job.busy() || s.pacer.sinceChange() < kCompareRestSeconds) return;
  if (!s.error.empty()) {   // bad parameters: nothing to refine
    s.refineOwed = false;
    return;
  }
  requestCompare(s, kMaxShifts);
}

void takeCompareResult(ComparePanelState& s) {
  s.error = s.job.error();
  const CompareComputed* r = s.job.result();
  if (!s.error.empty()) s.refineOwed = false;
  if (!s.error.empty() || r == nullptr) return;
  s.table = r->table;
  s.verdicts = r->verdicts;
  (r->table.shifts == kMaxShifts ? s.lastFull : s.lastCoarse) = r->table;
}

}  // namespace

void updateComparePanel(ComparePanelState& s) {
  if (!s.dirty) return;
  s.dirty = false;
  s.error.clear();
  try {
    if (s.models.empty()) s.models = cli::presetSchemes();
    CompareComputed c = computeCompare(comparisonParams(s), s.models);
    s.table = std::move(c.table);
    s.verdicts = std::move(c.verdicts);
  } catch (const std::exception& e) {
    s.error = e.what();
  }
}

bool updateComparePanelAsync(ComparePanelState& s) {
  if (s.dirty) {
    s.dirty = false;
    s.pacer.change();
  }
  requestAfterChange(s);
  bool changed = false;
  if (s.job.poll()) {
    s.pacer.finished(s.job.millis(), !s.refineRunning);   // a full table's time does not pause a drag
    takeCompareResult(s);
    changed = true;
  }
  if (!s.job.busy()) s.refineRunning = false;
  requestAfterRest(s);
  return changed;
}

bool compareBusy(const ComparePanelState& s) { return s.dirty || s.pacer.pending || s.job.busy() || s.refineOwed; }

namespace {

namespace table = cli::params::compare;

const ImVec4 kAgreeColor(0.40f, 0.85f, 0.45f, 1.0f);
const ImVec4 kQualifyColor(1.00f, 0.72f, 0.35f, 1.0f);
const ImVec4 kContradictColor(1.00f, 0.40f, 0.40f, 1.0f);
const ImVec4 kClaimColor(0.70f, 0.76f, 0.86f, 1.0f);

ImVec4 verdictColor(CellVerdict v) {
  switch (v) {
    case CellVerdict::Agrees: return kAgreeColor;
    case CellVerdict::Qualifies: return kQualifyColor;
    case CellVerdict::Contradicts: return kContradictColor;
    case CellVerdict::NotTested: return ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
  }
  return kClaimColor;
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: parameters
//-----------------------------------------------------------------------------

void drawParameters(ComparePanelState& s, float scale) {
  ImGui::TextUnformatted("Model shape");
  HelpMarker("Every cell of the table is computed for this shape.\n"
             "head_dim = d_model / heads: RoPE rotates head_dim dims, ALiBi has one slope per head.");
  ImGui::PushItemWidth(170.0f * scale);
  bool changed = paramSlider(table::kDModel, s.dModel,
                             "Width of the embeddings. Learned parameters = L0 x d_model; sinusoidal ||PE|| = sqrt(d_model/2).");
  changed |= paramSlider(table::kHeads, s.numHeads,
                         "Attention heads. ALiBi slope m_h = 2^(-8h/H) (power-of-two H; Press et al. otherwise).\n"
                         "d_model / heads must be even.");
  changed |= paramSlider(table::kTrainedLength, s.trainedLength,
                         "Positions seen in training: the learned table has rows 0..L0-1; a pair whose angle\n"
                         "(L0-1) theta_i stays below 2 pi never completed a turn in training.");
  changed |= paramSlider(table::kTargetLength, s.targetLength, "The sequence run now: positions 0..L-1. Extrapolation means L > L0.");
  changed |= paramSlider(table::kSeed, s.seed, "Seed of the q and k vectors of the relative check (N(0, 1)).");
  if (changed) s.dirty = true;
  ImGui::PopItemWidth();
  if (!s.error.empty()) ErrorText(s.error);
  if (!s.table) return;
  const Comparison& c = *s.table;
  ImGui::TextDisabled("head_dim %d, L/L0 = %s", c.headDim,
                      formatShort(static_cast<double>(c.params.targetLength) / static_cast<double>(c.params.trainedLength)).c_str());
  ImGui::Separator();
  ImGui::TextColored(kAgreeColor, "agrees");
  ImGui::SameLine();
  ImGui::TextColored(kQualifyColor, "qualifies");
  ImGui::SameLine();
  ImGui::TextColored(kContradictColor, "contradicts");
  ImGui::SameLine();
  ImGui::TextDisabled("not tested");
  HelpMarker("Each claim of the documents is judged against the computed cell:\n"
             "qualifies = true as stated, but the numbers add a condition (hover a verdict for why).");
  int counts[4] = {0, 0, 0, 0};
  for (const ClaimVerdict& v : s.verdicts) ++counts[static_cast<int>(v.verdict)];
  ImGui::Text("%zu claims of Teaching Transformers to Count and the interview guide:", s.verdicts.size());
  for (CellVerdict v : {CellVerdict::Agrees, CellVerdict::Qualifies, CellVerdict::Contradicts, CellVerdict::NotTested})
    ImGui::TextColored(verdictColor(v), "  %d %s", counts[static_cast<int>(v)], cellVerdictName(v));
  ImGui::Separator();
  ImGui::TextWrapped("Relative check: seeded q, k; s(m, n) with content added for sinusoidal and learned, "
                     "<R_m q, R_n k> for RoPE, q.k - m_1 |m - n| for ALiBi; 0 = depends only on m - n.");
  ImGui::TextWrapped("Coupling: how far position's effect on the score, s(m, n) - s(0, 0), moves between %d seeded content "
                     "pairs (0: position ignores content), and for additive schemes the share of the cross terms "
                     "q.P(n) + P(m).k. Used by: the shipped presets whose configs use the scheme.",
                     kCouplingDraws);
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: the table
//-----------------------------------------------------------------------------

void drawClaims(const ComparePanelState& s, ComparisonRow row, Scheme scheme) {
  const auto& claims = comparisonClaims().claims;
  const std::string* lastReason = nullptr;  // a reason shared by the cell's claims is shown once
  for (std::size_t i = 0; i < claims.size() && i < s.verdicts.size(); ++i) {
    const ComparisonClaim& c = claims[i];
    if (c.row != row || c.scheme != scheme) continue;
    ImGui::PushStyleColor(ImGuiCol_Text, kClaimColor);
    ImGui::TextWrapped("\"%s\"", c.text.c_str());
    ImGui::PopStyleColor();
    const ClaimVerdict& v = s.verdicts[i];
    ImGui::TextColored(verdictColor(v.verdict), "%s", cellVerdictName(v.verdict));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", withoutCodeNames(v.reason).c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("%s", c.source.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", c.source.c_str(), withoutCodeNames(v.reason).c_str());
    const bool explain = v.verdict == CellVerdict::Qualifies || v.verdict == CellVerdict::Contradicts;
    if (explain && !(lastReason && *lastReason == v.reason)) {
      ImGui::PushStyleColor(ImGuiCol_Text, verdictColor(v.verdict));
      ImGui::TextWrapped("%s", withoutCodeNames(v.reason).c_str());
      ImGui::PopStyleColor();
    }
    if (explain) lastReason = &v.reason;
  }
}

// The Train tab's scheme for a column of the table.
train::PositionScheme trainedScheme(Scheme s) {
  switch (s) {
    case Scheme::Sinusoidal: return train::PositionScheme::Sinusoidal;
    case Scheme::Learned: return train::PositionScheme::Learned;
    case Scheme::Rope: return train::PositionScheme::Rope;
    case Scheme::Alibi: return train::PositionScheme::Alibi;
    case Scheme::NoPE: return train::PositionScheme::None;
  }
  return train::PositionScheme::None;
}

void drawTable(const ComparePanelState& s) {
  if (!s.table) return;
  const Comparison& c = *s.table;
  if (c.shifts < kMaxShifts)
    ImGui::TextColored(kQualifyColor, "Coarse: the relative checks tried %d of %d shifts; the full table follows when the parameters rest.",
                       c.shifts, kMaxShifts);
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInner | ImGuiTableFlags_BordersOuter |
                                ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_ScrollY;
  if (!ImGui::BeginTable("compare-table", 1 + static_cast<int>(c.schemes.size()), flags)) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("property", ImGuiTableColumnFlags_WidthStretch, 0.6f);
  for (Scheme sc : c.schemes) ImGui::TableSetupColumn(schemeTitle(sc), ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableHeadersRow();
  // First: what the Train tab measured, next to which every claim below can be read.
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  drawTrainCitationTitle(s.measured);
  for (Scheme sc : c.schemes) {
    ImGui::TableNextColumn();
    ImGui::PushID(1000 + static_cast<int>(sc));
    drawTrainCitationCell(s.measured, trainedScheme(sc));
    ImGui::PopID();
  }
  for (ComparisonRow row : comparisonRows()) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", comparisonRowTitle(row));
    for (Scheme sc : c.schemes) {
      ImGui::TableNextColumn();
      ImGui::PushID(static_cast<int>(row) * 16 + static_cast<int>(sc));
      ImGui::TextWrapped("%s", withoutCodeNames(comparisonCellText(c, row, sc)).c_str());
      drawClaims(s, row, sc);
      ImGui::PopID();
    }
  }
  ImGui::EndTable();
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: the decision chart
//-----------------------------------------------------------------------------

// One question node and its answers as buttons, indented under it, with a connector from the
// question to each answer; returns the answer clicked (-1 none).
int drawQuestion(const DecisionNode& n, int chosen, float scale) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGui::TextUnformatted(n.question.c_str());
  const ImVec2 qMin = ImGui::GetItemRectMin();
  const ImVec2 from(qMin.x + 6.0f * scale, ImGui::GetItemRectMax().y);
  ImGui::Indent(18.0f * scale);
  int clicked = -1;
  for (std::size_t a = 0; a < n.answers.size(); ++a) {
    const bool sel = static_cast<int>(a) == chosen;
    if (sel) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    ImGui::PushID(static_cast<int>(a));
    if (ImGui::Button(n.answers[a].label.c_str(), ImVec2(-1.0f, 0))) clicked = static_cast<int>(a);
    ImGui::PopID();
    if (sel) ImGui::PopStyleColor();
    const ImVec2 mn = ImGui::GetItemRectMin(), mx = ImGui::GetItemRectMax();
    const ImU32 col = ImGui::GetColorU32(sel ? ImGuiCol_PlotLinesHovered : ImGuiCol_Border);
    const float y = (mn.y + mx.y) * 0.5f;
    dl->AddLine(from, ImVec2(from.x, y), ImGui::GetColorU32(ImGuiCol_Border), 1.0f);
    dl->AddLine(ImVec2(from.x, y), ImVec2(mn.x, y), col, sel ? 2.5f : 1.0f);
  }
  return clicked;
}

// The leaf card: the recommendation, what the table computed for its scheme, and the tab button.
std::string drawLeaf(const DecisionLeaf& leaf, ComparePanelState& s) {
  std::string open;
  ImGui::TextColored(kAgreeColor, "-> %s", leaf.title.c_str());
  for (const std::string& n : leaf.notes) ImGui::BulletText("%s", n.c_str());
  if (s.table) {
    ImGui::TextDisabled("computed for %s:", schemeTitle(leaf.scheme));
    ImGui::TextWrapped("at L-1: %s", withoutCodeNames(comparisonCellText(*s.table, ComparisonRow::AtTarget, leaf.scheme)).c_str());
    ImGui::TextWrapped("relative: %s", comparisonCellText(*s.table, ComparisonRow::Relative, leaf.scheme).c_str());
  }
  const std::string label = "Open the " + leaf.tab + " tab";
  if (ImGui::Button(label.c_str(), ImVec2(-1.0f, 0)) || s.pressLeafButton) open = leaf.tab;
  return open;
}

std::string drawDecisionChart(ComparePanelState& s, float scale) {
  const ComparisonClaims& data = comparisonClaims();
  ImGui::TextUnformatted("Which to use when");
  ImGui::SameLine();
  ImGui::TextDisabled("(%s)", data.decisionSource.c_str());
  HelpMarker("The decision chart of Teaching Transformers to Count (\"Comparison: Which to Use When\").\n"
             "Click an answer; a leaf shows what the table computed for the\n"
             "scheme it recommends and opens that scheme's tab.");
  int node = 0;
  std::string open;
  int indents = 0;  // drawQuestion indents its answers; undone below
  for (std::size_t depth = 0; node >= 0; ++depth) {
    if (s.path.size() <= depth) s.path.resize(depth + 1, -1);
    const DecisionNode& n = data.decision[static_cast<std::size_t>(node)];
    ImGui::PushID(static_cast<int>(depth));
    const int clicked = drawQuestion(n, s.path[depth], scale);
    ++indents;
    ImGui::PopID();
    if (clicked >= 0) {
      s.path[depth] = clicked;
      s.path.resize(depth + 1);
    }
    const int chosen = s.path[depth];
    if (chosen < 0) break;
    const DecisionAnswer& a = n.answers[static_cast<std::size_t>(chosen)];
    if (a.next < 0) {
      open = drawLeaf(a.leaf, s);
      break;
    }
    node = a.next;
  }
  for (int i = 0; i < indents; ++i) ImGui::Unindent(18.0f * scale);
  s.pressLeafButton = false;
  return open;
}

}  // namespace

std::string drawComparePanel(ComparePanelState& s, AppContext& ctx) {
  const float scale = ctx.uiScale;
  updateComparePanelAsync(s);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  ImGui::BeginChild("compare-params", ImVec2(std::min(340.0f * scale, avail.x * 0.25f), avail.y), true);
  drawParameters(s, scale);
  ImGui::Separator();
  const std::string open = drawDecisionChart(s, scale);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("compare-views", ImVec2(0, avail.y), false);
  drawFigure("compare-table", {"Positional encodings compared, property by property", ""}, ImVec2(ImGui::GetContentRegionAvail().x, 0.0f),
             [&](ImVec2) { drawTable(s); });
  ImGui::EndChild();

  ctx.status.backend = "CPU (background job)";
  ctx.status.busy = compareBusy(s);
  ctx.status.progress = s.job.busy() ? s.job.progress() : -1.0f;
  ctx.status.computeMs = s.job.millis();
  ctx.status.gridSize.clear();
  return open;
}


// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

// The Compare and Where-position-enters views: their parameters are kept between runs.
void saveCompare(const AppState& a, nlohmann::json& j) {
  cli::saveParam(j, table::kDModel, a.compare.dModel);
  cli::saveParam(j, table::kHeads, a.compare.numHeads);
  cli::saveParam(j, table::kTrainedLength, a.compare.trainedLength);
  cli::saveParam(j, table::kTargetLength, a.compare.targetLength);
  cli::saveParam(j, table::kSeed, a.compare.seed);
}

void loadCompare(AppState& a, const nlohmann::json& j) {
  ComparePanelState& s = a.compare;
  cli::loadParam(j, table::kDModel, s.dModel);
  cli::loadParam(j, table::kHeads, s.numHeads);
  cli::loadParam(j, table::kTrainedLength, s.trainedLength);
  cli::loadParam(j, table::kTargetLength, s.targetLength);
  cli::loadParam(j, table::kSeed, s.seed);
  s.dirty = true;
}

// File > Export: the table's numbers and the claims' verdicts, as the compare view writes them.
ExportableView compareExports(const AppState& a) {
  const ComparePanelState& s = a.compare;
  ExportableView ex;
  if (!s.table || !s.error.empty()) return ex;
  ex.name = "compare";
  cli::ViewCall call{"compare"};
  call.set(table::kDModel, s.dModel).set(table::kHeads, s.numHeads).set(table::kTrainedLength, s.trainedLength);
  call.set(table::kTargetLength, s.targetLength).set(table::kSeed, s.seed);
  ex.call = std::move(call);
  return ex;
}

void tweakCompare(AppState& a) {
  a.compare.targetLength = a.compare.targetLength > a.compare.trainedLength ? a.compare.trainedLength / 2 : a.compare.trainedLength * 4;
  a.compare.dirty = true;
}

}  // namespace

const PanelDef kComparePanel{"compare", [](AppState& a, AppContext& c) {
      refreshTrainCitation(a.compare.measured, a.train.session.get());
      if (auto t = drawComparePanel(a.compare, c); !t.empty()) a.requestedPanel = findPanel(t); },
    nullptr,
    saveCompare, loadCompare, tweakCompare, nullptr, nullptr, nullptr, nullptr, compareExports};

}  // namespace posviz::app
