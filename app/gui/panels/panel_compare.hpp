// panel_compare.hpp: the documents' comparison table, every cell computed, beside the claims.
//
// One column per scheme (sinusoidal, learned, RoPE, ALiBi, NoPE), one row per property
// (parameters, where applied, position L-1, relative check, cost). Each cell holds the number
// core/comparison.hpp computes for d_model, heads, L0 and L, then the documents' claims for that
// cell (assets/lessons/comparison.json) with their source and the verdict of
// core/lessons/comparison_claims.hpp. Below, 001's decision chart: answer its questions; a leaf
// shows what the table computed for its scheme and opens that scheme's tab.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/gui/base/panel_def.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/panels/train_citation.hpp"
#include "app/gui/widgets/worker.hpp"
#include "core/lessons/comparison_claims.hpp"

namespace posviz::app {

// One computed table and its claims' verdicts.
struct CompareComputed {
  Comparison table;
  std::vector<ClaimVerdict> verdicts;   // one per comparisonClaims().claims entry
};

struct ComparePanelState {
  bool dirty = true;                 // recompute on the next frame
  TrainCitation measured;            // the Train tab's results, the table's last row

  // Parameters (defaults and ranges: cli::params::compare)
  int dModel = static_cast<int>(cli::params::compare::kDModel.defaultInt());          // even
  int numHeads = static_cast<int>(cli::params::compare::kHeads.defaultInt());         // must give an even head dim
  int trainedLength = static_cast<int>(cli::params::compare::kTrainedLength.defaultInt());   // L0
  int targetLength = static_cast<int>(cli::params::compare::kTargetLength.defaultInt());     // L
  int seed = static_cast<int>(cli::params::compare::kSeed.defaultInt());              // q, k of the relative check

  // Decision chart: the answer chosen at each node along the path from the root (-1 = none yet).
  std::vector<int> path;
  // Press the shown leaf's "Open the ... tab" button on the next draw, as a click does (scripts and
  // tests); cleared by that draw, also when the path ends at no leaf.
  bool pressLeafButton = false;

  // Derived
  std::string error;                 // bad parameters: shown, last good table stays
  std::vector<ModelSchemes> models;  // the shipped presets' schemes, read once ("Used by" row)
  std::optional<Comparison> table;
  std::vector<ClaimVerdict> verdicts;  // one per comparisonClaims().claims entry
  // The window computes on a worker (a full table at d_model 8192 and L0 2^20 takes about 0.2 s
  // of a core): the frame goes on showing the last table while the next one is computed.
  AsyncResult<CompareComputed> job;
  DragPacer pacer;                   // a change's coarse table: when it may be asked for
  bool refineOwed = false;           // the table shown (or asked for) is coarse: the full one is owed
  bool refineRunning = false;        // the job running (or waiting) is the full table
  std::optional<Comparison> lastCoarse, lastFull;   // what each kind of job lends its checks from
};

// A change shows a coarse table first: the relative checks try kCompareCoarseShifts shifts, not
// kMaxShifts (about a fifth of the work at d_model 8192), and the cells say "coarse". Once no
// change has come for kCompareRestSeconds the full table replaces it. Both lend, from the last
// table of their kind, the checks whose inputs did not change (ComparisonOptions::reuse), so a
// drag of L0 recomputes the learned column only. A change stops a full table still computing, and
// a drag's coarse tables are paced (DragPacer): at the largest sizes they take a share of a core.
constexpr int kCompareCoarseShifts = 2;
constexpr double kCompareRestSeconds = 0.15;

// The table's parameters as the controls set them.
ComparisonParams comparisonParams(const ComparePanelState& s);

// Recomputes when dirty, here and now (no ImGui calls; tests).
void updateComparePanel(ComparePanelState& s);
// The window's way: when dirty, asks the worker for a coarse table, and for the full one after the
// rest; takes a finished one (or its error, keeping the last good table). True when the table or
// the error changed.
bool updateComparePanelAsync(ComparePanelState& s);
// A table is asked for, computing, or owed (the full one after a coarse one).
bool compareBusy(const ComparePanelState& s);

// Draws the view; returns the tab a decision-chart leaf asked to open ("" when none).
std::string drawComparePanel(ComparePanelState& s, AppContext& ctx);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kComparePanel;

}  // namespace posviz::app
