#include "app/gui/widgets/regime_bands.hpp"
#include "app/gui/widgets/theme.hpp"

#include <imgui.h>

namespace posviz::app {

unsigned int regimeColor(PairRegime r) {
  switch (r) {
    case PairRegime::Kept: return themed(IM_COL32(0, 158, 115, 48));          // green
    case PairRegime::Blended: return themed(IM_COL32(150, 150, 210, 46));     // lavender (no series uses it)
    case PairRegime::Interpolated: return themed(IM_COL32(213, 94, 0, 48));   // vermillion
  }
  return themed(IM_COL32(128, 128, 128, 40));
}

void addRegimeBands(PlotSpec& ps, const std::vector<PairRegime>& regime, double xScale) {
  const int n = static_cast<int>(regime.size());
  int start = 0;
  for (int i = 1; i <= n; ++i) {
    if (i < n && regime[static_cast<std::size_t>(i)] == regime[static_cast<std::size_t>(start)]) continue;
    const PairRegime r = regime[static_cast<std::size_t>(start)];
    ps.bands.push_back({(static_cast<double>(start) - 0.5) * xScale, (static_cast<double>(i - 1) + 0.5) * xScale, regimeName(r), regimeColor(r)});
    start = i;
  }
}

}  // namespace posviz::app
