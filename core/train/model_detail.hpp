// model_detail.hpp: the pieces model.cpp is built from (not part of posviz_train's interface):
// parameter offsets, the per-chunk workspace, LayerNorm, the activations and the rotation.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <type_traits>
#include <vector>

#include "core/train/elementwise.hpp"
#include "core/train/model.hpp"

namespace posviz::train {

inline constexpr std::size_t kNoTensor = std::numeric_limits<std::size_t>::max();
inline constexpr double kLayerNormEps = 1e-5;

struct LayerOffsets {
  std::size_t ln1w = kNoTensor, ln1b = kNoTensor, wq = kNoTensor, wk = kNoTensor, wv = kNoTensor, wo = kNoTensor;
  std::size_t ln2w = kNoTensor, ln2b = kNoTensor, fc1w = kNoTensor, fc1b = kNoTensor, fc2w = kNoTensor, fc2b = kNoTensor;
  std::size_t fireW1 = kNoTensor, fireB1 = kNoTensor, fireW2 = kNoTensor, fireB2 = kNoTensor, kerR1 = kNoTensor, kerR2 = kNoTensor;
};

struct ParamOffsets {
  std::size_t tokEmb = kNoTensor, posEmb = kNoTensor, t5 = kNoTensor, lnfW = kNoTensor, lnfB = kNoTensor, head = kNoTensor;
  std::vector<LayerOffsets> layers;
};

ParamOffsets paramOffsets(const ModelConfig& c, const std::vector<TensorInfo>& tensors);
template <class T>
void initializeParameters(const ModelConfig& c, const std::vector<TensorInfo>& tensors, std::vector<T>& params, std::uint64_t seed);
template <class T>
void initializeFire(const ModelConfig& c, const std::vector<TensorInfo>& tensors, std::vector<T>& params, std::uint64_t seed);
template <class T>
void clampKerple(const ModelConfig& c, const ParamOffsets& o, std::vector<T>& params);

inline std::size_t idx(long long a, long long b) { return static_cast<std::size_t>(a) * static_cast<std::size_t>(b); }

// What a layer's backward pass needs from its forward pass (rows x ... of one chunk).
template <class T>
struct LayerCache {
  std::vector<T> xhat1, h1, rstd1, q, k, v, probs, att, xhat2, h2, rstd2, u, g;
};

template <class T>
struct ChunkWork {
  int seqs = 0, length = 0, rows = 0;
  std::vector<LayerCache<T>> layers;
  std::vector<T> x, xhatf, hf, rstdf, logits;
  std::vector<T> dx, dh, dq, dk, dv, datt, dp, du, scratch, dbias;
  std::vector<T> grad;
  EvalCounts counts;
};

template <class T>
struct ModelWorkspace {
  ParamOffsets offsets;
  std::vector<ChunkWork<T>> chunks;
  std::vector<T> bias;  // biasLayers x heads x n x n, the scores' additive bias of this batch
  int biasLayers = 0;
};

// LayerNorm of `rows` rows of d: h = xhat * w + b, xhat and rstd kept for the backward pass.
template <class T>
void layerNormForward(int rows, int d, const T* x, const T* w, const T* b, T* xhat, T* h, T* rstd) {
  if constexpr (std::is_same_v<T, float>)
    if (layerNormForward(rows, d, x, w, b, xhat, h, rstd, static_cast<float>(kLayerNormEps))) return;
  for (int r = 0; r < rows; ++r) {
    const T* xr = x + idx(r, d);
    T mean = 0;
    for (int i = 0; i < d; ++i) mean += xr[i];
    mean /= static_cast<T>(d);
    T var = 0;
    for (int i = 0; i < d; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    var /= static_cast<T>(d);
    const T rs = T(1) / std::sqrt(var + static_cast<T>(kLayerNormEps));
    rstd[r] = rs;
    T* xh = xhat + idx(r, d);
    T* hr = h + idx(r, d);
    for (int i = 0; i < d; ++i) {
      xh[i] = (xr[i] - mean) * rs;
      hr[i] = xh[i] * w[i] + b[i];
    }
  }
}

// dx += LayerNorm's input gradient for dh; dw, db accumulate.
template <class T>
void layerNormBackward(int rows, int d, const T* dh, const T* xhat, const T* rstd, const T* w, T* dx, T* dw, T* db) {
  if constexpr (std::is_same_v<T, float>)
    if (layerNormBackward(rows, d, dh, xhat, rstd, w, dx, dw, db)) return;
  for (int r = 0; r < rows; ++r) {
    const T* g = dh + idx(r, d);
    const T* xh = xhat + idx(r, d);
    T sumG = 0, sumGX = 0;
    for (int i = 0; i < d; ++i) {
      const T gx = g[i] * w[i];
      sumG += gx;
      sumGX += gx * xh[i];
      dw[i] += g[i] * xh[i];
      db[i] += g[i];
    }
    const T meanG = sumG / static_cast<T>(d), meanGX = sumGX / static_cast<T>(d);
    T* out = dx + idx(r, d);
    for (int i = 0; i < d; ++i) out[i] += rstd[r] * (g[i] * w[i] - meanG - xh[i] * meanGX);
  }
}

// GELU (exact, erf; elementwise.hpp) or ReLU of n values, and the backward: du = dg * act'(u).
template <class T>
void activationForward(Activation a, std::size_t n, const T* u, T* g) {
  if (a == Activation::Gelu) return geluForward(n, u, g);
  for (std::size_t i = 0; i < n; ++i) g[i] = u[i] > T(0) ? u[i] : T(0);
}

template <class T>
void activationBackward(Activation a, std::size_t n, const T* u, const T* dg, T* du) {
  if (a == Activation::Gelu) return geluBackward(n, u, dg, du);
  for (std::size_t i = 0; i < n; ++i) du[i] = u[i] > T(0) ? dg[i] : T(0);
}

// Rotates (inverse = false) or un-rotates the pairs of every head of `rows` rows of d values;
// row r is at position r % length.
template <class T>
void rotateRows(const PositionTables<T>& pos, bool query, bool inverse, int rows, int length, int heads, int headDim, T* x) {
  const int np = pos.numPairs;
  const T* cosT = query ? pos.cosQ.data() : pos.cosK.data();
  const T* sinT = query ? pos.sinQ.data() : pos.sinK.data();
  for (int r = 0; r < rows; ++r) {
    const int p = r % length;
    const T* cr = cosT + idx(p, np);
    const T* sr = sinT + idx(p, np);
    for (int h = 0; h < heads; ++h) {
      T* v = x + idx(r, heads * headDim) + idx(h, headDim);
      for (int i = 0; i < np; ++i) {
        const T a = v[pos.pairA[static_cast<std::size_t>(i)]], b = v[pos.pairB[static_cast<std::size_t>(i)]];
        const T c = cr[i], s = inverse ? -sr[i] : sr[i];
        v[pos.pairA[static_cast<std::size_t>(i)]] = a * c - b * s;
        v[pos.pairB[static_cast<std::size_t>(i)]] = a * s + b * c;
      }
    }
  }
}

}  // namespace posviz::train
