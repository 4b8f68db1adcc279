// heatmap.cpp: the heatmap widget.
//
// [SECTION] Whole grids and the texture's lifetime
// [SECTION] Texture upload
// [SECTION] Axes and colorbar
// [SECTION] drawHeatmap (layout, zoom, window, image, axes, hover)
#include "app/gui/widgets/heatmap.hpp"
#include "app/gui/widgets/theme.hpp"

#include "app/gui/widgets/figure_export.hpp"

#include "app/gui/platform/gl.hpp"
#include "app/gui/platform/platform.hpp"
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/ui_common.hpp"

namespace posviz::app {

namespace {

constexpr float kPi2 = 6.283185307179586f;
constexpr const char* kAngleNames[] = {"0", "pi/2", "pi", "3pi/2", "2pi"};

}  // namespace

// -----------------------------------------------------------------------------------------------
// [SECTION] Whole grids and the texture's lifetime
// -----------------------------------------------------------------------------------------------

std::string averagedCellsNote(const HeatmapWindow& w, const std::string& stat) {
  if (w.outRows <= 0 || w.outCols <= 0 || (w.rows <= w.outRows && w.cols <= w.outCols)) return "";
  const double perRow = static_cast<double>(w.rows) / w.outRows, perCol = static_cast<double>(w.cols) / w.outCols;
  return "1 px = " + stat + " of " + formatCount(std::llround(perRow * perCol)) + " cells (" + formatShort(perRow, 3) + " x " +
         formatShort(perCol, 3) + ")";
}

HeatmapImage wholeGridImage(const Grid& g, long long version) {
  HeatmapImage img;
  img.window = fullWindow(g.rows, g.cols, g.rows, g.cols);
  img.cells = g;
  img.range = finiteRange(g);
  img.version = version;
  return img;
}

void releaseHeatmap(HeatmapState& state) {
  if (state.texture != 0) {
    const GLuint t = state.texture;
    platform::forgetTexture(t);
    glDeleteTextures(1, &t);
  }
  state.texture = 0;
  state.textureRows = state.textureCols = state.storageRows = state.storageCols = 0;
  state.uploadedVersion = -1;
  state.uploadedKey = 0;
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Texture upload
// -----------------------------------------------------------------------------------------------

namespace {

struct Scale {
  ColorScale color;
  float lo = 0.0f, hi = 1.0f;   // what the colorbar spans
};

// The light theme draws magma, whose low end is black, as blues, whose low end is white: a grid
// of mostly near-zero weights reads as paper with the strong ones marked, as on a printed page.
Colormap themedColormap(Colormap c) { return lightTheme() && c == Colormap::Magma ? Colormap::Blues : c; }

Scale scaleFor(const HeatmapSpec& spec, const HeatmapImage& image) {
  Scale s;
  s.color.map = themedColormap(spec.colormap);
  ValueRange r = image.range;
  if (spec.fixedRange) {
    r = {spec.rangeMin, spec.rangeMax};
  } else if (r.min == 0.0f && r.max == 0.0f && !image.cells.values.empty()) {
    r = finiteRange(image.cells);
  }
  if (spec.isAngle) {
    s.lo = 0.0f;
    s.hi = kPi2;
    s.color.map = themedColormap(spec.colormap);
    s.color.period = kPi2;
  } else if (spec.symmetricRange || colormapKind(spec.colormap) == ColormapKind::Diverging) {
    float m = std::max(std::fabs(r.min), std::fabs(r.max));
    if (!(m > 0.0f)) m = 1.0f;
    s.lo = -m;
    s.hi = m;
  } else {
    s.lo = r.min;
    s.hi = r.max;
    if (!(s.hi > s.lo)) {
      s.lo -= 0.5f;
      s.hi += 0.5f;
    }
  }
  s.color.min = s.lo;
  s.color.max = s.hi;
  return s;
}

bool sameScale(const ColorScale& a, const ColorScale& b) {
  return a.map == b.map && a.min == b.min && a.max == b.max && a.period == b.period;
}

unsigned long long keyFor(const HeatmapImage& image, const Scale& s) {
  unsigned long long k = static_cast<unsigned long long>(image.version) * 1000003ull;
  unsigned int bits = 0;
  std::memcpy(&bits, &s.lo, 4);
  k ^= bits * 2654435761ull;
  std::memcpy(&bits, &s.hi, 4);
  k ^= (static_cast<unsigned long long>(bits) << 21) * 40503ull;
  k ^= static_cast<unsigned long long>(s.color.map) << 56;
  return k | 1ull;
}

// drawnW x drawnH: the pixels the image covers now. Mipmaps cost a pass over the texture (a
// millisecond or two on a software GL, every new picture); they are built only when the image
// has more cells than pixels, which a display-resolution picture never has.
void upload(HeatmapState& state, const HeatmapImage& image, const Scale& s, float drawnW, float drawnH) {
  const Grid* g = &image.cells;
  Grid reduced;
  GLint maxSize = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxSize);
  if (maxSize <= 0) maxSize = 4096;
  if (g->rows > maxSize || g->cols > maxSize) {
    HeatmapWindow w = fullWindow(g->rows, g->cols, std::min(g->rows, maxSize), std::min(g->cols, maxSize));
    areaAverageWindow(*g, w, reduced);
    g = &reduced;
  }
  // Coloured on the worker when the scale there was this one; else here.
  const bool precoloured = g == &image.cells && image.colors.size() == g->values.size() &&
                           sameScale(image.colorScale, s.color);
  std::vector<Rgba8> rgba;
  if (!precoloured) {
    rgba.resize(g->values.size());
    colormapLutColors(s.color, g->values, rgba);
  }
  const Rgba8* pixels = precoloured ? image.colors.data() : rgba.data();
  if (state.texture == 0) {
    GLuint t = 0;
    glGenTextures(1, &t);
    state.texture = t;
    state.storageRows = state.storageCols = 0;   // no storage yet
  }
  // Display cells are already area-averaged at screen resolution; mipmaps only matter for a
  // whole grid drawn smaller than its cell count (then they average instead of aliasing).
  const bool minified = static_cast<float>(g->cols) > drawnW + 0.5f || static_cast<float>(g->rows) > drawnH + 0.5f;
  // A picture drawn at most one texel a pixel sits in the top-left corner of power-of-two
  // storage, sampled nearest: a software GL samples such a texture faster (llvmpipe: about half a
  // millisecond of rasterizer time a frame less at 716 x 498 texels), and the padding is never
  // read. A mipmapped texture keeps its exact size, so no level averages the padding in.
  const int pow2Rows = static_cast<int>(std::bit_ceil(static_cast<unsigned>(g->rows)));   // rows, cols <= maxSize
  const int pow2Cols = static_cast<int>(std::bit_ceil(static_cast<unsigned>(g->cols)));
  const bool padded = !minified && pow2Rows <= maxSize && pow2Cols <= maxSize;
  const int storageRows = padded ? pow2Rows : g->rows, storageCols = padded ? pow2Cols : g->cols;
  glBindTexture(GL_TEXTURE_2D, state.texture);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  // Same storage as before: write into it instead of making new storage (a software GL would
  // allocate and clear it again for every picture of a drag).
  if (storageRows != state.storageRows || storageCols != state.storageCols) {
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, storageCols, storageRows, 0, GL_RGBA, GL_UNSIGNED_BYTE, padded ? nullptr : pixels);
    if (padded) glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, g->cols, g->rows, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    platform::noteTextureSize(state.texture, storageCols, storageRows);
  } else {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, g->cols, g->rows, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  }
  if (minified) glGenerateMipmap(GL_TEXTURE_2D);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, minified ? GL_LINEAR_MIPMAP_LINEAR : padded ? GL_NEAREST : GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, 0);
  state.textureRows = g->rows;
  state.textureCols = g->cols;
  state.storageRows = storageRows;
  state.storageCols = storageCols;
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Axes and colorbar
// -----------------------------------------------------------------------------------------------

std::string axisLabel(const HeatmapAxis& a, long long index) {
  const double v = a.origin + static_cast<double>(index) * a.scale;
  if (v == std::floor(v) && std::fabs(v) < 1e15) return formatCount(static_cast<long long>(v));
  return formatShort(v);
}

// A label in a few characters for huge indices: 1.5G, 250M, 40k.
std::string compactLabel(const HeatmapAxis& a, long long index) {
  const double v = a.origin + static_cast<double>(index) * a.scale;
  const double av = std::fabs(v);
  const struct {
    double unit;
    const char* suffix;
  } units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& u : units)
    if (av >= u.unit) return formatShort(v / u.unit, 3) + u.suffix;
  return axisLabel(a, index);
}

