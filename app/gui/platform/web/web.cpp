// web.cpp: platform.hpp for the page (emscripten): WebGL 2, the browser's animation frames,
// downloads and a file picker, settings in IndexedDB, the address fragment as a link, the
// browser's clipboard. Its JavaScript half is posviz_page.js (the functions named posviz_page_*);
// the functions named posviz_web_* below are what that half and the page's tests call.
#include "app/gui/platform/platform.hpp"

#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>
#include <imgui.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "app/cli/cli.hpp"
#include "app/cli/tar.hpp"
#include "app/gui/platform/gl.hpp"
#include "core/parallel.hpp"

extern "C" {
// posviz_page.js
void posviz_page_download(const char* path, const char* name);
void posviz_page_pick_file(const char* accept);
void posviz_page_pick_path(const char* accept, int folder);
char* posviz_page_address();            // malloc'ed; the caller frees
char* posviz_page_fragment();           // malloc'ed, decoded
void posviz_page_set_fragment(const char* fragment, int push);
void posviz_page_copy_text(const char* text);
char* posviz_page_pasted_text();        // malloc'ed: what the page last received as a paste
void posviz_page_sync_settings();
int posviz_page_settings_kept();        // 1 when browser storage holds the settings
}

namespace posviz::app::platform {

namespace {

// What the page's side keeps. The browser calls back into C++ through free functions that carry no
// context (posviz_web_*, the main loop, ImGui's clipboard hooks), so this is the one object they
// all reach; the page has one window for its whole life.
struct PageSide {
  Page page;                                                   // what the window gave (connectPage)
  std::map<unsigned int, std::pair<int, int>> textureSizes;    // noteTextureSize: ES 3.0 cannot ask
  std::function<bool()> frame;                                 // runFrames' frame, called by the browser
  std::string pasted;                                          // the text ImGui's paste reads
  std::function<void(const std::string&)> picked;              // pickPath's field, until its file arrives
  GLFWwindow* window = nullptr;                                // the page's one window (followPageSize)
  std::map<std::string, std::array<float, 4>> buttons;     // noteButton: where tests click
};
PageSide& side() {
  static PageSide s;
  return s;
}
Page& page() { return side().page; }
std::map<unsigned int, std::pair<int, int>>& textureSizes() { return side().textureSizes; }
std::string takeString(char* p) {
  std::string s = p ? p : "";
  std::free(p);
  return s;
}

}  // namespace

// [SECTION] Render

std::vector<GlRequest> contextRequests(bool) { return {{3, 0}}; }
void applyContextHints(const GlRequest& r, bool) {
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, r.major);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, r.minor);
  // The canvas holds colour only: nothing posviz draws uses a depth or stencil buffer, and an
  // opaque canvas is not blended with the page. Each buffer the context has is cleared by the
  // browser every frame, a full-canvas pass on a software GPU.
  glfwWindowHint(GLFW_DEPTH_BITS, 0);
  glfwWindowHint(GLFW_STENCIL_BITS, 0);
  glfwWindowHint(GLFW_ALPHA_BITS, 0);
}
const char* glslVersion() { return "#version 300 es"; }
int glVersion() { return 30; }
const char* glName() { return "WebGL 2"; }
bool hasGpuBackend() { return false; }
void installGlDebugOutput() {}   // WebGL reports its errors in the browser's console

float contentScale(GLFWwindow*) { return static_cast<float>(emscripten_get_device_pixel_ratio()); }

// Through a framebuffer: OpenGL ES 3.0 cannot read a texture directly, nor ask its size.
bool readTexture(unsigned int texture, int* width, int* height, std::vector<unsigned char>* rgba) {
  int w = 0, h = 0;
  if (auto it = textureSizes().find(texture); it != textureSizes().end()) {
    std::tie(w, h) = it->second;
  } else if (ImGui::GetCurrentContext() && static_cast<unsigned int>(reinterpret_cast<std::intptr_t>(ImGui::GetIO().Fonts->TexID)) == texture) {
    w = ImGui::GetIO().Fonts->TexWidth;
    h = ImGui::GetIO().Fonts->TexHeight;
  }
  *width = w;
  *height = h;
  if (w <= 0 || h <= 0) return false;
  GLint previous = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
  GLuint fbo = 0;
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
  const bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  if (ok) {
    rgba->resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba->data());   // row 0 is the texture's first row
  }
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous));
  glDeleteFramebuffers(1, &fbo);
  return ok;
}
void noteTextureSize(unsigned int texture, int width, int height) { textureSizes()[texture] = {width, height}; }
void forgetTexture(unsigned int texture) { textureSizes().erase(texture); }

