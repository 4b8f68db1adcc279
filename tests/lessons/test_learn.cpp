// Tests for core/lessons/learn: the Learn path's structure (ids, controls, navigation), every
// step's figure at its defaults and at the ends of every control, the predictions' answers against
// hand-computed values, the claims' computed values, and the words a student reads (no file name,
// hash, line number or code identifier).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/lessons/articles.hpp"
#include "core/lessons/learn.hpp"
#include "core/lessons/lessons.hpp"

using namespace posviz::learn;

namespace {

// Two published-looking models for the steps that read Inputs: a RoPE model stretched 4x with
// YaRN past L0 = 4096, and an ALiBi one.
Inputs fixtureInputs() {
  PublishedModel rope;
  rope.name = "rope-yarn";
  rope.scheme = "RoPE";
  rope.rope = true;
  rope.params.headDim = 64;
  rope.params.scaling.method = posviz::ScalingMethod::Yarn;
  rope.params.scaling.factor = 4.0;
  rope.params.scaling.originalMaxPositions = 4096;
  rope.maxPositions = 16384;
  PublishedModel alibi;
  alibi.name = "alibi-model";
  alibi.scheme = "ALiBi";
  return {{rope, alibi}};
}

std::vector<std::string> wordsOf(const Step& s, std::span<const double> values) {
  std::vector<std::string> w = {s.title, s.why, s.notice, s.tryThis};
  for (const Control& c : s.controls) {
    w.push_back(c.label);
    w.push_back(c.help);
  }
  if (s.claim) {
    w.push_back(s.claim->article);
    w.push_back(s.claim->section);
    w.push_back(s.claim->quote);
    w.push_back(claimVerdict(*s.claim));
  }
  if (s.predict) {
    w.push_back(s.predict->question);
    w.push_back(s.predict->reveal);
  }
  const Figure f = stepFigure(s, values, fixtureInputs());
  for (const std::string& r : f.readout) w.push_back(r);
  for (const CellGrid& g : f.grids) w.push_back(g.title);
  if (f.table) {
    w.push_back(f.table->title);
    for (const auto& row : f.table->rows)
      for (const std::string& cell : row) w.push_back(cell);
  }
  if (f.lines) {
    w.push_back(f.lines->title);
    for (const auto& series : f.lines->series) w.push_back(series.label);
  }
  if (f.plane)
    for (const Arrow& a : f.plane->arrows) w.push_back(a.label);
  return w;
}

}  // namespace

TEST_CASE("learn: chapters follow the documents' order, ids are unique, every step is complete") {
  const auto& cs = chapters();
  std::vector<std::string> ids;
  for (const Chapter& c : cs) ids.push_back(c.id);
  CHECK(ids == std::vector<std::string>{"order", "sinusoidal", "learned", "rope", "alibi", "beyond", "choosing", "more"});
  std::set<std::string> seen;
  int n = 0;
  for (const Chapter& c : cs) {
    CHECK_FALSE(c.steps.empty());
    CHECK_FALSE(c.intro.empty());
    for (const Step& s : c.steps) {
      INFO("step " << s.id);
      ++n;
      CHECK(seen.insert(s.id).second);
      CHECK(s.why.size() > 120);   // a few sentences, not a caption
      CHECK_FALSE(s.notice.empty());
      CHECK_FALSE(s.tryThis.empty());
      CHECK_FALSE(s.openTab.empty());
      CHECK((s.figure != nullptr || s.figureWith != nullptr));
      int sliders = 0;
      for (const Control& k : s.controls) {
        if (!k.extra) ++sliders;
        CHECK(k.min <= k.value);
        CHECK(k.value <= k.max);
        CHECK_FALSE(k.label.empty());
      }
      CHECK(sliders <= 3);
      if (s.playControl >= 0) {
        REQUIRE(s.playControl < static_cast<int>(s.controls.size()));
        CHECK(s.controls[static_cast<std::size_t>(s.playControl)].kind == ControlKind::Int);
      }
      CHECK_NOTHROW(openSettings(s, defaultValues(s)));
    }
  }
  CHECK(n == stepCount());
  CHECK(n >= 25);
}

