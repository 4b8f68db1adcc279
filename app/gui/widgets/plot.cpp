// plot.cpp: lines, scatter, markers, bands, ticks, legend and hover readout on ImDrawList.
//
// [SECTION] Ticks
// [SECTION] drawPlot (ranges, frame, grid, data, legend, hover)
#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/theme.hpp"

#include "app/gui/widgets/figure_export.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "app/gui/widgets/retained.hpp"

namespace posviz::app {

namespace {

// Okabe-Ito, with black swapped for a light grey on the dark theme.
constexpr ImU32 kPalette[] = {IM_COL32(86, 180, 233, 255),  IM_COL32(230, 159, 0, 255),  IM_COL32(0, 158, 115, 255),
                                 IM_COL32(240, 228, 66, 255),  IM_COL32(0, 114, 178, 255),  IM_COL32(213, 94, 0, 255),
                                 IM_COL32(204, 121, 167, 255), IM_COL32(200, 200, 200, 255)};

}  // namespace

unsigned int plotColor(int i) {
  const int n = static_cast<int>(sizeof kPalette / sizeof kPalette[0]);
  return themed(kPalette[((i % n) + n) % n]);
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Ticks
// -----------------------------------------------------------------------------------------------

std::vector<double> niceTicks(double lo, double hi, int maxTicks) {
  std::vector<double> out;
  if (!std::isfinite(lo) || !std::isfinite(hi) || maxTicks < 1) return out;
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    out.push_back(lo);
    return out;
  }
  const double raw = (hi - lo) / std::max(1, maxTicks);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  const double first = std::ceil(lo / step - 1e-9);
  for (double k = first; k * step <= hi + step * 1e-9; k += 1.0) {
    out.push_back(k == 0.0 ? 0.0 : k * step);
    if (out.size() > 1000) break;
  }
  return out;
}

std::vector<double> logTicks(double lo, double hi, int maxTicks) {
  std::vector<double> out;
  if (!(lo > 0) || !(hi > lo) || !std::isfinite(hi)) return out;
  // Whole decades inside [lo, hi]; every n-th one when there are more than maxTicks.
  const int d0 = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
  const int d1 = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
  const int decades = d1 - d0 + 1;
  const int every = std::max(1, (decades + std::max(1, maxTicks) - 1) / std::max(1, maxTicks));
  for (int d = d0; d <= d1; d += every) out.push_back(std::pow(10.0, d));
  if (decades <= 2) {
    // 2 and 5 times each decade too, or only 5, when they keep within maxTicks (else labels
    // overlap); with fewer than two decade ticks the 5s are added regardless.
    const std::size_t limit = static_cast<std::size_t>(std::max(2, maxTicks));
    for (const std::vector<double>& ms : {std::vector<double>{2.0, 5.0}, std::vector<double>{5.0}}) {
      std::vector<double> more;
      for (int d = d0 - 1; d <= d1; ++d)
        for (double m : ms) {
          const double v = m * std::pow(10.0, d);
          if (v >= lo && v <= hi) more.push_back(v);
        }
      if (out.size() + more.size() <= limit || (ms.size() == 1 && out.size() < 2)) {
        out.insert(out.end(), more.begin(), more.end());
        break;
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

AxisRange fittedAxis(double lo, double hi, bool log) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {};
  if (hi < lo) std::swap(lo, hi);
  if (log && lo > 0) return {lo / 1.3, hi * 1.3};
  const double span = hi - lo > 0 ? hi - lo : std::max(std::fabs(hi), 1.0);
  return {lo >= 0 ? 0.0 : lo - span * 0.06, hi + span * 0.06};
}

std::string formatTick(double v, double step) {
  char buf[48];
  const double a = std::fabs(v);
  if (a >= 1e5 || (a > 0 && a < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.2g", v);
    // 1e+04 reads better than 1e+004 or 10000 on a crowded axis.
    return buf;
  }
  if (std::fabs(v - std::round(v)) < 1e-9 * std::max(1.0, a) && std::fabs(step) >= 1.0 - 1e-9) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  if (std::fabs(v) < std::fabs(step) * 1e-6) v = 0.0;
  const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(std::fabs(step)) - 1e-9)), 0, 6);
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// -----------------------------------------------------------------------------------------------
// [SECTION] drawPlot (ranges, frame, grid, data, legend, hover)
// -----------------------------------------------------------------------------------------------

namespace {

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double logLo = 0, logSpan = 1;   // log10(lo), log10(hi / lo): set by settle() once lo, hi are final
  void settle() {
    if (log) {
      logLo = std::log10(lo);
      logSpan = std::log10(hi) - logLo;
    }
  }
  // One logarithm a point on a log axis (thousands a frame at d_model 4096).
  double toT(double v) const {
    if (log) return (std::log10(v) - logLo) / logSpan;
    return (v - lo) / (hi - lo);
  }
  double fromT(double t) const {
    if (log) return std::pow(10.0, std::log10(lo) + t * (std::log10(hi) - std::log10(lo)));
    return lo + t * (hi - lo);
  }
  bool usable(double v) const { return std::isfinite(v) && (!log || v > 0); }
};

void finishAxis(Axis& a) {
  if (!(a.lo <= a.hi)) {
    a.lo = a.log ? 1.0 : 0.0;
    a.hi = a.log ? 10.0 : 1.0;
  }
  if (a.log) {
    if (a.hi / a.lo < 1.0001) {
      a.lo /= 2;
      a.hi *= 2;
    }
    // Extend to whole decades when the span is several decades: easier to read.
    if (a.hi / a.lo > 100) {
      // Whole decades, with a little room so points on a decade are not cut by the frame.
      a.lo = std::pow(10.0, std::floor(std::log10(a.lo) + 1e-9)) / 1.25;
      a.hi = std::pow(10.0, std::ceil(std::log10(a.hi) - 1e-9)) * 1.25;
    } else {
      a.lo /= 1.1;
      a.hi *= 1.1;
    }
  } else {
    if (a.hi - a.lo < 1e-12 * std::max(1.0, std::fabs(a.hi))) {
      a.lo -= 0.5;
      a.hi += 0.5;
    } else {
      const double pad = (a.hi - a.lo) * 0.04;
      a.lo -= pad;
      a.hi += pad;
    }
  }
}

std::string formatReadout(double v) {
  char buf[48];
  const double a = std::fabs(v);
  if (a != 0 && (a >= 1e6 || a < 1e-3)) std::snprintf(buf, sizeof buf, "%.4e", v);
  else std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

ImU32 seriesColor(const PlotSpec& spec, std::size_t si) {
  const PlotSeries& s = spec.series[si];
  return s.color ? s.color : plotColor(static_cast<int>(si));
}

// Data ranges of both axes: every usable point, and the markers and bands along x.
void dataAxes(const PlotSpec& spec, Axis& ax, Axis& ay) {
  ax = Axis{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), spec.logX};
  ay = Axis{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), spec.logY};
  for (const PlotSeries& s : spec.series) {
    const std::size_t n = std::min(s.x.size(), s.y.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (!ax.usable(s.x[i]) || !ay.usable(s.y[i])) continue;
      ax.lo = std::min(ax.lo, s.x[i]);
      ax.hi = std::max(ax.hi, s.x[i]);
      ay.lo = std::min(ay.lo, s.y[i]);
      ay.hi = std::max(ay.hi, s.y[i]);
    }
  }
  for (const PlotMarker& m : spec.markers) {
    if (ax.usable(m.x) && ax.lo <= ax.hi) {
      ax.lo = std::min(ax.lo, m.x);
      ax.hi = std::max(ax.hi, m.x);
    }
  }
  for (const PlotBand& b : spec.bands) {
    for (double x : {b.x0, b.x1}) {
      if (!ax.usable(x) || !(ax.lo <= ax.hi)) continue;
      ax.lo = std::min(ax.lo, x);
      ax.hi = std::max(ax.hi, x);
    }
  }
  const bool xFromData = ax.lo <= ax.hi && ax.hi > ax.lo;
  bool anyScatter = false;
  for (const PlotSeries& s : spec.series) anyScatter |= s.scatter;
  finishAxis(ay);
  if (xFromData && !spec.logX) {
    // x is usually an index (position, pair, offset): exact ends, unless points would be cut.
    if (anyScatter) {
      const double pad = (ax.hi - ax.lo) * 0.02;
      ax.lo -= pad;
      ax.hi += pad;
    }
  } else {
    finishAxis(ax);
  }
  if (spec.fixedX && (!spec.logX || spec.xMin > 0)) {
    ax.lo = spec.xMin;
    ax.hi = spec.xMax > spec.xMin ? spec.xMax : spec.xMin + 1;
  }
  if (spec.fixedY && (!spec.logY || spec.yMin > 0)) {
    ay.lo = spec.yMin;
    ay.hi = spec.yMax > spec.yMin ? spec.yMax : spec.yMin + 1;
  }
  ax.settle();
  ay.settle();
}

// Where the plot lies on screen this frame, its axes and y ticks.
struct PlotFrame {
  ImVec2 origin;              // the widget's top-left corner (screen pixels)
  float w = 0, h = 0;         // widget size, pixels
  ImVec2 p0, p1;              // the data area, pixels
  float pw = 0, ph = 0;       // data area size, pixels (at least 10)
  float fh = 0;               // font size, pixels
  Axis ax, ay;
  std::vector<double> yTicks;
  double yStep = 1.0;         // spacing of yTicks (linear axes)
  float legendLeft = 0, legendRight = 0, legendTop = 0;   // legendAbove: where its rows go
  ImDrawList* dl = nullptr;
  ImU32 textCol = 0;

  float sx(double x) const { return p0.x + static_cast<float>(ax.toT(x)) * pw; }
  float sy(double y) const { return p1.y - static_cast<float>(ay.toT(y)) * ph; }
};

// Width of the legend box (0 without labelled series).
float legendWidth(const PlotSpec& spec) {
  float lw = 0;
  for (const PlotSeries& s : spec.series)
    if (!s.label.empty()) lw = std::max(lw, ImGui::CalcTextSize(s.label.c_str()).x);
  return lw > 0 ? lw + ImGui::GetFontSize() * 2.2f : 0.0f;
}

// legendAbove: each labelled series' place in the rows, left to right from x0, wrapped at x1.
struct LegendSlot {
  std::size_t series;
  float x;
  int row;
};
std::vector<LegendSlot> legendAboveSlots(const PlotSpec& spec, float x0, float x1) {
  std::vector<LegendSlot> out;
  const float fh = ImGui::GetFontSize();
  float x = x0;
  int row = 0;
  for (std::size_t si = 0; si < spec.series.size(); ++si) {
    if (spec.series[si].label.empty()) continue;
    const float ew = fh * 1.7f + ImGui::CalcTextSize(spec.series[si].label.c_str()).x;
    if (x > x0 && x + ew > x1) {
      ++row;
      x = x0;
    }
    out.push_back({si, x, row});
    x += ew + fh;
  }
  return out;
}
constexpr float kLegendRow = 1.2f;   // legend row height, in font sizes

// Frame: title on top, y ticks left (as wide as their widest label), x ticks + title below.
PlotFrame layoutPlot(const PlotSpec& spec, ImVec2 origin, float w, float h) {
  PlotFrame f;
  f.origin = origin;
  f.w = w;
  f.h = h;
  f.fh = ImGui::GetFontSize();
  f.dl = ImGui::GetWindowDrawList();
  f.textCol = ImGui::GetColorU32(ImGuiCol_Text);
  dataAxes(spec, f.ax, f.ay);
  const float fh = f.fh;
  f.yTicks = spec.logY ? logTicks(f.ay.lo, f.ay.hi, std::max(2, static_cast<int>(h / (fh * 1.9f))))
                       : niceTicks(f.ay.lo, f.ay.hi, std::max(2, static_cast<int>(h / (fh * 2.5f))));
  f.yStep = f.yTicks.size() > 1 ? f.yTicks[1] - f.yTicks[0] : 1.0;
  float yLabelW = 0;
  for (double v : f.yTicks)
    yLabelW = std::max(yLabelW, ImGui::CalcTextSize(formatTick(v, spec.logY ? v : f.yStep).c_str()).x);
  const float left = yLabelW + fh * 0.8f;
  const float yTitleRow = (spec.legendOutside || spec.legendAbove) && !spec.yTitle.empty() ? fh * 1.3f : 0.0f;
  f.legendLeft = origin.x + left;
  f.legendRight = origin.x + w - fh * 0.6f;
  f.legendTop = origin.y + (!spec.title.empty() ? fh * 1.5f : fh * 0.5f);
  float legendH = 0.0f;
  if (spec.legendAbove && !spec.hideLegend) {
    const std::vector<LegendSlot> slots = legendAboveSlots(spec, f.legendLeft, f.legendRight);
    if (!slots.empty()) legendH = static_cast<float>(slots.back().row + 1) * fh * kLegendRow + fh * 0.2f;
  }
  f.p0 = ImVec2(origin.x + left, f.legendTop + legendH + yTitleRow);
  f.p1 = ImVec2(origin.x + w - fh * 0.6f - (spec.legendOutside && !spec.hideLegend ? legendWidth(spec) + 8.0f : 0.0f),
                origin.y + h - fh * (spec.xTitle.empty() ? 1.6f : 2.8f));
  f.pw = std::max(f.p1.x - f.p0.x, 10.0f);
  f.ph = std::max(f.p1.y - f.p0.y, 10.0f);
  return f;
}

// The title row's room kept at its right end for the note.
float noteRoom(const PlotSpec& spec) {
  return spec.noteSlot.empty() ? 0.0f : ImGui::CalcTextSize(spec.noteSlot.c_str()).x + ImGui::GetFontSize() * 0.5f;
}

// text, or as much of it as fits in width followed by "...".
std::string fittedText(const std::string& text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  std::string t = text;
  while (!t.empty() && ImGui::CalcTextSize((t + "...").c_str()).x > width) {
    // One whole UTF-8 character: its continuation bytes, then its first byte.
    while (!t.empty() && (static_cast<unsigned char>(t.back()) & 0xC0) == 0x80) t.pop_back();
    if (!t.empty()) t.pop_back();
  }
  return t + "...";
}

// Background, title and the shaded x-bands.
void drawBackground(const PlotSpec& spec, const PlotFrame& f) {
  ImDrawList* dl = f.dl;
  dl->AddRectFilled(f.p0, f.p1, themed(IM_COL32(20, 22, 26, 255)));
  if (!spec.title.empty()) {
    // Centred over the data, left of the note's room; a title wider than that is cut, with "...".
    const float room = std::max(0.0f, f.w - noteRoom(spec));
    const std::string title = fittedText(spec.title, room);
    const float tw = ImGui::CalcTextSize(title.c_str()).x;
    const float x = std::clamp(f.p0.x + (f.pw - tw) * 0.5f, f.origin.x, f.origin.x + std::max(0.0f, room - tw));
    dl->AddText(ImVec2(x, f.origin.y), f.textCol, title.c_str());
  }
  dl->PushClipRect(f.p0, f.p1, true);
  for (const PlotBand& b : spec.bands) {
    const float x0 = f.sx(f.ax.usable(b.x0) ? b.x0 : f.ax.lo), x1 = f.sx(f.ax.usable(b.x1) ? b.x1 : f.ax.hi);
    dl->AddRectFilled(ImVec2(std::min(x0, x1), f.p0.y), ImVec2(std::max(x0, x1), f.p1.y), b.color ? b.color : themed(IM_COL32(255, 255, 255, 20)));
    if (!b.label.empty()) {
      dl->AddText(ImVec2(std::min(x0, x1) + 3, f.p1.y - f.fh * 1.2f), themed(IM_COL32(230, 230, 230, 170)), b.label.c_str());
    }
  }
  dl->PopClipRect();
}

// Top-left corners of the axis titles: x centred below the ticks; y inside the data area's top
// left corner, or above the data area with legendOutside or legendAbove.
ImVec2 xTitlePos(const PlotSpec& spec, const PlotFrame& f) {
  const ImVec2 ts = ImGui::CalcTextSize(spec.xTitle.c_str());
  return ImVec2(f.p0.x + (f.pw - ts.x) * 0.5f, f.p1.y + f.fh * 1.35f);
}
ImVec2 yTitlePos(const PlotSpec& spec, const PlotFrame& f) {
  return spec.legendOutside || spec.legendAbove ? ImVec2(f.p0.x, f.p0.y - f.fh * 1.25f) : ImVec2(f.p0.x + 8, f.p0.y + 6);
}

// A title with a tooltip is underlined with dots, as a link-like hint that hovering explains it.
void underlineDotted(ImDrawList* dl, ImVec2 pos, ImVec2 size, ImU32 col) {
  const float y = pos.y + size.y + 1.0f;
  for (float x = pos.x; x < pos.x + size.x; x += 4.0f) dl->AddLine(ImVec2(x, y), ImVec2(std::min(x + 2.0f, pos.x + size.x), y), col);
}

// Grid lines, tick labels and the x title.
void drawGridAndTicks(const PlotSpec& spec, const PlotFrame& f) {
  ImDrawList* dl = f.dl;
  const ImU32 gridCol = themed(IM_COL32(255, 255, 255, 28));
  const ImVec2 p0 = f.p0, p1 = f.p1;
  for (double v : f.yTicks) {
    const float y = f.sy(v);
    if (y < p0.y - 0.5f || y > p1.y + 0.5f) continue;
    dl->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y), gridCol);
    const std::string s = formatTick(v, spec.logY ? v : f.yStep);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    dl->AddText(ImVec2(p0.x - ts.x - 5, y - ts.y * 0.5f), f.textCol, s.c_str());
  }
  if (!spec.xTicks.empty()) {
    // The caller's ticks: every grid line, and each label that keeps clear of the one drawn left of it.
    float lastRight = -std::numeric_limits<float>::infinity();
    for (const PlotTick& t : spec.xTicks) {
      if (!f.ax.usable(t.x)) continue;
      const float x = f.sx(t.x);
      if (x < p0.x - 0.5f || x > p1.x + 0.5f) continue;
      dl->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), gridCol);
      const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
      const float lx = std::clamp(x - ts.x * 0.5f, f.origin.x, f.origin.x + f.w - ts.x);
      if (lx < lastRight + f.fh * 0.5f) continue;
      dl->AddText(ImVec2(lx, p1.y + 3), f.textCol, t.label.c_str());
      lastRight = lx + ts.x;
    }
  }
  std::vector<double> xt = !spec.xTicks.empty() ? std::vector<double>{}
                           : spec.logX ? logTicks(f.ax.lo, f.ax.hi, std::max(2, static_cast<int>(f.pw / (f.fh * 4.0f))))
                                     : niceTicks(f.ax.lo, f.ax.hi, std::max(2, static_cast<int>(f.pw / (f.fh * 5.0f))));
  const double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1.0;
  for (double v : xt) {
    const float x = f.sx(v);
    if (x < p0.x - 0.5f || x > p1.x + 0.5f) continue;
    dl->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), gridCol);
    const std::string s = formatTick(v, spec.logX ? v : xstep);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    dl->AddText(ImVec2(std::clamp(x - ts.x * 0.5f, f.origin.x, f.origin.x + f.w - ts.x), p1.y + 3), f.textCol, s.c_str());
  }
  if (!spec.xTitle.empty()) {
    dl->AddText(xTitlePos(spec, f), f.textCol, spec.xTitle.c_str());
    if (!spec.xTip.empty()) underlineDotted(dl, xTitlePos(spec, f), ImGui::CalcTextSize(spec.xTitle.c_str()), f.textCol);
  }
}

