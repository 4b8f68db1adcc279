#include "app/gui/widgets/pixel_choice.hpp"

#include <cmath>

#include "app/cli/params/picture.hpp"
#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/ui_common.hpp"

namespace posviz::app {

const char* pixelStatWord(PixelStat s) {
  switch (s) {
    case PixelStat::Rms: return "RMS";
    case PixelStat::Min: return "least";
    case PixelStat::Max: return "greatest";
    case PixelStat::Mean: break;
  }
  return "mean";
}

void showChosenPicture(HeatmapImage& img, const ChosenPicture& c, const std::string& rangeText) {
  img.cells = narrowPicture(c.picture);
  img.pixelStat = pixelStatWord(c.stat);
  img.pixelNote.clear();
  if (c.automatic && c.stat != PixelStat::Mean)
    img.pixelNote = "auto: RMS, as the means flatten out (all within +-" + formatShort(c.meanPeak, 2) + " of the range " + rangeText + ")";
}

std::string blockStatsText(const BlockStats& b) {
  std::string t = "mean " + formatShort(b.mean, 4) + ", least " + formatShort(b.min, 6) + ", greatest " + formatShort(b.max, 6);
  if (!std::isnan(b.rms)) t += ", RMS " + formatShort(b.rms, 5);
  return t;
}

bool pixelChoiceControl(int& pixel, const char* teach) {
  const std::string help = std::string("What a pixel of many cells shows of them, exactly. Where the heatmap is zoomed out, "
                                       "one pixel covers a block of cells:\nmean: the default.\nmin / max: the envelope, the "
                                       "least and greatest value among them.\n"
                                       "rms: sqrt(mean of squares).\nauto: the mean, or the RMS once every mean is within a tenth "
                                       "of the grid's largest value. Hover a pixel for all four.\n") + teach;
  return paramChoiceIndex(cli::params::picture::kPixel, pixel, help.c_str());
}

std::string pixelStatusText(const HeatmapWindow& wanted, const HeatmapImage* img) {
  std::string out;
  if (const std::string note = averagedCellsNote(wanted, img ? img->pixelStat : "mean"); !note.empty()) out += ", " + note;
  if (img && !img->pixelNote.empty()) out += " (" + img->pixelNote + ")";
  return out;
}

}  // namespace posviz::app