TEST_CASE("learn: every figure is non-empty at its defaults and at both ends of every control") {
  for (const Chapter& c : chapters())
    for (const Step& s : c.steps) {
      INFO("step " << s.id);
      std::vector<double> v = defaultValues(s);
      CHECK_FALSE(stepFigure(s, v, fixtureInputs()).empty());
      for (std::size_t i = 0; i < v.size(); ++i) {
        for (double end : {s.controls[i].min, s.controls[i].max}) {
          std::vector<double> w = v;
          w[i] = end;
          INFO("control " << s.controls[i].key << " = " << end);
          Figure f;
          CHECK_NOTHROW(f = stepFigure(s, w, fixtureInputs()));
          CHECK_FALSE(f.empty());
          for (const CellGrid& g : f.grids) {
            CHECK(g.grid.rows <= 64);
            CHECK(g.grid.cols <= 64);
          }
        }
      }
    }
}

TEST_CASE("learn: values are clamped to their controls") {
  const auto r = findStep("sin-pos3");
  REQUIRE(r);
  const std::vector<double> nan = {std::nan("")}, huge = {1e9}, frac = {2.6};
  CHECK(clampValues(r->get(), nan) == std::vector<double>{3.0});   // non-finite: the default
  CHECK(clampValues(r->get(), huge) == std::vector<double>{7.0});
  CHECK(clampValues(r->get(), frac) == std::vector<double>{3.0});  // Int controls are rounded
  CHECK(clampValues(r->get(), {}) == std::vector<double>{3.0});
}

TEST_CASE("learn: Next and Back walk every step once, in order, and stop at the ends") {
  StepRef r = stepAt(0);
  std::set<std::string> visited = {r->id};
  for (int i = 1; i < stepCount(); ++i) {
    const StepRef next = nextStep(r);
    CHECK(flatIndex(next) == i);
    CHECK(visited.insert(next->id).second);
    CHECK(flatIndex(previousStep(next)) == i - 1);
    r = next;
  }
  CHECK(flatIndex(nextStep(r)) == stepCount() - 1);
  CHECK(flatIndex(previousStep(stepAt(0))) == 0);
  CHECK(static_cast<int>(visited.size()) == stepCount());
  CHECK_FALSE(findStep("no-such-step"));
}

TEST_CASE("learn: predictions are judged against core's numbers at their decimals") {
  struct Case {
    const char* step;
    double expected;   // hand-computed
  };
  const Case cases[] = {
      {"sin-wavelengths", 2.0 * M_PI * 10.0},   // pair 64 of 512: 2 pi 10000^(128/512)
      {"sin-pos3", 0.29552020666133955},        // sin(0.3)
      {"learned-ceiling", 511.0},
      {"rope-2d", 0.1411200080598672},          // sin(3): the interview guide's m = 5, n = 2
      {"alibi-4", -1.5},
      {"alibi-slopes", 0.125},                  // 2^(-8*3/8)
      {"beyond-yarn", 1.2079441541679836},      // 0.1 ln 8 + 1
      {"beyond-pi", 4095.75},                   // 16383 / 4
  };
  for (const Case& c : cases) {
    INFO(c.step);
    const auto r = findStep(c.step);
    REQUIRE(r);
    REQUIRE(r->get().predict);
    CHECK(r->get().predict->answer() == doctest::Approx(c.expected).epsilon(1e-12));
    CHECK(predictionMatches(*r->get().predict, c.expected));
    CHECK_FALSE(predictionMatches(*r->get().predict, c.expected + 2.0 * std::pow(10.0, -r->get().predict->decimals)));
    CHECK_FALSE(predictionMatches(*r->get().predict, std::nan("")));
  }
  // The interview guide's printed -0.2579 is not accepted.
  CHECK_FALSE(predictionMatches(*findStep("rope-2d")->get().predict, -0.2579));
}

