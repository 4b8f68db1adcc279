// panel_learned.hpp: the Learned view. State is a plain struct owned by AppState.
#pragma once

#include "app/app_context.hpp"

namespace posviz::app {

struct LearnedPanelState {
  bool dirty = true;   // recompute on the next frame
};

void drawLearnedPanel(LearnedPanelState& s, AppContext& ctx);

}  // namespace posviz::app
