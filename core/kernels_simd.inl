// kernels_simd.inl: the loops of core/kernels.cpp, written once over a few vector primitives.
//
// kernels.cpp includes this file three times, inside namespace posviz::kernels::detail::sse2,
// ::avx2 (POSVIZ_SIMD_AVX2 = 1, under "#pragma GCC target("avx2")") and ::avx512
// (POSVIZ_SIMD_AVX512 = 1, target "avx512f,avx512dq"); off x86-64 only the first (SSE2). It
// includes nothing itself: every header is already in. Arithmetic uses the vector types' own
// operators (GCC vector extensions) and never fused multiply-add, so every clone gives the same
// bits.
//
// [SECTION] primitives   VD = float64 lanes, VF = float32 lanes (kLanesF = 2 * kLanesD)
// [SECTION] row copy     copyRow: any alignment, streaming stores on request
// [SECTION] rotor rows   sin/cos sweeps over positions for blocks of rows; score offsets
// [SECTION] exact-average loops  float64 row updates of core/exact_average.cpp's pictures
// [SECTION] toy-model loops  float64 updates and dot products of core/attention.cpp and core/comparison.cpp
// [SECTION] apply        RoPE on rows of headDim, both layouts

// [SECTION] primitives
#if POSVIZ_SIMD_AVX512
using VD = __m512d;
using VF = __m512;
constexpr int kLanesD = 8;
constexpr int kLanesF = 16;
constexpr std::uintptr_t kVecBytes = 64;
inline VF loadF(const float* p) { return _mm512_loadu_ps(p); }
inline VF loadAlignedF(const float* p) { return _mm512_load_ps(p); }
inline void storeF(float* p, VF v) { _mm512_storeu_ps(p, v); }
inline void storeAlignedF(float* p, VF v) { _mm512_store_ps(p, v); }
inline void streamF(float* p, VF v) { _mm512_stream_ps(p, v); }
inline VF splatF(float x) { return _mm512_set1_ps(x); }
inline VD loadD(const double* p) { return _mm512_load_pd(p); }
inline void storeD(double* p, VD v) { _mm512_store_pd(p, v); }
inline VD splatD(double x) { return _mm512_set1_pd(x); }
inline VD loadUnalignedD(const double* p) { return _mm512_loadu_pd(p); }
inline void storeUnalignedD(double* p, VD v) { _mm512_storeu_pd(p, v); }
inline VF narrow(VD lo, VD hi) {
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
}
inline void interleave(VF a, VF b, VF& first, VF& second) {
  const VF lo = _mm512_unpacklo_ps(a, b);  // per 128-bit lane k: a(4k) b(4k) a(4k+1) b(4k+1)
  const VF hi = _mm512_unpackhi_ps(a, b);  // per 128-bit lane k: a(4k+2) b(4k+2) a(4k+3) b(4k+3)
  const __m512i firstIdx = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i secondIdx = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  first = _mm512_permutex2var_ps(lo, firstIdx, hi);
  second = _mm512_permutex2var_ps(lo, secondIdx, hi);
}
inline VF swapPairs(VF x) { return _mm512_permute_ps(x, 0xB1); }
inline VF dupPairs(const float* p) {
  const VF v = _mm512_castps256_ps512(_mm256_loadu_ps(p));
  return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7), v);
}
inline VF dupPairsSigned(const float* p) {
  const VF v = _mm512_castps256_ps512(_mm256_loadu_ps(p));
  const VF n = -v;
  return _mm512_permutex2var_ps(n, _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23), v);
}
inline VD wrapOnce(VD x, VD limit) { return _mm512_mask_sub_pd(x, _mm512_cmp_pd_mask(x, limit, _CMP_GE_OQ), x, limit); }
inline VF zeroIfAtLeast(VF x, VF limit) {
  return _mm512_maskz_mov_ps(static_cast<__mmask16>(~_mm512_cmp_ps_mask(x, limit, _CMP_GE_OQ)), x);
}
#elif POSVIZ_SIMD_AVX2
using VD = __m256d;
using VF = __m256;
constexpr int kLanesD = 4;
constexpr int kLanesF = 8;
constexpr std::uintptr_t kVecBytes = 32;
inline VF loadF(const float* p) { return _mm256_loadu_ps(p); }
inline VF loadAlignedF(const float* p) { return _mm256_load_ps(p); }
inline void storeF(float* p, VF v) { _mm256_storeu_ps(p, v); }
inline void storeAlignedF(float* p, VF v) { _mm256_store_ps(p, v); }
inline void streamF(float* p, VF v) { _mm256_stream_ps(p, v); }
inline VF splatF(float x) { return _mm256_set1_ps(x); }
inline VD loadD(const double* p) { return _mm256_load_pd(p); }
inline void storeD(double* p, VD v) { _mm256_store_pd(p, v); }
inline VD splatD(double x) { return _mm256_set1_pd(x); }
inline VD loadUnalignedD(const double* p) { return _mm256_loadu_pd(p); }
inline void storeUnalignedD(double* p, VD v) { _mm256_storeu_pd(p, v); }
// kLanesF floats from two VD: [lo..., hi...].
inline VF narrow(VD lo, VD hi) { return _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)); }
// (a0 b0 a1 b1 ...) over two vectors.
inline void interleave(VF a, VF b, VF& first, VF& second) {
  const VF lo = _mm256_unpacklo_ps(a, b);  // a0 b0 a1 b1 | a4 b4 a5 b5
  const VF hi = _mm256_unpackhi_ps(a, b);  // a2 b2 a3 b3 | a6 b6 a7 b7
  first = _mm256_permute2f128_ps(lo, hi, 0x20);
  second = _mm256_permute2f128_ps(lo, hi, 0x31);
}
// (x1 x0 x3 x2 ...): each pair swapped.
inline VF swapPairs(VF x) { return _mm256_permute_ps(x, 0xB1); }
// From kLanesF/2 floats p: (p0 p0 p1 p1 ...) and (-p0 p0 -p1 p1 ...).
inline VF dupPairs(const float* p) {
  const __m128 v = _mm_loadu_ps(p);
  return _mm256_set_m128(_mm_unpackhi_ps(v, v), _mm_unpacklo_ps(v, v));
}
inline VF dupPairsSigned(const float* p) {
  const __m128 v = _mm_loadu_ps(p);
  const __m128 n = -v;
  return _mm256_set_m128(_mm_unpackhi_ps(n, v), _mm_unpacklo_ps(n, v));
}
// x - limit in lanes where x >= limit.
inline VD wrapOnce(VD x, VD limit) { return x - _mm256_and_pd(_mm256_cmp_pd(x, limit, _CMP_GE_OQ), limit); }
// 0 in lanes where x >= limit.
inline VF zeroIfAtLeast(VF x, VF limit) { return _mm256_andnot_ps(_mm256_cmp_ps(x, limit, _CMP_GE_OQ), x); }
#else
using VD = __m128d;
using VF = __m128;
constexpr int kLanesD = 2;
constexpr int kLanesF = 4;
constexpr std::uintptr_t kVecBytes = 16;
inline VF loadF(const float* p) { return _mm_loadu_ps(p); }
inline VF loadAlignedF(const float* p) { return _mm_load_ps(p); }
inline void storeF(float* p, VF v) { _mm_storeu_ps(p, v); }
inline void storeAlignedF(float* p, VF v) { _mm_store_ps(p, v); }
inline void streamF(float* p, VF v) { _mm_stream_ps(p, v); }
inline VF splatF(float x) { return _mm_set1_ps(x); }
inline VD loadD(const double* p) { return _mm_load_pd(p); }
inline void storeD(double* p, VD v) { _mm_store_pd(p, v); }
inline VD splatD(double x) { return _mm_set1_pd(x); }
inline VD loadUnalignedD(const double* p) { return _mm_loadu_pd(p); }
inline void storeUnalignedD(double* p, VD v) { _mm_storeu_pd(p, v); }
inline VF narrow(VD lo, VD hi) { return _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi)); }
inline void interleave(VF a, VF b, VF& first, VF& second) {
  first = _mm_unpacklo_ps(a, b);
  second = _mm_unpackhi_ps(a, b);
}
inline VF swapPairs(VF x) { return _mm_shuffle_ps(x, x, _MM_SHUFFLE(2, 3, 0, 1)); }
inline VF dupPairs(const float* p) {
  const VF v = _mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));  // 2 floats
  return _mm_unpacklo_ps(v, v);
}
inline VF dupPairsSigned(const float* p) {
  const VF v = _mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));  // 2 floats
  const VF n = -v;
  return _mm_unpacklo_ps(n, v);
}
inline VD wrapOnce(VD x, VD limit) { return x - _mm_and_pd(_mm_cmpge_pd(x, limit), limit); }
inline VF zeroIfAtLeast(VF x, VF limit) { return _mm_andnot_ps(_mm_cmpge_ps(x, limit), x); }
#endif

