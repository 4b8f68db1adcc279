// panel_context.cpp: the context-extension view.
//
// [SECTION] Update: parameters -> core frequencies per method
// [SECTION] Drawing: parameters
// [SECTION] Drawing: the panel (plot, bands, attention-factor table)
// [SECTION] Settings
#include "app/gui/panels/app_state.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/widgets/figure_export.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/panel_context.hpp"

#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <numbers>

#include "app/gui/panels/panel_rope.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/cli/view_table.hpp"
#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/regime_bands.hpp"
#include "app/gui/widgets/ui_common.hpp"

namespace posviz::app {

namespace rope = cli::params::rope;
namespace scaling = cli::params::scaling;

std::array<RopeScaling, kNumScalingMethods> defaultContextScalings() {
  std::array<RopeScaling, kNumScalingMethods> out;
  for (int i = 0; i < kNumScalingMethods; ++i) {
    RopeScaling& sc = out[static_cast<std::size_t>(i)];
    sc.method = static_cast<ScalingMethod>(i);
    sc.factor = i == 0 ? 1.0 : 4.0;
    sc.originalMaxPositions = static_cast<int>(scaling::kOriginalMax.defaultInt());
    sc.seqLen = 16384;
  }
  return out;
}

//-----------------------------------------------------------------------------
// [SECTION] Update: parameters -> core frequencies per method
//-----------------------------------------------------------------------------

namespace {

RopeScaling& scalingOf(ContextExtensionPanelState& s, ScalingMethod m) { return s.scaling[static_cast<std::size_t>(m)]; }

// Example LongRope lists for the current pair count: short all 1, long from 1 up to the factor
// in equal steps (the shape of Phi-3's lists: low-frequency pairs stretched most).
void fillAutoLists(ContextExtensionPanelState& s, int numPairs) {
  RopeScaling& lr = scalingOf(s, ScalingMethod::LongRope);
  lr.shortFactor.assign(static_cast<std::size_t>(numPairs), 1.0);
  lr.longFactor.resize(static_cast<std::size_t>(numPairs));
  for (int i = 0; i < numPairs; ++i)
    lr.longFactor[static_cast<std::size_t>(i)] =
        numPairs > 1 ? 1.0 + (lr.factor - 1.0) * static_cast<double>(i) / static_cast<double>(numPairs - 1) : lr.factor;
  s.shortText = formatNumberList(lr.shortFactor);
  s.longText = formatNumberList(lr.longFactor);
  s.shortError.clear();
  s.longError.clear();
}

}  // namespace

bool methodHasRegimes(ScalingMethod m) {
  return m == ScalingMethod::Linear || m == ScalingMethod::Yarn || m == ScalingMethod::Llama3;
}

namespace {

// Why a column means nothing for a method (empty: it applies).
std::string notApplicableReason(ScalingMethod m, MethodColumn column) {
  const std::string name = scalingName(m);
  switch (column) {
    case MethodColumn::AttentionFactor:
    case MethodColumn::ScoreScale:
      if (m == ScalingMethod::Yarn || m == ScalingMethod::LongRope) return "";
      return name + " does not scale cos and sin: only yarn and longrope multiply them by an attention factor "
                    "(Hugging Face's rope init functions return 1.0 for the others).";
    case MethodColumn::EffectiveBase:
      if (m == ScalingMethod::NtkAware || m == ScalingMethod::DynamicNtk) return "";
      if (m == ScalingMethod::None) return "none: no scaling, the base is the one set on the left.";
      return name + " keeps the base and changes theta_i pair by pair (" +
             (m == ScalingMethod::Linear     ? std::string("every theta_i / s")
              : m == ScalingMethod::LongRope ? std::string("each pair divided by its own factor from the short or long list")
                                             : std::string("kept, blended or divided by s")) +
             "); only ntk and dynamic replace the base.";
    case MethodColumn::Regimes:
      if (methodHasRegimes(m)) return "";
      if (m == ScalingMethod::None) return "none: no scaling, every pair keeps its theta_i.";
      if (m == ScalingMethod::LongRope)
        return "longrope divides each pair by its own factor from the short or long list: no pair is 'kept' or "
               "'interpolated' as a band; the plot shows each pair's new frequency.";
      return name + " replaces the base, so every pair's frequency changes by its own amount, from unchanged "
                    "(pair 0) smoothly to 1/s (the last pair): there are no kept and interpolated bands.";
  }
  return "";
}

}  // namespace

MethodTableCell methodTableCell(ScalingMethod m, MethodColumn column, const RopeFrequencies& f) {
  MethodTableCell c;
  c.why = notApplicableReason(m, column);
  if (!c.why.empty()) {
    c.applies = false;
    c.text = "n/a";
    return c;
  }
  switch (column) {
    case MethodColumn::AttentionFactor:
      c.text = formatShort(f.attentionFactor, 5);
      c.why = "cos and sin are multiplied by this factor, so every q.k score by its square.";
      break;
    case MethodColumn::ScoreScale:
      c.text = formatShort(f.attentionFactor * f.attentionFactor, 5);
      c.why = "attention factor squared: how much every q.k score (before softmax) is scaled.";
      break;
    case MethodColumn::EffectiveBase:
      c.text = formatShort(f.effectiveBase, 6);
      c.why = "the base that replaces B: theta_i = base'^(-2i / d_rot).";
      break;
    case MethodColumn::Regimes: {
      int counts[3] = {0, 0, 0};
      for (PairRegime r : f.regime) ++counts[static_cast<int>(r)];
      c.text = std::to_string(counts[0]) + " / " + std::to_string(counts[1]) + " / " + std::to_string(counts[2]);
      c.why = "rotary pairs whose theta_i is kept / blended between theta_i and theta_i / s / divided by s "
              "(interpolated), of " + std::to_string(f.regime.size()) + " pairs.";
      break;
    }
  }
  return c;
}

void applyContextExtensionConfig(ContextExtensionPanelState& s, const cli::ModelConfig& c, ConfigNotes& notes) {
  const char* tab = "Context extension";
  const auto read = readTabRope(tab, c, notes);
  if (!read) return;
  const RopeParams& config = *read;
  s.headDim = static_cast<int>(fitConfigParam(tab, "head_dim", rope::kHeadDim, config.headDim, notes));
  s.base = fitConfigParam(tab, "rope_theta", rope::kBase, config.base, notes);
  s.rotaryFraction = fitConfigParam(tab, "partial_rotary_factor", rope::kRotaryFraction, config.rotaryFraction, notes);
  const ScalingMethod m = config.scaling.method;
  scalingOf(s, m) = config.scaling;
  s.selected = static_cast<int>(m);
  // The model's own method beside plain RoPE, not all seven (each can be ticked back on).
  if (m != ScalingMethod::None) {
    for (int i = 0; i < kNumScalingMethods; ++i) {
      s.visible[static_cast<std::size_t>(i)] = i == static_cast<int>(ScalingMethod::None) || i == static_cast<int>(m);
    }
  }
  if (m == ScalingMethod::LongRope) {
    s.listsAuto = false;
    s.shortText = formatNumberList(config.scaling.shortFactor);
    s.longText = formatNumberList(config.scaling.longFactor);
    s.shortError.clear();
    s.longError.clear();
  }
  if (s.linkFactor && m != ScalingMethod::None) {
    for (int i = 1; i < kNumScalingMethods; ++i) {
      s.scaling[static_cast<std::size_t>(i)].factor = config.scaling.factor;
      s.scaling[static_cast<std::size_t>(i)].originalMaxPositions = config.scaling.originalMaxPositions;
    }
  }
  s.dirty = true;
}

void updateContextExtensionPanel(ContextExtensionPanelState& s, AppContext&) {
  if (!s.dirty) return;
  s.dirty = false;
  const auto t0 = std::chrono::steady_clock::now();
  s.error.clear();
  try {
    RopeParams p;
    p.headDim = s.headDim;
    p.base = s.base;
    p.rotaryFraction = s.rotaryFraction;
    validateRope("context extension", p);
    s.rotaryDims = ropeRotaryDims(p);
  } catch (const std::exception& e) {
    s.error = e.what();
    return;
  }
  const int numPairs = s.rotaryDims / 2;
  if (s.listsAuto) fillAutoLists(s, numPairs);
  for (int i = 0; i < kNumScalingMethods; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    RopeScaling sc = s.scaling[idx];
    sc.method = static_cast<ScalingMethod>(i);
    try {
      s.freqs[idx] = computeRopeFrequencies(s.rotaryDims, s.base, sc);
      s.errors[idx].clear();
    } catch (const std::exception& e) {
      s.errors[idx] = e.what();
    }
  }
  s.computeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: parameters
//-----------------------------------------------------------------------------

namespace {


// With "same factor and L0 for all", every method takes the selected one's value of `field`.
template <class T>
void linkToAll(ContextExtensionPanelState& s, T RopeScaling::*field, T value) {
  if (!s.linkFactor) return;
  for (int i = 1; i < kNumScalingMethods; ++i) s.scaling[static_cast<std::size_t>(i)].*field = value;
}

void drawSharedParameters(ContextExtensionPanelState& s) {
  // head_dim from 4: the methods need 4 rotary dims (see kContextMinRotaryDims).
  if (paramSlider(rope::kHeadDim, s.headDim, "d: dims per head. theta_i = base^(-2i / d_rot) for pairs i = 0 .. d_rot/2 - 1.",
                  SliderSpan{kContextMinRotaryDims, rope::kHeadDim.max}))
    s.dirty = true;
  if (paramSlider(rope::kBase, s.base, "theta_i = base^(-2i / d_rot); wavelength_i = 2*pi / theta_i positions.")) s.dirty = true;
  const double minFraction = std::min(kContextMinRotaryDims / static_cast<double>(s.headDim), 1.0);
  if (paramSlider(rope::kRotaryFraction, s.rotaryFraction, "d_rot = 2 * floor(fraction * d / 2) dims rotate; the methods act on those pairs.",
                  SliderSpan{minFraction, 1.0}))
    s.dirty = true;

  RopeScaling& sel = s.scaling[static_cast<std::size_t>(s.selected)];
  const bool hasFactor = s.selected != static_cast<int>(ScalingMethod::None);
  if (ImGui::Checkbox("same factor and L0 for all", &s.linkFactor)) s.dirty = true;
  HelpMarker("On: factor and original max positions edits apply to every method, so they compare\n"
             "at the same extension. Off: each method keeps its own.");
  if (hasFactor) {
    if (paramSlider(scaling::kFactor, sel.factor,
                    "s = target length / trained length. linear: theta_i / s. ntk: base * s^(d/(d-2)).\n"
                    "yarn / llama3: low-frequency pairs divided by s, high-frequency pairs kept.")) {
      linkToAll(s, &RopeScaling::factor, sel.factor);
      s.dirty = true;
    }
    if (paramSlider(scaling::kOriginalMax, sel.originalMaxPositions,
                    "L0: the context the model was trained on. Pairs whose wavelength 2*pi/theta_i exceeds\n"
                    "L0 never completed a turn in training: those are the ones the methods interpolate.")) {
      linkToAll(s, &RopeScaling::originalMaxPositions, sel.originalMaxPositions);
      s.dirty = true;
    }
  }
}

// What the selected method does, and seq len where the method reads it.
void drawMethodSummary(ContextExtensionPanelState& s, ScalingMethod m, RopeScaling& sc) {
  switch (m) {
    case ScalingMethod::None:
      ImGui::TextDisabled("plain RoPE: theta_i = base^(-2i/d), no parameters");
      break;
    case ScalingMethod::Linear:
      ImGui::TextDisabled("position interpolation: theta'_i = theta_i / s (Chen et al. 2023)");
      break;
    case ScalingMethod::NtkAware:
      ImGui::TextDisabled("NTK-aware: base' = base * s^(d/(d-2)), then theta'_i = base'^(-2i/d)");
      break;
    case ScalingMethod::DynamicNtk:
    case ScalingMethod::LongRope: {
      const char* teach = m == ScalingMethod::DynamicNtk
                              ? "Current sequence length. dynamic: base' = base * (s*L/L0 - (s-1))^(d/(d-2)) with\n"
                                "L = max(seq len, L0) (0 = L0): plain RoPE until the sequence outgrows L0."
                              : "Current sequence length (0 = L0): longrope uses the long factors when L > L0, else the short ones.";
      if (paramSlider(scaling::kSeqLen, sc.seqLen, teach)) s.dirty = true;
      break;
    }
    default:
      break;
  }
}

void drawYarnParameters(ContextExtensionPanelState& s, RopeScaling& sc) {
  if (paramSlider(scaling::kBetaFast, sc.betaFast,
                  "Rotations over L0 above which a pair is kept. low = floor(d*ln(L0/(beta_fast*2pi)) / (2 ln base)).\n"
                  "Must be >= beta_slow (equal betas: one boundary, as Hugging Face allows)."))
    s.dirty = true;
  if (paramSlider(scaling::kBetaSlow, sc.betaSlow,
                  "Rotations over L0 below which a pair is fully interpolated (theta/s).\n"
                  "high = ceil(d*ln(L0/(beta_slow*2pi)) / (2 ln base)); ramp_i = clamp((i-low)/(high-low), 0, 1)."))
    s.dirty = true;
  if (ImGui::Checkbox("truncate correction range", &sc.truncate)) s.dirty = true;
  HelpMarker("floor/ceil low and high (Hugging Face default true).");
  if (paramSlider(scaling::kMscale, sc.mscale,
                  "DeepSeek variant (0 = unset). With mscale and mscale_all_dim both set the attention factor\n"
                  "is get(s, mscale) / get(s, mscale_all_dim), get(s, m) = 0.1 * m * ln(s) + 1 (1 when s <= 1)."))
    s.dirty = true;
  if (paramSlider(scaling::kMscaleAllDim, sc.mscaleAllDim, "DeepSeek variant (0 = unset); otherwise the factor is get(s, 1) = 0.1 ln(s) + 1."))
    s.dirty = true;
}

void drawLlama3Parameters(ContextExtensionPanelState& s, RopeScaling& sc) {
  if (paramSlider(scaling::kLowFreqFactor, sc.lowFreqFactor, "Pairs with wavelength > L0 / low_freq_factor are divided by s."))
    s.dirty = true;
  if (paramSlider(scaling::kHighFreqFactor, sc.highFreqFactor,
                  "Pairs with wavelength < L0 / high_freq_factor are kept; between: theta' = (1-b) theta/s + b theta,\n"
                  "b = (L0/wavelength - low) / (high - low). Must be > low_freq_factor."))
    s.dirty = true;
}

// One typed LongRope factor list; a list that does not parse keeps the last good one.
void drawFactorList(ContextExtensionPanelState& s, const char* id, std::string& text, std::string& error,
                    std::vector<double>& factors) {
  ImGui::PushItemWidth(-1.0f);
  if (inputTextString(id, text)) {
    std::vector<double> v;
    if (parseNumberList(text, v, &error)) factors = v;
    s.listsAuto = false;
    s.dirty = true;
  }
  if (!error.empty()) ErrorText(error + " (keeping the last good list)");
  ImGui::PopItemWidth();
}

void drawLongRopeLists(ContextExtensionPanelState& s, RopeScaling& sc) {
  ImGui::TextUnformatted("short factors (one per pair)");
  HelpMarker("theta'_i = theta_i / short_i when L <= L0. Comma-separated, d_rot/2 values, each > 0.");
  drawFactorList(s, "##short", s.shortText, s.shortError, sc.shortFactor);
  ImGui::TextUnformatted("long factors (one per pair)");
  HelpMarker("theta'_i = theta_i / long_i when L > L0. Comma-separated, d_rot/2 values, each > 0.");
  drawFactorList(s, "##long", s.longText, s.longError, sc.longFactor);
  if (ImGui::SmallButton("example lists: short 1, long 1 .. s")) {
    s.listsAuto = true;
    s.dirty = true;
  }
  HelpMarker("Fills both lists for the current pair count and keeps them in step with head_dim and s.");
}

void drawAttentionOverride(ContextExtensionPanelState& s, ScalingMethod m, RopeScaling& sc) {
  bool overrideOn = sc.attentionFactor.has_value();
  if (ImGui::Checkbox("override attention factor", &overrideOn)) {
    if (overrideOn) sc.attentionFactor = 1.0;
    else sc.attentionFactor.reset();
    s.dirty = true;
  }
  HelpMarker(m == ScalingMethod::Yarn ? "attention_factor: replaces the computed 0.1 ln(s) + 1 (multiplies cos and sin)."
                                      : "attention_factor: replaces sqrt(1 + ln(s) / ln(L0)) (multiplies cos and sin).");
  if (!sc.attentionFactor) return;
  double af = *sc.attentionFactor;
  if (paramSlider(scaling::kAttentionFactor, af, "Multiplies cos and sin, so every score is scaled by its square.")) {
    sc.attentionFactor = af;
    s.dirty = true;
  }
}

void drawMethodParameters(ContextExtensionPanelState& s) {
  const auto m = static_cast<ScalingMethod>(s.selected);
  RopeScaling& sc = s.scaling[static_cast<std::size_t>(s.selected)];
  drawMethodSummary(s, m, sc);
  if (m == ScalingMethod::Yarn) drawYarnParameters(s, sc);
  if (m == ScalingMethod::Llama3) drawLlama3Parameters(s, sc);
  if (m == ScalingMethod::LongRope) drawLongRopeLists(s, sc);
  if (m == ScalingMethod::Yarn || m == ScalingMethod::LongRope) drawAttentionOverride(s, m, sc);
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: the panel (plot, bands, attention-factor table)
//-----------------------------------------------------------------------------

// Left column: which methods are shown, which one is edited, and the parameters.
void drawParameterColumn(ContextExtensionPanelState& s, AppContext& ctx, float width, float height) {
  const float scale = ctx.uiScale;
  ImGui::BeginChild("ctx-params", ImVec2(width, height), true);
  ImGui::TextUnformatted("RoPE context extension: every method, per pair");
  ImGui::Separator();
  ImGui::PushItemWidth(190.0f * scale);
  ImGui::TextUnformatted("Method (bands + parameters)");
  HelpMarker("The selected method's per-pair regime is shaded on the plot and its parameters are below.");
  for (int i = 0; i < kNumScalingMethods; ++i) {
    ImGui::PushID(i);
    ImGui::PushStyleColor(ImGuiCol_CheckMark, plotColor(i));
    ImGui::Checkbox("##vis", &s.visible[static_cast<std::size_t>(i)]);
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("show on the plot");
    ImGui::SameLine();
    ImGui::RadioButton(scalingName(static_cast<ScalingMethod>(i)), &s.selected, i);
    ImGui::PopID();
    if (i % 4 != 3 && i != kNumScalingMethods - 1) ImGui::SameLine();
  }
  ImGui::Separator();
  drawSharedParameters(s);
  ImGui::Separator();
  ImGui::Text("%s parameters", scalingName(static_cast<ScalingMethod>(s.selected)));
  drawMethodParameters(s);
  ImGui::PopItemWidth();
  updateContextExtensionPanel(s, ctx);
  if (!s.error.empty()) ErrorText(s.error);
  const std::string& selErr = s.errors[static_cast<std::size_t>(s.selected)];
  if (!selErr.empty()) ErrorText(selErr + " (showing the last good result)");
  ImGui::EndChild();
}

// A method's curve: theta'_i (or its wavelength) per pair; empty when the method has no result
// for the current pairs.
std::vector<double> methodCurve(const ContextExtensionPanelState& s, int method) {
  const int numPairs = s.rotaryDims / 2;
  const RopeFrequencies& f = s.freqs[static_cast<std::size_t>(method)];
  if (static_cast<int>(f.invFreq.size()) != numPairs) return {};
  std::vector<double> y;
  for (double th : f.invFreq) y.push_back(s.wavelength ? 2.0 * std::numbers::pi / th : th);
  return y;
}

// The plot's numbers as CSV columns: pair, then one column per method that has a curve.
void frequencyColumns(const ContextExtensionPanelState& s, std::vector<std::string>& names, std::vector<std::vector<double>>& cols) {
  const int numPairs = s.rotaryDims / 2;
  names = {"pair"};
  cols.assign(1, {});
  for (int i = 0; i < numPairs; ++i) cols[0].push_back(static_cast<double>(i));
  for (int mi = 0; mi < kNumScalingMethods; ++mi) {
    std::vector<double> y = methodCurve(s, mi);
    if (numPairs > 0 && y.empty()) continue;
    names.push_back(std::string(s.wavelength ? "wavelength_" : "invfreq_") + scalingName(static_cast<ScalingMethod>(mi)));
    cols.push_back(std::move(y));
  }
}

// The plot of every method's frequencies (or wavelengths) per pair, the L0 level and the
// selected method's regime bands.
PlotSpec frequencyPlot(const ContextExtensionPanelState& s) {
  const int numPairs = s.rotaryDims / 2;
  const int l0 = s.scaling[static_cast<std::size_t>(s.selected)].originalMaxPositions;
  PlotSpec ps;
  ps.title = std::string(s.wavelength ? "wavelength" : "inverse frequency") + " per pair, d_rot = " +
             std::to_string(s.rotaryDims) + ", base " + formatShort(s.base, 6);
  ps.xTitle = "rotating pair (slow to the right)";
  ps.xTip = "pair i = 0 .. d_rot/2 - 1; before scaling theta_i = base^(-2i/d_rot).";
  ps.yTitle = s.wavelength ? "positions per full turn" : "turning speed (radians per position)";
  ps.yTip = s.wavelength ? "wavelength 2 pi / theta'_i after each method's scaling; the dashed level is L0, the trained length."
                         : "theta'_i, pair i's frequency after each method's scaling; the level is 2 pi / L0. Log axis.";
  ps.logY = true;
  for (int mi = 0; mi < kNumScalingMethods; ++mi) {
    if (!s.visible[static_cast<std::size_t>(mi)]) continue;
    PlotSeries ser;
    ser.y = methodCurve(s, mi);
    if (ser.y.empty()) continue;
    ser.label = scalingName(static_cast<ScalingMethod>(mi));
    ser.color = plotColor(mi);
    ser.thickness = mi == s.selected ? 3.0f : 1.5f;
    for (int i = 0; i < numPairs; ++i) ser.x.push_back(static_cast<double>(i));
    ps.series.push_back(std::move(ser));
  }
  if (numPairs > 0) {
    PlotSeries lvl;
    lvl.label = s.wavelength ? "L0 = " + std::to_string(l0) : "2pi / L0 (wavelength L0 = " + std::to_string(l0) + ")";
    lvl.x = {0.0, static_cast<double>(numPairs - 1)};
    const double y = s.wavelength ? static_cast<double>(l0) : 2.0 * std::numbers::pi / static_cast<double>(l0);
    lvl.y = {y, y};
    lvl.color = themed(IM_COL32(200, 200, 200, 200));
    lvl.thickness = 1.0f;
    ps.series.push_back(std::move(lvl));
  }
  // Regime bands of the selected method: one band per run of equal regime.
  const RopeFrequencies& sel = s.freqs[static_cast<std::size_t>(s.selected)];
  if (static_cast<int>(sel.regime.size()) == numPairs && methodHasRegimes(static_cast<ScalingMethod>(s.selected))) {
    addRegimeBands(ps, sel.regime);
  }
  return ps;
}

// Added to the plot's own readout: what each shown method does to the hovered pair.
void drawPairTooltip(const ContextExtensionPanelState& s, const PlotHover& hover) {
  const int numPairs = s.rotaryDims / 2;
  if (!hover.active || numPairs <= 0) return;
  const int pair = std::clamp(static_cast<int>(std::lround(hover.x)), 0, numPairs - 1);
  ImGui::BeginTooltip();
  ImGui::Separator();
  ImGui::Text("pair %d (dims %d, %d in half-split)", pair, pair, pair + numPairs);
  for (int mi = 0; mi < kNumScalingMethods; ++mi) {
    const RopeFrequencies& f = s.freqs[static_cast<std::size_t>(mi)];
    if (static_cast<int>(f.invFreq.size()) != numPairs || !s.visible[static_cast<std::size_t>(mi)]) continue;
    const double th = f.invFreq[static_cast<std::size_t>(pair)];
    const auto m = static_cast<ScalingMethod>(mi);
    // Methods without bands: the pair's own change, theta'/theta.
    const std::string what = methodHasRegimes(m) ? std::string(regimeName(f.regime[static_cast<std::size_t>(pair)])) + " (ramp " +
                                                       formatShort(f.ramp[static_cast<std::size_t>(pair)], 3) + ")"
                                                 : "theta'/theta = " + formatShort(th / f.baseInvFreq[static_cast<std::size_t>(pair)], 4);
    ImGui::TextColored(ImColor(plotColor(mi)), "%-9s %s, wavelength %s", scalingName(m), what.c_str(),
                       formatShort(2.0 * std::numbers::pi / th, 5).c_str());
  }
  ImGui::EndTooltip();
}

void drawBandLegend(const ContextExtensionPanelState& s) {
  const auto m = static_cast<ScalingMethod>(s.selected);
  if (!methodHasRegimes(m)) {
    ImGui::TextDisabled("bands (%s): n/a", scalingName(m));
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 34.0f);
      ImGui::TextUnformatted(methodTableCell(m, MethodColumn::Regimes, RopeFrequencies{}).why.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
    return;
  }
  ImGui::TextDisabled("bands (%s):", scalingName(m));
  for (PairRegime r : {PairRegime::Kept, PairRegime::Blended, PairRegime::Interpolated}) {
    ImGui::SameLine();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    ImGui::GetWindowDrawList()->AddRectFilled(p0, ImVec2(p0.x + h, p0.y + h), regimeColor(r) | themed(IM_COL32(0, 0, 0, 200)));
    ImGui::Dummy(ImVec2(h, h));
    ImGui::SameLine();
    ImGui::TextUnformatted(regimeName(r));
  }
  HelpMarker("kept: theta_i unchanged. interpolated: theta_i / s (positions squeezed into the trained range).\n"
             "blended: in between (yarn's ramp, llama3's smooth band).");
}

// A table cell: the number, or a greyed "n/a"; either way the tooltip says what it means.
void drawTableCell(const MethodTableCell& c) {
  if (c.applies) ImGui::TextUnformatted(c.text.c_str());
  else ImGui::TextDisabled("%s", c.text.c_str());
  if (!c.why.empty() && ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 34.0f);
    ImGui::TextUnformatted(c.why.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

// Attention factor and summary per method; columns that do not apply to a method say so.
void drawMethodTable(const ContextExtensionPanelState& s) {
  if (!ImGui::BeginTable("ctx-table", 6, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp))
    return;
  ImGui::TableSetupColumn("method");
  ImGui::TableSetupColumn("attention factor");
  ImGui::TableSetupColumn("score scale (factor^2)");
  ImGui::TableSetupColumn("effective base");
  ImGui::TableSetupColumn("pairs kept / blended / interp.");
  ImGui::TableSetupColumn("status");
  ImGui::TableHeadersRow();
  constexpr MethodColumn kColumns[] = {MethodColumn::AttentionFactor, MethodColumn::ScoreScale, MethodColumn::EffectiveBase,
                                       MethodColumn::Regimes};
  for (int mi = 0; mi < kNumScalingMethods; ++mi) {
    const auto m = static_cast<ScalingMethod>(mi);
    const RopeFrequencies& f = s.freqs[static_cast<std::size_t>(mi)];
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextColored(ImColor(plotColor(mi)), "%s", scalingName(m));
    for (int c = 0; c < 4; ++c) {
      ImGui::TableSetColumnIndex(c + 1);
      drawTableCell(methodTableCell(m, kColumns[c], f));
    }
    ImGui::TableSetColumnIndex(5);
    const std::string& err = s.errors[static_cast<std::size_t>(mi)];
    if (err.empty()) ImGui::TextDisabled("ok");
    else ErrorText(err);
  }
  ImGui::EndTable();
}

void publishStatus(const ContextExtensionPanelState& s, AppContext& ctx) {
  const int numPairs = s.rotaryDims / 2;
  ctx.status.backend = "CPU";
  ctx.status.gridSize = std::to_string(numPairs) + " pairs x " + std::to_string(kNumScalingMethods) + " methods";
  ctx.status.computeMs = s.computeMs;
  ctx.status.busy = false;
  ctx.status.progress = -1.0f;
}

// File > Export: the selected method's frequencies as a call of rope-freqs, and the plot's numbers.
ExportableView contextExports(const ContextExtensionPanelState& s) {
  ExportableView ex;
  ex.name = s.wavelength ? "context-extension-wavelength" : "context-extension-invfreq";
  const RopeScaling& selected = s.scaling[static_cast<std::size_t>(s.selected)];
  const std::string baseText = s.base == std::floor(s.base) && s.base < 1e15 ? std::to_string(static_cast<long long>(s.base))
                                                                             : formatShort(s.base, 8);
  ex.caption = "head_dim=" + std::to_string(s.headDim) + " base=" + baseText + " rotary=" + formatShort(s.rotaryFraction) +
               " factor=" + formatShort(selected.factor) + " L0=" + std::to_string(selected.originalMaxPositions);
  if (s.rotaryDims / 2 <= 0) return ex;
  std::vector<std::string> names;
  std::vector<std::vector<double>> cols;
  frequencyColumns(s, names, cols);
  ex.plotColumnNames = std::move(names);
  ex.plotColumns = [cols = std::move(cols)] { return cols; };
  RopeParams p;
  p.headDim = s.headDim;
  p.base = s.base;
  p.rotaryFraction = s.rotaryFraction;
  p.scaling = selected;
  cli::ViewCall call{"rope-freqs"};
  cli::addRopeParams(call, p);
  ex.call = std::move(call);
  return ex;
}

}  // namespace

void drawContextExtensionPanel(ContextExtensionPanelState& s, AppContext& ctx) {
  const float scale = ctx.uiScale;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  drawParameterColumn(s, ctx, std::min(400.0f * scale, avail.x * 0.34f), avail.y);
  ImGui::SameLine();

  ImGui::BeginChild("ctx-views", ImVec2(0, avail.y), false);
  if (ImGui::RadioButton("inverse frequency theta_i", !s.wavelength)) s.wavelength = false;
  ImGui::SameLine();
  if (ImGui::RadioButton("wavelength 2pi/theta_i", s.wavelength)) s.wavelength = true;
  HelpMarker("theta_i in rad/position, or its wavelength in positions (one full turn). Log axis.\n"
             "The dashed level is L0: pairs past it (in wavelength) never turned once in training.");
  const PlotSpec ps = frequencyPlot(s);
  // The plot takes what the band legend and the table (header + one row per method) leave.
  const float belowH = ImGui::GetTextLineHeightWithSpacing() * 2.5f +
                       (ImGui::GetTextLineHeightWithSpacing() + 2.0f) * static_cast<float>(kNumScalingMethods + 1);
  const float plotH = std::max(220.0f * scale, ImGui::GetContentRegionAvail().y - belowH);
  drawPairTooltip(s, drawPlot("ctx-plot", ps, 0.0f, plotH));
  drawBandLegend(s);
  drawFigure("ctx-table", {"Context-extension methods side by side", ""}, ImVec2(ImGui::GetContentRegionAvail().x, 0.0f),
             [&](ImVec2) { drawMethodTable(s); });
  ImGui::EndChild();

  publishStatus(s, ctx);
}

//-----------------------------------------------------------------------------
// [SECTION] Settings
//-----------------------------------------------------------------------------

namespace {

// The real-valued scaling parameters settings keep per method, and where each lives.
const std::array<const cli::Param*, 7> kRealScaling = {&scaling::kFactor, &scaling::kBetaFast, &scaling::kBetaSlow,
                                                       &scaling::kMscale, &scaling::kMscaleAllDim,
                                                       &scaling::kLowFreqFactor, &scaling::kHighFreqFactor};

template <class Scaling>
auto scalingField(Scaling& sc, const cli::Param& p) -> decltype(&sc.factor) {
  if (&p == &scaling::kBetaFast) return &sc.betaFast;
  if (&p == &scaling::kBetaSlow) return &sc.betaSlow;
  if (&p == &scaling::kMscale) return &sc.mscale;
  if (&p == &scaling::kMscaleAllDim) return &sc.mscaleAllDim;
  if (&p == &scaling::kLowFreqFactor) return &sc.lowFreqFactor;
  if (&p == &scaling::kHighFreqFactor) return &sc.highFreqFactor;
  return &sc.factor;
}

nlohmann::json saveScaling(const RopeScaling& sc) {
  nlohmann::json m = nlohmann::json::object();
  for (const cli::Param* p : kRealScaling) cli::saveParam(m, *p, *scalingField(sc, *p));
  cli::saveParam(m, scaling::kOriginalMax, sc.originalMaxPositions);
  cli::saveParam(m, scaling::kSeqLen, sc.seqLen);
  return m;
}

void loadScaling(RopeScaling& sc, const nlohmann::json& m) {
  for (const cli::Param* p : kRealScaling) cli::loadParam(m, *p, *scalingField(sc, *p));
  cli::loadParam(m, scaling::kOriginalMax, sc.originalMaxPositions);
  cli::loadParam(m, scaling::kSeqLen, sc.seqLen);
}

}  // namespace

void saveContextExtensionPanel(const ContextExtensionPanelState& s, nlohmann::json& j) {
  cli::saveParam(j, rope::kHeadDim, s.headDim);
  cli::saveParam(j, rope::kBase, s.base);
  cli::saveParam(j, rope::kRotaryFraction, s.rotaryFraction);
  j["selected"] = scalingName(static_cast<ScalingMethod>(s.selected));
  j["wavelength"] = s.wavelength;
  j["link_factor"] = s.linkFactor;
  nlohmann::json methods = nlohmann::json::object();
  for (int i = 1; i < kNumScalingMethods; ++i)
    methods[scalingName(static_cast<ScalingMethod>(i))] = saveScaling(s.scaling[static_cast<std::size_t>(i)]);
  j["methods"] = methods;
}

void loadContextExtensionPanel(ContextExtensionPanelState& s, const nlohmann::json& j) {
  // Values that leave fewer rotary dims than the methods need are ignored.
  if (int d = s.headDim; cli::loadParam(j, rope::kHeadDim, d) && d * s.rotaryFraction >= kContextMinRotaryDims) s.headDim = d;
  cli::loadParam(j, rope::kBase, s.base);
  if (double f = s.rotaryFraction; cli::loadParam(j, rope::kRotaryFraction, f) && f * s.headDim >= kContextMinRotaryDims)
    s.rotaryFraction = f;
  if (std::string name; readSetting(j, "selected", name))
    if (auto m = parseScalingName(name)) s.selected = static_cast<int>(*m);
  readSetting(j, "wavelength", s.wavelength);
  readSetting(j, "link_factor", s.linkFactor);
  if (j.contains("methods") && j["methods"].is_object()) {
    for (int i = 1; i < kNumScalingMethods; ++i) {
      const char* name = scalingName(static_cast<ScalingMethod>(i));
      if (!j["methods"].contains(name) || !j["methods"][name].is_object()) continue;
      loadScaling(s.scaling[static_cast<std::size_t>(i)], j["methods"][name]);
    }
  }
  s.listsAuto = true;
  s.dirty = true;
}


// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

void tweakContext(AppState& a) {
  a.context.base = a.context.base > 1000.0 ? 100.0 : 10000.0;
  a.context.dirty = true;
}

}  // namespace

const PanelDef kContextExtensionPanel{"context-extension", [](AppState& a, AppContext& c) { drawContextExtensionPanel(a.context, c); },
    [](AppState& a, const cli::ModelConfig& m, ConfigNotes& n) { applyContextExtensionConfig(a.context, m, n); },
    [](const AppState& a, nlohmann::json& j) { saveContextExtensionPanel(a.context, j); }, [](AppState& a, const nlohmann::json& j) { loadContextExtensionPanel(a.context, j); }, tweakContext,
    nullptr, nullptr, nullptr, nullptr, [](const AppState& a) { return contextExports(a.context); }};

}  // namespace posviz::app
