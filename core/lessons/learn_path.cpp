// learn_path.cpp: the chapters and steps of the Learn path (format: core/lessons/learn.hpp).
// Every sentence here is posviz's own; the articles are cited by title and section, and their
// claims are quoted only as far as a verdict needs. Every number a figure shows is computed here
// by core from the step's control values.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "core/alibi.hpp"
#include "core/angle.hpp"
#include "core/attention.hpp"
#include "core/axial_rope.hpp"
#include "core/comparison.hpp"
#include "core/context_extension.hpp"
#include "core/extrapolation.hpp"
#include "core/learned.hpp"
#include "core/lessons/articles.hpp"
#include "core/lessons/claims.hpp"
#include "core/lessons/document_code.hpp"
#include "core/lessons/learn.hpp"
#include "core/mrope.hpp"
#include "core/nope.hpp"
#include "core/order.hpp"
#include "core/relative_bias.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"
#include "core/xpos.hpp"

namespace posviz::learn {

namespace {

// ---------------------------------------------------------------------------------------------
// Articles, by the titles they give themselves (core/lessons/articles.hpp).
const char* const kTeaching = findArticle("teaching")->title;
const char* const kDive = findArticle("section-8-5")->title;
const char* const kInterview = findArticle("interview")->title;

constexpr double kPi = std::numbers::pi;

std::string fx(double v, int decimals) { return formatFixed(v, decimals); }
std::string gn(double v, int significant = 4) { return formatGeneral(v, significant); }
std::string in(double v) { return formatInt(static_cast<long long>(std::llround(v))); }

Control intC(const char* key, const char* label, const char* help, double lo, double hi, double def) {
  return {key, label, help, ControlKind::Int, lo, hi, def, false};
}
Control realC(const char* key, const char* label, const char* help, double lo, double hi, double def) {
  return {key, label, help, ControlKind::Real, lo, hi, def, false};
}
Control switchC(const char* key, const char* label, const char* help) {
  return {key, label, help, ControlKind::Switch, 0.0, 1.0, 0.0, false};
}
Control extraC(const char* key, const char* label, double def) {
  return {key, label, "", ControlKind::Real, -2.0, 2.0, def, true};
}

int iv(std::span<const double> v, std::size_t i) { return static_cast<int>(std::llround(v[i])); }
bool on(std::span<const double> v, std::size_t i) { return v[i] >= 0.5; }

int evenDModel(double v) { return std::max(2, static_cast<int>(std::llround(v)) / 2 * 2); }

// ---------------------------------------------------------------------------------------------
// Chapter 1: why order matters

const std::vector<std::string> kDogBitesMan = {"dog", "bites", "man"};
const std::vector<int> kReverse = {2, 1, 0};  // "man bites dog"

CellGrid weightsGrid(const Grid& w, const std::vector<std::string>& tokens, std::string title) {
  CellGrid g;
  g.grid = w;
  g.title = std::move(title);
  g.rowLabels = tokens;
  g.colLabels = tokens;
  g.rowTitle = "query";
  g.colTitle = "key";
  g.decimals = 3;
  return g;
}

Figure figOrderShuffle(std::span<const double> v) {
  const bool withPe = on(v, 0);
  const ToyModel m{8, 0, false};
  const OrderComparison c = compareOrder(m, kDogBitesMan, kReverse, withPe ? PositionEncoding::Sinusoidal : PositionEncoding::None);
  Figure f;
  f.grids.push_back(weightsGrid(c.original.weights, c.tokens, "\"dog bites man\": attention weights"));
  f.grids.push_back(weightsGrid(c.permuted.weights, c.shuffled, "\"man bites dog\": attention weights"));
  f.grids.back().highlightRow = 0;
  f.grids.back().highlightCol = 2;
  f.grids.front().highlightRow = 2;
  f.grids.front().highlightCol = 0;
  f.readout.push_back("weight of \"man\" on \"dog\": " + fx(c.original.weights.at(2, 0), 6) + " in the first sentence, " +
                      fx(c.permuted.weights.at(0, 2), 6) + " in the second");
  f.readout.push_back("largest difference between the second sentence's weights and the first's, reordered: " + gn(c.maxWeightDifference, 3));
  f.readout.push_back(withPe ? "with positions added the two sentences get different numbers: order is visible"
                             : "without positions every number reappears, only moved: order is invisible");
  return f;
}

Figure figOrderWhere(std::span<const double> v) {
  ComparisonParams p;
  p.dModel = evenDModel(v[0]);
  p.numHeads = 1;
  p.trainedLength = iv(v, 1);
  p.targetLength = p.trainedLength * 2;
  const Comparison c = computeComparison(p);
  TextTable t;
  t.title = "where each scheme puts position (d_model " + in(p.dModel) + ", trained length L0 " + in(static_cast<double>(p.trainedLength)) + ")";
  t.header = {"scheme", "enters at", "learned numbers for position", "scores depend on m - n only?"};
  for (const SchemeColumn& col : c.columns) {
    t.rows.push_back({schemeTitle(col.scheme), appliedAtName(col.appliedAt), formatInt(col.parameters),
                      std::isnan(col.relative.maxError) ? "-" : col.relative.relative() ? "yes" : "no"});
  }
  Figure f;
  f.table = t;
  f.readout.push_back("a learned table holds L0 x d_model = " + formatInt(c.column(Scheme::Learned).parameters) + " numbers; the others hold none");
  return f;
}

// ---------------------------------------------------------------------------------------------
// Chapter 2: sinusoidal

SinusoidalParams sinParams(int dModel, double base = 10000.0) {
  SinusoidalParams p;
  p.dModel = dModel;
  p.base = base;
  return p;
}

Figure figSinClocks(std::span<const double> v) {
  const int pos = iv(v, 0);
  const SinusoidalParams p = sinParams(evenDModel(v[1]));
  Figure f;
  for (int i = 0; i < p.dModel / 2; ++i) {
    const double w = sinusoidalFrequency(p, i);
    Dial d;
    d.label = "pair " + std::to_string(i) + " (dims " + std::to_string(2 * i) + ", " + std::to_string(2 * i + 1) + "): " + gn(w, 3) + " rad per position";
    d.hands.push_back({"pos " + std::to_string(pos), wrapAngle(w * pos), 1.0});
    f.dials.push_back(d);
  }
  const std::vector<double> pe = sinusoidalVector(p, pos);
  std::string row = "PE(" + std::to_string(pos) + ") = [";
  for (std::size_t i = 0; i < pe.size() && i < 16; ++i) row += (i ? ", " : "") + fx(pe[i], 4);
  f.readout.push_back(row + (pe.size() > 16 ? ", ...]" : "]"));
  f.readout.push_back("pair 0 turns " + gn(sinusoidalFrequency(p, 0), 4) + " rad per position; pair " + std::to_string(p.dModel / 2 - 1) +
                      " turns " + gn(sinusoidalFrequency(p, p.dModel / 2 - 1), 4));
  return f;
}

std::string sinOrderValue() {
  const SinusoidalParams p = sinParams(8);
  return "pair 0 turns " + gn(sinusoidalFrequency(p, 0), 3) + " rad per position (wavelength " + gn(sinusoidalWavelength(p, 0), 4) +
         "), pair 3 turns " + gn(sinusoidalFrequency(p, 3), 3) + " (wavelength " + gn(sinusoidalWavelength(p, 3), 4) + ")";
}

Figure figSinWavelengths(std::span<const double> v) {
  const SinusoidalParams p = sinParams(evenDModel(v[0]), v[1]);
  const int pair = std::min(iv(v, 2), p.dModel / 2 - 1);
  Lines l;
  l.title = "wavelength of each pair, d_model " + std::to_string(p.dModel) + ", base " + gn(p.base, 6);
  l.xTitle = "pair i (dims 2i, 2i+1)";
  l.yTitle = "wavelength (positions)";
  l.logY = true;
  MiniSeries s{"wavelength 2 pi base^(2i/d_model)", {}, {}};
  for (int i = 0; i < p.dModel / 2; ++i) {
    s.x.push_back(i);
    s.y.push_back(sinusoidalWavelength(p, i));
  }
  l.series.push_back(s);
  l.markerX = pair;
  l.markerLabel = "pair " + std::to_string(pair);
  Figure f;
  f.lines = l;
  f.readout.push_back("pair " + std::to_string(pair) + " = dims " + std::to_string(2 * pair) + ", " + std::to_string(2 * pair + 1) +
                      ": wavelength " + gn(sinusoidalWavelength(p, pair), 6) + " positions");
  f.readout.push_back("shortest " + gn(sinusoidalWavelength(p, 0), 6) + " (pair 0), longest " +
                      gn(sinusoidalWavelength(p, p.dModel / 2 - 1), 6) + " (pair " + std::to_string(p.dModel / 2 - 1) + "); never beyond 2 pi x base = " +
                      gn(2 * kPi * p.base, 6));
  return f;
}

std::string sinTableValue() {
  const SinusoidalParams p = sinParams(512);
  return gn(sinusoidalWavelength(p, 64), 4) + " for dims 128, 129 (pair 64) and " + gn(sinusoidalWavelength(p, 127), 4) +
         " for dims 254, 255 (pair 127); ~630 is pair 128 (dims 256, 257) at " + gn(sinusoidalWavelength(p, 128), 4);
}
double sinPair64Wavelength() { return sinusoidalWavelength(sinParams(512), 64); }

Figure figSinPos3(std::span<const double> v) {
  const int pos = iv(v, 0);
  const SinusoidalParams p = sinParams(8);
  CellGrid g;
  g.grid = sinusoidalGrid(p, 8);
  g.title = "PE(pos, dim), d_model 8";
  g.rowTitle = "pos";
  g.colTitle = "dim";
  g.colLabels = {"0 sin", "1 cos", "2 sin", "3 cos", "4 sin", "5 cos", "6 sin", "7 cos"};
  g.symmetric = true;
  g.decimals = 3;
  g.highlightRow = pos;
  Figure f;
  f.grids.push_back(g);
  const std::vector<double> pe = sinusoidalVector(p, pos);
  std::string row = "PE(" + std::to_string(pos) + ") = [";
  for (std::size_t i = 0; i < pe.size(); ++i) row += (i ? ", " : "") + fx(pe[i], 9);
  f.readout.push_back(row + "]");
  f.readout.push_back("angles: " + std::to_string(pos) + "/1, " + std::to_string(pos) + "/10, " + std::to_string(pos) + "/100, " +
                      std::to_string(pos) + "/1000 rad (10000^(2i/8) = 1, 10, 100, 1000)");
  return f;
}
double sinPos3Dim2() { return sinusoidalValue(sinParams(8), 3.0, 2); }

Figure figSinOffset(std::span<const double> v) {
  const int k = iv(v, 1), pair = iv(v, 2);
  const int pos = std::max(iv(v, 0), -k);  // both positions stay >= 0
  const SinusoidalParams p = sinParams(8);
  const double w = sinusoidalFrequency(p, pair);
  const std::vector<double> pe = sinusoidalVector(p, pos), peK = sinusoidalVector(p, pos + k);
  const std::vector<double> mk = sinusoidalOffsetMatrix(p, k);
  Plane pl;
  pl.arrows.push_back({"PE(" + std::to_string(pos) + ")", pe[2 * pair + 1], pe[2 * pair], 0});
  pl.arrows.push_back({"PE(" + std::to_string(pos + k) + ") = M_k PE(" + std::to_string(pos) + ")", peK[2 * pair + 1], peK[2 * pair], 1});
  pl.arcFrom = 0;
  pl.arcTo = 1;
  pl.arcLabel = "k theta_i = " + gn(k * w, 4) + " rad";
  Figure f;
  f.plane = pl;
  const double c = mk[static_cast<std::size_t>(2 * pair) * 8 + 2 * pair], s = mk[static_cast<std::size_t>(2 * pair) * 8 + 2 * pair + 1];
  f.readout.push_back("pair " + std::to_string(pair) + " block of M_" + std::to_string(k) + ": [[" + fx(c, 4) + ", " + fx(s, 4) + "], [" + fx(-s, 4) + ", " +
                      fx(c, 4) + "]]  (no pos in it)");
  f.readout.push_back("largest |M_k PE(pos) - PE(pos + k)| over the 8 dims: " + gn(sinusoidalOffsetResidual(mk, pe, peK), 2) + " (rounding)");
  f.readout.push_back("the x axis is the cos dim, the y axis the sin dim");
  return f;
}

// The four terms of (x + p) W_q . (x' + p') W_k for two toy tokens.
std::vector<double> rowTimes(std::span<const float> x, const Grid& w) {
  std::vector<double> out(static_cast<std::size_t>(w.cols), 0.0);
  for (int r = 0; r < w.rows; ++r)
    for (int c = 0; c < w.cols; ++c) out[static_cast<std::size_t>(c)] += static_cast<double>(x[static_cast<std::size_t>(r)]) * w.at(r, c);
  return out;
}
double dot(std::span<const double> a, std::span<const double> b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) s += a[i] * b[i];
  return s;
}

Figure figSinAddition(std::span<const double> v) {
  const int a = iv(v, 0), b = iv(v, 1);
  const ToyModel m{8, 0, false};
  const Grid wq = toyProjection(m, ToyMatrix::Query), wk = toyProjection(m, ToyMatrix::Key);
  const std::vector<float> x = toyEmbedding(m, "dog"), y = toyEmbedding(m, "man");
  const SinusoidalParams p = sinParams(8, toyConstants().sinusoidalBase);
  std::vector<float> pa, pb;
  for (double e : sinusoidalVector(p, a)) pa.push_back(static_cast<float>(e));
  for (double e : sinusoidalVector(p, b)) pb.push_back(static_cast<float>(e));
  const std::vector<double> qx = rowTimes(x, wq), qp = rowTimes(pa, wq), ky = rowTimes(y, wk), kp = rowTimes(pb, wk);
  Bars bars;
  bars.title = "score of \"dog\" at " + std::to_string(a) + " on \"man\" at " + std::to_string(b) + ", split into four terms";
  bars.yTitle = "contribution";
  bars.labels = {"content . content", "content . position", "position . content", "position . position"};
  bars.values = {dot(qx, ky), dot(qx, kp), dot(qp, ky), dot(qp, kp)};
  Figure f;
  f.bars = bars;
  const double sum = bars.values[0] + bars.values[1] + bars.values[2] + bars.values[3];
  std::vector<double> q(qx.size()), k(ky.size());
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = qx[i] + qp[i];
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = ky[i] + kp[i];
  f.readout.push_back("the four terms add to " + fx(sum, 6) + "; the score computed in one go: " + fx(dot(q, k), 6));
  f.readout.push_back("only the first term is free of position; the middle two mix a word with a position");
  return f;
}

// ---------------------------------------------------------------------------------------------
// Chapter 3: learned tables

Figure figLearned(std::span<const double> v) {
  const int rows = iv(v, 0);
  const bool past = on(v, 2);
  const int pos = past ? iv(v, 1) : std::min(iv(v, 1), rows - 1);
  const Grid table = learnedInit(rows, 8, 0);
  const int shown = std::max(rows, pos + 1);
  CellGrid g;
  g.grid = Grid(shown, 8);
  for (int r = 0; r < shown; ++r)
    for (int c = 0; c < 8; ++c) g.grid.at(r, c) = r < rows ? table.at(r, c) : std::nanf("");
  g.title = "a learned table with " + std::to_string(rows) + " rows (as initialised: N(0, 0.02^2))";
  g.rowTitle = "pos";
  g.colTitle = "dim";
  g.symmetric = true;
  g.decimals = 3;
  g.highlightRow = pos;
  if (shown > rows) {
    g.noDataRowsFrom = rows;
    g.noDataLabel = "no row";
  }
  Figure f;
  f.grids.push_back(g);
  if (pos < rows) {
    f.readout.push_back("position " + std::to_string(pos) + " reads row " + std::to_string(pos) + ": |row| = " + fx(learnedRowNorm(table, pos), 4));
  } else {
    f.readout.push_back("position " + std::to_string(pos) + " has no row: the table stops at row " + std::to_string(rows - 1) +
                        ". PyTorch's lookup raises an index error here; there is nothing to return.");
  }
  f.readout.push_back("the table holds " + std::to_string(rows) + " x 8 = " + std::to_string(rows * 8) + " numbers, all of them learned");
  return f;
}
double learnedLastRow() { return 511.0; }

// ---------------------------------------------------------------------------------------------
// Chapter 4: RoPE

RopeParams ropeParams(int headDim, double base = 10000.0, RopeLayout layout = RopeLayout::Interleaved) {
  RopeParams p;
  p.headDim = headDim;
  p.base = base;
  p.layout = layout;
  return p;
}

// A fixed query and key for head_dim d (drawn once from a simple closed form, so they are the same
// on every machine): q_c = cos(1.3 c + 0.4), k_c = sin(0.7 c + 1.1).
std::vector<float> fixedQuery(int d) {
  std::vector<float> q(static_cast<std::size_t>(d));
  for (int c = 0; c < d; ++c) q[static_cast<std::size_t>(c)] = static_cast<float>(std::cos(1.3 * c + 0.4));
  return q;
}
std::vector<float> fixedKey(int d) {
  std::vector<float> k(static_cast<std::size_t>(d));
  for (int c = 0; c < d; ++c) k[static_cast<std::size_t>(c)] = static_cast<float>(std::sin(0.7 * c + 1.1));
  return k;
}

Figure figRopeRotate(std::span<const double> v) {
  const int m = iv(v, 0), pair = iv(v, 1);
  const RopeParams p = ropeParams(8);
  const double theta = ropeFrequencies(p).invFreq[static_cast<std::size_t>(pair)];
  const double q0 = 0.9, q1 = 0.35;
  const double a = m * theta;
  const double r0 = q0 * std::cos(a) - q1 * std::sin(a), r1 = q0 * std::sin(a) + q1 * std::cos(a);
  Plane pl;
  pl.arrows.push_back({"q (position 0)", q0, q1, 3});
  pl.arrows.push_back({"q rotated to m = " + std::to_string(m), r0, r1, 0});
  pl.arcFrom = 0;
  pl.arcTo = 1;
  pl.arcLabel = "m theta_" + std::to_string(pair) + " = " + gn(a, 4) + " rad";
  Figure f;
  f.plane = pl;
  f.readout.push_back("head_dim 8, pair " + std::to_string(pair) + ": theta = 10000^(-" + std::to_string(2 * pair) + "/8) = " + gn(theta, 6) + " rad per position");
  f.readout.push_back("|q| = " + fx(std::hypot(q0, q1), 6) + " before, " + fx(std::hypot(r0, r1), 6) + " after: a rotation keeps length");
  return f;
}

Figure figRopeRelative(std::span<const double> v) {
  const int m = iv(v, 0), n = iv(v, 1);
  const RopeParams p = ropeParams(8);
  const std::vector<float> q = fixedQuery(8), k = fixedKey(8);
  CellGrid g;
  g.grid = ropeScoreGrid(p, q, k, 10);
  g.title = "score s(m, n) = R_m q . R_n k, head_dim 8";
  g.rowTitle = "m (query)";
  g.colTitle = "n (key)";
  g.symmetric = true;
  g.decimals = 2;
  g.highlightRow = m;
  g.highlightCol = n;
  Figure f;
  f.grids.push_back(g);
  f.readout.push_back("s(" + std::to_string(m) + ", " + std::to_string(n) + ") = " + fx(ropeScore(p, q, k, m, n), 6) + "; m - n = " + std::to_string(m - n));
  if (m - n >= 0)
    f.readout.push_back("s(" + std::to_string(m - n) + ", 0) = " + fx(ropeScore(p, q, k, m - n, 0), 6) + " and s(" + std::to_string(m - n + 100) + ", 100) = " +
                        fx(ropeScore(p, q, k, m - n + 100, 100), 6));
  else
    f.readout.push_back("s(0, " + std::to_string(n - m) + ") = " + fx(ropeScore(p, q, k, 0, n - m), 6) + " and s(100, " + std::to_string(n - m + 100) + ") = " +
                        fx(ropeScore(p, q, k, 100, n - m + 100), 6));
  return f;
}

struct TwoD {
  double qm0, qm1, kn0, kn1, score;
};
TwoD rope2d(double m, double n, double theta, double q0, double q1, double k0, double k1) {
  const double a = m * theta, b = n * theta;
  TwoD r{};
  r.qm0 = std::cos(a) * q0 - std::sin(a) * q1;
  r.qm1 = std::sin(a) * q0 + std::cos(a) * q1;
  r.kn0 = std::cos(b) * k0 - std::sin(b) * k1;
  r.kn1 = std::sin(b) * k0 + std::cos(b) * k1;
  r.score = r.qm0 * r.kn0 + r.qm1 * r.kn1;
  return r;
}

Figure figRope2d(std::span<const double> v) {
  const int m = iv(v, 0), n = iv(v, 1);
  const double theta = v[2];
  const double q0 = v[3], q1 = v[4], k0 = v[5], k1 = v[6];
  const TwoD r = rope2d(m, n, theta, q0, q1, k0, k1);
  Plane pl;
  pl.arrows.push_back({"q raw", q0, q1, 3});
  pl.arrows.push_back({"k raw", k0, k1, 3});
  pl.arrows.push_back({"q at m = " + std::to_string(m), r.qm0, r.qm1, 0});
  pl.arrows.push_back({"k at n = " + std::to_string(n), r.kn0, r.kn1, 1});
  pl.arcFrom = 2;
  pl.arcTo = 3;
  double between = wrapAngle(std::atan2(r.kn1, r.kn0) - std::atan2(r.qm1, r.qm0));
  if (between > kPi) between -= 2 * kPi;  // signed, in (-pi, pi]
  pl.arcLabel = "angle " + gn(between, 4) + " rad, cos = " + fx(std::cos(between), 4);
  Figure f;
  f.plane = pl;
  f.readout.push_back("R(" + std::to_string(m) + ") = [[" + fx(std::cos(m * theta), 6) + ", " + fx(-std::sin(m * theta), 6) + "], [" +
                      fx(std::sin(m * theta), 6) + ", " + fx(std::cos(m * theta), 6) + "]]");
  f.readout.push_back("q^(" + std::to_string(m) + ") = (" + fx(r.qm0, 6) + ", " + fx(r.qm1, 6) + ")   k^(" + std::to_string(n) + ") = (" + fx(r.kn0, 6) +
                      ", " + fx(r.kn1, 6) + ")");
  f.readout.push_back("q^(m) . k^(n) = " + fx(r.qm0, 4) + " x " + fx(r.kn0, 4) + " + " + fx(r.qm1, 4) + " x " + fx(r.kn1, 4) + " = " + fx(r.score, 6));
  const TwoD shifted = rope2d(m + 7, n + 7, theta, q0, q1, k0, k1);
  f.readout.push_back("move both 7 places on: q^(" + std::to_string(m + 7) + ") . k^(" + std::to_string(n + 7) + ") = " + fx(shifted.score, 6) + " (the same)");
  return f;
}
std::string rope2dValue() { return fx(rope2d(5, 2, 1.0, 1, 0, 0, 1).score, 4) + " = sin(3)"; }
double rope2dAnswer() { return rope2d(5, 2, 1.0, 1, 0, 0, 1).score; }

std::string listingValue() {
  std::vector<double> q;
  for (float e : fixedQuery(8)) q.push_back(e);
  const std::vector<double> code = doc004RotaryPe(q, 5.0);   // the interview guide's listing, transcribed
  const std::vector<double> right = ropeRotate(ropeParams(8), q, 5.0);
  double worst = 0.0;
  for (std::size_t i = 0; i < q.size(); ++i) worst = std::max(worst, std::abs(code[i] - right[i]));
  double n0 = 0.0, n1 = 0.0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    n0 += q[i] * q[i];
    n1 += code[i] * code[i];
  }
  return "up to " + fx(worst, 3) + " per dim at m = 5 (head_dim 8), and |q| changes from " + fx(std::sqrt(n0), 3) + " to " + fx(std::sqrt(n1), 3);
}