// [SECTION] row copy
// dst[0..count) = src[0..count). With stream, the part of dst that is vector-aligned is written
// with non-temporal stores (the caller issues the fence once its block is done).
inline void copyRow(float* dst, const float* src, std::size_t count, bool stream) {
  if (!stream) {
    std::memcpy(dst, src, count * sizeof(float));
    return;
  }
  std::size_t i = 0;
  while (i < count && (reinterpret_cast<std::uintptr_t>(dst + i) & (kVecBytes - 1)) != 0) {
    dst[i] = src[i];
    ++i;
  }
  for (; i + 2 * kLanesF <= count; i += 2 * kLanesF) {
    const VF a = loadF(src + i);
    const VF b = loadF(src + i + kLanesF);
    streamF(dst + i, a);
    streamF(dst + i + kLanesF, b);
  }
  for (; i + kLanesF <= count; i += kLanesF) streamF(dst + i, loadF(src + i));
  for (; i < count; ++i) dst[i] = src[i];
}

inline void fillRow(float* dst, float value, std::size_t count, bool stream) {
  std::size_t i = 0;
  const VF v = splatF(value);
  if (stream) {
    while (i < count && (reinterpret_cast<std::uintptr_t>(dst + i) & (kVecBytes - 1)) != 0) dst[i++] = value;
    for (; i + 2 * kLanesF <= count; i += 2 * kLanesF) {
      streamF(dst + i, v);
      streamF(dst + i + kLanesF, v);
    }
    for (; i + kLanesF <= count; i += kLanesF) streamF(dst + i, v);
  } else {
    for (; i + kLanesF <= count; i += kLanesF) storeF(dst + i, v);
  }
  for (; i < count; ++i) dst[i] = value;
}

