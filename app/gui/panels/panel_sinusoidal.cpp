// panel_sinusoidal.cpp: the Sinusoidal view.
//
// [SECTION] Background jobs
// [SECTION] Controls
// [SECTION] Encoding tab (heatmap, wavelengths, one row)
// [SECTION] Clock tab
// [SECTION] Similarity tab
// [SECTION] Offset tab (M_k)
// [SECTION] drawSinusoidalPanel
#include "app/gui/panels/app_state.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/widgets/figure_export.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/panel_sinusoidal.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/export.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/pixel_choice.hpp"
#include "app/gui/widgets/plot.hpp"
#include "core/gpu/backend.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/exact_average.hpp"
#include "core/pixel_stats.hpp"
#include "core/angle.hpp"

namespace posviz::app {

namespace {

namespace table = cli::params::sinusoidal;
constexpr int kMaxPositions = kSinusoidalMaxPositions;
constexpr int kMaxClocks = 64;

std::string omegaFormula(const SinusoidalParams& p, int pair) {
  char buf[160];
  if (p.layout != SinusoidalLayout::Tensor2Tensor) {
    std::snprintf(buf, sizeof buf, "theta_%d = base^(-2*%d/%d) = %s^(%s) = %s", pair, pair, p.dModel,
                  formatShort(p.base, 6).c_str(), formatShort(-2.0 * pair / p.dModel, 4).c_str(),
                  formatShort(sinusoidalFrequency(p, pair), 6).c_str());
  } else {
    const int n = p.dModel / 2;
    std::snprintf(buf, sizeof buf, "theta_%d = %s * exp(-%d * ln(%s/%s) / %d) = %s", pair,
                  formatShort(p.minTimescale).c_str(), pair, formatShort(p.base, 6).c_str(),
                  formatShort(p.minTimescale).c_str(), std::max(n - 1, 1), formatShort(sinusoidalFrequency(p, pair), 6).c_str());
  }
  return buf;
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Background jobs
// -----------------------------------------------------------------------------------------------

// With the GPU chosen (Backend > GPU) and a window small enough to read back within a frame, the
// window's rows come from the GPU mirror on this (the GL) thread and only the averaging runs on
// the worker; otherwise core computes the picture's block means on the worker, in closed form.
constexpr long long kGpuWindowCells = 4ll << 20;

// The encoding heatmap's colours: drawEncoding's spec and the worker that colours its pictures.
void setEncodingColors(HeatmapSpec& spec, Colormap colormap) {
  spec.colormap = colormap;
  spec.symmetricRange = true;
}

void requestEncoding(SinusoidalPanelState& s, AppContext& ctx) {
  const HeatmapWindow w = s.peMap.wanted;
  const SinusoidalParams p = s.params;
  if (!windowInside(w, s.numPositions, p.dModel)) return;   // nothing asked for yet
  const long long version = ++s.version;
  s.gpuNotice.clear();
  const auto choice = static_cast<PixelChoice>(s.pixel);
  const bool meanOnly = choice == PixelChoice::Mean || w.rows <= w.outRows;   // the GPU path averages
  if (ctx.backend == BackendChoice::Gpu && w.rows * p.dModel <= kGpuWindowCells && meanOnly) {
    gpu::Computed c = gpu::computeSinusoidalGrid(ctx.gpu, gpu::Backend::Gpu, p, static_cast<int>(w.rows), w.row0);
    s.lastOnGpu = c.onGpu;
    s.gpuNotice = c.notice;
    auto rows = std::make_shared<const Grid>(std::move(c.grid));
    s.peImage.request([rows, w, version, colormap = s.colormap](JobControl&) {
      HeatmapImage img;
      img.window = w;
      img.version = version;
      img.range = {-1.0f, 1.0f};
      HeatmapWindow local = w;
      local.row0 = 0;   // the grid starts at the window's first row
      if (windowInside(local, rows->rows, rows->cols)) areaAverageWindow(*rows, local, img.cells);
      HeatmapSpec colors;
      setEncodingColors(colors, colormap);
      colorHeatmapImage(img, colors);
      return img;
    });
    return;
  }
  s.lastOnGpu = false;
  s.peImage.request([p, w, version, choice, colormap = s.colormap, rows = s.numPositions](JobControl&) {
    HeatmapImage img;
    img.window = w;
    img.version = version;
    img.logicalRows = rows;
    img.logicalCols = p.dModel;
    img.range = {-1.0f, 1.0f};   // sin and cos: the full grid spans [-1, 1]; every stat stays inside it
    // Each pixel is its block's closed-form mean, envelope or RMS (core/exact_average.hpp,
    // core/pixel_stats.hpp): O(pairs) a display row whatever the positions, and 10 to 20 times
    // cheaper than computing the rows and averaging them even at one row a pixel.
    showChosenPicture(img, sinusoidalChosenPicture(p, w, choice), "+-1");
    HeatmapSpec colors;
    setEncodingColors(colors, colormap);
    colorHeatmapImage(img, colors);
    return img;
  });
}

void requestSimilarity(SinusoidalPanelState& s) {
  const HeatmapWindow w = s.simMap.wanted;
  if (w.outRows <= 0 || w.outCols <= 0) return;
  const SinusoidalParams p = s.params;
  const int n = s.simPositions;
  const long long version = ++s.version;
  s.simImage.request([p, n, w, version](JobControl& jc) {
    const Grid full = sinusoidalSimilarityGrid(p, n);
    throwIfCancelled(jc);
    HeatmapImage img;
    img.window = w;
    img.version = version;
    img.range = finiteRange(full);
    if (windowInside(w, full.rows, full.cols)) areaAverageWindow(full, w, img.cells);
    return img;
  });
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Controls
// -----------------------------------------------------------------------------------------------

void drawControls(SinusoidalPanelState& s, AppContext& ctx) {
  bool changed = false;
  const float w = ImGui::GetContentRegionAvail().x;
  ImGui::PushItemWidth(w * 0.62f);

  ImGui::TextUnformatted("Encoding");
  ImGui::Separator();
  changed |= paramChoice(table::kLayout, s.params.layout,
      "interleaved (the paper): PE(pos, 2i) = sin(pos*theta_i), PE(pos, 2i+1) = cos(pos*theta_i), theta_i = base^(-2i/d_model).\n"
      "t2t (tensor2tensor's get_timing_signal_1d): all sines, then all cosines; theta_i = min_ts * exp(-i*ln(base/min_ts)/(n-1)), "
      "n = d_model/2. Not a column permutation of the interleaved matrix: it divides by n-1.\n"
      "halves (Marian, Pegasus): the paper's theta_i, all sines then all cosines: the interleaved matrix with its columns reordered.");
  changed |= paramSlider(table::kBase, s.params.base,
                         "theta_i = base^(-2i/d_model): the slowest pair turns once every 2*pi*base^((d-2)/d) positions. "
                         "The paper uses 10000.");
  const int oldD = s.params.dModel;
  changed |= paramSlider(table::kDModel, s.params.dModel, "Model width: d_model/2 sin/cos pairs.");
  const int oldN = s.numPositions;
  changed |= paramSlider(table::kPositions, s.numPositions,
                         "Rows of the heatmap: positions 0 .. positions-1. Where a pixel covers many rows it "
                         "shows their exact mean, in closed form (geometric series of e^{i w p}): every size costs the same. "
                         "Hover stays exact.");
  if (oldD != s.params.dModel || oldN != s.numPositions) s.peMap.resetView();

  changed |= pixelChoiceControl(s.pixel,
      "Here each is in closed form: over many periods a sine's mean is about 0 (white), its RMS 0.707 and its envelope "
      "+-1.");
  if (ImGui::BeginCombo("colormap", colormapName(s.colormap))) {
    for (Colormap c : allColormaps()) {
      const bool sel = c == s.colormap;
      std::string label = colormapName(c);
      label += colormapKind(c) == ColormapKind::Diverging ? "  (diverging)" : colormapKind(c) == ColormapKind::Cyclic ? "  (cyclic)" : "  (sequential)";
      if (ImGui::Selectable(label.c_str(), sel)) s.colormap = c;
    }
    ImGui::EndCombo();
  }
  HelpMarker("PE values are signed (-1 .. 1): a diverging map (rdbu) puts white at 0.");

  ImGui::Spacing();
  ImGui::TextUnformatted("Position, pair, offset");
  ImGui::Separator();
  paramSlider(table::kPos, s.pos, "Click a heatmap row to pick it.");
  ImGui::Checkbox("play", &s.playing);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w * 0.35f);
  paramSlider(table::kPlaySpeed, s.playSpeed, "Advance pos over time: each pair's hand turns by theta_i per position.");
  paramSlider(table::kPair, s.pair, "Pair i = dims (2i, 2i+1) interleaved, (i, d/2+i) in t2t and in halves.",
              SliderSpan{0, static_cast<double>(s.params.dModel / 2 - 1)});
  paramSlider(table::kOffsetK, s.offsetK,
              "M_k is block-diagonal with 2x2 rotations [[cos k theta_i, sin k theta_i], [-sin k theta_i, cos k theta_i]] "
              "on (sin, cos). It does not depend on pos.");
  if (paramSlider(table::kSimilarityPositions, s.simPositions, "PE(a).PE(b) = sum_i cos((a-b) theta_i).")) s.simMap.resetView();
  paramSlider(table::kSimilarityRef, s.simRef, "The curves coincide because PE(a).PE(a+k) depends only on k.");
  s.pair = std::clamp(s.pair, 0, s.params.dModel / 2 - 1);
  ImGui::PopItemWidth();

  if (changed) s.dirty = true;
  if (s.playing) {
    s.playAccum += static_cast<double>(ctx.deltaTime) * s.playSpeed;
    const int step = static_cast<int>(s.playAccum);
    if (step > 0) {
      s.playAccum -= step;
      s.pos = static_cast<int>((static_cast<long long>(s.pos) + step) % kMaxPositions);
    }
  }

  ImGui::Spacing();
  ImGui::TextUnformatted("Pair i at a glance");
  ImGui::Separator();
  const double wi = sinusoidalFrequency(s.params, s.pair);
  ImGui::Text("theta_%d = %s rad/position", s.pair, formatShort(wi, 6).c_str());
  ImGui::Text("wavelength = 2pi/theta = %s positions", formatShort(sinusoidalWavelength(s.params, s.pair), 6).c_str());
  // The angle itself, then where the hand points: the clock shows it modulo one turn.
  const double angle = static_cast<double>(s.pos) * wi;
  ImGui::Text("angle at pos %s = %s rad", std::to_string(s.pos).c_str(), formatShort(angle, 6).c_str());
  ImGui::TextDisabled("  = %s rad mod 2pi (%s turns)", formatShort(wrapAngle(angle), 5).c_str(),
                      formatShort(angle / kTwoPi, 5).c_str());
  if (!s.error.empty()) ErrorText(s.error);
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Encoding tab
// -----------------------------------------------------------------------------------------------

// The wavelength/frequency curves and PE(pos) across dims, from core, when params or pos changed.
const SinusoidalCurves& encodingCurves(SinusoidalPanelState& s) {
  SinusoidalCurves& c = s.curves;
  const SinusoidalParams& p = s.params;
  if (c.params == p && c.pos == s.pos && !c.pair.empty()) return c;
  // One core call for all d_model pairs and dims when params change (a base drag rebuilds these
  // on every frame); a position drag reuses the table.
  if (!(c.params == p) || c.pair.empty()) {
    c.table = sinusoidalTable(p);
    c.pair.resize(c.table.frequency.size());
    for (std::size_t i = 0; i < c.pair.size(); ++i) c.pair[i] = static_cast<double>(i);
    c.simCount = -1;   // the similarity curves depend on params too
  }
  const SinusoidalTable& t = c.table;
  const std::vector<double> v = sinusoidalVector(t, static_cast<double>(s.pos));
  c.sinDims.clear();
  c.sinValues.clear();
  c.cosDims.clear();
  c.cosValues.clear();
  for (std::size_t d = 0; d < v.size(); ++d) {
    const bool isSin = t.dimIsSin[d] != 0;
    (isSin ? c.sinDims : c.cosDims).push_back(static_cast<double>(d));
    (isSin ? c.sinValues : c.cosValues).push_back(v[d]);
  }
  c.params = p;
  c.pos = s.pos;
  return c;
}

// PE(a).PE(a+k) for k = 0 .. min(N, 4096) - 1 from a = simRef and a = simRef + 1000.
const SinusoidalCurves& similarityCurves(SinusoidalPanelState& s) {
  encodingCurves(s);
  SinusoidalCurves& c = s.curves;
  const SinusoidalParams& p = s.params;
  const int kMax = std::min(s.simPositions, 4096);
  if (c.simCount == kMax && c.simRef == s.simRef) return c;
  c.offset.clear();
  c.fromA.clear();
  c.fromB.clear();
  for (int k = 0; k < kMax; ++k) {
    c.offset.push_back(k);
    c.fromA.push_back(sinusoidalSimilarity(p, s.simRef, static_cast<double>(s.simRef) + k));
    c.fromB.push_back(sinusoidalSimilarity(p, s.simRef + 1000.0, s.simRef + 1000.0 + k));
  }
  c.simCount = kMax;
  c.simRef = s.simRef;
  return c;
}

void drawEncoding(SinusoidalPanelState& s, AppContext& ctx) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float heatW = std::floor(avail.x * 0.6f);
  const SinusoidalParams p = s.params;

  HeatmapSpec spec;
  spec.logicalRows = s.numPositions;
  spec.logicalCols = p.dModel;
  spec.rowAxis.title = "token position";
  spec.colAxis.title = "dimension of the encoding";
  spec.rowTip = "pos = 0 .. positions - 1: the row PE(pos) is added to the token embedding at that place.";
  spec.colTip = "dim = 0 .. d_model - 1. Interleaved: dim 2i = sin(pos theta_i), dim 2i+1 = cos(pos theta_i), "
                "theta_i = base^(-2i/d_model). tensor2tensor: all sines, then all cosines.";
  spec.valueName = "PE";
  setEncodingColors(spec, s.colormap);
  spec.exactValue = [p](long long r, long long c) { return sinusoidalValue(p, static_cast<double>(r), static_cast<int>(c)); };
  spec.formula = [p](long long r, long long c) {
    const int dim = static_cast<int>(c);
    const int pair = sinusoidalPairOfDim(p, dim);
    const bool isSin = sinusoidalDimIsSin(p, dim);
    const double w = sinusoidalFrequency(p, pair);
    const double angle = static_cast<double>(r) * w;
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s(pos * theta_%d) = %s(%lld * %s) = %s(%s) = %s\n%s\npair %d, wavelength %s positions",
                  isSin ? "sin" : "cos", pair, isSin ? "sin" : "cos", r, formatShort(w, 6).c_str(), isSin ? "sin" : "cos",
                  formatShort(angle, 7).c_str(), formatShort(isSin ? std::sin(angle) : std::cos(angle), 7).c_str(),
                  omegaFormula(p, pair).c_str(), pair, formatShort(sinusoidalWavelength(p, pair), 5).c_str());
    return std::string(buf);
  };
  spec.blockStats = [p](long long r0, long long r1, long long c0, long long c1) {
    return blockStatsText(sinusoidalBlockStats(p, r0, r1, static_cast<int>(c0), static_cast<int>(c1)));
  };
  int* posTarget = &s.pos;
  spec.onClick = [posTarget](long long r, long long) { *posTarget = static_cast<int>(r); };
  s.peMap.highlightRow = -1;

  const HeatmapImage empty;
  const HeatmapImage* img = s.peImage.result();
  ImGui::BeginGroup();
  if (!s.peImage.error().empty()) ErrorText(s.peImage.error());
  const bool windowChanged = drawHeatmap("pe", s.peMap, spec, img ? *img : empty, heatW, avail.y);
  ImGui::EndGroup();
  if (windowChanged || s.dirty || s.backendEpoch != ctx.backendEpoch) {
    s.backendEpoch = ctx.backendEpoch;
    requestEncoding(s, ctx);
  }

  ImGui::SameLine();
  ImGui::BeginGroup();
  const float rightW = ImGui::GetContentRegionAvail().x;
  const float plotH = std::floor((avail.y - ImGui::GetStyle().ItemSpacing.y) * 0.5f);
  PlotSpec wl;
  wl.title = "Wavelength and frequency per pair";
  wl.xTitle = "sin/cos pair (slow to the right)";
  wl.xTip = p.layout == SinusoidalLayout::Interleaved
                ? "pair i = dims (2i, 2i+1), i = 0 .. d_model/2 - 1; its frequency is theta_i = base^(-2i/d_model)."
                : "pair i = dims (i, d_model/2 + i), i = 0 .. d_model/2 - 1 (sines first, then cosines).";
  wl.yTitle = "positions per turn, and radians per position";
  wl.yTip = "wavelength 2 pi / theta_i: positions until pair i's angle pos * theta_i turns once; frequency theta_i in rad/position. Log axis.";
  wl.logY = true;
  const SinusoidalCurves& cv = encodingCurves(s);
  PlotSeries lam{"wavelength 2pi/theta_i (positions)", cv.pair, cv.table.wavelength, plotColor(1), false, 2.0f};
  PlotSeries fr{"frequency theta_i (rad/position)", cv.pair, cv.table.frequency, plotColor(0), false, 2.0f};
  PlotSeries shown{"positions shown", {}, {}, themed(IM_COL32(200, 200, 200, 160)), false, 1.0f};
  const int pairs = p.dModel / 2;
  shown.x = {0.0, static_cast<double>(std::max(pairs - 1, 1))};
  shown.y = {static_cast<double>(s.numPositions), static_cast<double>(s.numPositions)};
  wl.series = {lam, fr, shown};
  wl.markers.push_back({static_cast<double>(s.pair), "pair " + std::to_string(s.pair), themed(IM_COL32(255, 255, 255, 150))});
  drawPlot("wavelength", wl, rightW, plotH);

  PlotSpec row;
  row.title = "PE(pos = " + formatCount(s.pos) + ") across dimensions";
  row.xTitle = "dimension of the encoding";
  row.xTip = "dim = 0 .. d_model - 1 of the vector PE(pos) at the chosen position.";
  row.yTitle = "value";
  row.yTip = "PE(pos, 2i) = sin(pos theta_i), PE(pos, 2i+1) = cos(pos theta_i), theta_i = base^(-2i/d_model): always in [-1, 1].";
  row.fixedY = true;
  row.yMin = -1.1;
  row.yMax = 1.1;
  PlotSeries sinS{"sin dims", cv.sinDims, cv.sinValues, plotColor(5), true, 1.6f};
  PlotSeries cosS{"cos dims", cv.cosDims, cv.cosValues, plotColor(4), true, 1.6f};
  row.series = {sinS, cosS};
  drawPlot("row", row, rightW, plotH);
  ImGui::EndGroup();
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Clock tab
// -----------------------------------------------------------------------------------------------

void drawClocks(SinusoidalPanelState& s) {
  const SinusoidalParams& p = s.params;
  const int pairs = p.dModel / 2;
  const int step = s.clockThin > 0 ? s.clockThin : std::max(1, (pairs + kMaxClocks - 1) / kMaxClocks);
  ImGui::Text("pos = %s: each pair i is a hand at angle pos*theta_i on the unit circle, (x, y) = (cos, sin) = "
              "(PE[cos dim], PE[sin dim]).",
              formatCount(s.pos).c_str());
  if (step > 1) {
    ImGui::TextDisabled("%d pairs: showing every %d-th (pairs 0, %d, %d, ...). Set 'every' to 1 and scroll to see all.", pairs,
                        step, step, 2 * step);
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  paramSlider(table::kClockThin, s.clockThin, "0 shows at most 64 clocks, thinned evenly. 1 shows every pair (scroll).",
              SliderSpan{0, static_cast<double>(std::max(1, pairs / 2))});

  ImGui::BeginChild("clocks", ImVec2(0, 0), false);
  const float fh = ImGui::GetFontSize();
  const float cell = fh * 7.2f;
  const float availW = ImGui::GetContentRegionAvail().x;
  const int perRow = std::max(1, static_cast<int>(availW / cell));
  std::vector<int> shownPairs;
  for (int i = 0; i < pairs; i += step) shownPairs.push_back(i);
  const int rows = (static_cast<int>(shownPairs.size()) + perRow - 1) / perRow;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float clipTop = ImGui::GetWindowPos().y - cell, clipBottom = ImGui::GetWindowPos().y + ImGui::GetWindowHeight();
  for (std::size_t k = 0; k < shownPairs.size(); ++k) {
    const int i = shownPairs[k];
    const int rr = static_cast<int>(k) / perRow, cc = static_cast<int>(k) % perRow;
    const ImVec2 c0(origin.x + static_cast<float>(cc) * cell, origin.y + static_cast<float>(rr) * cell);
    if (c0.y < clipTop || c0.y > clipBottom) continue;
    const ImVec2 ctr(c0.x + cell * 0.5f, c0.y + cell * 0.42f);
    const float rad = cell * 0.30f;
    const double w = sinusoidalFrequency(p, i);
    const double angle = wrapAngle(static_cast<double>(s.pos) * w);
    const float ca = static_cast<float>(std::cos(angle)), sa = static_cast<float>(std::sin(angle));
    const bool sel = i == s.pair;
    dl->AddCircleFilled(ctr, rad, sel ? themed(IM_COL32(50, 58, 75, 255)) : themed(IM_COL32(34, 37, 44, 255)), 40);
    dl->AddCircle(ctr, rad, sel ? themed(IM_COL32(255, 255, 255, 220)) : themed(IM_COL32(140, 140, 150, 255)), 40, sel ? 2.0f : 1.0f);
    // Angle swept since pos 0 (within the current turn), then the hand.
    if (angle > 0.02) {
      dl->PathArcTo(ctr, rad * 0.35f, 0.0f, -static_cast<float>(angle), 24);
      dl->PathStroke(themed(IM_COL32(230, 159, 0, 200)), 0, 1.5f);
    }
    dl->AddLine(ImVec2(ctr.x - rad, ctr.y), ImVec2(ctr.x + rad, ctr.y), themed(IM_COL32(90, 90, 100, 255)));
    dl->AddLine(ImVec2(ctr.x, ctr.y - rad), ImVec2(ctr.x, ctr.y + rad), themed(IM_COL32(90, 90, 100, 255)));
    const ImVec2 tip(ctr.x + ca * rad, ctr.y - sa * rad);   // screen y points down
    dl->AddLine(ctr, tip, themed(IM_COL32(86, 180, 233, 255)), 2.5f);
    dl->AddCircleFilled(tip, 3.0f, themed(IM_COL32(86, 180, 233, 255)));
    char label[64];
    std::snprintf(label, sizeof label, "pair %d", i);
    const ImVec2 ls = ImGui::CalcTextSize(label);
    dl->AddText(ImVec2(ctr.x - ls.x * 0.5f, c0.y + cell * 0.76f), ImGui::GetColorU32(ImGuiCol_Text), label);
    std::snprintf(label, sizeof label, "\xce\xbb %s", formatShort(2.0 * 3.141592653589793 / w, 3).c_str());
    const ImVec2 l2 = ImGui::CalcTextSize(label);
    dl->AddText(ImVec2(ctr.x - l2.x * 0.5f, c0.y + cell * 0.76f + fh), ImGui::GetColorU32(ImGuiCol_TextDisabled), label);
    // Hover: the numbers behind the hand.
    const ImVec2 mp = ImGui::GetIO().MousePos;
    if (ImGui::IsWindowHovered() && mp.x >= c0.x && mp.x < c0.x + cell && mp.y >= c0.y && mp.y < c0.y + cell) {
      ImGui::BeginTooltip();
      ImGui::Text("pair %d at pos %d", i, s.pos);
      ImGui::TextUnformatted(omegaFormula(p, i).c_str());
      ImGui::Text("angle = pos * w = %s rad (mod 2pi: %s)", formatShort(static_cast<double>(s.pos) * w, 7).c_str(),
                  formatShort(angle, 5).c_str());
      ImGui::Text("sin = %s, cos = %s", formatShort(std::sin(angle), 6).c_str(), formatShort(std::cos(angle), 6).c_str());
      ImGui::Text("one turn every %s positions", formatShort(2.0 * 3.141592653589793 / w, 6).c_str());
      ImGui::TextDisabled("click: choose this pair for M_k");
      ImGui::EndTooltip();
      if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) s.pair = i;
    }
  }
  ImGui::Dummy(ImVec2(static_cast<float>(perRow) * cell, static_cast<float>(rows) * cell));
  ImGui::EndChild();
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Similarity tab
// -----------------------------------------------------------------------------------------------

void drawSimilarity(SinusoidalPanelState& s) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float heatW = std::floor(heatmapWidthForSquareCells(avail.y, s.simPositions, s.simPositions, true, avail.x * 0.58f));
  const SinusoidalParams p = s.params;
  HeatmapSpec spec;
  spec.logicalRows = s.simPositions;
  spec.logicalCols = s.simPositions;
  spec.rowAxis.title = "first position";
  spec.colAxis.title = "second position";
  spec.rowTip = "a = 0 .. N - 1.";
  spec.colTip = "b = 0 .. N - 1. Cell (a, b) = PE(a) . PE(b) = sum_i cos((a - b) theta_i): it depends only on a - b.";
  spec.valueName = "PE(a).PE(b)";
  spec.colormap = s.colormap;
  spec.symmetricRange = true;
  spec.exactValue = [p](long long a, long long b) {
    return sinusoidalSimilarity(p, static_cast<double>(a), static_cast<double>(b));
  };
  spec.formula = [p](long long a, long long b) {
    return "sum_i cos((a - b) * theta_i) = sum over " + std::to_string(p.dModel / 2) + " pairs of cos(" +
           std::to_string(a - b) + " * theta_i); max d_model/2 = " + std::to_string(p.dModel / 2) + " at a = b";
  };
  const bool paramsChanged = s.simRequestedN != s.simPositions || s.simRequestedParams.dModel != p.dModel ||
                             s.simRequestedParams.base != p.base || s.simRequestedParams.layout != p.layout;
  const HeatmapImage empty;
  const HeatmapImage* img = s.simImage.result();
  ImGui::BeginGroup();
  if (!s.simImage.error().empty()) ErrorText(s.simImage.error());
  const bool changed = drawHeatmap("sim", s.simMap, spec, img ? *img : empty, heatW, avail.y);
  ImGui::EndGroup();
  if (changed || paramsChanged) {
    requestSimilarity(s);
    s.simRequestedN = s.simPositions;
    s.simRequestedParams = p;
  }

  ImGui::SameLine();
  ImGui::BeginGroup();
  const float rightW = ImGui::GetContentRegionAvail().x;
  PlotSpec ps;
  ps.title = "PE(a).PE(a+k) against offset k";
  ps.xTitle = "distance between the two positions";
  ps.xTip = "offset k = b - a, from 0.";
  ps.yTitle = "similarity of their encodings";
  ps.yTip = "dot product PE(a) . PE(a + k) = sum_i cos(k theta_i), the same from every a.";
  const SinusoidalCurves& cv = similarityCurves(s);
  PlotSeries fromA{"from a = " + std::to_string(s.simRef), cv.offset, cv.fromA, plotColor(0), false, 3.0f};
  PlotSeries fromB{"from a = " + std::to_string(s.simRef + 1000), cv.offset, cv.fromB, plotColor(1), false, 1.4f};
  ps.series = {fromA, fromB};
  drawPlot("simoffset", ps, rightW, std::floor(avail.y * 0.62f));
  ImGui::TextWrapped(
      "Both curves are computed from the vectors independently and coincide: PE(a).PE(a+k) = sum_i cos(k theta_i) depends "
      "only on the offset k. It is largest (d_model/2 = %d) at k = 0 and decays, non-monotonically, with |k|: nearby "
      "positions look alike, but the dot product does not tell the sign of k.",
      p.dModel / 2);
  ImGui::EndGroup();
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Offset tab (M_k)
// -----------------------------------------------------------------------------------------------

// M_k is d_model x d_model: it, the full check and its picture are rebuilt only when d_model,
// base, layout, k (or, for the check, pos) change, not every frame.
void updateOffset(SinusoidalPanelState& s) {
  SinusoidalOffsetCache& c = s.offset;
  const SinusoidalParams& p = s.params;
  const int d = p.dModel;
  const double k = s.offsetK;
  const bool matrixStale = !c.valid || !(c.params == p) || c.offsetK != s.offsetK;
  if (matrixStale) {
    c.valid = true;
    c.params = p;
    c.offsetK = s.offsetK;
    c.matrix.reset();
    c.image = HeatmapImage{};
    if (d <= 1024) c.matrix = std::make_shared<const std::vector<double>>(sinusoidalOffsetMatrix(p, k));
    if (c.matrix && d <= 256) {
      Grid g(d, d);
      for (std::size_t n = 0; n < c.matrix->size(); ++n) g.values[n] = static_cast<float>((*c.matrix)[n]);
      // Hash of (d, k, layout, base) as the version, so the texture follows the parameters.
      const long long version = static_cast<long long>(d) * 1000003LL + static_cast<long long>(s.offsetK) * 7919LL +
                                static_cast<long long>(p.layout) * 13LL + static_cast<long long>(p.base * 1000.0);
      c.image = wholeGridImage(g, version);
    }
  }
  if (!matrixStale && c.pos == s.pos) return;
  c.pos = s.pos;
  c.pe = sinusoidalVector(p, s.pos);
  c.peK = sinusoidalVector(p, static_cast<double>(s.pos) + std::max(k, -static_cast<double>(s.pos)));
  c.worst = 0.0;
  if (!c.matrix || s.pos + s.offsetK < 0) return;
  c.worst = sinusoidalOffsetResidual(*c.matrix, c.pe, c.peK);
}

// The pair's 2x2 block of M_k against PE(pos), M_k PE(pos) and core's PE(pos + k).
void drawOffsetBlock(const SinusoidalPanelState& s, int ds, int dc) {
  const SinusoidalOffsetCache& c = s.offset;
  const double k = s.offsetK;
  const double w = sinusoidalFrequency(s.params, s.pair);
  const bool posOk = s.pos + s.offsetK >= 0;
  // Read from core's full M_k when it is small enough, else from the formula's pieces.
  double m00 = std::cos(k * w), m01 = std::sin(k * w), m10 = -std::sin(k * w), m11 = std::cos(k * w);
  if (c.matrix) {
    const int d = s.params.dModel;
    auto at = [&](int r, int col) { return (*c.matrix)[static_cast<std::size_t>(r) * d + static_cast<std::size_t>(col)]; };
    m00 = at(ds, ds);
    m01 = at(ds, dc);
    m10 = at(dc, ds);
    m11 = at(dc, dc);
  }
  const float fh = ImGui::GetFontSize();
  if (!ImGui::BeginTable("block", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) return;
  ImGui::TableSetupColumn("");
  ImGui::TableSetupColumn("M_k block", ImGuiTableColumnFlags_WidthFixed, fh * 14);
  ImGui::TableSetupColumn("PE(pos)", ImGuiTableColumnFlags_WidthFixed, fh * 7);
  ImGui::TableSetupColumn("M_k PE(pos)", ImGuiTableColumnFlags_WidthFixed, fh * 7);
  ImGui::TableSetupColumn("PE(pos+k) computed", ImGuiTableColumnFlags_WidthFixed, fh * 8);
  ImGui::TableHeadersRow();
  const double sPos = c.pe[static_cast<std::size_t>(ds)], cPos = c.pe[static_cast<std::size_t>(dc)];
  const double predS = m00 * sPos + m01 * cPos, predC = m10 * sPos + m11 * cPos;
  const double trueS = c.peK[static_cast<std::size_t>(ds)], trueC = c.peK[static_cast<std::size_t>(dc)];
  const struct {
    const char* name;
    int dim;
    double a, b, pe, pred, truth;
  } rows[] = {{"sin", ds, m00, m01, sPos, predS, trueS}, {"cos", dc, m10, m11, cPos, predC, trueC}};
  for (const auto& r : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%s dim %d", r.name, r.dim);
    ImGui::TableNextColumn();
    ImGui::Text("[%9s  %9s]", formatShort(r.a, 5).c_str(), formatShort(r.b, 5).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatShort(r.pe, 6).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatShort(r.pred, 6).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(posOk ? formatShort(r.truth, 6).c_str() : "pos+k < 0");
  }
  ImGui::EndTable();
  if (posOk) {
    ImGui::Text("pair %d: |M_k PE(pos) - PE(pos+k)| = %s", s.pair,
                formatShort(std::hypot(predS - trueS, predC - trueC), 3).c_str());
  }
}

// M_k itself, to see the block-diagonal structure.
void drawOffsetMatrix(SinusoidalPanelState& s) {
  const SinusoidalOffsetCache& c = s.offset;
  const SinusoidalParams p = s.params;
  const int d = p.dModel;
  const double k = s.offsetK;
  ImGui::Spacing();
  HeatmapSpec spec;
  spec.logicalRows = d;
  spec.logicalCols = d;
  spec.rowAxis.title = "dimension of PE(pos + k)";
  spec.colAxis.title = "dimension of PE(pos)";
  spec.rowTip = "output dim r of M_k PE(pos) = PE(pos + k).";
  spec.colTip = "input dim c. M_k is block-diagonal: 2x2 rotations [[cos k theta_i, sin k theta_i], [-sin k theta_i, cos k theta_i]] "
                "on each (sin, cos) pair, the same for every pos.";
  spec.valueName = "M_k";
  spec.colormap = Colormap::RdBu;
  spec.symmetricRange = true;
  spec.fixedRange = true;
  spec.rangeMin = -1.0f;
  spec.rangeMax = 1.0f;
  const std::shared_ptr<const std::vector<double>> full = c.matrix;
  spec.exactValue = [full, d](long long r, long long col) { return (*full)[static_cast<std::size_t>(r * d + col)]; };
  spec.formula = [p, k](long long r, long long col) -> std::string {
    const int pr = sinusoidalPairOfDim(p, static_cast<int>(r)), pc = sinusoidalPairOfDim(p, static_cast<int>(col));
    if (pr != pc) return "different pairs: 0";
    const double ang = k * sinusoidalFrequency(p, pr);
    const bool rs = sinusoidalDimIsSin(p, static_cast<int>(r)), cs = sinusoidalDimIsSin(p, static_cast<int>(col));
    const char* f = rs == cs ? "cos(k w)" : (rs ? "sin(k w)" : "-sin(k w)");
    return std::string(f) + " with k w = " + formatShort(ang, 6);
  };
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float h = std::max(avail.y, ImGui::GetFontSize() * 12.0f);
  drawHeatmap("mk", s.offsetMap, spec, c.image, heatmapWidthForSquareCells(h, d, d, true, avail.x), h);
}

void drawOffset(SinusoidalPanelState& s) {
  updateOffset(s);
  const SinusoidalParams& p = s.params;
  const int d = p.dModel;
  const int i = s.pair;
  // The pair's (sin, cos) dims in this layout, found from core.
  int ds = -1, dc = -1;
  for (int dim = 0; dim < d; ++dim) {
    if (sinusoidalPairOfDim(p, dim) != i) continue;
    (sinusoidalDimIsSin(p, dim) ? ds : dc) = dim;
  }
  const bool posOk = s.pos + s.offsetK >= 0;

  ImGui::TextWrapped("For every offset k there is one matrix M_k, the same at every position, with PE(pos + k) = M_k PE(pos). "
                     "It is block-diagonal: pair i is rotated by the angle k*theta_i.");
  ImGui::Spacing();
  ImGui::Text("pair i = %d (dims %d = sin, %d = cos), k = %d, pos = %d", i, ds, dc, s.offsetK, s.pos);
  ImGui::TextUnformatted(omegaFormula(p, i).c_str());
  ImGui::Text("k * theta_i = %s rad", formatShort(s.offsetK * sinusoidalFrequency(p, i), 7).c_str());

  drawOffsetBlock(s, ds, dc);
  if (s.offset.matrix && posOk) {
    ImGui::Text("All %d dims: max |M_k PE(pos) - PE(pos+k)| = %s (float64)", d, formatShort(s.offset.worst, 3).c_str());
  } else if (!s.offset.matrix) {
    ImGui::TextDisabled("Full %d x %d check skipped above d_model = 1024; each block is checked as above.", d, d);
  }
  if (!posOk) ImGui::TextDisabled("pos + k is negative: PE is defined for positions >= 0.");
  if (s.offset.matrix && d <= 256) drawOffsetMatrix(s);
}

}  // namespace

// -----------------------------------------------------------------------------------------------
// [SECTION] drawSinusoidalPanel
// -----------------------------------------------------------------------------------------------

void applySinusoidalConfig(SinusoidalPanelState& s, const cli::ModelConfig& c, ConfigNotes& notes) {
  const auto reading = cli::readSinusoidalConfig(c);
  if (!reading) return;
  if (reading->dModel) {
    s.params.dModel = static_cast<int>(fitConfigParam("Sinusoidal", "hidden_size", table::kDModel, *reading->dModel, notes));
  }
  if (reading->layout) s.params.layout = *reading->layout;
  if (reading->maxPositions) {
    s.numPositions = static_cast<int>(fitConfigParam("Sinusoidal", "max_position_embeddings", table::kPositions,
                                                     static_cast<double>(*reading->maxPositions), notes));
  }
  s.peMap.resetView();
  s.dirty = true;
}

namespace {

// Parameters that core rejects (from a settings or config file; the sliders keep to valid
// ranges) are reported and replaced by the last accepted ones, so every view below describes
// one valid encoding.
void acceptParams(SinusoidalPanelState& s) {
  if (s.params == s.accepted) return;
  try {
    validateSinusoidal("sinusoidal view", s.params);
    s.accepted = s.params;
    s.error.clear();
  } catch (const std::exception& e) {
    s.error = std::string(e.what()) + " (kept the last accepted values)";
    s.params = s.accepted;
  }
}

void drawViewTabs(SinusoidalPanelState& s, AppContext& ctx) {
  if (!ImGui::BeginTabBar("sinusoidal-views")) return;
  const struct {
    const char* label;
    SinusoidalView view;
  } tabs[] = {{"Encoding", SinusoidalView::Encoding},
              {"Clock", SinusoidalView::Clock},
              {"Similarity", SinusoidalView::Similarity},
              {"Offset M_k", SinusoidalView::Offset}};
  for (const auto& t : tabs) {
    const ImGuiTabItemFlags f = s.selectView && s.view == t.view ? ImGuiTabItemFlags_SetSelected : 0;
    if (!ImGui::BeginTabItem(t.label, nullptr, f)) continue;
    if (!s.selectView) s.view = t.view;
    if (s.view == t.view) s.selectView = false;
    switch (t.view) {
      case SinusoidalView::Encoding: drawEncoding(s, ctx); break;
      case SinusoidalView::Clock:
        drawFigure("clocks", {"Each pair of dimensions as a clock hand", ""}, ImVec2(ImGui::GetContentRegionAvail().x, 0.0f),
                   [&](ImVec2) { drawClocks(s); });
        break;
      case SinusoidalView::Similarity: drawSimilarity(s); break;
      case SinusoidalView::Offset: drawOffset(s); break;
    }
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

void publishStatus(const SinusoidalPanelState& s, AppContext& ctx) {
  const bool onSim = s.view == SinusoidalView::Similarity;
  const auto& active = onSim ? s.simImage : s.peImage;
  ctx.status.backend = !onSim && s.lastOnGpu ? "GPU (window rows), averaged on a worker thread" : "CPU (worker thread)";
  if (!onSim && !s.gpuNotice.empty()) ctx.status.backend = "CPU (" + s.gpuNotice + ")";
  ctx.status.gridSize = onSim ? formatGridSize(s.simPositions, s.simPositions) : formatGridSize(s.numPositions, s.params.dModel);
  ctx.status.gridSize += pixelStatusText(onSim ? s.simMap.wanted : s.peMap.wanted, onSim ? nullptr : s.peImage.result());
  ctx.status.computeMs = active.millis();
  ctx.status.busy = active.busy();
  ctx.status.progress = active.progress();
  ctx.status.animating = s.playing;
}

// File > Export: the full PE grid (or the similarity grid on its tab) and the wavelengths.
// File > Export: the full PE grid (or the similarity grid on its tab) and the wavelengths, as the
// CLI's views write them.
ExportableView sinusoidalExports(const SinusoidalPanelState& s) {
  ExportableView ex;
  const SinusoidalParams p = s.params;
  ex.caption = "d_model=" + std::to_string(p.dModel) + " base=" + formatShort(p.base, 7) + " layout=" +
               std::string(table::kLayout.choiceName(static_cast<int>(p.layout)));
  ex.colormap = s.colormap;
  ex.symmetricRange = true;
  const bool onSim = s.view == SinusoidalView::Similarity;
  cli::ViewCall call{onSim ? "sinusoidal-similarity" : "sinusoidal"};
  call.set(table::kDModel, p.dModel).set(table::kBase, p.base).set(table::kLayout, static_cast<double>(p.layout));
  if (onSim) {
    ex.name = "sinusoidal-similarity";
    ex.caption += " N=" + std::to_string(s.simPositions);
    call.set(table::kSimilarityPositions, s.simPositions);
  } else {
    ex.name = "sinusoidal-pe";
    ex.caption += " positions=" + std::to_string(s.numPositions);
    call.set(table::kPositions, s.numPositions);
  }
  ex.call = std::move(call);
  ex.plotColumnNames = {"pair", "wavelength", "frequency"};
  ex.plotColumns = [p] {
    std::vector<double> pairIdx, wave, freq;
    for (int i = 0; i < p.dModel / 2; ++i) {
      pairIdx.push_back(i);
      wave.push_back(sinusoidalWavelength(p, i));
      freq.push_back(sinusoidalFrequency(p, i));
    }
    return std::vector<std::vector<double>>{std::move(pairIdx), std::move(wave), std::move(freq)};
  };
  return ex;
}

}  // namespace

void drawSinusoidalPanel(SinusoidalPanelState& s, AppContext& ctx) {
  acceptParams(s);
  s.peImage.poll();
  s.simImage.poll();

  const float fh = ImGui::GetFontSize();
  ImGui::BeginChild("controls", ImVec2(std::min(fh * 22.0f, std::floor(ImGui::GetContentRegionAvail().x * 0.4f)), 0), true);
  drawControls(s, ctx);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("views", ImVec2(0, 0), false);
  drawViewTabs(s, ctx);
  ImGui::EndChild();
  // The encoding is recomputed when its tab is drawn; a change elsewhere waits for it.
  if (s.view == SinusoidalView::Encoding) s.dirty = false;

  publishStatus(s, ctx);
}


// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

// Every parameter the tab keeps with the member that holds it: save and load walk this one list.
template <class State, class Visit>
void eachSinusoidalParam(State& s, Visit&& visit) {
  visit(table::kDModel, s.params.dModel);
  visit(table::kBase, s.params.base);
  visit(table::kLayout, s.params.layout);
  visit(table::kPositions, s.numPositions);
  visit(table::kPixel, s.pixel);
  visit(table::kPos, s.pos);
  visit(table::kOffsetK, s.offsetK);
  visit(table::kSimilarityPositions, s.simPositions);
}

void saveSinusoidal(const AppState& a, nlohmann::json& j) {
  eachSinusoidalParam(a.sinusoidal, ParamSaver{j});
  const SinusoidalPanelState& s = a.sinusoidal;
  cli::saveParam(j, table::kPair, s.pair);
  j["colormap"] = colormapName(s.colormap);
}

void loadSinusoidal(AppState& a, const nlohmann::json& j) {
  eachSinusoidalParam(a.sinusoidal, ParamLoader{j});
  SinusoidalPanelState& s = a.sinusoidal;
  if (cli::loadParam(j, table::kPair, s.pair)) s.pair = std::min(s.pair, s.params.dModel / 2 - 1);
  readSetting(j, "colormap", s.colormap);
  s.dirty = true;
}

void tweakSinusoidal(AppState& a) {
  a.sinusoidal.params.base = a.sinusoidal.params.base > 1000.0 ? 100.0 : 10000.0;
  a.sinusoidal.dirty = true;
}

}  // namespace

const PanelDef kSinusoidalPanel{"sinusoidal", [](AppState& a, AppContext& c) { drawSinusoidalPanel(a.sinusoidal, c); },
    [](AppState& a, const cli::ModelConfig& m, ConfigNotes& n) { applySinusoidalConfig(a.sinusoidal, m, n); },
    saveSinusoidal, loadSinusoidal, tweakSinusoidal, nullptr, nullptr, nullptr, nullptr,
    [](const AppState& a) { return sinusoidalExports(a.sinusoidal); }};

}  // namespace posviz::app
