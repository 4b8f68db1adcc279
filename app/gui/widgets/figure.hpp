// figure.hpp: draws a Learn step's figure (core/lessons/learn.hpp) into a rectangle: cell grids
// with their values printed and the cell, row or column the text is about outlined; dials with
// clock hands; a plane of arrows with the arc between two of them; bars; a table; line series with
// the legend above the data. Hovering a cell, bar or point shows its exact value. No numbers are
// computed here: every value comes from the figure.
#pragma once

#include "app/gui/widgets/figure_export.hpp"
#include "core/lessons/learn.hpp"

namespace posviz::app {

// Draws f in a region of `width` x `height` pixels at the cursor. `alpha` (0..1) fades the
// figure in after a step change.
// `text` names it for File > Export figure and present mode (figure_export.hpp).
void drawLearnFigure(const learn::Figure& f, const FigureText& text, float width, float height, float alpha = 1.0f);

}  // namespace posviz::app