Figure figRopeLayouts(std::span<const double> v) {
  const int d = evenDModel(v[0]);
  const bool wrong = on(v, 1);
  CellGrid g;
  g.grid = Grid(2, d);
  const RopeParams half = ropeParams(d, 10000.0, RopeLayout::HalfSplit), inter = ropeParams(d, 10000.0, RopeLayout::Interleaved);
  for (int i = 0; i < d / 2; ++i) {
    const DimPair a = ropePairDims(half, i), b = ropePairDims(inter, i);
    g.grid.at(0, a.a) = static_cast<float>(i);
    g.grid.at(0, a.b) = static_cast<float>(i);
    g.grid.at(1, b.a) = static_cast<float>(i);
    g.grid.at(1, b.b) = static_cast<float>(i);
  }
  g.title = "which pair each dim belongs to";
  g.rowLabels = {"half-split", "interleaved"};
  g.colTitle = "dim";
  g.decimals = 0;
  // Scores by offset: the checkpoint's (half-split) and the same weights run interleaved.
  const std::vector<float> q = fixedQuery(d), k = fixedKey(d);
  const std::vector<int> perm = ropeLayoutPermutation(d);
  std::vector<float> qi(q.size()), ki(k.size());
  for (std::size_t j = 0; j < q.size(); ++j) {
    qi[j] = wrong ? q[j] : q[static_cast<std::size_t>(perm[j])];
    ki[j] = wrong ? k[j] : k[static_cast<std::size_t>(perm[j])];
  }
  Lines l;
  l.title = "score against distance m - n (query at 40)";
  l.xTitle = "m - n";
  l.yTitle = "score";
  MiniSeries trained{"as trained (half-split)", {}, {}}, loaded{wrong ? "loaded as interleaved, no permutation" : "loaded as interleaved, permuted", {}, {}};
  double worst = 0.0;
  for (int r = 0; r <= 40; ++r) {
    const double s0 = ropeScore(half, q, k, 40, 40 - r), s1 = ropeScore(inter, qi, ki, 40, 40 - r);
    trained.x.push_back(r);
    trained.y.push_back(s0);
    loaded.x.push_back(r);
    loaded.y.push_back(s1);
    worst = std::max(worst, std::abs(s0 - s1));
  }
  l.series = {trained, loaded};
  Figure f;
  f.grids.push_back(g);
  f.lines = l;
  f.readout.push_back("largest score difference over distances 0..40: " + gn(worst, 3));
  return f;
}

