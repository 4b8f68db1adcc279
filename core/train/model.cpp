// The forward and backward passes of model.hpp, one chunk of sequences at a time.
#include "core/train/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/check.hpp"
#include "core/kerple.hpp"
#include "core/parallel.hpp"
#include "core/train/matmul.hpp"
#include "core/train/model_detail.hpp"

namespace posviz::train {

namespace {

// Everything a chunk's passes read: the model, the batch, the tables, and the chunk's place.
template <class T>
struct Pass {
  const ModelConfig& c;
  const ParamOffsets& o;
  const T* p;                 // parameters
  const Batch& b;
  const PositionTables<T>& pos;
  const std::vector<T>& bias;  // biasLayers x H x n x n (empty: no bias)
  int biasLayers;
  const int* seqs;             // the chunk's sequences (batch rows), w.seqs of them
  ChunkWork<T>& w;
  T* g;                        // the chunk's gradient (null: forward only)
};

// The batch cell of the chunk's row r: sequence seqs[r / length], position r % length.
template <class T>
std::size_t cellOf(const Pass<T>& s, int r) {
  const int n = s.w.length;
  return idx(s.seqs[r / n], s.b.length) + static_cast<std::size_t>(r % n);
}

bool learnsBias(PositionScheme s) { return s == PositionScheme::T5 || s == PositionScheme::Fire || s == PositionScheme::Kerple; }

template <class T>
void prepare(ChunkWork<T>& w, const ModelConfig& c, int seqs, int length, bool backward) {
  w.seqs = seqs;
  w.length = length;
  w.rows = seqs * length;
  const std::size_t nd = idx(w.rows, c.dModel), nf = idx(w.rows, c.hidden()), tt = idx(length, length);
  const std::size_t probs = idx(seqs, c.numHeads) * tt;
  w.layers.resize(static_cast<std::size_t>(c.numLayers));
  for (LayerCache<T>& l : w.layers) {
    for (auto* v : {&l.xhat1, &l.h1, &l.q, &l.k, &l.v, &l.att}) v->resize(nd);
    l.rstd1.resize(static_cast<std::size_t>(w.rows));
    l.probs.resize(probs + kSoftmaxSlack);
    if (c.mlp) {
      for (auto* v : {&l.xhat2, &l.h2}) v->resize(nd);
      l.rstd2.resize(static_cast<std::size_t>(w.rows));
      l.u.resize(nf);
      l.g.resize(nf);
    }
  }
  for (auto* v : {&w.x, &w.xhatf, &w.hf}) v->resize(nd);
  w.rstdf.resize(static_cast<std::size_t>(w.rows));
  w.logits.resize(idx(w.rows, c.vocabSize));
  w.scratch.resize(std::max({idx(w.rows, std::max(c.dModel, c.hidden())), tt, idx(c.dModel, std::max({c.dModel, c.hidden(), c.vocabSize}))}));
  if (!backward) return;
  for (auto* v : {&w.dx, &w.dh, &w.dq, &w.dk, &w.dv, &w.datt}) v->resize(nd);
  w.dp.resize(tt + kSoftmaxSlack);
  w.du.resize(nf);
}

template <class T>
void embedForward(const Pass<T>& s) {
  const int d = s.c.dModel, n = s.w.length;
  const bool learned = s.c.position.scheme == PositionScheme::Learned;
  const bool added = s.c.position.scheme == PositionScheme::Sinusoidal;
  for (int r = 0; r < s.w.rows; ++r) {
    const int t = r % n;
    const int token = s.b.inputs[cellOf(s, r)];
    const T* e = s.p + s.o.tokEmb + idx(token, d);
    T* x = s.w.x.data() + idx(r, d);
    for (int i = 0; i < d; ++i) x[i] = e[i];
    if (learned)
      for (int i = 0; i < d; ++i) x[i] += s.p[s.o.posEmb + idx(t, d) + static_cast<std::size_t>(i)];
    if (added)
      for (int i = 0; i < d; ++i) x[i] += s.pos.added[idx(t, d) + static_cast<std::size_t>(i)];
  }
}

// Causal attention's products skip the blocks above the diagonal (queries attend to keys j <= i),
// in row blocks of kCausalBlock: about 40% fewer terms at 33 tokens.
constexpr int kCausalBlock = 8;

// The end of the columns the causal products read in row i: its row block's last column + 1.
// Entries right of the diagonal up to there must be zero; further right nothing reads them.
inline int causalEnd(int i, int n) { return std::min(n, (i / kCausalBlock + 1) * kCausalBlock); }

// c (n x n, stride n) = a (n x k) b^T (b n x k) in each row block's columns up to its last row;
// entries right of the diagonal are left to the caller (the softmax zeroes them).
template <class T>
void causalScores(int n, int k, const T* a, int lda, const T* b, int ldb, T* c, T* scratch) {
  transposeInto(n, k, b, ldb, scratch);
  for (int i0 = 0; i0 < n; i0 += kCausalBlock) {
    const int rows = std::min(kCausalBlock, n - i0), cols = std::min(n, i0 + kCausalBlock);
    gemm(rows, cols, k, a + idx(i0, lda), lda, scratch, n, c + idx(i0, n), n, false);
  }
}

// c (n x m) = p b, p lower-triangular (n x n, stride n).
template <class T>
void causalMix(int n, int m, const T* p, const T* b, int ldb, T* c, int ldc) {
  for (int i0 = 0; i0 < n; i0 += kCausalBlock) {
    const int rows = std::min(kCausalBlock, n - i0);
    gemm(rows, m, std::min(n, i0 + kCausalBlock), p + idx(i0, n), n, b, ldb, c + idx(i0, ldc), ldc, false);
  }
}

// c (n x m) = p^T b, p lower-triangular (n x n, stride n).
template <class T>
void causalMixTransposed(int n, int m, const T* p, const T* b, int ldb, T* c, int ldc) {
  for (int j0 = 0; j0 < n; j0 += kCausalBlock) {
    const int rows = std::min(kCausalBlock, n - j0);
    gemmAt(rows, m, n - j0, p + idx(j0, n) + static_cast<std::size_t>(j0), n, b + idx(j0, ldb), ldb, c + idx(j0, ldc), ldc, false);
  }
}

// Softmax attention of sequence g, head h of layer l: probabilities and the head's output.
template <class T>
void attendForward(const Pass<T>& s, LayerCache<T>& L, int l, int g, int h) {
  const int d = s.c.dModel, n = s.w.length, hd = s.c.headDim(), heads = s.c.numHeads;
  const std::size_t base = idx(g * n, d) + idx(h, hd);
  T* prob = L.probs.data() + idx(g * heads + h, idx(n, n));
  causalScores(n, hd, L.q.data() + base, d, L.k.data() + base, d, prob, s.w.scratch.data());
  const T scale = T(1) / std::sqrt(static_cast<T>(hd));
  const int bn = s.b.length;  // the bias grids are the whole batch's, bn x bn
  const T* bias = s.bias.empty() ? nullptr : s.bias.data() + idx((s.biasLayers == 1 ? 0 : l) * heads + h, idx(bn, bn));
  for (int i = 0; i < n; ++i) {
    T* row = prob + idx(i, n);
    softmaxRow(row, i + 1, scale, bias ? bias + idx(i, bn) : nullptr);
    for (int j = i + 1; j < causalEnd(i, n); ++j) row[j] = T(0);
  }
  causalMix(n, hd, prob, L.v.data() + base, d, L.att.data() + base, d);
}

template <class T>
void addBiasRows(int rows, int cols, const T* __restrict bias, T* __restrict x) {
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < cols; ++i) x[idx(r, cols) + static_cast<std::size_t>(i)] += bias[i];
}

template <class T>
void layerForward(const Pass<T>& s, int l) {
  const int d = s.c.dModel, rows = s.w.rows, f = s.c.hidden();
  const LayerOffsets& o = s.o.layers[static_cast<std::size_t>(l)];
  LayerCache<T>& L = s.w.layers[static_cast<std::size_t>(l)];
  T* x = s.w.x.data();
  layerNormForward(rows, d, x, s.p + o.ln1w, s.p + o.ln1b, L.xhat1.data(), L.h1.data(), L.rstd1.data());
  gemm(rows, d, d, L.h1.data(), d, s.p + o.wq, d, L.q.data(), d, false);
  gemm(rows, d, d, L.h1.data(), d, s.p + o.wk, d, L.k.data(), d, false);
  gemm(rows, d, d, L.h1.data(), d, s.p + o.wv, d, L.v.data(), d, false);
  if (schemeRotates(s.c.position)) {
    rotateRows(s.pos, true, false, rows, s.w.length, s.c.numHeads, s.c.headDim(), L.q.data());
    rotateRows(s.pos, false, false, rows, s.w.length, s.c.numHeads, s.c.headDim(), L.k.data());
  }
  for (int g = 0; g < s.w.seqs; ++g)
    for (int h = 0; h < s.c.numHeads; ++h) attendForward(s, L, l, g, h);
  gemm(rows, d, d, L.att.data(), d, s.p + o.wo, d, x, d, true);
  if (!s.c.mlp) return;
  layerNormForward(rows, d, x, s.p + o.ln2w, s.p + o.ln2b, L.xhat2.data(), L.h2.data(), L.rstd2.data());
  gemm(rows, f, d, L.h2.data(), d, s.p + o.fc1w, f, L.u.data(), f, false);
  addBiasRows(rows, f, s.p + o.fc1b, L.u.data());
  activationForward(s.c.activation, idx(rows, f), L.u.data(), L.g.data());
  gemm(rows, d, f, L.g.data(), f, s.p + o.fc2w, d, x, d, true);
  addBiasRows(rows, d, s.p + o.fc2b, x);
}

// Loss and counts of the chunk's answer tokens; with a gradient, logits become d(loss)/d(logits).
template <class T>
void lossForward(const Pass<T>& s, double invCount) {
  const int v = s.c.vocabSize, n = s.w.length;
  EvalCounts& k = s.w.counts;
  k = EvalCounts{};
  bool seqRight = true, seqHasAnswer = false;
  for (int r = 0; r < s.w.rows; ++r) {
    const std::size_t cell = cellOf(s, r);
    T* z = s.w.logits.data() + idx(r, v);
    if (!s.b.mask[cell]) {
      if (s.g) std::fill(z, z + v, T(0));
    } else {
      const int target = s.b.targets[cell];
      const int best = static_cast<int>(std::max_element(z, z + v) - z);
      const T m = z[best];
      T sum = 0;
      for (int i = 0; i < v; ++i) sum += std::exp(z[i] - m);
      k.lossSum += static_cast<double>(std::log(sum) + m - z[target]);
      ++k.answers;
      k.correct += best == target ? 1 : 0;
      seqRight = seqRight && best == target;
      seqHasAnswer = true;
      if (s.g) {
        const T inv = T(1) / sum, scale = static_cast<T>(invCount);
        for (int i = 0; i < v; ++i) z[i] = std::exp(z[i] - m) * inv * scale;
        z[target] -= scale;
      }
    }
    if ((r + 1) % n == 0) {
      ++k.sequences;
      k.sequencesCorrect += seqRight && seqHasAnswer ? 1 : 0;
      seqRight = true;
      seqHasAnswer = false;
    }
  }
}

template <class T>
void forward(const Pass<T>& s, double invCount) {
  const int d = s.c.dModel, rows = s.w.rows;
  embedForward(s);
  for (int l = 0; l < s.c.numLayers; ++l) layerForward(s, l);
  layerNormForward(rows, d, s.w.x.data(), s.p + s.o.lnfW, s.p + s.o.lnfB, s.w.xhatf.data(), s.w.hf.data(), s.w.rstdf.data());
  gemm(rows, s.c.vocabSize, d, s.w.hf.data(), d, s.p + s.o.head, s.c.vocabSize, s.w.logits.data(), s.c.vocabSize, false);
  lossForward(s, invCount);
}

template <class T>
void columnSums(int rows, int cols, const T* __restrict x, T* __restrict out) {
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < cols; ++i) out[i] += x[idx(r, cols) + static_cast<std::size_t>(i)];
}

