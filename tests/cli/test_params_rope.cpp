// The RoPE family's parameter table (app/cli/params/rope.hpp): the RoPE views, axial RoPE, M-RoPE
// and the extrapolation lab read one definition per parameter, with core's defaults.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "app/cli/request.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_table.hpp"
#include "tests/support/param_checks.hpp"

using namespace posviz;
using namespace posviz::cli;

namespace {

const std::vector<const Param*>& ropeFamilyParams() {
  namespace p = params;
  static const std::vector<const Param*> all = {
      &p::rope::kPositions, &p::rope::kQueryPosition, &p::rope::kKeyPosition, &p::rope::kSeed,
      &p::scaling::kSeqLen, &p::axial::kHeadDim, &p::axial::kBase, &p::axial::kPatchRows, &p::axial::kPatchCols,
      &p::axial::kQueryRow, &p::axial::kQueryCol, &p::mrope::kTextBefore, &p::mrope::kImageRows,
      &p::mrope::kImageCols, &p::mrope::kTextAfter, &p::mrope::kSectionT, &p::mrope::kSectionH, &p::mrope::kHeadDim,
      &p::extrapolation::kTrainedLength, &p::extrapolation::kHeadDim, &p::extrapolation::kSlope,
      &p::extrapolation::kSeed, &p::extrapolation::kLength};
  return all;
}

}  // namespace

TEST_CASE("the RoPE family's parameters: defaults allowed and inside their slider spans, flags are export options") {
  for (const Param* p : ropeFamilyParams()) test::checkParamDefinition(*p);
}

TEST_CASE("one definition per parameter: a scheme's own default, the same range, flag and label") {
  namespace p = params;
  // Axial RoPE: RoPE's base with rope-vit's theta 100, head_dim 64 (core's AxialRopeParams).
  CHECK(p::axial::kBase.def == AxialRopeParams{}.base);
  CHECK(p::axial::kHeadDim.def == AxialRopeParams{}.headDim);
  CHECK(p::axial::kBase.flag == p::rope::kBase.flag);
  CHECK(p::axial::kBase.min == p::rope::kBase.min);
  CHECK(p::axial::kBase.max == p::rope::kBase.max);
  CHECK(p::axial::kBase.sliderMax == p::rope::kBase.sliderMax);
  CHECK(p::axial::kHeadDim.label == p::rope::kHeadDim.label);
  // M-RoPE's head dim is RoPE's, kept under its own settings key.
  CHECK(p::mrope::kHeadDim.key == "mrope_head_dim");
  CHECK(p::mrope::kHeadDim.max == p::rope::kHeadDim.max);
  CHECK(p::mrope::kHeadDim.def == p::rope::kHeadDim.def);
  // The lab: core's ExtrapolationSetup, L0 is --original-max-positions, ALiBi's slope, the toy seed.
  CHECK(p::extrapolation::kTrainedLength.def == ExtrapolationSetup{}.trainedLength);
  CHECK(p::extrapolation::kTrainedLength.flag == p::scaling::kOriginalMax.flag);
  CHECK(p::extrapolation::kTrainedLength.key == "trained_length");
  CHECK(p::extrapolation::kTrainedLength.max == kMaxExtrapolationLength);
  CHECK(p::extrapolation::kHeadDim.def == ExtrapolationSetup{}.model.dModel);
  CHECK(p::extrapolation::kHeadDim.max == kMaxToyDim);
  CHECK(p::extrapolation::kSlope.flag == p::alibi::kSlope.flag);
  CHECK(p::extrapolation::kSlope.def == p::alibi::kSlope.def);
  CHECK(p::extrapolation::kSeed.max == p::toy::kSeed.max);
  // seq_len 0 means L0 in core, so the parameter allows it.
  CHECK(p::scaling::kSeqLen.def == static_cast<double>(RopeScaling{}.seqLen));
  CHECK(fitsParam(p::scaling::kSeqLen, 0));
  CHECK(fitsParam(p::scaling::kMscale, 0));   // 0 = unset
}

