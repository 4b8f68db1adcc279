// retained.hpp: drawings kept as a texture while what they show does not change.
//
// ImGui redraws every frame, and a software GL (llvmpipe under Xvfb, a remote desktop) pays for
// every triangle it is handed. A drawing whose inputs are the same as last frame's is drawn once
// more, into a texture, and from then on the frame hands the GL one quad until its key changes.
// During a slider drag that is the difference between redrawing the plots that did not move
// (q and k, curves waiting for the drag to rest, the pairing diagram) and not.
//
//   RetainedKey key;
//   key.add(spec.series).add(width);          // everything the drawing reads
//   drawRetained("plot", origin, size, key.value(), [&](ImDrawList* dl) { ... draw into dl ... });
//
// The key is the caller's; the style's colours, the font and the sub-pixel position are added
// here. The drawing must stay inside [origin, origin + size) and draw the same pixels wherever
// it is placed (it is translated, never re-laid out). Hover overlays are drawn after it, into the
// window, as usual. Nothing is retained for a drawing whose key changes every frame.
#pragma once

#include <imgui.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <type_traits>
#include <vector>

namespace posviz::app {

// A 64-bit hash of what a drawing reads, one value at a time.
class RetainedKey {
 public:
  RetainedKey& add(const void* data, std::size_t bytes);
  template <class T>
    requires std::is_trivially_copyable_v<T>
  RetainedKey& add(const T& v) {
    return add(&v, sizeof v);
  }
  RetainedKey& add(std::string_view s) { return add(s.size()).add(s.data(), s.size()); }
  RetainedKey& add(const char* s) { return add(std::string_view(s)); }
  template <class T>
    requires std::is_trivially_copyable_v<T>
  RetainedKey& add(const std::vector<T>& v) {
    return add(v.size()).add(v.data(), v.size() * sizeof(T));
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0x9E3779B97F4A7C15ull;
};

// Draws `draw` at [origin, origin + size) in the current window: directly, or as the texture of
// the same drawing made when its key last stayed unchanged for a frame. `id` is unique within
// the current ImGui ID scope.
void drawRetained(const char* id, ImVec2 origin, ImVec2 size, std::uint64_t key,
                  const std::function<void(ImDrawList*)>& draw);

// Off: everything is drawn directly (the comparison tests draw both ways). On by default.
void setRetainedEnabled(bool on);

// Drawings shown from a texture in the frame being built, for tests and the frame benchmark.
int retainedShownThisFrame();

// Frees every texture; call while the GL context is current, before it goes.
void releaseRetained();

}  // namespace posviz::app
