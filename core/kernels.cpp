// kernels.cpp: validation, ISA dispatch and the thread split around the loops of
// core/kernels_simd.inl (compiled three times on x86-64: SSE2 baseline, AVX2 and AVX-512 clones;
// elsewhere once, the SSE2 baseline: the browser build's wasm SIMD through emscripten's SSE2
// headers, -msimd128 -msse2, with the same bits).
//
// [SECTION] helpers       aligned scratch, angle reduction
// [SECTION] clones        the .inl under each ISA
// [SECTION] dispatch      which clone, how many threads, streaming or not
// [SECTION] kernels       the public functions, in kernels.hpp's order
#include "core/angle.hpp"
#include "core/kernels.hpp"

// x86-64 compiles every clone and picks one at run time; elsewhere only the baseline is compiled,
// through the platform's SSE2 headers (emscripten's map them onto wasm SIMD).
#if defined(__x86_64__)
#define POSVIZ_KERNELS_X86_64 1
#else
#define POSVIZ_KERNELS_X86_64 0
#endif

#if !POSVIZ_KERNELS_X86_64
#if !defined(__SSE2__)
#error "core/kernels.cpp needs SSE2 intrinsics: x86-64, or emscripten with -msimd128 -msse2"
#endif
#include <emmintrin.h>
#elif defined(__clang__)
#include <immintrin.h>
#else
// GCC 12 reports the deliberate _mm*_undefined_* of its own AVX-512 intrinsics as
// maybe-uninitialized once they are inlined (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "core/fast_trig.hpp"

namespace posviz::kernels {
namespace detail {

// [SECTION] helpers
constexpr int kMaxLanesF = 16;  // the widest clone's float lanes; scratch rows pad to it

inline int roundUp(int n, int m) { return (n + m - 1) / m * m; }

// fmod(a, 2*pi) in [0, 2*pi): core/angle.hpp's one definition.
inline double angleMod2Pi(double a) { return wrapAngle(a); }

// A zeroed, 64-byte aligned array for scratch rows (vector loads and stores need alignment).
template <class T>
class AlignedArray {
 public:
  explicit AlignedArray(std::size_t count)
      : size_(std::max<std::size_t>(count, 1)),
        data_(static_cast<T*>(::operator new(size_ * sizeof(T), std::align_val_t{64}))) {
    std::fill(data_, data_ + size_, T{});
  }
  ~AlignedArray() { ::operator delete(data_, std::align_val_t{64}); }
  AlignedArray(const AlignedArray&) = delete;
  AlignedArray& operator=(const AlignedArray&) = delete;
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](int i) { return data_[i]; }

 private:
  std::size_t size_;
  T* data_;
};

// [SECTION] clones
namespace sse2 {
#define POSVIZ_SIMD_AVX2 0
#include "core/kernels_simd.inl"
#undef POSVIZ_SIMD_AVX2
}  // namespace sse2

#if POSVIZ_KERNELS_X86_64
// Each clone's functions get the clone's target; a*b + c stays two roundings everywhere (AVX-512F
// brings FMA along), so every clone gives the same bits.
#if defined(__clang__)
#pragma clang fp contract(off)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
namespace avx2 {
#define POSVIZ_SIMD_AVX2 1
#include "core/kernels_simd.inl"
#undef POSVIZ_SIMD_AVX2
}  // namespace avx2
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push(__attribute__((target("avx512f,avx512dq"))), apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq")
#pragma GCC optimize("fp-contract=off")
#endif
namespace avx512 {
#define POSVIZ_SIMD_AVX512 1
#include "core/kernels_simd.inl"
#undef POSVIZ_SIMD_AVX512
}  // namespace avx512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#else
// The baseline only: every Isa runs it.
namespace avx2 = sse2;
namespace avx512 = sse2;
#endif

// [SECTION] dispatch
enum class Isa { Sse2, Avx2, Avx512 };

Isa bestIsa() {
#if POSVIZ_KERNELS_X86_64
  static const Isa best = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) return Isa::Avx512;
    if (__builtin_cpu_supports("avx2")) return Isa::Avx2;
    return Isa::Sse2;
  }();
  return best;
#else
  return Isa::Sse2;  // the one clone compiled
#endif
}

