// panel_examples.hpp: the Worked Examples view. State is a plain struct owned by AppState.
//
// A list of the documents' worked examples, and 001's "Test Coverage" list as a pass / FAIL / n/a
// grid per code listing (core/lessons/code_listings.hpp). A list (core/lessons/lessons.hpp); Back / Next (or the Left / Right
// arrow keys) step through one. Each step shows its formula, the numbers core computed, every
// claim the document makes there with a green (agrees) or red (differs) verdict, the correct
// value and the likely cause, and a mini view with the place the step is about highlighted: a
// heatmap cell or row, clock hands, or a plot marker.
#pragma once

#include <string>
#include <vector>

#include "app/gui/base/panel_def.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/widgets/heatmap.hpp"
#include "core/lessons/code_listings.hpp"
#include "core/lessons/lessons.hpp"

namespace posviz::app {

struct ExamplesPanelState {
  bool dirty = true;                     // recompute the examples on the next frame
  int selected = 0;                      // index into examples
  int step = 0;                          // index into examples[selected].steps
  bool showTests = false;                // show the test list of Teaching Transformers to Count per listing
  bool showAudits = true;                // list the code audits (off: only the lessons)

  // Derived
  std::vector<WorkedExample> examples;   // core workedExamples(), every number computed by core
  TestGrid tests;                        // documentTestGrid(): 001's test list run per listing
  std::string error;                     // computing the examples failed
  int shownExample = -1, shownStep = -1; // what map/image hold
  HeatmapState map;
  HeatmapImage image;
  long long version = 0;
};

void drawExamplesPanel(ExamplesPanelState& s, AppContext& ctx);

// Step navigation, clamped to the selected example (also used by the arrow keys).
void examplesNextStep(ExamplesPanelState& s);
void examplesPreviousStep(ExamplesPanelState& s);
void examplesSelect(ExamplesPanelState& s, int example);
// The example of that name (core/lessons/lessons.hpp), step 1; unknown names change nothing.
void examplesSelectByName(ExamplesPanelState& s, const std::string& name);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kExamplesPanel;

}  // namespace posviz::app