// [SECTION] rotor rows
// State of numPairs rotors (padded to a multiple of kLanesF with zero frequency, whose rotor
// stays at sin 0, cos 1), aligned for vector loads.
struct RotorBank {
  int numPairs = 0;
  int padded = 0;
  AlignedArray<double> s, c, sw, cw;
  const double* omega = nullptr;

  RotorBank(const double* freq, int n)
      : numPairs(n), padded(roundUp(n, kMaxLanesF)), s(padded), c(padded), sw(padded), cw(padded), omega(freq) {
    for (int i = 0; i < padded; ++i) {
      const fasttrig::SinCos w = i < n ? fasttrig::sinCos(freq[i]) : fasttrig::SinCos{0.0, 1.0};
      sw[i] = w.s;
      cw[i] = w.c;
    }
  }
  // Exact values at pos (the restart).
  void seek(long long pos) {
    const double p = static_cast<double>(pos);
    for (int i = 0; i < padded; ++i) {
      const fasttrig::SinCos a = i < numPairs ? fasttrig::sinCos(p * omega[i]) : fasttrig::SinCos{0.0, 1.0};
      s[i] = a.s;
      c[i] = a.c;
    }
  }
  // emit(i, s0, s1, c0, c1) sees sin/cos of pairs i .. i+kLanesF-1 at the current position
  // (s0/c0 the first kLanesD), then every rotor steps to the next position.
  template <class Emit>
  void row(Emit&& emit) {
    double* __restrict sp = s.data();
    double* __restrict cp = c.data();
    const double* __restrict swp = sw.data();
    const double* __restrict cwp = cw.data();
    for (int i = 0; i < padded; i += kLanesF) {
      const VD s0 = loadD(sp + i), s1 = loadD(sp + i + kLanesD);
      const VD c0 = loadD(cp + i), c1 = loadD(cp + i + kLanesD);
      emit(i, s0, s1, c0, c1);
      const VD sw0 = loadD(swp + i), sw1 = loadD(swp + i + kLanesD);
      const VD cw0 = loadD(cwp + i), cw1 = loadD(cwp + i + kLanesD);
      storeD(sp + i, s0 * cw0 + c0 * sw0);
      storeD(sp + i + kLanesD, s1 * cw1 + c1 * sw1);
      storeD(cp + i, c0 * cw0 - s0 * sw0);
      storeD(cp + i + kLanesD, c1 * cw1 - s1 * sw1);
    }
  }
};

