// The parameter table (app/cli/params.hpp, app/cli/scheme_params.hpp): one definition read by the
// CLI, settings and the window.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "app/cli/request.hpp"
#include "app/cli/scheme_params.hpp"
#include "tests/support/param_checks.hpp"

using namespace posviz;
using namespace posviz::cli;

namespace {

// Every Param of the table, for the properties that hold for all of them.
const std::vector<const Param*>& allParams() {
  namespace p = params;
  static const std::vector<const Param*> all = {
      &p::sinusoidal::kDModel, &p::sinusoidal::kBase, &p::sinusoidal::kLayout, &p::sinusoidal::kPositions,
      &p::learned::kMaxLen, &p::learned::kDModel, &p::learned::kStd, &p::rope::kHeadDim, &p::rope::kBase,
      &p::rope::kLayout, &p::rope::kRotaryFraction, &p::scaling::kFactor, &p::scaling::kOriginalMax,
      &p::scaling::kBetaFast, &p::scaling::kBetaSlow, &p::scaling::kLowFreqFactor, &p::scaling::kHighFreqFactor,
      &p::scaling::kMscale, &p::scaling::kMscaleAllDim, &p::scaling::kAttentionFactor, &p::alibi::kHeads,
      &p::alibi::kSlope, &p::t5::kNumBuckets, &p::t5::kMaxDistance, &p::xpos::kScaleBase, &p::kerple::kKernel,
      &p::kerple::kR1, &p::kerple::kR2, &p::fire::kC, &p::fire::kThreshold, &p::fire::kHidden,
      &p::temperature::kFloorScale, &p::temperature::kAttnScale, &p::toy::kDModel, &p::toy::kSeed};
  return all;
}

ParsedOptions given(const Param& p, const std::string& value) {
  return parseOptions({std::string(p.flag), value}, {optionSpec(p, "X")});
}

}  // namespace

TEST_CASE("every parameter's default is allowed, inside its slider span, and its flag is an export option") {
  for (const Param* p : allParams()) test::checkParamDefinition(*p);
}

TEST_CASE("defaults are core's: written once, in the struct the scheme fills") {
  CHECK(params::sinusoidal::kDModel.def == SinusoidalParams{}.dModel);
  CHECK(params::rope::kBase.def == RopeParams{}.base);
  CHECK(params::rope::kHeadDim.def == RopeParams{}.headDim);
  CHECK(params::scaling::kBetaFast.def == 32.0);   // HF's _compute_yarn_parameters: beta_fast = 32
  CHECK(params::scaling::kBetaSlow.def == 1.0);    // ... beta_slow = 1
  CHECK(params::fire::kThreshold.def == 512.0);    // the FIRE reference's init_L
  CHECK(params::fire::kC.def == 0.1);              // ... init_c
  CHECK(params::t5::kNumBuckets.def == 32);        // T5's relative_attention_num_buckets
  CHECK(params::xpos::kScaleBase.def == 512.0);    // torchscale's scale_base
}

TEST_CASE("what a parameter allows, said the same way everywhere") {
  CHECK(describeAllowed(params::sinusoidal::kDModel) == "an even integer in [2, 1048576]");
  CHECK(describeAllowed(params::rope::kLayout) == "one of half-split|interleaved");
  CHECK(describeAllowed(params::rope::kRotaryFraction) == describeRange(RealRange{0, 1, true, false}));
  CHECK(formatDefault(params::sinusoidal::kLayout) == "interleaved");
  CHECK(formatDefault(params::fire::kC) == "0.1");
  CHECK(optionHelp(params::t5::kNumBuckets).find("(default 32)") != std::string::npos);
}

TEST_CASE("the CLI reads a parameter through its definition") {
  int d = 0;
  CHECK(readParam(given(params::sinusoidal::kDModel, "64"), params::sinusoidal::kDModel, d));
  CHECK(d == 64);
  CHECK_THROWS_WITH_AS(readParam(given(params::sinusoidal::kDModel, "7"), params::sinusoidal::kDModel, d),
                       "--d-model: got \"7\", expected an even integer in [2, 1048576] (dims come in pairs)", UsageError);
  double base = 0.0;
  CHECK_THROWS_AS(readParam(given(params::rope::kBase, "1"), params::rope::kBase, base), UsageError);
  CHECK(readParam(given(params::rope::kBase, "500000"), params::rope::kBase, base));
  CHECK(base == 500000.0);
  int layout = -1;
  CHECK(readParam(given(params::sinusoidal::kLayout, "tensor2tensor"), params::sinusoidal::kLayout, layout));
  CHECK(layout == 1);
  CHECK_THROWS_WITH_AS(readParam(given(params::rope::kLayout, "zigzag"), params::rope::kLayout, layout),
                       "--layout: got \"zigzag\", expected one of half-split|interleaved", UsageError);
  int untouched = 5;
  CHECK_FALSE(readParam(parseOptions({}, {optionSpec(params::t5::kNumBuckets, "N")}), params::t5::kNumBuckets, untouched));
  CHECK(untouched == 5);
}

TEST_CASE("settings: an allowed value is read back, anything else leaves the value alone") {
  nlohmann::json j = nlohmann::json::object();
  saveParam(j, params::sinusoidal::kLayout, 1);
  CHECK(j["layout"] == "t2t");
  saveParam(j, params::rope::kBase, 123456.5);
  saveParam(j, params::sinusoidal::kDModel, 256);
  double base = 0.0;
  int d = 0, layout = 0;
  CHECK(loadParam(j, params::rope::kBase, base));
  CHECK(base == 123456.5);
  CHECK(loadParam(j, params::sinusoidal::kDModel, d));
  CHECK(d == 256);
  CHECK(loadParam(j, params::sinusoidal::kLayout, layout));
  CHECK(layout == 1);
  // Older files wrote "tensor2tensor": still read.
  CHECK(loadParam(nlohmann::json{{"layout", "tensor2tensor"}}, params::sinusoidal::kLayout, layout));
  for (const nlohmann::json& bad : {nlohmann::json{{"d_model", 7}}, nlohmann::json{{"d_model", 0}},
                                    nlohmann::json{{"d_model", "64"}}, nlohmann::json{{"d_model", 1e9}}}) {
    d = 42;
    CHECK_FALSE(loadParam(bad, params::sinusoidal::kDModel, d));
    CHECK(d == 42);
  }
  CHECK_FALSE(loadParam(nlohmann::json{{"base", 1.0}}, params::rope::kBase, base));   // base > 1
  CHECK_FALSE(loadParam(nlohmann::json{{"layout", "zigzag"}}, params::rope::kLayout, layout));
}

TEST_CASE("a config's value a parameter cannot take is named with what is allowed") {
  CHECK(notAllowedText(params::rope::kHeadDim, 7, "config.json") ==
        "config.json: head_dim = 7 is not an even integer in [2, 1048576]");
  CHECK_FALSE(fitsParam(params::rope::kBase, 1.0));
  CHECK(fitsParam(params::rope::kBase, 1.0e7 * 10));   // past the slider's span, still allowed
}
