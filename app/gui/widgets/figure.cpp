#include "app/gui/widgets/figure.hpp"
#include "app/gui/widgets/theme.hpp"

#include "app/gui/widgets/figure_export.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/colormap.hpp"
#include "core/lessons/claims.hpp"

namespace posviz::app {

namespace {

using namespace posviz::learn;

float fl(int v) { return static_cast<float>(v); }

ImU32 withAlpha(ImU32 c, float a) {
  const ImU32 alpha = static_cast<ImU32>(static_cast<float>((c >> IM_COL32_A_SHIFT) & 0xFF) * std::clamp(a, 0.0f, 1.0f));
  return (c & ~IM_COL32_A_MASK) | (alpha << IM_COL32_A_SHIFT);
}

const ImU32 kText = IM_COL32(230, 232, 238, 255);
const ImU32 kDim = IM_COL32(150, 156, 170, 255);
const ImU32 kAxis = IM_COL32(110, 116, 130, 255);
const ImU32 kHighlight = IM_COL32(255, 214, 64, 255);
const ImU32 kSeries[] = {IM_COL32(90, 170, 255, 255), IM_COL32(255, 140, 80, 255), IM_COL32(120, 220, 130, 255),
                         IM_COL32(170, 170, 180, 200)};

ImU32 seriesColour(int i) { return themed(kSeries[std::clamp(i, 0, 3)]); }

// formatFixed, without the sign of a value that rounds to zero ("-0.000").
std::string num(double v, int decimals) {
  std::string s = formatFixed(v, decimals);
  if (s.starts_with("-") && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

// The exact value under the mouse.
std::string full(double v) { return formatGeneral(v, 10); }

void centredText(ImDrawList* dl, ImVec2 centre, ImU32 col, const std::string& t) {
  const ImVec2 sz = ImGui::CalcTextSize(t.c_str());
  dl->AddText(ImVec2(centre.x - sz.x * 0.5f, centre.y - sz.y * 0.5f), col, t.c_str());
}

// --- cell grids ------------------------------------------------------------------------------

// Where a grid's cells go inside its rectangle.
struct GridLayout {
  float left = 0, top = 0;   // the first cell's corner
  float cell = 0, cw = 0;    // cell height and width
  bool printValues = false;  // small grids print their values
};

// Colour scale over the finite values: diverging around 0 for signed data.
ColorScale gridScale(const CellGrid& g) {
  const ValueRange r = finiteRange(g.grid);
  ColorScale scale;
  scale.map = g.symmetric ? Colormap::RdBu : Colormap::Viridis;
  if (g.symmetric) {
    const float m = std::max(std::abs(r.min), std::abs(r.max));
    scale.min = -m;
    scale.max = m > 0 ? m : 1.0f;
  } else {
    scale.min = r.min;
    scale.max = r.max > r.min ? r.max : r.min + 1.0f;
  }
  return scale;
}

// Axis titles and row / column labels (every one when they fit; the highlighted ones always).
void drawGridLabels(ImDrawList* dl, const CellGrid& g, ImVec2 at, const GridLayout& L, float alpha) {
  const float line = ImGui::GetTextLineHeight();
  const float left = L.left, top = L.top, cell = L.cell, cw = L.cw;
  if (!g.colTitle.empty()) centredText(dl, ImVec2(left + cw * fl(g.grid.cols) * 0.5f, at.y + line * 1.9f), withAlpha(themed(kDim), alpha), g.colTitle);
  if (!g.rowTitle.empty()) {
    const std::string t = g.rowTitle;
    dl->AddText(ImVec2(at.x, top - line * 1.2f), withAlpha(themed(kDim), alpha), t.c_str());
  }
  const int labelEvery = std::max(1, static_cast<int>(std::ceil(ImGui::CalcTextSize("0000").x / cw)));
  for (int c = 0; c < g.grid.cols; ++c) {
    if (c % labelEvery != 0 && c != g.highlightCol) continue;
    const std::string l = c < static_cast<int>(g.colLabels.size()) ? g.colLabels[static_cast<std::size_t>(c)] : std::to_string(c);
    centredText(dl, ImVec2(left + cw * (fl(c) + 0.5f), top - line * 0.6f), withAlpha(c == g.highlightCol ? themed(kHighlight) : themed(kDim), alpha), l);
  }
  const int rowEvery = std::max(1, static_cast<int>(std::ceil(line / cell)));
  for (int r = 0; r < g.grid.rows; ++r) {
    if (r % rowEvery != 0 && r != g.highlightRow) continue;
    const std::string l = r < static_cast<int>(g.rowLabels.size()) ? g.rowLabels[static_cast<std::size_t>(r)] : std::to_string(r);
    const ImVec2 sz = ImGui::CalcTextSize(l.c_str());
    dl->AddText(ImVec2(left - sz.x - 6.0f, top + cell * (fl(r) + 0.5f) - sz.y * 0.5f), withAlpha(r == g.highlightRow ? themed(kHighlight) : themed(kDim), alpha), l.c_str());
  }
}

// The cells: colour, value (small grids), hatching for rows that do not exist, exact value on hover.
void drawGridCells(ImDrawList* dl, const CellGrid& g, const GridLayout& L, const ColorScale& scale, float alpha) {
  const float left = L.left, top = L.top, cell = L.cell, cw = L.cw;
  const bool printValues = L.printValues;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (int r = 0; r < g.grid.rows; ++r) {
    for (int c = 0; c < g.grid.cols; ++c) {
      const float v = g.grid.at(r, c);
      const ImVec2 a(left + cw * fl(c), top + cell * fl(r)), b(left + cw * fl(c + 1), top + cell * fl(r + 1));
      const bool missing = g.noDataRowsFrom >= 0 && r >= g.noDataRowsFrom;
      if (missing || std::isnan(v)) {
        dl->AddRectFilled(a, b, withAlpha(themed(IM_COL32(40, 42, 50, 255)), alpha));
        for (float x = a.x - (b.y - a.y); x < b.x; x += 7.0f)
          dl->AddLine(ImVec2(std::max(x, a.x), a.y + std::max(0.0f, a.x - x)), ImVec2(std::min(x + (b.y - a.y), b.x), b.y - std::max(0.0f, x + (b.y - a.y) - b.x)),
                      withAlpha(themed(IM_COL32(90, 90, 100, 255)), alpha));
        continue;
      }
      if (std::isinf(v)) {
        dl->AddRectFilled(a, b, withAlpha(themed(IM_COL32(30, 30, 34, 255)), alpha));
        if (printValues) centredText(dl, ImVec2((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f), withAlpha(themed(kDim), alpha), "masked");
        continue;
      }
      const Rgba8 col = mapValue(scale, v);
      dl->AddRectFilled(a, b, withAlpha(IM_COL32(col.r, col.g, col.b, 255), alpha));
      if (printValues) {
        const float lum = 0.299f * col.r + 0.587f * col.g + 0.114f * col.b;
        centredText(dl, ImVec2((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f), withAlpha(lum > 140 ? IM_COL32(15, 15, 20, 255) : IM_COL32(245, 245, 250, 255), alpha),
                    num(v, g.decimals));
      }
      if (ImGui::IsWindowHovered() && mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y) {
        const std::string rl = r < static_cast<int>(g.rowLabels.size()) ? g.rowLabels[static_cast<std::size_t>(r)] : std::to_string(r);
        const std::string cl = c < static_cast<int>(g.colLabels.size()) ? g.colLabels[static_cast<std::size_t>(c)] : std::to_string(c);
        ImGui::SetTooltip("%s %s, %s %s: %s", g.rowTitle.empty() ? "row" : g.rowTitle.c_str(), rl.c_str(), g.colTitle.empty() ? "col" : g.colTitle.c_str(),
                          cl.c_str(), full(v).c_str());
      }
    }
  }
}

// The "no row" label over missing rows and the outline of the place the text talks about.
void drawGridMarks(ImDrawList* dl, const CellGrid& g, const GridLayout& L, float alpha) {
  const float left = L.left, top = L.top, cell = L.cell, cw = L.cw;
  if (g.noDataRowsFrom >= 0 && g.noDataRowsFrom < g.grid.rows && !g.noDataLabel.empty()) {
    const float y0 = top + cell * fl(g.noDataRowsFrom), y1 = top + cell * fl(g.grid.rows);
    const std::string t = g.noDataLabel + " (rows " + std::to_string(g.noDataRowsFrom) + "..." + std::to_string(g.grid.rows - 1) + ")";
    const ImVec2 sz = ImGui::CalcTextSize(t.c_str());
    const ImVec2 c((left + left + cw * fl(g.grid.cols)) * 0.5f, (y0 + y1) * 0.5f);
    dl->AddRectFilled(ImVec2(c.x - sz.x * 0.5f - 4, c.y - sz.y * 0.5f - 2), ImVec2(c.x + sz.x * 0.5f + 4, c.y + sz.y * 0.5f + 2), withAlpha(themed(IM_COL32(20, 20, 24, 230)), alpha));
    centredText(dl, c, withAlpha(themed(IM_COL32(255, 120, 110, 255)), alpha), t);
  }
  // The place the text talks about.
  if (g.highlightRow >= 0 && g.highlightRow < g.grid.rows) {
    const float y0 = top + cell * fl(g.highlightRow);
    if (g.highlightCol >= 0 && g.highlightCol < g.grid.cols)
      dl->AddRect(ImVec2(left + cw * fl(g.highlightCol), y0), ImVec2(left + cw * fl(g.highlightCol + 1), y0 + cell), withAlpha(themed(kHighlight), alpha), 0.0f, 0, 3.0f);
    else
      dl->AddRect(ImVec2(left, y0), ImVec2(left + cw * fl(g.grid.cols), y0 + cell), withAlpha(themed(kHighlight), alpha), 0.0f, 0, 3.0f);
  } else if (g.highlightCol >= 0 && g.highlightCol < g.grid.cols) {
    dl->AddRect(ImVec2(left + cw * fl(g.highlightCol), top), ImVec2(left + cw * fl(g.highlightCol + 1), top + cell * fl(g.grid.rows)), withAlpha(themed(kHighlight), alpha), 0.0f, 0, 3.0f);
  }
}

void drawGrid(const CellGrid& g, ImVec2 at, float w, float h, float alpha) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  dl->AddText(at, withAlpha(themed(kText), alpha), g.title.c_str());
  float labelW = ImGui::CalcTextSize("000").x;
  for (const std::string& l : g.rowLabels) labelW = std::max(labelW, ImGui::CalcTextSize(l.c_str()).x);
  GridLayout L;
  L.top = at.y + line * (g.colTitle.empty() ? 1.4f : 2.5f) + line;
  L.left = at.x + labelW + 8.0f + (g.rowTitle.empty() ? 0.0f : line * 1.2f);
  const float availW = w - (L.left - at.x), availH = h - (L.top - at.y);
  if (g.grid.rows <= 0 || g.grid.cols <= 0 || availW < 10 || availH < 10) return;
  L.printValues = g.grid.rows <= 16 && g.grid.cols <= 16;
  L.cell = std::min(availW / fl(g.grid.cols), availH / fl(g.grid.rows));
  if (L.printValues) L.cell = std::min(L.cell, 90.0f);
  L.cw = L.printValues ? std::min(availW / fl(g.grid.cols), L.cell * 1.6f) : L.cell;
  drawGridLabels(dl, g, at, L, alpha);
  drawGridCells(dl, g, L, gridScale(g), alpha);
  drawGridMarks(dl, g, L, alpha);
}

// --- dials -----------------------------------------------------------------------------------

void drawDials(const std::vector<Dial>& dials, ImVec2 at, float w, float h, float alpha) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int n = static_cast<int>(dials.size());
  const float line = ImGui::GetTextLineHeight();
  // The arrangement that gives the largest dials.
  int perRow = n;
  float radius = 0.0f;
  for (int k = 1; k <= n; ++k) {
    const int rowsK = (n + k - 1) / k;
    const float r = std::min(w / fl(k) * 0.5f - 12.0f, (h / fl(rowsK) - line * 3.4f) * 0.5f);
    if (r > radius) {
      radius = r;
      perRow = k;
    }
  }
  radius = std::max(radius, 8.0f);
  const int rows = (n + perRow - 1) / perRow;
  const float cellW = w / fl(perRow), cellH = h / fl(rows);
  for (int i = 0; i < n; ++i) {
    const Dial& d = dials[static_cast<std::size_t>(i)];
    const ImVec2 c(at.x + cellW * (fl(i % perRow) + 0.5f), at.y + cellH * fl(i / perRow) + radius + 6.0f);
    dl->AddCircleFilled(c, radius, withAlpha(themed(IM_COL32(32, 36, 46, 255)), alpha), 48);
    dl->AddCircle(c, radius, withAlpha(themed(kAxis), alpha), 48, 1.5f);
    dl->AddLine(ImVec2(c.x - radius, c.y), ImVec2(c.x + radius, c.y), withAlpha(themed(IM_COL32(70, 74, 86, 255)), alpha));
    dl->AddLine(ImVec2(c.x, c.y - radius), ImVec2(c.x, c.y + radius), withAlpha(themed(IM_COL32(70, 74, 86, 255)), alpha));
    for (const ClockHand& hand : d.hands) {
      const ImVec2 tip(c.x + static_cast<float>(std::cos(hand.angle)) * radius * static_cast<float>(hand.length),
                       c.y - static_cast<float>(std::sin(hand.angle)) * radius * static_cast<float>(hand.length));
      dl->AddLine(c, tip, withAlpha(seriesColour(0), alpha), 3.0f);
      dl->AddCircleFilled(tip, 4.0f, withAlpha(seriesColour(0), alpha));
    }
    dl->AddCircleFilled(c, 3.0f, withAlpha(themed(kText), alpha));
    // The label, wrapped to the cell.
    ImGui::SetCursorScreenPos(ImVec2(c.x - cellW * 0.5f + 6.0f, c.y + radius + 6.0f));
    ImGui::PushTextWrapPos(c.x + cellW * 0.5f - 6.0f - ImGui::GetWindowPos().x + ImGui::GetScrollX());  // local x
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(withAlpha(themed(kDim), alpha)));
    ImGui::TextWrapped("%s", d.label.c_str());
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
  }
}

// --- plane -----------------------------------------------------------------------------------

void drawPlane(const Plane& p, ImVec2 at, float w, float h, float alpha) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  double extent = 1.0;
  for (const Arrow& a : p.arrows) extent = std::max(extent, std::hypot(a.x, a.y));
  const float legendW = std::min(w * 0.42f, 360.0f);
  const float side = std::min(w - legendW, h);
  const float scale = side * 0.45f / static_cast<float>(extent);
  const ImVec2 o(at.x + side * 0.5f, at.y + h * 0.5f);
  dl->AddLine(ImVec2(o.x - side * 0.48f, o.y), ImVec2(o.x + side * 0.48f, o.y), withAlpha(themed(kAxis), alpha));
  dl->AddLine(ImVec2(o.x, o.y - side * 0.48f), ImVec2(o.x, o.y + side * 0.48f), withAlpha(themed(kAxis), alpha));
  dl->AddCircle(o, scale, withAlpha(themed(IM_COL32(70, 74, 86, 255)), alpha), 64, 1.0f);
  auto toScreen = [&](double x, double y) { return ImVec2(o.x + static_cast<float>(x) * scale, o.y - static_cast<float>(y) * scale); };
  if (p.arcFrom >= 0 && p.arcTo >= 0 && p.arcFrom < static_cast<int>(p.arrows.size()) && p.arcTo < static_cast<int>(p.arrows.size())) {
    const Arrow& a = p.arrows[static_cast<std::size_t>(p.arcFrom)];
    const Arrow& b = p.arrows[static_cast<std::size_t>(p.arcTo)];
    const double a0 = std::atan2(a.y, a.x);
    double a1 = std::atan2(b.y, b.x);
    double d = a1 - a0;
    while (d > M_PI) d -= 2 * M_PI;
    while (d < -M_PI) d += 2 * M_PI;
    const float r = scale * 0.35f;
    // Screen y points down: angles are negated.
    dl->PathArcTo(o, r, static_cast<float>(-a0), static_cast<float>(-(a0 + d)), 32);
    dl->PathStroke(withAlpha(themed(kHighlight), alpha), 0, 2.5f);
    const double mid = a0 + d * 0.5;
    const ImVec2 lp(o.x + static_cast<float>(std::cos(mid)) * (r + 14.0f), o.y - static_cast<float>(std::sin(mid)) * (r + 14.0f));
    const ImVec2 sz = ImGui::CalcTextSize(p.arcLabel.c_str());
    ImVec2 tp(lp.x - sz.x * 0.5f, lp.y - sz.y * 0.5f);
    dl->AddRectFilled(ImVec2(tp.x - 3, tp.y - 1), ImVec2(tp.x + sz.x + 3, tp.y + sz.y + 1), withAlpha(themed(IM_COL32(20, 22, 28, 220)), alpha));
    dl->AddText(tp, withAlpha(themed(kHighlight), alpha), p.arcLabel.c_str());
  }
  for (const Arrow& a : p.arrows) {
    const ImU32 col = withAlpha(a.colour == 3 ? themed(IM_COL32(140, 140, 150, 160)) : seriesColour(a.colour), alpha);
    const ImVec2 tip = toScreen(a.x, a.y);
    dl->AddLine(o, tip, col, a.colour == 3 ? 1.5f : 3.0f);
    const double ang = std::atan2(a.y, a.x);
    const float hs = 10.0f;
    const ImVec2 l(tip.x - hs * static_cast<float>(std::cos(ang - 0.4)), tip.y + hs * static_cast<float>(std::sin(ang - 0.4)));
    const ImVec2 rr(tip.x - hs * static_cast<float>(std::cos(ang + 0.4)), tip.y + hs * static_cast<float>(std::sin(ang + 0.4)));
    dl->AddTriangleFilled(tip, l, rr, col);
  }
  // Legend beside the plane, outside the data.
  float y = at.y + 8.0f;
  for (const Arrow& a : p.arrows) {
    const ImU32 col = withAlpha(a.colour == 3 ? themed(IM_COL32(140, 140, 150, 200)) : seriesColour(a.colour), alpha);
    const float lx = at.x + side + 12.0f;
    dl->AddLine(ImVec2(lx, y + 8), ImVec2(lx + 22, y + 8), col, 3.0f);
    char b[256];
    std::snprintf(b, sizeof b, "%s  (%.4f, %.4f)", a.label.c_str(), a.x, a.y);
    dl->AddText(ImVec2(lx + 30, y), withAlpha(themed(kText), alpha), b);
    y += ImGui::GetTextLineHeightWithSpacing() * 1.2f;
  }
}

// --- bars ------------------------------------------------------------------------------------

void drawBars(const Bars& b, ImVec2 at, float w, float h, float alpha) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  dl->AddText(at, withAlpha(themed(kText), alpha), b.title.c_str());
  const int n = static_cast<int>(b.values.size());
  if (n == 0) return;
  double lo = 0, hi = 0;
  for (double v : b.values) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (hi - lo <= 0) hi = lo + 1;
  const float left = at.x + 50.0f, top = at.y + line * 2.0f, bottom = at.y + h - line * 1.8f;
  const float bw = (w - 60.0f) / fl(n);
  auto yOf = [&](double v) { return bottom - static_cast<float>((v - lo) / (hi - lo)) * (bottom - top); };
  dl->AddLine(ImVec2(left, yOf(0)), ImVec2(left + bw * fl(n), yOf(0)), withAlpha(themed(kAxis), alpha));
  dl->AddText(ImVec2(at.x, top - line * 0.5f), withAlpha(themed(kDim), alpha), num(hi, 2).c_str());
  dl->AddText(ImVec2(at.x, bottom - line * 0.5f), withAlpha(themed(kDim), alpha), num(lo, 2).c_str());
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const int labelEvery = std::max(1, static_cast<int>(std::ceil(ImGui::CalcTextSize("000").x / bw)));
  for (int i = 0; i < n; ++i) {
    const double v = b.values[static_cast<std::size_t>(i)];
    const float x0 = left + bw * fl(i) + std::min(4.0f, bw * 0.15f), x1 = left + bw * fl(i + 1) - std::min(4.0f, bw * 0.15f);
    const float y0 = std::min(yOf(v), yOf(0)), y1 = std::max(yOf(v), yOf(0));
    dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, std::max(y1, y0 + 1.0f)), withAlpha(i == b.highlight ? themed(kHighlight) : seriesColour(i % 2 == 0 ? 0 : 0), alpha));
    if (n <= 8) {
      // The value inside the bar's far end (outside when the bar is too short to hold it).
      const bool inside = y1 - y0 > line * 1.6f;
      const float ty = v >= 0 ? (inside ? y0 + line * 0.7f : y0 - line * 0.6f) : (inside ? y1 - line * 0.7f : y1 + line * 0.6f);
      centredText(dl, ImVec2((x0 + x1) * 0.5f, ty), withAlpha(themed(kText), alpha), num(v, 4));
      ImGui::PushClipRect(ImVec2(x0 - bw * 0.1f, bottom), ImVec2(x1 + bw * 0.1f, at.y + h), true);
      centredText(dl, ImVec2((x0 + x1) * 0.5f, bottom + line * 1.0f), withAlpha(themed(kDim), alpha), b.labels[static_cast<std::size_t>(i)]);
      ImGui::PopClipRect();
    } else if (i % labelEvery == 0) {
      centredText(dl, ImVec2((x0 + x1) * 0.5f, bottom + line * 0.8f), withAlpha(themed(kDim), alpha), b.labels[static_cast<std::size_t>(i)]);
    }
    if (ImGui::IsWindowHovered() && mouse.x >= x0 && mouse.x < x1 && mouse.y >= top && mouse.y < bottom)
      ImGui::SetTooltip("%s: %s", b.labels[static_cast<std::size_t>(i)].c_str(), full(v).c_str());
  }
}

