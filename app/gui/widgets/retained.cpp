// retained.cpp: see retained.hpp.
//
// The texture holds the drawing with premultiplied alpha: ImGui's OpenGL3 backend blends colour
// with (src alpha, 1 - src alpha) and alpha with (1, 1 - src alpha), which over a transparent
// start is exactly premultiplied "over". Drawn back with (1, 1 - src alpha), the quad puts on the
// window what drawing directly would have, to a rounding step per blended layer.
#include "app/gui/widgets/retained.hpp"

#include "app/gui/widgets/figure_export.hpp"

#include <backends/imgui_impl_opengl3.h>
#include "app/gui/platform/gl.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdint>
#include <cstring>
#include <unordered_map>

namespace posviz::app {

namespace {

struct Entry {
  GLuint fbo = 0, texture = 0;
  int width = 0, height = 0;       // of the texture, framebuffer pixels
  std::uint64_t key = 0;
  bool rendered = false;           // the texture holds the drawing of `key`
  bool failed = false;             // no texture could be made for `key`: drawn directly
  ImVec2 offset, covered;          // the texture's corner from the origin, and its size (pixels)
  int lastFrame = 0;
};

struct Cache {
  std::unordered_map<ImGuiID, Entry> entries;
  bool enabled = true;
  int frame = -1;                  // the frame `shown` counts
  int shown = 0;
};

Cache& cache() {
  static Cache c;
  return c;
}

// A drawing not drawn for this many frames (its tab closed, its panel scrolled away) gives its
// texture back.
constexpr int kIdleFrames = 120;

// How far past its widget's box a drawing may reach and still be kept (a long title).
constexpr float kMargin = 256.0f;

// The texture and framebuffer only: the entry keeps its key and when it was last drawn.
void freeTarget(Entry& e) {
  if (e.fbo) glDeleteFramebuffers(1, &e.fbo);
  if (e.texture) glDeleteTextures(1, &e.texture);
  e.fbo = e.texture = 0;
  e.width = e.height = 0;
}

// Once a frame: the frame's counter starts over, idle drawings go.
void startFrame(Cache& c) {
  const int frame = ImGui::GetFrameCount();
  if (c.frame == frame) return;
  c.frame = frame;
  c.shown = 0;
  for (auto it = c.entries.begin(); it != c.entries.end();) {
    if (frame - it->second.lastFrame > kIdleFrames) {
      freeTarget(it->second);
      it = c.entries.erase(it);
    } else {
      ++it;
    }
  }
}

// What every drawing reads besides its own inputs: colours, font, pixel scale and the
// tessellation settings.
std::uint64_t styleKey() {
  const ImGuiStyle& st = ImGui::GetStyle();
  RetainedKey k;
  k.add(st.Colors, sizeof st.Colors)
      .add(ImGui::GetFont())
      .add(ImGui::GetFontSize())
      .add(ImGui::GetIO().DisplayFramebufferScale)
      .add(st.AntiAliasedLines)
      .add(st.AntiAliasedLinesUseTex)
      .add(st.AntiAliasedFill)
      .add(st.CurveTessellationTol)
      .add(st.CircleTessellationMaxError);
  return k.value();
}

bool ensureTarget(Entry& e, int width, int height) {
  if (e.texture && e.width == width && e.height == height) return true;
  freeTarget(e);
  GLint maxSize = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxSize);
  if (width > maxSize || height > maxSize) return false;
  glGenTextures(1, &e.texture);
  glBindTexture(GL_TEXTURE_2D, e.texture);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, 0);
  GLint previous = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
  glGenFramebuffers(1, &e.fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, e.fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, e.texture, 0);
  const bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous));
  e.width = width;
  e.height = height;
  if (!complete) freeTarget(e);
  return complete;
}

// Where a drawing's pixels lie: every draw command's vertices, cut to its clip rectangle. Text
// wider than its widget (a long plot title) lies outside the widget's box, and is kept.
bool contentBounds(const ImDrawList& list, ImVec2& lo, ImVec2& hi) {
  constexpr float kBig = std::numeric_limits<float>::max();
  lo = ImVec2(kBig, kBig);
  hi = ImVec2(-kBig, -kBig);
  for (const ImDrawCmd& cmd : list.CmdBuffer) {
    if (cmd.UserCallback || cmd.ElemCount == 0) continue;
    ImVec2 a(kBig, kBig), b(-kBig, -kBig);
    for (unsigned int i = cmd.IdxOffset; i < cmd.IdxOffset + cmd.ElemCount; ++i) {
      const ImVec2 v = list.VtxBuffer[static_cast<int>(cmd.VtxOffset + list.IdxBuffer[static_cast<int>(i)])].pos;
      a = ImVec2(std::min(a.x, v.x), std::min(a.y, v.y));
      b = ImVec2(std::max(b.x, v.x), std::max(b.y, v.y));
    }
    a = ImVec2(std::max(a.x, cmd.ClipRect.x), std::max(a.y, cmd.ClipRect.y));
    b = ImVec2(std::min(b.x, cmd.ClipRect.z), std::min(b.y, cmd.ClipRect.w));
    if (a.x >= b.x || a.y >= b.y) continue;   // clipped away
    lo = ImVec2(std::min(lo.x, a.x), std::min(lo.y, a.y));
    hi = ImVec2(std::max(hi.x, b.x), std::max(hi.y, b.y));
  }
  return lo.x < hi.x && lo.y < hi.y;
}

