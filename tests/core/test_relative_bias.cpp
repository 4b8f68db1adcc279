// T5 relative position buckets (core/relative_bias.hpp). Expected buckets are the output of
// HF transformers' T5Attention._relative_position_bucket (modeling_t5.py), evaluated with torch
// 1.13 on the relative positions listed.
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "core/relative_bias.hpp"

using posviz::T5BucketParams;
using posviz::t5RelativePositionBucket;

namespace {

const std::vector<long long> kRelative = {-1000, -200, -128, -127, -100, -64, -50, -32, -20, -16, -15, -9, -8, -7, -1, 0,
                                          1,     2,    7,    8,    9,    15,  16,  20,  32,  50,  64,  100, 127, 128, 200, 1000};

void checkBuckets(const T5BucketParams& p, const std::vector<int>& expected) {
  REQUIRE(expected.size() == kRelative.size());
  for (std::size_t i = 0; i < kRelative.size(); ++i) {
    CAPTURE(kRelative[i]);
    CHECK(t5RelativePositionBucket(p, kRelative[i]) == expected[i]);
  }
}

std::vector<int> histogram(const T5BucketParams& p) {
  std::vector<int> h(static_cast<std::size_t>(p.numBuckets), 0);
  for (long long r = -5000; r <= 5000; ++r) ++h[static_cast<std::size_t>(t5RelativePositionBucket(p, r))];
  return h;
}

}  // namespace

TEST_CASE("relative_bias: T5 buckets match the reference for encoder, decoder and small tables") {
  checkBuckets({32, 128, true}, {15, 15, 15, 15, 15, 14, 13, 12, 10, 10, 9, 8, 8, 7, 1, 0,
                                 17, 18, 23, 24, 24, 25, 26, 26, 28, 29, 30, 31, 31, 31, 31, 31});
  checkBuckets({32, 128, false}, {31, 31, 31, 31, 30, 26, 24, 21, 17, 16, 15, 9, 8, 7, 1, 0,
                                  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 0, 0, 0, 0, 0});
  checkBuckets({8, 16, true}, {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 0, 5, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7});
}

TEST_CASE("relative_bias: bucket sizes over -5000..5000 match the reference's float32 truncation") {
  // The 64/256 table puts 4 distances in bucket 16 and 3 in bucket 17: exact arithmetic would not.
  CHECK(histogram({32, 128, true}) == std::vector<int>{1, 1, 1, 1, 1, 1, 1, 1, 4, 4, 7, 9, 14, 18, 27, 4910,
                                                       0, 1, 1, 1, 1, 1, 1, 1, 4, 4, 7, 9, 14, 18, 27, 4910});
  CHECK(histogram({32, 128, false}) == std::vector<int>{5001, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                                        3,    2, 3, 3, 4, 4, 5, 6, 6, 7, 8, 10, 10, 12, 14, 4888});
  CHECK(histogram({64, 256, true}) ==
        std::vector<int>{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 3, 4, 5, 7, 7, 8, 10, 13, 14, 17, 20, 25, 29, 34, 4785,
                         0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 3, 4, 5, 7, 7, 8, 10, 13, 14, 17, 20, 25, 29, 34, 4785});
  CHECK(histogram({16, 64, false}) == std::vector<int>{5001, 1, 1, 1, 1, 1, 1, 1, 3, 3, 4, 5, 7, 9, 11, 4951});
}

TEST_CASE("relative_bias: the bucket grid is bucket(j - i), and a bias grid reads the table by bucket") {
  const T5BucketParams p{4, 8, true};
  const posviz::Grid g = posviz::t5BucketGrid(p, 6);
  // Reference: query i rows, key j cols, relative_position = memory - context = j - i.
  const std::vector<std::vector<int>> expected = {{0, 3, 3, 3, 3, 3}, {1, 0, 3, 3, 3, 3}, {1, 1, 0, 3, 3, 3},
                                                  {1, 1, 1, 0, 3, 3}, {1, 1, 1, 1, 0, 3}, {1, 1, 1, 1, 1, 0}};
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK(g.at(i, j) == static_cast<float>(expected[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]));
    }
  }
  const posviz::Grid table = posviz::t5BiasTable(4, 3, 7);
  CHECK(table.rows == 4);
  CHECK(table.cols == 3);
  CHECK(posviz::t5BiasTable(4, 3, 7).values == table.values);   // seeded: the same table again
  CHECK(posviz::t5BiasTable(4, 3, 8).values != table.values);
  const posviz::Grid bias = posviz::t5BiasGrid(p, table, 2, 6);
  CHECK(bias.at(0, 5) == table.at(3, 2));
  CHECK(bias.at(5, 0) == table.at(1, 2));
  CHECK(bias.at(3, 3) == table.at(0, 2));
}

TEST_CASE("relative_bias: an odd bidirectional count is split as HF splits it") {
  // modeling_t5.py _relative_position_bucket: num_buckets //= 2, so 33 buckets bucket as 32 do
  // (16 a side, exact up to 8) and bucket 32 is never used. Hand values for N = 33, D = 128:
  // r = 3 -> 16 + 3; r = -3 -> 3; r = 8 -> 16 + 8 + trunc(log(1) ...) = 24;
  // r = 20 -> 16 + 8 + trunc(ln(20/8) / ln(128/8) * 8) = 16 + 8 + trunc(2.64) = 26; r = -200 -> 15.
  const posviz::T5BucketParams odd{33, 128, true};
  CHECK(t5RelativePositionBucket(odd, 3) == 19);
  CHECK(t5RelativePositionBucket(odd, -3) == 3);
  CHECK(t5RelativePositionBucket(odd, 8) == 24);
  CHECK(t5RelativePositionBucket(odd, 20) == 26);
  CHECK(t5RelativePositionBucket(odd, -200) == 15);
  CHECK(t5RelativePositionBucket(odd, 200) == 31);
  const posviz::Grid g33 = posviz::t5BucketGrid(odd, 300), g32 = posviz::t5BucketGrid({32, 128, true}, 300);
  CHECK(g33.values == g32.values);
  CHECK(*std::max_element(g33.values.begin(), g33.values.end()) == 31.0f);
}

TEST_CASE("relative_bias: bad parameters name themselves") {
  CHECK_THROWS_WITH_AS(t5RelativePositionBucket({3, 128, true}, 1), doctest::Contains("leaves no exact bucket"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(t5RelativePositionBucket({32, 8, true}, 1), doctest::Contains("maxDistance must be > the exact range 8"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(t5RelativePositionBucket({1, 8, false}, 1), doctest::Contains("numBuckets must be >= 2"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::t5BucketGrid({32, 128, true}, 0), doctest::Contains("numPositions"), std::invalid_argument);
  const posviz::Grid table = posviz::t5BiasTable(32, 2, 0);
  CHECK_THROWS_WITH_AS(posviz::t5BiasGrid({32, 128, true}, table, 2, 4), doctest::Contains("head"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::t5BiasGrid({16, 128, true}, table, 0, 4), doctest::Contains("expected numBuckets = 16"),
                       std::invalid_argument);
}
