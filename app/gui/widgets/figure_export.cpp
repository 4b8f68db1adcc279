// figure_export.cpp: see figure_export.hpp.
#include "app/gui/widgets/figure_export.hpp"

#include <backends/imgui_impl_opengl3.h>
#include "app/gui/platform/gl.hpp"
#include "app/gui/platform/platform.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "app/cli/export.hpp"
#include "app/gui/widgets/draw_svg.hpp"
#include "core/atomic_file.hpp"
#include "core/embedded.hpp"
#include "core/grid.hpp"

namespace posviz::app {

namespace {

struct PendingExport {
  ImGuiID id = 0;
  ImVec2 screen;                 // its size on screen when asked for
  FigureExportOptions options;
};

struct Registry {
  std::vector<FigureEntry> building, shown;
  int depth = 0;                 // > 0 while a figure draws: figures inside it are part of it
  bool exportPass = false;
  std::optional<PendingExport> pending;
  std::optional<FigureExportResult> result;
  std::optional<FigureMenuChoice> menuChoice;
  ImGuiID presented = 0;
  ImFont* presentFont = nullptr;
  std::vector<unsigned int> textures;   // releaseAfterExport
};

Registry& registry() {
  static Registry r;
  return r;
}

// Latin, Greek (theta, omega, lambda), punctuation, arrows, math operators, shapes.
constexpr ImWchar kGlyphRanges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x2000, 0x206F, 0x2190, 0x21FF,
                                    0x2200, 0x22FF, 0x25A0, 0x25FF, 0};

bool endsWith(const std::string& s, const char* tail) {
  const std::string t(tail);
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

// ---- Drawing the figure into a context of its own -------------------------------------------

// Makes an ImGui context for one file and makes it current; gives the window's back on destruction
// (also when the export throws).
class ExportContext {
 public:
  ExportContext(const FigureExportOptions& o, bool antiAlias) : previous_(ImGui::GetCurrentContext()) {
    const ImGuiStyle style = ImGui::GetStyle();
    const float screenFont = ImGui::GetFontSize();
    context_ = ImGui::CreateContext();
    ImGui::SetCurrentContext(context_);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.LogFilename = nullptr;
    fontPx_ = kBaseFontPx * o.textScale;
    font_ = addAppFont(io.Fonts, fontPx_);
    io.Fonts->Build();
    ImGuiStyle& st = ImGui::GetStyle();
    st = style;
    st.ScaleAllSizes(fontPx_ / std::max(screenFont, 1.0f));
    st.AntiAliasedLines = st.AntiAliasedFill = antiAlias;
    st.AntiAliasedLinesUseTex = antiAlias;
    st.WindowBorderSize = 0.0f;
    ImGui_ImplOpenGL3_Init("#version 330 core");
  }
  ~ExportContext() {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui::DestroyContext(context_);
    ImGui::SetCurrentContext(previous_);
  }
  ExportContext(const ExportContext&) = delete;
  ExportContext& operator=(const ExportContext&) = delete;
  float fontPx() const { return fontPx_; }
  ImFont* font() const { return font_; }

 private:
  ImGuiContext* previous_;
  ImGuiContext* context_ = nullptr;
  ImFont* font_ = nullptr;
  float fontPx_ = kBaseFontPx;
};

// One frame of the export context at size `display`, the figure at (pad, pad) filling `figure`
// and the caption wrapped under it.
void exportFrame(ImVec2 display, ImVec2 figure, float pad, const std::string& caption,
                 const std::function<void(ImVec2)>& draw) {
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = display;
  io.DeltaTime = 1.0f / 60.0f;
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  ImGui_ImplOpenGL3_NewFrame();
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(display);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(pad, pad));
  ImGui::Begin("##figure", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoScrollWithMouse);
  ImGui::PopStyleVar();
  draw(figure);
  ImGui::SetCursorScreenPos(ImVec2(pad, pad + figure.y + pad * 0.5f));
  if (!caption.empty()) {
    ImGui::PushTextWrapPos(display.x - pad);
    ImGui::TextUnformatted(caption.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::End();
  ImGui::Render();
}

// The figure's picture as RGB, drawn by the GL into a framebuffer of its own.
cli::RgbImage renderPixels(const ImDrawData& data, int width, int height) {
  GLint previous = 0, viewport[4] = {};
  GLfloat clear[4] = {};
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
  glGetIntegerv(GL_VIEWPORT, viewport);
  glGetFloatv(GL_COLOR_CLEAR_VALUE, clear);
  GLuint fbo = 0, rb = 0;
  glGenRenderbuffers(1, &rb);
  glBindRenderbuffer(GL_RENDERBUFFER, rb);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
  const bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  cli::RgbImage img;
  if (complete) {
    const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    const bool scissor = glIsEnabled(GL_SCISSOR_TEST) == GL_TRUE;
    glDisable(GL_SCISSOR_TEST);
    glViewport(0, 0, width, height);
    glClearColor(bg.x, bg.y, bg.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (scissor) glEnable(GL_SCISSOR_TEST);
    ImGui_ImplOpenGL3_RenderDrawData(const_cast<ImDrawData*>(&data));
    std::vector<std::uint8_t> rgba(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    img.width = width;
    img.height = height;
    img.rgb.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
    for (int y = 0; y < height; ++y) {   // GL's rows start at the bottom
      const std::uint8_t* src = rgba.data() + static_cast<std::size_t>(height - 1 - y) * static_cast<std::size_t>(width) * 4;
      for (int x = 0; x < width; ++x) std::copy_n(src + x * 4, 3, img.pixel(x, y));
    }
  }
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous));
  glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
  glClearColor(clear[0], clear[1], clear[2], clear[3]);
  glDeleteFramebuffers(1, &fbo);
  glDeleteRenderbuffers(1, &rb);
  if (!complete) throw std::runtime_error("the GL could not make a " + std::to_string(width) + " x " + std::to_string(height) + " picture");
  return img;
}

void releaseTextures(Registry& r) {
  for (const unsigned int t : r.textures) glDeleteTextures(1, &t);
  r.textures.clear();
}

// Writes the figure drawn by `draw` (size on screen `screen`) as o asks; returns the message.
std::string writeFigure(const FigureExportOptions& o, ImVec2 screen, const std::function<void(ImVec2)>& draw) {
  const bool svg = endsWith(o.path, ".svg");
  ExportContext context(o, !svg);
  const float pad = std::round(context.fontPx() * 0.8f);
  const float figW = static_cast<float>(o.width) - 2.0f * pad;
  const ImVec2 figure(figW, std::round(figW * screen.y / std::max(screen.x, 1.0f)));
  float captionH = 0.0f;
  if (!o.caption.empty()) {   // measured in a frame of its own: the display's height depends on it
    ImGui::GetIO().DisplaySize = ImVec2(static_cast<float>(o.width), 100.0f);
    ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    captionH = ImGui::CalcTextSize(o.caption.c_str(), nullptr, false, figW).y + pad * 0.5f;
    ImGui::EndFrame();
  }
  const int height = static_cast<int>(std::ceil(pad * 2.0f + figure.y + captionH));
  if (height > kMaxFigureWidth)
    throw std::invalid_argument("the figure would be " + std::to_string(height) + " px high, past " + std::to_string(kMaxFigureWidth) +
                                "; choose a smaller width");
  registry().exportPass = true;
  try {
    exportFrame(ImVec2(static_cast<float>(o.width), static_cast<float>(height)), figure, pad, o.caption, draw);
  } catch (...) {
    registry().exportPass = false;
    releaseTextures(registry());
    throw;
  }
  registry().exportPass = false;
  const ImDrawData& data = *ImGui::GetDrawData();
  std::string text;
  cli::RgbImage pixels;
  if (svg) {
    const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    text = drawDataToSvg(data, *context.font(), ImGui::GetIO().Fonts->TexID, o.width, height,
                         ImGui::ColorConvertFloat4ToU32(ImVec4(bg.x, bg.y, bg.z, 1.0f)));
  } else {
    pixels = renderPixels(data, o.width, height);
  }
  releaseTextures(registry());
  if (svg) writeFileAtomically(o.path, [&](std::ostream& os) { os << text; });
  else cli::writePngImage(o.path, pixels);
  std::error_code ec;
  const std::string abs = std::filesystem::absolute(o.path, ec).lexically_normal().string();
  const std::uintmax_t bytes = std::filesystem::file_size(o.path, ec);
  return "Wrote " + abs + " (" + std::to_string(o.width) + " x " + std::to_string(height) + " px, " + formatBytes(ec ? 0 : bytes) + ")";
}

void runPendingExport(Registry& r, const std::function<void(ImVec2)>& draw) {
  const PendingExport p = *r.pending;
  r.pending.reset();
  FigureExportResult result;
  try {
    result.message = writeFigure(p.options, p.screen, draw);
    result.ok = true;
    platform::fileSaved(p.options.path);   // the page: a download
  } catch (const std::exception& e) {
    result.message = std::string("Figure not written: ") + e.what();
  }
  r.result = result;
}

// ---- On screen -------------------------------------------------------------------------------

void figureMenu(Registry& r, const FigureEntry& entry) {
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenBlockedByActiveItem) && ImGui::IsMouseReleased(ImGuiMouseButton_Right))
    ImGui::OpenPopup("##figure-menu");
  if (!ImGui::BeginPopup("##figure-menu")) return;
  ImGui::TextDisabled("%s", entry.text.title.c_str());
  if (ImGui::MenuItem("Export this figure as PNG or SVG...")) r.menuChoice = FigureMenuChoice{entry, false};
  if (ImGui::MenuItem("Present this figure", "F11")) r.menuChoice = FigureMenuChoice{entry, true};
  ImGui::EndPopup();
}

// The presented figure: over the whole window, its title large above it, its caption below.
void drawPresented(Registry& r, const FigureEntry& entry, const std::function<void(ImVec2)>& draw) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->Pos);
  ImGui::SetNextWindowSize(vp->Size);
  ImGui::SetNextWindowFocus();
  ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
  bg.w = 1.0f;   // the controls it covers stay hidden
  ImGui::PushStyleColor(ImGuiCol_WindowBg, bg);
  ImGui::Begin("##present", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoMove);
  ImGui::PopStyleColor();
  if (r.presentFont != nullptr) ImGui::PushFont(r.presentFont);
  const float fh = ImGui::GetFontSize();
  if (!entry.text.titleDrawn) {
    ImGui::TextUnformatted(entry.text.title.c_str());
    ImGui::Spacing();
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  float captionH = 0.0f;
  if (!entry.text.caption.empty()) captionH = ImGui::CalcTextSize(entry.text.caption.c_str(), nullptr, false, avail.x).y + fh;
  const float hintH = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 size(avail.x, std::max(avail.y - captionH - hintH, fh * 4.0f));
  ImGui::PushID("presented");
  draw(size);
  ImGui::PopID();
  if (!entry.text.caption.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(entry.text.caption.c_str());
    ImGui::PopTextWrapPos();
  }
  if (r.presentFont != nullptr) ImGui::PopFont();
  ImGui::TextDisabled("%s", r.shown.size() > 1 ? "Esc or F11: back to the controls   Page Up / Page Down: the tab's other figures"
                                                : "Esc or F11: back to the controls");
  ImGui::End();
}

}  // namespace

