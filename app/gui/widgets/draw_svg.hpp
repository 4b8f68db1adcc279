// draw_svg.hpp: an ImGui frame's draw data as an SVG document.
//
// ImGui hands the GL triangles. Drawn without anti-aliasing (the SVG viewer smooths edges
// itself), every shape is flat-coloured triangles, which become filled paths: a quad (two
// triangles sharing an edge) is one four-point subpath, and neighbouring triangles of one colour
// share one path. A triangle whose texture coordinates are a glyph of `font` is text: glyphs on
// one baseline in one colour become one <text> element with each glyph's x, so the file's text
// is text (selectable, searchable, sharp at any zoom) where the screen had it. A quad of any other
// texture (a heatmap's picture) is read back from the GL and embedded as a PNG drawn pixelated.
// Each draw command's clip rectangle becomes a clip path.
#pragma once

#include <imgui.h>

#include <string>

namespace posviz::app {

std::string drawDataToSvg(const ImDrawData& data, const ImFont& font, ImTextureID fontTexture, int width, int height,
                          ImU32 background);

}  // namespace posviz::app
