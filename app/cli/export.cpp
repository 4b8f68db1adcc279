// export.cpp
// [SECTION] Number formatting
// [SECTION] Text drawing (stb_truetype, embedded DejaVu Sans)
// [SECTION] Heatmap image
// [SECTION] PNG encoding (libspng)
// [SECTION] SVG
// [SECTION] CSV and JSON
#include "app/cli/export.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string_view>

#include <nlohmann/json.hpp>
#include <spng.h>
#include <stb/stb_truetype.h>

#include "core/atomic_file.hpp"
#include "core/check.hpp"
#include "core/embedded.hpp"
#include "core/npy.hpp"
#include "core/portable.hpp"

namespace posviz::cli {

// [SECTION] Number formatting

namespace {

template <typename T>
std::string formatFloating(T v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  const auto [ptr, ec] = toCharsShortest(buf, buf + sizeof buf, v);
  if (ec != std::errc()) return "nan";
  return std::string(buf, ptr);
}

void appendNumber(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
  } else if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
  } else {
    char buf[64];
    const auto [ptr, ec] = toCharsShortest(buf, buf + sizeof buf, v);
    out.append(buf, ec == std::errc() ? ptr : buf);
  }
}

void appendNumber(std::string& out, float v) {
  if (!std::isfinite(v)) {
    appendNumber(out, static_cast<double>(v));
    return;
  }
  char buf[64];
  const auto [ptr, ec] = toCharsShortest(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc() ? ptr : buf);
}

std::string shortLabel(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

std::string formatNumber(double v) { return formatFloating(v); }
std::string formatNumber(float v) { return formatFloating(v); }

// [SECTION] Text drawing (stb_truetype, embedded DejaVu Sans)

namespace {

constexpr std::uint8_t kInk = 20;        // text grey level on the white margin
constexpr int kMargin = 8;                // pixels around decorations
constexpr int kMinCaptionWidth = 360;     // a caption wraps at the picture's width, but not narrower
constexpr float kFontPixels = 15.0f;

struct AlphaBitmap {
  int width = 0, height = 0;
  std::vector<std::uint8_t> alpha;
};

// Decodes UTF-8 into code points; invalid bytes become '?'.
std::vector<int> codepoints(const std::string& s) {
  std::vector<int> out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + static_cast<std::size_t>(len) > s.size()) {
      out.push_back('?');
      ++i;
      continue;
    }
    int cp = len == 1 ? c : c & (0x7f >> len);
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) & 0x3f);
    out.push_back(cp);
    i += static_cast<std::size_t>(len);
  }
  return out;
}

void requireTextScale(const char* fn, float s) {
  if (!(s >= kMinTextScale && s <= kMaxTextScale))
    throw std::invalid_argument(std::string(fn) + ": textScale must be in [0.5, 4], got " + std::to_string(s));
}

class TextRenderer {
 public:
  explicit TextRenderer(float pixels = kFontPixels) {
    const embedded::File* font = embedded::fonts.find("DejaVuSans.ttf");
    ok_ = font != nullptr &&
          stbtt_InitFont(&font_, font->data, stbtt_GetFontOffsetForIndex(font->data, 0)) != 0;
    if (!ok_) return;
    scale_ = stbtt_ScaleForPixelHeight(&font_, pixels);
    int ascent = 0, descent = 0, gap = 0;
    stbtt_GetFontVMetrics(&font_, &ascent, &descent, &gap);
    ascent_ = static_cast<int>(std::ceil(static_cast<float>(ascent) * scale_));
    lineHeight_ = static_cast<int>(std::ceil(static_cast<float>(ascent - descent) * scale_));
  }
  int lineHeight() const { return lineHeight_; }
  int ascent() const { return ascent_; }
  // The em size that gives this line height, for an SVG font-size that matches the PNG's text.
  float emPixels() const { return ok_ ? scale_ / stbtt_ScaleForMappingEmToPixels(&font_, 1.0f) : static_cast<float>(lineHeight_); }

  // Renders one line into an alpha bitmap (lineHeight() tall).
  AlphaBitmap render(const std::string& text) const {
    AlphaBitmap bmp;
    if (!ok_) return bmp;
    const std::vector<int> cps = codepoints(text);
    float x = 0.0f;
    std::vector<float> xs;
    for (std::size_t i = 0; i < cps.size(); ++i) {
      xs.push_back(x);
      int advance = 0, lsb = 0;
      stbtt_GetCodepointHMetrics(&font_, cps[i], &advance, &lsb);
      x += static_cast<float>(advance) * scale_;
      if (i + 1 < cps.size()) x += static_cast<float>(stbtt_GetCodepointKernAdvance(&font_, cps[i], cps[i + 1])) * scale_;
    }
    bmp.width = static_cast<int>(std::ceil(x)) + 2;
    bmp.height = lineHeight_;
    bmp.alpha.assign(static_cast<std::size_t>(bmp.width) * static_cast<std::size_t>(bmp.height), 0);
    for (std::size_t i = 0; i < cps.size(); ++i) {
      int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
      stbtt_GetCodepointBitmapBox(&font_, cps[i], scale_, scale_, &x0, &y0, &x1, &y1);
      const int gw = x1 - x0, gh = y1 - y0;
      if (gw <= 0 || gh <= 0) continue;
      std::vector<std::uint8_t> glyph(static_cast<std::size_t>(gw) * static_cast<std::size_t>(gh));
      stbtt_MakeCodepointBitmap(&font_, glyph.data(), gw, gh, gw, scale_, scale_, cps[i]);
      const int ox = static_cast<int>(std::lround(xs[i])) + x0;
      const int oy = ascent_ + y0;
      for (int gy = 0; gy < gh; ++gy) {
        for (int gx = 0; gx < gw; ++gx) {
          const int px = ox + gx, py = oy + gy;
          if (px < 0 || py < 0 || px >= bmp.width || py >= bmp.height) continue;
          std::uint8_t& dst = bmp.alpha[static_cast<std::size_t>(py) * static_cast<std::size_t>(bmp.width) + static_cast<std::size_t>(px)];
          dst = std::max(dst, glyph[static_cast<std::size_t>(gy) * static_cast<std::size_t>(gw) + static_cast<std::size_t>(gx)]);
        }
      }
    }
    return bmp;
  }

