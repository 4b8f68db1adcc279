// alibi.cpp: the ALiBi lessons (004's bias for four tokens with m = 0.5; 001's slope rule at 8
// and 12 heads against Press et al., and 004's ALiBiBias code). Words: assets/lessons/alibi.json.
#include "core/alibi.hpp"
#include "core/lessons/document_code.hpp"
#include "core/lessons/topics.hpp"

namespace posviz {

namespace {

MiniView alibiView(double slope, int n, int row, std::string title) {
  MiniView v;
  v.title = std::move(title);
  v.grid = alibiBiasGrid(slope, n, false);
  v.rowTitle = "query i";
  v.colTitle = "key j";
  v.valueName = "bias";
  v.highlightRow = row;
  return v;
}

MiniView slopesPlot(std::string title, std::vector<MiniSeries> series) {
  MiniView v;
  v.title = std::move(title);
  v.xTitle = "head h";
  v.yTitle = "slope m_h";
  v.logY = true;
  v.series = std::move(series);
  return v;
}

}  // namespace

// ---- alibi-4tokens-m0.5 ----

// Row i of B = -m |i - j|, and the distance D = |i - j| read back from it.
std::vector<StepResult> alibiBias4Steps() {
  const double slope = 0.5;
  const int n = 4;
  const Grid bias = alibiBiasGrid(slope, n, false);
  std::vector<StepResult> steps;
  for (int i = 0; i < n; ++i) {
    StepResult s;
    for (int j = 0; j < n; ++j) {
      const double b = bias.at(i, j);
      const std::string at = "[" + formatInt(i) + "][" + formatInt(j) + "]";
      s.numbers.push_back({"B" + at, b});
      s.checked["D" + at] = b == 0.0 ? 0.0 : b / -slope;
    }
    s.view = alibiView(slope, n, i, "bias -0.5|i-j|, row " + formatInt(i));
    steps.push_back(std::move(s));
  }
  return steps;
}

// ---- alibi-slopes-8heads ----

std::vector<StepResult> alibiSlopesSteps() {
  const std::vector<double> press8 = alibiSlopes(8);
  StepResult s;
  MiniSeries s8{"Press et al., 8 heads", {}, {}};
  for (int h = 1; h <= 8; ++h) {
    s.numbers.push_back({"m_" + formatInt(h), press8[h - 1]});
    s8.x.push_back(h);
    s8.y.push_back(press8[h - 1]);
  }
  s.view = slopesPlot("slopes per head (log scale)", {s8});

  const std::vector<double> doc12 = doc001AlibiSlopes(12), press12 = alibiSlopes(12);
  StepResult t;
  MiniSeries sd{"1/2^(8h/12), Teaching Transformers to Count", {}, {}}, sp{"Press et al., 12 heads", {}, {}};
  for (int h = 1; h <= 12; ++h) {
    t.numbers.push_back({"head " + formatInt(h) + ": document", doc12[h - 1]});
    t.numbers.push_back({"head " + formatInt(h) + ": Press et al.", press12[h - 1]});
    sd.x.push_back(h);
    sd.y.push_back(doc12[h - 1]);
    sp.x.push_back(h);
    sp.y.push_back(press12[h - 1]);
  }
  t.view = slopesPlot("12 heads: the document's rule vs Press et al.", {sd, sp});

  const std::vector<double> code12 = doc004AlibiSlopes(12);
  StepResult c;
  c.numbers = {{"max |code - paper|, H = 4", maxAbsDiff(doc004AlibiSlopes(4), alibiSlopes(4))},
               {"max |code - paper|, H = 8", maxAbsDiff(doc004AlibiSlopes(8), press8)},
               {"max |code - paper|, H = 12", maxAbsDiff(code12, press12)},
               {"max |code - 1/2^(8h/H) rule|, H = 12", maxAbsDiff(code12, doc12)}};
  return {s, t, c};
}

}  // namespace posviz
