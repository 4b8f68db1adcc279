// panel_context.hpp: the ContextExtension view. State is a plain struct owned by AppState.
#pragma once

#include "app/app_context.hpp"

namespace posviz::app {

struct ContextExtensionPanelState {
  bool dirty = true;   // recompute on the next frame
};

void drawContextExtensionPanel(ContextExtensionPanelState& s, AppContext& ctx);

}  // namespace posviz::app
