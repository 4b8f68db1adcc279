// matmul.hpp: the dense products of the training core, row-major, in float32 or float64.
//
// WHAT
//   gemm    C = A B        A m x k, B k x n
//   gemmBt  C = A B^T      A m x k, B n x k
//   gemmAt  C = A^T B      A k x m, B k x n
//   with C += instead of = when accumulate. Every matrix has its own row stride (lda, ldb, ldc,
//   in elements), so a head's slice of a (tokens, dModel) activation is an operand as it is.
//
// HOW
//   Register tiles of 4 rows x 16 float columns (8 double; then 8 and 4 for narrow panels) held
//   in local sums over a block of 256 k at a time, the B panel staying in L1; gemmAt reads A down
//   its columns in the same tiles, gemmBt first transposes B into caller scratch (n*k elements).
//   Written with GCC vector extensions (no intrinsics), built for the baseline ISA and, on x86-64
//   with GCC, also for x86-64-v3 and v4 (picked at load time).
//
// DETERMINISM
//   Each C element is summed over k in order, one tile at a time: its bits depend on the inputs
//   and on the CPU's clone, never on threads or on which rows are computed along with it.
#pragma once

namespace posviz::train {

template <class T>
void gemm(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc, bool accumulate);
template <class T>
void gemmBt(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc, bool accumulate, T* scratch);
template <class T>
void gemmAt(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc, bool accumulate);
// dst (cols x rows, stride rows) = src^T, src rows x cols with stride lds.
template <class T>
void transposeInto(int rows, int cols, const T* src, int lds, T* dst);

}  // namespace posviz::train
