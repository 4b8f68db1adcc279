// panel_rope.hpp: the Rope view. State is a plain struct owned by AppState.
#pragma once

#include "app/app_context.hpp"

namespace posviz::app {

struct RopePanelState {
  bool dirty = true;   // recompute on the next frame
};

void drawRopePanel(RopePanelState& s, AppContext& ctx);

}  // namespace posviz::app
