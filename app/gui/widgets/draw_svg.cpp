// draw_svg.cpp: see draw_svg.hpp.
#include "app/gui/widgets/draw_svg.hpp"

#include "app/gui/platform/platform.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "app/cli/export.hpp"

namespace posviz::app {

namespace {

std::string num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(v));
  std::string s(buf);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string fill(ImU32 c) {
  char buf[64];
  const unsigned r = c & 0xFF, g = (c >> 8) & 0xFF, b = (c >> 16) & 0xFF, a = (c >> 24) & 0xFF;
  if (a == 255) std::snprintf(buf, sizeof buf, "fill=\"#%02x%02x%02x\"", r, g, b);
  else std::snprintf(buf, sizeof buf, "fill=\"#%02x%02x%02x\" fill-opacity=\"%.3f\"", r, g, b, a / 255.0);
  return buf;
}

void appendUtf8(std::string& out, unsigned c) {
  if (c == '&') out += "&amp;";
  else if (c == '<') out += "&lt;";
  else if (c == '>') out += "&gt;";
  else if (c < 0x80) out += static_cast<char>(c);
  else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

ImU32 meanColor(ImU32 a, ImU32 b, ImU32 c) {
  if (a == b && b == c) return a;
  ImU32 out = 0;
  for (int shift = 0; shift < 32; shift += 8) {
    const unsigned sum = ((a >> shift) & 0xFF) + ((b >> shift) & 0xFF) + ((c >> shift) & 0xFF);
    out |= ((sum + 1) / 3) << shift;
  }
  return out;
}

struct TextRun {
  ImU32 color = 0;
  float size = 0, baseline = 0, endX = 0;
  std::string chars;
  std::vector<float> xs;
};

struct Texture {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;
};

class SvgWriter {
 public:
  SvgWriter(const ImFont& font, ImTextureID fontTexture, int width, int height)
      : font_(font), fontTexture_(fontTexture), width_(width), height_(height) {
    for (const ImFontGlyph& g : font.Glyphs) glyphs_[uvKey(g.U0, g.V0)] = &g;
    const ImFontGlyph* space = font.FindGlyphNoFallback(' ');
    spaceAdvance_ = space != nullptr ? space->AdvanceX : font.FontSize * 0.3f;
  }

  void list(const ImDrawList& l) {
    for (const ImDrawCmd& cmd : l.CmdBuffer) {
      if (cmd.UserCallback != nullptr || cmd.ElemCount == 0) continue;
      openClip(cmd.ClipRect);
      const ImDrawIdx* idx = l.IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = l.VtxBuffer.Data + cmd.VtxOffset;
      if (cmd.TextureId == fontTexture_) shapesAndText(idx, cmd.ElemCount, vtx);
      else images(idx, cmd.ElemCount, vtx, cmd.TextureId);
      flushPath();
      flushText();
    }
    closeClip();
  }

  std::string str() { return os_.str(); }
  std::ostringstream& out() { return os_; }

 private:
  static std::uint64_t uvKey(float u, float v) {
    return static_cast<std::uint64_t>(std::lround(u * 1048576.0f)) << 32 | static_cast<std::uint64_t>(std::lround(v * 1048576.0f));
  }

  void openClip(const ImVec4& r) {
    const bool whole = r.x <= 0 && r.y <= 0 && r.z >= static_cast<float>(width_) && r.w >= static_cast<float>(height_);
    if (clipOpen_ && r.x == clip_.x && r.y == clip_.y && r.z == clip_.z && r.w == clip_.w) return;
    closeClip();
    if (whole) return;
    const int id = clipCount_++;
    os_ << "<clipPath id=\"c" << id << "\"><rect x=\"" << num(r.x) << "\" y=\"" << num(r.y) << "\" width=\"" << num(r.z - r.x)
        << "\" height=\"" << num(r.w - r.y) << "\"/></clipPath>\n<g clip-path=\"url(#c" << id << ")\">\n";
    clip_ = r;
    clipOpen_ = true;
  }
  void closeClip() {
    if (clipOpen_) os_ << "</g>\n";
    clipOpen_ = false;
  }

  // A glyph quad: two triangles (a, a+1, a+2), (a, a+2, a+3) whose first corner is a glyph's.
  const ImFontGlyph* glyphAt(const ImDrawIdx* idx, unsigned i, unsigned n, const ImDrawVert* vtx) const {
    if (i + 6 > n) return nullptr;
    const unsigned a = idx[i];
    if (idx[i + 1] != a + 1 || idx[i + 2] != a + 2 || idx[i + 3] != a || idx[i + 4] != a + 2 || idx[i + 5] != a + 3) return nullptr;
    const auto it = glyphs_.find(uvKey(vtx[a].uv.x, vtx[a].uv.y));
    if (it == glyphs_.end()) return nullptr;
    const ImFontGlyph* g = it->second;
    return std::abs(vtx[a + 2].uv.x - g->U1) < 1e-6f && std::abs(vtx[a + 2].uv.y - g->V1) < 1e-6f ? g : nullptr;
  }

  void shapesAndText(const ImDrawIdx* idx, unsigned n, const ImDrawVert* vtx) {
    const ImVec2 white = font_.ContainerAtlas->TexUvWhitePixel;
    for (unsigned i = 0; i + 3 <= n;) {
      if (const ImFontGlyph* g = glyphAt(idx, i, n, vtx)) {
        flushPath();
        glyph(*g, vtx[idx[i]], vtx[idx[i] + 2]);
        i += 6;
        continue;
      }
      const ImDrawVert& a = vtx[idx[i]];
      if (std::abs(a.uv.x - white.x) > 1e-4f || std::abs(a.uv.y - white.y) > 1e-4f) {
        i += 3;   // a glyph cut by its clip rectangle: the clip path cuts the whole one's neighbours
        continue;
      }
      flushText();
      i += shape(idx, i, n, vtx);
    }
  }

  void glyph(const ImFontGlyph& g, const ImDrawVert& tl, const ImDrawVert& br) {
    const float gw = g.X1 - g.X0, gh = g.Y1 - g.Y0;
    const float scale = gw > 0.5f ? (br.pos.x - tl.pos.x) / gw : gh > 0.5f ? (br.pos.y - tl.pos.y) / gh : 1.0f;
    const float pen = tl.pos.x - g.X0 * scale;
    const float baseline = tl.pos.y - g.Y0 * scale + font_.Ascent * scale;
    const float size = font_.FontSize * scale;
    const bool joins = hasRun_ && run_.color == tl.col && std::abs(run_.size - size) < 0.01f && std::abs(run_.baseline - baseline) < 0.01f &&
                       pen >= run_.endX - 0.5f * scale;
    if (!joins) {
      flushText();
      run_ = TextRun{tl.col, size, baseline, pen, {}, {}};
      hasRun_ = true;
    } else if (pen > run_.endX + 0.25f * spaceAdvance_ * scale) {
      run_.chars += ' ';
      run_.xs.push_back(run_.endX);
    }
    appendUtf8(run_.chars, g.Codepoint);
    run_.xs.push_back(pen);
    run_.endX = pen + g.AdvanceX * scale;
  }

  void flushText() {
    if (!hasRun_) return;
    hasRun_ = false;
    os_ << "<text x=\"";
    for (std::size_t k = 0; k < run_.xs.size(); ++k) os_ << (k ? " " : "") << num(run_.xs[k]);
    os_ << "\" y=\"" << num(run_.baseline) << "\"";
    if (std::abs(run_.size - font_.FontSize) > 0.01f) os_ << " font-size=\"" << num(cli::svgFontSize(run_.size)) << "\"";
    os_ << " " << fill(run_.color) << ">" << run_.chars << "</text>\n";
  }

  // One triangle, or two that make a quad: a subpath of the path of their colour, wound one way
  // so that overlapping subpaths fill as their union. Returns the indices used.
  unsigned shape(const ImDrawIdx* idx, unsigned i, unsigned n, const ImDrawVert* vtx) {
    const ImDrawVert &a = vtx[idx[i]], &b = vtx[idx[i + 1]], &c = vtx[idx[i + 2]];
    const ImU32 col = meanColor(a.col, b.col, c.col);
    std::vector<ImVec2> pts{a.pos, b.pos, c.pos};
    unsigned used = 3;
    if (i + 6 <= n && idx[i + 3] == idx[i] && idx[i + 4] == idx[i + 2]) {
      const ImDrawVert& d = vtx[idx[i + 5]];
      if (meanColor(a.col, c.col, d.col) == col) {
        pts.push_back(d.pos);
        used = 6;
      }
    }
    if ((col >> 24) == 0) return used;
    float area = 0;
    for (std::size_t k = 0; k < pts.size(); ++k) {
      const ImVec2 p = pts[k], q = pts[(k + 1) % pts.size()];
      area += p.x * q.y - q.x * p.y;
    }
    if (std::abs(area) < 1e-6f) return used;
    if (area < 0) std::reverse(pts.begin(), pts.end());
    if (!pathOpen_ || pathColor_ != col) {
      flushPath();
      pathOpen_ = true;
      pathColor_ = col;
    }
    path_ += "M" + num(pts[0].x) + " " + num(pts[0].y);
    for (std::size_t k = 1; k < pts.size(); ++k) path_ += "L" + num(pts[k].x) + " " + num(pts[k].y);
    path_ += "Z";
    return used;
  }

  void flushPath() {
    if (!pathOpen_) return;
    os_ << "<path " << fill(pathColor_) << " d=\"" << path_ << "\"/>\n";
    path_.clear();
    pathOpen_ = false;
  }

  const Texture& texture(ImTextureID id) {
    auto [it, fresh] = textures_.try_emplace(id);
    if (!fresh) return it->second;
    Texture& t = it->second;
    if (!platform::readTexture(static_cast<unsigned int>(reinterpret_cast<std::intptr_t>(id)), &t.width, &t.height, &t.rgba))
      t.width = t.height = 0;
    return t;
  }

  // Each quad of a picture (ImDrawList::AddImage: the first corner is the top-left with the first
  // texture coordinate) as an embedded PNG of the texels it shows.
  void images(const ImDrawIdx* idx, unsigned n, const ImDrawVert* vtx, ImTextureID id) {
    const Texture& t = texture(id);
    if (t.width <= 0 || t.height <= 0) return;
    for (unsigned i = 0; i + 6 <= n; i += 6) {
      const ImDrawVert& p = vtx[idx[i]];
      const ImDrawVert& q = vtx[idx[i + 2]];
      const int x0 = std::clamp(static_cast<int>(std::lround(std::min(p.uv.x, q.uv.x) * static_cast<float>(t.width))), 0, t.width);
      const int x1 = std::clamp(static_cast<int>(std::lround(std::max(p.uv.x, q.uv.x) * static_cast<float>(t.width))), 0, t.width);
      const int y0 = std::clamp(static_cast<int>(std::lround(std::min(p.uv.y, q.uv.y) * static_cast<float>(t.height))), 0, t.height);
      const int y1 = std::clamp(static_cast<int>(std::lround(std::max(p.uv.y, q.uv.y) * static_cast<float>(t.height))), 0, t.height);
      if (x1 <= x0 || y1 <= y0) continue;
      cli::RgbImage img;
      img.width = x1 - x0;
      img.height = y1 - y0;
      img.rgb.resize(static_cast<std::size_t>(img.width) * static_cast<std::size_t>(img.height) * 3);
      const bool flipX = q.uv.x < p.uv.x, flipY = q.uv.y < p.uv.y;
      for (int y = 0; y < img.height; ++y) {
        const int ty = flipY ? y1 - 1 - y : y0 + y;
        for (int x = 0; x < img.width; ++x) {
          const int tx = flipX ? x1 - 1 - x : x0 + x;
          std::copy_n(t.rgba.data() + (static_cast<std::size_t>(ty) * static_cast<std::size_t>(t.width) + static_cast<std::size_t>(tx)) * 4, 3,
                      img.pixel(x, y));
        }
      }
      const ImVec2 lo(std::min(p.pos.x, q.pos.x), std::min(p.pos.y, q.pos.y)), hi(std::max(p.pos.x, q.pos.x), std::max(p.pos.y, q.pos.y));
      os_ << "<image x=\"" << num(lo.x) << "\" y=\"" << num(lo.y) << "\" width=\"" << num(hi.x - lo.x) << "\" height=\"" << num(hi.y - lo.y)
          << "\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64,"
          << cli::base64(cli::encodePng(img)) << "\"/>\n";
    }
  }

  const ImFont& font_;
  ImTextureID fontTexture_;
  int width_, height_;
  std::map<std::uint64_t, const ImFontGlyph*> glyphs_;
  float spaceAdvance_ = 4.0f;
  std::ostringstream os_;
  bool clipOpen_ = false;
  ImVec4 clip_;
  int clipCount_ = 0;
  bool pathOpen_ = false;
  ImU32 pathColor_ = 0;
  std::string path_;
  bool hasRun_ = false;
  TextRun run_;
  std::map<ImTextureID, Texture> textures_;
};

}  // namespace

std::string drawDataToSvg(const ImDrawData& data, const ImFont& font, ImTextureID fontTexture, int width, int height,
                          ImU32 background) {
  SvgWriter w(font, fontTexture, width, height);
  w.out() << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width
          << " " << height << "\" font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"" << num(cli::svgFontSize(font.FontSize)) << "\">\n"
          << "<rect width=\"" << width << "\" height=\"" << height << "\" " << fill(background | 0xFF000000u) << "/>\n";
  for (int k = 0; k < data.CmdListsCount; ++k) w.list(*data.CmdLists[k]);
  w.out() << "</svg>\n";
  return w.str();
}

}  // namespace posviz::app