template <class T>
void mlpBackward(const Pass<T>& s, int l) {
  const int d = s.c.dModel, rows = s.w.rows, f = s.c.hidden();
  const LayerOffsets& o = s.o.layers[static_cast<std::size_t>(l)];
  LayerCache<T>& L = s.w.layers[static_cast<std::size_t>(l)];
  ChunkWork<T>& w = s.w;
  T* sc = w.scratch.data();
  columnSums(rows, d, w.dx.data(), s.g + o.fc2b);
  gemmAt(f, d, rows, L.g.data(), f, w.dx.data(), d, s.g + o.fc2w, d, true);
  gemmBt(rows, f, d, w.dx.data(), d, s.p + o.fc2w, d, w.du.data(), f, false, sc);
  activationBackward(s.c.activation, idx(rows, f), L.u.data(), w.du.data(), w.du.data());
  columnSums(rows, f, w.du.data(), s.g + o.fc1b);
  gemmAt(d, f, rows, L.h2.data(), d, w.du.data(), f, s.g + o.fc1w, f, true);
  gemmBt(rows, d, f, w.du.data(), f, s.p + o.fc1w, f, w.dh.data(), d, false, sc);
  layerNormBackward(rows, d, w.dh.data(), L.xhat2.data(), L.rstd2.data(), s.p + o.ln2w, w.dx.data(), s.g + o.ln2w, s.g + o.ln2b);
}

