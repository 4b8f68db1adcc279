#include "core/train/elementwise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(POSVIZ_TRAIN_NO_CLONES)
#define POSVIZ_TRAIN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define POSVIZ_TRAIN_CLONES
#endif

// The helpers below take and return 32-byte vectors; they are always inlined, so no call ever
// passes one and the baseline ABI note GCC gives for them does not apply.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace posviz::train {

namespace {

typedef float VF __attribute__((vector_size(32)));
typedef std::int32_t VI __attribute__((vector_size(32)));
constexpr int kLanes = 8;

constexpr float kInvSqrt2 = static_cast<float>(1.0 / std::numbers::sqrt2);
constexpr float kInvSqrt2Pi = static_cast<float>(0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);

[[gnu::always_inline]] inline VF splat(float x) { return VF{} + x; }

// count lanes (the rest 0); a whole vector is one unaligned load, a tail goes lane by lane.
[[gnu::always_inline]] inline VF load(const float* p, int count) {
  VF v = splat(0.0f);
  if (count == kLanes) {
    std::memcpy(&v, p, sizeof v);
  } else {
    for (int k = 0; k < count; ++k) v[k] = p[k];
  }
  return v;
}

[[gnu::always_inline]] inline void store(float* p, VF v, int count) {
  if (count == kLanes) {
    std::memcpy(p, &v, sizeof v);
  } else {
    for (int k = 0; k < count; ++k) p[k] = v[k];
  }
}

// e^x, relative error below 2e-7 for x in [-87, 88].
[[gnu::always_inline]] inline VF vexp(VF x) {
  x = x < splat(-87.0f) ? splat(-87.0f) : x;
  x = x > splat(88.0f) ? splat(88.0f) : x;
  const VF shifter = splat(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
  const VF n = (x * splat(static_cast<float>(std::numbers::log2e)) + shifter) - shifter;
  const VF r = (x - n * splat(0.693145751953125f)) - n * splat(1.428606765330187e-06f);  // ln 2 in two parts
  VF p = splat(1.0f / 5040.0f);
  p = p * r + splat(1.0f / 720.0f);
  p = p * r + splat(1.0f / 120.0f);
  p = p * r + splat(1.0f / 24.0f);
  p = p * r + splat(1.0f / 6.0f);
  p = p * r + splat(0.5f);
  p = p * r + splat(1.0f);
  p = p * r + splat(1.0f);
  const VI bits = (__builtin_convertvector(n, VI) + 127) << 23;
  VF scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// Phi(u) and phi(u) (the normal CDF and density) from one exponential.
[[gnu::always_inline]] inline void normal(VF u, VF& cdf, VF& pdf) {
  const VF x = u * splat(kInvSqrt2);
  const VF ax = x < splat(0.0f) ? -x : x;
  const VF e = vexp(-(x * x));
  const VF t = splat(1.0f) / (splat(1.0f) + splat(0.3275911f) * ax);
  VF poly = splat(1.061405429f);
  poly = poly * t + splat(-1.453152027f);
  poly = poly * t + splat(1.421413741f);
  poly = poly * t + splat(-0.284496736f);
  poly = poly * t + splat(0.254829592f);
  const VF erfAbs = splat(1.0f) - poly * t * e;
  const VF erf = x < splat(0.0f) ? -erfAbs : erfAbs;
  cdf = splat(0.5f) * (splat(1.0f) + erf);
  pdf = splat(kInvSqrt2Pi) * e;
}

[[gnu::always_inline]] inline VF geluOf(VF x) {
  VF cdf, pdf;
  normal(x, cdf, pdf);
  return x * cdf;
}

[[gnu::always_inline]] inline VF geluSlopeOf(VF x) {
  VF cdf, pdf;
  normal(x, cdf, pdf);
  return cdf + x * pdf;
}

POSVIZ_TRAIN_CLONES void geluForwardFloat(std::size_t n, const float* u, float* g) {
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(g + i, geluOf(load(u + i, kLanes)), kLanes);
  if (i < n) {
    const int c = static_cast<int>(n - i);
    store(g + i, geluOf(load(u + i, c)), c);
  }
}

POSVIZ_TRAIN_CLONES void geluBackwardFloat(std::size_t n, const float* u, const float* dg, float* du) {
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(du + i, load(dg + i, kLanes) * geluSlopeOf(load(u + i, kLanes)), kLanes);
  if (i < n) {
    const int c = static_cast<int>(n - i);
    store(du + i, load(dg + i, c) * geluSlopeOf(load(u + i, c)), c);
  }
}

// Whole vectors only: lanes past count are read (the caller keeps them readable) but masked,
// and written back with the values they had.
POSVIZ_TRAIN_CLONES void softmaxRowFloat(float* row, int count, float scale, const float* bias) {
  const VI iota = {0, 1, 2, 3, 4, 5, 6, 7};
  const VF negInf = splat(-std::numeric_limits<float>::infinity());
  auto scores = [&](int j) {
    VF x = load(row + j, kLanes) * splat(scale);
    if (bias) x += load(bias + j, kLanes);
    return x;
  };
  VF mx = negInf;
  for (int j = 0; j < count; j += kLanes) {
    const VF x = scores(j);
    mx = iota < count - j && x > mx ? x : mx;
  }
  float m = mx[0];
  for (int k = 1; k < kLanes; ++k) m = std::max(m, mx[k]);
  VF sum = splat(0.0f);
  for (int j = 0; j < count; j += kLanes) {
    const VF old = load(row + j, kLanes);
    const VF e = iota < count - j ? vexp(scores(j) - splat(m)) : splat(0.0f);
    sum += e;
    store(row + j, iota < count - j ? e : old, kLanes);
  }
  float total = 0.0f;
  for (int k = 0; k < kLanes; ++k) total += sum[k];
  const VF inv = splat(1.0f / total);
  for (int j = 0; j < count; j += kLanes) {
    const VF v = load(row + j, kLanes);
    store(row + j, iota < count - j ? v * inv : v, kLanes);
  }
}

// LayerNorm rows of d floats, 8 at a time (d a multiple of 8; else the scalar form below).
POSVIZ_TRAIN_CLONES void layerNormForwardFloat(int rows, int d, const float* x, const float* w, const float* b, float* xhat, float* h,
                                               float* rstd, float eps) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<std::size_t>(r) * static_cast<std::size_t>(d);
    VF acc = splat(0.0f);
    for (int i = 0; i < d; i += kLanes) acc += load(xr + i, kLanes);
    float mean = 0.0f;
    for (int k = 0; k < kLanes; ++k) mean += acc[k];
    mean /= static_cast<float>(d);
    acc = splat(0.0f);
    for (int i = 0; i < d; i += kLanes) {
      const VF c = load(xr + i, kLanes) - splat(mean);
      acc += c * c;
    }
    float var = 0.0f;
    for (int k = 0; k < kLanes; ++k) var += acc[k];
    const float rs = 1.0f / std::sqrt(var / static_cast<float>(d) + eps);
    rstd[r] = rs;
    float* xh = xhat + static_cast<std::size_t>(r) * static_cast<std::size_t>(d);
    float* hr = h + static_cast<std::size_t>(r) * static_cast<std::size_t>(d);
    for (int i = 0; i < d; i += kLanes) {
      const VF n = (load(xr + i, kLanes) - splat(mean)) * splat(rs);
      store(xh + i, n, kLanes);
      store(hr + i, n * load(w + i, kLanes) + load(b + i, kLanes), kLanes);
    }
  }
}

POSVIZ_TRAIN_CLONES void layerNormBackwardFloat(int rows, int d, const float* dh, const float* xhat, const float* rstd, const float* w,
                                                float* dx, float* dw, float* db) {
  for (int r = 0; r < rows; ++r) {
    const std::size_t row = static_cast<std::size_t>(r) * static_cast<std::size_t>(d);
    VF sg = splat(0.0f), sgx = splat(0.0f);
    for (int i = 0; i < d; i += kLanes) {
      const VF g = load(dh + row + i, kLanes), xh = load(xhat + row + i, kLanes), gw = g * load(w + i, kLanes);
      sg += gw;
      sgx += gw * xh;
      store(dw + i, load(dw + i, kLanes) + g * xh, kLanes);
      store(db + i, load(db + i, kLanes) + g, kLanes);
    }
    float sumG = 0.0f, sumGX = 0.0f;
    for (int k = 0; k < kLanes; ++k) {
      sumG += sg[k];
      sumGX += sgx[k];
    }
    const VF meanG = splat(sumG / static_cast<float>(d)), meanGX = splat(sumGX / static_cast<float>(d)), rs = splat(rstd[r]);
    for (int i = 0; i < d; i += kLanes) {
      const VF g = load(dh + row + i, kLanes), xh = load(xhat + row + i, kLanes);
      store(dx + row + i, load(dx + row + i, kLanes) + rs * (g * load(w + i, kLanes) - meanG - xh * meanGX), kLanes);
    }
  }
}

}  // namespace

