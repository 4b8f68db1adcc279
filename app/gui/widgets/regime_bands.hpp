// regime_bands.hpp: a context-extension method's kept / blended / interpolated pairs as shaded
// x-bands of a plot over rotary pairs (one band per run of equal regime).
#pragma once

#include <vector>

#include "app/gui/widgets/plot.hpp"
#include "core/context_extension.hpp"

namespace posviz::app {

unsigned int regimeColor(PairRegime r);  // ImU32 with alpha: kept green, blended lavender, interpolated vermillion

// Pair i spans x in [i - 0.5, i + 0.5] (x = pair index times xScale).
void addRegimeBands(PlotSpec& ps, const std::vector<PairRegime>& regime, double xScale = 1.0);

}  // namespace posviz::app