Isa chooseIsa(KernelIsa wanted) {
  const Isa best = bestIsa();
  switch (wanted) {
    case KernelIsa::Baseline: return Isa::Sse2;
    case KernelIsa::Avx2: return best == Isa::Sse2 ? Isa::Sse2 : Isa::Avx2;
    case KernelIsa::Auto: break;
  }
  return best;
}

// Calls the clone of isa: POSVIZ_DISPATCH(p.isa, copyRow(dst, src, n, true)).
#define POSVIZ_DISPATCH(isa, ...)           \
  do {                                      \
    switch (isa) {                          \
      case Isa::Avx512: avx512::__VA_ARGS__; break; \
      case Isa::Avx2: avx2::__VA_ARGS__; break;     \
      case Isa::Sse2: sse2::__VA_ARGS__; break;     \
    }                                       \
  } while (false)

struct Plan {
  int threads = 1;
  bool stream = false;
  Isa isa = Isa::Sse2;
};

Plan plan(const KernelOptions& opt, std::size_t outputBytes) {
  Plan p;
  p.threads = threadsForBytes(outputBytes, opt.maxThreads, opt.parallelMinBytes);
  p.stream = outputBytes >= opt.streamMinBytes;
  p.isa = chooseIsa(opt.isa);
  return p;
}

// Runs body(begin, end) over row blocks and fences streaming stores before each block
// reports done, so the joining thread sees every value.
template <class Body>
void runRows(const Plan& p, long long rows, long long grain, Body&& body) {
  parallelFor(rows, p.threads, grain, [&](long long begin, long long end) {
    body(begin, end);
    if (p.stream) _mm_sfence();
  });
}

std::size_t floatBytes(std::size_t a, std::size_t b = 1, std::size_t c = 1) { return a * b * c * sizeof(float); }

void requireOut(const char* fn, const char* param, const void* p) {
  if (p == nullptr) failArgument(fn, std::string(param) + " must not be null");
}

void requireFrequencies(const char* fn, const char* param, const double* w, int n) {
  requireOut(fn, param, w);
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(w[i]))
      failArgument(fn, std::string(param) + "[" + std::to_string(i) + "] must be finite, got " + formatValue(w[i]));
  }
}

// Positions are float64 in the math: past 2^53 they stop being exact.
void requirePositions(const char* fn, int rows, long long firstPos) {
  requirePositiveInt(fn, "rows", rows);
  requireNonNegativeInt(fn, "firstPos", firstPos);
  constexpr long long kMaxExact = 1LL << 53;
  if (firstPos > kMaxExact - rows)
    failArgument(fn, "firstPos + rows must be at most 2^53, got firstPos " + std::to_string(firstPos));
}

void validateApply(const char* fn, int numPairs, int headDim, int numTokens, int numHeads, const float* in,
                   const float* out) {
  requirePositiveInt(fn, "numPairs", numPairs);
  requirePositiveInt(fn, "headDim", headDim);
  if (2LL * numPairs > headDim)
    failArgument(fn, "numPairs must be at most headDim/2 = " + std::to_string(headDim / 2) + ", got " +
                         std::to_string(numPairs));
  requirePositiveInt(fn, "numTokens", numTokens);
  requirePositiveInt(fn, "numHeads", numHeads);
  requireOut(fn, "in", in);
  requireOut(fn, "out", out);
}

}  // namespace detail

using namespace detail;

const char* activeIsaName() {
  switch (bestIsa()) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    case Isa::Sse2: break;
  }
  return "sse2";
}

// [SECTION] kernels
void sinusoidalInterleavedInto(const double* omega, int numPairs, int rows, long long firstPos, float* out,
                               const KernelOptions& opt) {
  const char* fn = "sinusoidalInterleavedInto";
  requirePositiveInt(fn, "numPairs", numPairs);
  requireFrequencies(fn, "omega", omega, numPairs);
  requirePositions(fn, rows, firstPos);
  requireOut(fn, "out", out);
  const Plan p = plan(opt, floatBytes(rows, 2 * static_cast<std::size_t>(numPairs)));
  runRows(p, rows, fasttrig::kRotorRestart, [&](long long b, long long e) {
    POSVIZ_DISPATCH(p.isa, sinusoidalInterleavedRows(omega, numPairs, firstPos, b, e, out, p.stream));
  });
}