bool layerNormForward(int rows, int d, const float* x, const float* w, const float* b, float* xhat, float* h, float* rstd, float eps) {
  if (d % kLanes != 0) return false;
  layerNormForwardFloat(rows, d, x, w, b, xhat, h, rstd, eps);
  return true;
}

bool layerNormBackward(int rows, int d, const float* dh, const float* xhat, const float* rstd, const float* w, float* dx, float* dw, float* db) {
  if (d % kLanes != 0) return false;
  layerNormBackwardFloat(rows, d, dh, xhat, rstd, w, dx, dw, db);
  return true;
}

void geluForward(std::size_t n, const float* u, float* g) { geluForwardFloat(n, u, g); }
void geluBackward(std::size_t n, const float* u, const float* dg, float* du) { geluBackwardFloat(n, u, dg, du); }
void softmaxRow(float* row, int count, float scale, const float* bias) { softmaxRowFloat(row, count, scale, bias); }

void geluForward(std::size_t n, const double* u, double* g) {
  for (std::size_t i = 0; i < n; ++i) g[i] = 0.5 * u[i] * (1.0 + std::erf(u[i] / std::numbers::sqrt2));
}

void geluBackward(std::size_t n, const double* u, const double* dg, double* du) {
  const double invSqrt2Pi = 0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2;
  for (std::size_t i = 0; i < n; ++i) {
    const double cdf = 0.5 * (1.0 + std::erf(u[i] / std::numbers::sqrt2));
    du[i] = dg[i] * (cdf + u[i] * invSqrt2Pi * std::exp(-0.5 * u[i] * u[i]));
  }
}

void softmaxRow(double* row, int count, double scale, const double* bias) {
  for (int j = 0; j < count; ++j) row[j] = row[j] * scale + (bias ? bias[j] : 0.0);
  double m = row[0];
  for (int j = 1; j < count; ++j) m = std::max(m, row[j]);
  double sum = 0.0;
  for (int j = 0; j < count; ++j) {
    row[j] = std::exp(row[j] - m);
    sum += row[j];
  }
  const double inv = 1.0 / sum;
  for (int j = 0; j < count; ++j) row[j] *= inv;
}

}  // namespace posviz::train
