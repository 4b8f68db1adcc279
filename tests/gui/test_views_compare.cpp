// The Compare and Where-position-enters views: their state follows core, bad input keeps the last
// good numbers, every decision-chart leaf names a tab that exists, and both tabs draw in a real
// window (run under xvfb-run) with their toggles and chart choices set. Pictures go to
// POSVIZ_TEST_OUT/views-compare.
#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/tabs.hpp"
#include "app/gui/panels/panel_compare.hpp"
#include "app/gui/panels/panel_pipeline.hpp"
#include "app/gui/panels/panels.hpp"
#include "core/pipeline.hpp"
#include "tests/gui/test_shell.hpp"

using namespace posviz;
using namespace posviz::app;

TEST_SUITE("views") {

TEST_CASE("compare view: the table and verdicts come from core; bad parameters keep the last table") {
  ComparePanelState s;
  s.dModel = 64;
  s.numHeads = 4;
  s.trainedLength = 512;
  s.targetLength = 2048;
  updateComparePanel(s);
  REQUIRE(s.table.has_value());
  CHECK(s.error.empty());
  CHECK(s.table->column(Scheme::Learned).parameters == 512 * 64);
  CHECK(s.verdicts.size() == comparisonClaims().claims.size());
  CHECK(s.table->column(Scheme::Rope).relative.maxError < 1e-5);
  // "Used by" comes from the shipped presets; coupling from core.
  CHECK(s.table->models.size() == s.models.size());
  CHECK(s.table->column(Scheme::Learned).usedBy == std::vector<std::string>{"bert-base-uncased", "gpt2"});
  CHECK(s.table->column(Scheme::Alibi).usedBy == std::vector<std::string>{"bloom-560m", "mpt-7b"});
  CHECK_FALSE(s.table->column(Scheme::Alibi).coupling.coupled());
  CHECK(s.table->column(Scheme::Rope).coupling.coupled());

  s.numHeads = 3;  // 64 / 3 is no even head dim
  s.dirty = true;
  updateComparePanel(s);
  CHECK(s.error == "computeComparison: numHeads must divide dModel (64) into an even head dim, got 3");
  REQUIRE(s.table.has_value());
  CHECK(s.table->params.numHeads == 4);
}

TEST_CASE("compare view: the window computes the table on a worker; the last table stays until the next lands") {
  auto app = testing::makeTestShell(1024, 700);
  if (!app) return;
  app->selectPanel(findPanel("compare"));
  REQUIRE(app->renderUntilIdle(3, 60.0));
  ComparePanelState& s = app->state().compare;
  REQUIRE(s.table.has_value());
  const long long before = s.table->params.trainedLength;
  // The largest table its sliders reach: about a second of work, on the worker.
  s.dModel = static_cast<int>(posviz::cli::params::compare::kDModel.spanMax());
  s.numHeads = 64;
  s.trainedLength = static_cast<int>(posviz::cli::params::compare::kTrainedLength.spanMax());
  s.targetLength = s.trainedLength * 2;
  s.dirty = true;
  app->frame();
  CHECK(s.job.busy());                                 // asked for, not computed in the frame
  REQUIRE(s.table.has_value());
  CHECK(s.table->params.trainedLength == before);      // the last table is still the one shown
  REQUIRE(app->renderUntilIdle(2, 120.0));
  CHECK(s.table->params.trainedLength == s.trainedLength);
  CHECK(s.table->params.dModel == s.dModel);
  CHECK(s.error.empty());
  // The same numbers as computing it here and now.
  ComparePanelState direct;
  direct.dModel = s.dModel;
  direct.numHeads = s.numHeads;
  direct.trainedLength = s.trainedLength;
  direct.targetLength = s.targetLength;
  updateComparePanel(direct);
  REQUIRE(direct.table.has_value());
  CHECK(direct.table->column(Scheme::Learned).parameters == s.table->column(Scheme::Learned).parameters);
  CHECK(direct.table->column(Scheme::Rope).relative.maxError == s.table->column(Scheme::Rope).relative.maxError);
  CHECK(direct.verdicts.size() == s.verdicts.size());
  // Bad parameters: the error is shown, the last good table stays.
  s.numHeads = 3;
  s.dirty = true;
  REQUIRE(app->renderUntilIdle(2, 60.0));
  CHECK(s.error.find("numHeads must divide dModel") != std::string::npos);
  CHECK(s.table->params.numHeads == 64);
}

TEST_CASE("compare view: every decision-chart leaf opens a tab of the window") {
  for (const DecisionNode& n : comparisonClaims().decision)
    for (const DecisionAnswer& a : n.answers) {
      if (a.next >= 0) continue;
      CAPTURE(a.leaf.tab);
      CHECK(cli::findTab(a.leaf.tab) != nullptr);
      CHECK(findPanel(a.leaf.tab) >= 0);
    }
}

TEST_CASE("compare view: pressing a decision-chart leaf's button opens its tab") {
  auto app = testing::makeTestShell(1440, 900);
  if (!app) return;
  const int compare = findPanel("compare");
  REQUIRE(compare >= 0);
  struct Case {
    std::vector<int> path;
    const char* tab;
  };
  // 001's chart: "Modern LLM" -> RoPE; "Need length extrapolation" -> "Yes" -> RoPE + NTK scaling
  // (the context-extension tab), -> "No, just recency" -> ALiBi.
  for (const Case& c : {Case{{0}, "rope"}, Case{{2, 0}, "context"}, Case{{2, 1}, "alibi"}, Case{{3}, "sinusoidal"}}) {
    CAPTURE(c.tab);
    app->selectPanel(compare);
    CHECK(app->renderUntilIdle(3, 60.0));
    REQUIRE(app->activePanel() == compare);
    app->state().compare.path = c.path;
    CHECK(app->renderUntilIdle(2, 60.0));
    CHECK(app->activePanel() == compare);  // choosing the answers alone does not leave the tab
    app->state().compare.pressLeafButton = true;
    CHECK(app->renderUntilIdle(3, 60.0));
    CHECK_FALSE(app->state().compare.pressLeafButton);
    CHECK(app->activePanel() == findPanel(c.tab));
  }
  // A path that stops at a question shows no leaf: the press is dropped and the tab stays.
  app->selectPanel(compare);
  CHECK(app->renderUntilIdle(3, 60.0));
  app->state().compare.path = {2};
  app->state().compare.pressLeafButton = true;
  CHECK(app->renderUntilIdle(3, 60.0));
  CHECK_FALSE(app->state().compare.pressLeafButton);
  CHECK(app->activePanel() == compare);
}

TEST_CASE("pipeline view: add vs concatenate and rotate V come from core") {
  PipelinePanelState s;
  s.encoding = 2;  // rope
  s.rotateValues = true;
  updatePipelinePanel(s);
  CHECK(s.error.empty());
  REQUIRE(s.rotate.has_value());
  CHECK(s.rotate->maxWeightDelta <= 1e-6);
  CHECK(s.rotate->maxOutputDelta > 1e-2);
  REQUIRE(s.addConcat.has_value());
  CHECK(s.addConcat->concatDim == 2 * s.toyDModel);
  CHECK(s.addConcatEncoding == PositionEncoding::Sinusoidal);  // RoPE adds nothing: sinusoidal shown

  std::snprintf(s.sentence, sizeof s.sentence, "   ");
  s.dirty = true;
  updatePipelinePanel(s);
  CHECK(s.error == "sentence: type at least one word");
  CHECK(s.rotate.has_value());  // the last good numbers stay
}

TEST_CASE("compare and pipeline views: both tabs draw, with a chart leaf and both toggles on") {
  auto app = testing::makeTestShell(1440, 900);
  if (!app) return;
  const std::string dir = std::string(POSVIZ_TEST_OUT) + "/views-compare";
  std::filesystem::create_directories(dir);

  const int compare = findPanel("compare");
  REQUIRE(compare >= 0);
  app->state().compare.path = {2, 1};  // "Need length extrapolation" -> "No, just recency": ALiBi
  app->selectPanel(compare);
  CHECK(app->renderUntilIdle(4, 60.0));
  CHECK(app->activePanel() == compare);
  std::string error;
  CHECK(app->frame(dir + "/compare-alibi-leaf.png", &error));
  CHECK(error.empty());
  CHECK(app->state().compare.table.has_value());

  const int pipeline = findPanel("where-position-enters");
  REQUIRE(pipeline >= 0);
  PipelinePanelState& p = app->state().pipeline;
  p.encoding = 2;  // rope
  p.rotateValues = true;
  p.concatenate = true;
  p.dirty = true;
  app->selectPanel(pipeline);
  CHECK(app->renderUntilIdle(4, 60.0));
  CHECK(app->activePanel() == pipeline);
  CHECK(app->frame(dir + "/pipeline-rope-rotate-v.png", &error));
  CHECK(error.empty());
  REQUIRE(p.rotate.has_value());
  CHECK(p.rotate->maxWeightDelta == 0.0);  // the weights never read V: bit for bit the same

  p.encoding = 3;  // alibi: the scores are highlighted
  p.rotateValues = false;
  p.dirty = true;
  CHECK(app->renderUntilIdle(3, 60.0));
  CHECK(app->frame(dir + "/pipeline-alibi.png", &error));
  p.encoding = 1;  // learned, concatenated: 2 d_model
  p.concatenate = true;
  p.dirty = true;
  CHECK(app->renderUntilIdle(3, 60.0));
  CHECK(app->frame(dir + "/pipeline-learned-concat.png", &error));
  CHECK(p.addConcatEncoding == PositionEncoding::Learned);
  CHECK(p.addConcat->concatDim == 16);
}

}