TEST_CASE("the RoPE views read their flags through the table") {
  namespace p = params;
  for (const char* name : {"rope-freqs", "rope-angles", "rope-cos", "rope-sin", "rope-rotate", "rope-scores", "rope-decay",
                           "mrope-angles"}) {
    CAPTURE(name);
    const ViewDef* v = findView(name);
    REQUIRE(v != nullptr);
    CHECK(viewParam(*v, "--base") == &p::rope::kBase);
    CHECK(viewParam(*v, "--head-dim") == &p::rope::kHeadDim);
    CHECK(viewParam(*v, "--seq-len") == &p::scaling::kSeqLen);
    const bool hasPositions = std::find(v->options.begin(), v->options.end(), "--positions") != v->options.end();
    CHECK((viewParam(*v, "--positions") == &p::rope::kPositions) == hasPositions);
  }
  CHECK(viewParam(*findView("axial-angles"), "--base") == &p::axial::kBase);
  CHECK(viewParam(*findView("axial-scores"), "--head-dim") == &p::axial::kHeadDim);
  CHECK(viewParam(*findView("extrapolation"), "--head-dim") == &p::extrapolation::kHeadDim);
  CHECK(viewParam(*findView("extrapolation"), "--original-max-positions") == &p::extrapolation::kTrainedLength);
}

TEST_CASE("the views' defaults come from the table") {
  const Request scores = test::viewRequest("rope-scores", {});
  CHECK(scores.positions == params::rope::kPositions.def);   // 256, as the RoPE tab and rope-decay
  CHECK(scores.rope.headDim == RopeParams{}.headDim);
  CHECK(test::viewRequest("rope-decay", {}).positions == 256);
  const Request axial = test::viewRequest("axial-angles", {});
  CHECK(axial.rope.headDim == 64);
  CHECK(axial.rope.base == 100.0);
  const Request lab = test::viewRequest("extrapolation", {});
  CHECK(lab.rope.headDim == 128);
  CHECK(lab.rope.scaling.originalMaxPositions == 4096);
  CHECK(lab.rope.base == 10000.0);
}

TEST_CASE("the RoPE views' flags: the table's ranges and words") {
  CHECK(test::viewRequest("rope-freqs", {"--scaling", "dynamic", "--factor", "2", "--seq-len", "0"}).rope.scaling.seqLen == 0);
  CHECK(test::viewUsageError("rope-freqs", {"--scaling", "dynamic", "--seq-len", "-1"}).find("--seq-len: got \"-1\" (out of range), expected an integer in [0, ") == 0);
  CHECK(test::viewRequest("rope-freqs", {"--scaling", "yarn", "--factor", "4", "--mscale", "0"}).rope.scaling.mscale == 0.0);
  CHECK(test::viewUsageError("rope-angles", {"--head-dim", "7"}) ==
        "--head-dim: got \"7\", expected an even integer in [2, 1048576] (dims come in pairs)");
  CHECK(test::viewUsageError("rope-angles", {"--layout", "zigzag"}) == "--layout: got \"zigzag\", expected one of half-split|interleaved");
  CHECK(test::viewUsageError("axial-angles", {"--head-dim", "6"}) ==
        "--head-dim: got 6, expected a multiple of 4 (half the pairs per image axis)");
  CHECK(test::viewUsageError("axial-angles", {"--head-dim", "2"}).find("expected an integer in [4, 65536]") != std::string::npos);
  CHECK(test::viewUsageError("extrapolation", {"--head-dim", "4098"}) ==
        "--head-dim: got \"4098\" (out of range), expected an integer in [2, 4096]");
  CHECK(test::viewUsageError("extrapolation", {"--original-max-positions", "1"}).find("expected an integer in [2, 1048576]") !=
        std::string::npos);
  CHECK(test::viewRequest("extrapolation", {"--slope", "0.25"}).slope == 0.25);
}