// Runs rowFn(r) for rows [begin, end) of a sweep whose row r is position firstPos + r. The
// rotors restart from exact values at positions that are multiples of kRotorRestart; the first
// row is reached from the restart below it, so every position gets the same bits in any window.
template <class RowFn>
void sweepRows(RotorBank& bank, long long firstPos, long long begin, long long end, RowFn&& rowFn) {
  for (long long r = begin; r < end; ++r) {
    const long long pos = firstPos + r;
    if (r == begin) {
      const long long base = fasttrig::rotorRestartBase(pos);
      bank.seek(base);
      for (long long k = base; k < pos; ++k) bank.row([](int, VD, VD, VD, VD) {});
    } else if (pos % fasttrig::kRotorRestart == 0) {
      bank.seek(pos);
    }
    rowFn(r);
  }
}

inline bool vectorAligned(const float* p) { return (reinterpret_cast<std::uintptr_t>(p) & (kVecBytes - 1)) == 0; }

// Rows go straight out with streaming stores when the row starts vector-aligned and has no
// padding lanes (numPairs a multiple of kMaxLanesF, the rows' padding in every clone: a
// multiple of the clone's own lanes alone would let the SSE2 and AVX2 clones write the padding
// past the row); otherwise through a scratch row and copyRow.
inline void sinusoidalInterleavedRows(const double* omega, int numPairs, long long firstPos, long long begin,
                                      long long end, float* out, bool stream) {
  RotorBank bank(omega, numPairs);
  AlignedArray<float> rowBuf(2 * static_cast<std::size_t>(bank.padded));
  float* buf = rowBuf.data();
  const std::size_t cols = 2 * static_cast<std::size_t>(numPairs);
  const bool direct = stream && numPairs % kMaxLanesF == 0;   // no padding lanes past the row
  sweepRows(bank, firstPos, begin, end, [&](long long r) {
    float* dst = out + static_cast<std::size_t>(r) * cols;
    if (direct && vectorAligned(dst)) {
      bank.row([&](int i, VD s0, VD s1, VD c0, VD c1) {
        VF first, second;
        interleave(narrow(s0, s1), narrow(c0, c1), first, second);
        streamF(dst + 2 * i, first);
        streamF(dst + 2 * i + kLanesF, second);
      });
      return;
    }
    bank.row([&](int i, VD s0, VD s1, VD c0, VD c1) {
      VF first, second;
      interleave(narrow(s0, s1), narrow(c0, c1), first, second);
      storeAlignedF(buf + 2 * i, first);
      storeAlignedF(buf + 2 * i + kLanesF, second);
    });
    copyRow(dst, buf, cols, stream);
  });
}

