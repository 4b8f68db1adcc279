// figure_export.hpp: every figure on screen can be exported to a file and presented full screen.
//
// A figure is one picture a person would put on a slide: a plot, a heatmap, a Learn step's
// figure, a diagram. drawPlot, drawHeatmap and drawLearnFigure are figures by themselves; a panel
// that draws a diagram of its own wraps it:
//
//   drawFigure("pair-clocks", {"Each pair as a clock hand"}, ImVec2(w, h), [&](ImVec2 size) {
//     ... draw into ImGui at the cursor, filling size ...
//   });
//
// drawFigure draws it and lists it for File > Export figure, gives it a right-click menu (Export
// this figure, Present this figure) and, when an export of it was asked for, draws it once more
// into an ImGui context of its own at the width and text size asked for: to a framebuffer for a
// PNG, or into an SVG where shapes are paths, text is text and pictures are embedded PNGs. So the
// file is the figure as the screen shows it (title, axes, legend, colorbar), at any size.
//
// The draw function must draw the same thing whenever it is called within a frame; while a file
// is drawn (figureExportPass()) widgets keep their state, draw no hover and retain nothing.
// Figures drawn inside a figure are part of it, not figures of their own.
#pragma once

#include <imgui.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace posviz::app {

struct FigureText {
  std::string title;     // what the figure shows, in words ("Wavelength of each pair"); names it in menus
  std::string caption;   // optional: the sentence under it in a file or when presented
  bool titleDrawn = false;   // the figure draws its title itself (present mode then adds none)
};

// Draws `draw` at the cursor in a region of `size` pixels as a figure named `id` (unique in the
// current ImGui ID scope). A height of 0: as tall as it draws (a table, a diagram that sizes itself;
// a file keeps the shape it has on screen).
void drawFigure(const char* id, const FigureText& text, ImVec2 size, const std::function<void(ImVec2 size)>& draw);

// True while a figure is being drawn for a file.
bool figureExportPass();

// A GL texture made while a figure was drawn for a file: deleted once the file is written.
void releaseAfterExport(unsigned int texture);

// ---- For the window shell -----------------------------------------------------------------

struct FigureEntry {
  ImGuiID id = 0;
  std::string name;      // the id given to drawFigure
  FigureText text;
  ImVec2 size;           // on screen, pixels, as drawn
  ImVec2 min, max;       // where it was drawn (screen pixels)
};

// Start of each frame: last frame's list becomes figuresShown(), this frame's starts empty.
void beginFigureFrame();
// The figures the last complete frame drew, in drawing order.
const std::vector<FigureEntry>& figuresShown();

struct FigureExportOptions {
  std::string path;      // ends in .png or .svg
  int width = 1600;      // of the file, pixels (the height follows the figure's shape on screen)
  float textScale = 1.0f;   // text size relative to the base size (15 px)
  std::string caption;   // wrapped under the figure; empty: none
};

// Limits of an export, checked by checkFigureExport.
inline constexpr int kMinFigureWidth = 160, kMaxFigureWidth = 8192;
inline constexpr float kMinFigureTextScale = 0.5f, kMaxFigureTextScale = 6.0f;

// "" when the options can be written, else what is wrong and what is allowed.
std::string checkFigureExport(const FigureExportOptions& o);
// The text scale at which a file `width` pixels wide looks like the figure on screen.
float textScaleAsOnScreen(int width, float screenWidth);

// Asks for `figure` (one of figuresShown()) to be written; done when it is next drawn (at most one
// at a time), in the shape it has on screen now.
void requestFigureExport(const FigureEntry& figure, const FigureExportOptions& o);
bool figureExportPending();
struct FigureExportResult {
  bool ok = false;
  std::string message;   // "Wrote /abs/path.png (1600 x 1120 px, 84.2 KiB)" or the reason it was not
};
std::optional<FigureExportResult> takeFigureExportResult();

// What a figure's right-click menu asked for since the last call, if anything.
struct FigureMenuChoice {
  FigureEntry figure;
  bool present = false;  // Present this figure; else Export this figure
};
std::optional<FigureMenuChoice> takeFigureMenuChoice();

// Present mode: the figure `id` is drawn over the whole window with large text (0: none).
// `font`: the large font (null: the current one).
void setPresentedFigure(ImGuiID id, ImFont* font);
ImGuiID presentedFigure();

// The app's font: DejaVu Sans at px, with the glyphs posviz's text uses (Greek, arrows, maths).
ImFont* addAppFont(ImFontAtlas* atlas, float px);
inline constexpr float kBaseFontPx = 15.0f;

}  // namespace posviz::app
