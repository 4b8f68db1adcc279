// panel_model.hpp: the "Model" view, a model's positional scheme layer by layer. State is a plain
// struct owned by AppState.
//
// The loaded config (File > Open config, or a preset picked here; gemma-3-4b-it until then) is
// drawn as a strip of its layers, one cell per layer coloured by scheme (RoPE, NoPE, ALiBi,
// learned, none), and a table of its layer kinds with their indices and parameters, as
// `posviz model` prints them (app/cli/model_command.hpp). "Open" on a kind returns its index: the
// caller applies that kind's parameters to every panel and opens the RoPE / context-extension /
// ALiBi / learned tab.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/gui/base/panel_def.hpp"
#include "app/cli/model_compare.hpp"
#include "app/cli/model_config.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/base/config_notes.hpp"
#include "app/gui/widgets/path_field.hpp"

namespace posviz::app {

struct ModelPanelState {
  std::optional<cli::ModelConfig> config;  // the model shown; empty until loaded
  int presetIndex = -1;               // into cli::presetNames(), -1 = the config came from a file
  int selectedKind = 0;               // index into config->layerKinds
  std::string error;                  // a preset that failed to load
  // Llama 4's NoPE-layer query scale against position (core/attn_temperature), built on load.
  std::vector<double> temperaturePos, temperatureScale;
  // Compare with: models overlaid on this one (presets or files), and their rows side by side
  // (cli::compareModels, as `posviz model --compare` prints them), rebuilt when either changes.
  std::vector<cli::ModelConfig> others;
  std::vector<cli::CompareRow> rows;
  int addPreset = 0;                  // the preset the Compare with combo shows
  char addPath[1024] = {};            // a config file to add
  PathPick addPick;                   // the page's chooser for it
  std::string addError;
  // Check my RoPE (posviz check): .npy paths, and the last verdict for the selected layer kind.
  char checkInvFreq[1024] = {}, checkCos[1024] = {}, checkSin[1024] = {};
  PathPick checkInvFreqPick, checkCosPick, checkSinPick;
  std::string checkVerdict;
  bool checkMatch = false;
};

// panel_model_compare.cpp: the engineers' part of the tab.
// Wavelength 2 pi / theta_i of every rotary pair per RoPE layer kind (and of each compared model's
// full-attention layers), with the trained and the maximum context and the selected kind's kept /
// blended / interpolated pairs.
void drawModelWavelengths(const ModelPanelState& s);
// The Compare with row (add a preset or a file, clear) and the table of differences.
void drawModelCompare(ModelPanelState& s);
void rebuildCompareRows(ModelPanelState& s);
// panel_model_check.cpp: the selected RoPE kind against the user's inv_freq or cos/sin .npy files
// (core/rope_check, as posviz check reads them).
void drawModelCheck(ModelPanelState& s);
void runModelCheck(ModelPanelState& s);  // the Check button: fills checkVerdict and checkMatch

// The layer kind whose "Open" button was pressed this frame, if any.
std::optional<int> drawModelPanel(ModelPanelState& s, AppContext& ctx);

// Keeps the Model view on the config loaded elsewhere (File > Open config).
void applyModelPanelConfig(ModelPanelState& s, const cli::ModelConfig& config, ConfigNotes& notes);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kModelPanel;

}  // namespace posviz::app
