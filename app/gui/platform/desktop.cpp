// desktop.cpp: platform.hpp for the desktop window: GL 4.x/3.3 core through epoxy, a while loop,
// real files and folders, settings under $XDG_CONFIG_HOME, no address.
#include "app/gui/platform/platform.hpp"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "app/gui/platform/gl.hpp"

namespace posviz::app::platform {

// [SECTION] Render

std::vector<GlRequest> contextRequests(bool forceGl33) {
  // GL 4.3 core for compute shaders; 3.3 core otherwise (then everything runs on the CPU).
  if (forceGl33) return {{3, 3}};
  return {{4, 3}, {3, 3}};
}

void applyContextHints(const GlRequest& r, bool debug) {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, r.major);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, r.minor);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  if (debug) glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, GLFW_TRUE);
}

const char* glslVersion() { return "#version 330 core"; }
int glVersion() { return epoxy_gl_version(); }
const char* glName() { return "OpenGL"; }
bool hasGpuBackend() { return true; }

namespace {
void GLAPIENTRY glDebugCallback(GLenum, GLenum type, GLuint, GLenum severity, GLsizei, const GLchar* message, const void*) {
  if (severity == GL_DEBUG_SEVERITY_NOTIFICATION) return;
  std::fprintf(stderr, "posviz: GL %s: %s\n", type == GL_DEBUG_TYPE_ERROR ? "error" : "message", message);
}
}  // namespace

void installGlDebugOutput() {
  if (epoxy_gl_version() < 43) return;
  glEnable(GL_DEBUG_OUTPUT);
  glDebugMessageCallback(glDebugCallback, nullptr);
}

float contentScale(GLFWwindow* window) {
  float sx = 1.0f, sy = 1.0f;
  glfwGetWindowContentScale(window, &sx, &sy);
  return std::max(sx, sy);
}

bool readTexture(unsigned int texture, int* width, int* height, std::vector<unsigned char>* rgba) {
  GLint previous = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(texture));
  GLint w = 0, h = 0;
  glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &w);
  glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, &h);
  const bool ok = w > 0 && h > 0;
  if (ok) {
    rgba->resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba->data());
  }
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
  *width = w;
  *height = h;
  return ok;
}
// The desktop asks GL for a texture's size.
void noteTextureSize(unsigned int, int, int) {}
void forgetTexture(unsigned int) {}

// [SECTION] Loop

void runFrames(const std::function<bool()>& frame) {
  while (frame()) {
  }
}
void presentFrame(GLFWwindow* window, bool) { glfwSwapBuffers(window); }
void followPageSize(GLFWwindow*) {}

// [SECTION] Files

bool saveOffersFolders() { return true; }
std::string downloadFolder() { return ""; }
void fileSaved(const std::string&) {}
bool opensByPicker() { return false; }
void pickFile(const std::vector<std::string>&) {}
std::uint64_t memoryBudgetCap() { return 0; }
void pickPath(const std::vector<std::string>&, bool, std::function<void(const std::string&)>) {}
void folderSaved(const std::string&) {}
void noteButton(const std::string&, float, float, float, float) {}

// [SECTION] Settings

std::string configDir() {
  if (const char* x = std::getenv("POSVIZ_CONFIG_DIR"); x && *x) return x;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/posviz";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/posviz";
  return "";
}
void settingsSaved() {}
std::string settingsNotice() { return ""; }

// [SECTION] Address

bool hasAddress() { return false; }
std::string address() { return ""; }
std::string addressFragment() { return ""; }
void setAddressFragment(const std::string&, bool) {}

// [SECTION] Clipboard

void installClipboard() {}

void connectPage(Page) {}

}  // namespace posviz::app::platform
