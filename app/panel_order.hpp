// panel_order.hpp: the Order view. State is a plain struct owned by AppState.
#pragma once

#include "app/app_context.hpp"

namespace posviz::app {

struct OrderPanelState {
  bool dirty = true;   // recompute on the next frame
};

void drawOrderPanel(OrderPanelState& s, AppContext& ctx);

}  // namespace posviz::app