// Douglas-Peucker in screen pixels: drops the points that lie within tol of the segment joining
// the points kept around them. A smooth curve over a thousand pixel columns becomes a few dozen
// segments, which a software rasterizer draws in a fraction of the time; nothing on screen moves
// by more than tol pixels.
void simplifyPolyline(std::vector<ImVec2>& pts, float tol) {
  if (pts.size() < 3) return;
  std::vector<char> keep(pts.size(), 0);
  keep.front() = keep.back() = 1;
  std::vector<std::pair<std::size_t, std::size_t>> stack{{0, pts.size() - 1}};
  while (!stack.empty()) {
    const auto [a, b] = stack.back();
    stack.pop_back();
    const ImVec2 pa = pts[a], pb = pts[b];
    const float dx = pb.x - pa.x, dy = pb.y - pa.y;
    const float len2 = dx * dx + dy * dy;
    float worst = -1.0f;
    std::size_t at = a;
    for (std::size_t i = a + 1; i < b; ++i) {
      const float ex = pts[i].x - pa.x, ey = pts[i].y - pa.y;
      // Distance to the segment (not the infinite line): a spike that doubles back is kept.
      const float t = len2 > 0.0f ? std::clamp((ex * dx + ey * dy) / len2, 0.0f, 1.0f) : 0.0f;
      const float fx = ex - t * dx, fy = ey - t * dy;
      if (fx * fx + fy * fy > worst) {
        worst = fx * fx + fy * fy;
        at = i;
      }
    }
    if (worst > tol * tol) {
      keep[at] = 1;
      stack.push_back({a, at});
      stack.push_back({at, b});
    }
  }
  std::size_t out = 0;
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (keep[i]) pts[out++] = pts[i];
  pts.resize(out);
}