// Ticks at cell centres of integer labels within [i0, i1) (index space), in label units.
std::vector<double> indexTicks(const HeatmapAxis& a, double i0, double i1, int maxTicks) {
  const double l0 = a.origin + i0 * a.scale;
  const double l1 = a.origin + i1 * a.scale;
  std::vector<double> labels = niceTicks(std::min(l0, l1), std::max(l0, l1), maxTicks);
  std::vector<double> idx;
  for (double l : labels) {
    const double i = (l - a.origin) / a.scale;
    if (std::fabs(i - std::round(i)) > 1e-6) continue;   // ticks only on real cells
    if (i >= std::floor(i0) && i < i1) idx.push_back(std::round(i));
  }
  return idx;
}

void drawColorbar(ImDrawList* dl, ImVec2 p0, ImVec2 p1, const Scale& s, const HeatmapSpec& spec) {
  const int steps = 96;
  const float h = p1.y - p0.y;
  for (int i = 0; i < steps; ++i) {
    const float tTop = 1.0f - static_cast<float>(i) / static_cast<float>(steps);
    const float tBot = 1.0f - static_cast<float>(i + 1) / static_cast<float>(steps);
    const Rgba8 a = colormapColor(s.color.map, tTop);
    const Rgba8 b = colormapColor(s.color.map, tBot);
    const ImU32 ca = IM_COL32(a.r, a.g, a.b, 255);
    const ImU32 cb = IM_COL32(b.r, b.g, b.b, 255);
    const float fi = static_cast<float>(i), fs = static_cast<float>(steps);
    dl->AddRectFilledMultiColor(ImVec2(p0.x, p0.y + h * fi / fs), ImVec2(p1.x, p0.y + h * (fi + 1.0f) / fs), ca, ca,
                                cb, cb);
  }
  dl->AddRect(p0, p1, ImGui::GetColorU32(ImGuiCol_Border));
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const float fh = ImGui::GetFontSize();
  const int maxTicks = std::max(2, static_cast<int>(h / (fh * 3.2f)));
  std::vector<double> ticks;
  if (spec.isAngle) {
    ticks = {0.0, 1.5707963267948966, 3.141592653589793, 4.71238898038469, 6.283185307179586};
  } else {
    ticks = niceTicks(s.lo, s.hi, maxTicks);
  }
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1.0;
  for (std::size_t i = 0; i < ticks.size(); ++i) {
    const double t = (ticks[i] - s.lo) / (static_cast<double>(s.hi) - s.lo);
    const float y = p1.y - static_cast<float>(t) * h;
    dl->AddLine(ImVec2(p1.x, y), ImVec2(p1.x + 3, y), text);
    const std::string label = spec.isAngle ? kAngleNames[i] : formatTick(ticks[i], step);
    dl->AddText(ImVec2(p1.x + 8, y - fh * 0.5f), text, label.c_str());
  }
  // Value name above the bar, extending right into the margin (the hint line ends left of it).
  dl->AddText(ImVec2(p0.x - 2.0f, p0.y - fh * 1.45f), text, spec.valueName.c_str());
}

}  // namespace