  int width(const std::string& text) const { return render(text).width; }

 private:
  stbtt_fontinfo font_{};
  bool ok_ = false;
  float scale_ = 1.0f;
  int ascent_ = 0;
  int lineHeight_ = 16;
};

// Rotated 90 degrees counter-clockwise, so the text reads bottom to top.
AlphaBitmap rotateLeft(const AlphaBitmap& b) {
  AlphaBitmap r;
  r.width = b.height;
  r.height = b.width;
  r.alpha.assign(b.alpha.size(), 0);
  for (int y = 0; y < b.height; ++y) {
    for (int x = 0; x < b.width; ++x) {
      const int rx = y, ry = b.width - 1 - x;
      r.alpha[static_cast<std::size_t>(ry) * static_cast<std::size_t>(r.width) + static_cast<std::size_t>(rx)] =
          b.alpha[static_cast<std::size_t>(y) * static_cast<std::size_t>(b.width) + static_cast<std::size_t>(x)];
    }
  }
  return r;
}

void blit(RgbImage& img, const AlphaBitmap& b, int x0, int y0, std::uint8_t ink = kInk) {
  for (int y = 0; y < b.height; ++y) {
    for (int x = 0; x < b.width; ++x) {
      const int px = x0 + x, py = y0 + y;
      if (px < 0 || py < 0 || px >= img.width || py >= img.height) continue;
      const int a = b.alpha[static_cast<std::size_t>(y) * static_cast<std::size_t>(b.width) + static_cast<std::size_t>(x)];
      if (a == 0) continue;
      std::uint8_t* p = img.pixel(px, py);
      for (int k = 0; k < 3; ++k) p[k] = static_cast<std::uint8_t>((p[k] * (255 - a) + ink * a + 127) / 255);
    }
  }
}

}  // namespace

// [SECTION] Heatmap image

int autoCellScale(long long rows, long long cols) {
  const long long longer = std::max({rows, cols, 1LL});
  const long long shorter = std::max(std::min(rows, cols), 1LL);
  auto atLeast = [](long long side, long long want) { return side >= want ? 1LL : (want + side - 1) / side; };
  const long long wanted = std::max(atLeast(longer, kReadableSide), atLeast(shorter, kReadableShortSide));
  return static_cast<int>(std::max(1LL, std::min(wanted, kMaxAutoSide / longer)));
}

ColorScale colorScaleFor(float min, float max, const Colormap* map, bool isAngle) {
  ColorScale s;
  s.map = map != nullptr ? *map : defaultColormapFor(min, max, isAngle);
  s.min = min;
  s.max = max;
  if (colormapKind(s.map) == ColormapKind::Diverging) {
    const float a = std::max(std::fabs(min), std::fabs(max));
    s.min = -a;
    s.max = a;
  }
  return s;
}

ColorScale autoColorScale(const Grid& g, const Colormap* map, bool isAngle) {
  const ValueRange r = finiteRange(g);
  return colorScaleFor(r.min, r.max, map, isAngle);
}