void strokeLine(std::vector<ImVec2>& pts, ImU32 col, float thickness, ImDrawList* dl) {
  simplifyPolyline(pts, 0.25f);
  if (pts.size() > 1) dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), col, 0, thickness);
}

// Rectangles for a histogram standing on `base` (heights h >= 0 over consecutive columns
// cols[a..b), growing by `dir` pixels per unit), each area covered once, from a monotone stack: a
// run of columns at least as tall as a level is one rectangle.
void histogramRects(std::span<const BandColumn> cols, std::size_t a, const std::vector<float>& h, float base, float dir,
                    std::vector<BandRect>& out) {
  struct Level {
    std::size_t start;
    float h;
  };
  std::vector<Level> stack;
  const std::size_t b = a + h.size();
  for (std::size_t c = a; c <= b; ++c) {
    const float hc = c < b ? h[c - a] : 0.0f;
    std::size_t start = c;
    while (!stack.empty() && stack.back().h > hc) {
      const Level top = stack.back();
      stack.pop_back();
      const float lower = std::max(hc, stack.empty() ? 0.0f : stack.back().h);
      const float y0 = base + dir * lower, y1 = base + dir * top.h;
      out.push_back({cols[top.start].px, cols[c - 1].px + 1, std::min(y0, y1), std::max(y0, y1)});
      start = top.start;
    }
    if (hc > (stack.empty() ? 0.0f : stack.back().h)) stack.push_back({start, hc});
  }
}

}  // namespace

