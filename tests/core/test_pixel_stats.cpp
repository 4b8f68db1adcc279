// core/pixel_stats: the envelope and RMS of blocks of the sinusoidal grid, checked against
// visiting every position of the block (angles in long double: the exact angles the envelope is
// defined at).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "core/pixel_stats.hpp"
#include "core/sinusoidal.hpp"

using namespace posviz;

namespace {

SinCosRunExtremes visitAll(double w, long long p0, long long p1) {
  SinCosRunExtremes e{2, -2, 2, -2};
  for (long long p = p0; p < p1; ++p) {
    // At the exact angle p w = hi + lo (fma: the product's rounding error), in long double.
    const double hi = static_cast<double>(p) * w, lo = std::fma(static_cast<double>(p), w, -hi);
    const long double sh = std::sin(static_cast<long double>(hi)), ch = std::cos(static_cast<long double>(hi));
    const long double sl = std::sin(static_cast<long double>(lo)), cl = std::cos(static_cast<long double>(lo));
    const double s = static_cast<double>(sh * cl + ch * sl), c = static_cast<double>(ch * cl - sh * sl);
    e.minSin = std::min(e.minSin, s);
    e.maxSin = std::max(e.maxSin, s);
    e.minCos = std::min(e.minCos, c);
    e.maxCos = std::max(e.maxCos, c);
  }
  return e;
}

}  // namespace

