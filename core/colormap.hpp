// colormap.hpp: the colormaps shared by the app's heatmaps and every image export.
//
// KINDS
//   Sequential (non-negative data): viridis, magma, gray, blues (white at the low end: light pages)
//   Diverging (signed data, centred on 0): rdbu (blue < 0 < red, white at 0), coolwarm
//   Cyclic (angles, wrap at 2*pi): twilight
// A value maps to t in [0, 1] by the scale: sequential t = (v - min)/(max - min); diverging
// t = 0.5 + 0.5 * v / max(|min|, |max|) so 0 is always the centre; cyclic t = v / period.
// Non-finite values (masked cells, -inf) get the mask colour, never a colormap colour.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace posviz {

enum class Colormap { Viridis, Magma, Gray, RdBu, Coolwarm, Twilight, Blues };
enum class ColormapKind { Sequential, Diverging, Cyclic };

const char* colormapName(Colormap c);                      // "viridis", "magma", "gray", "rdbu", "coolwarm", "twilight", "blues"
std::optional<Colormap> parseColormapName(const std::string& name);
ColormapKind colormapKind(Colormap c);
std::vector<Colormap> allColormaps();

struct Rgba8 { std::uint8_t r, g, b, a; };
constexpr Rgba8 kMaskColor{48, 48, 48, 255};

struct ColorScale {
  Colormap map = Colormap::Viridis;
  float min = 0.0f;      // data value at t = 0 (sequential)
  float max = 1.0f;      // data value at t = 1 (sequential); diverging uses max(|min|,|max|)
  float period = 6.283185307179586f;  // cyclic only
};

float colormapT(const ColorScale& s, float v);   // t in [0,1]; NaN for non-finite v
Rgba8 colormapColor(Colormap c, float t);        // t clamped to [0, 1]
Rgba8 mapValue(const ColorScale& s, float v);    // kMaskColor for non-finite v
// 256-entry RGBA lookup table (for a GL 1-D texture or a fast CPU loop).
std::array<Rgba8, 256> colormapLut(Colormap c);
// Many values at once (a texture's worth), the scale checked once: out[i] is
// colormapLut(s.map)[round(255 colormapT(s, values[i]))], kMaskColor where values[i] is not
// finite. Throws unless out.size() == values.size().
void colormapLutColors(const ColorScale& s, std::span<const float> values, std::span<Rgba8> out);
// Pick the kind that fits the data: cyclic for angles, diverging when min < 0 < max, else sequential.
Colormap defaultColormapFor(float min, float max, bool isAngle);

}  // namespace posviz