// [SECTION] Loop

namespace {
void oneFrame() {
  if (!side().frame()) emscripten_cancel_main_loop();
}
}  // namespace

void runFrames(const std::function<bool()>& frame) {
  side().frame = frame;
  // 0: the browser's animation frames; true: main() does not return here, so what it owns lives on.
  emscripten_set_main_loop(oneFrame, 0, true);
}

void presentFrame(GLFWwindow*, bool continuous) {
  if (continuous) glFinish();
}

// The canvas fills the page (index.html's style); its backing store follows the CSS size at the
// screen's pixel scale, so text is sharp on a high-DPI screen.
void followPageSize(GLFWwindow* window) {
  side().window = window;
  double cssW = 0.0, cssH = 0.0;
  if (emscripten_get_element_css_size("#canvas", &cssW, &cssH) != EMSCRIPTEN_RESULT_SUCCESS) return;
  const double dpr = emscripten_get_device_pixel_ratio();
  const int w = std::max(1, static_cast<int>(std::lround(cssW * dpr)));
  const int h = std::max(1, static_cast<int>(std::lround(cssH * dpr)));
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window, &fw, &fh);
  if (fw != w || fh != h) glfwSetWindowSize(window, w, h);
}

// [SECTION] Files

std::uint64_t memoryBudgetCap() { return std::uint64_t{1} << 30; }

bool saveOffersFolders() { return false; }
std::string downloadFolder() {
  std::error_code ec;
  std::filesystem::create_directories("/downloads", ec);
  return "/downloads";
}
void fileSaved(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  posviz_page_download(path.c_str(), name.c_str());
  std::error_code ec;
  std::filesystem::remove(path, ec);
}
bool opensByPicker() { return true; }
namespace {
std::string acceptList(const std::vector<std::string>& extensions) {
  std::string accept;
  for (const std::string& e : extensions) accept += (accept.empty() ? "" : ",") + e;
  return accept;
}

}  // namespace

void pickFile(const std::vector<std::string>& extensions) {
  side().picked = nullptr;
  posviz_page_pick_file(acceptList(extensions).c_str());
}
void pickPath(const std::vector<std::string>& extensions, bool folder, std::function<void(const std::string&)> picked) {
  side().picked = std::move(picked);
  posviz_page_pick_path(acceptList(extensions).c_str(), folder ? 1 : 0);
}
void folderSaved(const std::string& path) {
  const std::filesystem::path dir(path);
  const std::string name = (dir.filename().empty() ? dir.parent_path().filename() : dir.filename()).string();
  const std::string tar = downloadFolder() + "/" + (name.empty() ? std::string("runs") : name) + ".tar";
  if (cli::writeTar(dir, tar)) fileSaved(tar);
}
void noteButton(const std::string& id, float x, float y, float w, float h) { side().buttons[id] = {x, y, w, h}; }

// [SECTION] Settings

// pre.js mounts browser storage (IDBFS) here and loads it before main() runs.
std::string configDir() { return "/home/web_user/.config/posviz"; }
void settingsSaved() { posviz_page_sync_settings(); }
std::string settingsNotice() {
  return posviz_page_settings_kept() ? "" : "This browser does not let the page keep its settings (no IndexedDB): they last until the page is closed.";
}

// [SECTION] Address

bool hasAddress() { return true; }
std::string address() { return takeString(posviz_page_address()); }
std::string addressFragment() { return takeString(posviz_page_fragment()); }
void setAddressFragment(const std::string& fragment, bool push) { posviz_page_set_fragment(fragment.c_str(), push ? 1 : 0); }

// [SECTION] Clipboard

namespace {
void setClipboard(void*, const char* text) { posviz_page_copy_text(text); }
const char* getClipboard(void*) {
  side().pasted = takeString(posviz_page_pasted_text());
  return side().pasted.c_str();
}
}  // namespace

void installClipboard() {
  ImGuiIO& io = ImGui::GetIO();
  io.SetClipboardTextFn = setClipboard;
  io.GetClipboardTextFn = getClipboard;
  io.ClipboardUserData = nullptr;
}

