// State logic of the "Relative & more" view (app/gui/panels/panel_relative.hpp): every grid and
// curve is core's, recomputed when a parameter changes; constraints the sliders cannot express
// are enforced; settings round-trip. updateRelativePanel makes no ImGui calls.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "app/gui/panels/panel_relative.hpp"
#include "core/alibi.hpp"
#include "core/kerple.hpp"
#include "core/relative_bias.hpp"
#include "core/txl_relative.hpp"
#include "core/xpos.hpp"

using namespace posviz;
using namespace posviz::app;

TEST_SUITE("views") {

TEST_CASE("relative view: grids and curves are core's, on one shared bias range") {
  RelativePanelState s;
  s.numPositions = 20;
  s.numBuckets = 8;
  s.maxDistance = 16;
  s.t5Heads = 4;
  s.t5Head = 2;
  s.maxOffset = 300;
  s.headDim = 64;
  updateRelativePanel(s);
  REQUIRE(s.error.empty());
  CHECK(s.buckets.values == t5BucketGrid({8, 16, true}, 20).values);
  CHECK(s.t5Bias.values == t5BiasGrid({8, 16, true}, t5BiasTable(8, 4, 0), 2, 20).values);
  CHECK(s.kerple.values == kerpleBiasGrid({KerpleKernel::Log, 1.0, 1.0}, 20, true).values);
  CHECK(s.alibi.values == alibiBiasGrid(0.0625, 20, true).values);
  // The tab starts at the reference FIRE module's defaults (c 0.1, L 512, 32 hidden units).
  CHECK(s.fire.values == fireBiasGrid(FireParams{}, fireSeededMlp(kFireHidden, 0), 20).values);
  CHECK(s.fireC == 0.1);
  CHECK(s.fireThreshold == 512.0);
  // The shared range spans all three grids' finite values.
  CHECK(s.biasRange.min == doctest::Approx(-std::log(20.0)).epsilon(1e-6));   // KERPLE log at distance 19
  CHECK(s.biasRange.max >= 0.0f);
  REQUIRE(s.xposScore.size() == 301);
  REQUIRE(s.ropeScore.size() == 301);
  CHECK(s.ropeScore[0] == doctest::Approx(64.0));
  CHECK(s.xposScore[0] == doctest::Approx(64.0));
  const std::vector<double> ones(64, 1.0);
  CHECK(s.xposScore[300] == doctest::Approx(xposScore({64, 10000.0, 512.0}, ones, ones, 300.0, 0.0)));
  // Without xPos's decay, RoPE at distance d is sum_i 2 cos(d theta_i).
  double rope = 0.0;
  for (int i = 0; i < 32; ++i) rope += 2.0 * std::cos(300.0 * std::pow(10000.0, -2.0 * i / 64));
  CHECK(s.ropeScore[300] == doctest::Approx(rope).epsilon(1e-9));
}

TEST_CASE("relative view: a change recomputes, impossible combinations are clamped, settings round-trip") {
  RelativePanelState s;
  updateRelativePanel(s);
  const std::vector<float> before = s.buckets.values;
  s.t5Causal = true;
  s.dirty = true;
  updateRelativePanel(s);
  CHECK(s.buckets.values != before);
  CHECK(s.buckets.at(0, 5) == 0.0f);   // causal: the future is bucket 0

  s.t5Causal = false;
  s.numBuckets = 7;                    // odd: 3 a side (num_buckets // 2), exact range 1
  s.maxDistance = 1;                   // below the exact range
  s.kerplePower = true;
  s.kerpleR2 = 5.0f;                   // the power kernel allows r2 <= 2
  s.dirty = true;
  updateRelativePanel(s);
  CHECK(s.error.empty());
  CHECK(s.numBuckets == 7);
  CHECK(s.maxDistance == 2);
  CHECK(s.kerpleR2 == 2.0f);

  s.fireThreshold = 20.0f;
  s.scaleBase = 100.0f;
  s.sharedScale = false;
  nlohmann::json j;
  saveRelativePanel(s, j);
  RelativePanelState t;
  loadRelativePanel(t, j);
  CHECK(t.numBuckets == 7);
  CHECK(t.kerplePower);
  CHECK(t.fireThreshold == 20.0f);
  CHECK(t.scaleBase == 100.0f);
  CHECK_FALSE(t.sharedScale);
  CHECK(t.dirty);
}

TEST_CASE("relative view: Transformer-XL's four terms of one query row are core's, the sum is theirs") {
  RelativePanelState s;
  s.numPositions = 12;
  s.txlQuery = 30;   // past the grid: clamped to the last row
  s.txlDModel = 8;
  s.txlDHead = 4;
  s.txlSeed = 5;
  updateRelativePanel(s);
  REQUIRE(s.error.empty());
  CHECK(s.txlQuery == 11);
  REQUIRE(s.txlKeys.size() == 12u);
  const TxlWeights w = txlSeededWeights(8, 4, 5);
  const std::vector<double> emb = txlSeededEmbeddings(12, 8, 6);
  for (int j = 0; j < 12; ++j) {
    const auto jj = static_cast<std::size_t>(j);
    const TxlTerms t = txlTerms(w, emb, 11, j);
    for (std::size_t k = 0; k < 4; ++k) CHECK(s.txlTerm[k][jj] == doctest::Approx(t[k]));
    CHECK(s.txlTotal[jj] == doctest::Approx(t[0] + t[1] + t[2] + t[3]));
  }
  nlohmann::json j;
  saveRelativePanel(s, j);
  RelativePanelState back;
  loadRelativePanel(back, j);
  CHECK(back.txlQuery == 11);
  CHECK(back.txlDModel == 8);
  CHECK(back.txlSeed == 5);
}

}  // TEST_SUITE
