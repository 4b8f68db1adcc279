// sinusoidal.cpp: the sinusoidal lessons (004's pos 3 vector and pair 1, 001's d_model 512
// wavelength table, 004's frequency order, 001's offset rotation). Words: assets/lessons/sinusoidal.json.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numbers>

#include "core/lessons/topics.hpp"
#include "core/sinusoidal.hpp"

namespace posviz {

namespace {

SinusoidalParams sinParams(int dModel) {
  SinusoidalParams p;
  p.dModel = dModel;
  return p;
}

MiniView sinusoidalHeatmap(int dModel, int numPositions, int row, int col, std::string title) {
  MiniView v;
  v.title = std::move(title);
  v.grid = sinusoidalGrid(sinParams(dModel), numPositions);
  v.rowTitle = "position";
  v.colTitle = "dimension";
  v.valueName = "PE";
  v.symmetricRange = true;
  v.highlightRow = row;
  v.highlightCol = col;
  return v;
}

MiniView wavelengthPlot(const SinusoidalParams& p, int pair, std::string title) {
  MiniView v;
  v.title = std::move(title);
  v.xTitle = "pair i";
  v.yTitle = "wavelength (positions)";
  v.logY = true;
  MiniSeries series;
  series.label = "lambda_i";
  for (int i = 0; i < p.dModel / 2; ++i) {
    series.x.push_back(i);
    series.y.push_back(sinusoidalWavelength(p, i));
  }
  v.series.push_back(std::move(series));
  v.markerX = pair;
  return v;
}

// Four hands, shortening with i so they stay apart.
std::vector<ClockHand> pairHands(const SinusoidalParams& p, int pos, int numPairs) {
  std::vector<ClockHand> hands;
  for (int i = 0; i < numPairs; ++i)
    hands.push_back({"i=" + formatInt(i), pos * sinusoidalFrequency(p, i), 1.0 - 0.15 * i});
  return hands;
}

// ---- sinusoidal-pos3-d8 ----

StepResult pos3Pair(const SinusoidalParams& p, int pos, int i) {
  StepResult r;
  const double omega = sinusoidalFrequency(p, i);
  const double angle = pos * omega;
  r.numbers = {{"exponent 2i/d", 2.0 * i / 8.0},
               {"denominator 10000^(2i/d)", 1.0 / omega},
               {"theta_i", omega},
               {"angle pos*theta_i (rad)", angle},
               {"PE(3, " + formatInt(2 * i) + ") = sin", sinusoidalValue(p, pos, 2 * i)},
               {"PE(3, " + formatInt(2 * i + 1) + ") = cos", sinusoidalValue(p, pos, 2 * i + 1)}};
  r.view.title = "pair " + formatInt(i) + " at pos 3";
  r.view.hands = {{"pair " + formatInt(i) + " at pos 3", angle, 1.0}};
  return r;
}

}  // namespace

std::vector<StepResult> sinusoidalPos3Steps() {
  const SinusoidalParams p = sinParams(8);
  const int pos = 3;
  std::vector<StepResult> steps;
  for (int i = 0; i < 4; ++i) steps.push_back(pos3Pair(p, pos, i));
  StepResult full;
  const std::vector<double> v = sinusoidalVector(p, pos);
  for (int dim = 0; dim < 8; ++dim) full.numbers.push_back({"PE(3, " + formatInt(dim) + ")", v[dim]});
  full.view = sinusoidalHeatmap(8, 8, pos, -1, "PE, positions 0..7 x dims 0..7, row 3");
  steps.push_back(std::move(full));
  return steps;
}

// ---- sinusoidal-pair1-pos3 ----

std::vector<StepResult> sinusoidalPair1Steps() {
  const SinusoidalParams p = sinParams(8);
  StepResult s;
  const double divisor = 1.0 / sinusoidalFrequency(p, 1);
  const double angle = 3.0 / divisor;
  s.numbers = {{"divisor", divisor}, {"angle (rad)", angle}};
  s.view.title = "pair 1 at pos 3";
  s.view.hands = {{"pair 1 at pos 3", angle, 1.0}};

  StepResult t;
  t.numbers = {{"sin(0.3)", sinusoidalValue(p, 3, 2)}, {"cos(0.3)", sinusoidalValue(p, 3, 3)}};
  t.view = sinusoidalHeatmap(8, 8, 3, 2, "PE row 3, dim 2 (the sin of pair 1)");

  StepResult u;
  u.numbers = {{"divisor i=0", 1.0 / sinusoidalFrequency(p, 0)},
               {"divisor i=2", 1.0 / sinusoidalFrequency(p, 2)},
               {"divisor i=3", 1.0 / sinusoidalFrequency(p, 3)}};
  u.view.title = "all four pairs at pos 3";
  u.view.hands = pairHands(p, 3, 4);
  return {s, t, u};
}

// ---- sinusoidal-wavelengths-d512 ----

namespace {

// Dims (dim, dim + 1) of d_model 512: their pair and its wavelength, and the wavelength of
// "pair" dim, the dimension index misread as the pair index.
struct DimsWavelength {
  int pair;
  double wavelength, asPair;
};

DimsWavelength dimsWavelength(const SinusoidalParams& p, int dim) {
  const int pair = sinusoidalPairOfDim(p, dim);
  return {pair, sinusoidalWavelength(p, pair), sinusoidalWavelength(p, dim)};
}

// The table's row for dims (dim, dim + 1) and the document's value beside the curve.
StepResult wavelengthOfDims(const SinusoidalParams& p, int dim, double documentValue, std::string viewTitle) {
  const DimsWavelength w = dimsWavelength(p, dim);
  StepResult r;
  r.numbers = {{"pair i", w.pair},
               {"exponent 2i/d", 2.0 * w.pair / p.dModel},
               {"wavelength", w.wavelength},
               {"wavelength if i = " + formatInt(dim) + " (dims " + formatInt(2 * dim) + ", " + formatInt(2 * dim + 1) + ")",
                w.asPair}};
  r.fields = {{"pair", formatInt(w.pair)}};
  r.view = wavelengthPlot(p, w.pair, std::move(viewTitle));
  r.view.series.push_back({"document", {static_cast<double>(w.pair)}, {documentValue}});
  return r;
}

StepResult wavelengthHalfway(const SinusoidalParams& p) {
  const int d = p.dModel;
  StepResult r;
  const int pair = sinusoidalPairOfDim(p, d / 2);
  const double wavelength = sinusoidalWavelength(p, pair);
  int firstThousand = -1;
  for (int i = 0; i < d / 2 && firstThousand < 0; ++i)
    if (sinusoidalWavelength(p, i) >= 1000.0) firstThousand = i;
  r.numbers = {{"pair i", pair}, {"wavelength", wavelength}, {"first pair with wavelength >= 1000", firstThousand}};
  r.fields = {{"pair", formatInt(pair)},
              {"wavelength", formatFixed(wavelength, 1)},
              {"first_pair", formatInt(firstThousand)},
              {"first_dims", formatInt(2 * firstThousand) + ", " + formatInt(2 * firstThousand + 1)}};
  r.view = wavelengthPlot(p, pair, "pair 128 on the wavelength curve");
  return r;
}

// 1 / 10000^(2i/d) against the log-space exp(-2i ln(10000) / d), both in float32.
StepResult wavelengthOverflow(const SinusoidalParams& p) {
  const int d = p.dModel;
  double maxDenom = 0.0, maxRel = 0.0;
  for (int i = 0; i < d / 2; ++i) {
    maxDenom = std::max(maxDenom, 1.0 / sinusoidalFrequency(p, i));
    const float viaLog = std::exp(static_cast<float>(2 * i) * (-std::log(10000.0f) / static_cast<float>(d)));
    const float direct = 1.0f / std::pow(10000.0f, static_cast<float>(2 * i) / static_cast<float>(d));
    maxRel = std::max(maxRel, std::fabs(static_cast<double>(viaLog) - direct) / static_cast<double>(direct));
  }
  StepResult r;
  r.numbers = {{"largest denominator 10000^(510/512)", maxDenom}, {"float32 max", static_cast<double>(FLT_MAX)},
               {"max relative difference, float32", maxRel}};
  r.fields = {{"largest", formatFixed(maxDenom, 1)}, {"max_relative", formatGeneral(maxRel, 2)}};
  return r;
}

}  // namespace

std::vector<StepResult> sinusoidalWavelengthSteps() {
  const SinusoidalParams p = sinParams(512);
  StepResult s0;
  s0.numbers = {{"pair i", 0}, {"wavelength", sinusoidalWavelength(p, 0)}};
  s0.view = wavelengthPlot(p, 0, "wavelength of every pair, d_model = 512");

  StepResult s1 = wavelengthOfDims(p, 128, 630.0, "pair 64 on the wavelength curve; the document's ~630 off it");
  const DimsWavelength w1 = dimsWavelength(p, 128);
  s1.fields["wavelength"] = formatFixed(w1.wavelength, 2);
  s1.fields["wavelength_as_pair"] = formatFixed(w1.asPair, 1);

  StepResult s2 = wavelengthOfDims(p, 254, 62800.0, "pair 127 on the wavelength curve; the document's ~62,800 off it");
  const DimsWavelength w2 = dimsWavelength(p, 254);
  const double lLast = sinusoidalWavelength(p, p.dModel / 2 - 1);
  const double limit = 2.0 * std::numbers::pi * p.base;
  s2.numbers.push_back({"last pair 255 (dims 510, 511)", lLast});
  s2.numbers.push_back({"2*pi*10000 (never reached)", limit});
  s2.fields["wavelength"] = formatFixed(w2.wavelength, 1);
  s2.fields["wavelength_as_pair"] = formatFixed(w2.asPair, 0);
  s2.fields["last_wavelength"] = formatFixed(lLast, 0);
  s2.fields["limit"] = formatFixed(limit, 0);

  return {s0, s1, s2, wavelengthHalfway(p), wavelengthOverflow(p)};
}

// ---- sinusoidal-frequency-order ----

std::vector<StepResult> sinusoidalFrequencyOrderSteps() {
  const SinusoidalParams p = sinParams(8);
  const int last = p.dModel / 2 - 1;
  const double w0 = sinusoidalFrequency(p, 0), wLast = sinusoidalFrequency(p, last);
  const double l0 = sinusoidalWavelength(p, 0), lLast = sinusoidalWavelength(p, last);
  const std::map<std::string, std::string> fields = {{"lambda_first", formatFixed(l0, 3)},
                                                     {"last", formatInt(last)},
                                                     {"omega_last", formatGeneral(wLast, 3)},
                                                     {"lambda_last", formatFixed(lLast, 1)}};
  StepResult s;
  s.numbers = {{"omega_0 (rad/position)", w0}, {"omega_3 (rad/position)", wLast}, {"omega_0 / omega_3", w0 / wLast}};
  s.fields = fields;
  s.view.title = "pairs 0..3 at pos 3";
  s.view.hands = pairHands(p, 3, last + 1);

  StepResult t;
  t.numbers = {{"lambda_0", l0}, {"lambda_3", lLast}, {"lambda_0 / lambda_3", l0 / lLast}};
  t.fields = fields;
  t.view = wavelengthPlot(p, 0, "wavelength grows with i (d_model = 8)");
  return {s, t};
}

// ---- sinusoidal-offset-rotation ----

namespace {

// max |M_k block of pair i - [[cos wk, sin wk], [-sin wk, cos wk]]| over the pairs.
double offsetBlockDifference(const SinusoidalParams& p, const std::vector<double>& m, int k) {
  const int d = p.dModel;
  double diff = 0.0;
  for (int i = 0; i < d / 2; ++i) {
    const double wk = sinusoidalFrequency(p, i) * k;
    const double want[2][2] = {{std::cos(wk), std::sin(wk)}, {-std::sin(wk), std::cos(wk)}};
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 2; ++c)
        diff = std::max(diff, std::fabs(m[static_cast<std::size_t>((2 * i + r) * d + 2 * i + c)] - want[r][c]));
  }
  return diff;
}

// max over pos = 0..99 of |M_k PE(pos) - PE(pos + k)|.
double offsetShiftDifference(const SinusoidalParams& p, const std::vector<double>& m, int k) {
  const int d = p.dModel;
  double worst = 0.0;
  for (int pos = 0; pos < 100; ++pos) {
    const std::vector<double> a = sinusoidalVector(p, pos), b = sinusoidalVector(p, pos + k);
    for (int r = 0; r < d; ++r) {
      double acc = 0.0;
      for (int c = 0; c < d; ++c) acc += m[static_cast<std::size_t>(r * d + c)] * a[c];
      worst = std::max(worst, std::fabs(acc - b[r]));
    }
  }
  return worst;
}

}  // namespace

std::vector<StepResult> sinusoidalOffsetSteps() {
  const SinusoidalParams p = sinParams(8);
  const int k = 3, d = p.dModel;
  const std::vector<double> m = sinusoidalOffsetMatrix(p, k);

  StepResult s;
  s.numbers = {{"k", k}, {"max |M_k block - document block|", offsetBlockDifference(p, m, k)}};
  Grid mg(d, d);
  for (int r = 0; r < d; ++r)
    for (int c = 0; c < d; ++c) mg.at(r, c) = static_cast<float>(m[static_cast<std::size_t>(r * d + c)]);
  s.view.title = "M_3, d_model = 8 (block diagonal)";
  s.view.grid = std::move(mg);
  s.view.rowTitle = "dim";
  s.view.colTitle = "dim";
  s.view.valueName = "M_k";
  s.view.symmetricRange = true;
  s.view.highlightRow = 2;
  s.view.highlightCol = 2;

  StepResult t;
  t.numbers = {{"max |M_3 PE(pos) - PE(pos+3)|", offsetShiftDifference(p, m, k)}};
  t.view = sinusoidalHeatmap(8, 16, 3, -1, "PE rows 0..15: row pos+3 is M_3 times row pos");
  return {s, t};
}

}  // namespace posviz