inline void sinusoidalT2TRows(const double* omega, int numPairs, long long firstPos, long long begin, long long end,
                              float* out, bool stream) {
  RotorBank bank(omega, numPairs);
  AlignedArray<float> sinBuf(static_cast<std::size_t>(bank.padded)), cosBuf(static_cast<std::size_t>(bank.padded));
  float* sb = sinBuf.data();
  float* cb = cosBuf.data();
  const std::size_t n = static_cast<std::size_t>(numPairs);
  const bool direct = stream && numPairs % kMaxLanesF == 0;   // no padding lanes past the row
  sweepRows(bank, firstPos, begin, end, [&](long long r) {
    float* dst = out + static_cast<std::size_t>(r) * 2 * n;
    if (direct && vectorAligned(dst)) {
      bank.row([&](int i, VD s0, VD s1, VD c0, VD c1) {
        streamF(dst + i, narrow(s0, s1));
        streamF(dst + n + i, narrow(c0, c1));
      });
      return;
    }
    bank.row([&](int i, VD s0, VD s1, VD c0, VD c1) {
      storeAlignedF(sb + i, narrow(s0, s1));
      storeAlignedF(cb + i, narrow(c0, c1));
    });
    copyRow(dst, sb, n, stream);
    copyRow(dst + n, cb, n, stream);
  });
}

inline void ropeCosSinRows(const double* invFreq, int numPairs, long long firstPos, double scale, long long begin,
                           long long end, float* cosOut, float* sinOut, bool stream) {
  RotorBank bank(invFreq, numPairs);
  AlignedArray<float> sinBuf(static_cast<std::size_t>(bank.padded)), cosBuf(static_cast<std::size_t>(bank.padded));
  float* sb = sinBuf.data();
  float* cb = cosBuf.data();
  const VD k = splatD(scale);
  const std::size_t n = static_cast<std::size_t>(numPairs);
  sweepRows(bank, firstPos, begin, end, [&](long long r) {
    bank.row([&](int i, VD s0, VD s1, VD c0, VD c1) {
      storeAlignedF(sb + i, narrow(s0 * k, s1 * k));
      storeAlignedF(cb + i, narrow(c0 * k, c1 * k));
    });
    if (cosOut) copyRow(cosOut + static_cast<std::size_t>(r) * n, cb, n, stream);
    if (sinOut) copyRow(sinOut + static_cast<std::size_t>(r) * n, sb, n, stream);
  });
}

