// figure_dialog.hpp: File > Export figure and a figure's right-click Export: the save-as dialog
// for one figure (figure_export.hpp): PNG or SVG, width, text size, the caption in words, and
// where it goes (the folder shown in full and remembered).
#pragma once

#include <string>

#include "app/gui/widgets/figure_export.hpp"
#include "app/gui/widgets/save_as.hpp"

namespace posviz::app {

struct FigureDialog {
  bool openRequested = false;   // ImGui::OpenPopup on the next draw
  FigureEntry figure;
  SaveAsState file;
  bool svg = false;
  int width = 1600;
  bool textAsOnScreen = true;   // the text scale follows the width: the file looks like the screen
  float textScale = 1.0f;
  std::string caption;
  bool waiting = false;         // asked for; the figure writes it when next drawn
  std::string result;
  bool failed = false;
};

// The figure's file name: its name made safe ("rope-score" -> "rope-score.png").
std::string figureFileName(const FigureEntry& e, bool svg);
// The caption offered for e: its own caption, else its title and what the tab's parameters are
// (`tabCaption`, in words; may be empty).
std::string figureCaption(const FigureEntry& e, const std::string& tabCaption);

// Opens the dialog for e in `folder` (remembered), `width` wide.
void openFigureDialog(FigureDialog& d, const FigureEntry& e, const std::string& folder, int width, const std::string& tabCaption);
// Draws it (a modal popup). When a file was written, `folder` and `width` take the ones used.
void drawFigureDialog(FigureDialog& d, std::string& folder, int& width);

}  // namespace posviz::app