std::vector<CellRect> cellRects(std::span<const char> taken, int gw, int gh) {
  std::vector<CellRect> out;
  std::vector<CellRect> open, next;   // runs of the previous column, by gy0, still growing
  for (int gx = 0; gx <= gw; ++gx) {
    next.clear();
    std::size_t k = 0;   // open runs, like this column's, rise in gy0
    const char* column = gx < gw ? taken.data() + static_cast<std::size_t>(gx) * static_cast<std::size_t>(gh) : nullptr;
    for (int gy = 0; column && gy < gh; ++gy) {
      if (!column[gy]) continue;
      const int first = gy;
      while (gy + 1 < gh && column[gy + 1]) ++gy;
      for (; k < open.size() && open[k].gy0 < first; ++k) out.push_back(open[k]);
      if (k < open.size() && open[k].gy0 == first && open[k].gy1 == gy + 1) {
        next.push_back({open[k].gx0, gx + 1, first, gy + 1});
        ++k;
      } else {
        next.push_back({gx, gx + 1, first, gy + 1});
      }
    }
    for (; k < open.size(); ++k) out.push_back(open[k]);
    std::swap(open, next);
  }
  return out;
}

std::vector<BandRect> bandRects(std::span<const BandColumn> cols) {
  std::vector<BandRect> out;
  std::vector<float> h;
  std::size_t a = 0;
  while (a < cols.size()) {
    // The longest run of adjacent columns that still shares a row range [core0, core1).
    float core0 = cols[a].top, core1 = cols[a].bottom;
    std::size_t b = a + 1;
    for (; b < cols.size() && cols[b].px == cols[b - 1].px + 1; ++b) {
      const float t = std::max(core0, cols[b].top), u = std::min(core1, cols[b].bottom);
      if (t >= u) break;
      core0 = t;
      core1 = u;
    }
    if (core0 < core1) out.push_back({cols[a].px, cols[b - 1].px + 1, core0, core1});
    h.clear();
    for (std::size_t c = a; c < b; ++c) h.push_back(std::max(0.0f, core0 - cols[c].top));
    histogramRects(cols, a, h, core0, -1.0f, out);
    h.clear();
    for (std::size_t c = a; c < b; ++c) h.push_back(std::max(0.0f, cols[c].bottom - core1));
    histogramRects(cols, a, h, core1, 1.0f, out);
    a = b;
  }
  return out;
}

