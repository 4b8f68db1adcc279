// learn.hpp: the Learn path. Chapters in the documents' reading order, each a few steps; every
// step says why in posviz's own words, shows one focused figure computed by core from at most
// three controls, names what to notice, quotes the documents' claim at that point with its
// verdict and cause, suggests something to try and says which tab goes deeper.
//
// DATA AND CODE
//   The words and the figure of a step sit together in core/lessons/learn_path.cpp: a step's
//   figure is a function of its control values, so a slider, the CLI (`posviz learn`) and a
//   screenshot all draw the same numbers. The figure functions call core only.
//
// CONTROLS
//   values[i] belongs to controls[i]; stepFigure() clamps every value into its control's range
//   (Int controls are rounded; Switch controls are 0 or 1), so any values are safe to pass.
//   Controls marked `extra` (a typed q and k) are drawn apart from the at-most-three sliders.
//
// FIGURES
//   A Figure holds any of: cell grids (values printed in the cells when a grid is at most 16 x 16,
//   one cell, row or column highlighted), dials (clock hands), a plane (arrows from the origin
//   with an arc between two of them), bars, a text table and line series. `readout` lines carry
//   the exact numbers the step is about. A figure with none of these is empty; no step has one.
//
// CLAIMS
//   A step may quote one claim of a document, cited by the article's title and section. Its
//   severity says how wrong it is: Holds, Rounded (right up to the digits printed), WrongNumber,
//   WrongConcept. `verdict` reads "The article says X; the correct value is Y, because ..." where
//   {value} is replaced by claimValue(), computed by core.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/grid.hpp"
#include "core/lessons/lessons.hpp"
#include "core/rope.hpp"

