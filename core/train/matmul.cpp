#include "core/train/matmul.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(POSVIZ_TRAIN_NO_CLONES)
#define POSVIZ_TRAIN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define POSVIZ_TRAIN_WIDE __attribute__((target("arch=x86-64-v4")))
#else
#define POSVIZ_TRAIN_CLONES
#endif

namespace posviz::train {

namespace {

constexpr int kBlockK = 256;

inline std::size_t at(int row, int stride) { return static_cast<std::size_t>(row) * static_cast<std::size_t>(stride); }

// Element (r, p) of the left operand: A's own (row-major, stride lda) or, with TA, A^T's (A read
// down its columns), so C = A^T B needs no transposed copy.
template <bool TA>
[[gnu::always_inline]] inline std::size_t aAt(int r, int p, int lda) {
  return TA ? at(p, lda) + static_cast<std::size_t>(r) : at(r, lda) + static_cast<std::size_t>(p);
}

// MR rows x NV vectors of C over k terms, the sums held in vector registers (GCC vector
// extensions: VB-byte vectors, 32 or 64; split into halves where the ISA is narrower).
template <class T, bool TA, int MR, int NV, int VB>
[[gnu::always_inline]] inline void tile(int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc, bool accumulate) {
  typedef T V __attribute__((vector_size(VB)));
  constexpr int kLanes = static_cast<int>(sizeof(V) / sizeof(T));
  V sum[MR][NV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      if (accumulate)
        std::memcpy(&sum[r][v], c + at(r, ldc) + static_cast<std::size_t>(v * kLanes), sizeof(V));
      else
        sum[r][v] = V{};
    }
  for (int p = 0; p < k; ++p) {
    const T* bp = b + at(p, ldb);
    V bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) std::memcpy(&bv[v], bp + v * kLanes, sizeof(V));
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const T av = a[aAt<TA>(r, p, lda)];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) sum[r][v] += av * bv[v];
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) std::memcpy(c + at(r, ldc) + static_cast<std::size_t>(v * kLanes), &sum[r][v], sizeof(V));
}

// Any mr x nr block (the edges), the same order of summation.
template <class T, bool TA>
[[gnu::always_inline]] inline void edge(int mr, int nr, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc, bool accumulate) {
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < nr; ++j) {
      T s = accumulate ? c[at(r, ldc) + static_cast<std::size_t>(j)] : T(0);
      for (int p = 0; p < k; ++p) s += a[aAt<TA>(r, p, lda)] * b[at(p, ldb) + static_cast<std::size_t>(j)];
      c[at(r, ldc) + static_cast<std::size_t>(j)] = s;
    }
  }
}

template <class T, bool TA, int NV, int VB>
[[gnu::always_inline]] inline void panel(int m, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc, bool accumulate) {
  int i = 0;
  for (; i + 6 <= m; i += 6) tile<T, TA, 6, NV, VB>(k, a + aAt<TA>(i, 0, lda), lda, b, ldb, c + at(i, ldc), ldc, accumulate);
  for (; i + 4 <= m; i += 4) tile<T, TA, 4, NV, VB>(k, a + aAt<TA>(i, 0, lda), lda, b, ldb, c + at(i, ldc), ldc, accumulate);
  for (; i + 2 <= m; i += 2) tile<T, TA, 2, NV, VB>(k, a + aAt<TA>(i, 0, lda), lda, b, ldb, c + at(i, ldc), ldc, accumulate);
  for (; i < m; ++i) tile<T, TA, 1, NV, VB>(k, a + aAt<TA>(i, 0, lda), lda, b, ldb, c + at(i, ldc), ldc, accumulate);
}

// Columns j of C in panels of two vectors, then one, then (VB 64) 32-byte vectors, then scalars.
template <class T, bool TA, int VB>
[[gnu::always_inline]] inline void columns(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc, bool accumulate) {
  constexpr int kLanes = static_cast<int>(VB / sizeof(T));
  int j = 0;
  for (; j + 2 * kLanes <= n; j += 2 * kLanes) panel<T, TA, 2, VB>(m, k, a, lda, b + j, ldb, c + j, ldc, accumulate);
  for (; j + kLanes <= n; j += kLanes) panel<T, TA, 1, VB>(m, k, a, lda, b + j, ldb, c + j, ldc, accumulate);
  if (j == n) return;
  if constexpr (VB > 32)
    columns<T, TA, 32>(m, n - j, k, a, lda, b + j, ldb, c + j, ldc, accumulate);
  else
    edge<T, TA>(m, n - j, k, a, lda, b + j, ldb, c + j, ldc, accumulate);
}