// --- table -----------------------------------------------------------------------------------

void drawTable(const TextTable& t, float w, float h) {
  ImGui::TextUnformatted(t.title.c_str());
  const int cols = static_cast<int>(t.header.size());
  if (cols == 0) return;
  // Columns as wide as their longest text (header or cell), the whole table scrolling inside h.
  std::vector<float> weight(static_cast<std::size_t>(cols), 1.0f);
  // A header may wrap to two lines: it counts half.
  for (int c = 0; c < cols; ++c) weight[static_cast<std::size_t>(c)] = std::max(7.0f, 0.5f * static_cast<float>(t.header[static_cast<std::size_t>(c)].size()));
  for (const auto& row : t.rows)
    for (int c = 0; c < cols && c < static_cast<int>(row.size()); ++c)
      weight[static_cast<std::size_t>(c)] = std::max(weight[static_cast<std::size_t>(c)], static_cast<float>(std::min<std::size_t>(row[static_cast<std::size_t>(c)].size(), 60)));
  const ImGuiTableFlags flags =
      ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_ScrollY;
  const float tableH = std::max(ImGui::GetTextLineHeightWithSpacing() * 3.0f, h - ImGui::GetTextLineHeightWithSpacing());
  if (ImGui::BeginTable("learn-table", cols, flags, ImVec2(w, tableH))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    for (int c = 0; c < cols; ++c)
      ImGui::TableSetupColumn(t.header[static_cast<std::size_t>(c)].c_str(), ImGuiTableColumnFlags_WidthStretch, weight[static_cast<std::size_t>(c)]);
    ImGui::TableHeadersRow();
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      ImGui::TableNextRow();
      if (static_cast<int>(r) == t.highlightRow) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, themed(IM_COL32(90, 80, 20, 140)));
      for (int c = 0; c < cols && c < static_cast<int>(t.rows[r].size()); ++c) {
        ImGui::TableSetColumnIndex(c);
        ImGui::TextWrapped("%s", t.rows[r][static_cast<std::size_t>(c)].c_str());
      }
    }
    ImGui::EndTable();
  }
}