Figure figRopeCache(std::span<const double> v) {
  const int cached = iv(v, 0);
  const bool forget = on(v, 1);
  const double theta = 0.4;
  const double qPos = forget ? 0.0 : cached;  // the new token really sits at position `cached`
  const int keyPos = std::max(0, cached - 3);
  const TwoD full = rope2d(cached, keyPos, theta, 0.9, 0.3, 0.6, -0.7);
  const TwoD step = rope2d(qPos, keyPos, theta, 0.9, 0.3, 0.6, -0.7);
  Plane pl;
  pl.arrows.push_back({"cached key at " + std::to_string(keyPos), step.kn0, step.kn1, 1});
  pl.arrows.push_back({std::string("new query rotated to ") + (forget ? "0 (offset forgotten)" : std::to_string(cached)), step.qm0, step.qm1, 0});
  pl.arcFrom = 1;
  pl.arcTo = 0;
  pl.arcLabel = "angle " + gn(std::abs(wrapAngle(std::atan2(step.qm1, step.qm0) - std::atan2(step.kn1, step.kn0))), 3) + " rad";
  Figure f;
  f.plane = pl;
  f.readout.push_back("score the full pass computes: " + fx(full.score, 6));
  f.readout.push_back("score this decoding step computes: " + fx(step.score, 6) + (std::abs(full.score - step.score) < 1e-12 ? " (the same)" : " (wrong)"));
  f.readout.push_back("theta = 0.4 rad per position, one pair");
  return f;
}

Figure figRopeValues(std::span<const double> v) {
  const int shift = iv(v, 0);
  const bool rotateV = on(v, 1);
  const double theta = 0.5;
  // Two tokens at shift and shift + 1; the second queries both.
  const double q0 = 0.8, q1 = 0.4;
  const double k[2][2] = {{0.5, 0.9}, {0.9, -0.2}};
  const double val[2][2] = {{1.0, 0.0}, {0.0, 1.0}};
  double score[2], w[2], out[2] = {0, 0}, out0[2] = {0, 0};
  for (int s = 0; s < 2; ++s) score[s] = rope2d(shift + 1, shift + s, theta, q0, q1, k[s][0], k[s][1]).score;
  const double mx = std::max(score[0], score[1]);
  const double e0 = std::exp(score[0] - mx), e1 = std::exp(score[1] - mx);
  w[0] = e0 / (e0 + e1);
  w[1] = e1 / (e0 + e1);
  auto vecAt = [&](int s, int pos, double* o) {
    const double a = rotateV ? pos * theta : 0.0;
    o[0] = std::cos(a) * val[s][0] - std::sin(a) * val[s][1];
    o[1] = std::sin(a) * val[s][0] + std::cos(a) * val[s][1];
  };
  for (int s = 0; s < 2; ++s) {
    double o[2], o0[2];
    vecAt(s, shift + s, o);
    vecAt(s, s, o0);
    out[0] += w[s] * o[0];
    out[1] += w[s] * o[1];
    out0[0] += w[s] * o0[0];
    out0[1] += w[s] * o0[1];
  }
  Plane pl;
  pl.arrows.push_back({"output with the pair at 0, 1", out0[0], out0[1], 3});
  pl.arrows.push_back({"output with the pair at " + std::to_string(shift) + ", " + std::to_string(shift + 1), out[0], out[1], 2});
  pl.arcFrom = 0;
  pl.arcTo = 1;
  pl.arcLabel = "turned " + gn(std::abs(wrapAngle(std::atan2(out[1], out[0]) - std::atan2(out0[1], out0[0]))), 3) + " rad";
  Figure f;
  f.plane = pl;
  f.readout.push_back("attention weights: " + fx(w[0], 6) + ", " + fx(w[1], 6) + " at every shift (they see only the distance 1)");
  f.readout.push_back("output: (" + fx(out[0], 4) + ", " + fx(out[1], 4) + ")" + (rotateV ? ": it turns as the pair moves" : ": the same wherever the pair sits"));
  return f;
}

// ---------------------------------------------------------------------------------------------
// Chapter 5: ALiBi

Figure figAlibiBias(std::span<const double> v) {
  const int t = iv(v, 0);
  const double slope = v[1];
  const bool causal = on(v, 2);
  CellGrid g;
  g.grid = alibiBiasGrid(slope, t, causal);
  g.title = std::string("bias -m |i - j|, m = ") + gn(slope, 4) + (causal ? ", causal (later keys masked)" : "");
  g.rowTitle = "query i";
  g.colTitle = "key j";
  g.symmetric = false;
  g.decimals = 2;
  g.highlightRow = 0;
  g.highlightCol = t - 1;
  Figure f;
  f.grids.push_back(g);
  f.readout.push_back("row 0, key " + std::to_string(t - 1) + ": " + (causal ? std::string("masked (a causal query sees no later key)")
                                                                           : fx(alibiBias(slope, 0, t - 1, false), 4)));
  f.readout.push_back("each step of distance costs " + gn(slope, 4) + " before the softmax: weight falls by a factor e^-" + gn(slope, 4) + " = " + fx(std::exp(-slope), 4));
  return f;
}
double alibiCorner() { return alibiBias(0.5, 0, 3, false); }

Figure figAlibiSlopes(std::span<const double> v) {
  const int h = iv(v, 0);
  const std::vector<double> paper = alibiSlopes(h);
  Lines l;
  l.title = "slope of each head, " + std::to_string(h) + " heads";
  l.xTitle = "head h";
  l.yTitle = "slope m_h";
  l.logY = true;
  MiniSeries ref{"Press et al.'s code", {}, {}}, rule{"the rule 2^(-8h/H)", {}, {}};
  for (int i = 1; i <= h; ++i) {
    ref.x.push_back(i);
    ref.y.push_back(paper[static_cast<std::size_t>(i - 1)]);
    rule.x.push_back(i);
  }
  rule.y = doc001AlibiSlopes(h);
  l.series = {ref, rule};
  Figure f;
  f.lines = l;
  double worst = 0.0;
  for (std::size_t i = 0; i < paper.size(); ++i) worst = std::max(worst, std::abs(paper[i] - rule.y[i]));
  std::string s = "slopes:";
  for (std::size_t i = 0; i < paper.size() && i < 8; ++i) s += " " + gn(paper[i], 4);
  f.readout.push_back(s + (paper.size() > 8 ? " ..." : ""));
  f.readout.push_back(worst < 1e-15 ? "the rule and the paper's code agree for " + std::to_string(h) + " heads"
                                    : "the rule differs from the paper's code by up to " + gn(worst, 3) + " (" + std::to_string(h) + " is not a power of two)");
  return f;
}
double alibiHead3Of8() { return alibiSlopes(8)[2]; }
double piAngleTwinOf16383() { return 16383.0 / 4.0; }
double ropeRelativeTwin() {
  const std::vector<float> q = fixedQuery(8), k = fixedKey(8);
  return ropeScore(ropeParams(8), q, k, 3, 0);
}

std::string alibi12Value() { return gn(alibiSlopes(12)[0], 4) + " for head 1 of 12 where the rule gives " + gn(doc001AlibiSlopes(12)[0], 4); }

// ---------------------------------------------------------------------------------------------
// Chapter 6: beyond the trained length

ExtrapolationSetup smallSetup(int l0) {
  ExtrapolationSetup s;
  s.model = ToyModel{64, 0, false};
  s.trainedLength = l0;
  return s;
}