namespace {

// One line series. More points than pixels are reduced to min/max per pixel column (no
// aliasing); unusable points (NaN, <= 0 on a log axis) break the line. A reduced column that
// spans more than a few pixels (a curve oscillating faster than the pixels) is filled from its
// min to its max, stretched to the previous column's last point so that nothing needs to join
// them: a zigzag of anti-aliased strokes up and down every column would draw the same band
// several times over, which a software rasterizer pays for in every frame.
void drawLine(const PlotSeries& s, ImU32 col, const PlotFrame& f) {
  const std::size_t n = std::min(s.x.size(), s.y.size());
  std::vector<ImVec2> pts;
  pts.reserve(std::min<std::size_t>(n, static_cast<std::size_t>(f.pw) * 2 + 2));
  std::vector<BandColumn> band;
  std::vector<ImVec2> dots;
  const bool reduce = n > static_cast<std::size_t>(f.pw) * 2;
  const float half = std::max(0.5f, s.thickness * 0.5f);
  int lastPx = std::numeric_limits<int>::min();
  float mn = 0, mx = 0, lastY = 0;
  auto flush = [&](int px) {
    if (px == std::numeric_limits<int>::min()) return;
    const float x = static_cast<float>(px);
    if (mx - mn > 3.0f + s.thickness) {
      // The column reaches the previous point too, so no stroke is needed to join them.
      float lo = mn, hi = mx;
      if (!pts.empty()) {
        lo = std::min(lo, pts.back().y);
        hi = std::max(hi, pts.back().y);
      }
      strokeLine(pts, col, s.thickness, f.dl);
      pts.clear();
      band.push_back({px, std::floor(lo - half), std::ceil(hi + half)});
      pts.push_back(ImVec2(x, lastY));
      return;
    }
    if (mx - mn <= 1.0f) {
      // A smooth stretch crosses the column within a pixel: one point at its middle. Its min and
      // max as two points would make a staircase of 1 px steps that no simplification can merge.
      pts.push_back(ImVec2(x + 0.5f, 0.5f * (mn + mx)));
      return;
    }
    pts.push_back(ImVec2(x, mn));
    if (mx != mn) pts.push_back(ImVec2(x, mx));
    if (lastY != mx) pts.push_back(ImVec2(x, lastY));
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (!f.ax.usable(s.x[i]) || !f.ay.usable(s.y[i])) {
      if (reduce) flush(lastPx);
      lastPx = std::numeric_limits<int>::min();
      strokeLine(pts, col, s.thickness, f.dl);
      pts.clear();
      continue;
    }
    const float X = f.sx(s.x[i]), Y = f.sy(s.y[i]);
    if (!reduce) {
      pts.push_back(ImVec2(X, Y));
      if (s.dots) dots.push_back(ImVec2(X, Y));
      continue;
    }
    const int px = static_cast<int>(std::floor(X));
    if (px != lastPx) {
      flush(lastPx);
      lastPx = px;
      mn = mx = Y;
    } else {
      mn = std::min(mn, Y);
      mx = std::max(mx, Y);
    }
    lastY = Y;
  }
  if (reduce) flush(lastPx);
  for (const BandRect& r : bandRects(band))
    f.dl->AddRectFilled(ImVec2(static_cast<float>(r.x0), r.y0), ImVec2(static_cast<float>(r.x1), r.y1), col);
  if (pts.size() == 1 && !reduce) f.dl->AddCircleFilled(pts[0], s.thickness * 1.5f, col);
  else strokeLine(pts, col, s.thickness, f.dl);
  for (const ImVec2& d : dots) f.dl->AddCircleFilled(d, std::max(2.5f, s.thickness * 1.4f), col, 8);
}

// One scatter series. A dot whose centre falls in a 2 x 2 px cell that already holds one of the
// series' dots draws nothing new (the two overlap by more than half). A dense series (more
// points than pixel columns: thousands of dims at d_model 4096) snaps its dots to those cells
// and draws each vertical run of occupied cells as one rectangle as wide as a dot: a curve of
// dots reads the same, at a few hundred rectangles where a disc per dot would cost 12 vertices
// each. The snap moves a dot by at most 1 px.
void drawScatter(const PlotSeries& s, ImU32 col, const PlotFrame& f) {
  const std::size_t n = std::min(s.x.size(), s.y.size());
  const float radius = std::max(2.0f, s.thickness * 1.2f);
  const bool dense = static_cast<float>(n) > f.pw;
  constexpr int cellPx = 2;
  const float perCell = 1.0f / static_cast<float>(cellPx);
  const int gw = static_cast<int>(f.pw) / cellPx + 3, gh = static_cast<int>(f.ph) / cellPx + 3;
  std::vector<char> taken(static_cast<std::size_t>(gw) * static_cast<std::size_t>(gh), 0);
  auto cellAt = [&](int gx, int gy) -> char& {
    return taken[static_cast<std::size_t>(gx) * static_cast<std::size_t>(gh) + static_cast<std::size_t>(gy)];
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (!f.ax.usable(s.x[i]) || !f.ay.usable(s.y[i])) continue;
    const float X = std::round(f.sx(s.x[i])), Y = std::round(f.sy(s.y[i]));
    const int gx = static_cast<int>(std::floor((X - f.p0.x) * perCell)) + 1;
    const int gy = static_cast<int>(std::floor((Y - f.p0.y) * perCell)) + 1;
    const bool inGrid = gx >= 0 && gy >= 0 && gx < gw && gy < gh;
    if (inGrid && cellAt(gx, gy)) continue;
    if (inGrid) cellAt(gx, gy) = 1;
    if (!dense) f.dl->AddCircleFilled(ImVec2(X, Y), radius, col, 6);   // at r = 2 px, anti-aliased, a hexagon is a disc
  }
  if (!dense) return;
  // A dot as wide as the disc at each taken cell's centre; cells of one rectangle share rows, so
  // their dots' union is the rectangle from the first centre to the last, widened by the radius.
  const float step = static_cast<float>(cellPx), mid = step * 0.5f;
  auto centre = [&](float origin, int g) { return origin + static_cast<float>(g - 1) * step + mid; };
  for (const CellRect& r : cellRects(taken, gw, gh))
    f.dl->AddRectFilled(ImVec2(centre(f.p0.x, r.gx0) - radius, centre(f.p0.y, r.gy0) - radius),
                        ImVec2(centre(f.p0.x, r.gx1 - 1) + radius, centre(f.p0.y, r.gy1 - 1) + radius), col);
}

// Series and markers, clipped to the data area, then the frame.
void drawData(const PlotSpec& spec, const PlotFrame& f) {
  ImDrawList* dl = f.dl;
  dl->PushClipRect(f.p0, f.p1, true);
  for (std::size_t si = 0; si < spec.series.size(); ++si) {
    const PlotSeries& s = spec.series[si];
    const ImU32 col = seriesColor(spec, si);
    if (!s.scatter) {
      drawLine(s, col, f);
      continue;
    }
    drawScatter(s, col, f);
  }
  for (const PlotMarker& m : spec.markers) {
    if (!f.ax.usable(m.x)) continue;
    const float x = f.sx(m.x);
    const ImU32 col = m.color ? m.color : themed(IM_COL32(255, 255, 255, 200));
    for (float y = f.p0.y; y < f.p1.y; y += 8) dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + 5, f.p1.y)), col, 1.5f);
    if (!m.label.empty()) {
      // Near the bottom (the legend and y title live at the top), on a dark patch.
      const ImVec2 ts = ImGui::CalcTextSize(m.label.c_str());
      const float lx = x + 4 + ts.x > f.p1.x ? x - 4 - ts.x : x + 4;
      const ImVec2 tp(lx, f.p1.y - f.fh * 2.6f);
      dl->AddRectFilled(ImVec2(tp.x - 2, tp.y - 1), ImVec2(tp.x + ts.x + 2, tp.y + ts.y + 1), themed(IM_COL32(15, 15, 18, 190)), 2.0f);
      dl->AddText(tp, col, m.label.c_str());
    }
  }
  dl->PopClipRect();
  dl->AddRect(f.p0, f.p1, ImGui::GetColorU32(ImGuiCol_Border));
}