TEST_CASE("pixel stats: a run's extremes are those of visiting every position") {
  // High and low frequencies, one a hair off a quarter turn per position (its angles crowd onto
  // four spots, the hard case for a gap argument), runs short and long, near 0 and near 2^31.
  const double quarter = std::numbers::pi / 2.0;
  for (double w : {2.9, 1.0, 0.31, 1.0e-4, 3.7e-7, quarter, quarter + 1e-9, quarter * (1 - 3e-7), 0.0}) {
    for (long long p0 : {0LL, 12345LL, (1LL << 31) - 200000}) {
      for (long long n : {1LL, 7LL, 64LL, 65LL, 1000LL, 200000LL}) {
        CAPTURE(w);
        CAPTURE(p0);
        CAPTURE(n);
        const SinCosRunExtremes got = sinCosRunExtremes(w, p0, p0 + n), want = visitAll(w, p0, p0 + n);
        CHECK(got.minSin == doctest::Approx(want.minSin).epsilon(1e-14));
        CHECK(got.maxSin == doctest::Approx(want.maxSin).epsilon(1e-14));
        CHECK(got.minCos == doctest::Approx(want.minCos).epsilon(1e-14));
        CHECK(got.maxCos == doctest::Approx(want.maxCos).epsilon(1e-14));
      }
    }
  }
  // A run shorter than a period: the extremes are its ends, not +-1.
  const SinCosRunExtremes slow = sinCosRunExtremes(1e-6, 100, 200000);
  CHECK(slow.minSin == doctest::Approx(std::sin(1e-4)));
  CHECK(slow.maxSin == doctest::Approx(std::sin(199999e-6)));
  CHECK_THROWS_WITH_AS(sinCosRunExtremes(1.0, 5, 5), doctest::Contains("p1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(sinCosRunExtremes(std::nan(""), 0, 5), doctest::Contains("w"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(sinCosRunExtremes(1.0, 0, (1LL << 32) + 1), doctest::Contains("2^32"), std::invalid_argument);
}

TEST_CASE("pixel stats: sinusoidal pictures of min, max and RMS are those of the blocks' cells") {
  for (SinusoidalLayout layout : {SinusoidalLayout::Interleaved, SinusoidalLayout::Tensor2Tensor}) {
    SinusoidalParams p;
    p.dModel = 12;
    p.base = 100.0;
    p.layout = layout;
    const GridWindow w{5000, 3000, 2, 9, 7, 4};   // rows 5000..7999 in 7 blocks, dims 2..10 in 4
    const std::vector<long long> rb = [&] {
      std::vector<long long> b;
      for (int i = 0; i <= w.outRows; ++i) b.push_back(w.row0 + areaCellBegin(w.rows, w.outRows, i));
      return b;
    }();
    for (PixelStat stat : {PixelStat::Min, PixelStat::Max, PixelStat::Rms}) {
      CAPTURE(pixelStatName(stat));
      const ExactPicture pic = sinusoidalStatPicture(p, w, stat);
      REQUIRE(pic.values.size() == 28);
      for (int i = 0; i < w.outRows; ++i) {
        for (int j = 0; j < w.outCols; ++j) {
          const long long c0 = w.col0 + areaCellBegin(w.cols, w.outCols, j), c1 = w.col0 + areaCellBegin(w.cols, w.outCols, j + 1);
          double lo = 2, hi = -2, sq = 0;
          long long count = 0;
          for (long long r = rb[static_cast<std::size_t>(i)]; r < rb[static_cast<std::size_t>(i) + 1]; ++r)
            for (long long c = c0; c < c1; ++c) {
              const double v = sinusoidalValue(p, static_cast<double>(r), static_cast<int>(c));
              lo = std::min(lo, v);
              hi = std::max(hi, v);
              sq += v * v;
              ++count;
            }
          const double want = stat == PixelStat::Min ? lo : stat == PixelStat::Max ? hi : std::sqrt(sq / static_cast<double>(count));
          CAPTURE(i);
          CAPTURE(j);
          CHECK(pic.values[static_cast<std::size_t>(i * w.outCols + j)] == doctest::Approx(want).epsilon(1e-12));
        }
      }
    }
    // One block's four stats, for the hover, are the pictures' at a one-pixel picture.
    const GridWindow one{5000, 3000, 2, 9, 1, 1};
    const BlockStats b = sinusoidalBlockStats(p, 5000, 8000, 2, 11);
    CHECK(b.mean == doctest::Approx(sinusoidalExactPicture(p, one).values[0]).epsilon(1e-12));
    CHECK(b.min == sinusoidalStatPicture(p, one, PixelStat::Min).values[0]);
    CHECK(b.max == sinusoidalStatPicture(p, one, PixelStat::Max).values[0]);
    CHECK(b.rms == doctest::Approx(sinusoidalStatPicture(p, one, PixelStat::Rms).values[0]).epsilon(1e-14));
    // Mean is the exact-average picture itself.
    CHECK(sinusoidalStatPicture(p, w, PixelStat::Mean).values == sinusoidalExactPicture(p, w).values);
  }
}

TEST_CASE("pixel stats: at 2^31 positions the mean flattens out, the envelope and RMS do not") {
  SinusoidalParams p;
  p.dModel = 64;
  const GridWindow w{0, 1LL << 31, 0, 64, 300, 64};
  const ExactPicture mean = sinusoidalExactPicture(p, w);
  CHECK(meanFlattens(mean, w, 1.0));
  const ExactPicture rms = sinusoidalStatPicture(p, w, PixelStat::Rms);
  const ExactPicture hi = sinusoidalStatPicture(p, w, PixelStat::Max);
  // Every dim swings through many periods in a block of ~7 million positions.
  for (double v : rms.values) CHECK(v == doctest::Approx(std::sqrt(0.5)).epsilon(1e-3));
  // The picture walks doubled-frequency phases block to block; the hover's block stats take each
  // block's run mean of cos(2 w p) on its own. The two routes agree at every 37th pixel.
  for (int i = 0; i < w.outRows; i += 37)
    for (int j = 0; j < w.outCols; j += 7) {
      const long long r0 = areaCellBegin(w.rows, w.outRows, i), r1 = areaCellBegin(w.rows, w.outRows, i + 1);
      const int c0 = static_cast<int>(areaCellBegin(w.cols, w.outCols, j)), c1 = static_cast<int>(areaCellBegin(w.cols, w.outCols, j + 1));
      CHECK(rms.values[static_cast<std::size_t>(i * w.outCols + j)] == doctest::Approx(sinusoidalBlockStats(p, r0, r1, c0, c1).rms).epsilon(1e-12));
    }
  for (double v : hi.values) CHECK(v == doctest::Approx(1.0).epsilon(1e-9));
  const ChosenPicture autoPick = sinusoidalChosenPicture(p, w, PixelChoice::Auto);
  CHECK(autoPick.automatic);
  CHECK(autoPick.stat == PixelStat::Rms);
  CHECK(autoPick.picture.values == rms.values);
  CHECK(autoPick.meanPeak < 0.1);
  CHECK(sinusoidalChosenPicture(p, w, PixelChoice::Max).stat == PixelStat::Max);
  CHECK_FALSE(sinusoidalChosenPicture(p, w, PixelChoice::Max).automatic);
  // One position per display row: nothing is averaged, so nothing flattens.
  const GridWindow small{0, 300, 0, 64, 300, 64};
  CHECK_FALSE(meanFlattens(sinusoidalExactPicture(p, small), small, 1.0));
  const ChosenPicture plain = sinusoidalChosenPicture(p, small, PixelChoice::Auto);
  CHECK(plain.stat == PixelStat::Mean);
  CHECK(plain.meanPeak == doctest::Approx(1.0).epsilon(1e-3));
  CHECK(std::string(pixelStatName(PixelStat::Rms)) == "rms");
  CHECK(std::string(pixelStatTitle(PixelStat::Max)) == "greatest (envelope)");
}