Figure figBeyondTable(std::span<const double> v) {
  const int times = iv(v, 0);
  const int l0 = 64;
  const ExtrapolationSetup setup = smallSetup(l0);
  TextTable t;
  t.title = "the interview guide's extrapolation table, and the toy sentence at L = " + std::to_string(times) + " x L0 (L0 = 64)";
  t.header = {"scheme", "the article's words", "position numbers learned", "at L: attention entropy / ln L"};
  struct Row {
    ExtrapolationEncoding e;
    const char* words;
    const char* params;
  };
  const Row rows[] = {{ExtrapolationEncoding::Sinusoidal, "mixed in practice; not a panacea", "none"},
                      {ExtrapolationEncoding::Learned, "poor without retraining or interpolation", "L0 x d"},
                      {ExtrapolationEncoding::Rope, "good; further improved by scaling", "none"},
                      {ExtrapolationEncoding::Alibi, "strong linear bias inductive prior", "none"}};
  Bars b;
  b.title = "attention entropy / ln L of the last query at L = " + std::to_string(times) + " x L0 (the learned table has none)";
  for (const Row& r : rows) {
    const ExtrapolationRun run = runExtrapolation(setup, r.e, times * l0);
    t.rows.push_back({extrapolationEncodingTitle(r.e), r.words, r.params, run.error.empty() ? fx(run.entropyRatio, 3) : "no number: no row past L0"});
    if (run.error.empty()) {
      b.labels.push_back(extrapolationEncodingTitle(r.e));
      b.values.push_back(run.entropyRatio);
    }
  }
  Figure f;
  f.table = t;
  f.bars = b;
  f.readout.push_back("entropy / ln L is 1 when attention is spread evenly over every key, 0 when it rests on one");
  return f;
}

Figure figBeyondUnseen(std::span<const double> v) {
  const int times = iv(v, 0);
  const int d = evenDModel(v[1]);
  const int l0 = 4096;
  const RopeFrequencies fr = computeRopeFrequencies(d, 10000.0, RopeScaling{});
  const std::vector<double> share = unseenAngleShares(fr.invFreq, fr.invFreq, l0, l0 * times);
  Bars b;
  b.title = "share of positions 0..L-1 whose angle the model never saw, L = " + std::to_string(times) + " x 4096";
  b.yTitle = "unseen share";
  for (std::size_t i = 0; i < share.size(); ++i) {
    b.labels.push_back(std::to_string(i));
    b.values.push_back(share[i]);
  }
  Figure f;
  f.bars = b;
  int fresh = 0;
  for (double s : share) fresh += s > 0.0 ? 1 : 0;
  f.readout.push_back(std::to_string(fresh) + " of " + std::to_string(share.size()) + " pairs meet angles past what training showed them");
  f.readout.push_back("the fast pairs (left) wrapped round many times in training: every angle is familiar");
  f.readout.push_back("angles count mod 2 pi: a pair that wraps round past L0 returns to angles it has seen, so the share ramps up "
                      "to (L - L0) / L, reached only by the pairs that do not finish a circle within L");
  return f;
}

RopeScaling scalingFor(ScalingMethod m, double factor) {
  RopeScaling s;
  s.method = m;
  s.factor = factor;
  s.originalMaxPositions = 4096;
  return s;
}

double yarnFactor8() { return computeRopeFrequencies(64, 10000.0, scalingFor(ScalingMethod::Yarn, 8.0)).attentionFactor; }

Lines ratioLines(int d, const std::vector<std::pair<std::string, RopeFrequencies>>& runs, const std::string& title) {
  Lines l;
  l.title = title;
  l.xTitle = "pair i (fast to slow)";
  l.yTitle = "theta_i after / before";
  l.logY = true;
  for (const auto& [name, fr] : runs) {
    MiniSeries s{name, {}, {}};
    for (int i = 0; i < d / 2; ++i) {
      s.x.push_back(i);
      s.y.push_back(fr.invFreq[static_cast<std::size_t>(i)] / fr.baseInvFreq[static_cast<std::size_t>(i)]);
    }
    l.series.push_back(s);
  }
  return l;
}

Figure figBeyondPi(std::span<const double> v) {
  const double s = v[0];
  const int d = 64;
  const RopeFrequencies pi = computeRopeFrequencies(d, 10000.0, scalingFor(ScalingMethod::Linear, s));
  Figure f;
  f.lines = ratioLines(d, {{"position interpolation", pi}}, "how much each pair slows down, factor " + gn(s, 3));
  f.readout.push_back("every pair turns " + gn(s, 3) + " times slower: position " + in(4096 * s - 1) + " now has the angles position " +
                      gn((4096 * s - 1) / s, 6) + " had");
  f.readout.push_back("neighbours are now 1/" + gn(s, 3) + " of a step apart in every pair, the fastest included");
  return f;
}

Figure figBeyondNtk(std::span<const double> v) {
  const double s = v[0];
  const int d = 64;
  const RopeFrequencies pi = computeRopeFrequencies(d, 10000.0, scalingFor(ScalingMethod::Linear, s));
  const RopeFrequencies ntk = computeRopeFrequencies(d, 10000.0, scalingFor(ScalingMethod::NtkAware, s));
  Figure f;
  f.lines = ratioLines(d, {{"position interpolation", pi}, {"NTK-aware", ntk}}, "how much each pair slows down, factor " + gn(s, 3));
  f.readout.push_back("NTK-aware raises the base from 10000 to " + gn(ntkAwareBase(10000.0, d, s), 6) + " = 10000 x " + gn(s, 3) + "^(" +
                      std::to_string(d) + "/" + std::to_string(d - 2) + ")");
  f.readout.push_back("pair 0 keeps its speed (x" + fx(ntk.invFreq[0] / ntk.baseInvFreq[0], 3) + "); the slowest pair slows by 1/" +
                      gn(ntk.baseInvFreq.back() / ntk.invFreq.back(), 4));
  return f;
}

Figure figBeyondYarn(std::span<const double> v) {
  const double s = v[0];
  const bool noRamp = on(v, 1), noFactor = on(v, 2);
  const int d = 64;
  const RopeFrequencies yarn = computeRopeFrequencies(d, 10000.0, scalingFor(ScalingMethod::Yarn, s));
  const RopeFrequencies pi = computeRopeFrequencies(d, 10000.0, scalingFor(ScalingMethod::Linear, s));
  Figure f;
  f.lines = ratioLines(d, {{noRamp ? "YaRN without its ramp (= interpolation everywhere)" : "YaRN", noRamp ? pi : yarn}},
                       "how much each pair slows down, factor " + gn(s, 3));
  int kept = 0, blended = 0, interp = 0;
  for (PairRegime r : yarn.regime) (r == PairRegime::Kept ? kept : r == PairRegime::Blended ? blended : interp) += 1;
  if (noRamp)
    f.readout.push_back("without the ramp every pair is interpolated: the fast pairs lose the local detail they were trained on");
  else
    f.readout.push_back(std::to_string(kept) + " fast pairs kept, " + std::to_string(blended) + " blended, " + std::to_string(interp) + " slow pairs interpolated");
  const double factor = noFactor ? 1.0 : yarn.attentionFactor;
  f.readout.push_back("attention factor on cos and sin: " + fx(factor, 4) + (noFactor ? " (switched off)" : " = 0.1 ln s + 1") +
                      "; scores grow by its square, " + fx(factor * factor, 4));
  return f;
}


// Published models: their trained length, how far they are stretched and by what, and how many
// RoPE pairs would meet angles training never showed at the published length, without and with
// the model's own scaling.
Figure figBeyondModels(std::span<const double>, const Inputs& in) {
  TextTable t;
  t.title = "published configs: trained length L0, published length L, and positions at angles never seen in training";
  t.header = {"model", "positions", "L0 -> L", "base", "scaling", "at new angles: plain / scaled"};
  int stretched = 0, repaired = 0;
  for (const PublishedModel& m : in.models) {
    if (!m.rope) {
      t.rows.push_back({m.name, m.scheme, m.maxPositions > 0 ? formatInt(m.maxPositions) : "-", "-", "-", "-"});
      continue;
    }
    const RopeScaling& sc = m.params.scaling;
    const bool scaled = sc.method != ScalingMethod::None;
    const long long l0 = scaled ? sc.originalMaxPositions : m.maxPositions;
    const long long l = m.maxPositions > 0 ? m.maxPositions : l0;
    std::string counts = "-";
    if (scaled && l > l0 && l0 > 0) {
      RopeParams plain = m.params;
      plain.scaling = RopeScaling{};
      const RopeFrequencies base = ropeFrequencies(plain);
      RopeParams run = m.params;
      run.scaling.seqLen = l;   // dynamic and LongRoPE choose their frequencies by the length
      const RopeFrequencies with = ropeFrequencies(run);
      // The worst pair: the share of positions 0..L-1 at angles it never turned through in training.
      const auto worst = [&](const std::vector<double>& f) {
        double w = 0.0;
        for (double share : unseenAngleShares(base.invFreq, f, static_cast<int>(l0), static_cast<int>(l))) w = std::max(w, share);
        return w;
      };
      const double a = worst(base.invFreq), b = worst(with.invFreq);
      counts = fx(100.0 * a, 1) + " % / " + fx(100.0 * b, 1) + " %";
      ++stretched;
      repaired += b < a ? 1 : 0;
    }
    t.rows.push_back({m.name, m.scheme, formatInt(l0) + (l != l0 ? " -> " + formatInt(l) : ""), gn(m.params.base, 6),
                      scaled ? std::string(scalingName(sc.method)) + " x" + gn(sc.factor, 4) : "none", counts});
  }
  Figure f;
  f.table = t;
  f.readout.push_back(std::to_string(in.models.size()) + " published configs; " + std::to_string(stretched) + " are stretched past their trained length, and " +
                      std::to_string(repaired) + " of those put fewer positions at new angles with their scaling than without it");
  return f;
}

// ---------------------------------------------------------------------------------------------
// Chapter 7: choosing

Figure figChooseTable(std::span<const double> v) {
  ComparisonParams p;
  p.dModel = 512;
  p.numHeads = 8;
  p.trainedLength = iv(v, 0);
  p.targetLength = static_cast<long long>(iv(v, 1)) * p.trainedLength;
  const Comparison c = computeComparison(p);
  TextTable t;
  t.title = "computed for d_model 512, 8 heads, L0 = " + formatInt(p.trainedLength) + ", run at L = " + formatInt(p.targetLength);
  t.header = {"scheme", "enters at", "learned numbers", "relative?", "at position L - 1"};
  for (const SchemeColumn& col : c.columns) {
    std::string at;
    if (!col.atTarget.defined)
      at = "no row: fails";
    else if (col.atTarget.numPairs > 0)
      at = std::to_string(col.atTarget.unseenPairs) + " of " + std::to_string(col.atTarget.numPairs) + " pairs at unseen angles";
    else if (!col.atTarget.bias.empty())
      at = "bias down to " + gn(col.atTarget.bias.front(), 4) + " (trained: " + gn(col.atTarget.trainedBias.front(), 4) + ")";
    else
      at = "defined";
    t.rows.push_back({schemeTitle(col.scheme), appliedAtName(col.appliedAt), formatInt(col.parameters),
                      std::isnan(col.relative.maxError) ? "-" : col.relative.relative() ? "yes" : "no", at});
  }
  Figure f;
  f.table = t;
  f.readout.push_back("\"relative?\": whether the scores stay the same when both positions move by the same amount");
  return f;
}