// Sequence g, head h: from the head's output gradient to dq, dk, dv (and the bias gradient).
template <class T>
void attendBackward(const Pass<T>& s, LayerCache<T>& L, int l, int g, int h) {
  const int d = s.c.dModel, n = s.w.length, hd = s.c.headDim(), heads = s.c.numHeads;
  ChunkWork<T>& w = s.w;
  const std::size_t base = idx(g * n, d) + idx(h, hd);
  const T* prob = L.probs.data() + idx(g * heads + h, idx(n, n));
  T* dp = w.dp.data();
  T* sc = w.scratch.data();
  causalScores(n, hd, w.datt.data() + base, d, L.v.data() + base, d, dp, sc);
  causalMixTransposed(n, hd, prob, w.datt.data() + base, d, w.dv.data() + base, d);
  T* dbias = w.dbias.empty() ? nullptr : w.dbias.data() + idx((s.biasLayers == 1 ? 0 : l) * heads + h, idx(n, n));
  const T scale = T(1) / std::sqrt(static_cast<T>(hd));
  for (int i = 0; i < n; ++i) {
    T* row = dp + idx(i, n);
    const T* pr = prob + idx(i, n);
    T dot = 0;
    for (int j = 0; j <= i; ++j) dot += row[j] * pr[j];
    for (int j = 0; j <= i; ++j) row[j] = pr[j] * (row[j] - dot);
    for (int j = i + 1; j < causalEnd(i, n); ++j) row[j] = T(0);
    if (dbias)
      for (int j = 0; j <= i; ++j) dbias[idx(i, n) + static_cast<std::size_t>(j)] += row[j];
    for (int j = 0; j <= i; ++j) row[j] *= scale;
  }
  causalMix(n, hd, dp, L.k.data() + base, d, w.dq.data() + base, d);
  causalMixTransposed(n, hd, dp, L.q.data() + base, d, w.dk.data() + base, d);
}