namespace posviz::learn {

// The severities of the worked examples' claims (core/lessons/claims.hpp), one scale for both.
using posviz::Severity;
using posviz::severityName;

struct ArticleClaim {
  std::string article;   // the document's title, as it gives it
  std::string section;   // the section (or question) the claim is in
  std::string quote;     // a short quote of the claim
  Severity severity = Severity::Holds;
  std::string verdict;   // may hold {value}
  std::string (*value)() = nullptr;  // the computed correct value, as text; nullptr: no {value}
};

enum class ControlKind { Int, Real, Switch };

struct Control {
  std::string key;       // "pos": names the value in `posviz learn --set key=v` and the settings file
  std::string label;     // "position"
  std::string help;      // one sentence, shown beside the control
  ControlKind kind = ControlKind::Int;
  double min = 0.0, max = 1.0, value = 0.0;  // value: the default
  bool extra = false;    // typed vector components, drawn apart from the sliders
};

struct CellGrid {
  Grid grid;
  std::string title;
  std::vector<std::string> rowLabels, colLabels;  // one per row/col (empty: the index)
  std::string rowTitle, colTitle;
  bool symmetric = false;   // signed data: a diverging colour scale centred on 0
  int decimals = 3;         // values printed in cells (grids of at most 16 x 16)
  int highlightRow = -1, highlightCol = -1;  // -1 both: none; a row only: the row; both: the cell
  int noDataRowsFrom = -1;  // >= 0: rows from here on do not exist (drawn hatched)
  std::string noDataLabel;
};

struct Dial {
  std::string label;
  std::vector<ClockHand> hands;
};

struct Arrow {
  std::string label;
  double x = 0.0, y = 0.0;
  int colour = 0;           // 0 query, 1 key, 2 a third vector, 3 faded (a former position)
};

struct Plane {
  std::vector<Arrow> arrows;
  int arcFrom = -1, arcTo = -1;  // arrows joined by an arc (the angle between them)
  std::string arcLabel;
};

struct Bars {
  std::string title, yTitle;
  std::vector<std::string> labels;
  std::vector<double> values;
  bool logY = false;
  int highlight = -1;
};

struct TextTable {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int highlightRow = -1;
};

struct Lines {
  std::string title, xTitle, yTitle;
  bool logY = false;
  std::vector<MiniSeries> series;
  std::optional<double> markerX;
  std::string markerLabel;
};

struct Figure {
  std::vector<CellGrid> grids;   // side by side
  std::vector<Dial> dials;
  std::optional<Plane> plane;
  std::optional<Bars> bars;
  std::optional<TextTable> table;
  std::optional<Lines> lines;
  std::vector<std::string> readout;
  bool empty() const;
};

// What a step may need besides its controls: published models' positions, read by the caller from
// real config.json files (the app's shipped presets); core only computes with them.
struct PublishedModel {
  std::string name;           // "llama-3.1-8b"
  std::string scheme;         // "RoPE", "ALiBi", "learned", ...: how its full-attention layers see position
  bool rope = false;          // whether `params` holds its RoPE
  RopeParams params;          // base, head_dim, rotary fraction, scaling (its factor and L0)
  long long maxPositions = 0; // max_position_embeddings: the length it is published for
};
struct Inputs {
  std::vector<PublishedModel> models;
};

struct Prediction {
  std::string question;      // "PE(3, 0) = sin(3) = ?"
  int decimals = 3;          // the answer is judged to this many decimals (half a unit of the last)
  double (*answer)() = nullptr;  // computed by core
  std::string reveal;        // a sentence shown with the answer
};

struct Step {
  std::string id;            // "rope-2d": unique over all chapters
  std::string title;
  std::string why;           // a few sentences: why, not only what
  std::string notice;        // "What to notice"
  std::string tryThis;       // "Try this"
  std::vector<Control> controls;
  int playControl = -1;      // the control the play button advances (-1: no play)
  std::optional<ArticleClaim> claim;
  std::optional<Prediction> predict;
  std::string openTab;       // the tab that goes deeper (a cli::tabs() name)
  // Settings keys of that tab set from the step: {key, control key} takes a control's value,
  // {key, "=V"} the fixed number V.
  std::vector<std::pair<std::string, std::string>> openWith;
  std::string example;       // the worked example this step's claim is checked in ("" none)
  Figure (*figure)(std::span<const double> values) = nullptr;
  // Instead of figure, for a step that needs Inputs (published models).
  Figure (*figureWith)(std::span<const double> values, const Inputs& inputs) = nullptr;
};

struct Chapter {
  std::string id;
  std::string title;
  std::string intro;         // one or two sentences
  std::vector<Step> steps;
};

// Every chapter in reading order.
const std::vector<Chapter>& chapters();
int stepCount();

struct StepRef {
  int chapter = 0, step = 0;  // indices
  const Step* operator->() const;
  const Step& get() const;
};
// The step named id; nullopt when none.
std::optional<StepRef> findStep(std::string_view id);
// The step after / before (clamped at the ends), in reading order across chapters.
StepRef nextStep(StepRef r);
StepRef previousStep(StepRef r);
int flatIndex(StepRef r);     // 0 .. stepCount()-1
StepRef stepAt(int flat);     // clamped

// Each control's default value.
std::vector<double> defaultValues(const Step& s);
// Values clamped to the controls (missing ones take their defaults, extra ones dropped).
std::vector<double> clampValues(const Step& s, std::span<const double> values);
// The figure at these values (clamped first); inputs for the steps that use them.
Figure stepFigure(const Step& s, std::span<const double> values, const Inputs& inputs = {});
// The claim's verdict with {value} filled in.
std::string claimVerdict(const ArticleClaim& c);
// The settings the "open in" tab gets: {key, value}; a Switch control's value is a boolean there.
struct OpenSetting {
  std::string key;
  double value = 0.0;
  bool isSwitch = false;
};
std::vector<OpenSetting> openSettings(const Step& s, std::span<const double> values);
// Whether a typed answer matches the prediction's answer at its decimals.
bool predictionMatches(const Prediction& p, double typed);

}  // namespace posviz::learn