void colorHeatmapImage(HeatmapImage& image, const HeatmapSpec& spec) {
  const Scale s = scaleFor(spec, image);
  image.colors.resize(image.cells.values.size());
  colormapLutColors(s.color, image.cells.values, image.colors);
  image.colorScale = s.color;
}

// -----------------------------------------------------------------------------------------------
// [SECTION] drawHeatmap (layout, zoom, window, image, axes, hover)
// -----------------------------------------------------------------------------------------------

namespace {

struct Margins {
  float left, top, bottom, right;
};

Margins marginsFor(float fh, bool colorbar) { return {fh * 4.2f, fh * 1.6f, fh * 2.9f, colorbar ? fh * 6.0f : fh * 0.5f}; }

}  // namespace

float heatmapWidthForSquareCells(float height, long long rows, long long cols, bool colorbar, float maxWidth) {
  const Margins m = marginsFor(ImGui::GetFontSize(), colorbar);
  const float ph = std::max(height - m.top - m.bottom, 20.0f);
  const float pw = rows > 0 ? ph * static_cast<float>(cols) / static_cast<float>(rows) : ph;
  return std::min(maxWidth, m.left + m.right + pw);
}

namespace {

// Where the widget lies on screen this frame, and the logical grid it shows.
struct HeatmapFrame {
  ImVec2 origin;              // the widget's top-left corner (screen pixels)
  ImVec2 p0, p1;              // the plot area (image), pixels
  float pw = 0, ph = 0;       // plot area size, pixels
  float fh = 0;               // font size, pixels
  long long R = 0, C = 0;     // logical rows and cols
  ImDrawList* dl = nullptr;
  ImU32 textCol = 0, dimCol = 0;