void sinusoidalT2TInto(const double* omega, int numPairs, int rows, long long firstPos, float* out,
                       const KernelOptions& opt) {
  const char* fn = "sinusoidalT2TInto";
  requirePositiveInt(fn, "numPairs", numPairs);
  requireFrequencies(fn, "omega", omega, numPairs);
  requirePositions(fn, rows, firstPos);
  requireOut(fn, "out", out);
  const Plan p = plan(opt, floatBytes(rows, 2 * static_cast<std::size_t>(numPairs)));
  runRows(p, rows, fasttrig::kRotorRestart, [&](long long b, long long e) {
    POSVIZ_DISPATCH(p.isa, sinusoidalT2TRows(omega, numPairs, firstPos, b, e, out, p.stream));
  });
}

void ropeCosSinInto(const double* invFreq, int numPairs, int rows, long long firstPos, double scale, float* cosOut,
                    float* sinOut, const KernelOptions& opt) {
  const char* fn = "ropeCosSinInto";
  requirePositiveInt(fn, "numPairs", numPairs);
  requireFrequencies(fn, "invFreq", invFreq, numPairs);
  requirePositions(fn, rows, firstPos);
  requireFinite(fn, "scale", scale);
  if (cosOut == nullptr && sinOut == nullptr) failArgument(fn, "cosOut and sinOut must not both be null");
  const std::size_t outputs = (cosOut ? 1 : 0) + (sinOut ? 1 : 0);
  const Plan p = plan(opt, floatBytes(rows, static_cast<std::size_t>(numPairs), outputs));
  runRows(p, rows, fasttrig::kRotorRestart, [&](long long b, long long e) {
    POSVIZ_DISPATCH(p.isa, ropeCosSinRows(invFreq, numPairs, firstPos, scale, b, e, cosOut, sinOut, p.stream));
  });
}

void ropeAngleInto(const double* invFreq, int numPairs, int rows, long long firstPos, float* out,
                   const KernelOptions& opt) {
  const char* fn = "ropeAngleInto";
  requirePositiveInt(fn, "numPairs", numPairs);
  requireFrequencies(fn, "invFreq", invFreq, numPairs);
  requirePositions(fn, rows, firstPos);
  requireOut(fn, "out", out);
  const Plan p = plan(opt, floatBytes(rows, static_cast<std::size_t>(numPairs)));
  runRows(p, rows, fasttrig::kRotorRestart, [&](long long b, long long e) {
    POSVIZ_DISPATCH(p.isa, ropeAngleRows(invFreq, numPairs, firstPos, b, e, out, p.stream));
  });
}