// Angles mod 2*pi by the same sweep: add (w mod 2*pi) and wrap once per step, restarting from
// fmod(pos * w, 2*pi) where the rotors restart. Drift over a restart period is a few 1e-14 rad.
inline void ropeAngleRows(const double* invFreq, int numPairs, long long firstPos, long long begin, long long end,
                          float* out, bool stream) {
  const int padded = roundUp(numPairs, kMaxLanesF);
  AlignedArray<double> angle(static_cast<std::size_t>(padded)), step(static_cast<std::size_t>(padded));
  AlignedArray<float> buf(static_cast<std::size_t>(padded));
  for (int i = 0; i < padded; ++i) step[i] = i < numPairs ? std::fmod(invFreq[i], kTwoPi) : 0.0;
  const VD twoPi = splatD(kTwoPi);
  // A value just under 2*pi rounds up to 2*pi in float32; it is the same angle as 0.
  const VF twoPiF = splatF(static_cast<float>(kTwoPi));
  const std::size_t n = static_cast<std::size_t>(numPairs);
  double* __restrict a = angle.data();
  const double* __restrict w = step.data();
  float* __restrict b = buf.data();
  auto seek = [&](long long pos) {
    const double p = static_cast<double>(pos);
    for (int i = 0; i < padded; ++i) a[i] = i < numPairs ? angleMod2Pi(p * invFreq[i]) : 0.0;
  };
  // emitTo: where this row's float32 angles go (the scratch row, or straight out with streaming
  // stores when the output row is vector-aligned and has no padding lanes); null: none.
  auto advance = [&](float* emitTo, bool streamOut) {
    for (int i = 0; i < padded; i += kLanesF) {
      const VD a0 = loadD(a + i), a1 = loadD(a + i + kLanesD);
      if (emitTo) {
        const VF v = zeroIfAtLeast(narrow(a0, a1), twoPiF);
        if (streamOut) streamF(emitTo + i, v);
        else storeAlignedF(emitTo + i, v);
      }
      storeD(a + i, wrapOnce(a0 + loadD(w + i), twoPi));
      storeD(a + i + kLanesD, wrapOnce(a1 + loadD(w + i + kLanesD), twoPi));
    }
  };
  const bool direct = stream && numPairs % kMaxLanesF == 0;   // no padding lanes past the row
  for (long long r = begin; r < end; ++r) {
    const long long pos = firstPos + r;
    if (r == begin) {
      const long long base = fasttrig::rotorRestartBase(pos);
      seek(base);
      for (long long k = base; k < pos; ++k) advance(nullptr, false);
    } else if (pos % fasttrig::kRotorRestart == 0) {
      seek(pos);
    }
    float* dst = out + static_cast<std::size_t>(r) * n;
    if (direct && vectorAligned(dst)) {
      advance(dst, true);
      continue;
    }
    advance(b, false);
    copyRow(dst, b, n, stream);
  }
}

// out[r - begin'] = constant + sum_i cosCoef_i cos(x_r w_i) + sinCoef_i sin(x_r w_i) for sweep rows
// [begin, end), x_r = firstPos + r (firstPos may be negative). Coefficients padded with zeros.
// Each row's lanes are summed in lane order after constant; the rows' sums wait in blocks of
// kSumBlock, so that the blocks' independent chains of adds overlap instead of one row's adds
// waiting on each other before the next row starts.
inline void scoreOffsetRows(const double* invFreq, const double* cosCoef, const double* sinCoef, int numPairs,
                            double constant, long long firstPos, long long begin, long long end, double* out) {
  constexpr int kSumBlock = 16;
  RotorBank bank(invFreq, numPairs);
  AlignedArray<double> ca(static_cast<std::size_t>(bank.padded)), sa(static_cast<std::size_t>(bank.padded));
  for (int i = 0; i < numPairs; ++i) {
    ca[i] = cosCoef[i];
    sa[i] = sinCoef[i];
  }
  alignas(64) double lanes[kSumBlock][kLanesD];
  long long blockStart = begin;
  auto flush = [&](long long rows) {
    for (long long p = 0; p < rows; ++p) {
      double sum = constant;
      for (int l = 0; l < kLanesD; ++l) sum += lanes[p][l];
      out[blockStart + p] = sum;
    }
  };
  const double* cap = ca.data();
  const double* sap = sa.data();
  sweepRows(bank, firstPos, begin, end, [&](long long r) {
    VD acc = splatD(0.0);
    bank.row([&](int i, VD s0, VD s1, VD c0, VD c1) {
      acc = acc + (loadD(cap + i) * c0 + loadD(sap + i) * s0) + (loadD(cap + i + kLanesD) * c1 + loadD(sap + i + kLanesD) * s1);
    });
    storeD(lanes[r - blockStart], acc);
    if (r - blockStart == kSumBlock - 1) {
      flush(kSumBlock);
      blockStart = r + 1;
    }
  });
  flush(end - blockStart);
}

// [SECTION] exact-average loops (core/exact_average.cpp), float64, any alignment
// dst[j] += c[j] * x + s[j] * y for j < n.
inline void addScaledPair(double* dst, const double* c, const double* s, double x, double y, std::size_t n) {
  const VD vx = splatD(x), vy = splatD(y);
  std::size_t j = 0;
  for (; j + kLanesD <= n; j += kLanesD)
    storeUnalignedD(dst + j, loadUnalignedD(dst + j) + (loadUnalignedD(c + j) * vx + loadUnalignedD(s + j) * vy));
  for (; j < n; ++j) dst[j] += c[j] * x + s[j] * y;
}

