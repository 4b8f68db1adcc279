// pixel_choice.hpp: what a pixel of many cells shows (core/pixel_stats.hpp), as the heatmap views
// offer it: the control (cli::params::picture::kPixel), the words the hint and status bar use,
// and the hover's line of a block's four numbers.
#pragma once

#include <string>

#include "app/gui/widgets/heatmap.hpp"
#include "core/pixel_stats.hpp"

namespace posviz::app {

// "mean", "RMS", "least", "greatest": HeatmapImage::pixelStat's words.
const char* pixelStatWord(PixelStat s);

// The picture core chose, into img (cells, pixelStat, pixelNote). rangeText names the grid's
// range for auto's note: "+-1", "+-12.3".
void showChosenPicture(HeatmapImage& img, const ChosenPicture& c, const std::string& rangeText);

// What the status bar adds to a grid's size for the picture on screen: ", 1 px = RMS of 2,048
// cells (256 x 8) (auto: ...)", or "" when each pixel is one cell. img may be null (none yet).
std::string pixelStatusText(const HeatmapWindow& wanted, const HeatmapImage* img);

// "mean 0.0002, least -1, greatest 1, RMS 0.707" (RMS left out when NaN: the angle grid).
std::string blockStatsText(const BlockStats& b);

// The "pixel shows" combo; `teach` adds the view's own sentence to the shared help. True when changed.
bool pixelChoiceControl(int& pixel, const char* teach);

}  // namespace posviz::app