namespace {

template <bool Interleaved>
void applyFromTables(const char* fn, const float* cosTable, const float* sinTable, int numPairs, int headDim,
                     int numTokens, int numHeads, const float* in, float* out, const KernelOptions& opt) {
  validateApply(fn, numPairs, headDim, numTokens, numHeads, in, out);
  requireOut(fn, "cosTable", cosTable);
  requireOut(fn, "sinTable", sinTable);
  const long long rows = static_cast<long long>(numHeads) * numTokens;
  const Plan p = plan(opt, floatBytes(static_cast<std::size_t>(rows), static_cast<std::size_t>(headDim)));
  runRows(p, rows, 16, [&](long long b, long long e) {
    POSVIZ_DISPATCH(p.isa, applyTableRows<Interleaved>(cosTable, sinTable, numPairs, headDim, numTokens, 0, numTokens, b, e, in, out, p.stream));
  });
}

template <bool Interleaved>
void applyFromFrequencies(const char* fn, const double* invFreq, int numPairs, double scale, int headDim,
                          int numTokens, int numHeads, long long firstPos, const float* in, float* out,
                          const KernelOptions& opt) {
  validateApply(fn, numPairs, headDim, numTokens, numHeads, in, out);
  requireFrequencies(fn, "invFreq", invFreq, numPairs);
  requireFinite(fn, "scale", scale);
  requirePositions(fn, numTokens, firstPos);
  const Plan p = plan(opt, floatBytes(static_cast<std::size_t>(numHeads), static_cast<std::size_t>(numTokens),
                                      static_cast<std::size_t>(headDim)));
  // Each thread takes a range of tokens and walks it a chunk at a time: cos/sin tables for the
  // chunk (small enough to stay in L2) made by the rotors, then the chunk's rows in every head.
  // The bits equal ropeCosSinInto's tables, whatever the split.
  constexpr long long kChunkTokens = fasttrig::kRotorRestart;
  const std::size_t nn = static_cast<std::size_t>(numPairs);
  runRows(p, numTokens, kChunkTokens, [&](long long b, long long e) {
    std::vector<float> cosTable(static_cast<std::size_t>(std::min<long long>(e - b, kChunkTokens)) * nn);
    std::vector<float> sinTable(cosTable.size());
    for (long long chunkStart = b; chunkStart < e; chunkStart += kChunkTokens) {
      const long long len = std::min<long long>(kChunkTokens, e - chunkStart);
      POSVIZ_DISPATCH(p.isa, ropeCosSinRows(invFreq, numPairs, firstPos + chunkStart, scale, 0, len, cosTable.data(),
                                            sinTable.data(), false));
      POSVIZ_DISPATCH(p.isa, applyTableRows<Interleaved>(cosTable.data(), sinTable.data(), numPairs, headDim, numTokens,
                                                         chunkStart, len, 0, numHeads * len, in, out, p.stream));
    }
  });
}

// Row i of a T x T grid is table[T-1-i .. 2T-1-i): one window of a 2T-1 table per row.
// tables holds numGrids tables of 2T-1 floats; grid g uses table g.
void toeplitzFill(const float* tables, int numGrids, int numPositions, float* out, const KernelOptions& opt) {
  const std::size_t t = static_cast<std::size_t>(numPositions);
  const std::size_t tableLen = 2 * t - 1;
  const long long rows = static_cast<long long>(numGrids) * numPositions;
  const Plan p = plan(opt, floatBytes(static_cast<std::size_t>(numGrids), t, t));
  runRows(p, rows, 16, [&](long long b, long long e) {
    for (long long r = b; r < e; ++r) {
      const std::size_t g = static_cast<std::size_t>(r) / t;
      const std::size_t i = static_cast<std::size_t>(r) % t;
      const float* src = tables + g * tableLen + (t - 1 - i);
      float* dst = out + static_cast<std::size_t>(r) * t;
      POSVIZ_DISPATCH(p.isa, copyRow(dst, src, t, p.stream));
    }
  });
}

// table[k] = bias at offset j - i = k - (T-1): core's alibiBias, rounded to float32.
void alibiTable(double slope, int numPositions, bool causal, float* table) {
  const long long last = numPositions - 1;
  for (long long k = 0; k <= 2 * last; ++k) {
    const long long offset = k - last;  // j - i
    if (causal && offset > 0) {
      table[k] = -std::numeric_limits<float>::infinity();
    } else {
      const long long dist = offset < 0 ? -offset : offset;
      table[k] = dist == 0 ? 0.0f : static_cast<float>(-slope * static_cast<double>(dist));
    }
  }
}

void alibiFill(const double* slopes, int numHeads, int numPositions, bool causal, float* out,
               const KernelOptions& opt) {
  const std::size_t tableLen = 2 * static_cast<std::size_t>(numPositions) - 1;
  std::vector<float> tables(static_cast<std::size_t>(numHeads) * tableLen);
  for (int h = 0; h < numHeads; ++h)
    alibiTable(slopes[h], numPositions, causal, tables.data() + static_cast<std::size_t>(h) * tableLen);
  toeplitzFill(tables.data(), numHeads, numPositions, out, opt);
}

}  // namespace

void ropeApplyHalfSplitInto(const float* cosTable, const float* sinTable, int numPairs, int headDim, int numTokens,
                            int numHeads, const float* in, float* out, const KernelOptions& opt) {
  applyFromTables<false>("ropeApplyHalfSplitInto", cosTable, sinTable, numPairs, headDim, numTokens, numHeads, in, out,
                         opt);
}