Figure figChooseChart(std::span<const double>) {
  TextTable t;
  t.title = "the decision chart, as questions";
  t.header = {"you are building", "the chart says", "why it fits"};
  t.rows = {{"a decoder-only LLM", "RoPE", "relative scores, no table to outgrow, KV-cache friendly"},
            {"a short, fixed-length encoder (BERT-like)", "learned table", "the length never grows, so the ceiling never bites"},
            {"a model that must run longer than trained, rich positions", "RoPE + NTK-aware scaling", "the slow pairs stretch, the fast ones keep detail"},
            {"a model that must run longer than trained, recency is enough", "ALiBi", "a linear penalty has no unseen values"},
            {"something to learn from", "sinusoidal", "every number has a formula you can check by hand"}};
  Figure f;
  f.table = t;
  f.readout.push_back("the chart omits YaRN and Llama 3.1's scaling, which most long-context RoPE models ship today");
  return f;
}

// ---------------------------------------------------------------------------------------------
// Chapter 8: beyond the documents

Figure figMoreT5(std::span<const double> v) {
  T5BucketParams p;
  p.numBuckets = iv(v, 0);
  p.maxDistance = iv(v, 1);
  p.bidirectional = !on(v, 2);
  CellGrid g;
  g.grid = t5BucketGrid(p, 16);
  g.title = "T5 bucket of each (query, key) pair";
  g.rowTitle = "query i";
  g.colTitle = "key j";
  g.decimals = 0;
  g.highlightRow = 0;
  g.highlightCol = 15;
  Figure f;
  f.grids.push_back(g);
  f.readout.push_back("distance 15 falls in bucket " + std::to_string(t5RelativePositionBucket(p, 15)) + "; distance 1000 in bucket " +
                      std::to_string(t5RelativePositionBucket(p, 1000)));
  f.readout.push_back("each bucket has one learned number per head, added to the scores like ALiBi's bias");
  return f;
}

Figure figMoreXpos(std::span<const double> v) {
  XposParams p;
  p.headDim = 32;
  p.scaleBase = v[0];
  std::vector<double> q(32, 1.0), k(32, 1.0);
  const std::vector<double> x = xposScoreByOffset(p, q, k, 256);
  const RopeParams rp = ropeParams(32);
  const std::vector<float> qf(32, 1.0f), kf(32, 1.0f);
  Lines l;
  l.title = "score of q = k = (1, ..., 1) against distance, head_dim 32";
  l.xTitle = "distance n - m";
  l.yTitle = "score";
  MiniSeries rope{"RoPE", {}, {}}, xpos{"xPos", {}, {}};
  for (int r = 0; r <= 256; ++r) {
    rope.x.push_back(r);
    rope.y.push_back(ropeScore(rp, qf, kf, r, 0));
    xpos.x.push_back(r);
    xpos.y.push_back(x[static_cast<std::size_t>(r)]);
  }
  l.series = {rope, xpos};
  Figure f;
  f.lines = l;
  f.readout.push_back("at distance 256: RoPE " + fx(rope.y.back(), 3) + ", xPos " + fx(xpos.y.back(), 3));
  return f;
}

Figure figMoreNope(std::span<const double> v) {
  const bool causal = on(v, 0);
  const NopeCounting c = nopeCounting(ToyModel{8, 0, true}, {"the", "cat", "sat", "on", "the", "mat", "and", "slept"});
  Lines l;
  l.title = "position read back from the weight on the first token";
  l.xTitle = "true position t";
  l.yTitle = "1 / weight - 1";
  MiniSeries truth{"true position", {}, {}}, read{causal ? "causal head" : "no mask", {}, {}};
  const std::vector<double>& rec = causal ? c.recoveredPosition : c.bidirectionalRecovered;
  for (std::size_t t = 0; t < rec.size(); ++t) {
    truth.x.push_back(static_cast<double>(t));
    truth.y.push_back(static_cast<double>(t));
    read.x.push_back(static_cast<double>(t));
    read.y.push_back(rec[t]);
  }
  l.series = {truth, read};
  Figure f;
  f.lines = l;
  f.readout.push_back(causal ? "with the mask, query t sees t + 1 tokens and gives the first 1/(t + 1): its position, recovered exactly"
                             : "without the mask every query sees all " + std::to_string(rec.size()) + " tokens: the same weight, no position");
  return f;
}

Figure figMoreAxial(std::span<const double> v) {
  const int dr = iv(v, 0), dc = iv(v, 1);
  AxialRopeParams p;
  p.headDim = 16;
  const std::vector<float> q = fixedQuery(16), k = fixedKey(16);
  const int side = 4;   // offsets -3 .. 3 on each axis: a 4 x 4 image
  CellGrid g;
  g.grid = axialRopeOffsetScores(p, q, k, side, side);
  g.title = "score of two patches of a 4 x 4 image against their offset, head_dim 16";
  g.rowTitle = "row offset";
  g.colTitle = "column offset";
  for (int i = -(side - 1); i <= side - 1; ++i) {
    g.rowLabels.push_back(std::to_string(i));
    g.colLabels.push_back(std::to_string(i));
  }
  g.symmetric = true;
  g.decimals = 2;
  g.highlightRow = dr + side - 1;
  g.highlightCol = dc + side - 1;
  Figure f;
  f.grids.push_back(g);
  f.readout.push_back("query patch " + std::to_string(dr) + " rows and " + std::to_string(dc) + " columns from the key: score " +
                      fx(axialRopeScore(p, q, k, dr, dc), 6));
  f.readout.push_back("the same offset anywhere in the image gives the same score: (row 0, col 0) vs (row " + std::to_string(std::abs(dr)) +
                      ", col " + std::to_string(std::abs(dc)) + ") or any pair as far apart");
  return f;
}

Figure figMoreMrope(std::span<const double> v) {
  const int h = iv(v, 0), w = iv(v, 1);
  const std::vector<MropeSegment> segs = {mropeText(3), mropeImage(1, h, w), mropeText(2)};
  const MropePositions ids = mropePositionIds(segs);
  const int n = static_cast<int>(ids.t.size());
  CellGrid g;
  g.grid = Grid(3, n);
  for (int i = 0; i < n; ++i) {
    g.grid.at(0, i) = static_cast<float>(ids.t[static_cast<std::size_t>(i)]);
    g.grid.at(1, i) = static_cast<float>(ids.h[static_cast<std::size_t>(i)]);
    g.grid.at(2, i) = static_cast<float>(ids.w[static_cast<std::size_t>(i)]);
  }
  g.title = "position ids of 3 text tokens, a " + std::to_string(h) + " x " + std::to_string(w) + " image, 2 text tokens";
  g.rowLabels = {"t", "h", "w"};
  g.colTitle = "token";
  for (int i = 0; i < n; ++i) g.colLabels.push_back(i < 3 ? "txt" : i < 3 + h * w ? "img" : "txt");
  g.decimals = 0;
  g.highlightRow = 1;
  Figure f;
  f.grids.push_back(g);
  f.readout.push_back("text tokens carry the same id on all three axes; image patches share one t and count rows (h) and columns (w)");
  f.readout.push_back("the text after the image resumes at " + std::to_string(ids.t[static_cast<std::size_t>(3 + h * w)]) + ", one past the largest id so far");
  return f;
}

// ---------------------------------------------------------------------------------------------

// One function per step, in reading order.

Step orderShuffleStep() {
  Step s;
  s.id = "order-shuffle";
  s.title = "Shuffle the words, shuffle the answer";
  s.why = "A token's query, key and value are computed from that token alone. Move a token and its three vectors move with it, unchanged; "
          "every score between two tokens is the same number as before, just in a different row and column. So attention can only "
          "reorder its answer when the input is reordered: it is equivariant, and \"dog bites man\" and \"man bites dog\" look alike to it.";
  s.notice = "Without positions the two grids hold the same nine numbers: the weight of \"man\" on \"dog\" is identical in both sentences.";
  s.tryThis = "Switch positions on: the weights now differ, because each word carries its place.";
  s.controls = {switchC("positions", "add sinusoidal positions", "adds PE(pos) to each word's vector before attention")};
  s.claim = ArticleClaim{kTeaching, "The Position Problem", "Attention(pi(X)) = pi(Attention(X))", Severity::Holds,
                         "In the toy model the largest difference is at rounding level.", nullptr};
  s.openTab = "word-order";
  s.example = "shuffled-sentence-permutation";
  s.figure = figOrderShuffle;
  return s;
}

Step orderWhereStep() {
  Step s;
  s.id = "order-where";
  s.title = "Three places to put position";
  s.why = "A fix has to break the symmetry somewhere. Sinusoidal and learned encodings add a vector to each token before the first layer, "
          "so position travels in the token itself. RoPE leaves the tokens alone and turns each query and key by an angle set by its "
          "position. ALiBi touches neither and subtracts a distance penalty from the scores.";
  s.notice = "Only the learned table costs numbers that must be trained, and the count grows with the trained length.";
  s.tryThis = "Raise L0 and watch the learned table's count grow while the others stay at zero.";
  s.controls = {intC("d_model", "d_model", "width of each token vector", 8, 1024, 512),
                intC("l0", "trained length L0", "positions seen in training", 16, 8192, 2048)};
  s.claim = ArticleClaim{kInterview, "Deep Dive: Where to Apply RoPE Versus Additive PE", "RoPE acts on Q and K, not on V", Severity::Holds,
                         "RoPE rotates queries and keys after their projections; values are left as they are (chapter 4 shows why).", nullptr};
  s.openTab = "where-position-enters";
  s.figure = figOrderWhere;
  return s;
}

Step sinClocksStep() {
  Step s;
  s.id = "sin-clocks";
  s.title = "A row of clock hands";
  s.why = "Each pair of dimensions (2i, 2i + 1) holds sin and cos of one angle, pos x theta_i, so the pair is a hand on a dial. The speeds "
          "theta_i = 10000^(-2i/d_model) fall geometrically: pair 0 turns a full radian per position, the last pair barely moves. Fast hands tell "
          "neighbours apart; slow hands tell the start of a long text from its end. Together they give every position its own pattern.";
  s.notice = "Press play: the first dial spins, the last one creeps. The fastest hand is pair 0, not the last pair.";
  s.tryThis = "Set d_model to 16 and find the position where pair 0 has made one full turn (about 6.3).";
  s.controls = {intC("pos", "position", "the token's index in the sequence", 0, 200, 3),
                intC("d_model", "d_model", "number of dimensions (pairs = d_model / 2)", 2, 16, 8)};
  s.playControl = 0;
  s.claim = ArticleClaim{kInterview, "Sinusoidal Positional Encoding, In Plain English (and interview question 2)",
                         "low i uses a slow angular progression ... higher i uses faster oscillations", Severity::WrongConcept,
                         "The article has the order reversed. The correct order at d_model 8: {value}. The speed is 1/10000^(2i/d_model), which "
                         "shrinks as i grows, so low i is the fast hand.",
                         sinOrderValue};
  s.openTab = "sinusoidal";
  s.openWith = {{"pos", "pos"}, {"d_model", "d_model"}};
  s.example = "sinusoidal-frequency-order";
  s.figure = figSinClocks;
  return s;
}