  // Logical (fractional) index -> screen pixel, through the current view.
  float toX(const HeatmapState& s, double col) const { return p0.x + static_cast<float>((col - s.viewCol0) / s.viewCols * pw); }
  float toY(const HeatmapState& s, double row) const { return p0.y + static_cast<float>((row - s.viewRow0) / s.viewRows * ph); }
  // Screen pixel -> logical (fractional) index.
  double rowAt(const HeatmapState& s, float y) const { return s.viewRow0 + (y - p0.y) / ph * s.viewRows; }
  double colAt(const HeatmapState& s, float x) const { return s.viewCol0 + (x - p0.x) / pw * s.viewCols; }
};

// Margins: row tick labels on the left, column ticks + title below, colorbar on the right.
HeatmapFrame layoutFrame(const HeatmapState& state, const HeatmapSpec& spec, float w, float h) {
  HeatmapFrame f;
  f.origin = ImGui::GetCursorScreenPos();
  f.fh = ImGui::GetFontSize();
  f.dl = ImGui::GetWindowDrawList();
  f.textCol = ImGui::GetColorU32(ImGuiCol_Text);
  f.dimCol = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const Margins m = marginsFor(f.fh, state.showColorbar);
  f.p0 = ImVec2(f.origin.x + m.left, f.origin.y + m.top);
  f.p1 = ImVec2(f.origin.x + std::max(w - m.right, m.left + 20.0f), f.origin.y + std::max(h - m.bottom, m.top + 20.0f));
  f.pw = f.p1.x - f.p0.x;
  f.ph = f.p1.y - f.p0.y;
  f.R = spec.logicalRows;
  f.C = spec.logicalCols;
  return f;
}

void clampView(HeatmapState& s, long long R, long long C) {
  s.viewRows = std::clamp(s.viewRows, std::min(1.0, static_cast<double>(R)), static_cast<double>(R));
  s.viewCols = std::clamp(s.viewCols, std::min(1.0, static_cast<double>(C)), static_cast<double>(C));
  s.viewRow0 = std::clamp(s.viewRow0, 0.0, static_cast<double>(R) - s.viewRows);
  s.viewCol0 = std::clamp(s.viewCol0, 0.0, static_cast<double>(C) - s.viewCols);
}

// Zoom (wheel, anchored at the mouse: Shift = columns only, Ctrl = rows only), pan (drag) and
// reset (double-click) of the view in logical index space. Returns whether the mouse is over
// the plot area.
bool updateView(HeatmapState& state, const HeatmapFrame& f, bool hovered) {
  if (state.viewRows <= 0 || state.viewCols <= 0) {
    state.viewRow0 = 0;
    state.viewRows = static_cast<double>(f.R);
    state.viewCol0 = 0;
    state.viewCols = static_cast<double>(f.C);
  }
  clampView(state, f.R, f.C);

  const ImGuiIO& io = ImGui::GetIO();
  const bool inPlot = hovered && io.MousePos.x >= f.p0.x && io.MousePos.x < f.p1.x && io.MousePos.y >= f.p0.y &&
                      io.MousePos.y < f.p1.y;
  if (inPlot && io.MouseWheel != 0.0f) {
    const double k = std::pow(1.25, -static_cast<double>(io.MouseWheel));
    const double mr = f.rowAt(state, io.MousePos.y);
    const double mc = f.colAt(state, io.MousePos.x);
    if (!io.KeyShift) {
      state.viewRows *= k;
      state.viewRow0 = mr - (mr - state.viewRow0) * k;
    }
    if (!io.KeyCtrl) {
      state.viewCols *= k;
      state.viewCol0 = mc - (mc - state.viewCol0) * k;
    }
    clampView(state, f.R, f.C);
  }
  if (ImGui::IsItemActivated()) {
    state.dragging = true;
    state.clickCandidate = true;
  }
  if (state.dragging && ImGui::IsItemActive()) {
    const ImVec2 d = io.MouseDelta;
    if (d.x != 0.0f || d.y != 0.0f) {
      state.viewRow0 -= d.y / f.ph * state.viewRows;
      state.viewCol0 -= d.x / f.pw * state.viewCols;
      clampView(state, f.R, f.C);
    }
    if (ImGui::IsMouseDragging(ImGuiMouseButton_Left, 3.0f)) state.clickCandidate = false;
  }
  if (state.dragging && !ImGui::IsItemActive()) state.dragging = false;
  if (inPlot && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    state.resetView();
    state.viewRows = static_cast<double>(f.R);
    state.viewCols = static_cast<double>(f.C);
  }
  return inPlot;
}

// The window the view should compute: whole logical cells covering the view, at most one
// display cell per pixel.
HeatmapWindow wantedWindow(const HeatmapState& state, const HeatmapFrame& f) {
  HeatmapWindow want;
  want.row0 = static_cast<long long>(std::floor(state.viewRow0));
  want.rows = std::min(f.R, static_cast<long long>(std::ceil(state.viewRow0 + state.viewRows))) - want.row0;
  want.col0 = static_cast<long long>(std::floor(state.viewCol0));
  want.cols = std::min(f.C, static_cast<long long>(std::ceil(state.viewCol0 + state.viewCols))) - want.col0;
  want.outRows = static_cast<int>(std::clamp<long long>(static_cast<long long>(f.ph), 1, want.rows));
  want.outCols = static_cast<int>(std::clamp<long long>(static_cast<long long>(f.pw), 1, want.cols));
  return want;
}

// The image, drawn where its window lies in the current view (a stale image keeps its place
// while the new one is computed); the mask colour shows where there is none.
void drawImage(HeatmapState& state, const HeatmapImage& image, const Scale& sc, const HeatmapFrame& f) {
  const ImU32 maskColor = IM_COL32(kMaskColor.r, kMaskColor.g, kMaskColor.b, 255);
  const auto mask = [&] { f.dl->AddRectFilled(f.p0, f.p1, maskColor); };
  if (image.cells.values.empty() || image.cells.rows <= 0 || image.cells.cols <= 0) return mask();
  // Scrolled out of sight (small multiples below the fold): no upload until it is seen.
  if (!ImGui::IsRectVisible(f.p0, f.p1)) return mask();
  const unsigned long long key = keyFor(image, sc);
  const HeatmapWindow& iw = image.window;
  // A picture of a grid of another size: its window in the new grid's units, stretched.
  const double sr = image.logicalRows > 0 ? static_cast<double>(f.R) / static_cast<double>(image.logicalRows) : 1.0;
  const double scl = image.logicalCols > 0 ? static_cast<double>(f.C) / static_cast<double>(image.logicalCols) : 1.0;
  const double r0 = static_cast<double>(iw.row0) * sr, r1 = static_cast<double>(iw.row0 + iw.rows) * sr;
  const double c0 = static_cast<double>(iw.col0) * scl, c1 = static_cast<double>(iw.col0 + iw.cols) * scl;
  const ImVec2 a(f.toX(state, c0), f.toY(state, r0)), b(f.toX(state, c1), f.toY(state, r1));
  // The image is opaque (every colour, the mask's too, has alpha 255), so the mask is drawn only
  // where the image may leave pixels: the frame outside the image, each strip reaching a pixel
  // into it for the pixels its edges cut. Under the whole image it was a pass over the same
  // pixels for nothing, a tenth of a frame on a software GL.
  {
    const float x0 = std::min(a.x, b.x), x1 = std::max(a.x, b.x), y0 = std::min(a.y, b.y), y1 = std::max(a.y, b.y);
    auto strip = [&](float sx0, float sy0, float sx1, float sy1) {
      sx0 = std::max(sx0, f.p0.x), sy0 = std::max(sy0, f.p0.y), sx1 = std::min(sx1, f.p1.x), sy1 = std::min(sy1, f.p1.y);
      if (sx1 > sx0 && sy1 > sy0) f.dl->AddRectFilled(ImVec2(sx0, sy0), ImVec2(sx1, sy1), maskColor);
    };
    strip(f.p0.x, f.p0.y, f.p1.x, y0 + 1.0f);   // above
    strip(f.p0.x, y1 - 1.0f, f.p1.x, f.p1.y);   // below
    strip(f.p0.x, f.p0.y, x0 + 1.0f, f.p1.y);   // left
    strip(x1 - 1.0f, f.p0.y, f.p1.x, f.p1.y);   // right
  }
  if (state.texture == 0 || state.uploadedKey != key) {
    upload(state, image, sc, std::fabs(b.x - a.x), std::fabs(b.y - a.y));
    state.uploadedKey = key;
    state.uploadedVersion = image.version;
  }
  f.dl->PushClipRect(f.p0, f.p1, true);
  const ImVec2 uv1(static_cast<float>(state.textureCols) / static_cast<float>(std::max(state.storageCols, 1)),
                   static_cast<float>(state.textureRows) / static_cast<float>(std::max(state.storageRows, 1)));
  f.dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(state.texture)), a, b, ImVec2(0, 0), uv1);
  state.imageX0 = a.x;
  state.imageY0 = a.y;
  state.imageX1 = b.x;
  state.imageY1 = b.y;
  f.dl->PopClipRect();
}

// Rows without data: hatched, with the reason written on them.
void drawNoDataRows(const HeatmapState& state, const HeatmapSpec& spec, const HeatmapFrame& f) {
  if (spec.noDataRowsFrom < 0 || spec.noDataRowsFrom >= f.R) return;
  const ImVec2 p0 = f.p0, p1 = f.p1;
  const float y0 = std::max(p0.y, f.toY(state, static_cast<double>(spec.noDataRowsFrom)));
  if (y0 >= p1.y) return;
  ImDrawList* dl = f.dl;
  dl->PushClipRect(ImVec2(p0.x, y0), p1, true);
  dl->AddRectFilled(ImVec2(p0.x, y0), p1, themed(IM_COL32(70, 70, 70, 255)));
  const float step = f.fh * 0.8f;
  for (float x = p0.x - (p1.y - y0); x < p1.x; x += step)
    dl->AddLine(ImVec2(x, p1.y), ImVec2(x + (p1.y - y0), y0), themed(IM_COL32(120, 120, 120, 255)), 1.0f);
  dl->AddLine(ImVec2(p0.x, y0), ImVec2(p1.x, y0), themed(IM_COL32(255, 196, 80, 255)), 2.0f);
  if (!spec.noDataLabel.empty() && p1.y - y0 > f.fh * 1.5f) {
    const ImVec2 ts = ImGui::CalcTextSize(spec.noDataLabel.c_str());
    const ImVec2 tp(p0.x + (f.pw - ts.x) * 0.5f, y0 + std::min((p1.y - y0 - ts.y) * 0.5f, f.fh * 3.0f));
    dl->AddRectFilled(ImVec2(tp.x - 6, tp.y - 3), ImVec2(tp.x + ts.x + 6, tp.y + ts.y + 3), themed(IM_COL32(30, 30, 30, 230)), 4.0f);
    dl->AddText(tp, themed(IM_COL32(255, 210, 120, 255)), spec.noDataLabel.c_str());
  }
  dl->PopClipRect();
}