namespace {

constexpr int kBarWidth = 16;

// The four index labels of the axes: the options' own, else 0 and the last row / column.
struct AxisLabels {
  std::string rowFirst, rowLast, colFirst, colLast;
};
AxisLabels axisLabels(const Grid& g, const PngOptions& o) {
  return {o.rowFirst.empty() ? "0" : o.rowFirst, o.rowLast.empty() ? std::to_string(g.rows - 1) : o.rowLast,
          o.colFirst.empty() ? "0" : o.colFirst, o.colLast.empty() ? std::to_string(g.cols - 1) : o.colLast};
}

// A small grid in a picture with axis titles (at most kMarkedSide rows and columns) prints every
// value in its cell and labels every row and column, where the text fits the cells: the
// documents' 4 x 4 ALiBi bias and 8 x 4 sinusoidal grid read as the numbers they are.
constexpr int kMarkedSide = 16;
struct CellMarks {
  bool values = false;              // each finite value in its cell
  bool everyRow = false, everyCol = false;
  long long firstRow = 0, firstCol = 0;   // the index of row / column 0 (a window's own first index)
};

// A cell's value as printed in it; "0" for -0 (the bias on an ALiBi diagonal is -m * 0).
std::string cellText(float v) {
  if (!std::isfinite(v)) return {};
  return v == 0.0f ? "0" : shortLabel(static_cast<double>(v));
}

// Whether a label is a whole number, and which.
bool indexOf(const std::string& label, long long& out) {
  if (label.empty()) return false;
  char* end = nullptr;
  out = std::strtoll(label.c_str(), &end, 10);
  return end != nullptr && *end == '\0';
}

CellMarks cellMarks(const Grid& g, const PngOptions& o, const TextRenderer& text) {
  CellMarks m;
  if (!o.axisTitles || g.rows > kMarkedSide || g.cols > kMarkedSide) return m;
  const AxisLabels labels = axisLabels(g, o);
  const int line = text.lineHeight();
  bool fits = o.cellScale >= line + 2;
  for (float v : g.values) fits = fits && text.width(cellText(v)) + 4 <= o.cellScale;
  m.values = fits;
  m.everyRow = indexOf(labels.rowFirst, m.firstRow) && o.cellScale >= line;
  int widest = 0;
  if (indexOf(labels.colFirst, m.firstCol))
    for (int c = 0; c < g.cols; ++c) widest = std::max(widest, text.width(std::to_string(m.firstCol + c)));
  m.everyCol = widest > 0 && widest + 4 <= o.cellScale;
  return m;
}

// The ink for text over a cell of this colour: dark on light cells, white on dark ones.
std::uint8_t inkOver(Rgba8 c) { return 0.299 * c.r + 0.587 * c.g + 0.114 * c.b > 140.0 ? kInk : 250; }

// Where everything goes: margins around the cells for the caption, axis titles and colorbar.
struct ImageLayout {
  long long heatW = 0, heatH = 0;      // the cells
  long long contentH = 0;              // cells or colorbar, whichever is taller
  long long width = 0, height = 0;
  int left = 0, top = 0;               // top-left pixel of cell (0, 0)
  std::string barLabels[3];            // max, centre, min
  // The column title: its left edge, and whether it sits on its own line below the index labels
  // (a heatmap too narrow for "0  title  N" on one line).
  long long colTitleX = 0;
  bool colTitleBelow = false;
  // From the top of the cells: the rotated row title's centre, and the last row index label's top
  // (below the "0" when the cells are too short to hold both labels).
  long long rowTitleCentre = 0, lastRowLabel = 0;
  CellMarks marks;                     // small grids: values in cells, every index labelled
  std::vector<std::string> captionLines;  // the caption wrapped to the picture's width
};

// The caption's words in lines of at most `width` pixels (a word longer than that stands alone).
std::vector<std::string> wrapCaption(const std::string& caption, long long width, const TextRenderer& text) {
  std::vector<std::string> lines;
  std::string current;
  std::size_t i = 0;
  while (i < caption.size()) {
    const std::size_t start = caption.find_first_not_of(' ', i);
    if (start == std::string::npos) break;
    const std::size_t end = std::min(caption.find(' ', start), caption.size());
    const std::string word = caption.substr(start, end - start);
    const std::string joined = current.empty() ? word : current + " " + word;
    if (!current.empty() && text.width(joined) > width) {
      lines.push_back(current);
      current = word;
    } else {
      current = joined;
    }
    i = end;
  }
  if (!current.empty()) lines.push_back(current);
  return lines;
}

ImageLayout layoutHeatmapImage(const Grid& g, const PngOptions& o, const TextRenderer& text) {
  ImageLayout l;
  l.heatW = static_cast<long long>(g.cols) * o.cellScale;
  l.heatH = static_cast<long long>(g.rows) * o.cellScale;
  l.contentH = l.heatH;
  float lo = o.scale.min, hi = o.scale.max;
  if (colormapKind(o.scale.map) == ColormapKind::Diverging) {
    hi = std::max(std::fabs(lo), std::fabs(hi));
    lo = -hi;
  } else if (colormapKind(o.scale.map) == ColormapKind::Cyclic) {
    lo = 0.0f;
    hi = o.scale.period;
  }
  l.barLabels[0] = shortLabel(static_cast<double>(hi));
  l.barLabels[1] = shortLabel(0.5 * (static_cast<double>(lo) + static_cast<double>(hi)));
  l.barLabels[2] = shortLabel(static_cast<double>(lo));
  const bool decorated = o.colorbar || o.axisTitles || !o.caption.empty();
  int right = 0, bottom = 0, captionWidth = 0;
  long long titleRight = 0;
  const int line = text.lineHeight();
  if (decorated) {
    // Rows from the top: caption, colorbar title, then the heatmap; each gets its own band.
    l.left = right = l.top = bottom = kMargin;
    if (o.axisTitles) {
      const AxisLabels labels = axisLabels(g, o);
      l.marks = cellMarks(g, o, text);
      l.left += line + kMargin / 2 + std::max(text.width(labels.rowFirst), text.width(labels.rowLast)) + 4;
      bottom += line + 4;
      const long long titleW = text.width(o.colTitle);
      const long long labelsW = text.width(labels.colFirst) + text.width(labels.colLast) + 8;
      l.colTitleBelow = l.marks.everyCol || titleW + labelsW > l.heatW;   // every column labelled: the title goes below
      if (l.colTitleBelow) bottom += line;
      l.colTitleX = std::max<long long>(kMargin, l.left + l.heatW / 2 - titleW / 2);
      titleRight = l.colTitleX + titleW + kMargin;
      // A heatmap shorter than its row title or its two index labels gets a taller content band.
      const long long rowTitleH = text.width(o.rowTitle);
      l.rowTitleCentre = std::max(l.heatH, rowTitleH) / 2;
      l.lastRowLabel = l.heatH >= 2 * line ? l.heatH - line : line;
      l.contentH = std::max({l.contentH, rowTitleH, static_cast<long long>(g.rows > 1 ? 2 * line : line)});
    }
    if (o.colorbar) {
      int labelWidth = 0;
      for (const std::string& s : l.barLabels) labelWidth = std::max(labelWidth, text.width(s));
      labelWidth = std::max(labelWidth, text.width(o.valueName) - kBarWidth - 4);
      right += kMargin + kBarWidth + 4 + labelWidth;
      l.top += o.valueName.empty() ? line / 2 : line + 4;
      l.contentH = std::max(l.contentH, static_cast<long long>(3 * line + 8));
    }
  }
  l.width = l.left + l.heatW + right;
  if (decorated) l.width = std::max(l.width, titleRight);
  // The caption wraps to the picture's width (at least kMinCaptionWidth), so a long one adds
  // lines, not width; the bands below move down by its height.
  if (!o.caption.empty()) {
    l.captionLines = wrapCaption(o.caption, std::max<long long>(kMinCaptionWidth, l.width - 2 * kMargin), text);
    for (const std::string& s : l.captionLines) captionWidth = std::max(captionWidth, text.width(s));
    l.width = std::max(l.width, static_cast<long long>(captionWidth + 2 * kMargin));
    const int band = static_cast<int>(l.captionLines.size()) * line + kMargin / 2;
    l.top += band;
  }
  l.height = l.top + l.contentH + bottom;
  return l;
}

void fillCells(RgbImage& img, const Grid& g, const PngOptions& o, const ImageLayout& l, const ExportProgress& progress) {
  const std::size_t rowStride = static_cast<std::size_t>(l.heatW) * 3;
  std::vector<std::uint8_t> rowPixels(rowStride);
  for (int r = 0; r < g.rows; ++r) {
    const float* values = g.row(r);
    for (int c = 0; c < g.cols; ++c) {
      const Rgba8 col = mapValue(o.scale, values[c]);
      std::uint8_t* p = rowPixels.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(o.cellScale) * 3;
      for (int k = 0; k < o.cellScale; ++k, p += 3) {
        p[0] = col.r;
        p[1] = col.g;
        p[2] = col.b;
      }
    }
    for (int k = 0; k < o.cellScale; ++k) {
      std::memcpy(img.pixel(l.left, l.top + r * o.cellScale + k), rowPixels.data(), rowStride);
    }
    if (progress && (r % 256 == 0 || r + 1 == g.rows)) progress(static_cast<double>(r + 1) / g.rows);
  }
}

void drawCellValues(RgbImage& img, const Grid& g, const PngOptions& o, const ImageLayout& l, const TextRenderer& text) {
  if (!l.marks.values) return;
  for (int r = 0; r < g.rows; ++r)
    for (int c = 0; c < g.cols; ++c) {
      const std::string t = cellText(g.at(r, c));
      if (t.empty()) continue;
      const AlphaBitmap b = text.render(t);
      const int cx = l.left + c * o.cellScale + o.cellScale / 2, cy = l.top + r * o.cellScale + o.cellScale / 2;
      blit(img, b, cx - b.width / 2, cy - b.height / 2, inkOver(mapValue(o.scale, g.at(r, c))));
    }
}

void drawAxisTitles(RgbImage& img, const Grid& g, const PngOptions& o, const ImageLayout& l, const TextRenderer& text) {
  const int heatBottom = l.top + static_cast<int>(l.heatH);
  const int heatW = static_cast<int>(l.heatW);
  const AxisLabels labels = axisLabels(g, o);
  const AlphaBitmap colTitle = text.render(o.colTitle);
  if (l.marks.everyCol) {
    for (int c = 0; c < g.cols; ++c) {
      const AlphaBitmap b = text.render(std::to_string(l.marks.firstCol + c));
      blit(img, b, l.left + c * o.cellScale + o.cellScale / 2 - b.width / 2, heatBottom + 2);
    }
  } else {
    const AlphaBitmap firstCol = text.render(labels.colFirst);
    const AlphaBitmap lastCol = text.render(labels.colLast);
    blit(img, firstCol, l.left, heatBottom + 2);
    if (g.cols > 1) blit(img, lastCol, l.left + heatW - lastCol.width, heatBottom + 2);
  }
  blit(img, colTitle, static_cast<int>(l.colTitleX), heatBottom + 2 + (l.colTitleBelow ? text.lineHeight() : 0));
  if (l.marks.everyRow) {
    for (int r = 0; r < g.rows; ++r) {
      const AlphaBitmap b = text.render(std::to_string(l.marks.firstRow + r));
      blit(img, b, l.left - b.width - 2, l.top + r * o.cellScale + o.cellScale / 2 - b.height / 2);
    }
  } else {
    const AlphaBitmap firstRow = text.render(labels.rowFirst);
    const AlphaBitmap lastRow = text.render(labels.rowLast);
    blit(img, firstRow, l.left - firstRow.width - 2, l.top);
    if (g.rows > 1) blit(img, lastRow, l.left - lastRow.width - 2, l.top + static_cast<int>(l.lastRowLabel));
  }
  const AlphaBitmap rowTitle = rotateLeft(text.render(o.rowTitle));
  blit(img, rowTitle, kMargin, l.top + static_cast<int>(l.rowTitleCentre) - rowTitle.height / 2);
}

void drawColorbar(RgbImage& img, const PngOptions& o, const ImageLayout& l, const TextRenderer& text) {
  const int line = text.lineHeight();
  const int barX = l.left + static_cast<int>(l.heatW) + kMargin;
  const int barH = static_cast<int>(l.contentH);
  for (int y = 0; y < barH; ++y) {
    const float t = barH > 1 ? 1.0f - static_cast<float>(y) / static_cast<float>(barH - 1) : 0.5f;
    const Rgba8 col = colormapColor(o.scale.map, t);
    for (int x = 0; x < kBarWidth; ++x) {
      std::uint8_t* p = img.pixel(barX + x, l.top + y);
      p[0] = col.r;
      p[1] = col.g;
      p[2] = col.b;
    }
  }
  const int labelX = barX + kBarWidth + 4;
  blit(img, text.render(l.barLabels[0]), labelX, l.top - line / 3);
  blit(img, text.render(l.barLabels[1]), labelX, l.top + barH / 2 - line / 2);
  blit(img, text.render(l.barLabels[2]), labelX, l.top + barH - line + line / 3);
  if (!o.valueName.empty()) blit(img, text.render(o.valueName), barX, l.top - line - 4);
}

}  // namespace