namespace {

// The largest L0 the slider reaches.
int largestTrainedLength() { return static_cast<int>(posviz::cli::params::compare::kTrainedLength.spanMax()); }

// A window on the Compare tab, settled, then asked for the largest table the sliders reach.
std::unique_ptr<AppShell> compareAtLargest(int width, int height) {
  auto app = testing::makeTestShell(width, height);
  if (!app) return app;
  app->selectPanel(findPanel("compare"));
  REQUIRE(app->renderUntilIdle(3, 60.0));
  ComparePanelState& s = app->state().compare;
  s.dModel = static_cast<int>(posviz::cli::params::compare::kDModel.spanMax());
  s.numHeads = 64;
  s.trainedLength = largestTrainedLength();
  s.targetLength = static_cast<int>(posviz::cli::params::compare::kTargetLength.spanMax());
  s.dirty = true;
  return app;
}

// Frames until a table for L0 lands; the first one seen.
const Comparison* firstTableFor(AppShell& app, const ComparePanelState& s, long long trainedLength) {
  for (int i = 0; i < 4000; ++i) {
    app.frame();
    if (s.table && s.table->params.trainedLength == trainedLength) return &*s.table;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("compare view: a change shows a coarse table first, the full one when the parameters rest") {
  auto app = compareAtLargest(1280, 800);
  if (!app) return;
  ComparePanelState& s = app->state().compare;
  const int l0 = largestTrainedLength();
  const Comparison* first = firstTableFor(*app, s, l0);
  REQUIRE(first != nullptr);
  // The first table for the new inputs is coarse, and is core's coarse table, number for number.
  CHECK(first->shifts == kCompareCoarseShifts);
  CHECK(compareBusy(s));   // the full table is owed
  ComparisonOptions coarse;
  coarse.shifts = kCompareCoarseShifts;
  const Comparison expectCoarse = computeComparison(comparisonParams(s), {}, coarse);
  for (Scheme sc : comparisonSchemes()) {
    CAPTURE(schemeName(sc));
    CHECK(first->column(sc).relative.maxError == expectCoarse.column(sc).relative.maxError);
    CHECK(first->column(sc).relative.coarse);
  }
  CHECK(comparisonCellText(*first, ComparisonRow::Relative, Scheme::Learned).find("coarse: 2 of 16 shifts") != std::string::npos);
  // The coarse table as the window shows it, marked (the full one is not in yet: 0.15 s of rest).
  const std::string dir = std::string(POSVIZ_TEST_OUT) + "/views-compare";
  std::filesystem::create_directories(dir);
  std::string error;
  CHECK(app->frame(dir + "/compare-coarse.png", &error));
  CHECK(error.empty());
  // At rest the full table replaces it: core's full table, number for number.
  REQUIRE(app->renderUntilIdle(2, 120.0));
  REQUIRE(s.table.has_value());
  CHECK(s.table->shifts == kMaxShifts);
  CHECK_FALSE(compareBusy(s));
  const Comparison expectFull = computeComparison(comparisonParams(s));
  for (Scheme sc : comparisonSchemes()) {
    CAPTURE(schemeName(sc));
    CHECK(s.table->column(sc).relative.maxError == expectFull.column(sc).relative.maxError);
    CHECK(s.table->column(sc).relative.positionSpread == expectFull.column(sc).relative.positionSpread);
    CHECK(s.table->column(sc).coupling.contentDependence == expectFull.column(sc).coupling.contentDependence);
    CHECK_FALSE(s.table->column(sc).relative.coarse);
  }
  CHECK(comparisonCellText(*s.table, ComparisonRow::Relative, Scheme::Learned).find("coarse") == std::string::npos);
}

TEST_CASE("compare view: a change stops the full table still computing for the inputs before it") {
  auto app = compareAtLargest(1024, 700);
  if (!app) return;
  ComparePanelState& s = app->state().compare;
  const int l0 = largestTrainedLength();
  // Frames until the full table for L0 is computing.
  bool refining = false;
  for (int i = 0; i < 4000 && !refining; ++i) {
    app->frame();
    refining = s.refineRunning && s.job.busy();
  }
  REQUIRE(refining);
  s.trainedLength = l0 - 7;
  s.dirty = true;
  // The frame that sees the change may still show a full table that finished before it (on a
  // loaded machine the job can end between the frames); from the next frame on no full table for
  // the old L0 may land: the change stopped it, and a result finished but not yet taken is dropped.
  app->frame();
  bool staleFull = false;
  for (int i = 0; i < 4000 && compareBusy(s); ++i) {
    app->frame();
    staleFull |= s.table && s.table->params.trainedLength == l0 && s.table->shifts == kMaxShifts;
  }
  CHECK_FALSE(staleFull);
  CHECK_FALSE(compareBusy(s));
  REQUIRE(s.table.has_value());
  CHECK(s.table->params.trainedLength == l0 - 7);
  CHECK(s.table->shifts == kMaxShifts);
}