// The highlighted cell (worked examples) as an outline, then the frame around the plot area.
void drawHighlightAndBorder(const HeatmapState& state, const HeatmapFrame& f) {
  if (state.highlightRow >= 0 && state.highlightCol >= 0) {
    f.dl->PushClipRect(f.p0, f.p1, true);
    const ImVec2 a(f.toX(state, static_cast<double>(state.highlightCol)), f.toY(state, static_cast<double>(state.highlightRow)));
    const ImVec2 b(f.toX(state, static_cast<double>(state.highlightCol + 1)),
                   f.toY(state, static_cast<double>(state.highlightRow + 1)));
    f.dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(std::max(b.x, a.x + 3) + 1, std::max(b.y, a.y + 3) + 1),
                  themed(IM_COL32(255, 255, 255, 255)), 0.0f, 0, 2.0f);
    f.dl->PopClipRect();
  }
  f.dl->AddRect(ImVec2(f.p0.x - 1, f.p0.y - 1), ImVec2(f.p1.x + 1, f.p1.y + 1), ImGui::GetColorU32(ImGuiCol_Border));
}

// A view of at most kValueSide x kValueSide cells, each big enough for its text, prints every
// value in its cell (the documents' 4 x 4 ALiBi bias, the 8 x 4 sinusoidal grid), exact from core
// when the spec can say, else the shown cell. Dark ink on light cells, white on dark ones.
constexpr long long kValueSide = 16;
void drawCellValues(const HeatmapState& state, const HeatmapSpec& spec, const HeatmapImage& image, const Scale& sc,
                    const HeatmapFrame& f) {
  const long long r0 = static_cast<long long>(std::floor(state.viewRow0)), c0 = static_cast<long long>(std::floor(state.viewCol0));
  const long long r1 = std::min(f.R, static_cast<long long>(std::ceil(state.viewRow0 + state.viewRows)));
  const long long c1 = std::min(f.C, static_cast<long long>(std::ceil(state.viewCol0 + state.viewCols)));
  if (r1 - r0 > kValueSide || c1 - c0 > kValueSide || r1 <= r0 || c1 <= c0) return;
  const HeatmapWindow& iw = image.window;
  const bool oneToOne = iw.outRows == iw.rows && iw.outCols == iw.cols;   // the image holds the cells themselves
  if (!spec.exactValue && !oneToOne) return;
  const float cellW = f.toX(state, 1.0) - f.toX(state, 0.0), cellH = f.toY(state, 1.0) - f.toY(state, 0.0);
  if (cellH < f.fh * 1.2f) return;
  // First every text, so that either all cells print their values or none does.
  struct Label {
    long long r, c;
    double v;
    std::string text;
  };
  std::vector<Label> labels;
  for (long long r = r0; r < r1; ++r)
    for (long long c = c0; c < c1; ++c) {
      double v = 0.0;
      if (spec.exactValue) v = spec.exactValue(r, c);
      else if (r >= iw.row0 && c >= iw.col0 && r < iw.row0 + iw.rows && c < iw.col0 + iw.cols)
        v = image.cells.at(static_cast<int>(r - iw.row0), static_cast<int>(c - iw.col0));
      else continue;
      if (!std::isfinite(v)) continue;
      labels.push_back({r, c, v, v == 0.0 ? "0" : formatShort(v, 3)});
      if (ImGui::CalcTextSize(labels.back().text.c_str()).x + 4.0f > cellW) return;
    }
  f.dl->PushClipRect(f.p0, f.p1, true);
  for (const Label& l : labels) {
    const ImVec2 ts = ImGui::CalcTextSize(l.text.c_str());
    const Rgba8 col = mapValue(sc.color, static_cast<float>(l.v));
    const bool light = 0.299 * col.r + 0.587 * col.g + 0.114 * col.b > 140.0;
    const float cx = (f.toX(state, static_cast<double>(l.c)) + f.toX(state, static_cast<double>(l.c + 1))) * 0.5f;
    const float cy = (f.toY(state, static_cast<double>(l.r)) + f.toY(state, static_cast<double>(l.r + 1))) * 0.5f;
    f.dl->AddText(ImVec2(cx - ts.x * 0.5f, cy - ts.y * 0.5f), light ? IM_COL32(15, 15, 20, 255) : IM_COL32(245, 245, 250, 255), l.text.c_str());
  }
  f.dl->PopClipRect();
}

