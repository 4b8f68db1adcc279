// core/attn_temperature: Llama 4's NoPE-layer query scale. Expected values computed with HF
// transformers' expression (models/llama4/modeling_llama4.py, Llama4TextAttention.forward:
// torch.log(torch.floor((cache_position.float() + 1.0) / floor_scale) + 1.0) * attn_scale + 1.0)
// in torch, float32, floor_scale 8192, attn_scale 0.1.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "core/attn_temperature.hpp"

using namespace posviz;

TEST_SUITE("attn temperature") {

TEST_CASE("Llama 4 defaults: 1 up to position 8190, then a step at every multiple of 8192") {
  const AttnTemperatureParams p;
  CHECK(llama4AttnScale(p, 0) == 1.0);
  CHECK(llama4AttnScale(p, 8190) == 1.0);
  CHECK(llama4AttnScale(p, 8191) == doctest::Approx(1.06931471824646).epsilon(1e-7));   // 1 + 0.1 ln 2
  CHECK(llama4AttnScale(p, 16382) == doctest::Approx(1.06931471824646).epsilon(1e-7));
  CHECK(llama4AttnScale(p, 16383) == doctest::Approx(1.1098612546920776).epsilon(1e-7));  // 1 + 0.1 ln 3
  CHECK(llama4AttnScale(p, 100000) == doctest::Approx(1.2564949989318848).epsilon(1e-7));
  CHECK(llama4AttnScale(p, 1048575) == doctest::Approx(1.4859812259674072).epsilon(1e-7));
  CHECK(llama4AttnScale(p, 8191) == doctest::Approx(1.0 + 0.1 * std::log(2.0)).epsilon(1e-15));
}

TEST_CASE("a run of positions equals the pointwise values and never decreases") {
  AttnTemperatureParams p;
  p.floorScale = 4;
  p.attnScale = 0.5;
  const std::vector<double> s = llama4AttnScales(p, 2, 20);
  REQUIRE(s.size() == 20);
  for (std::size_t i = 0; i < s.size(); ++i) {
    CHECK(s[i] == llama4AttnScale(p, 2 + static_cast<long long>(i)));
    if (i > 0) CHECK(s[i] >= s[i - 1]);
  }
  CHECK(s[1] == doctest::Approx(1.0 + 0.5 * std::log(2.0)));   // position 3: floor(4 / 4) = 1
}

TEST_CASE("errors name the parameter") {
  AttnTemperatureParams p;
  CHECK_THROWS_WITH_AS(llama4AttnScale(p, -1), doctest::Contains("pos"), std::invalid_argument);
  p.floorScale = 0;
  CHECK_THROWS_WITH_AS(llama4AttnScale(p, 0), doctest::Contains("floorScale"), std::invalid_argument);
  p.floorScale = 8192;
  p.attnScale = std::nan("");
  CHECK_THROWS_WITH_AS(llama4AttnScales(p, 0, 4), doctest::Contains("attnScale"), std::invalid_argument);
  p.attnScale = 0.1;
  CHECK_THROWS_WITH_AS(llama4AttnScales(p, 0, 0), doctest::Contains("numPositions"), std::invalid_argument);
}

}  // TEST_SUITE
