// app_state.hpp: everything the app shows, owned by main() (or a test): one state struct per
// panel plus the shell's own choices. No function-local statics anywhere in app/.
#pragma once

#include <string>

#include "app/gui/panels/panel_alibi.hpp"
#include "app/gui/panels/panel_compare.hpp"
#include "app/gui/panels/panel_context.hpp"
#include "app/gui/panels/panel_examples.hpp"
#include "app/gui/panels/panel_image.hpp"
#include "app/gui/panels/panel_extrapolation.hpp"
#include "app/gui/panels/panel_learn.hpp"
#include "app/gui/panels/panel_learned.hpp"
#include "app/gui/panels/panel_model.hpp"
#include "app/gui/panels/panel_order.hpp"
#include "app/gui/panels/panel_pipeline.hpp"
#include "app/gui/panels/panel_relative.hpp"
#include "app/gui/panels/panel_rope.hpp"
#include "app/gui/panels/panel_sinusoidal.hpp"
#include "app/gui/panels/panel_train.hpp"

namespace posviz::app {

struct AppState {
  LearnPanelState learn;
  SinusoidalPanelState sinusoidal;
  LearnedPanelState learned;
  RopePanelState rope;
  ContextExtensionPanelState context;
  ImagePanelState image;
  AlibiPanelState alibi;
  RelativePanelState relative;
  ExamplesPanelState examples;
  ComparePanelState compare;
  PipelinePanelState pipeline;
  OrderPanelState order;
  ExtrapolationPanelState extrapolation;
  ModelPanelState model;
  TrainPanelState train;

  int activePanel = 0;          // index into panels()
  int requestedPanel = -1;      // select this tab on the next frame (menu, shortcut)
  bool showAbout = false;
  bool showShortcuts = false;
  bool showGlossary = false;      // Help > Glossary
  bool showGpuNotice = true;    // the GPU-unavailable banner (dismissible)
  std::string notice;           // what the user must see until dismissed (banner): settings that could
                                // not be read or saved, config values a tab could not show
  std::string message;          // transient status message ("Saved screenshot to ...")
  double messageUntil = 0.0;    // ImGui time when it disappears
};

}  // namespace posviz::app