template <class T, bool TA, int VB>
[[gnu::always_inline]] inline void gemmImpl(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate)
      for (int i = 0; i < m; ++i) std::fill(c + at(i, ldc), c + at(i, ldc) + n, T(0));
    return;
  }
  for (int p0 = 0; p0 < k; p0 += kBlockK) {
    const int kc = std::min(kBlockK, k - p0);
    const bool acc = accumulate || p0 > 0;
    const T* ap = a + aAt<TA>(0, p0, lda);
    columns<T, TA, VB>(m, n, kc, ap, lda, b + at(p0, ldb), ldb, c, ldc, acc);
  }
}

POSVIZ_TRAIN_CLONES void gemmFloat(bool ta, int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
                                   bool acc) {
  if (ta)
    gemmImpl<float, true, 32>(m, n, k, a, lda, b, ldb, c, ldc, acc);
  else
    gemmImpl<float, false, 32>(m, n, k, a, lda, b, ldb, c, ldc, acc);
}

POSVIZ_TRAIN_CLONES void gemmDouble(bool ta, int m, int n, int k, const double* a, int lda, const double* b, int ldb, double* c,
                                    int ldc, bool acc) {
  if (ta)
    gemmImpl<double, true, 32>(m, n, k, a, lda, b, ldb, c, ldc, acc);
  else
    gemmImpl<double, false, 32>(m, n, k, a, lda, b, ldb, c, ldc, acc);
}

#ifdef POSVIZ_TRAIN_WIDE
// AVX-512: 16 floats per vector. Each C entry is the same sum in the same order as gemmFloat's
// (lanes are independent), so the result's bits do not depend on which one runs.
POSVIZ_TRAIN_WIDE void gemmFloatWide(bool ta, int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
                                     bool acc) {
  if (ta)
    gemmImpl<float, true, 64>(m, n, k, a, lda, b, ldb, c, ldc, acc);
  else
    gemmImpl<float, false, 64>(m, n, k, a, lda, b, ldb, c, ldc, acc);
}

const bool kHasWide = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq");
#endif

template <class T>
void gemmAny(bool ta, int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc, bool accumulate) {
  if constexpr (sizeof(T) == sizeof(float)) {
#ifdef POSVIZ_TRAIN_WIDE
    if (kHasWide && n >= 16) return gemmFloatWide(ta, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
#endif
    gemmFloat(ta, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
  } else {
    gemmDouble(ta, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
  }
}

}  // namespace

template <class T>
void gemm(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc, bool accumulate) {
  gemmAny(false, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

template <class T>
void transposeInto(int rows, int cols, const T* src, int lds, T* dst) {
  constexpr int kB = 16;
  for (int i0 = 0; i0 < rows; i0 += kB) {
    const int i1 = std::min(rows, i0 + kB);
    for (int j0 = 0; j0 < cols; j0 += kB) {
      const int j1 = std::min(cols, j0 + kB);
      for (int i = i0; i < i1; ++i)
        for (int j = j0; j < j1; ++j) dst[at(j, rows) + static_cast<std::size_t>(i)] = src[at(i, lds) + static_cast<std::size_t>(j)];
    }
  }
}

template <class T>
void gemmBt(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc, bool accumulate, T* scratch) {
  transposeInto(n, k, b, ldb, scratch);  // k x n
  gemm(m, n, k, a, lda, scratch, n, c, ldc, accumulate);
}

template <class T>
void gemmAt(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc, bool accumulate) {
  gemmAny(true, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

#define POSVIZ_TRAIN_INSTANTIATE(T)                                                                              \
  template void gemm<T>(int, int, int, const T*, int, const T*, int, T*, int, bool);                             \
  template void gemmBt<T>(int, int, int, const T*, int, const T*, int, T*, int, bool, T*);                       \
  template void gemmAt<T>(int, int, int, const T*, int, const T*, int, T*, int, bool);                           \
  template void transposeInto<T>(int, int, const T*, int, T*);
POSVIZ_TRAIN_INSTANTIATE(float)
POSVIZ_TRAIN_INSTANTIATE(double)
#undef POSVIZ_TRAIN_INSTANTIATE

}  // namespace posviz::train