// Row and column ticks in the data's units at cell centres.
void drawTicks(const HeatmapState& state, const HeatmapSpec& spec, const HeatmapFrame& f) {
  const ImVec2 p0 = f.p0, p1 = f.p1;
  const int maxY = std::max(2, static_cast<int>(f.ph / (f.fh * 2.4f)));
  for (double i : indexTicks(spec.rowAxis, state.viewRow0, state.viewRow0 + state.viewRows, maxY)) {
    const float y = f.toY(state, i + 0.5);
    if (y < p0.y - 1 || y > p1.y + 1) continue;
    f.dl->AddLine(ImVec2(p0.x - 5, y), ImVec2(p0.x - 1, y), f.textCol);
    std::string s = axisLabel(spec.rowAxis, static_cast<long long>(i));
    ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    if (ts.x > p0.x - 7 - f.origin.x) {   // 2,000,000,000 does not fit the margin: 2G does
      s = compactLabel(spec.rowAxis, static_cast<long long>(i));
      ts = ImGui::CalcTextSize(s.c_str());
    }
    f.dl->AddText(ImVec2(p0.x - 7 - ts.x, y - ts.y * 0.5f), f.textCol, s.c_str());
  }
  const int maxX = std::max(2, static_cast<int>(f.pw / (f.fh * 4.5f)));
  for (double i : indexTicks(spec.colAxis, state.viewCol0, state.viewCol0 + state.viewCols, maxX)) {
    const float x = f.toX(state, i + 0.5);
    if (x < p0.x - 1 || x > p1.x + 1) continue;
    f.dl->AddLine(ImVec2(x, p1.y + 1), ImVec2(x, p1.y + 5), f.textCol);
    const std::string s = axisLabel(spec.colAxis, static_cast<long long>(i));
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    f.dl->AddText(ImVec2(x - ts.x * 0.5f, p1.y + 6), f.textCol, s.c_str());
  }
}

// The axis titles as drawn ("position \u2193", "dimension \u2192") and their top-left corners.
struct AxisTitles {
  std::string col, row;
  ImVec2 colPos, rowPos, colSize, rowSize;
};
AxisTitles axisTitles(const HeatmapSpec& spec, const HeatmapFrame& f) {
  AxisTitles t;
  t.col = spec.colAxis.title + "  \xe2\x86\x92";
  t.colSize = ImGui::CalcTextSize(t.col.c_str());
  t.colPos = ImVec2(f.p0.x + (f.pw - t.colSize.x) * 0.5f, f.p1.y + f.fh * 1.55f);
  t.row = spec.rowAxis.title + " \xe2\x86\x93";
  t.rowSize = ImGui::CalcTextSize(t.row.c_str());
  t.rowPos = ImVec2(f.origin.x, f.origin.y + f.fh * 0.1f);
  return t;
}

// A title with a tip is underlined with dots: hovering it explains it.
void underlineDotted(ImDrawList* dl, ImVec2 pos, float width, float textH, ImU32 col) {
  const float y = pos.y + textH + 1.0f;
  for (float x = pos.x; x < pos.x + width; x += 4.0f) dl->AddLine(ImVec2(x, y), ImVec2(std::min(x + 2.0f, pos.x + width), y), col);
}