template <class T>
void attentionBackward(const Pass<T>& s, int l) {
  const int d = s.c.dModel, rows = s.w.rows;
  const LayerOffsets& o = s.o.layers[static_cast<std::size_t>(l)];
  LayerCache<T>& L = s.w.layers[static_cast<std::size_t>(l)];
  ChunkWork<T>& w = s.w;
  T* sc = w.scratch.data();
  gemmAt(d, d, rows, L.att.data(), d, w.dx.data(), d, s.g + o.wo, d, true);
  gemmBt(rows, d, d, w.dx.data(), d, s.p + o.wo, d, w.datt.data(), d, false, sc);
  for (int g = 0; g < w.seqs; ++g)
    for (int h = 0; h < s.c.numHeads; ++h) attendBackward(s, L, l, g, h);
  if (schemeRotates(s.c.position)) {
    rotateRows(s.pos, true, true, rows, w.length, s.c.numHeads, s.c.headDim(), w.dq.data());
    rotateRows(s.pos, false, true, rows, w.length, s.c.numHeads, s.c.headDim(), w.dk.data());
  }
  gemmAt(d, d, rows, L.h1.data(), d, w.dq.data(), d, s.g + o.wq, d, true);
  gemmAt(d, d, rows, L.h1.data(), d, w.dk.data(), d, s.g + o.wk, d, true);
  gemmAt(d, d, rows, L.h1.data(), d, w.dv.data(), d, s.g + o.wv, d, true);
  gemmBt(rows, d, d, w.dq.data(), d, s.p + o.wq, d, w.dh.data(), d, false, sc);
  gemmBt(rows, d, d, w.dk.data(), d, s.p + o.wk, d, w.dh.data(), d, true, sc);
  gemmBt(rows, d, d, w.dv.data(), d, s.p + o.wv, d, w.dh.data(), d, true, sc);
  layerNormBackward(rows, d, w.dh.data(), L.xhat1.data(), L.rstd1.data(), s.p + o.ln1w, w.dx.data(), s.g + o.ln1w, s.g + o.ln1b);
}