// --- lines -----------------------------------------------------------------------------------

void drawLines(const Lines& l, ImVec2 at, float w, float h, float alpha) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  dl->AddText(at, withAlpha(themed(kText), alpha), l.title.c_str());
  // Legend above the data.
  float lx = at.x;
  const float ly = at.y + line * 1.4f;
  for (std::size_t i = 0; i < l.series.size(); ++i) {
    dl->AddLine(ImVec2(lx, ly + line * 0.5f), ImVec2(lx + 22, ly + line * 0.5f), withAlpha(seriesColour(static_cast<int>(i)), alpha), 3.0f);
    dl->AddText(ImVec2(lx + 28, ly), withAlpha(themed(kText), alpha), l.series[i].label.c_str());
    lx += 48 + ImGui::CalcTextSize(l.series[i].label.c_str()).x;
  }
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  bool any = false;
  for (const MiniSeries& s : l.series)
    for (std::size_t i = 0; i < s.y.size(); ++i) {
      double y = s.y[i];
      if (!std::isfinite(y) || (l.logY && y <= 0)) continue;
      if (l.logY) y = std::log10(y);
      if (!any) {
        x0 = x1 = s.x[i];
        y0 = y1 = y;
        any = true;
      }
      x0 = std::min(x0, s.x[i]);
      x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, y);
      y1 = std::max(y1, y);
    }
  if (!any) return;
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 - y0 < 1e-12) {
    y0 -= 0.5;
    y1 += 0.5;
  }
  const double pad = (y1 - y0) * 0.06;
  y0 -= pad;
  y1 += pad;
  const float left = at.x + 64.0f, right = at.x + w - 12.0f, top = ly + line * 1.6f, bottom = at.y + h - line * 2.4f;
  if (bottom - top < 20) return;
  auto sx = [&](double x) { return left + static_cast<float>((x - x0) / (x1 - x0)) * (right - left); };
  auto sy = [&](double y) { return bottom - static_cast<float>(((l.logY ? std::log10(y) : y) - y0) / (y1 - y0)) * (bottom - top); };
  dl->AddRect(ImVec2(left, top), ImVec2(right, bottom), withAlpha(themed(kAxis), alpha));
  auto yLabel = [&](double yv) { return l.logY ? num(std::pow(10.0, yv), std::pow(10.0, yv) < 10 ? 3 : 0) : num(yv, 3); };
  for (int k = 0; k <= 4; ++k) {
    const double yv = y0 + (y1 - y0) * k / 4.0;
    const float y = bottom - (bottom - top) * fl(k) / 4.0f;
    dl->AddLine(ImVec2(left, y), ImVec2(right, y), withAlpha(themed(IM_COL32(50, 54, 64, 255)), alpha));
    const std::string t = yLabel(yv);
    dl->AddText(ImVec2(left - ImGui::CalcTextSize(t.c_str()).x - 6, y - line * 0.5f), withAlpha(themed(kDim), alpha), t.c_str());
  }
  for (int k = 0; k <= 4; ++k) {
    const double xv = x0 + (x1 - x0) * k / 4.0;
    centredText(dl, ImVec2(sx(xv), bottom + line * 0.7f), withAlpha(themed(kDim), alpha), num(xv, std::abs(x1 - x0) < 10 ? 1 : 0));
  }
  centredText(dl, ImVec2((left + right) * 0.5f, bottom + line * 1.8f), withAlpha(themed(kDim), alpha), l.xTitle + "   (y: " + l.yTitle + (l.logY ? ", log scale)" : ")"));
  if (!l.logY && y0 < 0 && y1 > 0) dl->AddLine(ImVec2(left, sy(0)), ImVec2(right, sy(0)), withAlpha(themed(kAxis), alpha));
  for (std::size_t si = 0; si < l.series.size(); ++si) {
    const MiniSeries& s = l.series[si];
    std::vector<ImVec2> pts;
    for (std::size_t i = 0; i < s.y.size(); ++i)
      if (std::isfinite(s.y[i]) && (!l.logY || s.y[i] > 0)) pts.push_back(ImVec2(sx(s.x[i]), sy(s.y[i])));
    const float thick = si == 0 ? 3.0f : 2.0f;
    if (pts.size() >= 2) dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), withAlpha(seriesColour(static_cast<int>(si)), alpha), 0, thick);
    if (pts.size() <= 40)
      for (const ImVec2& p : pts) dl->AddCircleFilled(p, 3.0f, withAlpha(seriesColour(static_cast<int>(si)), alpha));
  }
  if (l.markerX) {
    const float x = sx(*l.markerX);
    dl->AddLine(ImVec2(x, top), ImVec2(x, bottom), withAlpha(themed(kHighlight), alpha), 2.0f);
    dl->AddText(ImVec2(x + 4, top + 2), withAlpha(themed(kHighlight), alpha), l.markerLabel.c_str());
  }
  // Hover: the nearest point of the first series.
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (ImGui::IsWindowHovered() && mouse.x >= left && mouse.x <= right && mouse.y >= top && mouse.y <= bottom) {
    std::string tip;
    for (const MiniSeries& s : l.series) {
      std::size_t best = 0;
      float bd = 1e30f;
      for (std::size_t i = 0; i < s.x.size(); ++i)
        if (const float d = std::abs(sx(s.x[i]) - mouse.x); d < bd) {
          bd = d;
          best = i;
        }
      if (!s.x.empty()) tip += s.label + ": x " + full(s.x[best]) + ", y " + full(s.y[best]) + "\n";
    }
    if (!tip.empty()) ImGui::SetTooltip("%s", tip.c_str());
  }
}

}  // namespace