// Hovering an axis title with a tip shows the title and its formula.
void axisTitleTooltip(const HeatmapSpec& spec, const HeatmapFrame& f) {
  const AxisTitles t = axisTitles(spec, f);
  const struct {
    const HeatmapAxis& axis;
    const std::string& tip;
    ImVec2 pos, size;
  } items[] = {{spec.colAxis, spec.colTip, t.colPos, t.colSize}, {spec.rowAxis, spec.rowTip, t.rowPos, t.rowSize}};
  for (const auto& it : items) {
    if (it.tip.empty() ||
        !ImGui::IsMouseHoveringRect(ImVec2(it.pos.x - 2, it.pos.y - 2), ImVec2(it.pos.x + it.size.x + 2, it.pos.y + it.size.y + 3)))
      continue;
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(it.axis.title.c_str());
    ImGui::Separator();
    ImGui::PushTextWrapPos(f.fh * 36.0f);
    ImGui::TextUnformatted(it.tip.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
    return;
  }
}

// A picture made for another window or grid size stays up while its successor is computed,
// marked in the plot's corner.
void drawStaleMark(const HeatmapImage& image, const HeatmapWindow& want, const HeatmapFrame& f) {
  if (image.cells.values.empty() || figureExportPass()) return;
  const bool otherGrid = (image.logicalRows > 0 && image.logicalRows != f.R) || (image.logicalCols > 0 && image.logicalCols != f.C);
  if (!otherGrid && image.window == want) return;
  const char* text = "updating...";
  const ImVec2 ts = ImGui::CalcTextSize(text);
  const ImVec2 a(f.p0.x + f.fh * 0.3f, f.p0.y + f.fh * 0.3f), b(a.x + ts.x + f.fh * 0.6f, a.y + ts.y + f.fh * 0.3f);
  f.dl->AddRectFilled(a, b, IM_COL32(20, 20, 20, 190), f.fh * 0.2f);
  f.dl->AddText(ImVec2(a.x + f.fh * 0.3f, a.y + f.fh * 0.15f), IM_COL32(255, 220, 120, 255), text);
}

// Axis titles, and a hint on the title line only where it fits beside the row title.
void drawTitlesAndHint(const HeatmapState& state, const HeatmapSpec& spec, const HeatmapFrame& f, const HeatmapWindow& want,
                       const std::string& pixelStat) {
  const AxisTitles t = axisTitles(spec, f);
  f.dl->AddText(t.colPos, f.textCol, t.col.c_str());
  if (!spec.colTip.empty())
    underlineDotted(f.dl, t.colPos, ImGui::CalcTextSize(spec.colAxis.title.c_str()).x, t.colSize.y, f.textCol);
  f.dl->AddText(t.rowPos, f.textCol, t.row.c_str());
  if (!spec.rowTip.empty())
    underlineDotted(f.dl, t.rowPos, ImGui::CalcTextSize(spec.rowAxis.title.c_str()).x, t.rowSize.y, f.textCol);
  const ImVec2 rts = t.rowSize;
  const bool zoomed = state.viewRows < static_cast<double>(f.R) || state.viewCols < static_cast<double>(f.C);
  const std::string info = averagedCellsNote(want, pixelStat);
  const bool file = figureExportPass();   // a file says what a pixel is, not how to zoom
  const std::string hints[] = {file ? info : info + (info.empty() ? "" : "   ") + (zoomed ? "double-click: reset zoom" : "wheel: zoom, drag: pan"),
                               info, zoomed && !file ? "double-click: reset" : ""};
  for (const std::string& hint : hints) {
    if (hint.empty()) continue;
    const ImVec2 hs = ImGui::CalcTextSize(hint.c_str());
    if (f.p1.x - hs.x < f.origin.x + rts.x + f.fh) continue;
    f.dl->AddText(ImVec2(f.p1.x - hs.x, f.origin.y + f.fh * 0.1f), f.dimCol, hint.c_str());
    break;
  }
}

// The exact value from core (or why there is none) and the formula, for logical cell (r, c).
void hoverValueLines(const HeatmapSpec& spec, long long r, long long c, float fh) {
  const bool noData = spec.noDataRowsFrom >= 0 && r >= spec.noDataRowsFrom;
  double exact = std::numeric_limits<double>::quiet_NaN();
  bool haveExact = false;
  if (spec.exactValue && !noData) {
    exact = spec.exactValue(r, c);
    haveExact = true;
  }
  if (noData || (haveExact && !std::isfinite(exact))) {
    ImGui::PushStyleColor(ImGuiCol_Text, themed(IM_COL32(255, 196, 80, 255)));
    ImGui::TextUnformatted(noData ? "no data" : (std::isnan(exact) ? "masked (nan)" : (exact < 0 ? "masked (-inf)" : "masked (+inf)")));
    ImGui::PopStyleColor();
    if (!spec.maskedReason.empty()) ImGui::TextUnformatted(spec.maskedReason.c_str());
  } else if (haveExact) {
    ImGui::Text("%s = %s", spec.valueName.c_str(), formatShort(exact, 7).c_str());
  }
  if (!spec.formula) return;
  const std::string formula = spec.formula(r, c);
  if (formula.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
  ImGui::PushTextWrapPos(fh * 40.0f);
  ImGui::TextUnformatted(formula.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

// The display cell under the mouse, when it averages several logical cells: which ones, and
// the mean shown.
void hoverAveragedCellLine(const HeatmapSpec& spec, const HeatmapImage& image, long long r, long long c) {
  const HeatmapWindow& iw = image.window;
  if (!(iw.outRows > 0 && iw.outCols > 0 && iw.outRows <= iw.rows && iw.outCols <= iw.cols && r >= iw.row0 && r < iw.row0 + iw.rows &&
        c >= iw.col0 && c < iw.col0 + iw.cols && (iw.rows > iw.outRows || iw.cols > iw.outCols) &&
        image.cells.rows == iw.outRows && image.cells.cols == iw.outCols))
    return;
  const int di = areaCellIndex(iw.rows, iw.outRows, r - iw.row0);
  const int dj = areaCellIndex(iw.cols, iw.outCols, c - iw.col0);
  const long long a0 = iw.row0 + areaCellBegin(iw.rows, iw.outRows, di), a1 = iw.row0 + areaCellBegin(iw.rows, iw.outRows, di + 1);
  const long long b0 = iw.col0 + areaCellBegin(iw.cols, iw.outCols, dj), b1 = iw.col0 + areaCellBegin(iw.cols, iw.outCols, dj + 1);
  const float shown = image.cells.at(di, dj);
  if ((a1 - a0) * (b1 - b0) <= 1) return;
  ImGui::Separator();
  ImGui::TextDisabled("this pixel shows the %s of %s cells, %s %s..%s x %s %s..%s: %s", image.pixelStat.c_str(),
                      formatCount((a1 - a0) * (b1 - b0)).c_str(), spec.rowAxis.title.c_str(),
                      axisLabel(spec.rowAxis, a0).c_str(), axisLabel(spec.rowAxis, a1 - 1).c_str(),
                      spec.colAxis.title.c_str(), axisLabel(spec.colAxis, b0).c_str(), axisLabel(spec.colAxis, b1 - 1).c_str(),
                      std::isfinite(shown) ? formatShort(shown, 5).c_str() : "no data");
  if (spec.blockStats) ImGui::TextDisabled("its cells: %s", spec.blockStats(a0, a1, b0, b1).c_str());
}

// Hover: logical indices, exact value from core, the formula; the displayed average too.
void drawHover(HeatmapState& state, const HeatmapSpec& spec, const HeatmapImage& image, const HeatmapFrame& f, bool inPlot) {
  state.hoverRow = state.hoverCol = -1;
  if (!inPlot || ImGui::IsMouseDragging(ImGuiMouseButton_Left, 3.0f)) return;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const long long r = std::clamp<long long>(static_cast<long long>(std::floor(f.rowAt(state, mouse.y))), 0, f.R - 1);
  const long long c = std::clamp<long long>(static_cast<long long>(std::floor(f.colAt(state, mouse.x))), 0, f.C - 1);
  state.hoverRow = r;
  state.hoverCol = c;
  ImGui::BeginTooltip();
  ImGui::Text("%s %s, %s %s", spec.rowAxis.title.c_str(), axisLabel(spec.rowAxis, r).c_str(), spec.colAxis.title.c_str(),
              axisLabel(spec.colAxis, c).c_str());
  hoverValueLines(spec, r, c, f.fh);
  hoverAveragedCellLine(spec, image, r, c);
  ImGui::EndTooltip();
}

}  // namespace

namespace {

bool drawHeatmapAt(const char* id, HeatmapState& state, const HeatmapSpec& spec, const HeatmapImage& image, float w, float h) {
  ImGui::PushID(id);
  const HeatmapFrame f = layoutFrame(state, spec, w, h);
  ImGui::InvisibleButton("##heatmap", ImVec2(w, h));
  const bool hovered = ImGui::IsItemHovered() && !figureExportPass();
  if (f.R <= 0 || f.C <= 0) {
    f.dl->AddRect(f.p0, f.p1, f.dimCol);
    f.dl->AddText(ImVec2(f.p0.x + 8, f.p0.y + 8), f.dimCol, "no data");
    state.wanted = {};
    ImGui::PopID();
    return false;
  }

  const bool inPlot = updateView(state, f, hovered);
  const HeatmapWindow want = wantedWindow(state, f);
  const bool changed = !(want == state.wanted);
  state.wanted = want;

  const Scale sc = scaleFor(spec, image);
  drawImage(state, image, sc, f);
  drawCellValues(state, spec, image, sc, f);
  drawNoDataRows(state, spec, f);
  drawHighlightAndBorder(state, f);
  drawTicks(state, spec, f);
  drawTitlesAndHint(state, spec, f, want, image.pixelStat);
  drawStaleMark(image, want, f);
  if (state.showColorbar) {
    const ImVec2 c0(f.p1.x + f.fh * 0.8f, f.p0.y + f.fh * 0.4f);
    const ImVec2 c1(c0.x + f.fh * 1.1f, f.p1.y);
    drawColorbar(f.dl, c0, c1, sc, spec);
  }
  drawHover(state, spec, image, f, inPlot);
  if (hovered && !inPlot) axisTitleTooltip(spec, f);

  // Click: press and release without dragging.
  if (spec.onClick && state.clickCandidate && ImGui::IsItemDeactivated() && inPlot) {
    state.clickCandidate = false;
    if (state.hoverRow >= 0) spec.onClick(state.hoverRow, state.hoverCol);
  }

  ImGui::PopID();
  return changed;
}

struct SessionViews {
  std::map<ImGuiID, cli::FigureView> zoomed;    // as last drawn
  std::map<ImGuiID, cli::FigureView> restore;   // to take when next drawn
  int generation = 0;                           // restoreHeatmapViews calls so far
};

SessionViews& sessionViews() {
  static SessionViews v;
  return v;
}

std::string figureKey(ImGuiID id) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(id));
  return buf;
}

// Before drawing: a restored session's view; after: the view kept for the next session saved.
void takeRestoredView(HeatmapState& state, ImGuiID key) {
  SessionViews& v = sessionViews();
  if (state.viewsRestored == v.generation) return;
  state.viewsRestored = v.generation;
  const auto it = v.restore.find(key);
  if (it == v.restore.end()) {
    state.resetView();
    return;
  }
  state.viewRow0 = it->second.row0;
  state.viewRows = it->second.rows;
  state.viewCol0 = it->second.col0;
  state.viewCols = it->second.cols;
}

void keepView(const HeatmapState& state, const HeatmapSpec& spec, ImGuiID key) {
  const bool zoomed = state.viewRows > 0 && state.viewCols > 0 &&
                      (state.viewRows < static_cast<double>(spec.logicalRows) || state.viewCols < static_cast<double>(spec.logicalCols));
  if (zoomed) sessionViews().zoomed[key] = cli::FigureView{state.viewRow0, state.viewRows, state.viewCol0, state.viewCols};
  else sessionViews().zoomed.erase(key);
}

// What a heatmap shows, when its spec gives no title: "PE by position and dimension".
std::string heatmapTitle(const HeatmapSpec& spec) {
  if (!spec.title.empty()) return spec.title;
  const std::string what = spec.valueName.empty() ? "values" : spec.valueName;
  if (spec.rowAxis.title.empty() || spec.colAxis.title.empty()) return what;
  return what + " by " + spec.rowAxis.title + " and " + spec.colAxis.title;
}

}  // namespace

bool drawHeatmap(const char* id, HeatmapState& state, const HeatmapSpec& spec, const HeatmapImage& image, float width,
                 float height) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float w = width > 0.0f ? width : std::max(avail.x, 50.0f);
  const float h = height > 0.0f ? height : std::max(avail.y, 50.0f);
  bool changed = false;
  ImGui::PushID(id);
  const ImGuiID key = ImGui::GetID("##figure");   // the figure's id (figure_export.cpp), the session's key
  ImGui::PopID();
  takeRestoredView(state, key);
  drawFigure(id, {heatmapTitle(spec), ""}, ImVec2(w, h), [&](ImVec2 size) {
    if (!figureExportPass()) {
      changed = drawHeatmapAt(id, state, spec, image, size.x, size.y);
      return;
    }
    HeatmapState copy = state;   // a file's picture changes neither the view nor what is computed
    drawHeatmapAt(id, copy, spec, image, size.x, size.y);
    if (copy.texture != state.texture) releaseAfterExport(copy.texture);
  });
  keepView(state, spec, key);
  return changed;
}