void ropeApplyInterleavedInto(const float* cosTable, const float* sinTable, int numPairs, int headDim,
                              int numTokens, int numHeads, const float* in, float* out, const KernelOptions& opt) {
  applyFromTables<true>("ropeApplyInterleavedInto", cosTable, sinTable, numPairs, headDim, numTokens, numHeads, in,
                        out, opt);
}

void ropeApplyHalfSplitInto(const double* invFreq, int numPairs, double scale, int headDim, int numTokens,
                            int numHeads, long long firstPos, const float* in, float* out, const KernelOptions& opt) {
  applyFromFrequencies<false>("ropeApplyHalfSplitInto", invFreq, numPairs, scale, headDim, numTokens, numHeads,
                              firstPos, in, out, opt);
}

void ropeApplyInterleavedInto(const double* invFreq, int numPairs, double scale, int headDim, int numTokens,
                              int numHeads, long long firstPos, const float* in, float* out,
                              const KernelOptions& opt) {
  applyFromFrequencies<true>("ropeApplyInterleavedInto", invFreq, numPairs, scale, headDim, numTokens, numHeads,
                             firstPos, in, out, opt);
}

void alibiBiasInto(double slope, int numPositions, bool causal, float* out, const KernelOptions& opt) {
  const char* fn = "alibiBiasInto";
  requireFinite(fn, "slope", slope);
  requirePositiveInt(fn, "numPositions", numPositions);
  requireOut(fn, "out", out);
  alibiFill(&slope, 1, numPositions, causal, out, opt);
}

void alibiVolumeInto(const double* slopes, int numHeads, int numPositions, bool causal, float* out,
                     const KernelOptions& opt) {
  const char* fn = "alibiVolumeInto";
  requirePositiveInt(fn, "numHeads", numHeads);
  requireOut(fn, "slopes", slopes);
  for (int h = 0; h < numHeads; ++h)
    requireFinite(fn, ("slopes[" + std::to_string(h) + "]").c_str(), slopes[h]);
  requirePositiveInt(fn, "numPositions", numPositions);
  requireOut(fn, "out", out);
  alibiFill(slopes, numHeads, numPositions, causal, out, opt);
}

void ropeScoreFillInto(const double* byOffset, int numPositions, float* out, const KernelOptions& opt) {
  const char* fn = "ropeScoreFillInto";
  requirePositiveInt(fn, "numPositions", numPositions);
  requireOut(fn, "byOffset", byOffset);
  requireOut(fn, "out", out);
  // byOffset[r + T-1] holds s(m - n = r); row m wants n = 0.. i.e. r = m .. m-T+1, a falling
  // index, so the table is stored reversed: table[k] = byOffset[2T-2-k].
  const std::size_t tableLen = 2 * static_cast<std::size_t>(numPositions) - 1;
  std::vector<float> table(tableLen);
  for (std::size_t k = 0; k < tableLen; ++k) table[k] = static_cast<float>(byOffset[tableLen - 1 - k]);
  toeplitzFill(table.data(), 1, numPositions, out, opt);
}

void ropeScoreOffsetsInto(const double* invFreq, const double* cosCoef, const double* sinCoef, int numPairs,
                          double constant, int numPositions, double* out, const KernelOptions& opt) {
  requirePositiveInt("ropeScoreOffsetsInto", "numPositions", numPositions);
  trigSeriesInto(invFreq, cosCoef, sinCoef, numPairs, constant, -(static_cast<long long>(numPositions) - 1),
                 2LL * numPositions - 1, out, opt);
}

