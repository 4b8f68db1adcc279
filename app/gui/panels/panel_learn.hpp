// panel_learn.hpp: the Learn tab, the guided path through the documents (core/lessons/learn.hpp).
//
// Left: the chapters and their steps (a tick on each chapter finished). Right: the step's title,
// why, one figure with at most three controls (and a play button where motion teaches), what to
// notice, the article's claim with its verdict coloured by severity, a prediction to make before
// the answer is shown, "try this" and "Open in <tab>", which carries the step's values over.
// Back / Next (or Page Up / Page Down, or Left / Right when no control has focus) walk every step
// in order. The window title names the step, so scripts can follow the walk.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/cli/params/lessons.hpp"
#include "app/gui/base/panel_def.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/widgets/worker.hpp"
#include "core/lessons/learn.hpp"

namespace posviz::app {

// A figure computed on the worker, with what it was computed for.
struct LearnFigureResult {
  std::string step;
  std::vector<double> values;
  learn::Figure figure;
  std::string error;
  double millis = 0.0;
};

// A figure that took longer than this last time recomputes on the worker. A frame of the window
// takes about 20 ms in software GL, and a figure computed inside it adds its whole time to that
// frame: at 20 ms the comparison table (10-20 ms at its largest L0) went back and forth between
// the frame and the worker, and its drags lost frames.
constexpr double kLearnSyncMs = 5.0;

struct LearnPanelState {
  std::string step;                               // the step shown (learn::Step::id); "" = the first
  std::map<std::string, std::vector<double>> values;  // per step: its control values (defaults when absent)
  std::set<std::string> visited;                  // steps seen; a chapter is done when all its steps are
  bool playing = false;                           // play advances the step's play control
  float playSpeed = static_cast<float>(cli::params::learn::kPlaySpeed.def);   // Play's steps per second
  double playCarry = 0.0;                         // fraction of a step accumulated
  std::string answer;                             // the prediction typed so far
  bool revealed = false;                          // the prediction's answer is shown
  bool showClaim = true;                          // the article's claim and verdict (hide: lesson only)

  // Derived
  std::shared_ptr<const learn::Inputs> inputs;    // the published models, read when a step first needs them
  std::string shownStep;
  std::vector<double> shownValues;
  learn::Figure figure;
  std::string error;
  // A step whose figure took over kLearnSyncMs last time recomputes on a worker while its controls
  // move (the figure shown stays, marked as updating); a quick one, and every step's first
  // figure, is computed in the frame.
  std::map<std::string, double> figureMs;         // per step: how long its figure took last
  AsyncResult<LearnFigureResult> figureJob;
  std::string pendingStep;                        // what figureJob was last asked for
  std::vector<double> pendingValues;
  float fade = 1.0f;                              // 0..1 after a step change
};

// What the Open-in button asks of the shell: show `tab` with these settings applied.
struct OpenRequest {
  std::string tab;
  std::vector<learn::OpenSetting> settings;
  std::string example;   // tab "worked-examples": the worked example to select
};

std::optional<OpenRequest> drawLearnPanel(LearnPanelState& s, AppContext& ctx);

// Navigation (also used by the keys and tests).
// animate: fade the new step in (a step change by the user); false: show it at once (opening on it).
void learnGo(LearnPanelState& s, const std::string& stepId, bool animate = true);
void learnNext(LearnPanelState& s);
void learnBack(LearnPanelState& s);
// "Learn 3/27: A row of clock hands" for the window title.
std::string learnTitle(const LearnPanelState& s);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kLearnPanel;

}  // namespace posviz::app