std::pair<long long, long long> heatmapImageSize(int rows, int cols, const PngOptions& o) {
  static constexpr const char* kFn = "heatmapImageSize";
  requirePositiveInt(kFn, "cellScale", o.cellScale);
  requirePositiveInt(kFn, "rows", rows);
  requirePositiveInt(kFn, "cols", cols);
  requireTextScale(kFn, o.textScale);
  Grid shape;   // the layout reads the grid's shape only
  shape.rows = rows;
  shape.cols = cols;
  const ImageLayout l = layoutHeatmapImage(shape, o, TextRenderer(kFontPixels * o.textScale));
  return {l.width, l.height};
}

RgbImage renderHeatmapImage(const Grid& g, const PngOptions& o, const ExportProgress& progress) {
  static constexpr const char* kFn = "renderHeatmapImage";
  requirePositiveInt(kFn, "cellScale", o.cellScale);
  requirePositiveInt(kFn, "rows", g.rows);
  requirePositiveInt(kFn, "cols", g.cols);
  requireTextScale(kFn, o.textScale);
  const TextRenderer text(kFontPixels * o.textScale);
  const ImageLayout l = layoutHeatmapImage(g, o, text);
  requireBudget(kFn, static_cast<std::uint64_t>(l.width) * static_cast<std::uint64_t>(l.height), 3, "PNG image (RGB8)");
  constexpr long long kPngMaxSide = 0x7fffffffLL;  // PNG stores sides as 31-bit integers
  if (l.width > kPngMaxSide || l.height > kPngMaxSide) {
    failArgument(kFn, "an image of " + std::to_string(l.width) + " x " + std::to_string(l.height) +
                          " pixels is over PNG's limit of 2147483647 pixels per side");
  }
  RgbImage img;
  img.width = static_cast<int>(l.width);
  img.height = static_cast<int>(l.height);
  img.heatmapX = l.left;
  img.heatmapY = l.top;
  img.rgb.assign(static_cast<std::size_t>(l.width) * static_cast<std::size_t>(l.height) * 3, 255);
  fillCells(img, g, o, l, progress);
  drawCellValues(img, g, o, l, text);
  for (std::size_t i = 0; i < l.captionLines.size(); ++i)
    blit(img, text.render(l.captionLines[i]), kMargin, kMargin + static_cast<int>(i) * text.lineHeight());
  if (o.axisTitles) drawAxisTitles(img, g, o, l, text);
  if (o.colorbar) drawColorbar(img, o, l, text);
  return img;
}

