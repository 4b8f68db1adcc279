// panels.hpp: the one table of views, in menu order (Ctrl+1 .. Ctrl+7).
//
// Names, titles, summaries and order come from the vocabulary (app/cli/tabs.hpp, cli::tabs());
// this table adds how each tab is drawn and kept. Adding a tab = one TabDef, one state struct in
// AppState, one panel file and one row of functions in panels.cpp.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "app/cli/model_config.hpp"
#include "app/gui/panels/config_notes.hpp"
#include "app/gui/shell/app_state.hpp"

namespace posviz::app {

struct PanelInfo {
  const char* name;                                    // "sinusoidal"
  const char* title;                                   // "Sinusoidal"
  const char* summary;                                 // one line for Help and the tab tooltip
  void (*draw)(AppState&, AppContext&);
  void (*save)(const AppState&, nlohmann::json&);      // optional: parameters kept between runs
  void (*load)(AppState&, const nlohmann::json&);      // optional; ignores bad values
  void (*tweak)(AppState&);                            // optional: change one visible parameter (tests)
};

const std::vector<PanelInfo>& panels();
int findPanel(std::string_view name);   // by tab name or alias: index, or -1

// A loaded model config (File > Open config, Model presets, --config), applied at once to every
// panel whose encoding it describes: RoPE configs to the RoPE and context-extension panels, ALiBi,
// learned and sinusoidal configs to their own panel; RoPE, ALiBi and learned configs to the
// Extrapolation lab (as `export extrapolation --config` runs them); M-RoPE configs to Image RoPE
// (as `export mrope-angles --config`); every config to the Model tab. Returns what a tab could not show as the
// config has it (a value past a slider), one line each (config_notes.hpp).
ConfigNotes applyModelConfig(AppState& a, const cli::ModelConfig& config);

}  // namespace posviz::app
