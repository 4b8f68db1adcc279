// txl_relative.cpp: see txl_relative.hpp.
#include "core/txl_relative.hpp"

#include <cmath>
#include <cstddef>
#include <string>

#include "core/check.hpp"
#include "core/random.hpp"

namespace posviz {

namespace {

std::size_t at(long long row, int dim) { return static_cast<std::size_t>(row) * static_cast<std::size_t>(dim); }

// W x for W rows x cols and x = src[row * cols ..].
std::vector<double> project(const std::vector<double>& w, int rows, int cols, const std::vector<double>& src, long long row) {
  std::vector<double> y(static_cast<std::size_t>(rows), 0.0);
  for (int r = 0; r < rows; ++r) {
    double s = 0.0;
    for (int c = 0; c < cols; ++c) s += w[at(r, cols) + static_cast<std::size_t>(c)] * src[at(row, cols) + static_cast<std::size_t>(c)];
    y[static_cast<std::size_t>(r)] = s;
  }
  return y;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t c = 0; c < a.size(); ++c) s += a[c] * b[c];
  return s;
}

void requireSize(const char* fn, const char* what, const std::vector<double>& v, std::size_t want) {
  if (v.size() != want) failArgument(fn, std::string(what) + " must have " + std::to_string(want) + " entries, got " + std::to_string(v.size()));
}

int validate(const char* fn, const TxlWeights& w, const std::vector<double>& emb) {
  requirePositiveInt(fn, "dHead", w.dHead);
  requireEven(fn, "dModel", w.dModel);
  for (const auto* m : {&w.wq, &w.wkE, &w.wkR}) requireSize(fn, "a projection (dHead x dModel)", *m, at(w.dHead, w.dModel));
  requireSize(fn, "u", w.u, static_cast<std::size_t>(w.dHead));
  requireSize(fn, "v", w.v, static_cast<std::size_t>(w.dHead));
  if (emb.empty() || emb.size() % static_cast<std::size_t>(w.dModel) != 0) {
    failArgument(fn, "embeddings must hold whole rows of dModel " + std::to_string(w.dModel) + " entries, got " + std::to_string(emb.size()));
  }
  return static_cast<int>(emb.size() / static_cast<std::size_t>(w.dModel));
}

// The head-space vectors every (i, j) reuses: Wq E_x, Wk,E E_x per position, Wk,R R(p) per distance.
struct Projected {
  int positions = 0;
  std::vector<std::vector<double>> q, kE, kR;   // kR[p + positions - 1] for p = i - j
};

Projected projectAll(const TxlWeights& w, const std::vector<double>& emb, int positions) {
  Projected p;
  p.positions = positions;
  for (int n = 0; n < positions; ++n) {
    p.q.push_back(project(w.wq, w.dHead, w.dModel, emb, n));
    p.kE.push_back(project(w.wkE, w.dHead, w.dModel, emb, n));
  }
  for (int d = -(positions - 1); d <= positions - 1; ++d) p.kR.push_back(project(w.wkR, w.dHead, w.dModel, txlRelativeSinusoid(d, w.dModel), 0));
  return p;
}

TxlTerms termsOf(const TxlWeights& w, const Projected& p, int i, int j) {
  const auto& kR = p.kR[static_cast<std::size_t>(i - j + p.positions - 1)];
  const auto& q = p.q[static_cast<std::size_t>(i)];
  const auto& kE = p.kE[static_cast<std::size_t>(j)];
  return {dot(q, kE), dot(q, kR), dot(w.u, kE), dot(w.v, kR)};
}

}  // namespace

std::vector<double> txlRelativeSinusoid(double p, int d) {
  requireFinite("txlRelativeSinusoid", "p", p);
  requireEven("txlRelativeSinusoid", "d", d);
  const int half = d / 2;
  std::vector<double> r(static_cast<std::size_t>(d));
  for (int k = 0; k < half; ++k) {
    const double invFreq = 1.0 / std::pow(10000.0, (2.0 * k) / d);
    r[static_cast<std::size_t>(k)] = std::sin(p * invFreq);
    r[static_cast<std::size_t>(k + half)] = std::cos(p * invFreq);
  }
  return r;
}

TxlWeights txlSeededWeights(int dModel, int dHead, std::uint64_t seed) {
  requireEven("txlSeededWeights", "dModel", dModel);
  requirePositiveInt("txlSeededWeights", "dHead", dHead);
  Rng rng(seed);
  const double s = 1.0 / std::sqrt(static_cast<double>(dModel));
  TxlWeights w;
  w.dModel = dModel;
  w.dHead = dHead;
  for (auto* m : {&w.wq, &w.wkE, &w.wkR}) {
    m->resize(at(dHead, dModel));
    for (double& x : *m) x = s * rng.normal();
  }
  for (auto* b : {&w.u, &w.v}) {
    b->resize(static_cast<std::size_t>(dHead));
    for (double& x : *b) x = rng.normal();
  }
  return w;
}

std::vector<double> txlSeededEmbeddings(int positions, int dModel, std::uint64_t seed) {
  requirePositiveInt("txlSeededEmbeddings", "positions", positions);
  requirePositiveInt("txlSeededEmbeddings", "dModel", dModel);
  Rng rng(seed);
  std::vector<double> e(at(positions, dModel));
  for (double& x : e) x = rng.normal();
  return e;
}

TxlTerms txlTerms(const TxlWeights& w, const std::vector<double>& emb, int i, int j) {
  const int positions = validate("txlTerms", w, emb);
  requireIndex("txlTerms", "i", i, positions);
  requireIndex("txlTerms", "j", j, positions);
  const std::vector<double> q = project(w.wq, w.dHead, w.dModel, emb, i);
  const std::vector<double> kE = project(w.wkE, w.dHead, w.dModel, emb, j);
  const std::vector<double> kR = project(w.wkR, w.dHead, w.dModel, txlRelativeSinusoid(i - j, w.dModel), 0);
  return {dot(q, kE), dot(q, kR), dot(w.u, kE), dot(w.v, kR)};
}

Grid txlTermGrid(const TxlWeights& w, const std::vector<double>& emb) {
  const int t = validate("txlTermGrid", w, emb);
  const Projected p = projectAll(w, emb, t);
  Grid g(4 * t, t);
  for (int i = 0; i < t; ++i) {
    for (int j = 0; j < t; ++j) {
      const TxlTerms terms = termsOf(w, p, i, j);
      for (int k = 0; k < 4; ++k) g.at(k * t + i, j) = static_cast<float>(terms[static_cast<std::size_t>(k)]);
    }
  }
  return g;
}

Grid txlSumGrid(const TxlWeights& w, const std::vector<double>& emb) {
  const int t = validate("txlSumGrid", w, emb);
  const Projected p = projectAll(w, emb, t);
  Grid g(t, t);
  for (int i = 0; i < t; ++i) {
    for (int j = 0; j < t; ++j) {
      const TxlTerms terms = termsOf(w, p, i, j);
      g.at(i, j) = static_cast<float>(terms[0] + terms[1] + terms[2] + terms[3]);
    }
  }
  return g;
}

}  // namespace posviz