// [SECTION] PNG encoding (libspng)

namespace {

void requireImageShape(const char* fn, const RgbImage& image) {
  if (image.width <= 0 || image.height <= 0 ||
      image.rgb.size() != static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height) * 3) {
    throw std::invalid_argument(std::string(fn) + ": image must be width x height x 3 bytes, got " + std::to_string(image.width) +
                                " x " + std::to_string(image.height) + " with " + std::to_string(image.rgb.size()) + " bytes");
  }
}

// Options, header and pixels of an encoder whose output (buffer or stream) is already set.
int encodePngInto(spng_ctx* ctx, const RgbImage& image) {
  spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, 1);  // fast: heatmaps compress well anyway
  // Filtering buys little on smooth heatmaps and costs most of the encoding time (2.7x on large ones).
  spng_set_option(ctx, SPNG_FILTER_CHOICE, SPNG_DISABLE_FILTERING);
  spng_ihdr ihdr{};
  ihdr.width = static_cast<std::uint32_t>(image.width);
  ihdr.height = static_cast<std::uint32_t>(image.height);
  ihdr.bit_depth = 8;
  ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR;
  int err = spng_set_ihdr(ctx, &ihdr);
  if (err == 0) err = spng_encode_image(ctx, image.rgb.data(), image.rgb.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
  return err;
}

int writeToStream(spng_ctx* /*ctx*/, void* user, void* data, std::size_t length) {
  auto* os = static_cast<std::ostream*>(user);
  os->write(static_cast<const char*>(data), static_cast<std::streamsize>(length));
  return *os ? 0 : SPNG_IO_ERROR;
}

}  // namespace

std::vector<std::uint8_t> encodePng(const RgbImage& image) {
  requireImageShape("encodePng", image);
  std::unique_ptr<spng_ctx, void (*)(spng_ctx*)> ctx(spng_ctx_new(SPNG_CTX_ENCODER), spng_ctx_free);
  if (!ctx) throw std::runtime_error("encodePng: cannot create a PNG encoder (out of memory)");
  spng_set_option(ctx.get(), SPNG_ENCODE_TO_BUFFER, 1);
  int err = encodePngInto(ctx.get(), image);
  if (err != 0) throw std::runtime_error(std::string("encodePng: ") + spng_strerror(err));
  std::size_t size = 0;
  void* buffer = spng_get_png_buffer(ctx.get(), &size, &err);
  if (buffer == nullptr || err != 0) throw std::runtime_error(std::string("encodePng: ") + spng_strerror(err));
  std::vector<std::uint8_t> out(static_cast<const std::uint8_t*>(buffer), static_cast<const std::uint8_t*>(buffer) + size);
  std::free(buffer);
  return out;
}

