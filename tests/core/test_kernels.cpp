// Tests for core/kernels.hpp, core/fast_trig.hpp and core/parallel.hpp: every fast kernel
// against per-cell float64 references (core's scalar definitions sinusoidalValue, ropeAngle,
// ropeScore, ropeRotate, learnedLookup, or the formula written out here), never against a core
// grid function that itself calls the kernel. On every ISA clone the CPU runs (AVX-512, AVX2,
// SSE2), on one and several threads, with streaming stores forced on small outputs, at sizes
// that are not multiples of the vector width and into unaligned memory.
//
// Groups: fast_trig and parallelFor; sinusoidal (accuracy to 131072, both layouts, bits under
// every option); RoPE grids and apply (against float64, KV-cache offset, windows); ALiBi and
// the score grid (bit-equal to the written-out formula); learned lookup; copy/fill; bad
// arguments.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/alibi.hpp"
#include "core/fast_trig.hpp"
#include "core/kernels.hpp"
#include "core/learned.hpp"
#include "core/parallel.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

using namespace posviz;
namespace pk = posviz::kernels;

namespace {

// Option sets every kernel must agree on, bit for bit: the defaults (small outputs: one
// thread, cached stores, the widest clone), forced streaming on 1..3 threads, and the AVX2 and
// SSE2 clones.
std::vector<pk::KernelOptions> optionVariants() {
  std::vector<pk::KernelOptions> v;
  v.push_back({});
  for (int threads : {1, 2, 3}) {
    pk::KernelOptions o;
    o.maxThreads = threads;
    o.parallelMinBytes = 0;
    o.streamMinBytes = 0;
    v.push_back(o);
  }
  for (pk::KernelIsa isa : {pk::KernelIsa::Avx2, pk::KernelIsa::Baseline}) {
    pk::KernelOptions o;
    o.isa = isa;
    o.streamMinBytes = 0;
    v.push_back(o);
  }
  return v;
}

bool sameBits(const float* a, const float* b, std::size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }
bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// The first 64-byte aligned float of v (v needs 15 floats of slack): with a shift of 0 the
// kernels' direct streaming paths run, with other shifts their unaligned fallbacks.
float* aligned64(std::vector<float>& v) {
  const auto addr = reinterpret_cast<std::uintptr_t>(v.data());
  return v.data() + ((64 - addr % 64) % 64) / sizeof(float);
}

std::vector<double> sinusoidalOmegas(const SinusoidalParams& p) {
  std::vector<double> w(static_cast<std::size_t>(p.dModel / 2));
  for (int i = 0; i < p.dModel / 2; ++i) w[static_cast<std::size_t>(i)] = sinusoidalFrequency(p, i);
  return w;
}

// Largest |kernel - float64 sin/cos| over a grid, both layouts, the values computed here.
double sinusoidalMaxError(const std::vector<float>& g, const std::vector<double>& w, int rows, long long firstPos,
                          bool interleaved) {
  const std::size_t n = w.size();
  double worst = 0.0;
  for (int r = 0; r < rows; ++r) {
    const double pos = static_cast<double>(firstPos + r);
    for (std::size_t i = 0; i < n; ++i) {
      const double s = std::sin(pos * w[i]), c = std::cos(pos * w[i]);
      const std::size_t row = static_cast<std::size_t>(r) * 2 * n;
      const float gs = interleaved ? g[row + 2 * i] : g[row + i];
      const float gc = interleaved ? g[row + 2 * i + 1] : g[row + n + i];
      worst = std::max({worst, std::fabs(gs - s), std::fabs(gc - c)});
    }
  }
  return worst;
}

// -slope*|i-j| (float64, then rounded; the diagonal +0), causal: -inf above the diagonal.
std::vector<float> alibiReference(double slope, int t, bool causal) {
  std::vector<float> g(static_cast<std::size_t>(t) * static_cast<std::size_t>(t));
  for (int i = 0; i < t; ++i) {
    for (int j = 0; j < t; ++j) {
      float v = 0.0f;
      if (causal && j > i)
        v = -std::numeric_limits<float>::infinity();
      else if (i != j)
        v = static_cast<float>(-slope * std::fabs(static_cast<double>(i - j)));
      g[static_cast<std::size_t>(i) * static_cast<std::size_t>(t) + static_cast<std::size_t>(j)] = v;
    }
  }
  return g;
}

std::vector<float> ramp(std::size_t n, float scale) {
  std::vector<float> v(n);
  for (std::size_t j = 0; j < n; ++j)
    v[j] = scale * static_cast<float>(std::sin(0.37 * static_cast<double>(j) + 0.1) + 0.25);
  return v;
}

std::vector<float> reversed(std::vector<float> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_SUITE("kernels") {

TEST_CASE("fast_trig: sinCos matches std::sin/std::cos within 1e-15") {
  for (double x = -2000.0; x <= 2000.0; x += 0.3779) {
    const fasttrig::SinCos sc = fasttrig::sinCos(x);
    CAPTURE(x);
    CHECK(std::fabs(sc.s - std::sin(x)) <= 1e-15);
    CHECK(std::fabs(sc.c - std::cos(x)) <= 1e-15);
  }
  // Angles of the 131072 x 128 grid's fastest pair, and past the fast range (libm fallback).
  for (double x : {131071.0, 131072.0, 1.0e6, 1.0e9, -3.0e7, 0.0, std::numbers::pi / 2, std::numbers::pi}) {
    const fasttrig::SinCos sc = fasttrig::sinCos(x);
    CAPTURE(x);
    CHECK(std::fabs(sc.s - std::sin(x)) <= 1e-15);
    CHECK(std::fabs(sc.c - std::cos(x)) <= 1e-15);
  }
  CHECK(fasttrig::sinCos(0.0).s == 0.0);
  CHECK(fasttrig::sinCos(0.0).c == 1.0);
}

// The reference's own argument p*w rounds by up to ulp(p*w) ~ 1e-13 here, so the bound is 1e-12.
TEST_CASE("fast_trig: a rotor keeps sin/cos of p*w over four restart periods to 1e-12") {
  const double w = 0.8414709848;
  fasttrig::SinCosRotor rotor(1000.0 * w, w);
  for (int k = 0; k < 4 * fasttrig::kRotorRestart; ++k) {
    const double a = (1000.0 + k) * w;
    CAPTURE(k);
    REQUIRE(std::fabs(rotor.s - std::sin(a)) <= 1e-12);
    REQUIRE(std::fabs(rotor.c - std::cos(a)) <= 1e-12);
    rotor.next();
  }
}

TEST_CASE("parallelFor: covers every row once in grain-aligned blocks, and rethrows") {
  for (int threads : {1, 2, 3, 8}) {
    for (long long rows : {1LL, 5LL, 256LL, 1000LL, 4099LL}) {
      std::vector<std::atomic<int>> hits(static_cast<std::size_t>(rows));
      std::atomic<int> misaligned{0};
      parallelFor(rows, threads, 256, [&](long long b, long long e) {
        if (b % 256 != 0 || (e != rows && e % 256 != 0)) ++misaligned;
        for (long long r = b; r < e; ++r) ++hits[static_cast<std::size_t>(r)];
      });
      CAPTURE(threads);
      CAPTURE(rows);
      CHECK(misaligned.load() == 0);
      int wrong = 0;
      for (auto& h : hits) wrong += h.load() != 1;
      CHECK(wrong == 0);
    }
  }
  CHECK_THROWS_WITH_AS(parallelFor(1000, 2, 10,
                                   [](long long b, long long) {
                                     if (b > 0) throw std::runtime_error("block failed");
                                   }),
                       "block failed", std::runtime_error);
  CHECK(threadsForBytes(std::size_t{1} << 20, 2) == 1);
  CHECK(threadsForBytes(std::size_t{64} << 20, 2) == 2);
}

TEST_CASE("parallelFor: a thread's cap limits the threads its jobs start, on that thread only") {
  const int machine = hardwareThreads();
  std::thread([machine] {
    threadCapOfThisThread() = 1;
    CHECK(hardwareThreads() == 1);
    // A big job asks for every core (0) and gets the cap: one block, on this thread.
    std::atomic<int> blocks{0};
    std::atomic<bool> elsewhere{false};
    const std::thread::id self = std::this_thread::get_id();
    parallelFor(4096, threadsForBytes(std::size_t{1} << 30, 0), 1, [&](long long, long long) {
      ++blocks;
      if (std::this_thread::get_id() != self) elsewhere = true;
    });
    CHECK(blocks.load() == 1);
    CHECK_FALSE(elsewhere.load());
    threadCapOfThisThread() = machine + 5;   // a cap above the machine changes nothing
    CHECK(hardwareThreads() == machine);
  }).join();
  CHECK(hardwareThreads() == machine);   // other threads never saw the cap
  CHECK(threadCapOfThisThread() == 0);
}

TEST_CASE("kernels: sinusoidal interleaved within 1e-6 of float64 at every position up to 131072") {
  SinusoidalParams p;
  p.dModel = 128;
  const std::vector<double> w = sinusoidalOmegas(p);
  const int rows = 131073;  // positions 0 .. 131072
  std::vector<float> g(static_cast<std::size_t>(rows) * 128);
  pk::sinusoidalInterleavedInto(w.data(), 64, rows, 0, g.data());
  CHECK(sinusoidalMaxError(g, w, rows, 0, true) <= 1e-6);
  // Cross-check against core's own value at hand-picked cells (PE(3, 0) = sin 3, PE(3, 1) = cos 3).
  CHECK(g[3 * 128 + 0] == doctest::Approx(std::sin(3.0)).epsilon(1e-7));
  CHECK(g[3 * 128 + 1] == doctest::Approx(std::cos(3.0)).epsilon(1e-7));
  for (int pos : {0, 1, 255, 256, 257, 65535, 131072}) {
    for (int dim : {0, 1, 2, 63, 64, 126, 127}) {
      CAPTURE(pos);
      CAPTURE(dim);
      CHECK(std::fabs(g[static_cast<std::size_t>(pos) * 128 + dim] - sinusoidalValue(p, pos, dim)) <= 1e-6);
    }
  }
}

TEST_CASE("kernels: sinusoidal d_model 1024 near position 131072 within 1e-6 of sinusoidalValue") {
  SinusoidalParams p;
  p.dModel = 1024;
  const std::vector<double> w = sinusoidalOmegas(p);
  const int rows = 777;
  const long long first = 131072 - rows + 1;
  std::vector<float> g(static_cast<std::size_t>(rows) * 1024);
  pk::sinusoidalInterleavedInto(w.data(), 512, rows, first, g.data());
  CHECK(sinusoidalMaxError(g, w, rows, first, true) <= 1e-6);
  double worst = 0.0;
  for (int r = 0; r < rows; r += 7) {
    for (int dim = 0; dim < 1024; ++dim) {
      const double ref = sinusoidalValue(p, static_cast<double>(first + r), dim);
      worst = std::max(worst, std::fabs(g[static_cast<std::size_t>(r) * 1024 + static_cast<std::size_t>(dim)] - ref));
    }
  }
  CHECK(worst <= 1e-6);
}

TEST_CASE("kernels: sinusoidal Tensor2Tensor layout within 1e-6 of float64 and of sinusoidalValue") {
  SinusoidalParams p;
  p.dModel = 128;
  p.layout = SinusoidalLayout::Tensor2Tensor;
  const std::vector<double> w = sinusoidalOmegas(p);
  const int rows = 131073;
  std::vector<float> g(static_cast<std::size_t>(rows) * 128);
  pk::sinusoidalT2TInto(w.data(), 64, rows, 0, g.data());
  CHECK(sinusoidalMaxError(g, w, rows, 0, false) <= 1e-6);
  for (int r = 0; r < 300; r += 37) {
    for (int d = 0; d < 128; d += 9) {
      CAPTURE(r);
      CAPTURE(d);
      const double ref = sinusoidalValue(p, 130000.0 + r, d);
      CHECK(std::fabs(g[static_cast<std::size_t>(130000 + r) * 128 + d] - ref) <= 1e-6);
    }
  }
}

TEST_CASE("kernels: sinusoidal bits do not depend on threads, ISA, streaming, size or alignment") {
  // 8 and 40: pair counts (4, 20) that fill the SSE2 and AVX2 clones' vectors but not the rows'
  // padding to 16, where a streaming row must not write its padding past the row.
  for (int dModel : {2, 6, 8, 14, 40, 64, 130}) {
    for (int rows : {1, 3, 257, 1000}) {
      SinusoidalParams p;
      p.dModel = dModel;
      const std::vector<double> w = sinusoidalOmegas(p);
      const int n = dModel / 2;
      const std::size_t cells = static_cast<std::size_t>(rows) * dModel;
      std::vector<float> ref(cells), refT2T(cells);
      pk::KernelOptions one;
      one.maxThreads = 1;
      pk::sinusoidalInterleavedInto(w.data(), n, rows, 12345, ref.data(), one);
      pk::sinusoidalT2TInto(w.data(), n, rows, 12345, refT2T.data(), one);
      CAPTURE(dModel);
      CAPTURE(rows);
      CHECK(sinusoidalMaxError(ref, w, rows, 12345, true) <= 1e-6);
      CHECK(sinusoidalMaxError(refT2T, w, rows, 12345, false) <= 1e-6);
      for (const pk::KernelOptions& o : optionVariants()) {
        for (std::size_t shift : {0u, 1u, 3u}) {
          std::vector<float> buf(cells + 32, -7.0f);
          float* out = aligned64(buf) + shift;
          pk::sinusoidalInterleavedInto(w.data(), n, rows, 12345, out, o);
          CAPTURE(o.maxThreads);
          CAPTURE(shift);
          CHECK(sameBits(out, ref.data(), cells));
          CHECK(out[cells] == -7.0f);  // nothing written past the end
          if (shift > 0) CHECK(out[-1] == -7.0f);
          pk::sinusoidalT2TInto(w.data(), n, rows, 12345, out, o);
          CHECK(sameBits(out, refT2T.data(), cells));
        }
      }
    }
  }
}

TEST_CASE("kernels: RoPE angle rows streamed straight out equal the scratch-row path, and stay in the row") {
  // The angle kernel streams a row from registers when it is vector-aligned and has no padding
  // lanes (pairs a multiple of 16); every clone, split and shift gives the one-thread bits.
  for (int pairs : {4, 16, 20, 64}) {
    std::vector<double> w(static_cast<std::size_t>(pairs));
    for (int i = 0; i < pairs; ++i) w[static_cast<std::size_t>(i)] = std::pow(10000.0, -static_cast<double>(i) / pairs);
    const int rows = 700;
    const std::size_t cells = static_cast<std::size_t>(rows) * static_cast<std::size_t>(pairs);
    std::vector<float> ref(cells);
    pk::KernelOptions one;
    one.maxThreads = 1;
    pk::ropeAngleInto(w.data(), pairs, rows, 5000, ref.data(), one);
    for (const pk::KernelOptions& o : optionVariants()) {
      for (std::size_t shift : {0u, 1u}) {
        std::vector<float> buf(cells + 64, -7.0f);
        float* out = aligned64(buf) + shift;
        pk::ropeAngleInto(w.data(), pairs, rows, 5000, out, o);
        CAPTURE(pairs);
        CAPTURE(shift);
        CHECK(sameBits(out, ref.data(), cells));
        CHECK(out[cells] == -7.0f);
      }
    }
  }
}

TEST_CASE("kernels: RoPE cos/sin and angle grids within 1e-6 of float64 ropeAngle") {
  RopeParams p;
  p.headDim = 128;
  SUBCASE("plain") {}
  SUBCASE("yarn, attention factor != 1") {
    p.scaling.method = ScalingMethod::Yarn;
    p.scaling.factor = 8.0;
  }
  SUBCASE("partial rotary, 26 of 52 dims") {
    p.headDim = 52;
    p.rotaryFraction = 0.5;
  }
  const RopeFrequencies f = ropeFrequencies(p);
  const int n = static_cast<int>(f.invFreq.size());
  const int rows = 600;
  const long long first = 130600;
  // References per cell: the float64 angle, its cos and sin times the attention factor, and the
  // angle mod 2*pi.
  const std::size_t cells = static_cast<std::size_t>(rows) * static_cast<std::size_t>(n);
  std::vector<double> refCos(cells), refSin(cells), refAngle(cells);
  for (int r = 0; r < rows; ++r) {
    for (int i = 0; i < n; ++i) {
      const double angle = ropeAngle(p, static_cast<double>(first + r), i);
      const std::size_t j = static_cast<std::size_t>(r) * static_cast<std::size_t>(n) + static_cast<std::size_t>(i);
      refCos[j] = std::cos(angle) * f.attentionFactor;
      refSin[j] = std::sin(angle) * f.attentionFactor;
      refAngle[j] = std::fmod(angle, 2.0 * std::numbers::pi);
    }
  }
  for (const pk::KernelOptions& o : optionVariants()) {
    std::vector<float> c(static_cast<std::size_t>(rows) * n), s(c.size()), a(c.size());
    pk::ropeCosSinInto(f.invFreq.data(), n, rows, first, f.attentionFactor, c.data(), s.data(), o);
    pk::ropeAngleInto(f.invFreq.data(), n, rows, first, a.data(), o);
    double worst = 0.0, worstAngle = 0.0;
    for (std::size_t j = 0; j < c.size(); ++j) {
      worst = std::max({worst, std::fabs(c[j] - refCos[j]), std::fabs(s[j] - refSin[j])});
      // Angles wrap at 2*pi: compare on the circle.
      const double d = std::fabs(static_cast<double>(a[j]) - refAngle[j]);
      worstAngle = std::max(worstAngle, std::min(d, 2.0 * std::numbers::pi - d));
      CHECK(a[j] >= 0.0f);
      CHECK(a[j] < static_cast<float>(2.0 * std::numbers::pi));
    }
    CAPTURE(o.maxThreads);
    CHECK(worst <= 1e-6 * std::max(1.0, f.attentionFactor));
    CHECK(worstAngle <= 1e-6);
    // One table alone gives the same values.
    std::vector<float> cosOnly(c.size());
    pk::ropeCosSinInto(f.invFreq.data(), n, rows, first, f.attentionFactor, cosOnly.data(), nullptr, o);
    CHECK(sameBits(cosOnly.data(), c.data(), c.size()));
  }
}

TEST_CASE("kernels: RoPE apply equals core's ropeRotate, both layouts, tables and frequencies") {
  for (RopeLayout layout : {RopeLayout::HalfSplit, RopeLayout::Interleaved}) {
    for (int headDim : {128, 6, 34}) {
      for (double fraction : {1.0, 0.5}) {
        RopeParams p;
        p.headDim = headDim;
        p.layout = layout;
        p.rotaryFraction = fraction;
        if (headDim == 34) {
          p.scaling.method = ScalingMethod::Yarn;
          p.scaling.factor = 4.0;
        }
        if (ropeRotaryDims(p) < 2) continue;
        const RopeFrequencies f = ropeFrequencies(p);
        const int n = static_cast<int>(f.invFreq.size());
        const int tokens = 300, heads = 3;
        const long long first = 4000;
        const std::size_t count = static_cast<std::size_t>(heads) * tokens * headDim;
        const std::vector<float> x = ramp(count, 2.0f);
        // Reference: core, one row at a time.
        std::vector<float> ref(count);
        for (int h = 0; h < heads; ++h) {
          for (int t = 0; t < tokens; ++t) {
            const std::size_t off = (static_cast<std::size_t>(h) * tokens + t) * headDim;
            const std::vector<float> r =
                ropeRotate(p, std::span<const float>(x.data() + off, static_cast<std::size_t>(headDim)),
                           static_cast<double>(first + t));
            std::copy(r.begin(), r.end(), ref.begin() + static_cast<std::ptrdiff_t>(off));
          }
        }
        const bool halfSplit = layout == RopeLayout::HalfSplit;
        std::vector<float> cosT(static_cast<std::size_t>(tokens) * n), sinT(cosT.size());
        pk::ropeCosSinInto(f.invFreq.data(), n, tokens, first, f.attentionFactor, cosT.data(), sinT.data());
        std::vector<float> fromTables(count);
        if (halfSplit)
          pk::ropeApplyHalfSplitInto(cosT.data(), sinT.data(), n, headDim, tokens, heads, x.data(), fromTables.data());
        else
          pk::ropeApplyInterleavedInto(cosT.data(), sinT.data(), n, headDim, tokens, heads, x.data(), fromTables.data());
        double worst = 0.0;
        for (std::size_t j = 0; j < count; ++j) worst = std::max(worst, static_cast<double>(std::fabs(fromTables[j] - ref[j])));
        const std::string layoutName = ropeLayoutName(layout);
        CAPTURE(layoutName);
        CAPTURE(headDim);
        CAPTURE(fraction);
        // float32 products of |x| <= 2.5 and |cos|, |sin| <= attention factor: a few ulp of 2.5.
        CHECK(worst <= 2e-6 * f.attentionFactor);
        // Pass-through dims are copied exactly.
        for (int d = 2 * n; d < headDim; ++d) CHECK(fromTables[static_cast<std::size_t>(d)] == x[static_cast<std::size_t>(d)]);
        for (const pk::KernelOptions& o : optionVariants()) {
          CAPTURE(o.maxThreads);
          for (std::size_t shift : {0u, 1u}) {  // 0: direct streaming stores, 1: via a scratch row
            std::vector<float> fromFreq(count + 32, -7.0f);
            float* out = aligned64(fromFreq) + shift;
            if (halfSplit)
              pk::ropeApplyHalfSplitInto(f.invFreq.data(), n, f.attentionFactor, headDim, tokens, heads, first,
                                         x.data(), out, o);
            else
              pk::ropeApplyInterleavedInto(f.invFreq.data(), n, f.attentionFactor, headDim, tokens, heads, first,
                                           x.data(), out, o);
            CAPTURE(shift);
            CHECK(sameBits(out, fromTables.data(), count));
            CHECK(out[count] == -7.0f);
          }
          // In place gives the same bits.
          std::vector<float> inPlace = x;
          if (halfSplit)
            pk::ropeApplyHalfSplitInto(cosT.data(), sinT.data(), n, headDim, tokens, heads, inPlace.data(),
                                       inPlace.data(), o);
          else
            pk::ropeApplyInterleavedInto(cosT.data(), sinT.data(), n, headDim, tokens, heads, inPlace.data(),
                                         inPlace.data(), o);
          CHECK(sameBits(inPlace.data(), fromTables.data(), count));
          // From tables, out of place, into aligned memory.
          std::vector<float> viaTables(count + 32, -7.0f);
          float* vt = aligned64(viaTables);
          if (halfSplit)
            pk::ropeApplyHalfSplitInto(cosT.data(), sinT.data(), n, headDim, tokens, heads, x.data(), vt, o);
          else
            pk::ropeApplyInterleavedInto(cosT.data(), sinT.data(), n, headDim, tokens, heads, x.data(), vt, o);
          CHECK(sameBits(vt, fromTables.data(), count));
          CHECK(vt[count] == -7.0f);
        }
      }
    }
  }
}

TEST_CASE("kernels: RoPE apply with a KV-cache offset equals the slice of the full pass exactly") {
  RopeParams p;
  p.headDim = 64;
  const RopeFrequencies f = ropeFrequencies(p);
  const int tokens = 700;
  const std::vector<float> x = ramp(static_cast<std::size_t>(tokens) * 64, 1.0f);
  std::vector<float> full(x.size());
  pk::ropeApplyHalfSplitInto(f.invFreq.data(), 32, 1.0, 64, tokens, 1, 0, x.data(), full.data());
  for (int offset : {1, 255, 256, 300, 699}) {
    std::vector<float> tail(x.begin() + offset * 64, x.end());
    pk::ropeApplyHalfSplitInto(f.invFreq.data(), 32, 1.0, 64, tokens - offset, 1, offset, tail.data(), tail.data());
    CAPTURE(offset);
    CHECK(sameBits(tail.data(), full.data() + offset * 64, tail.size()));
  }
}

TEST_CASE("kernels: a window of any grid equals the same rows of the full grid exactly") {
  SinusoidalParams sp;
  sp.dModel = 96;
  const std::vector<double> w = sinusoidalOmegas(sp);
  RopeParams rp;
  rp.headDim = 96;
  const RopeFrequencies f = ropeFrequencies(rp);
  const int rows = 2000, n = 48;
  std::vector<float> full(static_cast<std::size_t>(rows) * 96), cosFull(static_cast<std::size_t>(rows) * n);
  std::vector<float> angleFull(cosFull.size());
  pk::sinusoidalInterleavedInto(w.data(), n, rows, 0, full.data());
  pk::ropeCosSinInto(f.invFreq.data(), n, rows, 0, 1.0, cosFull.data(), nullptr);
  pk::ropeAngleInto(f.invFreq.data(), n, rows, 0, angleFull.data());
  for (int first : {1, 37, 255, 256, 257, 1000}) {
    const int len = rows - first;
    std::vector<float> win(static_cast<std::size_t>(len) * 96), cosWin(static_cast<std::size_t>(len) * n);
    std::vector<float> angleWin(cosWin.size());
    pk::sinusoidalInterleavedInto(w.data(), n, len, first, win.data());
    pk::ropeCosSinInto(f.invFreq.data(), n, len, first, 1.0, cosWin.data(), nullptr);
    pk::ropeAngleInto(f.invFreq.data(), n, len, first, angleWin.data());
    CAPTURE(first);
    CHECK(sameBits(win.data(), full.data() + static_cast<std::size_t>(first) * 96, win.size()));
    CHECK(sameBits(cosWin.data(), cosFull.data() + static_cast<std::size_t>(first) * n, cosWin.size()));
    CHECK(sameBits(angleWin.data(), angleFull.data() + static_cast<std::size_t>(first) * n, angleWin.size()));
  }
}

TEST_CASE("kernels: ALiBi grids equal -slope*|i-j| bit for bit, symmetric and causal") {
  const std::vector<double> slopes = alibiSlopes(12);
  for (bool causal : {false, true}) {
    for (int t : {1, 2, 5, 37, 300}) {
      for (double slope : {slopes[0], slopes[11], 0.0}) {
        const std::vector<float> ref = alibiReference(slope, t, causal);
        for (const pk::KernelOptions& o : optionVariants()) {
          std::vector<float> buf(static_cast<std::size_t>(t) * t + 1);
          float* out = buf.data() + (t % 2);
          pk::alibiBiasInto(slope, t, causal, out, o);
          CAPTURE(causal);
          CAPTURE(t);
          CAPTURE(slope);
          CAPTURE(o.maxThreads);
          CHECK(sameBits(out, ref.data(), ref.size()));
        }
      }
    }
  }
  // Hand values: slope 0.5, 4 tokens (the documents' worked example).
  std::vector<float> g(16);
  pk::alibiBiasInto(0.5, 4, false, g.data());
  CHECK(g[0 * 4 + 3] == -1.5f);
  CHECK(g[3 * 4 + 0] == -1.5f);
  CHECK(g[2 * 4 + 1] == -0.5f);
  CHECK(g[1 * 4 + 1] == 0.0f);
  pk::alibiBiasInto(0.5, 4, true, g.data());
  CHECK(g[3 * 4 + 0] == -1.5f);
  CHECK(g[0 * 4 + 3] == -std::numeric_limits<float>::infinity());
}

TEST_CASE("kernels: ALiBi volume holds head h's -slope_h*(i-j) grid at block h") {
  for (int heads : {1, 8, 12}) {
    const std::vector<double> slopes = alibiSlopes(heads);
    std::vector<float> ref;
    for (double slope : slopes) {
      const std::vector<float> g = alibiReference(slope, 65, true);
      ref.insert(ref.end(), g.begin(), g.end());
    }
    for (const pk::KernelOptions& o : optionVariants()) {
      std::vector<float> v(ref.size());
      pk::alibiVolumeInto(slopes.data(), heads, 65, true, v.data(), o);
      CAPTURE(heads);
      CHECK(sameBits(v.data(), ref.data(), ref.size()));
    }
  }
}

TEST_CASE("kernels: score fill puts offset m - n at cell (m, n), equal to ropeScore") {
  RopeParams p;
  p.headDim = 32;
  // k is not a multiple of q, so s(r) != s(-r) and a transposed fill shows.
  const std::vector<float> q = ramp(32, 1.0f), k = reversed(ramp(32, -0.5f));
  for (int t : {1, 3, 129}) {
    // The offsets, with s(0) = 1000 marking the diagonal: exact float32 casts, cell by cell.
    std::vector<double> byOffset(2 * static_cast<std::size_t>(t) - 1);
    for (std::size_t j = 0; j < byOffset.size(); ++j) byOffset[j] = 0.25 * static_cast<double>(j) - 7.0 / 3.0;
    byOffset[static_cast<std::size_t>(t) - 1] = 1000.0;
    const std::size_t cells = static_cast<std::size_t>(t) * static_cast<std::size_t>(t);
    std::vector<float> ref(cells);
    for (int m = 0; m < t; ++m)
      for (int n = 0; n < t; ++n)
        ref[static_cast<std::size_t>(m) * static_cast<std::size_t>(t) + static_cast<std::size_t>(n)] =
            static_cast<float>(byOffset[static_cast<std::size_t>(m - n + t - 1)]);
    for (const pk::KernelOptions& o : optionVariants()) {
      std::vector<float> buf(cells + 1);
      float* out = buf.data() + 1;
      pk::ropeScoreFillInto(byOffset.data(), t, out, o);
      CAPTURE(t);
      CHECK(sameBits(out, ref.data(), cells));
    }
    // From the true offsets of q and k, each cell is the direct float64 score at (m, n).
    std::vector<double> scores(byOffset.size());
    for (int r = -(t - 1); r <= t - 1; ++r)
      scores[static_cast<std::size_t>(r + t - 1)] = ropeScore(p, q, k, std::max(r, 0), std::max(-r, 0));
    std::vector<float> g(cells);
    pk::ropeScoreFillInto(scores.data(), t, g.data());
    for (int m = 0; m < t; m += 4) {
      for (int n = 0; n < t; n += 3) {
        CAPTURE(m);
        CAPTURE(n);
        CHECK(g[static_cast<std::size_t>(m) * static_cast<std::size_t>(t) + static_cast<std::size_t>(n)] ==
              doctest::Approx(ropeScore(p, q, k, m, n)).epsilon(1e-6));
      }
    }
  }
  // s(m, n) = s(m+1, n+1): constant along diagonals, and s(0, 0) = q.k.
  std::vector<double> byOffset(7);
  for (int r = -3; r <= 3; ++r)
    byOffset[static_cast<std::size_t>(r + 3)] = ropeScore(p, q, k, std::max(r, 0), std::max(-r, 0));
  std::vector<float> g(16);
  pk::ropeScoreFillInto(byOffset.data(), 4, g.data());
  double dot = 0.0;
  for (int j = 0; j < 32; ++j) dot += static_cast<double>(q[j]) * k[j];
  CHECK(g[0] == doctest::Approx(dot).epsilon(1e-6));
  CHECK(g[1 * 4 + 0] == g[3 * 4 + 2]);
  CHECK(g[0 * 4 + 1] == g[2 * 4 + 3]);
}

TEST_CASE("kernels: score offsets by rotor sweep equal the direct float64 ropeScore") {
  for (RopeLayout layout : {RopeLayout::HalfSplit, RopeLayout::Interleaved}) {
    RopeParams p;
    p.headDim = 40;
    p.rotaryFraction = 0.8;  // 32 rotary dims, 8 pass through
    p.layout = layout;
    const std::vector<float> q = ramp(40, 1.5f), k = reversed(ramp(40, -0.75f));  // sinCoef != 0
    const RopeFrequencies f = ropeFrequencies(p);
    const int n = static_cast<int>(f.invFreq.size());
    std::vector<double> cosCoef(static_cast<std::size_t>(n)), sinCoef(cosCoef.size());
    double constant = 0.0, coefSum = 0.0;
    for (int i = 0; i < n; ++i) {
      const DimPair d = ropePairDims(p, i);
      const double qa = q[static_cast<std::size_t>(d.a)], qb = q[static_cast<std::size_t>(d.b)];
      const double ka = k[static_cast<std::size_t>(d.a)], kb = k[static_cast<std::size_t>(d.b)];
      cosCoef[static_cast<std::size_t>(i)] = qa * ka + qb * kb;
      sinCoef[static_cast<std::size_t>(i)] = qa * kb - qb * ka;
      coefSum += std::fabs(cosCoef[static_cast<std::size_t>(i)]) + std::fabs(sinCoef[static_cast<std::size_t>(i)]);
    }
    for (int j = 2 * n; j < 40; ++j) constant += static_cast<double>(q[static_cast<std::size_t>(j)]) * k[static_cast<std::size_t>(j)];
    for (int t : {1, 2, 600}) {
      // s(r) = <R_m q, R_n k> at m - n = r: rotate both to (max(r, 0), max(-r, 0)) and dot.
      std::vector<double> ref(2 * static_cast<std::size_t>(t) - 1);
      for (int r = -(t - 1); r <= t - 1; ++r)
        ref[static_cast<std::size_t>(r + t - 1)] = ropeScore(p, q, k, std::max(r, 0), std::max(-r, 0));
      for (const pk::KernelOptions& o : optionVariants()) {
        std::vector<double> out(ref.size());
        pk::ropeScoreOffsetsInto(f.invFreq.data(), cosCoef.data(), sinCoef.data(), n, constant, t, out.data(), o);
        double worst = 0.0;
        for (std::size_t j = 0; j < ref.size(); ++j) worst = std::max(worst, std::fabs(out[j] - ref[j]));
        const std::string layoutName = ropeLayoutName(layout);
        CAPTURE(layoutName);
        CAPTURE(t);
        // Rounding of a sum of n terms of size <= coefSum, in another order: ~1e-15 relative.
        CHECK(worst <= 1e-12 * coefSum);
      }
    }
  }
}

TEST_CASE("kernels: a trigonometric series at any first position equals its terms summed directly") {
  // Three frequencies, one high (2.9 rad/position), over positions that cross several restarts;
  // every position's value is its own cos and sin, and a window from any first position (negative
  // too) is the same bits as the same positions of a longer run.
  const double w[] = {2.9, 0.31, 1.0e-4};
  const double c[] = {0.5, -1.25, 2.0};
  const double s[] = {-0.75, 0.0, 1.5};
  const long long first = -300, count = 1500;
  std::vector<double> all(static_cast<std::size_t>(count));
  for (const pk::KernelOptions& o : optionVariants()) {
    pk::trigSeriesInto(w, c, s, 3, 0.25, first, count, all.data(), o);
    double worst = 0.0;
    for (long long k = 0; k < count; ++k) {
      const double x = static_cast<double>(first + k);
      double ref = 0.25;
      for (int i = 0; i < 3; ++i) ref += c[i] * std::cos(x * w[i]) + s[i] * std::sin(x * w[i]);
      worst = std::max(worst, std::fabs(all[static_cast<std::size_t>(k)] - ref));
    }
    CHECK(worst <= 1e-12);
    std::vector<double> window(200);
    pk::trigSeriesInto(w, c, s, 3, 0.25, 777, 200, window.data(), o);
    for (std::size_t k = 0; k < window.size(); ++k) CHECK(window[k] == all[static_cast<std::size_t>(777 - first) + k]);
  }
  double out = 0.0;
  CHECK_THROWS_WITH_AS(pk::trigSeriesInto(w, c, s, 3, 0.0, 0, 0, &out), doctest::Contains("count"), std::invalid_argument);
  const double bad[] = {1.0, std::nan(""), 1.0};
  CHECK_THROWS_WITH_AS(pk::trigSeriesInto(w, bad, s, 3, 0.0, 0, 1, &out), doctest::Contains("cosCoef"), std::invalid_argument);
}

TEST_CASE("kernels: learned lookup copies rows and refuses rows past max_len") {
  const Grid table = learnedInit(512, 48, 7);
  std::vector<float> ref;
  for (long long pos = 412; pos < 512; ++pos) {
    const std::vector<float> row = learnedLookup(table, pos);
    ref.insert(ref.end(), row.begin(), row.end());
  }
  for (const pk::KernelOptions& o : optionVariants()) {
    std::vector<float> out(100 * 48 + 1);
    pk::learnedLookupInto(table.values.data(), 512, 48, 412, 100, out.data() + 1, o);
    CAPTURE(o.maxThreads);
    CHECK(sameBits(out.data() + 1, ref.data(), 100 * 48));
  }
  std::vector<float> out(2 * 48);
  CHECK_THROWS_WITH_AS(pk::learnedLookupInto(table.values.data(), 512, 48, 511, 2, out.data()),
                       "learnedLookupInto: pos 512 has no row: the table has max_len 512 (rows 0..511)",
                       std::out_of_range);
}

TEST_CASE("kernels: copy and fill write exactly the range asked, at any alignment") {
  for (std::size_t shift : {0u, 1u, 2u, 5u}) {
    for (std::size_t count : {1u, 7u, 16u, 33u, 1000u}) {
      for (bool stream : {false, true}) {
        std::vector<float> src(count), dst(count + 16, 9.0f);
        for (std::size_t j = 0; j < count; ++j) src[j] = static_cast<float>(j) * 0.5f;
        pk::copyFloats(dst.data() + shift, src.data(), count, stream);
        CAPTURE(shift);
        CAPTURE(count);
        CHECK(sameBits(dst.data() + shift, src.data(), count));
        CHECK(dst[shift + count] == 9.0f);
        if (shift > 0) CHECK(dst[shift - 1] == 9.0f);
        pk::fillFloats(dst.data() + shift, -2.0f, count, stream);
        int wrong = 0;
        for (std::size_t j = 0; j < count; ++j) wrong += dst[shift + j] != -2.0f;
        CHECK(wrong == 0);
        CHECK(dst[shift + count] == 9.0f);
      }
    }
  }
}

namespace {

// Values of mixed sign and size for the float64 loops, so that a reordered or fused sum would
// round differently.
double mixedValue(std::size_t j, double scale) {
  return std::sin(static_cast<double>(j) * 0.7 + scale) * (1.0 + scale * static_cast<double>(j % 5));
}

// fn(isa, shift, n) for every ISA, start offset (alignment) and length the float64 loops are tried at.
template <class Fn>
void forEachIsaShiftLength(Fn fn) {
  for (pk::KernelIsa isa : {pk::KernelIsa::Auto, pk::KernelIsa::Avx2, pk::KernelIsa::Baseline})
    for (std::size_t shift : {0u, 1u, 3u})
      for (std::size_t n : {0u, 1u, 2u, 3u, 7u, 8u, 9u, 17u, 64u, 431u}) {
        CAPTURE(static_cast<int>(isa));
        CAPTURE(shift);
        CAPTURE(n);
        fn(isa, shift, n);
      }
}

}  // namespace

TEST_CASE("kernels: the exact-average loops equal their scalar formulas bit for bit, every ISA and length") {
  // addScaledPairInto, rotatePhasesInPlace, multiplyInto, multiplySumInto.
  const auto value = mixedValue;
  forEachIsaShiftLength([&](pk::KernelIsa isa, std::size_t shift, std::size_t n) {
    std::vector<double> dst(n + shift + 1, 5.0), c(n + shift), s(n + shift), zc(n + shift), zs(n + shift);
    std::vector<double> sc(n + shift), ss(n + shift);
    for (std::size_t j = 0; j < n + shift; ++j) {
      dst[j] = value(j, 0.1);
      c[j] = value(j, 1.3);
      s[j] = value(j, 2.9);
      zc[j] = value(j, 4.1);
      zs[j] = value(j, 0.6);
      sc[j] = std::cos(0.3 + static_cast<double>(j));
      ss[j] = std::sin(0.3 + static_cast<double>(j));
    }
    const double x = -0.37, y = 1.0 / 3.0;
    std::vector<double> wantDst = dst, wantC = zc, wantS = zs;
    for (std::size_t j = shift; j < n + shift; ++j) {
      wantDst[j] = dst[j] + (c[j] * x + s[j] * y);
      wantC[j] = zc[j] * sc[j] - zs[j] * ss[j];
      wantS[j] = zc[j] * ss[j] + zs[j] * sc[j];
    }
    pk::addScaledPairInto(dst.data() + shift, c.data() + shift, s.data() + shift, x, y, n, isa);
    pk::rotatePhasesInPlace(zc.data() + shift, zs.data() + shift, sc.data() + shift, ss.data() + shift, n, isa);
    std::vector<double> product(n + shift + 1, 7.0), wantProduct = product;
    for (std::size_t j = shift; j < n + shift; ++j) wantProduct[j] = c[j] * s[j];
    pk::multiplyInto(product.data() + shift, c.data() + shift, s.data() + shift, n, isa);
    CHECK(sameBits(product, wantProduct));
    std::vector<double> weighted(n + shift + 1, 9.0), wantWeighted = weighted;
    for (std::size_t j = shift; j < n + shift; ++j) wantWeighted[j] = dst[j] * (c[j] + s[j]);
    pk::multiplySumInto(weighted.data() + shift, dst.data() + shift, c.data() + shift, s.data() + shift, n, isa);
    CHECK(sameBits(weighted, wantWeighted));
    CHECK(sameBits(dst, wantDst));   // the slack cells too
    CHECK(sameBits(zc, wantC));
    CHECK(sameBits(zs, wantS));
  });
}

TEST_CASE("kernels: the toy-model loops equal their scalar formulas bit for bit, every ISA and length") {
  // addScaledInto and columnDotsInto.
  const auto value = mixedValue;
  constexpr std::size_t kCols = pk::kColumnDots;
  forEachIsaShiftLength([&](pk::KernelIsa isa, std::size_t shift, std::size_t n) {
    std::vector<double> dst(n + shift + 1), x(n + shift);
    for (std::size_t j = 0; j < n + shift; ++j) {
      dst[j] = value(j, 0.1);
      x[j] = value(j, 1.3);
    }
    dst[n + shift] = 5.0;
    const double a = -0.37;
    std::vector<double> want = dst;
    for (std::size_t j = shift; j < n + shift; ++j) want[j] = dst[j] + x[j] * a;
    pk::addScaledInto(dst.data() + shift, x.data() + shift, a, n, isa);
    CHECK(sameBits(dst, want));   // the slack cell too

    // n as the dimension: kCols keys, dimension-major, against one query.
    std::vector<double> q(n + shift), kt((n + shift) * kCols), out(kCols + 1, 9.0);
    for (std::size_t i = 0; i < n + shift; ++i) {
      q[i] = value(i, 2.9);
      for (std::size_t c = 0; c < kCols; ++c) kt[i * kCols + c] = value(i * kCols + c, 0.6);
    }
    std::vector<double> wantDots(kCols + 1, 9.0);
    for (std::size_t c = 0; c < kCols; ++c) {
      double sum = 0.0;
      for (std::size_t i = shift; i < n + shift; ++i) sum += q[i] * kt[i * kCols + c];
      wantDots[c] = sum;
    }
    pk::columnDotsInto(q.data() + shift, kt.data() + shift * kCols, n, out.data(), isa);
    CHECK(sameBits(out, wantDots));   // out[kCols] untouched
  });
}

TEST_CASE("kernels: bad arguments throw before anything is written") {
  const double w[2] = {1.0, 0.01};
  std::vector<float> out(64, 5.0f);
  CHECK_THROWS_WITH_AS(pk::sinusoidalInterleavedInto(w, 0, 4, 0, out.data()),
                       "sinusoidalInterleavedInto: numPairs must be > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(pk::sinusoidalT2TInto(w, 2, 4, 0, nullptr), "sinusoidalT2TInto: out must not be null",
                       std::invalid_argument);
  const double bad[2] = {1.0, std::numeric_limits<double>::quiet_NaN()};
  CHECK_THROWS_WITH_AS(pk::ropeAngleInto(bad, 2, 4, 0, out.data()), "ropeAngleInto: invFreq[1] must be finite, got nan",
                       std::invalid_argument);
  CHECK_THROWS_AS(pk::ropeCosSinInto(w, 2, 4, -1, 1.0, out.data(), nullptr), std::invalid_argument);
  CHECK_THROWS_WITH_AS(pk::ropeCosSinInto(w, 2, 4, 0, 1.0, nullptr, nullptr),
                       "ropeCosSinInto: cosOut and sinOut must not both be null", std::invalid_argument);
  CHECK_THROWS_WITH_AS(pk::ropeApplyHalfSplitInto(w, 2, 1.0, 3, 4, 1, 0, out.data(), out.data()),
                       "ropeApplyHalfSplitInto: numPairs must be at most headDim/2 = 1, got 2", std::invalid_argument);
  CHECK_THROWS_AS(pk::ropeApplyInterleavedInto(w, 2, 1.0, 4, 0, 1, 0, out.data(), out.data()), std::invalid_argument);
  CHECK_THROWS_AS(pk::alibiBiasInto(std::numeric_limits<double>::infinity(), 4, false, out.data()),
                  std::invalid_argument);
  CHECK_THROWS_AS(pk::alibiBiasInto(0.5, 0, false, out.data()), std::invalid_argument);
  CHECK_THROWS_AS(pk::ropeScoreFillInto(nullptr, 4, out.data()), std::invalid_argument);
  int untouched = 0;
  for (float v : out) untouched += v == 5.0f;
  CHECK(untouched == 64);
}

}  // TEST_SUITE