template <class T>
void embedBackward(const Pass<T>& s) {
  const int d = s.c.dModel, n = s.w.length;
  const bool learned = s.c.position.scheme == PositionScheme::Learned;
  for (int r = 0; r < s.w.rows; ++r) {
    const int token = s.b.inputs[cellOf(s, r)];
    const T* dx = s.w.dx.data() + idx(r, d);
    T* e = s.g + s.o.tokEmb + idx(token, d);
    for (int i = 0; i < d; ++i) e[i] += dx[i];
    if (learned) {
      T* pe = s.g + s.o.posEmb + idx(r % n, d);
      for (int i = 0; i < d; ++i) pe[i] += dx[i];
    }
  }
}

// d(bias)/d(r1), d(bias)/d(r2) of a kerple head at distance dist, times dy, added to g1, g2.
template <class T>
void kerpleBackward(const ModelConfig& c, T r1, T r2, int dist, T dy, T& g1, T& g2) {
  const double d = dist, a = static_cast<double>(r1), b = static_cast<double>(r2);
  if (c.position.kerpleKernel == KerpleKernel::Log) {
    g1 += dy * static_cast<T>(-std::log1p(b * d));
    g2 += dy * static_cast<T>(-a * d / (1.0 + b * d));
  } else if (dist > 0) {
    const double pw = std::pow(d, b);
    g1 += dy * static_cast<T>(-pw);
    g2 += dy * static_cast<T>(-a * pw * std::log(d));
  }
}

// The gradient of the learned biases (t5, fire, kerple) from dbias, the scores' bias gradient.
template <class T>
void biasBackward(const Pass<T>& s) {
  const ModelConfig& c = s.c;
  const int n = s.w.length, heads = c.numHeads, lt = s.pos.length;
  const T* db = s.w.dbias.data();
  for (int bl = 0; bl < s.biasLayers; ++bl) {
    const LayerOffsets& o = s.o.layers[static_cast<std::size_t>(bl)];
    for (int h = 0; h < heads; ++h) {
      const T* dh = db + idx(bl * heads + h, idx(n, n));
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) {
          const T dy = dh[idx(i, n) + static_cast<std::size_t>(j)];
          if (c.position.scheme == PositionScheme::T5) {
            s.g[s.o.t5 + idx(s.pos.bucket[idx(i, lt) + static_cast<std::size_t>(j)], heads) + static_cast<std::size_t>(h)] += dy;
          } else if (c.position.scheme == PositionScheme::Fire) {
            const T x = s.pos.fireInput[idx(i, lt) + static_cast<std::size_t>(j)];
            const std::size_t row = idx(h, c.position.fireHidden);
            for (int k = 0; k < c.position.fireHidden; ++k) {
              const std::size_t at = row + static_cast<std::size_t>(k);
              const T z = s.p[o.fireW1 + at] * x + s.p[o.fireB1 + at];
              if (z <= T(0)) continue;
              s.g[o.fireW2 + at] += dy * z;
              const T dz = dy * s.p[o.fireW2 + at];
              s.g[o.fireW1 + at] += dz * x;
              s.g[o.fireB1 + at] += dz;
            }
            s.g[o.fireB2 + static_cast<std::size_t>(h)] += dy;
          } else {
            kerpleBackward(c, s.p[o.kerR1 + static_cast<std::size_t>(h)], s.p[o.kerR2 + static_cast<std::size_t>(h)], i - j, dy,
                           s.g[o.kerR1 + static_cast<std::size_t>(h)], s.g[o.kerR2 + static_cast<std::size_t>(h)]);
          }
        }
      }
    }
  }
}