void writePngImage(const std::string& path, const RgbImage& image) {
  requireImageShape("writePngImage", image);
  // Encoded straight into the file: no second copy of the image in memory.
  writeFileAtomically(path, [&](std::ostream& os) {
    std::unique_ptr<spng_ctx, void (*)(spng_ctx*)> ctx(spng_ctx_new(SPNG_CTX_ENCODER), spng_ctx_free);
    if (!ctx) throw std::runtime_error("cannot create a PNG encoder (out of memory)");
    int err = spng_set_png_stream(ctx.get(), writeToStream, &os);
    if (err == 0) err = encodePngInto(ctx.get(), image);
    if (err != 0) throw std::runtime_error(std::string("PNG encoding failed: ") + spng_strerror(err));
  });
}

void writePng(const std::string& path, const Grid& g, const PngOptions& options, const ExportProgress& progress) {
  writePngImage(path, renderHeatmapImage(g, options, progress));
}

// [SECTION] SVG

float svgFontSize(float linePixels) {
  static const TextRenderer text;
  return text.emPixels() / kFontPixels * linePixels;
}

std::string base64(const std::vector<std::uint8_t>& bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const unsigned n = static_cast<unsigned>(bytes[i]) << 16 | (i + 1 < bytes.size() ? static_cast<unsigned>(bytes[i + 1]) << 8 : 0u) |
                       (i + 2 < bytes.size() ? static_cast<unsigned>(bytes[i + 2]) : 0u);
    out += kDigits[(n >> 18) & 63];
    out += kDigits[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kDigits[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kDigits[n & 63] : '=';
  }
  return out;
}

namespace {

// Up to this many cells (64 x 64) the SVG holds one rectangle per cell (vector all through);
// above it the cells are one embedded PNG at one pixel per cell, and only the decorations are
// vector. A rectangle costs about 60 bytes and a renderer's time per cell: a 256 x 256 grid was
// 3.9 MB of rectangles that an image tool took 85 s to draw, and is now under 300 KB.
constexpr long long kSvgMaxRectCells = 4096;

std::string hexColor(Rgba8 c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

std::string xmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}


// One line of text whose top is at y, as the PNG blits it (baseline = top + ascent).
void svgText(std::ostream& os, const TextRenderer& text, double x, double top, const std::string& s,
             const char* anchor = "start") {
  os << "<text x=\"" << x << "\" y=\"" << top + text.ascent() << "\" text-anchor=\"" << anchor << "\">" << xmlEscape(s)
     << "</text>\n";
}

void svgCells(std::ostream& os, const Grid& g, const PngOptions& o, const ImageLayout& l, const ExportProgress& progress) {
  const long long cells = static_cast<long long>(g.rows) * g.cols;
  if (cells <= kSvgMaxRectCells) {
    os << "<g shape-rendering=\"crispEdges\">\n";
    for (int r = 0; r < g.rows; ++r) {
      for (int c = 0; c < g.cols; ++c) {
        os << "<rect x=\"" << l.left + static_cast<long long>(c) * o.cellScale << "\" y=\""
           << l.top + static_cast<long long>(r) * o.cellScale << "\" width=\"" << o.cellScale << "\" height=\"" << o.cellScale
           << "\" fill=\"" << hexColor(mapValue(o.scale, g.at(r, c))) << "\"/>\n";
      }
      if (progress) progress(static_cast<double>(r + 1) / g.rows);
    }
    os << "</g>\n";
    return;
  }
  PngOptions plain;
  plain.scale = o.scale;
  const std::vector<std::uint8_t> png = encodePng(renderHeatmapImage(g, plain, progress));
  os << "<image x=\"" << l.left << "\" y=\"" << l.top << "\" width=\"" << l.heatW << "\" height=\"" << l.heatH
     << "\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64," << base64(png)
     << "\"/>\n";
}

void svgCellValues(std::ostream& os, const Grid& g, const PngOptions& o, const ImageLayout& l, const TextRenderer& text) {
  if (!l.marks.values) return;
  for (int r = 0; r < g.rows; ++r)
    for (int c = 0; c < g.cols; ++c) {
      const std::string t = cellText(g.at(r, c));
      if (t.empty()) continue;
      const std::uint8_t ink = inkOver(mapValue(o.scale, g.at(r, c)));
      const double cx = static_cast<double>(l.left + static_cast<long long>(c) * o.cellScale) + o.cellScale / 2.0;
      const double top = static_cast<double>(l.top + static_cast<long long>(r) * o.cellScale) + (o.cellScale - text.lineHeight()) / 2.0;
      os << "<text x=\"" << cx << "\" y=\"" << top + text.ascent() << "\" text-anchor=\"middle\" fill=\""
         << hexColor({ink, ink, ink, 255}) << "\">" << xmlEscape(t) << "</text>\n";
    }
}

void svgAxisTitles(std::ostream& os, const Grid& g, const PngOptions& o, const ImageLayout& l, const TextRenderer& text) {
  const long long heatBottom = l.top + l.heatH;
  const AxisLabels labels = axisLabels(g, o);
  if (l.marks.everyCol) {
    for (int c = 0; c < g.cols; ++c)
      svgText(os, text, static_cast<double>(l.left + static_cast<long long>(c) * o.cellScale) + o.cellScale / 2.0, static_cast<double>(heatBottom + 2),
              std::to_string(l.marks.firstCol + c), "middle");
  } else {
    svgText(os, text, static_cast<double>(l.left), static_cast<double>(heatBottom + 2), labels.colFirst);
    if (g.cols > 1) svgText(os, text, static_cast<double>(l.left + l.heatW), static_cast<double>(heatBottom + 2), labels.colLast, "end");
  }
  svgText(os, text, static_cast<double>(l.colTitleX), static_cast<double>(heatBottom + 2 + (l.colTitleBelow ? text.lineHeight() : 0)), o.colTitle);
  if (l.marks.everyRow) {
    for (int r = 0; r < g.rows; ++r)
      svgText(os, text, static_cast<double>(l.left - 2),
              static_cast<double>(l.top + static_cast<long long>(r) * o.cellScale) + (o.cellScale - text.lineHeight()) / 2.0,
              std::to_string(l.marks.firstRow + r), "end");
  } else {
    svgText(os, text, static_cast<double>(l.left - 2), static_cast<double>(l.top), labels.rowFirst, "end");
    if (g.rows > 1) {
      svgText(os, text, static_cast<double>(l.left - 2), static_cast<double>(l.top + l.lastRowLabel), labels.rowLast, "end");
    }
  }
  const double cx = kMargin + text.ascent();
  const double cy = static_cast<double>(l.top + l.rowTitleCentre);
  os << "<text transform=\"translate(" << cx << " " << cy << ") rotate(-90)\" text-anchor=\"middle\">" << xmlEscape(o.rowTitle)
     << "</text>\n";
}

void svgColorbar(std::ostream& os, const PngOptions& o, const ImageLayout& l, const TextRenderer& text) {
  const int line = text.lineHeight();
  const long long barX = l.left + l.heatW + kMargin;
  const long long barH = l.contentH;
  os << "<defs><linearGradient id=\"colorbar\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n";
  constexpr int kStops = 32;
  for (int i = 0; i <= kStops; ++i) {
    const float t = static_cast<float>(i) / kStops;
    os << "<stop offset=\"" << t << "\" stop-color=\"" << hexColor(colormapColor(o.scale.map, t)) << "\"/>\n";
  }
  os << "</linearGradient></defs>\n<rect x=\"" << barX << "\" y=\"" << l.top << "\" width=\"" << kBarWidth << "\" height=\""
     << barH << "\" fill=\"url(#colorbar)\"/>\n";
  const double labelX = static_cast<double>(barX + kBarWidth + 4);
  svgText(os, text, labelX, static_cast<double>(l.top - line / 3), l.barLabels[0]);
  svgText(os, text, labelX, static_cast<double>(l.top + barH / 2 - line / 2), l.barLabels[1]);
  svgText(os, text, labelX, static_cast<double>(l.top + barH - line + line / 3), l.barLabels[2]);
  if (!o.valueName.empty()) svgText(os, text, static_cast<double>(barX), static_cast<double>(l.top - line - 4), o.valueName);
}

}  // namespace

void writeSvg(const std::string& path, const Grid& g, const PngOptions& o, const ExportProgress& progress) {
  static constexpr const char* kFn = "writeSvg";
  requirePositiveInt(kFn, "cellScale", o.cellScale);
  requirePositiveInt(kFn, "rows", g.rows);
  requirePositiveInt(kFn, "cols", g.cols);
  requireTextScale(kFn, o.textScale);
  const TextRenderer text(kFontPixels * o.textScale);
  const ImageLayout l = layoutHeatmapImage(g, o, text);
  const long long cells = static_cast<long long>(g.rows) * g.cols;
  // Text of one rectangle per cell, or the embedded picture's pixels.
  requireBudget(kFn, static_cast<std::uint64_t>(cells), cells <= kSvgMaxRectCells ? 96 : 8, "SVG document");
  writeFileAtomically(path, [&](std::ostream& os) {
    os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
       << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << l.width << "\" height=\"" << l.height << "\" viewBox=\"0 0 "
       << l.width << " " << l.height << "\" font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"" << text.emPixels()
       << "\" fill=\"#000000\" xml:space=\"preserve\">\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    svgCells(os, g, o, l, progress);
    svgCellValues(os, g, o, l, text);
    for (std::size_t i = 0; i < l.captionLines.size(); ++i)
      svgText(os, text, kMargin, kMargin + static_cast<double>(i) * text.lineHeight(), l.captionLines[i]);
    if (o.axisTitles) svgAxisTitles(os, g, o, l, text);
    if (o.colorbar) svgColorbar(os, o, l, text);
    os << "</svg>\n";
  });
}

// [SECTION] CSV and JSON

namespace {

template <typename T>
void writeCsvRows(std::ostream& os, const T* values, std::int64_t rows, std::int64_t cols,
                  const std::vector<std::string>& commentLines, const ExportProgress& progress) {
  for (const std::string& c : commentLines) os << "# " << c << '\n';
  std::string line;
  for (std::int64_t r = 0; r < rows; ++r) {
    line.clear();
    const T* row = values + r * cols;
    for (std::int64_t c = 0; c < cols; ++c) {
      if (c > 0) line += ',';
      appendNumber(line, row[c]);
    }
    line += '\n';
    os.write(line.data(), static_cast<std::streamsize>(line.size()));
    if (!os) throw std::runtime_error("write failed");
    if (progress && (r % 1024 == 0 || r + 1 == rows)) progress(static_cast<double>(r + 1) / static_cast<double>(rows));
  }
}

}  // namespace

void writeCsvGrid(const std::string& path, const Grid& g, const std::vector<std::string>& commentLines,
                  const ExportProgress& progress) {
  writeFileAtomically(path, [&](std::ostream& os) { writeCsvRows(os, g.values.data(), g.rows, g.cols, commentLines, progress); });
}

void writeCsvGrid(const std::string& path, const std::vector<double>& values, std::int64_t rows, std::int64_t cols,
                  const std::vector<std::string>& commentLines, const ExportProgress& progress) {
  if (rows < 0 || cols < 0 || static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols) != values.size()) {
    throw std::invalid_argument("writeCsvGrid: values must hold rows * cols = " + std::to_string(rows) + " * " +
                                std::to_string(cols) + " numbers, got " + std::to_string(values.size()));
  }
  writeFileAtomically(path, [&](std::ostream& os) { writeCsvRows(os, values.data(), rows, cols, commentLines, progress); });
}