// out[j] = a[j] * b[j] for j < n.
inline void multiply(double* out, const double* a, const double* b, std::size_t n) {
  std::size_t j = 0;
  for (; j + kLanesD <= n; j += kLanesD) storeUnalignedD(out + j, loadUnalignedD(a + j) * loadUnalignedD(b + j));
  for (; j < n; ++j) out[j] = a[j] * b[j];
}

// out[j] = d[j] * (a[j] + b[j]) for j < n.
inline void multiplySum(double* out, const double* d, const double* a, const double* b, std::size_t n) {
  std::size_t j = 0;
  for (; j + kLanesD <= n; j += kLanesD)
    storeUnalignedD(out + j, loadUnalignedD(d + j) * (loadUnalignedD(a + j) + loadUnalignedD(b + j)));
  for (; j < n; ++j) out[j] = d[j] * (a[j] + b[j]);
}

// (zc[u] + i zs[u]) *= (sc[u] + i ss[u]) for u < n.
inline void rotatePhases(double* zc, double* zs, const double* sc, const double* ss, std::size_t n) {
  std::size_t u = 0;
  for (; u + kLanesD <= n; u += kLanesD) {
    const VD c = loadUnalignedD(zc + u), s = loadUnalignedD(zs + u);
    const VD a = loadUnalignedD(sc + u), b = loadUnalignedD(ss + u);
    storeUnalignedD(zc + u, c * a - s * b);
    storeUnalignedD(zs + u, c * b + s * a);
  }
  for (; u < n; ++u) {
    const double c = zc[u], s = zs[u];
    zc[u] = c * sc[u] - s * ss[u];
    zs[u] = c * ss[u] + s * sc[u];
  }
}

// [SECTION] toy-model loops (core/attention.cpp, core/comparison.cpp), float64, any alignment
// dst[j] += x[j] * a for j < n.
inline void addScaled(double* dst, const double* x, double a, std::size_t n) {
  const VD va = splatD(a);
  std::size_t j = 0;
  for (; j + kLanesD <= n; j += kLanesD) storeUnalignedD(dst + j, loadUnalignedD(dst + j) + loadUnalignedD(x + j) * va);
  for (; j < n; ++j) dst[j] += x[j] * a;
}

// out[c] = sum over i, in order, of q[i] * kt[i * kColumnDots + c]: the kColumnDots sums stay in
// registers side by side, each one the same chain of adds as a scalar dot product.
inline void columnDots(const double* q, const double* kt, std::size_t dim, double* out) {
  constexpr int kVectors = static_cast<int>(kColumnDots) / kLanesD;
  VD sum[kVectors];
  for (VD& v : sum) v = splatD(0.0);
  for (std::size_t i = 0; i < dim; ++i) {
    const VD qi = splatD(q[i]);
    const double* row = kt + i * kColumnDots;
#pragma GCC unroll 8
    for (int j = 0; j < kVectors; ++j) sum[j] = sum[j] + qi * loadUnalignedD(row + j * kLanesD);
  }
  for (int j = 0; j < kVectors; ++j) storeUnalignedD(out + j * kLanesD, sum[j]);
}