// Y title (top left, inside) and legend (top right, inside; below the title when they would meet).
void drawTitleAndLegend(const PlotSpec& spec, const PlotFrame& f) {
  ImDrawList* dl = f.dl;
  const ImVec2 p0 = f.p0, p1 = f.p1;
  const float fh = f.fh;
  float titleRight = p0.x;
  if (!spec.yTitle.empty()) {
    const ImVec2 ts = ImGui::CalcTextSize(spec.yTitle.c_str());
    const ImVec2 tp = yTitlePos(spec, f);
    if (!spec.legendOutside && !spec.legendAbove) {
      dl->AddRectFilled(ImVec2(tp.x - 4, tp.y - 2), ImVec2(tp.x + ts.x + 4, tp.y + ts.y + 2), themed(IM_COL32(15, 15, 18, 190)), 3.0f);
      titleRight = p0.x + ts.x + 16;
    }
    dl->AddText(tp, f.textCol, spec.yTitle.c_str());
    if (!spec.yTip.empty()) underlineDotted(dl, tp, ts, f.textCol);
  }
  if (spec.hideLegend) return;
  auto swatch = [&](const PlotSeries& s, ImU32 col, float x, float y) {
    if (s.scatter) {
      dl->AddCircleFilled(ImVec2(x + fh * 0.7f, y), 3.5f, col);
      return;
    }
    dl->AddLine(ImVec2(x + 4, y), ImVec2(x + fh * 1.3f, y), col, 2.5f);
    if (s.dots) dl->AddCircleFilled(ImVec2(x + 4 + (fh * 1.3f - 4) * 0.5f, y), 3.0f, col, 8);
  };
  if (spec.legendAbove) {
    for (const LegendSlot& slot : legendAboveSlots(spec, f.legendLeft, f.legendRight)) {
      const PlotSeries& s = spec.series[slot.series];
      const float y = f.legendTop + static_cast<float>(slot.row) * fh * kLegendRow + fh * 0.5f;
      swatch(s, seriesColor(spec, slot.series), slot.x, y);
      dl->AddText(ImVec2(slot.x + fh * 1.7f, y - fh * 0.5f), f.textCol, s.label.c_str());
    }
    return;
  }
  float lw = 0;
  int count = 0;
  for (const PlotSeries& s : spec.series)
    if (!s.label.empty()) {
      lw = std::max(lw, ImGui::CalcTextSize(s.label.c_str()).x);
      ++count;
    }
  const float boxW = lw + fh * 2.2f;
  if (count == 0 || (!spec.legendOutside && boxW >= f.pw * 0.9f)) return;   // no room: the hover readout names every series
  const float boxLeft = spec.legendOutside ? p1.x + 8 : p1.x - boxW - 6;
  const ImVec2 b0(boxLeft, spec.legendOutside ? p0.y : p0.y + 6 + (boxLeft < titleRight ? fh * 1.5f : 0.0f));
  dl->AddRectFilled(b0, ImVec2(boxLeft + boxW, b0.y + static_cast<float>(count) * fh * 1.2f + 6), themed(IM_COL32(15, 15, 18, 210)), 3.0f);
  int row = 0;
  for (std::size_t si = 0; si < spec.series.size(); ++si) {
    const PlotSeries& s = spec.series[si];
    if (s.label.empty()) continue;
    const ImU32 col = seriesColor(spec, si);
    const float y = b0.y + 3 + static_cast<float>(row) * fh * 1.2f + fh * 0.5f;
    swatch(s, col, b0.x, y);
    dl->AddText(ImVec2(b0.x + fh * 1.7f, y - fh * 0.5f), f.textCol, s.label.c_str());
    ++row;
  }
}