TEST_CASE("learn: claims carry computed values and a severity") {
  const auto rope = findStep("rope-2d");
  REQUIRE(rope);
  REQUIRE(rope->get().claim);
  CHECK(rope->get().claim->severity == Severity::WrongNumber);
  CHECK(claimVerdict(*rope->get().claim).find("0.1411 = sin(3)") != std::string::npos);
  const auto table = findStep("sin-wavelengths");
  CHECK(claimVerdict(*table->get().claim).find("62.83 for dims 128, 129") != std::string::npos);
  const auto order = findStep("sin-clocks");
  CHECK(order->get().claim->severity == Severity::WrongConcept);
  CHECK(claimVerdict(*order->get().claim).find("pair 0 turns 1 rad per position") != std::string::npos);
  const auto alibi = findStep("alibi-slopes");
  CHECK(claimVerdict(*alibi->get().claim).find("0.5 for head 1 of 12 where the rule gives 0.63") != std::string::npos);
  int wrong = 0;
  for (const Chapter& c : chapters())
    for (const Step& s : c.steps)
      if (s.claim && s.claim->severity != Severity::Holds) ++wrong;
  CHECK(wrong >= 5);
  CHECK(std::string(severityName(Severity::WrongConcept)) == "wrong in concept");
}

TEST_CASE("learn: figures show the numbers the steps are about") {
  const auto pos3 = findStep("sin-pos3");
  const Figure f = stepFigure(pos3->get(), defaultValues(pos3->get()));
  REQUIRE(f.grids.size() == 1);
  CHECK(f.grids[0].highlightRow == 3);
  CHECK(f.grids[0].grid.at(3, 0) == doctest::Approx(std::sin(3.0)).epsilon(1e-7));
  CHECK(f.grids[0].grid.at(3, 3) == doctest::Approx(std::cos(0.3)).epsilon(1e-7));

  const auto alibi = findStep("alibi-4");
  const Figure a = stepFigure(alibi->get(), defaultValues(alibi->get()));
  CHECK(a.grids[0].grid.at(0, 3) == doctest::Approx(-1.5));
  CHECK(a.grids[0].grid.at(2, 1) == doctest::Approx(-0.5));

  // Without positions the shuffled sentence's weights are the original's, moved.
  const auto shuffle = findStep("order-shuffle");
  const std::vector<double> off = {0.0}, onv = {1.0};
  const Figure s0 = stepFigure(shuffle->get(), off), s1 = stepFigure(shuffle->get(), onv);
  CHECK(s0.grids[0].grid.at(2, 0) == doctest::Approx(s0.grids[1].grid.at(0, 2)).epsilon(1e-6));
  CHECK(std::abs(s1.grids[0].grid.at(2, 0) - s1.grids[1].grid.at(0, 2)) > 1e-4);

  // The learned table read past its rows shows the missing rows, not invented numbers.
  const auto learned = findStep("learned-ceiling");
  const std::vector<double> past = {8, 12, 1};
  const Figure l = stepFigure(learned->get(), past);
  CHECK(l.grids[0].grid.rows == 13);
  CHECK(l.grids[0].noDataRowsFrom == 8);
  CHECK(std::isnan(l.grids[0].grid.at(12, 0)));
  const std::vector<double> clamped = {8, 12, 0};
  CHECK(stepFigure(learned->get(), clamped).grids[0].highlightRow == 7);

  // Layouts: permuted weights give the checkpoint's scores; unpermuted ones do not.
  const auto layouts = findStep("rope-layouts");
  const std::vector<double> right = {8, 0}, wrongv = {8, 1};
  const Figure r0 = stepFigure(layouts->get(), right), r1 = stepFigure(layouts->get(), wrongv);
  REQUIRE(r0.lines);
  double d0 = 0, d1 = 0;
  for (std::size_t i = 0; i < r0.lines->series[0].y.size(); ++i) {
    d0 = std::max(d0, std::abs(r0.lines->series[0].y[i] - r0.lines->series[1].y[i]));
    d1 = std::max(d1, std::abs(r1.lines->series[0].y[i] - r1.lines->series[1].y[i]));
  }
  CHECK(d0 < 1e-6);
  CHECK(d1 > 0.1);
}

