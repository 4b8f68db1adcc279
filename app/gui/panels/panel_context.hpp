// panel_context.hpp: the context-extension view. State is a plain struct owned by AppState.
//
// Every RoPE scaling method (none, linear, ntk, dynamic, yarn, llama3, longrope) on one log axis:
// per-pair inverse frequency or wavelength against pair index, the original context length L0
// marked, the selected method's per-pair regime (kept / blended / interpolated) as bands, and each
// method's attention factor in a table. All numbers come from core computeRopeFrequencies.
#pragma once

#include <array>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "app/gui/base/panel_def.hpp"
#include "app/cli/model_config.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/base/app_context.hpp"
#include "core/context_extension.hpp"
#include "core/rope.hpp"
#include "app/gui/base/config_notes.hpp"

namespace posviz::app {

constexpr int kNumScalingMethods = 7;  // ScalingMethod::None .. LongRope
// NTK-aware and dynamic NTK divide by d_rot - 2: the tab keeps at least 4 rotary dims.
constexpr int kContextMinRotaryDims = 4;

// The tab opens on an extension to look at: factor 4 (the parameter's default, 1, is plain RoPE)
// over L0 = 4096, and seq len 16384 for the methods that read it (its default, 0, means L0);
// the reference defaults for the rest (cli::params::scaling).
std::array<RopeScaling, kNumScalingMethods> defaultContextScalings();

struct ContextExtensionPanelState {
  bool dirty = true;   // recompute on the next frame

  // Shared RoPE parameters (cli::params::rope; core's defaults)
  int headDim = RopeParams{}.headDim;                  // even, rotaryDims >= 4
  double base = RopeParams{}.base;                     // > 1
  double rotaryFraction = RopeParams{}.rotaryFraction; // (0, 1]

  // One RopeScaling per method, indexed by ScalingMethod; .method is set from the index.
  std::array<RopeScaling, kNumScalingMethods> scaling = defaultContextScalings();
  bool linkFactor = true;            // factor and L0 edits apply to every method
  int selected = static_cast<int>(ScalingMethod::Yarn);   // bands and parameter editor
  std::array<bool, kNumScalingMethods> visible{true, true, true, true, true, true, true};
  bool wavelength = false;           // y = wavelength 2*pi/theta instead of theta

  // LongRope lists as typed; "auto" lists follow the pair count (short 1, long 1 -> factor).
  std::string shortText, longText;
  std::string shortError, longError;
  bool listsAuto = true;

  // Derived
  int rotaryDims = 0;
  std::array<RopeFrequencies, kNumScalingMethods> freqs;     // last good result per method
  std::array<std::string, kNumScalingMethods> errors;        // core's message, empty when good
  std::string error;                 // shared parameters rejected
  double computeMs = 0.0;
};

void drawContextExtensionPanel(ContextExtensionPanelState& s, AppContext& ctx);

// Settings kept between runs (unknown or out-of-range values are ignored). For the panels table.
void saveContextExtensionPanel(const ContextExtensionPanelState& s, nlohmann::json& j);
void loadContextExtensionPanel(ContextExtensionPanelState& s, const nlohmann::json& j);

// A RoPE model's config: its head_dim, base, rotary fraction and scaling become the selected
// method's (with "same factor and L0 for all", every method's factor and L0). Other encodings
// leave the panel alone.
void applyContextExtensionConfig(ContextExtensionPanelState& s, const cli::ModelConfig& c, ConfigNotes& notes);

// The method table's columns that do not apply to every method, and one cell of them: the number,
// or "n/a" (applies = false) with why the column means nothing for that method. Exposed for tests.
enum class MethodColumn { AttentionFactor, ScoreScale, EffectiveBase, Regimes };
struct MethodTableCell {
  std::string text;        // "1.2079", "4 / 52 / 8", or "n/a"
  bool applies = true;
  std::string why;         // tooltip: what the column is, or why it is n/a for this method
};
MethodTableCell methodTableCell(ScalingMethod m, MethodColumn column, const RopeFrequencies& f);
// Whether a method sorts pairs into kept / blended / interpolated (linear, yarn, llama3); the
// others change every pair by its own amount, so the plot shows no bands for them.
bool methodHasRegimes(ScalingMethod m);

// Recomputes every method when dirty. Exposed for tests.
void updateContextExtensionPanel(ContextExtensionPanelState& s, AppContext& ctx);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kContextExtensionPanel;

}  // namespace posviz::app