Step sinWavelengthsStep() {
  Step s;
  s.id = "sin-wavelengths";
  s.title = "Wavelengths from a few positions to tens of thousands";
  s.why = "A hand's wavelength is the number of positions it needs for one turn: 2 pi / theta_i = 2 pi x base^(2i/d_model). Because the "
          "exponent grows in even steps, the wavelengths form a geometric ladder from 2 pi up to nearly 2 pi x base. The base decides how "
          "far the ladder reaches.";
  s.notice = "On a log scale the ladder is a straight line: each pair's wavelength is the previous one times the same factor.";
  s.tryThis = "Predict the wavelength of dims 128 and 129 at d_model 512, then set the pair slider to 64 to check.";
  s.controls = {intC("d_model", "d_model", "number of dimensions", 8, 1024, 512), realC("base", "base", "the 10000 in the formula", 100, 1000000, 10000),
                intC("pair", "pair i", "which pair to read (dims 2i and 2i + 1)", 0, 511, 64)};
  s.claim = ArticleClaim{kTeaching, "The Frequency Intuition (the wavelength table for d_model = 512)",
                         "dimension pair 128, 129: ~630; 254, 255: ~62,800", Severity::WrongNumber,
                         "The article's rows do not match their labels. The correct wavelengths are {value}. The table mixes up dimension "
                         "numbers and pair numbers, and its last value is the ceiling 2 pi x 10000 that no pair reaches.",
                         sinTableValue};
  s.predict = Prediction{"Wavelength of dims 128 and 129 at d_model 512, in positions?", 1, sinPair64Wavelength,
                         "Dims 128, 129 are pair 64, so the exponent is 128/512 = 1/4: 2 pi x 10000^(1/4) = 2 pi x 10."};
  s.openTab = "sinusoidal";
  s.openWith = {{"d_model", "d_model"}, {"base", "base"}, {"pair", "pair"}};
  s.example = "sinusoidal-wavelengths-d512";
  s.figure = figSinWavelengths;
  return s;
}

Step sinPos3Step() {
  Step s;
  s.id = "sin-pos3";
  s.title = "Position 3 at d_model 8, number by number";
  s.why = "With d_model 8 there are four pairs with divisors 1, 10, 100 and 1000. Position 3 therefore has the angles 3, 0.3, 0.03 and "
          "0.003 radians, and its eight numbers are their sines and cosines. Small angles give sin close to the angle and cos close to 1, "
          "which is why the right half of the grid is nearly constant.";
  s.notice = "Row 3 is highlighted: 0.141, -0.990, 0.296, 0.955, ... Down each column the fast left pair changes a lot, the slow right pair hardly.";
  s.tryThis = "Move the position slider and see which columns change visibly from one row to the next.";
  s.controls = {intC("pos", "position", "the row to read", 0, 7, 3)};
  s.claim = ArticleClaim{kInterview, "Worked Example: Sinusoidal PE at Position 3 with d_model = 8",
                         "[0.141120008, -0.989992497, 0.295520207, 0.955336489, ...]", Severity::Holds,
                         "All eight values agree with the computed ones to the nine decimals printed.", nullptr};
  s.predict = Prediction{"PE(3, 2) = sin(3 / 10) = ?", 3, sinPos3Dim2, "Pair 1 divides by 10000^(2/8) = 10, so the angle is 0.3 rad."};
  s.openTab = "sinusoidal";
  s.openWith = {{"pos", "pos"}, {"d_model", "=8"}};
  s.example = "sinusoidal-pos3-d8";
  s.figure = figSinPos3;
  return s;
}

Step sinOffsetStep() {
  Step s;
  s.id = "sin-offset";
  s.title = "An offset is a rotation: M_k";
  s.why = "The angle-addition rules say sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b - sin a sin b. Put a = pos x theta_i "
          "and b = k x theta_i: the pair at pos + k is the pair at pos turned by k x theta_i. The turn depends on k only, so one fixed matrix M_k "
          "carries every position k steps on. A layer can learn \"look k tokens back\" once and use it everywhere.";
  s.notice = "Play moves pos: both arrows turn together and the arc between them never changes.";
  s.tryThis = "Change k and pair: the arc is k x theta_i, large for pair 0, tiny for pair 3.";
  s.controls = {intC("pos", "position", "where the first arrow is", 0, 100, 2), intC("k", "offset k", "how far the second arrow is ahead", -10, 10, 3),
                intC("pair", "pair i", "which pair of d_model 8 to draw", 0, 3, 0)};
  s.playControl = 0;
  s.claim = ArticleClaim{kTeaching, "Why Sin/Cos Pairs?", "PE(pos + k) can be written as a linear transformation of PE(pos)", Severity::Holds,
                         "M_k, built from k alone, carries PE(pos) to PE(pos + k) for every pos, up to rounding.", nullptr};
  s.openTab = "sinusoidal";
  s.openWith = {{"pos", "pos"}, {"k", "k"}, {"pair", "pair"}, {"d_model", "=8"}};
  s.example = "sinusoidal-offset-rotation";
  s.figure = figSinOffset;
  return s;
}

Step sinAddStep() {
  Step s;
  s.id = "sin-add";
  s.title = "Adding, not concatenating";
  s.why = "Added to a word vector x, the position p goes through the same projection: (x + p) W_q = x W_q + p W_q. A score between two "
          "tokens therefore splits into four dot products: word with word, word with position (twice) and position with position. The "
          "middle two are where content and position interfere; concatenating would keep the vectors apart but double their width.";
  s.notice = "Move the two positions: the content-content bar never moves, the other three do.";
  s.tryThis = "Put both tokens at the same distance in different places (1 and 3, then 5 and 7) and compare the position-position bar.";
  s.controls = {intC("a", "position of \"dog\"", "the query token's position", 0, 15, 1), intC("b", "position of \"man\"", "the key token's position", 0, 15, 3)};
  s.claim = ArticleClaim{kDive, "8.5.3 Why Addition Instead of Concatenation?", "q_i = (x_i + p_i) W_Q = x_i W_Q + p_i W_Q", Severity::Holds,
                         "The four terms add up to the score exactly.", nullptr};
  s.openTab = "where-position-enters";
  s.figure = figSinAddition;
  return s;
}

Step learnedCeilingStep() {
  Step s;
  s.id = "learned-ceiling";
  s.title = "One row per position, and a last row";
  s.why = "A learned encoding is a table with L0 rows, one per position seen in training. Row pos is simply looked up and added to the "
          "token. Nothing relates row 7 to row 8: each is its own set of trained numbers. That gives freedom, and a hard end: a position "
          "past the last row has no vector at all. The numbers here are random because the table is shown as it starts; training is what "
          "later makes neighbouring rows alike.";
  s.notice = "Switch on reading past the table and move the position beyond the last row: there is no row to highlight.";
  s.tryThis = "Set 8 rows and position 12: the lookup has nothing to return, so a model must fail, crop, or be retrained.";
  s.controls = {intC("rows", "rows (L0)", "positions the table was trained for", 2, 16, 8), intC("pos", "position", "the position looked up", 0, 31, 3),
                switchC("past", "read past the table", "lets the position go beyond the last row, as a longer input would")};
  s.claim = ArticleClaim{kTeaching, "When Learned Beats Sinusoidal",
                         "If you train with T_max = 512 and try to process a 1,024-token sequence, you crash.", Severity::Holds,
                         "An embedding table has rows 0..511 only, and PyTorch raises an index error for row 512 and on.", nullptr};
  s.predict = Prediction{"A table trained with L0 = 512 rows: the last position it can look up?", 0, learnedLastRow,
                         "Rows are numbered from 0, so 512 rows end at 511."};
  s.openTab = "learned";
  s.openWith = {{"max_len", "rows"}, {"lookup_pos", "pos"}, {"d_model", "=8"}};
  s.example = "learned-ceiling-512";
  s.figure = figLearned;
  return s;
}

Step ropeRotateStep() {
  Step s;
  s.id = "rope-rotate";
  s.title = "Each pair turns by m x theta_i";
  s.why = "RoPE splits a query of head_dim numbers into pairs and turns pair i by m x theta_i, where m is the token's position and "
          "theta_i = 10000^(-2i/head_dim), the same ladder of speeds as the sinusoidal clocks. Nothing is added: the vector keeps its "
          "length and only its direction carries the position.";
  s.notice = "Press play: the arrow turns at a steady rate and its length never changes.";
  s.tryThis = "Pick pair 3 and play: the same positions barely move it. Slow pairs are the long-range part of the code.";
  s.controls = {intC("m", "position m", "the query's position", 0, 100, 5), intC("pair", "pair i", "which pair of head_dim 8", 0, 3, 0)};
  s.playControl = 0;
  s.claim = ArticleClaim{kTeaching, "Rotary Position Embeddings (RoPE), The Core Idea", "RoPE applies a rotation by angle m theta", Severity::Holds,
                         "The pair is turned by exactly m x theta_i and its length is kept.", nullptr};
  s.openTab = "rope";
  s.openWith = {{"m", "m"}, {"head_dim", "=8"}};
  s.figure = figRopeRotate;
  return s;
}

Step ropeRelativeStep() {
  Step s;
  s.id = "rope-relative";
  s.title = "Only the distance reaches the score";
  s.why = "Turning q by m x theta and k by n x theta and then taking their dot product is the same as turning k by (n - m) x theta against "
          "a still q: rotations compose by adding angles, and a dot product only sees the angle between two arrows. So the score "
          "depends on m - n and on the contents, never on where the pair sits.";
  s.notice = "Every diagonal of the grid holds one repeated number: s(5, 2) = s(6, 3) = s(7, 4).";
  s.tryThis = "Move m and n together by the same amount: the highlighted value does not change.";
  s.controls = {intC("m", "query position m", "row of the grid", 0, 9, 5), intC("n", "key position n", "column of the grid", 0, 9, 2)};
  s.claim = ArticleClaim{kTeaching, "The Core Idea", "q^T R(m)^T R(n) k = q^T R(n - m) k", Severity::Holds,
                         "The grid's diagonals agree to rounding, 100 positions on as well.", nullptr};
  s.predict = Prediction{"s(8, 5) is the same number as s(3, 0). What is it?", 3, ropeRelativeTwin,
                         "Both pairs are 3 apart; read s(3, 0) off the grid to check."};
  s.openTab = "rope";
  s.openWith = {{"m", "m"}, {"n", "n"}, {"head_dim", "=8"}};
  s.figure = figRopeRelative;
  return s;
}

