// kernels.hpp: the fast paths behind core's grids, writing into caller memory.
//
// WHAT
//   Each kernel fills a row-major float32 buffer the caller owns (the "...Into" form), with the
//   same numbers core's reference functions give: the math (frequencies, slopes, scores by
//   offset) comes in as arguments computed by core (sinusoidalFrequency, computeRopeFrequencies,
//   alibiSlopes, ropeScoreByOffset), so it stays defined in one place.
//
// HOW
//   - sin/cos over positions: a float64 rotor per pair (core/fast_trig.hpp), restarted from
//     exact values at every position that is a multiple of kRotorRestart; within 1e-6 absolute
//     of float64 sin/cos (in practice ~1e-13 before the float32 rounding). A cell's bits depend
//     only on its position, never on firstPos, the window or the thread split: a window (or a
//     KV-cache step) equals the same rows of the full grid exactly.
//   - Toeplitz grids (ALiBi, RoPE scores for fixed q and k): the value depends only on the
//     offset j - i, so row i is a contiguous window of one table of 2T-1 values: a copy.
//   - Outputs of at least streamMinBytes go out with non-temporal (streaming) stores, so a grid
//     far larger than the caches does not evict them or pay for reading the lines it overwrites:
//     straight from registers when a row starts vector-aligned, else through a small aligned
//     scratch row and a copy that aligns itself. Any output alignment works.
//   - RoPE apply rotates in float32 with float32 cos/sin (scale included): within a few float32
//     ulp of |x| (<= 2e-6 * scale * max|x|) of core's float64 rotation, ropeRotate.
//   - SSE2 everywhere (x86-64 baseline; in the browser build wasm SIMD through emscripten's SSE2
//     headers); on x86-64, AVX2 and AVX-512 (F + DQ) clones are picked at run time when the CPU
//     has them. All give identical bits (the same float64 operations, no contraction into FMA).
//   - Outputs of at least parallelMinBytes are split over threads by rows (core/parallel.hpp).
//
// LAYOUT
//   Position grids: rows = positions firstPos .. firstPos+rows-1. RoPE apply: numHeads blocks of
//   numTokens rows of headDim (a (heads, tokens, headDim) tensor, e.g. q[b] of (B, H, T, d)),
//   token t at position firstPos + t. Square grids: row = query position i, col = key position j.
//
// ERRORS
//   std::invalid_argument naming the kernel, parameter and value (core/check.hpp), before anything
//   is written. Outputs must not overlap inputs except where a kernel says "in may equal out".
#pragma once

#include <cstddef>

#include "core/parallel.hpp"

