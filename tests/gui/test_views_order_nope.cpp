// The Word order view's "causal, no positions (NoPE)" section: its state follows core/nope, a
// sentence holding the BOS token is an inline error, and the section draws in a real window (run
// under xvfb-run). Pictures go to POSVIZ_TEST_OUT/views-order.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "app/gui/panels/panel_order.hpp"
#include "app/gui/panels/panels.hpp"
#include "tests/gui/test_shell.hpp"

using namespace posviz;
using namespace posviz::app;

TEST_SUITE("views") {

TEST_CASE("order view: the NoPE section counts positions and sees order only with the mask") {
  OrderPanelState s;
  std::snprintf(s.sentence, sizeof s.sentence, "dog bites man");
  std::snprintf(s.shuffled, sizeof s.shuffled, "man bites dog");
  updateOrderPanel(s);
  CHECK(s.error.empty());
  REQUIRE(s.nopeValid);
  CHECK(s.nope.bidirectional.maxOutputDifference < 1e-6);
  CHECK(s.nope.causal.maxOutputDifference > 1e-3);
  REQUIRE(s.counting.tokens.size() == 4);  // <bos> dog bites man
  for (int t = 0; t < 4; ++t) {
    CAPTURE(t);
    CHECK(s.counting.recoveredPosition[static_cast<std::size_t>(t)] == doctest::Approx(t));
  }

  std::snprintf(s.sentence, sizeof s.sentence, "<bos> bites man");
  std::snprintf(s.shuffled, sizeof s.shuffled, "man bites <bos>");
  s.dirty = true;
  updateOrderPanel(s);
  CHECK(s.error.rfind("sentence: nopeCounting: tokens[0] must not be \"<bos>\"", 0) == 0);
  CHECK_FALSE(s.nopeValid);
  CHECK(s.results.size() == orderEncodings().size());  // the encodings' table still holds
}

TEST_CASE("order view: the NoPE section draws") {
  auto app = testing::makeTestShell(1440, 900);
  if (!app) return;
  const std::string dir = std::string(POSVIZ_TEST_OUT) + "/views-order";
  std::filesystem::create_directories(dir);
  const int order = findPanel("order");
  REQUIRE(order >= 0);
  app->state().order.nopeView = true;
  app->state().order.dirty = true;
  app->selectPanel(order);
  CHECK(app->renderUntilIdle(4, 60.0));
  CHECK(app->activePanel() == order);
  std::string error;
  CHECK(app->frame(dir + "/order-nope.png", &error));
  CHECK(error.empty());
  CHECK(app->state().order.nopeValid);
  CHECK(app->activeExports().name == "order-nope-counting-weights");
}

}