Step rope2dStep() {
  Step s;
  s.id = "rope-2d";
  s.title = "The two-dimensional example: m = 5, n = 2";
  s.why = "With one pair and theta = 1 rad, q = (1, 0) turned to m = 5 and k = (0, 1) turned to n = 2 end up at angles 5 and 2 + pi/2. "
          "Their dot product is the cosine of the angle between them, cos(pi/2 - 3) = sin 3. A dot product of two 2-vectors has two "
          "products to add; dropping one gives a very different number.";
  s.notice = "The arc between q and k is set by m - n: play m and n together and it stays.";
  s.tryThis = "Type your own q and k below: the score is |q| |k| cos(angle between them after turning).";
  s.controls = {intC("m", "query position m", "where q is turned to", 0, 20, 5), intC("n", "key position n", "where k is turned to", 0, 20, 2),
                realC("theta", "theta (rad per position)", "the pair's speed", 0.05, 3.14, 1.0),
                extraC("q0", "q x", 1.0), extraC("q1", "q y", 0.0), extraC("k0", "k x", 0.0), extraC("k1", "k y", 1.0)};
  s.playControl = 0;
  s.claim = ArticleClaim{kInterview, "Worked Example: RoPE in Two Dimensions with Position 5",
                         "q^(5) . k^(2) ~ -0.2579", Severity::WrongNumber,
                         "The article says -0.2579; the correct value is {value}, because the article kept only the first product, "
                         "0.2837 x (-0.9093), and dropped the second, (-0.9589) x (-0.4161) = +0.3990. Its rotated vectors are right.",
                         rope2dValue};
  s.predict = Prediction{"q^(5) . k^(2) with theta = 1, q = (1, 0), k = (0, 1)?", 3, rope2dAnswer,
                         "Both vectors turn; the angle between them is pi/2 - 3, and cos(pi/2 - 3) = sin 3."};
  s.openTab = "rope";
  s.openWith = {{"m", "m"}, {"n", "n"}, {"head_dim", "=2"}};
  s.example = "rope-2d-m5-n2";
  s.figure = figRope2d;
  return s;
}

Step ropeLayoutsStep() {
  Step s;
  s.id = "rope-layouts";
  s.title = "Which dims form a pair";
  s.why = "RoPE needs to know which two dimensions make a pair. RoFormer and Meta's LLaMA pair neighbours (2i, 2i + 1); GPT-NeoX and the "
          "Hugging Face LLaMA pair dim i with dim i + head_dim/2 (\"rotate_half\"). Both are correct, but weights trained one way must be "
          "permuted before they run the other way, or every pair mixes two unrelated numbers.";
  s.notice = "With the permutation the two curves lie on each other; without it the scores are different numbers.";
  s.tryThis = "Switch on the mistake and watch the second curve leave the first.";
  s.controls = {intC("head_dim", "head_dim", "dimensions per head", 4, 16, 8),
                switchC("wrong", "load half-split weights as interleaved, no permutation", "the classic checkpoint-conversion mistake")};
  s.claim = ArticleClaim{kInterview, "Code (class RotaryPE)", "cos.repeat(1, 1, 1, 2) with interleaved pairs", Severity::WrongConcept,
                         "The listing mixes the two layouts: repeat() lays the angles out half-split, while its swap pairs neighbours, so "
                         "dims 2i and 2i + 1 get different angles and the 2 x 2 blocks are no longer rotations: the result is off by {value}. "
                         "repeat_interleave(2, dim=-1) is what interleaved pairs need.",
                         listingValue};
  s.openTab = "rope";
  s.openWith = {{"head_dim", "head_dim"}};
  s.example = "rope-repeat-interleaved-code";
  s.figure = figRopeLayouts;
  return s;
}

Step ropeCacheStep() {
  Step s;
  s.id = "rope-cache";
  s.title = "Generating one token at a time: the offset";
  s.why = "When a model generates, the keys of earlier tokens are kept in a cache, already turned to their positions. A new token must be "
          "turned to its true position, the cache length, not to 0: the offset. Then its score with each cached key is the one the full "
          "pass would have computed.";
  s.notice = "With the offset the two scores match; forget it and the new query sits at the wrong angle.";
  s.tryThis = "Switch on the mistake, then change the cache length: the error grows with it.";
  s.controls = {intC("cached", "tokens already cached", "the new token's true position", 1, 40, 6),
                switchC("forget", "forget the offset", "turn the new token as if it were at position 0")};
  s.claim = ArticleClaim{kTeaching, "RoPE and KV-Cache", "Cached K values are already rotated - no re-rotation needed", Severity::Holds,
                         "Provided each new token is turned with offset = the number of cached tokens.", nullptr};
  s.openTab = "rope";
  s.figure = figRopeCache;
  return s;
}

Step ropeNotVStep() {
  Step s;
  s.id = "rope-not-v";
  s.title = "Queries and keys, not values";
  s.why = "Scores decide who attends to whom; values are what gets mixed. RoPE turns q and k so that the scores see distance. Turning the "
          "values as well would leave the weights alone but make the mixed output depend on where the tokens sit, so the same phrase "
          "would produce a different output at every place in a text.";
  s.notice = "Play the shift: with values left alone the output arrow stays put.";
  s.tryThis = "Switch on \"rotate V too\" and play again: the output now turns with the absolute position.";
  s.controls = {intC("shift", "where the pair sits", "both tokens moved this far", 0, 60, 0),
                switchC("rotate_v", "rotate V too", "the mistake: values turned like keys")};
  s.playControl = 0;
  s.claim = ArticleClaim{kInterview, "Interview question 7", "rotating V would not change the softmax weights", Severity::Holds,
                         "The weights do not change. What does change is the output, which would then carry absolute position.", nullptr};
  s.openTab = "where-position-enters";
  s.openWith = {{"rotate_values", "rotate_v"}};
  s.figure = figRopeValues;
  return s;
}

Step alibi4Step() {
  Step s;
  s.id = "alibi-4";
  s.title = "The four-token bias";
  s.why = "Before the softmax, ALiBi subtracts m x |i - j| from the score of query i on key j. A penalty of m per step of distance "
          "divides the weight by e^m per step, so a head with a steep slope looks only at its neighbours. The bias uses no learned "
          "numbers and exists for any length.";
  s.notice = "The diagonal is 0 and each step away costs m: with m = 0.5 the corner is -1.5.";
  s.tryThis = "Make it causal: the upper triangle is masked, and only the past is penalised.";
  s.controls = {intC("t", "tokens", "sequence length", 2, 16, 4), realC("m", "slope m", "penalty per step of distance", 0.0625, 1.0, 0.5),
                switchC("causal", "causal", "mask later keys, as a decoder does")};
  s.claim = ArticleClaim{kInterview, "Worked Example: ALiBi Bias Matrix for Four Tokens", "B = [[0, -0.5, -1.0, -1.5], ...]", Severity::Holds,
                         "Every entry agrees.", nullptr};
  s.predict = Prediction{"B[0][3] for 4 tokens with m = 0.5?", 2, alibiCorner, "Distance 3 times the slope 0.5, subtracted."};
  s.openTab = "alibi";
  s.openWith = {{"positions", "t"}, {"causal", "causal"}};
  s.example = "alibi-4tokens-m0.5";
  s.figure = figAlibiBias;
  return s;
}

Step alibiSlopesStep() {
  Step s;
  s.id = "alibi-slopes";
  s.title = "One slope per head";
  s.why = "Each head gets its own slope, spaced geometrically, so some heads are sharply local and others look far back. For a power-of-two "
          "head count H the slopes are 2^(-8h/H); for other counts the paper's code takes the slopes of the next lower power of two and "
          "fills in every other slope of the next higher one.";
  s.notice = "At 8 heads the two curves coincide; at 12 they part.";
  s.tryThis = "Try 12 heads and compare head 1.";
  s.controls = {intC("heads", "heads H", "number of attention heads", 1, 32, 8)};
  s.claim = ArticleClaim{kTeaching, "ALiBi: Attention with Linear Biases", "m_h = 1/2^(8h/H) for head h = 1, ..., H", Severity::WrongNumber,
                         "Right for 8 heads (the article's example) but not as a general rule: the paper's code gives {value}.", alibi12Value};
  s.predict = Prediction{"The slope of head 3 of 8?", 4, alibiHead3Of8, "2^(-8 x 3 / 8) = 2^-3: each head halves the one before."};
  s.openTab = "alibi";
  s.openWith = {{"heads", "heads"}};
  s.example = "alibi-slopes-8heads";
  s.figure = figAlibiSlopes;
  return s;
}

Step beyondTableStep() {
  Step s;
  s.id = "beyond-table";
  s.title = "The extrapolation table, measured";
  s.why = "The articles rank the schemes by how they behave past the trained length. The toy sentence run past L0 shows what that means: "
          "a learned table has no numbers there, and the others keep working with attention that spreads or stays focused.";
  s.notice = "The learned row has no number: there is nothing to compute past L0.";
  s.tryThis = "Set L to 1 x L0: every scheme works. Then go to 8 x.";
  s.controls = {intC("times", "L / L0", "how far past the trained length", 1, 8, 4)};
  s.claim = ArticleClaim{kInterview, "Extrapolation Comparison", "Learned absolute: poor without retraining or interpolation", Severity::Holds,
                         "More strongly than \"poor\": with no row there is no output at all.", nullptr};
  s.openTab = "extrapolation";
  s.openWith = {{"trained_length", "=64"}};
  s.figure = figBeyondTable;
  return s;
}

Step beyondUnseenStep() {
  Step s;
  s.id = "beyond-unseen";
  s.title = "Angles the model never saw";
  s.why = "During training a RoPE pair only ever turns through (L0 - 1) x theta_i. Fast pairs go round many times, so every angle is "
          "familiar. Slow pairs turn less than once, and past L0 they reach angles that were never seen. A pair that finishes its "
          "circle before L comes back round to angles it knows, so only the stretch of the circle it never swept is new. That is "
          "where a RoPE model breaks down, and what the scaling methods repair.";
  s.notice = "Only the slow pairs on the right meet new angles, and the share rises pair by pair: a ramp, not a cliff. It reaches "
             "(L - L0) / L only for pairs that do not finish a circle within L.";
  s.tryThis = "Double head_dim: more pairs are slow enough to be caught.";
  s.controls = {intC("times", "L / L0", "length as a multiple of L0 = 4096", 1, 32, 4), intC("head_dim", "head_dim", "dimensions per head", 8, 256, 128)};
  s.openTab = "extrapolation";
  s.openWith = {{"head_dim", "head_dim"}};
  s.figure = figBeyondUnseen;
  return s;
}

Step beyondPiStep() {
  Step s;
  s.id = "beyond-pi";
  s.title = "Position interpolation";
  s.why = "The simplest repair divides every position by s = L / L0, so the longest new input fits in the angles training covered. The "
          "price is paid by the fast pairs: neighbours end up a fraction of a step apart, finer than anything the model learned to "
          "resolve.";
  s.notice = "The line is flat at 1/s: every pair slows by the same amount.";
  s.tryThis = "Set s = 16 and read how close neighbouring positions become.";
  s.controls = {realC("s", "factor s", "target length / trained length", 1, 32, 4)};
  s.claim = ArticleClaim{kInterview, "Interview question 8", "Position interpolation (compress positions into the trained range)", Severity::Holds,
                         "Dividing positions by s is exactly what the method does.", nullptr};
  s.predict = Prediction{"With s = 4, position 16383 gets the angles of which position?", 2, piAngleTwinOf16383,
                         "Every position is divided by s: 16383 / 4, inside the trained 0 .. 4095."};
  s.openTab = "context-extension";
  s.figure = figBeyondPi;
  return s;
}

Step beyondNtkStep() {
  Step s;
  s.id = "beyond-ntk";
  s.title = "NTK-aware: change the base instead";
  s.why = "Raising the base slows the slow pairs a lot and the fast pairs hardly at all, because the base enters with exponent 2i/d. "
          "Choosing the new base as base x s^(d/(d-2)) makes the slowest pair slow down by exactly s, like interpolation, while pair 0 "
          "keeps its speed and the local detail it carries.";
  s.notice = "The NTK curve starts at 1 on the left and falls to 1/s on the right.";
  s.tryThis = "Compare the two curves at pair 0 and at the last pair.";
  s.controls = {realC("s", "factor s", "target length / trained length", 1, 32, 8)};
  s.claim = ArticleClaim{kInterview, "NTK-Aware Scaling and YaRN (Brief)", "NTK-aware scaling adjusts the effective base", Severity::Holds,
                         "The method is a new base. The article does not give it; it is base x s^(d/(d-2)).", nullptr};
  s.openTab = "context-extension";
  s.figure = figBeyondNtk;
  return s;
}