namespace {

void drawLearnFigureAt(const Figure& f, float width, float height, float alpha) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::PushClipRect(origin, ImVec2(origin.x + width, origin.y + height), true);
  // Parts stacked top to bottom; a table takes what it needs, the rest share the height.
  int parts = 0;
  if (!f.grids.empty()) ++parts;
  if (!f.dials.empty()) ++parts;
  if (f.plane) ++parts;
  if (f.bars) ++parts;
  if (f.lines) ++parts;
  float tableH = 0.0f;   // what the table needs (title, header, rows of one line), at most what the figure has
  if (f.table) tableH = std::min(height, ImGui::GetTextLineHeightWithSpacing() * (static_cast<float>(f.table->rows.size()) * 1.2f + 3.2f));
  const float partH = parts > 0 ? (height - tableH) / fl(parts) : 0.0f;
  float y = origin.y;
  if (!f.grids.empty()) {
    const float gw = width / static_cast<float>(f.grids.size());
    for (std::size_t i = 0; i < f.grids.size(); ++i) drawGrid(f.grids[i], ImVec2(origin.x + gw * static_cast<float>(i), y), gw - 16.0f, partH - 8.0f, alpha);
    y += partH;
  }
  if (!f.dials.empty()) {
    drawDials(f.dials, ImVec2(origin.x, y), width, partH, alpha);
    y += partH;
  }
  if (f.plane) {
    drawPlane(*f.plane, ImVec2(origin.x, y), width, partH, alpha);
    y += partH;
  }
  if (f.bars) {
    drawBars(*f.bars, ImVec2(origin.x, y), width, partH, alpha);
    y += partH;
  }
  if (f.lines) {
    drawLines(*f.lines, ImVec2(origin.x, y), width, partH, alpha);
    y += partH;
  }
  if (f.table) {
    ImGui::SetCursorScreenPos(ImVec2(origin.x, y));
    drawTable(*f.table, width, parts == 0 ? tableH : origin.y + height - y);
  }
  ImGui::PopClipRect();
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(width, height));
}

}  // namespace

void drawLearnFigure(const Figure& f, const FigureText& text, float width, float height, float alpha) {
  drawFigure("learn-figure", text, ImVec2(width, height), [&](ImVec2 size) {
    drawLearnFigureAt(f, size.x, size.y, figureExportPass() ? 1.0f : alpha);
  });
}

}  // namespace posviz::app