void writeCsvColumns(const std::string& path, const std::vector<std::string>& names,
                     const std::vector<std::vector<double>>& columns) {
  if (names.size() != columns.size()) {
    throw std::invalid_argument("writeCsvColumns: names must match columns, got " + std::to_string(names.size()) +
                                " names for " + std::to_string(columns.size()) + " columns");
  }
  const std::size_t n = columns.empty() ? 0 : columns[0].size();
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].size() != n) {
      throw std::invalid_argument("writeCsvColumns: column " + names[c] + " has " + std::to_string(columns[c].size()) +
                                  " values, the first has " + std::to_string(n));
    }
  }
  writeFileAtomically(path, [&](std::ostream& os) {
    std::string line;
    for (std::size_t c = 0; c < names.size(); ++c) line += (c > 0 ? "," : "") + names[c];
    os << line << '\n';
    for (std::size_t i = 0; i < n; ++i) {
      line.clear();
      for (std::size_t c = 0; c < columns.size(); ++c) {
        if (c > 0) line += ',';
        appendNumber(line, columns[c][i]);
      }
      line += '\n';
      os << line;
    }
  });
}

void writeJson(const std::string& path, const nlohmann::json& document) {
  const std::string text = document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  writeFileAtomically(path, [&](std::ostream& os) { os.write(text.data(), static_cast<std::streamsize>(text.size())); });
}

