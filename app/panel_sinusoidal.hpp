// panel_sinusoidal.hpp: the Sinusoidal view. State is a plain struct owned by AppState.
#pragma once

#include "app/app_context.hpp"

namespace posviz::app {

struct SinusoidalPanelState {
  bool dirty = true;   // recompute on the next frame
};

void drawSinusoidalPanel(SinusoidalPanelState& s, AppContext& ctx);

}  // namespace posviz::app