// Draws `draw` into e's texture. The texture covers what the drawing covers, in whole pixels;
// e.offset is where its top-left corner lies from `origin`; box is the widget's size.
bool renderToTexture(Entry& e, ImVec2 origin, ImVec2 box, const std::function<void(ImDrawList*)>& draw) {
  ImDrawList list(ImGui::GetDrawListSharedData());
  list._ResetForNewFrame();
  list.PushTextureID(ImGui::GetIO().Fonts->TexID);
  // Generous room around the widget (whatever the window clips now may show after a scroll).
  list.PushClipRect(ImVec2(origin.x - kMargin, origin.y - kMargin), ImVec2(origin.x + box.x + kMargin, origin.y + box.y + kMargin));
  draw(&list);
  list.PopClipRect();
  list.PopTextureID();
  list._PopUnusedDrawCmd();
  ImVec2 lo, hi;
  if (!contentBounds(list, lo, hi)) return false;
  const ImVec2 p0(std::floor(lo.x), std::floor(lo.y));
  const ImVec2 size(std::ceil(hi.x) - p0.x, std::ceil(hi.y) - p0.y);
  const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
  const int width = static_cast<int>(std::ceil(size.x * scale.x)), height = static_cast<int>(std::ceil(size.y * scale.y));
  if (width <= 0 || height <= 0 || !ensureTarget(e, width, height)) return false;
  e.offset = ImVec2(p0.x - origin.x, p0.y - origin.y);
  e.covered = size;

  ImDrawList* lists[] = {&list};
  ImDrawData data;
  data.Valid = true;
  data.CmdLists = lists;
  data.CmdListsCount = 1;
  data.TotalVtxCount = list.VtxBuffer.Size;
  data.TotalIdxCount = list.IdxBuffer.Size;
  data.DisplayPos = p0;
  data.DisplaySize = size;
  data.FramebufferScale = scale;

  GLint previous = 0;
  GLfloat clear[4] = {};
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
  glGetFloatv(GL_COLOR_CLEAR_VALUE, clear);
  const bool scissor = glIsEnabled(GL_SCISSOR_TEST) == GL_TRUE;
  glBindFramebuffer(GL_FRAMEBUFFER, e.fbo);
  glDisable(GL_SCISSOR_TEST);
  glClearColor(0.0f, 0.0f, 0.0f, 0.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  if (scissor) glEnable(GL_SCISSOR_TEST);
  ImGui_ImplOpenGL3_RenderDrawData(&data);   // restores the GL state it changes
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous));
  glClearColor(clear[0], clear[1], clear[2], clear[3]);
  return true;
}

void premultipliedBlend(const ImDrawList*, const ImDrawCmd*) {
  glBlendFuncSeparate(GL_ONE, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
}

}  // namespace

RetainedKey& RetainedKey::add(const void* data, std::size_t bytes) {
  // 8 bytes at a time through a multiply-rotate mix (as in MurmurHash), the tail zero-padded.
  const auto* p = static_cast<const unsigned char*>(data);
  auto mix = [this](std::uint64_t w) {
    w *= 0x87C37B91114253D5ull;
    w = (w << 31) | (w >> 33);
    h_ ^= w * 0x4CF5AD432745937Full;
    h_ = ((h_ << 27) | (h_ >> 37)) * 5 + 0x52DCE729;
  };
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, p + i, 8);
    mix(w);
  }
  std::uint64_t tail = 0;
  if (i < bytes) std::memcpy(&tail, p + i, bytes - i);
  mix(tail ^ (static_cast<std::uint64_t>(bytes) << 56));
  return *this;
}

void drawRetained(const char* id, ImVec2 origin, ImVec2 size, std::uint64_t key,
                  const std::function<void(ImDrawList*)>& draw) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (figureExportPass()) {   // a figure drawn for a file, in a context of its own: nothing kept
    draw(dl);
    return;
  }
  Cache& c = cache();
  startFrame(c);
  if (!c.enabled || size.x < 1.0f || size.y < 1.0f) {
    draw(dl);
    return;
  }
  // The sub-pixel part of the origin goes into the key: the texture's pixels are then the ones a
  // direct drawing at this origin would cover.
  RetainedKey full;
  full.add(key).add(styleKey()).add(origin.x - std::floor(origin.x)).add(origin.y - std::floor(origin.y)).add(size);
  Entry& e = c.entries[ImGui::GetID(id)];
  e.lastFrame = c.frame;
  if (e.key != full.value()) {        // new or changed: drawn directly until it holds still
    e.key = full.value();
    e.rendered = e.failed = false;
    draw(dl);
    return;
  }
  if (!e.rendered && (e.failed || !(e.rendered = renderToTexture(e, origin, size, draw)))) {
    e.failed = true;
    draw(dl);
    return;
  }
  const ImVec2 p0(origin.x + e.offset.x, origin.y + e.offset.y);
  dl->AddCallback(premultipliedBlend, nullptr);
  dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(e.texture)), p0,
               ImVec2(p0.x + e.covered.x, p0.y + e.covered.y), ImVec2(0, 1), ImVec2(1, 0));
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
  ++c.shown;
}

void setRetainedEnabled(bool on) { cache().enabled = on; }

int retainedShownThisFrame() {
  const Cache& c = cache();
  return c.frame == ImGui::GetFrameCount() ? c.shown : 0;
}

void releaseRetained() {
  Cache& c = cache();
  for (auto& [id, e] : c.entries) freeTarget(e);
  c.entries.clear();
  c.frame = -1;   // the next window's ImGui context counts its frames from the start
  c.shown = 0;
}

}  // namespace posviz::app