void connectPage(Page p) { page() = std::move(p); }

}  // namespace posviz::app::platform

// What posviz_page.js and the page's tests call.
extern "C" {

EMSCRIPTEN_KEEPALIVE void posviz_web_open_file(const char* path) {
  auto& p = posviz::app::platform::page();
  if (p.openFile) p.openFile(path);
}
// A file or folder chosen for a field (pickPath), now at `path` in the page's memory.
EMSCRIPTEN_KEEPALIVE void posviz_web_picked(const char* path) {
  auto& side = posviz::app::platform::side();
  std::function<void(const std::string&)> picked = std::move(side.picked);
  side.picked = nullptr;
  if (picked) picked(path);
  else posviz_web_open_file(path);
}
// The mouse wheel, in notches (pre.js: the browser's pixels, lines or pages made steps; up and
// right positive, as GLFW counts them), to whatever scroll callback the window has (ImGui's).
// Emscripten's own GLFW handler passes the browser's pixel deltas with the sign of the page's
// scrolling, which scrolled ImGui the wrong way by a hundred steps at a time: pre.js keeps the
// wheel from it.
EMSCRIPTEN_KEEPALIVE void posviz_web_wheel(double x, double y) {
  GLFWwindow* w = posviz::app::platform::side().window;
  if (w == nullptr) return;
  const GLFWscrollfun callback = glfwSetScrollCallback(w, nullptr);
  glfwSetScrollCallback(w, callback);
  if (callback) callback(w, x, y);
}
// Malloc'ed JSON: each pick button's id and its rectangle [x, y, w, h] in CSS pixels, as last drawn.
EMSCRIPTEN_KEEPALIVE char* posviz_web_buttons() {
  std::string s = "{";
  for (const auto& [id, r] : posviz::app::platform::side().buttons) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s\"%s\":[%.1f,%.1f,%.1f,%.1f]", s.size() > 1 ? "," : "", id.c_str(), r[0], r[1], r[2], r[3]);
    s += buf;
  }
  s += "}";
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out) std::copy(s.c_str(), s.c_str() + s.size() + 1, out);
  return out;
}
EMSCRIPTEN_KEEPALIVE void posviz_web_address_changed() {
  auto& p = posviz::app::platform::page();
  if (p.addressChanged) p.addressChanged();
}
EMSCRIPTEN_KEEPALIVE void posviz_web_store_settings() {
  auto& p = posviz::app::platform::page();
  if (p.storeSettings) p.storeSettings();
}
// Malloc'ed JSON; the caller frees it (_free).
EMSCRIPTEN_KEEPALIVE char* posviz_web_state() {
  auto& p = posviz::app::platform::page();
  const std::string s = p.state ? p.state() : "{}";
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out) std::copy(s.c_str(), s.c_str() + s.size() + 1, out);
  return out;
}
EMSCRIPTEN_KEEPALIVE int posviz_web_select_panel(const char* name) {
  auto& p = posviz::app::platform::page();
  return p.selectPanel && p.selectPanel(name) ? 1 : 0;
}
// The command line inside the page (the same library the desktop's posviz runs): args is one
// argument per line. Files it writes stay in the page's memory for the caller to read (FS).
EMSCRIPTEN_KEEPALIVE int posviz_web_run_cli(const char* args) {
  std::vector<std::string> words = {"posviz"};
  std::string cur;
  for (const char* c = args; *c; ++c) {
    if (*c == '\n') {
      words.push_back(cur);
      cur.clear();
    } else {
      cur += *c;
    }
  }
  if (!cur.empty()) words.push_back(cur);
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  // Called on the page's main thread, which must not wait for a thread the page has yet to start
  // (a worker needs the main thread's event loop to begin): the command runs on this thread alone.
  // Its results do not depend on the thread count (train --threads, the kernels' splits).
  const int cap = posviz::threadCapOfThisThread();
  posviz::threadCapOfThisThread() = 1;
  struct Restore {
    int cap;
    ~Restore() { posviz::threadCapOfThisThread() = cap; }
  } restore{cap};
  try {
    const std::optional<int> rc = posviz::cli::runCli(static_cast<int>(words.size()), argv.data());
    return rc ? *rc : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "posviz: %s\n", e.what());
    return 1;
  }
}

}  // extern "C"