template <class T>
void backward(const Pass<T>& s) {
  const int d = s.c.dModel, rows = s.w.rows, v = s.c.vocabSize;
  ChunkWork<T>& w = s.w;
  T* sc = w.scratch.data();
  gemmAt(d, v, rows, w.hf.data(), d, w.logits.data(), v, s.g + s.o.head, v, true);
  gemmBt(rows, d, v, w.logits.data(), v, s.p + s.o.head, v, w.dh.data(), d, false, sc);
  std::fill(w.dx.begin(), w.dx.end(), T(0));
  layerNormBackward(rows, d, w.dh.data(), w.xhatf.data(), w.rstdf.data(), s.p + s.o.lnfW, w.dx.data(), s.g + s.o.lnfW, s.g + s.o.lnfB);
  if (learnsBias(s.c.position.scheme)) w.dbias.assign(idx(s.biasLayers * s.c.numHeads, idx(w.length, w.length)), T(0));
  else w.dbias.clear();
  for (int l = s.c.numLayers - 1; l >= 0; --l) {
    if (s.c.mlp) mlpBackward(s, l);
    attentionBackward(s, l);
  }
  embedBackward(s);
  if (!w.dbias.empty()) biasBackward(s);
}

// The scores' additive bias for a batch of n tokens: biasLayers x heads x n x n (j > i: 0).
template <class T>
void biasForward(const ModelConfig& c, const ParamOffsets& o, const T* p, const PositionTables<T>& pos, int n, ModelWorkspace<T>& ws) {
  const PositionScheme scheme = c.position.scheme;
  ws.biasLayers = scheme == PositionScheme::Fire || scheme == PositionScheme::Kerple ? c.numLayers : 1;
  if (!schemeHasBias(scheme)) {
    ws.bias.clear();
    return;
  }
  const int heads = c.numHeads, lt = pos.length;
  ws.bias.assign(idx(ws.biasLayers * heads, idx(n, n)) + kSoftmaxSlack, T(0));
  for (int bl = 0; bl < ws.biasLayers; ++bl) {
    const LayerOffsets& lo = o.layers[static_cast<std::size_t>(bl)];
    for (int h = 0; h < heads; ++h) {
      T* out = ws.bias.data() + idx(bl * heads + h, idx(n, n));
      const auto hs = static_cast<std::size_t>(h);
      KerpleParams kp;
      if (scheme == PositionScheme::Kerple) kp = {c.position.kerpleKernel, static_cast<double>(p[lo.kerR1 + hs]), static_cast<double>(p[lo.kerR2 + hs])};
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) {
          const std::size_t at = idx(i, lt) + static_cast<std::size_t>(j);
          T v = 0;
          if (scheme == PositionScheme::Alibi) {
            v = pos.alibi[idx(h, idx(lt, lt)) + at];
          } else if (scheme == PositionScheme::T5) {
            v = p[o.t5 + idx(pos.bucket[at], heads) + hs];
          } else if (scheme == PositionScheme::Kerple) {
            v = static_cast<T>(kerpleBias(kp, i, j, true));
          } else {
            const T x = pos.fireInput[at];
            const std::size_t row = idx(h, c.position.fireHidden);
            v = p[lo.fireB2 + hs];
            for (int k = 0; k < c.position.fireHidden; ++k) {
              const std::size_t q = row + static_cast<std::size_t>(k);
              v += p[lo.fireW2 + q] * std::max(T(0), p[lo.fireW1 + q] * x + p[lo.fireB1 + q]);
            }
          }
          out[idx(i, n) + static_cast<std::size_t>(j)] = v;
        }
      }
    }
  }
}

template <class T>
void checkBatch(const char* fn, const ModelConfig& c, const Batch& b, const PositionTables<T>& pos) {
  if (b.size < 1 || b.length < 1) failArgument(fn, "the batch is empty");
  const std::size_t cells = idx(b.size, b.length);
  if (b.inputs.size() != cells || b.targets.size() != cells || b.mask.size() != cells)
    failArgument(fn, "the batch's inputs, targets and mask must hold size x length entries");
  if (pos.length < b.length)
    failArgument(fn, "position tables of length " + std::to_string(pos.length) + " cannot serve a batch of length " + std::to_string(b.length));
  if (c.position.scheme == PositionScheme::Learned && b.length > c.maxPositions)
    failArgument(fn, "position " + std::to_string(b.length - 1) + " has no row: the learned table has " + std::to_string(c.maxPositions) + " rows");
  for (std::size_t i = 0; i < cells; ++i) {
    if (b.inputs[i] < 0 || b.inputs[i] >= c.vocabSize || b.targets[i] < 0 || b.targets[i] >= c.vocabSize)
      failArgument(fn, "token " + std::to_string(b.inputs[i] < 0 || b.inputs[i] >= c.vocabSize ? b.inputs[i] : b.targets[i]) +
                           " is outside the vocabulary of " + std::to_string(c.vocabSize));
  }
}