TEST_CASE("learn: one name per concept: the articles' other names appear only inside their quotes") {
  // Help > Glossary lists these as other names of L0, head_dim and theta_i.
  const std::regex other(R"(\bT_max\b|\bmax_len\b|\bL_max\b|\bd_k\b|\bomega_i\b|\bw_i\b|max_position_embeddings)");
  for (const Chapter& c : chapters())
    for (const Step& s : c.steps) {
      std::vector<std::string> w = wordsOf(s, defaultValues(s));
      if (s.claim) std::erase(w, s.claim->quote);
      for (const std::string& t : w) {
        INFO(s.id << ": " << t);
        CHECK_FALSE(std::regex_search(t, other));
      }
    }
}

TEST_CASE("learn: no file name, hash, line number or code identifier in what a student reads") {
  const std::regex file(R"(\d{3}_[0-9a-f]{6,}|\.txt|line \d+|seed 00\d|(^|[\s(])00[0-4]([\s).,']|$))");
  const std::regex code(R"(\b[a-z]+[A-Z][A-Za-z]*\(|core/|\.cpp|\.hpp|learnedLookup|computed by core)");
  for (const Chapter& c : chapters()) {
    for (const std::string& w : {c.title, c.intro}) CHECK_FALSE(std::regex_search(w, file));
    for (const Step& s : c.steps)
      for (const std::string& w : wordsOf(s, defaultValues(s))) {
        INFO(s.id << ": " << w);
        CHECK_FALSE(std::regex_search(w, file));
        CHECK_FALSE(std::regex_search(w, code));
      }
  }
}

TEST_CASE("learn: every step's worked example exists, and its claim cites one of the articles") {
  const std::vector<std::string> names = posviz::workedExampleNames();
  for (const Chapter& c : chapters())
    for (const Step& s : c.steps) {
      INFO(s.id);
      if (!s.example.empty()) CHECK(std::find(names.begin(), names.end(), s.example) != names.end());
      if (!s.claim) continue;
      bool known = false;
      for (const posviz::Article& a : posviz::articles()) known = known || s.claim->article == a.title;
      CHECK(known);
    }
}

TEST_CASE("learn: published models, and how much of their length puts the slowest pair at new angles") {
  const auto r = findStep("beyond-models");
  REQUIRE(r);
  const Figure f = stepFigure(r->get(), {}, fixtureInputs());
  REQUIRE(f.table);
  REQUIRE(f.table->rows.size() == 2);
  // Plain RoPE: the slowest pair saw angles up to 4095 theta, so positions 4096..16383 are new:
  // 12288 / 16384 = 75 %. YaRN x4 slows that pair by 4: 4 x 4095 = 16380 covers all but 3 positions.
  CHECK(f.table->rows[0][2] == "4096 -> 16384");
  CHECK(f.table->rows[0][5] == "75.0 % / 0.0 %");
  CHECK(f.table->rows[1][1] == "ALiBi");
  CHECK(f.table->rows[1][5] == "-");
  CHECK(stepFigure(r->get(), {}, {}).empty());   // without models there is nothing to show
}

TEST_CASE("learn: 2-D axial RoPE scores are a row part plus a column part") {
  const auto r = findStep("more-axial");
  REQUIRE(r);
  const Figure f = stepFigure(r->get(), defaultValues(r->get()));
  REQUIRE(f.grids.size() == 1);
  const posviz::Grid& g = f.grids[0].grid;
  REQUIRE(g.rows == 7);
  REQUIRE(g.cols == 7);
  for (int row = 0; row + 1 < g.rows; ++row)
    for (int c = 1; c < g.cols; ++c)
      CHECK(g.at(row + 1, c) - g.at(row, c) == doctest::Approx(g.at(row + 1, 0) - g.at(row, 0)).epsilon(1e-4));
  CHECK(f.grids[0].highlightRow == 4);   // row offset 1
  CHECK(f.grids[0].highlightCol == 5);   // column offset 2
}
