// panel_alibi.hpp: the Alibi view. State is a plain struct owned by AppState.
#pragma once

#include "app/app_context.hpp"

namespace posviz::app {

struct AlibiPanelState {
  bool dirty = true;   // recompute on the next frame
};

void drawAlibiPanel(AlibiPanelState& s, AppContext& ctx);

}  // namespace posviz::app