namespace posviz::kernels {

// Auto: the widest clone the CPU runs (AVX-512, AVX2, SSE2); Avx2: at most AVX2; Baseline: SSE2.
// Off x86-64 (the browser build) only SSE2 is compiled, and every choice runs it.
enum class KernelIsa { Auto, Avx2, Baseline };

struct KernelOptions {
  int maxThreads = 0;                                   // 0 = hardware threads; 1 = caller only
  std::size_t parallelMinBytes = kDefaultParallelMinBytes;  // smaller outputs stay on one thread
  std::size_t streamMinBytes = std::size_t{4} << 20;    // outputs this large bypass the caches
  KernelIsa isa = KernelIsa::Auto;
};

// "avx512", "avx2" or "sse2": what KernelIsa::Auto runs on this CPU.
const char* activeIsaName();

// [SECTION] sinusoidal (core/sinusoidal.hpp)
// omega: numPairs frequencies (sinusoidalFrequency(p, i)), rad/position, finite.
// Interleaved: out[r*2n + 2i] = sin(pos*omega_i), out[r*2n + 2i+1] = cos(pos*omega_i).
void sinusoidalInterleavedInto(const double* omega, int numPairs, int rows, long long firstPos, float* out,
                               const KernelOptions& opt = {});
// Tensor2Tensor: out[r*2n + i] = sin(pos*omega_i), out[r*2n + n + i] = cos(pos*omega_i).
void sinusoidalT2TInto(const double* omega, int numPairs, int rows, long long firstPos, float* out,
                       const KernelOptions& opt = {});

// [SECTION] RoPE grids (core/rope.hpp), rows x numPairs
// cosOut[r*n + i] = scale * cos(pos*invFreq_i), sinOut likewise; either may be null (not both).
void ropeCosSinInto(const double* invFreq, int numPairs, int rows, long long firstPos, double scale, float* cosOut,
                    float* sinOut, const KernelOptions& opt = {});
// out[r*n + i] = pos*invFreq_i mod 2*pi, in [0, 2*pi).
void ropeAngleInto(const double* invFreq, int numPairs, int rows, long long firstPos, float* out,
                   const KernelOptions& opt = {});

// [SECTION] RoPE apply (core/rope.hpp ropeApplyInto)
// Rotates numHeads * numTokens rows of headDim: pair i is (i, i + numPairs) in HalfSplit and
// (2i, 2i+1) in Interleaved; dims from 2*numPairs on pass through. in may equal out.
// From tables: cosTable/sinTable are numTokens x numPairs (ropeCosSinInto, scale included).
void ropeApplyHalfSplitInto(const float* cosTable, const float* sinTable, int numPairs, int headDim, int numTokens,
                            int numHeads, const float* in, float* out, const KernelOptions& opt = {});
void ropeApplyInterleavedInto(const float* cosTable, const float* sinTable, int numPairs, int headDim,
                              int numTokens, int numHeads, const float* in, float* out,
                              const KernelOptions& opt = {});
// From frequencies: cos/sin (times scale, the attention factor) of (firstPos + t) * invFreq_i
// are made on the fly, a block of tokens at a time, and shared by all heads.
void ropeApplyHalfSplitInto(const double* invFreq, int numPairs, double scale, int headDim, int numTokens,
                            int numHeads, long long firstPos, const float* in, float* out,
                            const KernelOptions& opt = {});
void ropeApplyInterleavedInto(const double* invFreq, int numPairs, double scale, int headDim, int numTokens,
                              int numHeads, long long firstPos, const float* in, float* out,
                              const KernelOptions& opt = {});

// [SECTION] Toeplitz grids
// ALiBi (core/alibi.hpp): out[i*T + j] = -slope*|i-j| (float64, then rounded); causal: -slope*(i-j)
// for j <= i and -inf for j > i.
void alibiBiasInto(double slope, int numPositions, bool causal, float* out, const KernelOptions& opt = {});
// numHeads grids of T x T, head-major: out[(h*T + i)*T + j] with slopes[h].
void alibiVolumeInto(const double* slopes, int numHeads, int numPositions, bool causal, float* out,
                     const KernelOptions& opt = {});
// out[m*T + n] = byOffset[m - n + T - 1]: byOffset holds the 2T-1 values of s(r) for
// r = -(T-1) .. T-1 (ropeScoreByOffset), T = numPositions.
void ropeScoreFillInto(const double* byOffset, int numPositions, float* out, const KernelOptions& opt = {});

// The 2T-1 values of a fixed-q, fixed-k score by offset: out[r + T-1] = constant +
// sum_i cosCoef_i cos(r w_i) + sinCoef_i sin(r w_i) for r = -(T-1) .. T-1, T = numPositions. For
// <R_m q, R_n k> (no scaling), with pair i = dims (a, b) and attention factor f:
// cosCoef_i = (q_a k_a + q_b k_b) f^2, sinCoef_i = (q_a k_b - q_b k_a) f^2, constant = the
// pass-through dims' dot product; core's ropeScoreByOffset defines them.
void ropeScoreOffsetsInto(const double* invFreq, const double* cosCoef, const double* sinCoef, int numPairs,
                          double constant, int numPositions, double* out, const KernelOptions& opt = {});

// The same sum at count consecutive positions from firstPos (which may be negative):
// out[k] = constant + sum_i cosCoef_i cos(x w_i) + sinCoef_i sin(x w_i), x = firstPos + k, k < count.
// Any trigonometric series over positions: the extrapolation lab's scores by distance, a
// sinusoidal table's dot product with one vector. The split over threads follows the work
// (count x numPairs), not the output; x w_i must stay within fasttrig's fast range for speed.
void trigSeriesInto(const double* invFreq, const double* cosCoef, const double* sinCoef, int numPairs, double constant,
                    long long firstPos, long long count, double* out, const KernelOptions& opt = {});

// [SECTION] learned tables (core/learned.hpp)
// Rows firstPos .. firstPos+numPositions-1 of a tableRows x dModel table; all must exist
// (std::out_of_range names the missing row, as learnedLookup does).
void learnedLookupInto(const float* table, int tableRows, int dModel, long long firstPos, int numPositions,
                       float* out, const KernelOptions& opt = {});

// [SECTION] exact-average loops (core/exact_average.cpp): float64, one thread, any alignment
// dst[j] += c[j] * x + s[j] * y for j < n; dst must not overlap c or s.
void addScaledPairInto(double* dst, const double* c, const double* s, double x, double y, std::size_t n,
                       KernelIsa isa = KernelIsa::Auto);
// out[j] = a[j] * b[j] for j < n; out may equal a or b.
void multiplyInto(double* out, const double* a, const double* b, std::size_t n, KernelIsa isa = KernelIsa::Auto);
// out[j] = d[j] * (a[j] + b[j]) for j < n; out may equal d, a or b.
void multiplySumInto(double* out, const double* d, const double* a, const double* b, std::size_t n,
                     KernelIsa isa = KernelIsa::Auto);
// (zc[u] + i zs[u]) *= (stepCos[u] + i stepSin[u]) for u < n: each phase advanced by its own
// rotation. The four arrays must not overlap.
void rotatePhasesInPlace(double* zc, double* zs, const double* stepCos, const double* stepSin, std::size_t n,
                         KernelIsa isa = KernelIsa::Auto);

// [SECTION] toy-model loops (core/attention.cpp, core/comparison.cpp): float64, one thread, any alignment
// dst[j] += x[j] * a for j < n; dst must not overlap x.
void addScaledInto(double* dst, const double* x, double a, std::size_t n, KernelIsa isa = KernelIsa::Auto);
// One query against kColumnDots keys laid out dimension-major (kt[i * kColumnDots + c] = k_c[i],
// i < dim): out[c] = sum over i, in order, of q[i] * k_c[i], for c < kColumnDots. Each sum has
// the bits of a scalar dot product; unused columns may hold anything (zeros give 0).
constexpr std::size_t kColumnDots = 16;
void columnDotsInto(const double* q, const double* kt, std::size_t dim, double* out, KernelIsa isa = KernelIsa::Auto);

// [SECTION] building blocks, exposed for the benchmarks
// Copies count floats (no overlap), with streaming stores when stream is true.
void copyFloats(float* dst, const float* src, std::size_t count, bool stream);
// Fills count floats with value, with streaming stores when stream is true. The benchmarks'
// store-bandwidth yardstick.
void fillFloats(float* dst, float value, std::size_t count, bool stream);

}  // namespace posviz::kernels