ImFont* addAppFont(ImFontAtlas* atlas, float px) {
  ImFontConfig cfg;
  cfg.FontDataOwnedByAtlas = false;   // the embedded array lives for the whole program
  cfg.OversampleH = 2;
  cfg.OversampleV = 2;
  const embedded::File* font = embedded::fonts.find("DejaVuSans.ttf");
  return atlas->AddFontFromMemoryTTF(const_cast<unsigned char*>(font->data), static_cast<int>(font->size), px, &cfg, kGlyphRanges);
}

void drawFigure(const char* id, const FigureText& text, ImVec2 size, const std::function<void(ImVec2)>& draw) {
  Registry& r = registry();
  if (r.exportPass || r.depth > 0) {
    draw(size);
    return;
  }
  ImGui::PushID(id);
  FigureEntry entry{ImGui::GetID("##figure"), id, text, size, {}, {}};
  ++r.depth;
  if (r.pending && r.pending->id == entry.id) runPendingExport(r, draw);
  const bool presented = r.presented == entry.id;
  if (presented) {
    ImGui::Dummy(ImVec2(size.x, std::max(size.y, 1.0f)));   // its place among the controls, kept while it is shown over them
  } else {
    ImGui::BeginGroup();
    draw(size);
    ImGui::EndGroup();
  }
  entry.min = ImGui::GetItemRectMin();
  entry.max = ImGui::GetItemRectMax();
  entry.size = ImVec2(entry.max.x - entry.min.x, entry.max.y - entry.min.y);   // as drawn (a table: as tall as its rows)
  if (presented) drawPresented(r, entry, draw);
  else figureMenu(r, entry);
  --r.depth;
  r.building.push_back(entry);
  ImGui::PopID();
}