// Runs every chunk of a batch (forward; backward too when grads is not null, one buffer per chunk);
// returns how many chunks ran.
template <class T>
std::size_t runChunks(const ModelConfig& c, const std::vector<T>& params, ModelWorkspace<T>& ws, const Batch& b, const PositionTables<T>& pos,
                      int perChunk, int threads, bool backwardToo, double invCount, bool trim = true) {
  const std::vector<BatchChunk> plan = batchChunks(b, perChunk, trim);
  if (ws.chunks.size() < plan.size()) ws.chunks.resize(plan.size());
  biasForward(c, ws.offsets, params.data(), pos, b.length, ws);
  parallelFor(static_cast<long long>(plan.size()), threads <= 0 ? hardwareThreads() : threads, 1, [&](long long c0, long long c1) {
    for (long long ci = c0; ci < c1; ++ci) {
      ChunkWork<T>& w = ws.chunks[static_cast<std::size_t>(ci)];
      const BatchChunk& chunk = plan[static_cast<std::size_t>(ci)];
      prepare(w, c, static_cast<int>(chunk.sequences.size()), chunk.length, backwardToo);
      if (backwardToo) w.grad.assign(params.size(), T(0));
      const Pass<T> s{c, ws.offsets, params.data(), b, pos, ws.bias, ws.biasLayers, chunk.sequences.data(), w, backwardToo ? w.grad.data() : nullptr};
      forward(s, invCount);
      if (backwardToo) backward(s);
    }
  });
  return plan.size();
}

}  // namespace

int realLength(const Batch& b, int seq) {
  const std::size_t row = idx(seq, b.length);
  int last = 0;
  for (int t = 0; t < b.length; ++t)
    if (b.mask[row + static_cast<std::size_t>(t)]) last = t + 1;
  return std::max(1, last);
}

