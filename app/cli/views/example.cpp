// example.cpp: the picture of one step of a worked example (core/lessons/lessons.hpp) as a view,
// so the Worked examples tab's File > Export is a command too.
#include <algorithm>
#include <cmath>

#include "app/cli/params/lessons.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/views/view_support.hpp"
#include "core/lessons/lessons.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::cli {

namespace {

namespace table = params::example;

struct Picked {
  WorkedExample example;
  const Step* step = nullptr;
};

Picked pick(const Request& r) {
  const std::string names = [] {
    std::string out;
    for (const std::string& n : workedExampleNames()) out += (out.empty() ? "" : ", ") + n;
    return out;
  }();
  if (r.exampleName.empty()) throw UsageError("--example: required; one of " + names);
  std::optional<WorkedExample> e = findWorkedExample(r.exampleName);
  if (!e) throw UsageError("--example: got " + quotedText(r.exampleName) + ", expected one of " + names);
  Picked p{std::move(*e), nullptr};
  const int steps = static_cast<int>(p.example.steps.size());
  if (r.exampleStep < 1 || r.exampleStep > steps) {
    throw UsageError("--step: got " + std::to_string(r.exampleStep) + ", expected an integer in [1, " + std::to_string(steps) +
                     "] (the steps of " + p.example.name + ")");
  }
  p.step = &p.example.steps[static_cast<std::size_t>(r.exampleStep - 1)];
  if (p.step->view.grid.values.empty()) {
    throw UsageError("--step: step " + std::to_string(r.exampleStep) + " of " + p.example.name + " (" + p.step->title +
                     ") has no grid; posviz examples " + p.example.name + " prints its numbers");
  }
  return p;
}

// --example NAME and --step N (1-based).
void exampleParse(Request& r, const ParsedOptions& o) {
  r.exampleName.clear();
  if (auto n = o.value(std::string(table::kName.flag))) r.exampleName = *n;
  r.exampleStep = static_cast<int>(table::kStep.defaultInt());
  readParam(o, table::kStep, r.exampleStep);
  pick(r);   // a bad name or step is a usage error before any output is opened
}

std::uint64_t exampleElements(const Request&) { return 1 << 16; }   // a step's grid: a few hundred cells

Dataset computeExample(const Request& r, const ExportProgress& progress) {
  const Picked p = pick(r);
  const MiniView& v = p.step->view;
  Dataset d;
  d.grid = v.grid;
  d.shape = {v.grid.rows, v.grid.cols};
  d.document["params"] = {{"example", p.example.name}, {"step", r.exampleStep}, {"title", p.step->title}};
  d.rowTitle = v.rowTitle.empty() ? "row" : v.rowTitle;
  d.colTitle = v.colTitle.empty() ? "col" : v.colTitle;
  d.valueName = v.valueName;
  d.csvComments = {p.example.title + ": " + p.step->title};
  const long long row0 = static_cast<long long>(std::llround(v.rowOrigin));
  labelAxes(d, row0, v.grid.rows, 0, v.grid.cols);
  // Rows past a learned table hold NaN: they are data ("no row"), written as they are.
  d.skipFiniteCheck = v.noDataRowsFrom >= 0;
  progress(1.0);
  return d;
}

}  // namespace

std::vector<ViewDef> exampleViews() {
  ViewDef v;
  v.name = "example";
  v.tab = "worked-examples";
  v.summary = "the picture of one step of a worked example (posviz examples --list names them)";
  v.layout = ".npy/.csv: the step's grid, rows x cols as the window draws it; .json: shape, params, values; .png: heatmap";
  v.png = true;
  v.options = {"--example", "--step"};
  v.params = {&table::kName, &table::kStep};
  v.parse = exampleParse;
  v.elements = exampleElements;
  v.compute = computeExample;
  return {v};
}

}  // namespace posviz::cli