void trigSeriesInto(const double* invFreq, const double* cosCoef, const double* sinCoef, int numPairs, double constant,
                    long long firstPos, long long count, double* out, const KernelOptions& opt) {
  const char* fn = "trigSeriesInto";
  requirePositiveInt(fn, "numPairs", numPairs);
  requireFrequencies(fn, "invFreq", invFreq, numPairs);
  requireFrequencies(fn, "cosCoef", cosCoef, numPairs);
  requireFrequencies(fn, "sinCoef", sinCoef, numPairs);
  requireFinite(fn, "constant", constant);
  requirePositiveInt(fn, "count", count);
  requireOut(fn, "out", out);
  // Work, not output, decides the split: each position costs numPairs rotor steps.
  const Plan p = plan(opt, static_cast<std::size_t>(count) * static_cast<std::size_t>(numPairs) * sizeof(double));
  parallelFor(count, p.threads, fasttrig::kRotorRestart, [&](long long b, long long e) {
    POSVIZ_DISPATCH(p.isa, scoreOffsetRows(invFreq, cosCoef, sinCoef, numPairs, constant, firstPos, b, e, out));
  });
}

void learnedLookupInto(const float* table, int tableRows, int dModel, long long firstPos, int numPositions,
                       float* out, const KernelOptions& opt) {
  const char* fn = "learnedLookupInto";
  requireOut(fn, "table", table);
  requirePositiveInt(fn, "tableRows", tableRows);
  requirePositiveInt(fn, "dModel", dModel);
  requireNonNegativeInt(fn, "firstPos", firstPos);
  requirePositiveInt(fn, "numPositions", numPositions);
  requireOut(fn, "out", out);
  const long long lastPos = firstPos + numPositions - 1;
  if (lastPos >= tableRows)
    throw std::out_of_range(std::string(fn) + ": pos " + std::to_string(std::max<long long>(firstPos, tableRows)) +
                            " has no row: the table has max_len " + std::to_string(tableRows) + " (rows 0.." +
                            std::to_string(tableRows - 1) + ")");
  const std::size_t cols = static_cast<std::size_t>(dModel);
  const float* src = table + static_cast<std::size_t>(firstPos) * cols;
  const Plan p = plan(opt, floatBytes(static_cast<std::size_t>(numPositions), cols));
  runRows(p, numPositions, 64, [&](long long b, long long e) {
    const std::size_t off = static_cast<std::size_t>(b) * cols;
    const std::size_t count = static_cast<std::size_t>(e - b) * cols;
    POSVIZ_DISPATCH(p.isa, copyRow(out + off, src + off, count, p.stream));
  });
}

void addScaledPairInto(double* dst, const double* c, const double* s, double x, double y, std::size_t n, KernelIsa isa) {
  POSVIZ_DISPATCH(chooseIsa(isa), addScaledPair(dst, c, s, x, y, n));
}

void multiplyInto(double* out, const double* a, const double* b, std::size_t n, KernelIsa isa) {
  POSVIZ_DISPATCH(chooseIsa(isa), multiply(out, a, b, n));
}

void multiplySumInto(double* out, const double* d, const double* a, const double* b, std::size_t n, KernelIsa isa) {
  POSVIZ_DISPATCH(chooseIsa(isa), multiplySum(out, d, a, b, n));
}

void rotatePhasesInPlace(double* zc, double* zs, const double* stepCos, const double* stepSin, std::size_t n,
                         KernelIsa isa) {
  POSVIZ_DISPATCH(chooseIsa(isa), rotatePhases(zc, zs, stepCos, stepSin, n));
}

void addScaledInto(double* dst, const double* x, double a, std::size_t n, KernelIsa isa) {
  POSVIZ_DISPATCH(chooseIsa(isa), addScaled(dst, x, a, n));
}

void columnDotsInto(const double* q, const double* kt, std::size_t dim, double* out, KernelIsa isa) {
  POSVIZ_DISPATCH(chooseIsa(isa), columnDots(q, kt, dim, out));
}

void copyFloats(float* dst, const float* src, std::size_t count, bool stream) {
  if (count == 0) return;
  requireOut("copyFloats", "dst", dst);
  requireOut("copyFloats", "src", src);
  POSVIZ_DISPATCH(bestIsa(), copyRow(dst, src, count, stream));
  if (stream) _mm_sfence();
}

void fillFloats(float* dst, float value, std::size_t count, bool stream) {
  if (count == 0) return;
  requireOut("fillFloats", "dst", dst);
  POSVIZ_DISPATCH(bestIsa(), fillRow(dst, value, count, stream));
  if (stream) _mm_sfence();
}

}  // namespace posviz::kernels