bool figureExportPass() { return registry().exportPass; }

void releaseAfterExport(unsigned int texture) {
  if (texture != 0) registry().textures.push_back(texture);
}

void beginFigureFrame() {
  Registry& r = registry();
  r.shown.swap(r.building);
  r.building.clear();
  // An export whose figure was not drawn in a whole frame (its tab was left) is not done.
  if (r.pending && std::none_of(r.shown.begin(), r.shown.end(), [&](const FigureEntry& e) { return e.id == r.pending->id; })) {
    r.pending.reset();
    r.result = FigureExportResult{false, "Figure not written: it is no longer on screen"};
  }
}

const std::vector<FigureEntry>& figuresShown() { return registry().shown; }

std::string checkFigureExport(const FigureExportOptions& o) {
  if (!endsWith(o.path, ".png") && !endsWith(o.path, ".svg")) return "the file name must end in .png or .svg";
  const std::filesystem::path p(o.path);
  if (p.filename().string() == ".png" || p.filename().string() == ".svg") return "the file needs a name before .png or .svg";
  if (o.width < kMinFigureWidth || o.width > kMaxFigureWidth)
    return "width " + std::to_string(o.width) + " px is outside " + std::to_string(kMinFigureWidth) + ".." + std::to_string(kMaxFigureWidth);
  if (!(o.textScale >= kMinFigureTextScale && o.textScale <= kMaxFigureTextScale)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "text size %.2f is outside %.1f..%.1f", static_cast<double>(o.textScale),
                  static_cast<double>(kMinFigureTextScale), static_cast<double>(kMaxFigureTextScale));
    return buf;
  }
  std::error_code ec;
  const std::filesystem::path folder = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(folder, ec)) return "folder " + folder.string() + " does not exist";
  return "";
}

float textScaleAsOnScreen(int width, float screenWidth) {
  const float s = static_cast<float>(width) / std::max(screenWidth, 1.0f) * ImGui::GetFontSize() / kBaseFontPx;
  return std::clamp(s, kMinFigureTextScale, kMaxFigureTextScale);
}

void requestFigureExport(const FigureEntry& figure, const FigureExportOptions& o) {
  registry().pending = PendingExport{figure.id, figure.size, o};
  registry().result.reset();
}

bool figureExportPending() { return registry().pending.has_value(); }

std::optional<FigureExportResult> takeFigureExportResult() { return std::exchange(registry().result, std::nullopt); }

std::optional<FigureMenuChoice> takeFigureMenuChoice() { return std::exchange(registry().menuChoice, std::nullopt); }

void setPresentedFigure(ImGuiID id, ImFont* font) {
  registry().presented = id;
  registry().presentFont = font;
}

ImGuiID presentedFigure() { return registry().presented; }

}  // namespace posviz::app