namespace {

constexpr std::string_view kValuesPlaceholder = "@@posviz-streamed-values@@";

// One number as nlohmann's dump writes a number_float ("0.5", "1.0", "1e-05"; null when not finite).
void appendJsonNumber(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[64];
  char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

template <typename T>
void writeNestedValues(std::ostream& os, const T* values, const std::vector<std::int64_t>& shape, std::size_t indent,
                       const ExportProgress& progress) {
  std::uint64_t total = 1;
  for (std::int64_t n : shape) total *= static_cast<std::uint64_t>(n);
  std::string line;
  std::uint64_t index = 0;
  std::uint64_t lastRows = 0;
  // Writes the array of dimension dim at the given indent, as dump(2) does.
  auto emit = [&](auto&& self, std::size_t dim, std::size_t at) -> void {
    if (shape[dim] == 0) {
      line += "[]";
      return;
    }
    line += "[\n";
    for (std::int64_t i = 0; i < shape[dim]; ++i) {
      line.append(at + 2, ' ');
      if (dim + 1 == shape.size()) {
        appendJsonNumber(line, static_cast<double>(values[index++]));
      } else {
        self(self, dim + 1, at + 2);
      }
      if (i + 1 < shape[dim]) line += ',';
      line += '\n';
      if (line.size() >= (1u << 16)) {
        os.write(line.data(), static_cast<std::streamsize>(line.size()));
        if (!os) throw std::runtime_error("write failed");
        line.clear();
      }
    }
    line.append(at, ' ');
    line += ']';
    if (progress && dim + 2 == shape.size() && total > 0) {
      const std::uint64_t rows = index / static_cast<std::uint64_t>(std::max<std::int64_t>(1, shape.back()));
      if (rows - lastRows >= 1024) {
        lastRows = rows;
        progress(static_cast<double>(index) / static_cast<double>(total));
      }
    }
  };
  if (shape.empty()) {
    appendJsonNumber(line, total > 0 ? static_cast<double>(values[0]) : 0.0);
  } else {
    emit(emit, 0, indent);
  }
  os.write(line.data(), static_cast<std::streamsize>(line.size()));
  if (progress) progress(1.0);
}

template <typename T>
void writeJsonStreamedImpl(const std::string& path, const nlohmann::json& document, const std::string& valuesKey,
                           const std::vector<std::int64_t>& shape, const T* values, const ExportProgress& progress) {
  if (!document.is_object()) throw std::invalid_argument("writeJsonWithValues: document must be an object");
  for (std::int64_t n : shape) {
    if (n < 0) throw std::invalid_argument("writeJsonWithValues: shape must not be negative, got " + std::to_string(n));
  }
  nlohmann::json head = document;
  head[valuesKey] = std::string(kValuesPlaceholder);
  const std::string text = head.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const std::string quoted = "\"" + std::string(kValuesPlaceholder) + "\"";
  const std::size_t at = text.find(quoted);
  if (at == std::string::npos) throw std::logic_error("writeJsonWithValues: placeholder lost");
  const std::size_t lineStart = text.rfind('\n', at) + 1;
  const std::size_t indent = text.find_first_not_of(' ', lineStart) - lineStart;
  writeFileAtomically(path, [&](std::ostream& os) {
    os.write(text.data(), static_cast<std::streamsize>(at));
    writeNestedValues(os, values, shape, indent, progress);
    const std::size_t rest = at + quoted.size();
    os.write(text.data() + rest, static_cast<std::streamsize>(text.size() - rest));
  });
}

}  // namespace

void writeJsonWithValues(const std::string& path, const nlohmann::json& document, const std::string& valuesKey,
                         const std::vector<std::int64_t>& shape, const float* values, const ExportProgress& progress) {
  writeJsonStreamedImpl(path, document, valuesKey, shape, values, progress);
}

void writeJsonWithValues(const std::string& path, const nlohmann::json& document, const std::string& valuesKey,
                         const std::vector<std::int64_t>& shape, const double* values, const ExportProgress& progress) {
  writeJsonStreamedImpl(path, document, valuesKey, shape, values, progress);
}

}  // namespace posviz::cli