std::vector<BatchChunk> batchChunks(const Batch& b, int perChunk, bool trim) {
  if (perChunk < 1) failArgument("batchChunks", "perChunk must be >= 1, got " + std::to_string(perChunk));
  std::vector<int> order(static_cast<std::size_t>(std::max(0, b.size)));
  std::vector<int> lengths(order.size());
  for (int i = 0; i < b.size; ++i) {
    order[static_cast<std::size_t>(i)] = i;
    lengths[static_cast<std::size_t>(i)] = trim ? realLength(b, i) : b.length;
  }
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return lengths[static_cast<std::size_t>(x)] < lengths[static_cast<std::size_t>(y)]; });
  std::vector<BatchChunk> chunks;
  for (std::size_t i = 0; i < order.size(); i += static_cast<std::size_t>(perChunk)) {
    BatchChunk chunk;
    for (std::size_t k = i; k < std::min(order.size(), i + static_cast<std::size_t>(perChunk)); ++k) {
      chunk.sequences.push_back(order[k]);
      chunk.length = std::max(chunk.length, lengths[static_cast<std::size_t>(order[k])]);
    }
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

template <class T>
Model<T>::Model(const ModelConfig& c, int sequencesPerChunk)
    : config_(c), sequencesPerChunk_(sequencesPerChunk), tensors_(modelTensors(c)), work_(std::make_unique<ModelWorkspace<T>>()) {
  if (sequencesPerChunk < 1 || sequencesPerChunk > 1024)
    failArgument("Model", "sequencesPerChunk must be in [1, 1024], got " + std::to_string(sequencesPerChunk));
  params_.assign(tensors_.back().offset + tensors_.back().size, T(0));
  work_->offsets = paramOffsets(config_, tensors_);
}

template <class T>
Model<T>::~Model() = default;

template <class T>
Model<T>::Model(const Model& other)
    : config_(other.config_), sequencesPerChunk_(other.sequencesPerChunk_), tensors_(other.tensors_), params_(other.params_),
      work_(std::make_unique<ModelWorkspace<T>>()) {
  work_->offsets = other.work_->offsets;
}

template <class T>
Model<T>& Model<T>::operator=(const Model& other) {
  if (this != &other) {
    config_ = other.config_;
    sequencesPerChunk_ = other.sequencesPerChunk_;
    tensors_ = other.tensors_;
    params_ = other.params_;
    work_ = std::make_unique<ModelWorkspace<T>>();
    work_->offsets = other.work_->offsets;
  }
  return *this;
}

template <class T>
const TensorInfo& Model<T>::tensor(const std::string& name) const {
  for (const TensorInfo& t : tensors_)
    if (t.name == name) return t;
  failArgument("Model::tensor", "the model has no tensor named '" + name + "'");
}

template <class T>
void Model<T>::initialize(std::uint64_t seed) {
  initializeParameters(config_, tensors_, params_, seed);
}

template <class T>
void Model<T>::dropRope() {
  if (config_.position.scheme != PositionScheme::Rope) failArgument("Model::dropRope", "only a rope model can drop its positions");
  config_.position.dropped = true;
}

template <class T>
void Model<T>::clampParameters() {
  clampKerple(config_, work_->offsets, params_);
}

template <class T>
double Model<T>::lossAndGradient(const Batch& b, const PositionTables<T>& pos, std::span<T> grad, int threads) {
  static constexpr const char* kFn = "Model::lossAndGradient";
  checkBatch(kFn, config_, b, pos);
  const bool wantGrad = !grad.empty();
  if (wantGrad && grad.size() != params_.size())
    failArgument(kFn, "grad must hold " + std::to_string(params_.size()) + " values, got " + std::to_string(grad.size()));
  const int answers = b.answerCount();
  const double invCount = answers > 0 ? 1.0 / answers : 0.0;
  const std::size_t numChunks = runChunks(config_, params_, *work_, b, pos, sequencesPerChunk_, threads, wantGrad, invCount);
  double loss = 0.0;
  for (std::size_t ci = 0; ci < numChunks; ++ci) loss += work_->chunks[ci].counts.lossSum;
  if (!wantGrad) return loss * invCount;
  const auto n = static_cast<long long>(grad.size());
  parallelFor(n, threads <= 0 ? hardwareThreads() : threads, 4096, [&](long long i0, long long i1) {
    for (long long i = i0; i < i1; ++i) {
      T sum = 0;
      for (std::size_t ci = 0; ci < numChunks; ++ci) sum += work_->chunks[ci].grad[static_cast<std::size_t>(i)];
      grad[static_cast<std::size_t>(i)] = sum;
    }
  });
  return loss * invCount;
}

template <class T>
EvalCounts Model<T>::evaluate(const Batch& b, const PositionTables<T>& pos, int threads) {
  checkBatch("Model::evaluate", config_, b, pos);
  const std::size_t numChunks = runChunks(config_, params_, *work_, b, pos, sequencesPerChunk_, threads, false, 0.0);
  EvalCounts total;
  for (std::size_t ci = 0; ci < numChunks; ++ci) {
    const EvalCounts& k = work_->chunks[ci].counts;
    total.lossSum += k.lossSum;
    total.answers += k.answers;
    total.correct += k.correct;
    total.sequences += k.sequences;
    total.sequencesCorrect += k.sequencesCorrect;
  }
  return total;
}

template <class T>
std::vector<T> Model<T>::attention(const Batch& b, const PositionTables<T>& pos) {
  checkBatch("Model::attention", config_, b, pos);
  Batch one;
  one.size = 1;
  one.length = b.length;
  const auto n = static_cast<std::size_t>(b.length);
  one.inputs.assign(b.inputs.begin(), b.inputs.begin() + static_cast<std::ptrdiff_t>(n));
  one.targets.assign(b.targets.begin(), b.targets.begin() + static_cast<std::ptrdiff_t>(n));
  one.mask.assign(b.mask.begin(), b.mask.begin() + static_cast<std::ptrdiff_t>(n));
  runChunks(config_, params_, *work_, one, pos, 1, 1, false, 0.0, false);
  std::vector<T> out;
  const std::size_t per = idx(config_.numHeads, idx(b.length, b.length));
  for (const LayerCache<T>& L : work_->chunks[0].layers) out.insert(out.end(), L.probs.begin(), L.probs.begin() + static_cast<std::ptrdiff_t>(per));
  // The passes leave entries far right of the diagonal unwritten: a causal map is 0 there.
  for (std::size_t m = 0; m < out.size(); m += n * n)
    for (std::size_t i = 0; i < n; ++i) std::fill(out.begin() + static_cast<std::ptrdiff_t>(m + i * n + i + 1), out.begin() + static_cast<std::ptrdiff_t>(m + i * n + n), T(0));
  return out;
}

template class Model<float>;
template class Model<double>;

}  // namespace posviz::train
