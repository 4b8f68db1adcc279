// panel_alibi.cpp: the ALiBi view.
//
// [SECTION] Update: parameters -> slopes, bias grids, toy attention
// [SECTION] Drawing: parameters and slopes
// [SECTION] Drawing: small multiples and the toy attention
// [SECTION] Settings
#include "app/gui/panels/app_state.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/widgets/figure_export.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/panel_alibi.hpp"

#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <exception>

#include "app/gui/panels/panel_rope.hpp"
#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/alibi.hpp"
#include "core/attention.hpp"
#include "core/exact_average.hpp"

namespace posviz::app {

//-----------------------------------------------------------------------------
// [SECTION] Update: parameters -> slopes, bias grids, toy attention
//-----------------------------------------------------------------------------

namespace {

namespace table = cli::params::alibi;
namespace toy = cli::params::toy;

constexpr int kMaxToyTokens = 48;

int shownHeads(const AlibiPanelState& s) {
  return s.showAll ? s.numHeads : std::min(s.smallCount, s.numHeads);
}

// "2^-0.5" for a slope (display only).
std::string slopeLabel(double slope) {
  return "2^" + formatShort(std::log2(slope), 3) + " = " + formatShort(slope, 4);
}

void computeToy(AlibiPanelState& s) {
  s.toyError.clear();
  try {
    std::vector<std::string> tokens = splitTokens(s.sentence);
    if (tokens.size() < 2) {
      s.toyError = "type at least two words";
      return;
    }
    if (static_cast<int>(tokens.size()) > kMaxToyTokens) {
      s.toyError = "at most " + std::to_string(kMaxToyTokens) + " words, got " + std::to_string(tokens.size());
      return;
    }
    const int t = static_cast<int>(tokens.size());
    ToyModel m;
    m.dModel = s.toyDModel;
    m.seed = static_cast<std::uint64_t>(s.toySeed);
    m.causal = s.causal;
    Grid x(t, m.dModel);
    for (int i = 0; i < t; ++i) {
      const std::vector<float> e = toyEmbedding(m, tokens[static_cast<std::size_t>(i)]);
      std::copy(e.begin(), e.end(), x.row(i));
    }
    const double slope = s.slopes[static_cast<std::size_t>(s.selectedHead)];
    Grid bias = alibiBiasGrid(slope, t, s.causal);
    AttentionResult plain = scaledDotProductAttention(x, x, x, Grid{}, s.causal);
    AttentionResult biased = scaledDotProductAttention(x, x, x, bias, s.causal);
    s.tokens = std::move(tokens);
    s.weightsPlain = std::move(plain.weights);
    s.weightsBiased = std::move(biased.weights);
    s.toyBias = std::move(bias);
  } catch (const std::exception& e) {
    s.toyError = e.what();
  }
}

}  // namespace

SmallMultipleLayout smallMultipleLayout(int count, float width, float height, float gap, float minCell, float maxCell) {
  SmallMultipleLayout best;
  if (count <= 0) return best;
  minCell = std::min(minCell, maxCell);
  // The largest cell with which every grid fits the region, over every count per row.
  for (int perRow = 1; perRow <= count; ++perRow) {
    const float cell = std::min(maxCell, (width - gap * static_cast<float>(perRow - 1)) / static_cast<float>(perRow));
    const int rows = (count + perRow - 1) / perRow;
    if (cell < minCell) break;
    if (static_cast<float>(rows) * (cell + gap) - gap <= height && cell > best.cell) best = {cell, perRow, rows};
  }
  if (best.cell > 0.0f) return best;
  // None fits: as many minCell grids per row as the width takes, and the region scrolls.
  best.perRow = std::clamp(static_cast<int>((width + gap) / (minCell + gap)), 1, count);
  best.cell = std::max(minCell, std::min(maxCell, (width - gap * static_cast<float>(best.perRow - 1)) / static_cast<float>(best.perRow)));
  best.rows = (count + best.perRow - 1) / best.perRow;
  return best;
}

void applyAlibiConfig(AlibiPanelState& s, const cli::ModelConfig& c, ConfigNotes& notes) {
  const auto reading = cli::readAlibiConfig(c);
  if (!reading) return;
  if (reading->heads) {
    s.numHeads = static_cast<int>(fitConfigParam("ALiBi", "num_attention_heads", table::kTabHeads, *reading->heads, notes));
  }
  s.selectedHead = std::min(s.selectedHead, s.numHeads - 1);
  s.dirty = true;
}

namespace {

// What a worker needs to make the pictures: no reference into the panel's state.
struct PictureInputs {
  std::vector<double> slopes;          // the shown heads'
  std::vector<HeatmapWindow> windows;  // per shown head: what its view asked for
  std::vector<ValueRange> ranges;      // per shown head: its grid's finite range
  int heads = 0, positions = 0;
  bool causal = true, sharedScale = true;
  ValueRange sharedRange;
};

// Each head's range from core's corners: 0 on the diagonal, the farthest key's bias at row T-1.
ValueRange headRange(double slope, int positions, bool causal) {
  return {static_cast<float>(alibiBias(slope, positions - 1, 0, causal)), static_cast<float>(alibiBias(slope, 0, 0, causal))};
}

PictureInputs pictureInputs(const AlibiPanelState& s) {
  PictureInputs in;
  const int shown = std::min(shownHeads(s), static_cast<int>(s.slopes.size()));
  in.slopes.assign(s.slopes.begin(), s.slopes.begin() + shown);
  // A head no view has asked for yet (scrolled out of sight) gets the whole grid at the size the
  // drawn heads' unzoomed views ask for, so it is ready when scrolled to; before any view has
  // asked, 256 display cells at most.
  const int out = std::min(s.numPositions, 256);
  HeatmapWindow unseen = fullWindow(s.numPositions, s.numPositions, out, out);
  for (int h = 0; h < shown; ++h) {
    const HeatmapWindow& w = s.smallMaps[static_cast<std::size_t>(h)].wanted;
    if (windowInside(w, s.numPositions, s.numPositions) && w.row0 == 0 && w.col0 == 0 && w.rows == s.numPositions &&
        w.cols == s.numPositions) {
      unseen = w;
      break;
    }
  }
  for (int h = 0; h < shown; ++h) {
    const HeatmapWindow& want = s.smallMaps[static_cast<std::size_t>(h)].wanted;
    in.windows.push_back(windowInside(want, s.numPositions, s.numPositions) ? want : unseen);
    in.ranges.push_back(headRange(in.slopes[static_cast<std::size_t>(h)], s.numPositions, s.causal));
  }
  in.heads = s.numHeads;
  in.positions = s.numPositions;
  in.causal = s.causal;
  in.sharedScale = s.sharedScale;
  in.sharedRange = s.sharedRange;
  return in;
}

// Heads sharing a window (all of them, unless one view is zoomed) share one core call.
AlibiPictures makePictures(const PictureInputs& in) {
  AlibiPictures out;
  out.images.resize(static_cast<std::size_t>(in.heads));
  HeatmapSpec colors;
  colors.colormap = Colormap::Viridis;
  colors.fixedRange = in.sharedScale;
  colors.rangeMin = in.sharedRange.min;
  colors.rangeMax = in.sharedRange.max;
  std::vector<bool> done(in.slopes.size(), false);
  for (std::size_t h = 0; h < in.slopes.size(); ++h) {
    if (done[h]) continue;
    std::vector<std::size_t> group;
    std::vector<double> slopes;
    for (std::size_t k = h; k < in.slopes.size(); ++k)
      if (!done[k] && in.windows[k] == in.windows[h]) {
        group.push_back(k);
        slopes.push_back(in.slopes[k]);
        done[k] = true;
      }
    const std::vector<ExactPicture> pics = alibiExactPictures(slopes, in.causal, in.windows[h]);
    for (std::size_t g = 0; g < group.size(); ++g) {
      HeatmapImage& img = out.images[group[g]];
      img.window = in.windows[h];
      img.cells = narrowPicture(pics[g]);
      img.range = in.ranges[group[g]];
      img.logicalRows = img.logicalCols = in.positions;
      colorHeatmapImage(img, colors);
    }
  }
  return out;
}

// New pictures in place of the old: a head's view keeps its last picture until then. Pictures
// made for an earlier head count are shown too (the latest finished wins while the count is
// dragged; the status bar says the next is being made), each in its head's place.
void applyPictures(AlibiPanelState& s, AlibiPictures p) {
  for (std::size_t h = 0; h < p.images.size() && h < s.smallImages.size(); ++h) {
    if (p.images[h].cells.values.empty()) continue;
    p.images[h].version = ++s.version;
    s.smallImages[h] = std::move(p.images[h]);
  }
}

// Slopes, the colour scale and the toy attention: cheap, at once. False on bad input.
bool updateParameters(AlibiPanelState& s) {
  s.error.clear();
  try {
    s.slopes = alibiSlopes(s.numHeads);
  } catch (const std::exception& e) {
    s.error = e.what();
    return false;
  }
  s.selectedHead = std::clamp(s.selectedHead, 0, s.numHeads - 1);
  if (s.viewPositions != s.numPositions) {  // a view zoomed into the old size would be stale
    s.viewPositions = s.numPositions;
    for (HeatmapState& hs : s.smallMaps) {
      hs.resetView();
      hs.wanted = {};
    }
  }
  for (std::size_t h = static_cast<std::size_t>(s.numHeads); h < s.smallMaps.size(); ++h) releaseHeatmap(s.smallMaps[h]);
  s.smallMaps.resize(static_cast<std::size_t>(s.numHeads));
  s.smallImages.resize(static_cast<std::size_t>(s.numHeads));
  const int shown = shownHeads(s);
  for (int h = 0; h < shown; ++h) {
    const ValueRange r = headRange(s.slopes[static_cast<std::size_t>(h)], s.numPositions, s.causal);
    s.sharedRange = h == 0 ? r : ValueRange{std::min(s.sharedRange.min, r.min), std::max(s.sharedRange.max, r.max)};
  }
  for (std::size_t h = static_cast<std::size_t>(shown); h < s.smallImages.size(); ++h) s.smallImages[h] = HeatmapImage{};
  computeToy(s);
  if (s.viewTokens != static_cast<int>(s.tokens.size())) {
    s.viewTokens = static_cast<int>(s.tokens.size());
    for (HeatmapState* hs : {&s.plainMap, &s.biasMap, &s.biasedMap}) {
      hs->resetView();
      hs->wanted = {};
    }
  }
  refreshImage(s.weightsPlain, s.plainMap, s.plainImage, s.version, true, 256);
  refreshImage(s.toyBias, s.biasMap, s.biasImage, s.version, true, 256);
  refreshImage(s.weightsBiased, s.biasedMap, s.biasedImage, s.version, true, 256);
  return true;
}

// The window's path: parameters at once, pictures on the worker (the latest request wins).
void requestAlibi(AlibiPanelState& s) {
  if (s.dirty) {
    s.dirty = false;
    s.picturesDirty = updateParameters(s);
  }
  if (s.picturesDirty) {
    s.picturesDirty = false;
    s.pictures.request([in = pictureInputs(s)](JobControl&) { return makePictures(in); });
  }
  if (s.pictures.poll()) {
    if (AlibiPictures* p = s.pictures.result()) applyPictures(s, std::move(*p));
    s.computeMs = s.pictures.millis();
  }
  if (!s.pictures.error().empty()) s.error = s.pictures.error();
}

}  // namespace

void updateAlibiPanel(AlibiPanelState& s, AppContext&) {
  if (!s.dirty) return;
  s.dirty = false;
  const auto t0 = std::chrono::steady_clock::now();
  if (updateParameters(s)) {
    try {
      applyPictures(s, makePictures(pictureInputs(s)));
    } catch (const std::exception& e) {
      s.error = e.what();
    }
  }
  s.picturesDirty = false;
  s.computeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: parameters and slopes
//-----------------------------------------------------------------------------

namespace {

void drawParameters(AlibiPanelState& s, float scale) {
  ImGui::TextUnformatted("ALiBi: a linear penalty per head, no embedding");
  ImGui::Separator();
  ImGui::PushItemWidth(190.0f * scale);
  if (paramSlider(table::kTabHeads, s.numHeads,
                  "n heads. A power of two: m_h = 2^(-8h/n), h = 1..n. Otherwise p = largest power of two\n"
                  "below n: the p-head slopes, then every other slope of 2p heads (1st, 3rd, ...) until n."))
    s.dirty = true;
  if (paramSlider(table::kTabPositions, s.numPositions, "Query positions i and key positions j = 0 .. T-1 of each bias grid B_h(i, j).")) {
    s.dirty = true;
  }
  int mode = s.causal ? 0 : 1;
  bool modeChanged = ImGui::RadioButton("causal", &mode, 0);
  ImGui::SameLine();
  modeChanged |= ImGui::RadioButton("symmetric", &mode, 1);
  if (modeChanged) {
    s.causal = mode == 0;
    s.dirty = true;
  }
  HelpMarker("causal: B(i, j) = -m (i - j) for j <= i; j > i is masked (-inf: the future is not attended).\n"
             "symmetric: B(i, j) = -m |i - j| (encoders).");
  if (ImGui::Checkbox("show all heads", &s.showAll)) s.dirty = true;
  HelpMarker("Small multiples of every head, or only the first few.");
  if (!s.showAll) {
    if (paramSlider(table::kTabFirstHeads, s.smallCount, "How many heads get a small bias grid.")) s.dirty = true;
  }
  ImGui::Checkbox("one colour scale", &s.sharedScale);
  HelpMarker("On: every small grid uses the steepest head's range, so weak slopes look flat, as they act.\n"
             "Off: each grid its own range, to see the shape of every head.");
  ImGui::Checkbox("log slope axis", &s.logSlopes);
  HelpMarker("On a log axis the geometric sequence 2^(-8h/n) is a straight line.");

  ImGui::Separator();
  ImGui::TextUnformatted("Toy attention through softmax");
  int head = s.selectedHead + 1;
  if (paramSlider(table::kHead, head, "The head whose bias B_h is added: softmax(x_i . x_j / sqrt(d) + B_h(i, j)). Click a small grid too.",
                  SliderSpan{1, static_cast<double>(s.numHeads)})) {
    s.selectedHead = head - 1;
    s.dirty = true;
  }
  ImGui::TextUnformatted("sentence");
  ImGui::PushItemWidth(-1.0f);
  if (inputTextString("##sentence", s.sentence)) s.dirty = true;
  ImGui::PopItemWidth();
  HelpMarker("Words split on spaces; each word gets a fixed toy embedding, the same vector\n"
             "wherever it appears.");
  if (paramSlider(toy::kDModel, s.toyDModel, "Width of the toy embeddings x. Scores are x_i . x_j / sqrt(d_model).")) s.dirty = true;
  if (paramSlider(toy::kSeed, s.toySeed, "Each word's vector is d_model random normal numbers drawn from the seed and the word itself.")) {
    s.dirty = true;
  }
  ImGui::PopItemWidth();
}

void drawSlopes(const AlibiPanelState& s, float height) {
  const int n = s.numHeads;
  const int p = static_cast<int>(std::bit_floor(static_cast<unsigned>(n)));
  if (p == n) {
    ImGui::Text("n = %d is a power of two: m_h = 2^(-8h/%d), a geometric sequence from 2^(-8/%d)", n, n, n);
  } else {
    const std::string rest = p + 1 == n ? "head " + std::to_string(n) + " takes the 1st slope of " + std::to_string(2 * p) + " heads"
                                        : "heads " + std::to_string(p + 1) + "-" + std::to_string(n) +
                                              " take every other slope of " + std::to_string(2 * p) + " heads (the 1st, 3rd, 5th, ...)";
    ImGui::Text("closest power of two p = %d: heads 1-%d take the %d-head slopes, then %s", p, p, p, rest.c_str());
  }
  PlotSpec ps;
  ps.title = "slope m_h by head, in get_slopes order";
  ps.xTitle = "head (numbered from 1)";
  ps.xTip = "h = 1 .. n, the order in which get_slopes lists the slopes (Press et al. 2022, ALiBi).";
  ps.yTitle = "how fast the penalty grows per token of distance";
  ps.yTip = "slope m_h: head h adds -m_h * (i - j) to the score of query i and key j.\n"
            "Power-of-two n: m_h = 2^(-8h/n).";
  ps.logY = s.logSlopes;
  ps.legendOutside = true;   // the legend and y title sit outside: the axis can hug the data
  if (!s.slopes.empty()) {
    const auto [lo, hi] = std::minmax_element(s.slopes.begin(), s.slopes.end());
    const AxisRange r = fittedAxis(*lo, *hi, s.logSlopes);
    ps.fixedY = true;
    ps.yMin = r.lo;
    ps.yMax = r.hi;
  }
  PlotSeries g1, g2;
  g1.label = p == n ? "2^(-8h/" + std::to_string(n) + ")" : "first " + std::to_string(p) + ": slopes of " + std::to_string(p) + " heads";
  g2.label = "then every other slope of " + std::to_string(2 * p) + " heads";
  g1.scatter = g2.scatter = true;
  g1.color = plotColor(0);
  g2.color = plotColor(1);
  for (int h = 0; h < static_cast<int>(s.slopes.size()); ++h) {
    PlotSeries& g = h < p ? g1 : g2;
    g.x.push_back(static_cast<double>(h + 1));
    g.y.push_back(s.slopes[static_cast<std::size_t>(h)]);
  }
  ps.series.push_back(std::move(g1));
  if (!g2.x.empty()) ps.series.push_back(std::move(g2));
  if (s.selectedHead < static_cast<int>(s.slopes.size())) {
    PlotSeries sel;
    sel.label = "head " + std::to_string(s.selectedHead + 1) + " (toy attention)";
    sel.scatter = true;
    sel.thickness = 4.0f;
    sel.color = themed(IM_COL32(255, 255, 255, 230));
    sel.x = {static_cast<double>(s.selectedHead + 1)};
    sel.y = {s.slopes[static_cast<std::size_t>(s.selectedHead)]};
    ps.series.push_back(std::move(sel));
  }
  const PlotHover hv = drawPlot("alibi-slopes", ps, 0.0f, height);
  if (hv.active && !s.slopes.empty()) {
    const int h = std::clamp(static_cast<int>(std::lround(hv.x)), 1, n);
    ImGui::BeginTooltip();
    ImGui::Text("head %d: m = %s (%s)", h, formatShort(s.slopes[static_cast<std::size_t>(h - 1)], 6).c_str(),
                h <= p ? ("slope " + std::to_string(h) + " of " + std::to_string(p) + " heads").c_str()
                       : ("slope " + std::to_string(2 * (h - p) - 1) + " of " + std::to_string(2 * p) + " heads").c_str());
    ImGui::EndTooltip();
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: small multiples and the toy attention
//-----------------------------------------------------------------------------

HeatmapSpec biasSpec(double slope, int t, bool causal) {
  HeatmapSpec spec;
  spec.logicalRows = t;
  spec.logicalCols = t;
  spec.rowAxis = {"query token", 0.0, 1.0};
  spec.colAxis = {"key token", 0.0, 1.0};
  spec.rowTip = "i: the position that attends.";
  spec.colTip = causal ? "j: the position attended to. B(i, j) = -m (i - j) for j <= i; j > i is masked."
                       : "j: the position attended to. B(i, j) = -m |i - j|.";
  spec.valueName = "bias";
  spec.colormap = Colormap::Viridis;
  spec.exactValue = [slope, causal](long long r, long long c) { return alibiBias(slope, r, c, causal); };
  spec.formula = [slope, causal](long long r, long long c) {
    const double v = alibiBias(slope, r, c, causal);
    if (causal && c > r) return std::string("masked: key j > query i (future); -inf, weight 0 after softmax");
    const std::string m = formatShort(slope, 5);
    return causal ? "-m (i - j) = -" + m + " * (" + std::to_string(r) + " - " + std::to_string(c) + ") = " + formatShort(v, 5)
                  : "-m |i - j| = -" + m + " * |" + std::to_string(r) + " - " + std::to_string(c) + "| = " + formatShort(v, 5);
  };
  spec.maskedReason = "masked (causal): key j comes after query i, so the bias is -inf and the softmax weight is 0";
  return spec;
}

// "head 3, m = 0.125": the grid's label (heads numbered from 1, as in the documents).
std::string headLabel(int head, double slope) { return "head " + std::to_string(head + 1) + ", m = " + formatShort(slope, 3); }

void drawSmallMultiples(AlibiPanelState& s, float scale) {
  const int shown = std::min(shownHeads(s), static_cast<int>(s.smallImages.size()));
  const float labelH = ImGui::GetTextLineHeightWithSpacing();
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  // Never narrower than the longest label, so labels do not run together.
  float minCell = 120.0f * scale;
  for (int h = 0; h < shown; ++h)
    minCell = std::max(minCell, ImGui::CalcTextSize(headLabel(h, s.slopes[static_cast<std::size_t>(h)]).c_str()).x + gap);
  // Every head is drawn: as large as fits the region, never below minCell (then the region scrolls).
  const SmallMultipleLayout lay = smallMultipleLayout(shown, ImGui::GetContentRegionAvail().x, ImGui::GetContentRegionAvail().y,
                                                      gap, minCell, 320.0f * scale);
  for (int h = 0; h < shown; ++h) {
    const auto idx = static_cast<std::size_t>(h);
    if (h % lay.perRow != 0) ImGui::SameLine();
    // A head scrolled out of sight keeps its place and costs nothing: no label, spec or grid to
    // build, no vertices for the rasterizer (128 heads drew 38,000 vertices a frame, most unseen).
    // A head chosen with the toy's head slider is scrolled into view once.
    const bool scrollHere = h == s.selectedHead && s.scrolledToHead != s.selectedHead;
    const bool sized = s.headCellW > 0.0f && s.headCellFor == lay.cell;
    if (sized && !scrollHere && !ImGui::IsRectVisible(ImVec2(s.headCellW, s.headCellH))) {
      ImGui::Dummy(ImVec2(s.headCellW, s.headCellH));
      continue;
    }
    ImGui::BeginGroup();
    ImGui::PushID(h);
    const double slope = s.slopes[idx];
    const std::string title = headLabel(h, slope);
    if (h == s.selectedHead) ImGui::TextColored(themed(ImVec4(1.0f, 0.85f, 0.3f, 1.0f)), "%s", title.c_str());
    else ImGui::TextUnformatted(title.c_str());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("head %d of %d: bias B(i, j) = %s, m = %s", h + 1, s.numHeads, s.causal ? "-m (i - j)" : "-m |i - j|",
                        slopeLabel(slope).c_str());
    HeatmapSpec spec = biasSpec(slope, s.numPositions, s.causal);
    spec.title = "ALiBi bias, " + title;
    spec.fixedRange = s.sharedScale;  // one scale for all heads: steeper slopes are visibly darker
    spec.rangeMin = s.sharedRange.min;
    spec.rangeMax = s.sharedRange.max;
    spec.onClick = [&s, h](long long, long long) {
      s.selectedHead = h;
      s.scrolledToHead = h;   // in view already: no jump
      s.dirty = true;
    };
    HeatmapState& hs = s.smallMaps[idx];
    hs.showColorbar = false;
    if (drawHeatmap("bias", hs, spec, s.smallImages[idx], lay.cell, lay.cell - labelH))
      s.picturesDirty = true;   // the view asked for another window (zoom, pan or size)
    ImGui::PopID();
    ImGui::EndGroup();
    s.headCellW = ImGui::GetItemRectSize().x;
    s.headCellH = ImGui::GetItemRectSize().y;
    s.headCellFor = lay.cell;
    if (scrollHere) {
      ImGui::SetScrollHereY(0.5f);
      s.scrolledToHead = h;
    }
  }
}

void drawToy(AlibiPanelState& s, float width, float height) {
  if (!s.toyError.empty()) {
    ErrorText("toy attention: " + s.toyError);
    return;
  }
  if (s.weightsPlain.values.empty() || s.tokens.size() != static_cast<std::size_t>(s.weightsPlain.rows)) return;
  std::string words;
  for (std::size_t i = 0; i < s.tokens.size(); ++i) words += std::to_string(i) + ":" + s.tokens[i] + "  ";
  ImGui::TextDisabled("%s", words.c_str());
  const float w = (width - 2.0f * ImGui::GetStyle().ItemSpacing.x) / 3.0f;
  const float h = std::max(120.0f, height - ImGui::GetTextLineHeightWithSpacing() * 2.0f);
  const double slope = s.slopes[static_cast<std::size_t>(s.selectedHead)];

  ImGui::BeginGroup();
  ImGui::TextUnformatted("softmax(x.x / sqrt(d)): no position");
  HeatmapSpec plain = attentionWeightSpec(s.weightsPlain, s.tokens, s.tokens, "softmax weight without bias");
  plain.rowTip = "query token i (the word that attends).";
  plain.colTip = "key token j. Weight = softmax_j(x_i . x_j / sqrt(d)): each row sums to 1.";
  if (drawHeatmap("toy-plain", s.plainMap, plain, s.plainImage, w, h))
    refreshImage(s.weightsPlain, s.plainMap, s.plainImage, s.version, false, 256);
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::Text("+ bias of head %d (m = %s)", s.selectedHead + 1, formatShort(slope, 4).c_str());
  if (drawHeatmap("toy-bias", s.biasMap, biasSpec(slope, s.toyBias.rows, s.causal), s.biasImage, w, h))
    refreshImage(s.toyBias, s.biasMap, s.biasImage, s.version, false, 256);
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::TextUnformatted("= softmax(x.x / sqrt(d) + B): with ALiBi");
  HeatmapSpec biased = attentionWeightSpec(s.weightsBiased, s.tokens, s.tokens, "softmax weight with ALiBi bias");
  biased.rowTip = plain.rowTip;
  biased.colTip = "key token j. Weight = softmax_j(x_i . x_j / sqrt(d) + B_h(i, j)): each row sums to 1.";
  if (drawHeatmap("toy-biased", s.biasedMap, biased, s.biasedImage, w, h))
    refreshImage(s.weightsBiased, s.biasedMap, s.biasedImage, s.version, false, 256);
  ImGui::EndGroup();
}

}  // namespace

void drawAlibiPanel(AlibiPanelState& s, AppContext& ctx) {
  const float scale = ctx.uiScale;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float leftW = std::min(380.0f * scale, avail.x * 0.3f);

  ImGui::BeginChild("alibi-params", ImVec2(leftW, avail.y), true);
  drawParameters(s, scale);
  requestAlibi(s);
  if (!s.error.empty()) ErrorText(s.error);
  ImGui::EndChild();
  ImGui::SameLine();

  ImGui::BeginChild("alibi-views", ImVec2(0, avail.y), false);
  const ImVec2 va = ImGui::GetContentRegionAvail();
  drawSlopes(s, std::max(150.0f * scale, va.y * 0.22f));
  const std::string scaleText = s.sharedScale ? "one colour scale from " + formatShort(s.sharedRange.min, 4) + " (dark) to " +
                                                   formatShort(s.sharedRange.max, 4) + " (yellow)"
                                             : "each its own colour scale";
  ImGui::Text("bias B_h(i, j) per head, %s, %s", s.causal ? "causal (grey = masked)" : "symmetric", scaleText.c_str());
  HelpMarker("Each small grid is one head's bias over query i (rows) and key j (columns). Steeper slopes fall\n"
             "off faster from the diagonal. Click a grid to use that head in the toy attention below.");
  const float toyH = std::max(200.0f * scale, va.y * 0.3f);
  ImGui::BeginChild("alibi-small", ImVec2(0, std::max(120.0f, ImGui::GetContentRegionAvail().y - toyH)), true);
  drawSmallMultiples(s, scale);
  ImGui::EndChild();
  drawToy(s, ImGui::GetContentRegionAvail().x, ImGui::GetContentRegionAvail().y);
  ImGui::EndChild();

  ctx.status.backend = "CPU";
  ctx.status.gridSize = std::to_string(shownHeads(s)) + " heads x " + formatGridSize(s.numPositions, s.numPositions);
  ctx.status.computeMs = s.computeMs;
  ctx.status.busy = s.pictures.busy() || s.picturesDirty;
  ctx.status.progress = -1.0f;
}

namespace {

// File > Export: the selected head's bias grid as alibi-bias writes it, and every head's slope.
ExportableView alibiExports(const AlibiPanelState& s) {
  ExportableView ex;
  if (s.slopes.empty()) return ex;
  const int heads = static_cast<int>(s.slopes.size());   // the heads the grids were drawn for
  const int head = std::clamp(s.selectedHead, 0, heads - 1);
  const double slope = s.slopes[static_cast<std::size_t>(head)];
  ex.name = "alibi-bias-head" + std::to_string(head + 1);
  ex.caption = "heads=" + std::to_string(heads) + " head=" + std::to_string(head + 1) + " slope=" +
               formatShort(slope, 6) + " T=" + std::to_string(s.numPositions) + (s.causal ? " causal" : " symmetric");
  ex.rowTitle = "query i";
  ex.colTitle = "key j";
  ex.valueName = "bias";
  ex.colormap = Colormap::Viridis;
  cli::ViewCall call{"alibi-bias"};
  call.set(table::kHeads, heads).set(table::kHead, head + 1).set(table::kPositions, s.numPositions).on(table::kCausal, s.causal);
  ex.call = std::move(call);
  ex.plotColumnNames = {"head", "slope"};
  ex.plotColumns = [slopes = s.slopes] {
    std::vector<double> numbers;
    for (std::size_t h = 0; h < slopes.size(); ++h) numbers.push_back(static_cast<double>(h + 1));
    return std::vector<std::vector<double>>{std::move(numbers), slopes};
  };
  return ex;
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Settings
//-----------------------------------------------------------------------------

// Every parameter the tab keeps with the member that holds it: save and load walk this one list.
template <class State, class Visit>
void eachAlibiPanelParam(State& s, Visit&& visit) {
  visit(table::kTabHeads, s.numHeads);
  visit(table::kTabPositions, s.numPositions);
  visit(table::kTabFirstHeads, s.smallCount);
  visit(toy::kDModel, s.toyDModel);
  visit(toy::kSeed, s.toySeed);
}

void saveAlibiPanel(const AlibiPanelState& s, nlohmann::json& j) {
  eachAlibiPanelParam(s, ParamSaver{j});
  j["causal"] = s.causal;
  j["show_all"] = s.showAll;
  cli::saveParam(j, table::kHead, s.selectedHead + 1);
  j["log_slopes"] = s.logSlopes;
  j["sentence"] = s.sentence;
}

void loadAlibiPanel(AlibiPanelState& s, const nlohmann::json& j) {
  eachAlibiPanelParam(s, ParamLoader{j});
  readSetting(j, "causal", s.causal);
  readSetting(j, "show_all", s.showAll);
  if (int head = s.selectedHead + 1; cli::loadParam(j, table::kHead, head) && head <= s.numHeads) s.selectedHead = head - 1;
  readSetting(j, "log_slopes", s.logSlopes);
  readSetting(j, "sentence", s.sentence);
  s.dirty = true;
}


// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

void tweakAlibi(AppState& a) {
  a.alibi.causal = !a.alibi.causal;
  a.alibi.dirty = true;
}

}  // namespace

const PanelDef kAlibiPanel{"alibi", [](AppState& a, AppContext& c) { drawAlibiPanel(a.alibi, c); },
    [](AppState& a, const cli::ModelConfig& m, ConfigNotes& n) { applyAlibiConfig(a.alibi, m, n); },
    [](const AppState& a, nlohmann::json& j) { saveAlibiPanel(a.alibi, j); }, [](AppState& a, const nlohmann::json& j) { loadAlibiPanel(a.alibi, j); }, tweakAlibi,
    nullptr, nullptr, nullptr, nullptr, [](const AppState& a) { return alibiExports(a.alibi); }};

}  // namespace posviz::app