std::map<std::string, cli::FigureView> zoomedHeatmapViews() {
  std::map<std::string, cli::FigureView> out;
  for (const auto& [id, v] : sessionViews().zoomed) out[figureKey(id)] = v;
  return out;
}

void restoreHeatmapViews(const std::map<std::string, cli::FigureView>& views) {
  SessionViews& v = sessionViews();
  v.restore.clear();
  for (const auto& [key, view] : views) {
    unsigned id = 0;
    if (std::sscanf(key.c_str(), "%8x", &id) == 1) v.restore[static_cast<ImGuiID>(id)] = view;
  }
  v.zoomed = v.restore;
  ++v.generation;
}

void forgetHeatmapViews() {
  sessionViews().zoomed.clear();
  sessionViews().restore.clear();
}

void refreshImage(const Grid& g, const HeatmapState& hs, HeatmapImage& img, long long& version, bool force,
                  int fallbackOut, const ValueRange* knownRange) {
  if (g.rows == 0 || g.cols == 0) return;
  const int outRows = fallbackOut > 0 ? fallbackOut : g.rows, outCols = fallbackOut > 0 ? fallbackOut : g.cols;
  const HeatmapWindow w = windowInside(hs.wanted, g.rows, g.cols) ? hs.wanted : fullWindow(g.rows, g.cols, outRows, outCols);
  if (!force && img.window == w && img.version > 0) return;
  areaAverageWindow(g, w, img.cells);
  img.colors.clear();   // coloured for the cells it replaces: the widget colours these
  img.window = w;
  img.range = knownRange ? *knownRange : finiteRange(g);
  img.version = ++version;
}

}  // namespace posviz::app
