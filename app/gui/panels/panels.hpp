// panels.hpp: the panel list, in menu order (Ctrl+1 .. Ctrl+9), and what the shell asks of it.
//
// Names, titles, summaries and order come from the vocabulary (app/cli/tabs.hpp, cli::tabs()); each
// tab's PanelDef (app/gui/base/panel_def.hpp) comes from its own panel file. Adding a tab = its
// panel file (state, draw, PanelDef) and one name in the list in panels.cpp; app_state.hpp holds
// its state.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/gui/base/config_notes.hpp"
#include "app/gui/base/panel_def.hpp"
#include "app/gui/panels/app_state.hpp"

namespace posviz::app {

struct PanelInfo {
  const char* name;      // "sinusoidal"
  const char* title;     // "Sinusoidal"
  const char* summary;   // one line for Help and the tab tooltip
  const PanelDef* def;   // draw, apply a config, save, load, tweak
};

const std::vector<PanelInfo>& panels();
int findPanel(std::string_view name);   // by tab name or alias: index, or -1

// A loaded model config (File > Open config, Model presets, --config), applied at once to every
// tab whose entry has applyConfig: each tab takes what describes its encoding (RoPE configs the
// RoPE, Context extension, Extrapolation and Image RoPE tabs; ALiBi, learned and sinusoidal
// configs their own tabs and the Extrapolation lab; every config the Model tab). Returns what a
// tab could not show as the config has it, one line each (config_notes.hpp).
ConfigNotes applyModelConfig(AppState& a, const cli::ModelConfig& config);

// A learned table (.npy) opened from outside its tab (dropped on the window, the page's file
// picker): the Learned tab reads it and is shown.
void openLearnedTableFile(AppState& a, const std::string& path);

// The Train tab's runs, as the page reports them to its tests.
struct TrainProgress {
  int runs = 0, finished = 0;   // jobs of the last Start, and how many are done
  double progress = 0.0;        // steps done / steps of every job
};
TrainProgress trainProgress(const AppState& a);

}  // namespace posviz::app
