// panel_order.cpp: the "why order matters" view.
//
// [SECTION] Update: sentences -> permutation -> toy attention per encoding
// [SECTION] Drawing: inputs and the difference table
// [SECTION] Drawing: weight and output heatmaps
// [SECTION] Drawing: causal, no positions (NoPE)
#include "app/gui/panels/app_state.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/panel_order.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>

#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/ui_common.hpp"

namespace posviz::app {

//-----------------------------------------------------------------------------
// [SECTION] Update: sentences -> permutation -> toy attention per encoding
//-----------------------------------------------------------------------------

namespace {

const ImVec4 kSameColor(0.40f, 0.85f, 0.45f, 1.0f);
const ImVec4 kSeenColor(1.00f, 0.72f, 0.35f, 1.0f);

// Below this the two sides are the same numbers (float64 outputs, float32-stored weights).
bool sameNumbers(const OrderComparison& c) { return c.equivariant; }

void copyText(char (&dst)[kOrderTextSize], const std::string& src) {
  const std::size_t n = std::min(src.size(), static_cast<std::size_t>(kOrderTextSize - 1));
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

std::string joinTokens(const std::vector<std::string>& t) {
  std::string s;
  for (std::size_t i = 0; i < t.size(); ++i) s += (i ? " " : "") + t[i];
  return s;
}

}  // namespace

namespace {
const std::vector<PositionEncoding> kOrderEncodings = {PositionEncoding::None, PositionEncoding::Sinusoidal,
                                                       PositionEncoding::Learned, PositionEncoding::Rope,
                                                       PositionEncoding::Alibi};
}  // namespace

const std::vector<PositionEncoding>& orderEncodings() { return kOrderEncodings; }

namespace {

// The NoPE section's numbers; a sentence holding "<bos>" leaves them invalid with the error said.
void computeNope(OrderComputed& out, const ToyModel& m, const std::vector<std::string>& tokens, const std::vector<int>& perm) {
  try {
    out.nope = compareNopeOrder(m, tokens, perm);
    out.counting = nopeCounting(m, tokens);
    out.nopeValid = true;
  } catch (const std::exception& e) {
    out.error = std::string("sentence: ") + e.what();
  }
}

struct OrderInputs {
  std::string sentence, shuffled;
  int toyDModel = 0, toySeed = 0;
  bool causal = false;
};

// The two sentences as tokens and the permutation between them; false (error set) when refused.
// Cheap: the window checks typed input at once, before any recompute.
bool parseOrder(const OrderInputs& in, std::vector<std::string>& tokens, std::vector<int>& perm, std::string& error) {
  if (!sentenceTokens(in.sentence, kOrderMaxTokens, tokens, &error)) return false;
  const std::vector<std::string> shuffled = splitTokens(in.shuffled);
  if (shuffled.empty()) {
    error = "shuffled: type the same words in another order";
    return false;
  }
  try {
    perm = permutationBetween(tokens, shuffled);
  } catch (const std::exception& e) {
    error = std::string("shuffled: ") + e.what();
    return false;
  }
  return true;
}

OrderComputed computeOrder(const OrderInputs& in) {
  OrderComputed out;
  std::vector<std::string> tokens;
  std::vector<int> perm;
  if (!parseOrder(in, tokens, perm, out.error)) return out;
  try {
    const ToyModel m{in.toyDModel, static_cast<std::uint64_t>(in.toySeed), in.causal};
    for (PositionEncoding enc : orderEncodings()) out.results.push_back(compareOrder(m, tokens, perm, enc));
    computeNope(out, m, tokens, perm);
  } catch (const std::exception& e) {
    out.results.clear();
    out.error = std::string("shuffled: ") + e.what();
  }
  return out;
}

// A recompute's outcome on screen: on bad input the error is shown and the last good comparison stays.
void applyOrder(OrderPanelState& s, OrderComputed c) {
  s.error = std::move(c.error);
  if (c.results.empty()) return;
  s.results = std::move(c.results);
  s.nopeValid = c.nopeValid;
  if (c.nopeValid) {
    s.nope = std::move(c.nope);
    s.counting = std::move(c.counting);
    for (HeatmapState* hs : {&s.mapNopeCount, &s.mapNopeToy}) {
      hs->resetView();
      hs->wanted = HeatmapWindow{};
    }
    refreshImage(s.counting.weights, s.mapNopeCount, s.imgNopeCount, s.version, true);
    refreshImage(s.counting.toyWeights, s.mapNopeToy, s.imgNopeToy, s.version, true);
  }
  s.encoding = std::clamp(s.encoding, 0, static_cast<int>(orderEncodings().size()) - 1);
  const OrderComparison& r = s.results[static_cast<std::size_t>(s.encoding)];
  HeatmapState* maps[] = {&s.mapOriginal, &s.mapShuffled, &s.mapExpected, &s.mapOutShuffled, &s.mapOutExpected};
  for (HeatmapState* hs : maps) {
    hs->resetView();
    hs->wanted = HeatmapWindow{};
  }
  refreshImage(r.original.weights, s.mapOriginal, s.imgOriginal, s.version, true);
  refreshImage(r.permuted.weights, s.mapShuffled, s.imgShuffled, s.version, true);
  refreshImage(r.originalWeightsPermuted, s.mapExpected, s.imgExpected, s.version, true);
  refreshImage(r.permuted.output, s.mapOutShuffled, s.imgOutShuffled, s.version, true);
  refreshImage(r.originalOutputPermuted, s.mapOutExpected, s.imgOutExpected, s.version, true);
}

OrderInputs orderInputs(const OrderPanelState& s) { return {s.sentence, s.shuffled, s.toyDModel, s.toySeed, s.causal}; }

// The window's path: a dirty state asks the worker (the latest inputs win); a finished recompute
// is put on screen, the last one staying until then.
void requestOrder(OrderPanelState& s) {
  if (s.dirty) {
    s.dirty = false;
    const OrderInputs in = orderInputs(s);
    std::vector<std::string> tokens;
    std::vector<int> perm;
    std::string error;
    if (parseOrder(in, tokens, perm, error)) {
      s.job.request([in](JobControl&) { return computeOrder(in); });
    } else {
      s.job.cancelAll();   // a recompute for earlier inputs must not clear this error
      s.error = error;     // the last good comparison stays on screen
    }
  }
  if (s.job.poll()) {
    if (const OrderComputed* c = s.job.result()) applyOrder(s, *c);
  }
  if (!s.job.error().empty()) s.error = s.job.error();
}

}  // namespace

void updateOrderPanel(OrderPanelState& s) {
  if (!s.dirty) return;
  s.dirty = false;
  applyOrder(s, computeOrder(orderInputs(s)));
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: inputs and the difference table
//-----------------------------------------------------------------------------

namespace {

void preset(OrderPanelState& s, const char* a, const char* b) {
  copyText(s.sentence, a);
  copyText(s.shuffled, b);
  s.dirty = true;
}

// Which map File > Export writes, as a combo (five names do not fit a line of radio buttons).
void drawExportChoice(OrderPanelState& s) {
  const cli::Param& p = cli::params::order::kMatrix;
  const std::string current(p.choiceName(s.exportMatrix));
  if (ImGui::BeginCombo(std::string(p.label).c_str(), current.c_str())) {
    for (int i = 0; i < p.choiceCount(); ++i) {
      if (ImGui::Selectable(std::string(p.choiceName(i)).c_str(), i == s.exportMatrix)) s.exportMatrix = i;
    }
    ImGui::EndCombo();
  }
  HelpMarker(paramHelpText(p, "File > Export writes this map of the chosen encoding (the NoPE section: its counting head).").c_str());
}

void drawInputs(OrderPanelState& s, float scale) {
  ImGui::TextUnformatted("Why order matters");
  HelpMarker("Attention without position is permutation equivariant: Attn(PX) = P Attn(X).\n"
             "Shuffle the words and every number moves with its word; nothing else changes.\n"
             "A position encoding breaks this, so the model can tell the two orders apart.");
  ImGui::Separator();
  ImGui::TextDisabled("from the documents");
  if (ImGui::Button("dog bites man")) preset(s, "dog bites man", "man bites dog");
  ImGui::SameLine();
  if (ImGui::Button("The cat sat on the mat")) preset(s, "The cat sat on the mat", "mat the on sat cat The");
  if (ImGui::Button("The dog bit the man")) preset(s, "The dog bit the man", "The man bit the dog");

  ImGui::PushItemWidth(-1.0f);
  ImGui::TextUnformatted("sentence X");
  if (ImGui::InputText("##sentence", s.sentence, sizeof s.sentence)) s.dirty = true;
  ImGui::TextUnformatted("shuffled PX (the same words)");
  if (ImGui::InputText("##shuffled", s.shuffled, sizeof s.shuffled)) s.dirty = true;
  ImGui::PopItemWidth();
  if (ImGui::Button("reverse the sentence")) {
    std::vector<std::string> t = splitTokens(s.sentence);
    std::reverse(t.begin(), t.end());
    copyText(s.shuffled, joinTokens(t));
    s.dirty = true;
  }
  HelpMarker("Words are split on whitespace and matched case-sensitively, left to right:\n"
             "shuffled[t] = sentence[perm[t]].");
  if (!s.error.empty()) ErrorText(s.error);

  ImGui::Separator();
  ImGui::PushItemWidth(190.0f * scale);
  const auto& encs = orderEncodings();
  const char* current = positionEncodingName(encs[static_cast<std::size_t>(std::clamp(s.encoding, 0, static_cast<int>(encs.size()) - 1))]);
  if (ImGui::BeginCombo("encoding", current)) {
    for (int i = 0; i < static_cast<int>(encs.size()); ++i)
      if (ImGui::Selectable(positionEncodingName(encs[static_cast<std::size_t>(i)]), i == s.encoding)) {
        s.encoding = i;
        s.dirty = true;
      }
    ImGui::EndCombo();
  }
  HelpMarker("none: X only.  sinusoidal / learned: PE(pos) added to X.  rope: Q and K rotated by position.\n"
             "alibi: bias -0.5 |i - j| (causal: -0.5 (i - j), future masked) added to the scores.");
  if (ImGui::Checkbox("causal mask", &s.causal)) s.dirty = true;
  HelpMarker("Each token attends only to itself and earlier tokens. The mask is itself positional,\n"
             "so with it even 'none' sees the order.");
  if (paramSlider(cli::params::toy::kDModel, s.toyDModel, "Width of the toy embeddings; W_q, W_k, W_v are seeded d x d normals / sqrt(d).")) s.dirty = true;
  if (paramSlider(cli::params::toy::kSeed, s.toySeed,
                  "Each word's vector is d_model random normal numbers drawn from the seed and the word itself:\n"
                  "the same vector wherever the word stands.")) {
    s.dirty = true;
  }
  ImGui::PopItemWidth();
  ImGui::Checkbox("causal, no positions (NoPE)", &s.nopeView);
  HelpMarker("A decoder with no position encoding at all (NoPE) still has its causal mask: query t\n"
             "averages over t+1 tokens. The two orders then give different outputs, and a head with\n"
             "uniform scores puts 1/(t+1) on a <bos> token put first, so t = 1/weight - 1.\n"
             "Haviv et al. 2022 (arXiv:2203.16634); Kazemnejad et al. 2023 (arXiv:2305.19466).");
  ImGui::PushItemWidth(190.0f * scale);
  drawExportChoice(s);
  ImGui::PopItemWidth();
}

void drawDifferenceTable(OrderPanelState& s) {
  if (s.results.empty()) return;
  ImGui::Separator();
  ImGui::TextUnformatted("every encoding");
  HelpMarker("dW = max |W(PX) - P W(X) P^T| over the weights (stored as float32),\n"
             "dOut = max |Attn(PX) - P Attn(X)| over the outputs (float64).\n"
             "Zero (to rounding): the shuffled sentence gives the same numbers, permuted.");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("order-diffs", 4, flags)) return;
  ImGui::TableSetupColumn("encoding");
  ImGui::TableSetupColumn("dW");
  ImGui::TableSetupColumn("dOut");
  ImGui::TableSetupColumn("order");
  ImGui::TableHeadersRow();
  bool reversalNote = false;
  for (std::size_t i = 0; i < s.results.size(); ++i) {
    const OrderComparison& c = s.results[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (ImGui::Selectable(positionEncodingName(c.encoding), static_cast<int>(i) == s.encoding, ImGuiSelectableFlags_SpanAllColumns)) {
      s.encoding = static_cast<int>(i);
      s.dirty = true;
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatShort(c.maxWeightDifference, 3).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatShort(c.maxOutputDifference, 3).c_str());
    ImGui::TableNextColumn();
    if (sameNumbers(c)) ImGui::TextColored(kSameColor, "not seen");
    else ImGui::TextColored(kSeenColor, "seen");
    if (c.encoding == PositionEncoding::Alibi && sameNumbers(c) && !s.causal) reversalNote = true;
  }
  ImGui::EndTable();
  if (reversalNote)
    ImGui::TextWrapped("Symmetric ALiBi depends only on |i - j|, which this rearrangement (a reversal) keeps: it "
                       "cannot tell these two orders apart. Tick 'causal mask' or try a swap.");
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: weight and output heatmaps
//-----------------------------------------------------------------------------

HeatmapSpec outputSpec(const Grid& o, const std::vector<std::string>& tok, const std::string& what, ValueRange range) {
  HeatmapSpec spec;
  spec.title = what;
  spec.logicalRows = o.rows;
  spec.logicalCols = o.cols;
  spec.rowAxis = {"token", 0.0, 1.0};
  spec.colAxis = {"dim", 0.0, 1.0};
  spec.valueName = "output";
  spec.colormap = Colormap::RdBu;
  spec.symmetricRange = true;
  spec.fixedRange = true;
  spec.rangeMin = range.min;
  spec.rangeMax = range.max;
  spec.exactValue = [o](long long r, long long c) { return static_cast<double>(o.at(static_cast<int>(r), static_cast<int>(c))); };
  spec.formula = [o, tok, what](long long r, long long c) {
    return what + " of '" + tok[static_cast<std::size_t>(r)] + "' (" + std::to_string(r) + "), dim " + std::to_string(c) +
           " = " + formatShort(o.at(static_cast<int>(r), static_cast<int>(c)), 6);
  };
  return spec;
}

std::string tokenLine(const char* label, const std::vector<std::string>& t) {
  std::string s = label;
  for (std::size_t i = 0; i < t.size(); ++i) s += "  " + std::to_string(i) + ":" + t[i];
  return s;
}

void drawMaps(OrderPanelState& s) {
  if (s.results.empty()) return;
  const OrderComparison& c = s.results[static_cast<std::size_t>(std::clamp(s.encoding, 0, static_cast<int>(s.results.size()) - 1))];
  ImGui::TextUnformatted(tokenLine("X: ", c.tokens).c_str());
  ImGui::TextUnformatted(tokenLine("PX:", c.shuffled).c_str());
  std::string perm = "perm:";
  for (int p : c.perm) perm += " " + std::to_string(p);
  ImGui::TextDisabled("%s   (row t of PX is row perm[t] of X)", perm.c_str());
  const bool same = sameNumbers(c);
  ImGui::TextColored(same ? kSameColor : kSeenColor, "%s: max |W(PX) - P W(X) P^T| = %s,  max |Attn(PX) - P Attn(X)| = %s  -> %s",
                     positionEncodingName(c.encoding), formatShort(c.maxWeightDifference, 4).c_str(),
                     formatShort(c.maxOutputDifference, 4).c_str(),
                     same ? "the same numbers, permuted: order is invisible" : "different numbers: order is seen");

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float sp = ImGui::GetStyle().ItemSpacing.x;
  const float w3 = (avail.x - 2.0f * sp) / 3.0f;
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float hTop = std::max(150.0f, avail.y * 0.55f - line);
  const float hBottom = std::max(120.0f, avail.y - hTop - 3.0f * line);

  struct Panel {
    const char* id;
    const char* caption;
    HeatmapState* map;
    HeatmapImage* img;
    const Grid* grid;
  };
  const Panel top[3] = {
      {"w-orig", "W(X): the sentence", &s.mapOriginal, &s.imgOriginal, &c.original.weights},
      {"w-shuf", "W(PX): the shuffled sentence", &s.mapShuffled, &s.imgShuffled, &c.permuted.weights},
      {"w-expect", "P W(X) P^T: W(X) with its rows and cols moved", &s.mapExpected, &s.imgExpected, &c.originalWeightsPermuted},
  };
  for (int i = 0; i < 3; ++i) {
    if (i) ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted(top[i].caption);
    const std::vector<std::string>& tok = i == 0 ? c.tokens : c.shuffled;
    if (drawHeatmap(top[i].id, *top[i].map, attentionWeightSpec(*top[i].grid, tok, tok, top[i].caption), *top[i].img, w3, hTop))
      refreshImage(*top[i].grid, *top[i].map, *top[i].img, s.version, false);
    ImGui::EndGroup();
  }
  ValueRange r = finiteRange(c.permuted.output);
  const ValueRange r2 = finiteRange(c.originalOutputPermuted);
  r.min = std::min(r.min, r2.min);
  r.max = std::max(r.max, r2.max);
  const float w2 = (avail.x - sp) / 2.0f;
  const Panel bottom[2] = {
      {"o-shuf", "Attn(PX): outputs of the shuffled sentence", &s.mapOutShuffled, &s.imgOutShuffled, &c.permuted.output},
      {"o-expect", "P Attn(X): the sentence's outputs, rows moved", &s.mapOutExpected, &s.imgOutExpected, &c.originalOutputPermuted},
  };
  for (int i = 0; i < 2; ++i) {
    if (i) ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted(bottom[i].caption);
    if (drawHeatmap(bottom[i].id, *bottom[i].map, outputSpec(*bottom[i].grid, c.shuffled, bottom[i].caption, r), *bottom[i].img,
                    w2, hBottom))
      refreshImage(*bottom[i].grid, *bottom[i].map, *bottom[i].img, s.version, false);
    ImGui::EndGroup();
  }
}


//-----------------------------------------------------------------------------
// [SECTION] Drawing: causal, no positions (NoPE)
//-----------------------------------------------------------------------------

void drawNopeSummary(const OrderPanelState& s) {
  const OrderComparison& bi = s.nope.bidirectional;
  const OrderComparison& ca = s.nope.causal;
  ImGui::TextUnformatted("Causal, no positions (NoPE): no encoding anywhere, only the causal mask");
  ImGui::TextColored(kSameColor, "no mask: max |Attn(PX) - P Attn(X)| = %s  -> the same numbers, permuted",
                     formatShort(bi.maxOutputDifference, 4).c_str());
  ImGui::TextColored(kSeenColor, "causal:  max |Attn(PX) - P Attn(X)| = %s  -> %s", formatShort(ca.maxOutputDifference, 4).c_str(),
                     ca.equivariant ? "the same numbers, permuted" : "differ beyond the permutation: order is seen");
  ImGui::TextWrapped("Query t averages over the t+1 tokens it can see. Counting head: scores q.k = 0 (W_q = 0), value "
                     "1 on <bos> and 0 elsewhere, so its output at t is the weight on <bos> = 1/(t+1) and t = 1/weight - 1. "
                     "Without the mask every token reads T-1.");
}

void drawNopeTable(const NopeCounting& c, float height) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("nope-count", 7, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* h : {"t", "token", "w(<bos>) causal", "recovered t", "w(<bos>) no mask", "recovered, no mask",
                        "toy head: recovered"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  for (std::size_t t = 0; t < c.tokens.size(); ++t) {
    ImGui::TableNextRow();
    const std::string cells[7] = {std::to_string(t), c.tokens[t], formatShort(c.bosWeight[t], 5),
                                  formatShort(c.recoveredPosition[t], 6), formatShort(c.bidirectionalBosWeight[t], 5),
                                  formatShort(c.bidirectionalRecovered[t], 6), formatShort(c.toyRecovered[t], 4)};
    for (const std::string& cell : cells) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(cell.c_str());
    }
  }
  ImGui::EndTable();
}

void drawNope(OrderPanelState& s) {
  if (!s.nopeValid) {
    ImGui::TextDisabled("NoPE: fix the sentence to see the causal case.");
    return;
  }
  drawNopeSummary(s);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float sp = ImGui::GetStyle().ItemSpacing.x;
  const float w2 = (avail.x - sp) / 2.0f;
  const float hTop = std::max(150.0f, avail.y * 0.55f - ImGui::GetTextLineHeightWithSpacing());
  struct Map {
    const char* id;
    const char* caption;
    HeatmapState* map;
    HeatmapImage* img;
    const Grid* grid;
    const std::vector<std::string>* tok;
  };
  const Map maps[2] = {
      {"nope-count", "counting head on <bos> + X: 1/(t+1) on each visible token", &s.mapNopeCount, &s.imgNopeCount,
       &s.counting.weights, &s.counting.tokens},
      {"nope-toy", "toy head on <bos> + X, causal, no encoding: content scores", &s.mapNopeToy, &s.imgNopeToy,
       &s.counting.toyWeights, &s.counting.tokens},
  };
  for (int i = 0; i < 2; ++i) {
    if (i) ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted(maps[i].caption);
    if (drawHeatmap(maps[i].id, *maps[i].map, attentionWeightSpec(*maps[i].grid, *maps[i].tok, *maps[i].tok, maps[i].caption),
                    *maps[i].img, w2, hTop))
      refreshImage(*maps[i].grid, *maps[i].map, *maps[i].img, s.version, false);
    ImGui::EndGroup();
  }
  ImGui::Text("recovered position per token (max error %s; toy head with content scores: %s)",
              formatShort(s.counting.maxPositionError, 3).c_str(), formatShort(s.counting.maxToyPositionError, 3).c_str());
  drawNopeTable(s.counting, std::max(100.0f, ImGui::GetContentRegionAvail().y));
}
// The toy model the tab runs, on a call of one of the Word order views.
void setToyModel(cli::ViewCall& c, const OrderPanelState& s) {
  c.set(cli::params::toy::kText, std::string(s.sentence)).set(cli::params::toy::kDModel, s.toyDModel);
  c.set(cli::params::toy::kSeed, s.toySeed);
}

// File > Export: the NoPE section's counting head, or the chosen map of the chosen encoding, as
// nope-counting and order-attention write them.
ExportableView orderExports(const OrderPanelState& s) {
  ExportableView ex;
  if (s.results.empty() || !s.error.empty()) return ex;
  ex.rowTitle = "query token";
  ex.colTitle = "key token";
  ex.valueName = "weight";
  ex.colormap = Colormap::Magma;
  if (s.nopeView) {
    if (!s.nopeValid) return ExportableView{};
    ex.name = "order-nope-counting-weights";
    cli::ViewCall call{"nope-counting"};
    setToyModel(call, s);
    ex.call = std::move(call);
    return ex;
  }
  const cli::Param& matrix = cli::params::order::kMatrix;
  const int m = std::clamp(s.exportMatrix, 0, matrix.choiceCount() - 1);
  const auto& encs = orderEncodings();
  const PositionEncoding enc = encs[static_cast<std::size_t>(std::clamp(s.encoding, 0, static_cast<int>(encs.size()) - 1))];
  ex.name = std::string(m >= 3 ? "order-" : "order-weights-") + std::string(matrix.choiceName(m)) + "-" + positionEncodingName(enc);
  if (m >= 3) {   // the outputs, signed
    ex.colTitle = "dim";
    ex.valueName = "output";
    ex.colormap = Colormap::RdBu;
    ex.symmetricRange = true;
  }
  cli::ViewCall call{"order-attention"};
  setToyModel(call, s);
  call.set(cli::params::order::kShuffled, std::string(s.shuffled)).set(cli::params::toy::kEncoding, static_cast<double>(enc));
  call.set(matrix, m).on(cli::params::toy::kCausal, s.causal);
  ex.call = std::move(call);
  return ex;
}

}  // namespace

void drawOrderPanel(OrderPanelState& s, AppContext& ctx) {
  const float scale = ctx.uiScale;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  ImGui::BeginChild("order-params", ImVec2(std::min(380.0f * scale, avail.x * 0.3f), avail.y), true);
  drawInputs(s, scale);
  requestOrder(s);
  drawDifferenceTable(s);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("order-views", ImVec2(0, avail.y), false);
  if (s.nopeView) drawNope(s);
  else drawMaps(s);
  ImGui::EndChild();

  ctx.status.backend = "CPU (worker thread)";
  ctx.status.busy = s.job.busy();
  ctx.status.progress = -1.0f;
  ctx.status.computeMs = s.job.millis();
  if (s.results.empty()) {
    ctx.status.gridSize.clear();
  } else if (s.nopeView && s.nopeValid) {
    ctx.status.gridSize = formatGridSize(s.counting.weights.rows, s.counting.weights.cols);
  } else {
    const Grid& w = s.results[static_cast<std::size_t>(std::clamp(s.encoding, 0, static_cast<int>(s.results.size()) - 1))].permuted.weights;
    ctx.status.gridSize = formatGridSize(w.rows, w.cols);
  }
}


// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

void tweakOrder(AppState& a) {
  a.order.encoding = a.order.encoding == 0 ? 1 : 0;
  a.order.dirty = true;
}

}  // namespace

const PanelDef kOrderPanel{"word-order", [](AppState& a, AppContext& c) { drawOrderPanel(a.order, c); },
    nullptr,
    nullptr, nullptr, tweakOrder, nullptr, nullptr, nullptr, nullptr,
    [](const AppState& a) { return orderExports(a.order); }};

}  // namespace posviz::app
