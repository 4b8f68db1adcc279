// Log-distance bins of the extrapolation lab (core/extrapolation.hpp): the Extrapolation tab draws
// one point per bin [0], [1], [2,3], [4,7], ... instead of one per distance. Hand-computed bins,
// and a softmax row's bins add up to 1.
#include <doctest/doctest.h>

#include <numeric>
#include <stdexcept>
#include <vector>

#include "core/extrapolation.hpp"

using namespace posviz;

TEST_SUITE("extrapolation") {

TEST_CASE("extrapolation bins: ten weights by distance fall in [0], [1], [2,3], [4,7], [8,9]") {
  const std::vector<double> w = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};   // weight r+1 at distance r
  const std::vector<DistanceBin> bins = logDistanceBins(w);
  REQUIRE(bins.size() == 5);
  const int first[] = {0, 1, 2, 4, 8}, last[] = {0, 1, 3, 7, 9}, count[] = {1, 1, 2, 4, 2};
  const double sum[] = {1, 2, 3 + 4, 5 + 6 + 7 + 8, 9 + 10};
  for (std::size_t k = 0; k < bins.size(); ++k) {
    CAPTURE(k);
    CHECK(bins[k].first == first[k]);
    CHECK(bins[k].last == last[k]);
    CHECK(bins[k].count() == count[k]);
    CHECK(bins[k].sum == sum[k]);
  }
  CHECK(bins[3].mean() == 26.0 / 4.0);
  CHECK(bins[4].mean() == 19.0 / 2.0);
}

TEST_CASE("extrapolation bins: a power of two ends on a whole bin; one weight is one bin; none is none") {
  const std::vector<DistanceBin> eight = logDistanceBins(std::vector<double>(8, 0.125));
  REQUIRE(eight.size() == 4);   // [0], [1], [2,3], [4,7]
  CHECK(eight[3].first == 4);
  CHECK(eight[3].last == 7);
  CHECK(eight[3].sum == 0.5);
  const std::vector<DistanceBin> nine = logDistanceBins(std::vector<double>(9, 1.0));
  REQUIRE(nine.size() == 5);    // ... [8]
  CHECK(nine[4].first == 8);
  CHECK(nine[4].last == 8);
  const std::vector<DistanceBin> one = logDistanceBins(std::vector<double>{0.75});
  REQUIRE(one.size() == 1);
  CHECK(one[0].first == 0);
  CHECK(one[0].last == 0);
  CHECK(one[0].sum == 0.75);
  CHECK(logDistanceBins(std::vector<double>{}).empty());
}

TEST_CASE("extrapolation bins: the bin of a distance is 0 for 0, else floor(log2 d) + 1") {
  CHECK(logDistanceBin(0) == 0);
  CHECK(logDistanceBin(1) == 1);
  CHECK(logDistanceBin(2) == 2);
  CHECK(logDistanceBin(3) == 2);
  CHECK(logDistanceBin(4) == 3);
  CHECK(logDistanceBin(7) == 3);
  CHECK(logDistanceBin(8) == 4);
  CHECK(logDistanceBin(1023) == 10);
  CHECK(logDistanceBin(1024) == 11);
  CHECK(logDistanceBin(kMaxExtrapolationLength - 1) == 20);
  CHECK_THROWS_WITH_AS(logDistanceBin(-1), "logDistanceBin: distance must be >= 0, got -1", std::invalid_argument);
  // Every bin holds exactly the distances logDistanceBin puts in it.
  const std::vector<DistanceBin> bins = logDistanceBins(std::vector<double>(1000, 1.0));
  for (std::size_t k = 0; k < bins.size(); ++k)
    for (int r = bins[k].first; r <= bins[k].last; ++r) REQUIRE(logDistanceBin(r) == static_cast<int>(k));
}

TEST_CASE("extrapolation bins: a softmax row's bins cover every key once and sum to 1") {
  ExtrapolationSetup s;
  s.model = ToyModel{8, 0, false};
  s.trainedLength = 16;
  for (ExtrapolationEncoding e : allExtrapolationEncodings()) {
    for (int length : {1, 2, 10, 16, 64, 100}) {
      CAPTURE(extrapolationEncodingName(e));
      CAPTURE(length);
      const ExtrapolationRun r = runExtrapolation(s, e, length);
      if (!r.error.empty()) continue;   // learned past L0: no weights
      const std::vector<DistanceBin> bins = logDistanceBins(r.weights);
      REQUIRE(bins.size() == static_cast<std::size_t>(logDistanceBin(length - 1) + 1));
      int keys = 0;
      double total = 0.0;
      for (std::size_t k = 0; k < bins.size(); ++k) {
        CHECK(bins[k].first == (k == 0 ? 0 : bins[k - 1].last + 1));
        keys += bins[k].count();
        total += bins[k].sum;
        const double direct = std::accumulate(r.weights.begin() + bins[k].first, r.weights.begin() + bins[k].last + 1, 0.0);
        CHECK(bins[k].sum == doctest::Approx(direct).epsilon(1e-15));
      }
      CHECK(bins.back().last == length - 1);
      CHECK(keys == length);
      CHECK(total == doctest::Approx(1.0).epsilon(1e-12));
    }
  }
}

}  // TEST_SUITE