// [SECTION] apply
// One row of headDim: pairs (i, i + n) rotated by (c_i, s_i), dims from 2n on copied. x may equal
// y. With Stream, y must be vector-aligned and n a multiple of kLanesF with no pass-through dims
// (the caller checks), and the row goes out with streaming stores.
template <bool Stream>
inline void applyHalfSplitRow(const float* x, float* y, const float* c, const float* s, int n, int headDim) {
  int i = 0;
  for (; i + kLanesF <= n; i += kLanesF) {
    const VF a = loadF(x + i), b = loadF(x + i + n);
    const VF cv = loadF(c + i), sv = loadF(s + i);
    if constexpr (Stream) {
      streamF(y + i, a * cv - b * sv);
      streamF(y + i + n, b * cv + a * sv);
    } else {
      storeF(y + i, a * cv - b * sv);
      storeF(y + i + n, b * cv + a * sv);
    }
  }
  for (; i < n; ++i) {
    const float a = x[i], b = x[i + n];
    y[i] = a * c[i] - b * s[i];
    y[i + n] = b * c[i] + a * s[i];
  }
  if (x != y)
    for (int d = 2 * n; d < headDim; ++d) y[d] = x[d];
}

// Pairs (2i, 2i+1): y = x * (c c) + swap(x) * (-s s), the same products as a*c - b*s, b*c + a*s.
// With Stream, as above with 2n a multiple of kLanesF.
template <bool Stream>
inline void applyInterleavedRow(const float* x, float* y, const float* c, const float* s, int n, int headDim) {
  constexpr int pairsPerVec = kLanesF / 2;
  int i = 0;
  for (; i + pairsPerVec <= n; i += pairsPerVec) {
    const VF v = loadF(x + 2 * i);
    const VF r = v * dupPairs(c + i) + swapPairs(v) * dupPairsSigned(s + i);
    if constexpr (Stream)
      streamF(y + 2 * i, r);
    else
      storeF(y + 2 * i, r);
  }
  for (; i < n; ++i) {
    const float a = x[2 * i], b = x[2 * i + 1];
    y[2 * i] = a * c[i] + b * -s[i];
    y[2 * i + 1] = b * c[i] + a * s[i];
  }
  if (x != y)
    for (int d = 2 * n; d < headDim; ++d) y[d] = x[d];
}

// Rows [begin, end) of a numHeads x chunkLen block: row q is token chunkStart + q % chunkLen of
// head q / chunkLen (numTokens rows per head in memory) and uses table row q % chunkLen.
// Streaming (out of place only: in place the lines are in cache already) goes straight out when
// the row allows it, else through a scratch row.
template <bool Interleaved>
void applyTableRows(const float* cosTable, const float* sinTable, int n, int headDim, int numTokens,
                    long long chunkStart, long long chunkLen, long long begin, long long end, const float* in,
                    float* out, bool stream) {
  AlignedArray<float> rowBuf(static_cast<std::size_t>(headDim));
  const std::size_t d = static_cast<std::size_t>(headDim);
  const std::size_t nn = static_cast<std::size_t>(n);
  const bool vectorRows = headDim == 2 * n && (Interleaved ? 2 * n : n) % kLanesF == 0;
  long long h = begin / chunkLen;
  long long t = begin % chunkLen;
  for (long long q = begin; q < end; ++q) {
    const std::size_t row = static_cast<std::size_t>(h * numTokens + chunkStart + t);
    const float* x = in + row * d;
    float* y = out + row * d;
    const float* c = cosTable + static_cast<std::size_t>(t) * nn;
    const float* s = sinTable + static_cast<std::size_t>(t) * nn;
    if (!stream || x == y) {
      if constexpr (Interleaved)
        applyInterleavedRow<false>(x, y, c, s, n, headDim);
      else
        applyHalfSplitRow<false>(x, y, c, s, n, headDim);
    } else if (vectorRows && vectorAligned(y)) {
      if constexpr (Interleaved)
        applyInterleavedRow<true>(x, y, c, s, n, headDim);
      else
        applyHalfSplitRow<true>(x, y, c, s, n, headDim);
    } else {
      if constexpr (Interleaved)
        applyInterleavedRow<false>(x, rowBuf.data(), c, s, n, headDim);
      else
        applyHalfSplitRow<false>(x, rowBuf.data(), c, s, n, headDim);
      copyRow(y, rowBuf.data(), d, true);  // the row fn copied the pass-through dims
    }
    if (++t == chunkLen) {
      t = 0;
      ++h;
    }
  }
}
