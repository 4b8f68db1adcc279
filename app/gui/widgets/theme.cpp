// theme.cpp: see theme.hpp.
#include "app/gui/widgets/theme.hpp"

#include <algorithm>
#include <cmath>

namespace posviz::app {

namespace {

bool gLight = false;

// HSL with h in [0, 6), s and l in [0, 1].
struct Hsl {
  float h, s, l;
};

Hsl toHsl(float r, float g, float b) {
  const float hi = std::max({r, g, b}), lo = std::min({r, g, b});
  const float l = (hi + lo) * 0.5f, d = hi - lo;
  if (d < 1e-6f) return {0.0f, 0.0f, l};
  const float s = d / (1.0f - std::abs(2.0f * l - 1.0f));
  float h = hi == r ? std::fmod((g - b) / d + 6.0f, 6.0f) : hi == g ? (b - r) / d + 2.0f : (r - g) / d + 4.0f;
  return {h, s, l};
}

void fromHsl(const Hsl& c, float& r, float& g, float& b) {
  const float chroma = (1.0f - std::abs(2.0f * c.l - 1.0f)) * c.s;
  const float x = chroma * (1.0f - std::abs(std::fmod(c.h, 2.0f) - 1.0f));
  const float m = c.l - chroma * 0.5f;
  const int sector = static_cast<int>(c.h) % 6;
  const float rs[] = {chroma, x, 0, 0, x, chroma}, gs[] = {x, chroma, chroma, x, 0, 0}, bs[] = {0, 0, x, chroma, chroma, x};
  r = rs[sector] + m;
  g = gs[sector] + m;
  b = bs[sector] + m;
}

}  // namespace

void setLightTheme(bool on) { gLight = on; }
bool lightTheme() { return gLight; }

ImU32 lightColor(ImU32 c) {
  const float r = static_cast<float>((c >> IM_COL32_R_SHIFT) & 0xFF) / 255.0f;
  const float g = static_cast<float>((c >> IM_COL32_G_SHIFT) & 0xFF) / 255.0f;
  const float b = static_cast<float>((c >> IM_COL32_B_SHIFT) & 0xFF) / 255.0f;
  Hsl h = toHsl(r, g, b);
  if (h.s < 0.3f) h.l = 1.0f - h.l;              // greys mirror: backdrops light, text dark
  else if (h.l > 0.45f) h.l = 0.45f - (h.l - 0.45f) * 0.3f;   // light colours darkened to read on white
  float r2 = 0, g2 = 0, b2 = 0;
  fromHsl(h, r2, g2, b2);
  auto byte = [](float v) { return static_cast<ImU32>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
  return (byte(r2) << IM_COL32_R_SHIFT) | (byte(g2) << IM_COL32_G_SHIFT) | (byte(b2) << IM_COL32_B_SHIFT) | (c & IM_COL32_A_MASK);
}

ImU32 themed(ImU32 c) { return gLight ? lightColor(c) : c; }

ImVec4 themed(const ImVec4& c) { return gLight ? ImGui::ColorConvertU32ToFloat4(lightColor(ImGui::ColorConvertFloat4ToU32(c))) : c; }

}  // namespace posviz::app
