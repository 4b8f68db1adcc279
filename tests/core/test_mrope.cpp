// M-RoPE (core/mrope.cpp): Qwen2-VL position ids, section axes, and the reduction to RoPE for text.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/mrope.hpp"
#include "core/rope.hpp"

using posviz::MropeAxis;
using posviz::MropePositions;
using posviz::MropeSegment;

TEST_SUITE("mrope") {

TEST_CASE("mrope: text, then a 1x2x3 image, then text gets Qwen2-VL's (t, h, w) ids") {
  // modeling_qwen2_vl.py get_rope_index: text ids 0..2; the image starts at st_idx = 3 with
  // t = 3, h = 3 + row, w = 3 + col; text after it starts at max id + 1 = 3 + 2 + 1 = 6.
  MropeSegment text = posviz::mropeText(3);
  MropeSegment image = posviz::mropeImage(1, 2, 3);
  MropeSegment tail = posviz::mropeText(2);
  const MropePositions ids = posviz::mropePositionIds({text, image, tail});
  CHECK(ids.t == std::vector<long long>{0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7});
  CHECK(ids.h == std::vector<long long>{0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7});
  CHECK(ids.w == std::vector<long long>{0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7});
}

TEST_CASE("mrope: contiguous sections (Qwen2.5-VL 16/24/24) and interleaved ones (Qwen3.5 11/11/10)") {
  const std::vector<MropeAxis> c = posviz::mropePairAxes({16, 24, 24}, false);
  REQUIRE(c.size() == 64);
  CHECK(c[15] == MropeAxis::T);
  CHECK(c[16] == MropeAxis::H);
  CHECK(c[39] == MropeAxis::H);
  CHECK(c[40] == MropeAxis::W);
  CHECK(c[63] == MropeAxis::W);
  // apply_interleaved_mrope: h at slice(1, 3 * 11, 3), w at slice(2, 3 * 10, 3), t elsewhere.
  const std::vector<MropeAxis> q = posviz::mropePairAxes({11, 11, 10}, true);
  REQUIRE(q.size() == 32);
  CHECK(q[0] == MropeAxis::T);
  CHECK(q[1] == MropeAxis::H);
  CHECK(q[2] == MropeAxis::W);
  CHECK(q[31] == MropeAxis::H);  // 31 % 3 == 1 and 31 < 33
  CHECK(q[29] == MropeAxis::W);  // 29 % 3 == 2 and 29 < 30
  CHECK(q[30] == MropeAxis::T);
  CHECK_THROWS_WITH_AS(posviz::mropePairAxes({1, -1, 2}, false), doctest::Contains("section[1] must be >= 0, got -1"),
                       std::invalid_argument);
}

TEST_CASE("mrope: text tokens reduce to plain RoPE; image tokens follow their axis per pair") {
  posviz::RopeParams p;
  p.headDim = 128;
  p.base = 1.0e6;
  const MropePositions text = posviz::mropePositionIds({posviz::mropeText(40)});
  const posviz::Grid m = posviz::mropeAngleGrid(p, {16, 24, 24}, false, text);
  const posviz::Grid r = posviz::ropeAngleGrid(p, 40);
  REQUIRE(m.rows == r.rows);
  REQUIRE(m.cols == r.cols);
  for (int pos = 0; pos < r.rows; ++pos) {
    for (int pair = 0; pair < r.cols; ++pair) {
      CAPTURE(pos);
      CAPTURE(pair);
      // Both wrap to [0, 2pi) in float32: compare on the circle, 1e-5 rad covers the rounding.
      const double d = std::remainder(static_cast<double>(m.at(pos, pair)) - r.at(pos, pair), 2.0 * M_PI);
      CHECK(std::abs(d) < 1e-5);
    }
  }
  const MropePositions img = posviz::mropePositionIds({posviz::mropeImage(1, 2, 2)});
  const posviz::Grid g = posviz::mropeAngleGrid(p, {16, 24, 24}, false, img);
  // Token 3 = patch (row 1, col 1): ids (0, 1, 1). Pair 0 follows t (angle 0), pair 16 h, pair 40 w.
  CHECK(g.at(3, 0) == 0.0f);
  CHECK(g.at(3, 16) == doctest::Approx(std::pow(1.0e6, -32.0 / 128.0)));
  CHECK(g.at(3, 40) == doctest::Approx(std::pow(1.0e6, -80.0 / 128.0)));
  CHECK(g.at(1, 16) == 0.0f);  // patch (0, 1): h id 0
  CHECK_THROWS_WITH_AS(posviz::mropeAngleGrid(p, {16, 24, 20}, false, img), doctest::Contains("sums to 60 pairs, expected 64"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(posviz::mropePositionIds({posviz::mropeText(0)}),
                       doctest::Contains("segments[0].numTokens must be >= 1, got 0"), std::invalid_argument);
}

}  // TEST_SUITE
