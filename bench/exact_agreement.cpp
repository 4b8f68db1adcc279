// posviz_exact_agreement: how far each closed-form picture of core/exact_average.hpp lies from
// the brute-force mean of its cells, summed one cell at a time in long double, on windows of
// 10^7 to 10^8 cells next to position 2^31 - 1. Prints one line per view; asserts nothing (the
// tests in tests/core/test_exact_average.cpp hold every view to 1e-6).
//   build/bench/bench/posviz_exact_agreement      (about 20 s on one core)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/alibi.hpp"
#include "core/exact_average.hpp"
#include "core/random.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

using namespace posviz;

namespace {

constexpr long long kTop = (1ll << 31) - 1;
constexpr long double kTwoPi = 6.283185307179586476925286766559005768L;

struct Agreement {
  long long cells = 0;
  double maxDiff = 0.0;   // infinity when one side is NaN and the other is not
};

// cell(r, c) is a cell's value, NaN when masked; each display cell is compared with the mean
// of its block's finite cells.
template <class Cell>
Agreement compare(const ExactPicture& pic, const GridWindow& w, Cell&& cell) {
  Agreement a;
  for (int i = 0; i < w.outRows; ++i)
    for (int j = 0; j < w.outCols; ++j) {
      const long long r0 = w.row0 + areaCellBegin(w.rows, w.outRows, i), r1 = w.row0 + areaCellBegin(w.rows, w.outRows, i + 1);
      const long long c0 = w.col0 + areaCellBegin(w.cols, w.outCols, j), c1 = w.col0 + areaCellBegin(w.cols, w.outCols, j + 1);
      long double sum = 0;
      long long finite = 0;
      for (long long c = c0; c < c1; ++c)
        for (long long r = r0; r < r1; ++r) {
          const long double v = cell(r, c);
          if (std::isfinite(v)) {
            sum += v;
            ++finite;
          }
        }
      a.cells += (r1 - r0) * (c1 - c0);
      const double want = finite ? static_cast<double>(sum / finite) : std::numeric_limits<double>::quiet_NaN();
      const double got = pic.values[static_cast<std::size_t>(i) * static_cast<std::size_t>(w.outCols) + static_cast<std::size_t>(j)];
      if (std::isnan(want) != std::isnan(got)) a.maxDiff = std::numeric_limits<double>::infinity();
      else if (!std::isnan(want)) a.maxDiff = std::max(a.maxDiff, std::fabs(got - want));
    }
  return a;
}

void report(const char* view, const GridWindow& w, const Agreement& a) {
  std::printf("%-34s rows [%lld, %lld) x cols [%lld, %lld): %11lld cells in %3d blocks, max |closed form - brute force| %.2e\n",
              view, w.row0, w.row0 + w.rows, w.col0, w.col0 + w.cols, a.cells, w.outRows * w.outCols, a.maxDiff);
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  {
    SinusoidalParams p;
    p.dModel = 64;
    const GridWindow w{kTop - (1 << 21), 1 << 21, 0, 64, 256, 8};   // 256 rows: the phase walk crosses seeds
    report("sinusoidal, d_model 64", w, compare(sinusoidalExactPicture(p, w), w, [&](long long r, long long d) {
             const int dim = static_cast<int>(d);
             const long double a = static_cast<long double>(sinusoidalFrequency(p, sinusoidalPairOfDim(p, dim))) * r;
             return sinusoidalDimIsSin(p, dim) ? sinl(a) : cosl(a);
           }));
  }
  {
    RopeParams p;
    p.headDim = 32;
    const RopeFrequencies f = ropeFrequencies(p);
    const GridWindow w{kTop - (1 << 20), 1 << 20, 0, 16, 8, 4};
    const char* names[] = {"RoPE pair angle mod 2 pi", "RoPE pair cos", "RoPE pair sin"};
    for (RopePairValue v : {RopePairValue::Angle, RopePairValue::Cos, RopePairValue::Sin})
      report(names[static_cast<int>(v)], w, compare(ropePairExactPicture(p, v, w), w, [&](long long r, long long c) {
               const long double a = static_cast<long double>(f.invFreq[static_cast<std::size_t>(c)]) * r;
               if (v == RopePairValue::Angle) return fmodl(a, kTwoPi);
               return (v == RopePairValue::Cos ? cosl(a) : sinl(a)) * f.attentionFactor;
             }));
  }
  {
    // s(m, n) depends on m - n only: each cell takes ropeScore at its offset (small angles, so
    // ropeScore's own rotations are exact to rounding), summed cell by cell.
    RopeParams p;
    p.headDim = 64;
    const std::vector<float> q = randomNormalVector(64, 1), k = randomNormalVector(64, 2);
    const long long side = 10000, m0 = kTop - side, n0 = m0 - 1000;
    const GridWindow w{m0, side, n0, side, 200, 200};
    const long long rMin = m0 - (n0 + side - 1), rMax = m0 + side - 1 - n0;
    std::vector<double> byOffset;
    for (long long r = rMin; r <= rMax; ++r)
      byOffset.push_back(ropeScore(p, q, k, static_cast<double>(std::max(r, 0ll)), static_cast<double>(std::max(-r, 0ll))));
    report("RoPE score s(m, n), head_dim 64", w, compare(ropeScoreExactPicture(p, q, k, w), w, [&](long long m, long long n) {
             return static_cast<long double>(byOffset[static_cast<std::size_t>(m - n - rMin)]);
           }));
  }
  for (bool causal : {false, true}) {
    const double slope = 0.0625;
    const GridWindow w{kTop - 4096, 4096, kTop - 4096 - 1500, 4096, 16, 16};
    report(causal ? "ALiBi bias, causal, m = 1/16" : "ALiBi bias, symmetric, m = 1/16", w,
           compare(alibiExactPicture(slope, causal, w), w,
                   [&](long long i, long long j) { return static_cast<long double>(alibiBias(slope, i, j, causal)); }));
  }
  {
    Grid g;
    g.rows = g.cols = 2048;
    g.values = randomNormalVector(2048 * 2048, 3);
    g.values[12345] = std::numeric_limits<float>::quiet_NaN();   // a masked cell is left out of its block
    const SummedAreaTable table(g);
    const GridWindow w{0, 2048, 0, 2048, 37, 29};
    report("learned / .npy (summed-area table)", w, compare(table.averagePicture(w), w, [&](long long r, long long c) {
             return static_cast<long double>(g.values[static_cast<std::size_t>(r * 2048 + c)]);
           }));
  }
  return 0;
}