Step beyondYarnStep() {
  Step s;
  s.id = "beyond-yarn";
  s.title = "YaRN: a ramp, and a temperature";
  s.why = "YaRN sorts pairs by how many turns they make within L0: pairs that turn many times keep their speed, pairs that turn less "
          "than once are interpolated, and a ramp blends the ones between. Stretching a context also flattens attention, because there "
          "are more keys to share the weight; YaRN multiplies cos and sin by 0.1 ln s + 1, which scales the scores up by its square and "
          "restores the sharpness.";
  s.notice = "The curve has three parts: 1 on the left, 1/s on the right, a ramp between.";
  s.tryThis = "Switch off the ramp: it becomes plain interpolation. Switch off the attention factor and read the score scale.";
  s.controls = {realC("s", "factor s", "target length / trained length", 1, 32, 8), switchC("no_ramp", "without its ramp", "interpolate every pair"),
                switchC("no_factor", "without its attention factor", "leave cos and sin unscaled")};
  s.claim = ArticleClaim{kInterview, "NTK-Aware Scaling and YaRN (Brief)",
                         "some bands of frequencies are interpolated more aggressively than others", Severity::Holds,
                         "But it leaves out the attention factor, without which a stretched model's attention is too flat.", nullptr};
  s.predict = Prediction{"YaRN's attention factor at s = 8?", 3, yarnFactor8, "0.1 ln 8 + 1: the scores grow by its square, about 1.46."};
  s.openTab = "context-extension";
  s.example = "ntk-yarn-4096-to-131072";
  s.figure = figBeyondYarn;
  return s;
}

Step beyondModelsStep() {
  Step s;
  s.id = "beyond-models";
  s.title = "What published models do";
  s.why = "A model's config.json says how long its training sequences were (the trained length L0; Help > Glossary names the field) "
          "and how far it is published to run. Models that run past L0 name a scaling method and a factor: Llama 3.1 stretches by 8 with "
          "its own piecewise rule, DeepSeek-V3 by 40 with YaRN, Phi-3 with LongRoPE's factor per pair. The last column takes the slowest "
          "pairs, whose angles training never carried round the circle, and gives the share of positions up to the published length "
          "that reach angles beyond what training showed them: first with plain RoPE, then with the model's scaling. The config cannot "
          "say whether a model was also trained further at the longer length, as Llama 3.1 was; the count reads the config alone.";
  s.notice = "Without scaling, most positions of a stretched model put its slowest pair at new angles; the scaling cuts that share, "
             "to zero where the factor covers the whole published length.";
  s.tryThis = "Open a model in the Model tab and see which layers use which positions.";
  s.openTab = "model";
  s.figureWith = figBeyondModels;
  return s;
}

Step chooseTableStep() {
  Step s;
  s.id = "choose-table";
  s.title = "The comparison table, computed";
  s.why = "Each cell of the comparison is something you can measure: how many numbers the scheme learns, where it enters, whether the "
          "scores keep only the distance, and what it has at a position past L0.";
  s.notice = "Sinusoidal and learned are not relative: the content terms carry absolute positions into the score.";
  s.tryThis = "Set L = L0: the learned table works again and no RoPE pair sees a new angle.";
  s.controls = {intC("l0", "trained length L0", "positions seen in training", 16, 8192, 2048), intC("times", "L / L0", "length run now", 1, 16, 4)};
  s.claim = ArticleClaim{kTeaching, "Comparison: Which to Use When", "Relative position - Sinusoidal: via rotation property", Severity::WrongConcept,
                         "The rotation property holds for PE(pos) alone, but a score mixes word and position terms, so an added sinusoid does "
                         "not make scores depend on distance only; the computed check says no.",
                         nullptr};
  s.openTab = "compare";
  s.openWith = {{"trained_length", "l0"}};
  s.figure = figChooseTable;
  return s;
}

Step chooseChartStep() {
  Step s;
  s.id = "choose-chart";
  s.title = "The decision chart";
  s.why = "The chart asks what you are building. The answers follow from the previous chapters: a growing context rules out a table, "
          "recency alone fits ALiBi, and RoPE's relative scores and cache-friendliness make it the default of today's open models.";
  s.notice = "Each answer is one property from this path.";
  s.tryThis = "Open the Compare tab and run the table at your own model's sizes.";
  s.claim = ArticleClaim{kTeaching, "The Decision", "Need length extrapolation, rich position info: RoPE + NTK scaling", Severity::Holds,
                         "As advice; today's long-context RoPE models mostly ship YaRN or Llama 3.1's scaling instead.", nullptr};
  s.openTab = "compare";
  s.figure = figChooseChart;
  return s;
}

Step moreT5Step() {
  Step s;
  s.id = "more-t5";
  s.title = "T5's relative buckets";
  s.why = "T5 learns one bias per head for each bucket of distance. Short distances get a bucket each; longer ones share buckets whose "
          "width grows logarithmically, and everything past max_distance lands in the last bucket. It is ALiBi's idea with learned, "
          "coarse-grained values.";
  s.notice = "Near the diagonal each distance has its own number; far away whole bands share one.";
  s.tryThis = "Switch to causal: later keys all fall in bucket 0.";
  s.controls = {intC("buckets", "buckets", "number of buckets", 4, 32, 16), intC("max_distance", "max distance", "where the buckets stop growing", 20, 128, 32),
                switchC("causal", "causal (decoder)", "only the past counts")};
  s.openTab = "relative";
  s.openWith = {{"num_buckets", "buckets"}, {"max_distance", "max_distance"}};
  s.figure = figMoreT5;
  return s;
}

Step moreXposStep() {
  Step s;
  s.id = "more-xpos";
  s.title = "xPos: RoPE that fades with distance";
  s.why = "RoPE's score between matching vectors oscillates with distance and does not settle. xPos multiplies each pair of the query by "
          "zeta_i^(n/scale) and of the key by zeta_i^(-m/scale), with zeta_i < 1; the product depends on n - m only and shrinks as the "
          "distance grows, so far tokens matter less in a smooth way.";
  s.notice = "The xPos curve is RoPE's curve under a decaying envelope.";
  s.tryThis = "Lower the scale: the decay sets in sooner.";
  s.controls = {realC("scale", "scale", "xPos's scale_base", 16, 2048, 512)};
  s.openTab = "relative";
  s.openWith = {{"scale_base", "scale"}};
  s.figure = figMoreXpos;
  return s;
}

Step moreNopeStep() {
  Step s;
  s.id = "more-nope";
  s.title = "No encoding at all";
  s.why = "A decoder's causal mask already breaks the symmetry: query t sees exactly t + 1 tokens. A head that spreads its weight evenly "
          "gives the first token 1/(t + 1), and from that the position can be read back. Some models (NoPE layers) rely on this.";
  s.notice = "With the mask the read-back line lies on the true position.";
  s.tryThis = "Switch the mask off: every query sees every token and the position is gone.";
  s.controls = {switchC("causal", "causal mask", "queries see only earlier tokens")};
  s.controls[0].value = 1.0;
  s.openTab = "word-order";
  s.figure = figMoreNope;
  return s;
}

Step moreAxialStep() {
  Step s;
  s.id = "more-axial";
  s.title = "RoPE in two dimensions: image patches";
  s.why = "An image is a grid, not a line: a patch has a row and a column. Axial 2-D RoPE gives half of the pairs to the column and "
          "half to the row, each turning with its own coordinate. A score then depends on the row offset and the column offset, each "
          "through its own half of the pairs, so two patches side by side score alike anywhere in the image.";
  s.notice = "The score is a row part plus a column part: going from one row of the grid to the next adds the same amount in every "
             "column.";
  s.tryThis = "Move the row offset with the column offset at 0: only the row half of the pairs changes the score.";
  s.controls = {intC("dr", "row offset", "rows between query and key patch", -3, 3, 1), intC("dc", "column offset", "columns between them", -3, 3, 2)};
  s.openTab = "image-rope";
  s.figure = figMoreAxial;
  return s;
}

Step moreMropeStep() {
  Step s;
  s.id = "more-mrope";
  s.title = "RoPE for images and text: M-RoPE";
  s.why = "Qwen2-VL gives each token three ids, time, height and width, and gives each a share of the rotary pairs. Text tokens carry "
          "the same number on all three; an image's patches share a time id and count rows and columns, so the model sees the image "
          "as a grid, not as a line.";
  s.notice = "The image patches' h and w rows repeat their row and column numbers.";
  s.tryThis = "Make the image 3 x 4 and see where the text after it resumes.";
  s.controls = {intC("h", "image rows", "patch rows after merging", 1, 4, 2), intC("w", "image columns", "patch columns after merging", 1, 4, 3)};
  s.openTab = "image-rope";
  s.figure = figMoreMrope;
  return s;
}

std::vector<Chapter> buildChapters() {
  return {
      {"order", "1. Why order matters",
       "Attention compares every token with every other, but nothing in that comparison knows where a token sits. This chapter shows the "
       "blindness, then the three places a fix can go.",
       {orderShuffleStep(), orderWhereStep()}},
      {"sinusoidal", "2. Sinusoidal encoding",
       "The original Transformer adds a fixed pattern of sines and cosines to each token. Read it as a row of clocks.",
       {sinClocksStep(), sinWavelengthsStep(), sinPos3Step(), sinOffsetStep(), sinAddStep()}},
      {"learned", "3. Learned tables",
       "GPT-2 and BERT learn one vector per position instead of computing it. The table is flexible and has an end.",
       {learnedCeilingStep()}},
      {"rope", "4. RoPE: rotating queries and keys",
       "RoPE puts position into the attention score itself by turning each query and key, pair by pair.",
       {ropeRotateStep(), ropeRelativeStep(), rope2dStep(), ropeLayoutsStep(), ropeCacheStep(), ropeNotVStep()}},
      {"alibi", "5. ALiBi: a penalty for distance", "ALiBi adds nothing to tokens or vectors: it lowers each score by an amount that grows with distance.",
       {alibi4Step(), alibiSlopesStep()}},
      {"beyond", "6. Beyond the trained length",
       "A model trained on L0 tokens meets longer inputs. What each scheme does there, and how RoPE models are stretched.",
       {beyondTableStep(), beyondUnseenStep(), beyondPiStep(), beyondNtkStep(), beyondYarnStep(), beyondModelsStep()}},
      {"choosing", "7. Choosing a scheme", "The articles close with a comparison table and a decision chart. Here both are computed.",
       {chooseTableStep(), chooseChartStep()}},
      {"more", "8. Beyond the documents",
       "Five ideas the articles do not cover, each shipped in real models: learned buckets, decaying rotations, no encoding at all, and "
       "RoPE for images, alone and with text.",
       {moreT5Step(), moreXposStep(), moreNopeStep(), moreAxialStep(), moreMropeStep()}},
  };
}

}  // namespace

const std::vector<Chapter>& chapters() {
  static const std::vector<Chapter> kChapters = buildChapters();
  return kChapters;
}

}  // namespace posviz::learn
