#include "app/gui/shell/screenshot.hpp"

#include "app/gui/platform/gl.hpp"
#include <stb_image_write.h>

#include <cstring>
#include <ostream>
#include <stdexcept>

#include "core/atomic_file.hpp"

namespace posviz::app {

namespace {
// The bound framebuffer's pixels, bottom-up, with comp (3 or 4) channels. Read as RGBA, the one
// format every GL (WebGL 2 included) reads, then packed to RGB when asked.
bool readPixelsRgba(int width, int height, int comp, std::vector<unsigned char>& out) {
  const std::size_t count = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  out.resize(count * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, out.data());
  if (glGetError() != GL_NO_ERROR) return false;
  if (comp == 3) {
    for (std::size_t i = 0; i < count; ++i)
      for (int c = 0; c < 3; ++c) out[i * 3 + static_cast<std::size_t>(c)] = out[i * 4 + static_cast<std::size_t>(c)];
    out.resize(count * 3);
  }
  return true;
}
}  // namespace

bool readFramebuffer(int width, int height, bool alpha, std::vector<unsigned char>& out) {
  if (width <= 0 || height <= 0) return false;
  const int comp = alpha ? 4 : 3;
  const std::size_t stride = static_cast<std::size_t>(width) * static_cast<std::size_t>(comp);
  std::vector<unsigned char> raw;
  glReadBuffer(GL_BACK);
  if (!readPixelsRgba(width, height, comp, raw)) return false;
  out.resize(raw.size());
  for (int y = 0; y < height; ++y)
    std::memcpy(&out[static_cast<std::size_t>(y) * stride], &raw[static_cast<std::size_t>(height - 1 - y) * stride], stride);
  return true;
}

bool saveScreenshot(const std::string& path, const ScreenshotOptions& options, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = "screenshot " + path + ": " + why;
    return false;
  };
  int w = options.width, h = options.height;
  if (w <= 0 || h <= 0) {
    GLint vp[4] = {0, 0, 0, 0};
    glGetIntegerv(GL_VIEWPORT, vp);
    w = vp[2];
    h = vp[3];
  }
  if (w <= 0 || h <= 0) return fail("the window has no pixels (minimized?)");
  const int comp = options.includeAlpha ? 4 : 3;
  const std::size_t stride = static_cast<std::size_t>(w) * static_cast<std::size_t>(comp);
  std::vector<unsigned char> pixels;
  if (!readPixelsRgba(w, h, comp, pixels)) return fail("glReadPixels failed");

  // GL rows are bottom-up: flip on write. The one safe writer puts it in place (core/atomic_file.hpp).
  try {
    writeFileAtomically(path, [&](std::ostream& out) {
      stbi_flip_vertically_on_write(1);
      const int ok = stbi_write_png_to_func(
          [](void* context, void* data, int size) {
            static_cast<std::ostream*>(context)->write(static_cast<const char*>(data), size);
          },
          &out, w, h, comp, pixels.data(), static_cast<int>(stride));
      stbi_flip_vertically_on_write(0);
      if (!ok) throw std::runtime_error("PNG encoding failed");
    });
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
  return true;
}

}  // namespace posviz::app