// Hover: vertical cursor, nearest point of each series (by x) in a tooltip; the nearest of
// those on screen is the one reported.
PlotHover drawHover(const PlotSpec& spec, const PlotFrame& f, bool hovered) {
  PlotHover hover;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (!hovered || mouse.x < f.p0.x || mouse.x > f.p1.x || mouse.y < f.p0.y || mouse.y > f.p1.y) return hover;
  hover.active = true;
  hover.x = f.ax.fromT((mouse.x - f.p0.x) / f.pw);
  f.dl->AddLine(ImVec2(mouse.x, f.p0.y), ImVec2(mouse.x, f.p1.y), themed(IM_COL32(255, 255, 255, 90)));
  ImGui::BeginTooltip();
  // With xReadout the header is its text alone (it names the x, e.g. "distances 16-31"), and a
  // point at that x is read out by its y alone.
  auto xText = [&](double x) { return spec.xReadout ? spec.xReadout(x) : formatReadout(x); };
  const std::string header = xText(hover.x);
  if (spec.xReadout) ImGui::TextUnformatted(header.c_str());
  else ImGui::Text("%s = %s", spec.xTitle.empty() ? "x" : spec.xTitle.c_str(), header.c_str());
  float bestPix = std::numeric_limits<float>::infinity();
  for (std::size_t si = 0; si < spec.series.size(); ++si) {
    const PlotSeries& s = spec.series[si];
    const std::size_t n = std::min(s.x.size(), s.y.size());
    int best = -1;
    float bestDx = std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
      if (!f.ax.usable(s.x[i]) || !f.ay.usable(s.y[i])) continue;
      const float d = std::fabs(f.sx(s.x[i]) - mouse.x);
      if (d < bestDx) {
        bestDx = d;
        best = static_cast<int>(i);
      }
    }
    if (best < 0) continue;
    const ImU32 col = seriesColor(spec, si);
    const ImVec2 pt(f.sx(s.x[static_cast<std::size_t>(best)]), f.sy(s.y[static_cast<std::size_t>(best)]));
    f.dl->AddCircle(pt, 4.5f, col, 12, 2.0f);
    const float pix = std::hypot(pt.x - mouse.x, pt.y - mouse.y);
    if (pix < bestPix) {
      bestPix = pix;
      hover.series = static_cast<int>(si);
      hover.index = best;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, col);
    const std::string px = xText(s.x[static_cast<std::size_t>(best)]), py = formatReadout(s.y[static_cast<std::size_t>(best)]);
    if (spec.xReadout && px == header) ImGui::Text("%s: %s", s.label.empty() ? "series" : s.label.c_str(), py.c_str());
    else ImGui::Text("%s: (%s, %s)", s.label.empty() ? "series" : s.label.c_str(), px.c_str(), py.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::EndTooltip();
  return hover;
}

// Hovering an axis title that has a tip shows it (the formula behind the plain words). True when
// one is shown, so the data readout stays out of the way.
bool axisTitleTooltip(const PlotSpec& spec, const PlotFrame& f) {
  const struct {
    const std::string& title;
    const std::string& tip;
    ImVec2 pos;
  } titles[] = {{spec.xTitle, spec.xTip, xTitlePos(spec, f)}, {spec.yTitle, spec.yTip, yTitlePos(spec, f)}};
  for (const auto& t : titles) {
    if (t.title.empty() || t.tip.empty()) continue;
    const ImVec2 ts = ImGui::CalcTextSize(t.title.c_str());
    if (!ImGui::IsMouseHoveringRect(ImVec2(t.pos.x - 2, t.pos.y - 2), ImVec2(t.pos.x + ts.x + 2, t.pos.y + ts.y + 3))) continue;
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(t.title.c_str());
    ImGui::Separator();
    ImGui::PushTextWrapPos(f.fh * 36.0f);
    ImGui::TextUnformatted(t.tip.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
    return true;
  }
  return false;
}

// Everything the plot's picture (all but the hover overlay) is drawn from.
std::uint64_t pictureKey(const PlotSpec& spec, float w, float h) {
  RetainedKey k;
  k.add(w).add(h).add(spec.title).add(spec.noteSlot).add(spec.xTitle).add(spec.yTitle).add(spec.xTip).add(spec.yTip);
  k.add(spec.legendOutside).add(spec.logX).add(spec.logY).add(spec.fixedY).add(spec.yMin).add(spec.yMax);
  k.add(spec.legendAbove).add(spec.hideLegend).add(spec.fixedX).add(spec.xMin).add(spec.xMax);
  for (const PlotTick& t : spec.xTicks) k.add(t.x).add(t.label);
  for (const PlotSeries& s : spec.series)
    k.add(s.label).add(s.x).add(s.y).add(s.color).add(s.scatter).add(s.thickness).add(s.dots);
  for (const PlotMarker& m : spec.markers) k.add(m.x).add(m.label).add(m.color);
  for (const PlotBand& b : spec.bands) k.add(b.x0).add(b.x1).add(b.label).add(b.color);
  return k.value();
}

}  // namespace

namespace {

PlotHover drawPlotAt(const char* id, const PlotSpec& spec, float w, float h) {
  ImGui::PushID(id);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##plot", ImVec2(w, h));
  const bool hovered = ImGui::IsItemHovered() && !figureExportPass();
  const PlotFrame f = layoutPlot(spec, origin, w, h);
  drawRetained("##picture", origin, ImVec2(w, h), pictureKey(spec, w, h), [&](ImDrawList* dl) {
    PlotFrame into = f;
    into.dl = dl;
    drawBackground(spec, into);
    drawGridAndTicks(spec, into);
    drawData(spec, into);
    drawTitleAndLegend(spec, into);
  });
  if (!spec.note.empty()) {
    const float nw = ImGui::CalcTextSize(spec.note.c_str()).x;
    ImGui::GetWindowDrawList()->AddText(ImVec2(origin.x + w - nw, origin.y), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                                        spec.note.c_str());
  }
  const bool onTitle = hovered && axisTitleTooltip(spec, f);
  const PlotHover hover = drawHover(spec, f, hovered && !onTitle);
  ImGui::PopID();
  return hover;
}

}  // namespace

PlotHover drawPlot(const char* id, const PlotSpec& spec, float width, float height) {
  const float w = width > 0 ? width : std::max(ImGui::GetContentRegionAvail().x, 60.0f);
  const float h = height > 0 ? height : 260.0f * ImGui::GetFontSize() / 15.0f;
  PlotHover hover;
  drawFigure(id, {spec.title.empty() ? std::string(id) : spec.title, "", !spec.title.empty()}, ImVec2(w, h),
             [&](ImVec2 size) { hover = drawPlotAt(id, spec, size.x, size.y); });
  return hover;
}

}  // namespace posviz::app
