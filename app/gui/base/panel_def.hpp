// panel_def.hpp: what one tab is, as its panel file defines it (one PanelDef per panel file).
//
// The panel list (app/gui/panels/panels.cpp) is a list of these, in the vocabulary's order
// (app/cli/tabs.hpp); the shell reaches every tab through that list and nothing else.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "app/gui/base/app_context.hpp"
#include "app/gui/base/config_notes.hpp"

namespace posviz::cli {
struct ModelConfig;
}

namespace posviz::app {

struct AppState;    // app/gui/panels/app_state.hpp

struct PanelDef {
  std::string_view name;                               // the tab's name in the vocabulary
  void (*draw)(AppState&, AppContext&) = nullptr;
  // A loaded model config, applied to the tab when it describes what the tab shows (optional).
  void (*applyConfig)(AppState&, const cli::ModelConfig&, ConfigNotes&) = nullptr;
  void (*save)(const AppState&, nlohmann::json&) = nullptr;   // optional: parameters kept between runs
  void (*load)(AppState&, const nlohmann::json&) = nullptr;   // optional; ignores bad values
  void (*tweak)(AppState&) = nullptr;                         // optional: change one visible parameter (tests)
  // Optional, for tabs that have them:
  std::string (*windowTitle)(const AppState&) = nullptr;  // the window title's part while the tab is open
  void (*step)(AppState&, int direction) = nullptr;       // Page Down / Right (+1), Page Up / Left (-1)
  void (*start)(AppState&) = nullptr;                     // back to the tab's first step (Start here's links)
  void (*openFile)(AppState&) = nullptr;                  // File > Open ... for the tab's own file (Ctrl+O)
  // What File > Export offers, built from the tab's state when the File menu opens.
  ExportableView (*exports)(const AppState&) = nullptr;
};

}  // namespace posviz::app
