// panel_examples.hpp: the Examples view. State is a plain struct owned by AppState.
#pragma once

#include "app/app_context.hpp"

namespace posviz::app {

struct ExamplesPanelState {
  bool dirty = true;   // recompute on the next frame
};

void drawExamplesPanel(ExamplesPanelState& s, AppContext& ctx);

}  // namespace posviz::app
