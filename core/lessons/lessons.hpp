// lessons.hpp: the documents' worked examples, recomputed by core and checked claim by claim.
//
// WHAT
//   Each WorkedExample is a sequence of Steps taken from one of the articles (the
//   sinusoidal vector at pos 3 with d_model 8, the d_model 512 wavelength table, the 2-D RoPE
//   score at m = 5, n = 2, ...). A Step carries the formula, the numbers core computes for it
//   and the Claims the document makes there (core/lessons/claims.hpp). Every number is computed
//   when workedExamples() is called; nothing is typed in except what the documents claim.
//
// LAYOUT
//   The words are data, the numbers are code. assets/lessons/<topic>.json (embedded into this
//   target) holds each example's name, title and source, each step's title, formula and
//   explanation, and each claim: the document's quote, its value as printed, the check and
//   the name of the computed number it is checked against. core/lessons/<topic>.cpp computes
//   those named numbers with core, one function per example (core/lessons/lesson_data.hpp
//   binds the two). The files: sinusoidal, toy_config, rope, alibi, learned, order,
//   context_extension, interview (004's ten interview questions and its follow-up probes),
//   code_audits (the documents' code listings at their edges; core/lessons/code_listings.hpp runs
//   them shape by shape and 001's test list per listing), papers (worked numbers of other schemes'
//   papers and reference code); document_code.hpp holds the documents' own code, transcribed.
//
// MINI VIEWS
//   A Step names the place it is about in a small live view: a heatmap cell or row (grid with
//   highlightRow/highlightCol), clock hands (angles in radians, 0 = +x, counter-clockwise), or
//   plot series with a marker. Grids are small (at most a few hundred cells) and row-major like
//   every core Grid.
//
// ERRORS
//   Lesson data that does not match its code (a missing or malformed file, a claim naming a
//   number its step did not compute) is a programming error: std::logic_error naming the
//   lesson, the step and the key. A test loads every lesson, so a build that passes has none.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/grid.hpp"
#include "core/lessons/claims.hpp"

namespace posviz {

struct ClockHand {
  std::string label;     // "q at m=5", "pair 1 at pos 3"
  double angle = 0.0;    // radians, counter-clockwise from +x
  double length = 1.0;   // 0..1 of the dial radius
};

struct MiniSeries {
  std::string label;
  std::vector<double> x, y;
};

// What a step shows; any of the three parts may be present (empty ones are not drawn).
struct MiniView {
  std::string title;
  // Heatmap: drawn when grid has cells.
  Grid grid;
  double rowOrigin = 0.0;        // label of grid row 0 (e.g. 496 for the table's last rows)
  std::string rowTitle, colTitle, valueName;
  bool symmetricRange = false;   // signed data: diverging colours centred on 0
  int highlightRow = -1;         // grid row to outline, -1: none
  int highlightCol = -1;         // grid col to outline, -1: the whole row
  int noDataRowsFrom = -1;       // >= 0: grid rows from here on do not exist (NaN, drawn hatched)
  std::string noDataLabel;       // written over those rows
  // Clock: drawn when hands is not empty.
  std::vector<ClockHand> hands;
  // Plot: drawn when series is not empty.
  std::string xTitle, yTitle;
  bool logY = false;
  std::vector<MiniSeries> series;
  std::optional<double> markerX; // vertical marker at the step's point
  std::string markerLabel;
};

struct Step {
  std::string title;
  std::string formula;
  std::string explanation;
  std::vector<std::pair<std::string, double>> numbers;  // name, value (computed by core)
  std::vector<Claim> claims;
  MiniView view;
};

// One faulty line of a document's code listing, quoted, and what it should say.
struct CodeFix {
  std::string faulty;      // the listing's line as printed
  std::string corrected;   // the line that does what the listing claims
  std::string why;         // one sentence
};

struct WorkedExample {
  std::string name;     // kebab-case, the CLI's NAME: "sinusoidal-pos3-d8"
  std::string title;
  std::string article;  // its article's id (core/lessons/articles.hpp)
  std::vector<CodeFix> fixes;   // code audits: the faulty lines, each with its correction
  std::string source;   // the article's title and section
  std::string topic;    // its data file's stem: "sinusoidal", "interview", "code_audits"
  std::vector<Step> steps;
};

// Every example, computed now by core. Order is stable (the CLI lists it as is).
std::vector<WorkedExample> workedExamples();
// nullopt when no example has that name; computes only that one.
std::optional<WorkedExample> findWorkedExample(const std::string& name);
std::vector<std::string> workedExampleNames();

}  // namespace posviz
