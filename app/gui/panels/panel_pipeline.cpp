// panel_pipeline.cpp: where position enters.
//
// [SECTION] Update: sentence -> add vs concatenate, RoPE with and without V
// [SECTION] Drawing: parameters
// [SECTION] Drawing: the pipeline diagram
// [SECTION] Drawing: add vs concatenate, rotate V too
#include "app/gui/panels/app_state.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/widgets/figure_export.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/panel_pipeline.hpp"

#include <imgui.h>

#include <algorithm>
#include <exception>

#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/ui_common.hpp"

namespace posviz::app {

//-----------------------------------------------------------------------------
// [SECTION] Update: sentence -> add vs concatenate, RoPE with and without V
//-----------------------------------------------------------------------------

namespace {
const std::vector<PositionEncoding> kPipelineEncodings = {PositionEncoding::Sinusoidal, PositionEncoding::Learned,
                                                          PositionEncoding::Rope, PositionEncoding::Alibi,
                                                          PositionEncoding::None};
}  // namespace

const std::vector<PositionEncoding>& pipelineEncodings() { return kPipelineEncodings; }

namespace {
PositionEncoding chosenEncoding(const PipelinePanelState& s) {
  return kPipelineEncodings[static_cast<std::size_t>(std::clamp(s.encoding, 0, static_cast<int>(kPipelineEncodings.size()) - 1))];
}
}  // namespace

void updatePipelinePanel(PipelinePanelState& s) {
  if (!s.dirty) return;
  s.dirty = false;
  s.error.clear();
  std::vector<std::string> tokens;
  if (!sentenceTokens(s.sentence, kPipelineMaxTokens, tokens, &s.error)) return;
  s.tokens = tokens;
  s.token = std::clamp(s.token, 0, static_cast<int>(tokens.size()) - 1);
  const PositionEncoding enc = chosenEncoding(s);
  // RoPE, ALiBi and none add nothing to the embedding: the numbers show what sinusoidal would.
  s.addConcatEncoding = enc == PositionEncoding::Learned ? PositionEncoding::Learned : PositionEncoding::Sinusoidal;
  try {
    const ToyModel m{s.toyDModel, static_cast<std::uint64_t>(s.toySeed), s.causal};
    s.addConcat = addVsConcat(m, tokens[static_cast<std::size_t>(s.token)], s.token, s.addConcatEncoding);
    s.rotate = ropeRotateValues(m, tokens);
  } catch (const std::exception& e) {
    s.error = e.what();
    return;
  }
  for (HeatmapState* hs : {&s.mapPlain, &s.mapRotated}) {
    hs->resetView();
    hs->wanted = HeatmapWindow{};
  }
  refreshImage(s.rotate->plain.output, s.mapPlain, s.imgPlain, s.version, true);
  refreshImage(s.rotate->rotated.output, s.mapRotated, s.imgRotated, s.version, true);
}

namespace {

const ImVec4 kAccent(0.98f, 0.70f, 0.25f, 1.0f);
const ImVec4 kSame(0.40f, 0.85f, 0.45f, 1.0f);

//-----------------------------------------------------------------------------
// [SECTION] Drawing: parameters
//-----------------------------------------------------------------------------

void drawParameters(PipelinePanelState& s, float scale) {
  ImGui::TextUnformatted("Where position enters");
  HelpMarker("Sinusoidal and learned encodings are added to the embeddings before the stack\n"
             "(8.5 Positional Encoding, 8.5.6 Where Positional Encoding Is Added);\n"
             "RoPE rotates Q and K inside attention, not V (Teaching Transformers to Count,\n"
             "\"How RoPE Integrates with Multi-Head Attention\"); ALiBi adds a bias to the scores.");
  ImGui::PushItemWidth(170.0f * scale);
  const char* current = positionEncodingName(chosenEncoding(s));
  if (ImGui::BeginCombo("encoding", current)) {
    for (int i = 0; i < static_cast<int>(kPipelineEncodings.size()); ++i)
      if (ImGui::Selectable(positionEncodingName(kPipelineEncodings[static_cast<std::size_t>(i)]), i == s.encoding)) {
        s.encoding = i;
        s.dirty = true;
      }
    ImGui::EndCombo();
  }
  if (ImGui::Checkbox("add vs concatenate", &s.concatenate)) s.dirty = true;
  HelpMarker("z = x + p keeps d_model; z = [x; p] makes it 2 d_model (8.5 Positional Encoding, 8.5.3),\n"
             "and every later linear layer must grow with it.\n"
             "Norms: ||x + p||^2 = ||x||^2 + ||p||^2 + 2 x.p, ||[x; p]||^2 = ||x||^2 + ||p||^2.");
  if (ImGui::Checkbox("rotate V too", &s.rotateValues)) s.dirty = true;
  HelpMarker("Interview guide, question 7: rotate V as well as Q and K. The weights softmax(QK^T/sqrt(d)) never read V,\n"
             "so they stay the same; the outputs sum_j w_ij R_j v_j do not.");
  ImGui::TextUnformatted("sentence");
  if (ImGui::InputText("##pipeline-sentence", s.sentence, sizeof s.sentence)) s.dirty = true;
  const double lastToken = static_cast<double>(std::max(0, static_cast<int>(s.tokens.size()) - 1));
  if (paramSlider(cli::params::toy::kToken, s.token, "Which token (and position) the add/concatenate norms use.", SliderSpan{0, lastToken})) {
    s.dirty = true;
  }
  if (paramSlider(cli::params::toy::kDModel, s.toyDModel, "The toy model of the Word order tab.")) s.dirty = true;
  if (paramSlider(cli::params::toy::kSeed, s.toySeed, "The toy model of the Word order tab.")) s.dirty = true;
  if (ImGui::Checkbox("causal mask", &s.causal)) s.dirty = true;
  ImGui::PopItemWidth();
  if (!s.error.empty()) ErrorText(s.error);
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: the pipeline diagram
//-----------------------------------------------------------------------------

struct Box {
  ImVec2 min, max;
  ImVec2 left() const { return {min.x, (min.y + max.y) * 0.5f}; }
  ImVec2 right() const { return {max.x, (min.y + max.y) * 0.5f}; }
  ImVec2 top() const { return {(min.x + max.x) * 0.5f, min.y}; }
};

bool highlighted(const std::vector<PipelineStage>& on, PipelineStage st) { return std::find(on.begin(), on.end(), st) != on.end(); }

void drawBox(ImDrawList* dl, const Box& b, const char* label, bool hot) {
  const ImU32 fill = hot ? ImGui::GetColorU32(ImVec4(themed(kAccent).x * 0.55f, themed(kAccent).y * 0.45f, 0.05f, 1.0f)) : ImGui::GetColorU32(ImGuiCol_FrameBg);
  dl->AddRectFilled(b.min, b.max, fill, 6.0f);
  dl->AddRect(b.min, b.max, hot ? ImGui::GetColorU32(themed(kAccent)) : ImGui::GetColorU32(ImGuiCol_Border), 6.0f, 0, hot ? 3.0f : 1.0f);
  const ImVec2 ts = ImGui::CalcTextSize(label);
  dl->AddText(ImVec2((b.min.x + b.max.x - ts.x) * 0.5f, (b.min.y + b.max.y - ts.y) * 0.5f), ImGui::GetColorU32(ImGuiCol_Text), label);
}

void arrow(ImDrawList* dl, ImVec2 a, ImVec2 b, const char* label = nullptr) {
  const ImU32 col = ImGui::GetColorU32(ImGuiCol_PlotLines);
  dl->AddLine(a, b, col, 1.5f);
  dl->AddTriangleFilled(b, ImVec2(b.x - 8.0f, b.y - 4.0f), ImVec2(b.x - 8.0f, b.y + 4.0f), col);
  if (label) {
    const ImVec2 ts = ImGui::CalcTextSize(label);
    dl->AddText(ImVec2((a.x + b.x - ts.x) * 0.5f, a.y - ts.y - 2.0f), ImGui::GetColorU32(themed(kAccent)), label);
  }
}

// Where each encoding acts, as a small note box above the stage it feeds.
void drawSource(ImDrawList* dl, const Box& target, const char* label, float h) {
  const ImVec2 ts = ImGui::CalcTextSize(label);
  const Box src{ImVec2(target.top().x - ts.x * 0.5f - 8.0f, target.min.y - 1.9f * h), ImVec2(target.top().x + ts.x * 0.5f + 8.0f, target.min.y - 1.0f * h)};
  drawBox(dl, src, label, true);
  const ImU32 col = ImGui::GetColorU32(themed(kAccent));
  dl->AddLine(ImVec2(src.top().x, src.max.y), target.top(), col, 2.0f);
  dl->AddTriangleFilled(target.top(), ImVec2(target.top().x - 4.0f, target.top().y - 8.0f), ImVec2(target.top().x + 4.0f, target.top().y - 8.0f), col);
}

void drawDiagram(const PipelinePanelState& s, float height) {
  const PositionEncoding enc = chosenEncoding(s);
  const std::vector<PipelineStage> on = stagesWhereApplied(enc, s.rotateValues && enc == PositionEncoding::Rope);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x;
  const float u = w / 8.6f, bh = height * 0.15f, cy = o.y + height * 0.62f;
  auto box = [&](float col, float dy, float wid = 0.8f) { return Box{ImVec2(o.x + col * u, cy + dy - bh * 0.5f), ImVec2(o.x + (col + wid) * u, cy + dy + bh * 0.5f)}; };
  const Box tokens = box(0.05f, 0), emb = box(1.1f, 0), pe = box(2.15f, 0);
  const Box q = box(3.6f, -1.3f * bh, 0.5f), k = box(3.6f, 0, 0.5f), v = box(3.6f, 1.3f * bh, 0.5f);
  const Box scores = box(4.6f, -0.65f * bh), softmax = box(5.7f, -0.65f * bh);
  const Box out{ImVec2(o.x + 6.9f * u, softmax.min.y), ImVec2(o.x + 8.0f * u, v.max.y)};
  const Box block{ImVec2(o.x + 3.3f * u, cy - 2.5f * bh), ImVec2(o.x + 8.25f * u, cy + 2.3f * bh)};
  dl->AddRect(block.min, block.max, ImGui::GetColorU32(ImGuiCol_Border), 8.0f, 0, 1.0f);
  dl->AddText(ImVec2(block.min.x + 6.0f, block.max.y - ImGui::GetTextLineHeight() - 4.0f), ImGui::GetColorU32(ImGuiCol_TextDisabled),
              "transformer block (x N): attention");
  drawBox(dl, tokens, "tokens", false);
  drawBox(dl, emb, "embedding", false);
  const bool additive = enc == PositionEncoding::Sinusoidal || enc == PositionEncoding::Learned;
  drawBox(dl, pe, !additive ? "(no PE added)" : s.concatenate ? "concat [x; p]" : "+PE", highlighted(on, PipelineStage::AddPE));
  drawBox(dl, q, "Q", highlighted(on, PipelineStage::Query));
  drawBox(dl, k, "K", highlighted(on, PipelineStage::Key));
  drawBox(dl, v, "V", highlighted(on, PipelineStage::Value));
  drawBox(dl, scores, "scores", highlighted(on, PipelineStage::Scores));
  drawBox(dl, softmax, "softmax", false);
  drawBox(dl, out, "output", false);
  const std::string d = std::to_string(s.toyDModel), d2 = std::to_string(2 * s.toyDModel);
  arrow(dl, tokens.right(), emb.left(), "T ids");
  arrow(dl, emb.right(), pe.left(), ("d=" + d).c_str());
  arrow(dl, pe.right(), ImVec2(q.min.x, cy), (s.concatenate && additive ? "2d=" + d2 : "d=" + d).c_str());
  arrow(dl, q.right(), scores.left());
  arrow(dl, k.right(), ImVec2(scores.min.x, scores.max.y - 4.0f));
  arrow(dl, scores.right(), softmax.left());
  arrow(dl, softmax.right(), ImVec2(out.min.x, softmax.right().y));
  arrow(dl, v.right(), ImVec2(out.min.x, v.right().y), "weights x V");
  if (additive) drawSource(dl, pe, enc == PositionEncoding::Sinusoidal ? "PE(pos): sin/cos" : "P[pos]: table row", bh);
  if (enc == PositionEncoding::Rope) drawSource(dl, q, s.rotateValues ? "R(pos) on Q, K and V" : "R(pos) on Q, K (not V)", bh);
  if (enc == PositionEncoding::Alibi) drawSource(dl, scores, "-m_h |i - j|", bh);
  ImGui::Dummy(ImVec2(w, height));
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: add vs concatenate, rotate V too
//-----------------------------------------------------------------------------

void row(const char* name, const std::string& value) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(name);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(value.c_str());
}

void drawAddConcat(const PipelinePanelState& s) {
  if (!s.addConcat) return;
  const AddVsConcat& a = *s.addConcat;
  const std::string tok = s.tokens.empty() ? "" : s.tokens[static_cast<std::size_t>(s.token)];
  ImGui::Text("%s (8.5 Positional Encoding, 8.5.3)", s.concatenate ? "Concatenate: z = [x; p]" : "Add: z = x + p");
  ImGui::TextWrapped("x = embedding('%s'), p = %s at pos %d", tok.c_str(), positionEncodingName(s.addConcatEncoding), s.token);
  if (chosenEncoding(s) != s.addConcatEncoding)
    ImGui::TextDisabled("(%s adds nothing to the embedding: sinusoidal shown)", positionEncodingName(chosenEncoding(s)));
  if (!ImGui::BeginTable("add-concat", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp)) return;
  row("dimension", s.concatenate ? std::to_string(a.concatDim) + " = 2 d_model" : std::to_string(a.addedDim) + " = d_model");
  row("||x|| (token)", formatShort(a.tokenNorm, 6));
  row("||p|| (position)", formatShort(a.positionNorm, 6));
  row("x . p", formatShort(a.crossTerm, 6));
  if (s.concatenate) {
    row("||[x; p]||", formatShort(a.concatNorm, 6));
    row("| ||[x;p]||^2 - ||x||^2 - ||p||^2 |", formatShort(a.concatGap, 3) + "  (no cross term)");
  } else {
    row("||x + p||", formatShort(a.addedNorm, 6));
    row("| ||x+p||^2 - ||x||^2 - ||p||^2 - 2x.p |", formatShort(a.addedGap, 3));
  }
  ImGui::EndTable();
}

HeatmapSpec outputSpec(const Grid& o, const std::vector<std::string>& tok, const std::string& what) {
  HeatmapSpec spec;
  spec.title = what;
  spec.logicalRows = o.rows;
  spec.logicalCols = o.cols;
  spec.rowAxis = {"token", 0.0, 1.0};
  spec.colAxis = {"dim", 0.0, 1.0};
  spec.valueName = "output";
  spec.colormap = Colormap::RdBu;
  spec.symmetricRange = true;
  spec.exactValue = [o](long long r, long long c) { return static_cast<double>(o.at(static_cast<int>(r), static_cast<int>(c))); };
  spec.formula = [o, tok, what](long long r, long long c) {
    return what + " of '" + tok[static_cast<std::size_t>(r)] + "', dim " + std::to_string(c) + " = " +
           formatShort(o.at(static_cast<int>(r), static_cast<int>(c)), 6);
  };
  return spec;
}

void drawRotateValues(PipelinePanelState& s) {
  if (!s.rotate) return;
  const RotateValuesResult& r = *s.rotate;
  ImGui::TextUnformatted("RoPE with V rotated too (interview guide, question 7)");
  ImGui::TextColored(kSame, "weights: max |w(V rotated) - w(Q, K only)| = %s", formatShort(r.maxWeightDelta, 3).c_str());
  ImGui::TextColored(themed(kAccent), "outputs: max |out(V rotated) - out(Q, K only)| = %s", formatShort(r.maxOutputDelta, 4).c_str());
  if (!s.rotateValues) {
    ImGui::TextDisabled("Tick 'rotate V too' to compare the outputs.");
    return;
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float w2 = (avail.x - ImGui::GetStyle().ItemSpacing.x) * 0.5f, h = std::max(120.0f, avail.y - ImGui::GetTextLineHeightWithSpacing());
  ImGui::BeginGroup();
  ImGui::TextUnformatted("output, RoPE on Q and K");
  if (drawHeatmap("pipe-plain", s.mapPlain, outputSpec(r.plain.output, s.tokens, "output"), s.imgPlain, w2, h))
    refreshImage(r.plain.output, s.mapPlain, s.imgPlain, s.version, false);
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::TextUnformatted("output, RoPE on Q, K and V");
  if (drawHeatmap("pipe-rot", s.mapRotated, outputSpec(r.rotated.output, s.tokens, "output (V rotated)"), s.imgRotated, w2, h))
    refreshImage(r.rotated.output, s.mapRotated, s.imgRotated, s.version, false);
  ImGui::EndGroup();
}

}  // namespace

void drawPipelinePanel(PipelinePanelState& s, AppContext& ctx) {
  const float scale = ctx.uiScale;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  ImGui::BeginChild("pipeline-params", ImVec2(std::min(330.0f * scale, avail.x * 0.25f), avail.y), true);
  drawParameters(s, scale);
  updatePipelinePanel(s);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("pipeline-views", ImVec2(0, avail.y), false);
  drawFigure("pipeline-diagram", {"Where position enters the model", ""}, ImVec2(avail.x, std::min(300.0f * scale, avail.y * 0.42f)),
             [&](ImVec2 size) { drawDiagram(s, size.y); });
  ImGui::Separator();
  const float wLeft = std::min(470.0f * scale, ImGui::GetContentRegionAvail().x * 0.45f);
  ImGui::BeginChild("pipeline-add-concat", ImVec2(wLeft, 0), true);
  drawAddConcat(s);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("pipeline-rotate-v", ImVec2(0, 0), true);
  drawRotateValues(s);
  ImGui::EndChild();
  ImGui::EndChild();

  ctx.status.backend = "CPU";
  ctx.status.busy = false;
  ctx.status.progress = -1.0f;
  ctx.status.computeMs = 0.0;
  ctx.status.gridSize.clear();
}


// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

void savePipeline(const AppState& a, nlohmann::json& j) {
  j["encoding"] = positionEncodingName(pipelineEncodings()[static_cast<std::size_t>(std::clamp(a.pipeline.encoding, 0, 4))]);
  j["concatenate"] = a.pipeline.concatenate;
  j["rotate_values"] = a.pipeline.rotateValues;
}

void loadPipeline(AppState& a, const nlohmann::json& j) {
  PipelinePanelState& s = a.pipeline;
  if (std::string enc; readSetting(j, "encoding", enc))
    for (std::size_t i = 0; i < pipelineEncodings().size(); ++i)
      if (enc == positionEncodingName(pipelineEncodings()[i])) s.encoding = static_cast<int>(i);
  readSetting(j, "concatenate", s.concatenate);
  readSetting(j, "rotate_values", s.rotateValues);
  s.dirty = true;
}

// File > Export: the toy attention's outputs with RoPE on Q and K, or, with "rotate V too", on V
// as well: the heatmap that toggle reveals, as the rope-outputs view writes it.
ExportableView pipelineExports(const AppState& a) {
  const PipelinePanelState& s = a.pipeline;
  ExportableView ex;
  if (!s.rotate || !s.error.empty()) return ex;
  namespace toy = cli::params::toy;
  ex.name = s.rotateValues ? "rope-outputs-v-rotated" : "rope-outputs";
  ex.rowTitle = "token";
  ex.colTitle = "dim";
  ex.valueName = "output";
  ex.colormap = Colormap::RdBu;
  ex.symmetricRange = true;
  cli::ViewCall call{"rope-outputs"};
  call.set(toy::kText, std::string(s.sentence)).set(toy::kDModel, s.toyDModel).set(toy::kSeed, s.toySeed);
  call.on(toy::kCausal, s.causal).on(toy::kRotateValues, s.rotateValues);
  ex.call = std::move(call);
  return ex;
}

void tweakPipeline(AppState& a) {
  a.pipeline.encoding = (a.pipeline.encoding + 2) % static_cast<int>(pipelineEncodings().size());
  a.pipeline.rotateValues = !a.pipeline.rotateValues;
  a.pipeline.dirty = true;
}

}  // namespace

const PanelDef kPipelinePanel{"where-position-enters", [](AppState& a, AppContext& c) { drawPipelinePanel(a.pipeline, c); },
    nullptr,
    savePipeline, loadPipeline, tweakPipeline, nullptr, nullptr, nullptr, nullptr, pipelineExports};

}  // namespace posviz::app
