// The parameter tables of the Learned, ALiBi, Relative, Compare, Where position enters and Word
// order tabs and their views (app/cli/params/{learned,alibi,relative,toy}.hpp): one definition
// per parameter, read by the view's defaults, its flags and --help, and the tabs' settings keys.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "app/cli/request.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_table.hpp"
#include "tests/support/cli_support.hpp"

using namespace posviz;
using namespace posviz::cli;
using posviz::test::runCli;

namespace {

namespace p = params;

const std::vector<const Param*>& tabParams() {
  static const std::vector<const Param*> all = {
      &p::learned::kMaxLen,        &p::learned::kDModel,         &p::learned::kStd,
      &p::learned::kSeed,          &p::learned::kTabPositions,   &p::learned::kTabLookup,
      &p::alibi::kHeads,           &p::alibi::kSlope,            &p::alibi::kPositions,
      &p::alibi::kHead,            &p::alibi::kTabHeads,         &p::alibi::kTabPositions,
      &p::alibi::kTabFirstHeads,   &p::alibi::kRelativeTabSlope, &p::relative::kPositions,
      &p::relative::kTabPositions, &p::t5::kNumBuckets,          &p::t5::kMaxDistance,
      &p::t5::kHeads,              &p::t5::kHead,                &p::t5::kSeed,
      &p::xpos::kScaleBase,        &p::xpos::kPositions,         &p::xpos::kMaxOffset,
      &p::kerple::kKernel,         &p::kerple::kR1,              &p::kerple::kR2,
      &p::fire::kC,                &p::fire::kThreshold,         &p::fire::kHidden,
      &p::fire::kSeed,             &p::shaw::kClip,              &p::shaw::kVariant,
      &p::shaw::kHeadDim,          &p::txl::kDModel,             &p::txl::kDHead,
      &p::txl::kSeed,              &p::txl::kQuery,              &p::toy::kDModel,
      &p::toy::kSeed,              &p::toy::kToken,              &p::compare::kDModel,
      &p::compare::kHeads,         &p::compare::kTrainedLength,  &p::compare::kTargetLength,
      &p::compare::kSeed};
  return all;
}

nlohmann::json exportJson(const std::string& name, std::vector<std::string> args) {
  const std::string dir = std::string(POSVIZ_TEST_OUT) + "/params-tabs";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name + ".json";
  args.insert(args.begin(), {"export", name});
  args.insert(args.end(), {"-o", path});
  const auto run = runCli(args);
  REQUIRE_MESSAGE(run.code == 0, run.err);
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("tab parameters: every default is allowed and in its span, every flag an export option") {
  for (const Param* q : tabParams()) {
    CAPTURE(q->key);
    CHECK(fitsParam(*q, q->def));
    CHECK(q->spanMin() >= q->min);
    CHECK(q->spanMax() <= q->max);
    CHECK(q->spanMin() <= q->def);
    CHECK(q->spanMax() >= q->def);
    CHECK_FALSE(q->help.empty());
    CHECK_FALSE(q->label.empty());
    if (!q->flag.empty()) CHECK_NOTHROW(specOf(std::string(q->flag)));
  }
}

TEST_CASE("tab parameters: defaults are core's where core has them") {
  CHECK(p::toy::kDModel.def == ToyModel{}.dModel);
  CHECK(p::toy::kDModel.max == kMaxToyDim);
  CHECK(p::compare::kDModel.def == ComparisonParams{}.dModel);
  CHECK(p::compare::kHeads.def == ComparisonParams{}.numHeads);
  CHECK(p::compare::kTrainedLength.def == static_cast<double>(ComparisonParams{}.trainedLength));
  CHECK(p::compare::kTargetLength.def == static_cast<double>(ComparisonParams{}.targetLength));
  CHECK(p::kerple::kR1.def == KerpleParams{}.r1);
  CHECK(p::learned::kStd.def == kGpt2InitStd);
  CHECK(p::fire::kHidden.def == kFireHidden);
}

TEST_CASE("tab parameters: the tabs' settings keys are the ones older files hold") {
  // A tab's own Param and the export's share a key where they mean the same value.
  CHECK(p::alibi::kTabHeads.key == p::alibi::kHeads.key);
  CHECK(p::alibi::kTabPositions.key == p::alibi::kPositions.key);
  CHECK(p::relative::kTabPositions.key == p::relative::kPositions.key);
  const std::set<std::string_view> relativeKeys = {
      p::relative::kTabPositions.key, p::t5::kNumBuckets.key, p::t5::kMaxDistance.key, p::t5::kHeads.key,
      p::t5::kHead.key, p::t5::kSeed.key, p::alibi::kRelativeTabSlope.key, p::kerple::kKernel.key,
      p::kerple::kR1.key, p::kerple::kR2.key, p::fire::kC.key, p::fire::kThreshold.key, p::fire::kHidden.key,
      p::fire::kSeed.key, p::rope::kHeadDim.key, p::xpos::kScaleBase.key, p::xpos::kMaxOffset.key,
      p::txl::kQuery.key, p::txl::kDModel.key, p::txl::kDHead.key, p::txl::kSeed.key};
  CHECK(relativeKeys == std::set<std::string_view>{"positions", "num_buckets", "max_distance", "heads", "head",
                                                   "table_seed", "alibi_slope", "kerple_kernel", "kerple_r1",
                                                   "kerple_r2", "fire_c", "fire_threshold", "fire_hidden", "fire_seed",
                                                   "head_dim", "scale_base", "max_offset", "txl_query", "txl_d_model",
                                                   "txl_d_head", "txl_seed"});
  CHECK(p::toy::kDModel.key == "toy_d_model");
  CHECK(p::toy::kSeed.key == "toy_seed");
  CHECK(p::compare::kTrainedLength.key == "trained_length");
  CHECK(p::compare::kTargetLength.key == "target_length");
  nlohmann::json j = nlohmann::json::object();
  saveParam(j, p::kerple::kKernel, 1);
  CHECK(j["kerple_kernel"] == "power");
}

TEST_CASE("tab parameters: each view lists its parameters and starts at their defaults") {
  struct Listed {
    const char* view;
    std::vector<const Param*> params;
  };
  const Listed listed[] = {
      {"learned", {&p::learned::kDModel, &p::learned::kMaxLen}},
      {"alibi-slopes", {&p::alibi::kHeads}},
      {"alibi-bias", {&p::alibi::kHeads, &p::alibi::kPositions}},
      {"t5-buckets", {&p::relative::kPositions, &p::t5::kNumBuckets, &p::t5::kMaxDistance}},
      {"xpos-scale", {&p::rope::kHeadDim, &p::xpos::kPositions, &p::xpos::kScaleBase}},
      {"kerple-bias", {&p::relative::kPositions, &p::kerple::kKernel, &p::kerple::kR1, &p::kerple::kR2}},
      {"fire-bias", {&p::relative::kPositions, &p::fire::kC, &p::fire::kThreshold, &p::fire::kHidden}},
      {"shaw-scores", {&p::relative::kPositions, &p::shaw::kHeadDim, &p::shaw::kClip, &p::shaw::kVariant}},
      {"txl-terms", {&p::relative::kPositions, &p::txl::kDModel, &p::txl::kDHead}},
      {"compare", {&p::compare::kDModel, &p::compare::kHeads, &p::compare::kTrainedLength, &p::compare::kTargetLength}},
      {"attention", {&p::toy::kDModel}},
  };
  for (const Listed& l : listed) {
    CAPTURE(l.view);
    const ViewDef* v = findView(l.view);
    REQUIRE(v != nullptr);
    for (const Param* q : l.params) {
      CAPTURE(q->flag);
      CHECK(viewParam(*v, q->flag) == q);
      CHECK(std::find(v->options.begin(), v->options.end(), std::string(q->flag)) != v->options.end());
    }
    const auto help = runCli({"export", l.view, "--help"});
    CHECK(help.code == 0);
    for (const Param* q : l.params) CHECK(help.out.find(optionHelp(*q)) != std::string::npos);
  }
  CHECK(exportJson("alibi-bias", {})["params"]["positions"] == p::alibi::kPositions.def);
  CHECK(exportJson("alibi-bias", {})["params"]["heads"] == p::alibi::kHeads.def);
  CHECK(exportJson("xpos-scale", {})["params"]["head_dim"] == p::rope::kHeadDim.def);
  CHECK(exportJson("txl-terms", {})["params"]["d_model"] == p::txl::kDModel.def);
  CHECK(exportJson("txl-terms", {})["params"]["d_head"] == p::txl::kDHead.def);
  CHECK(exportJson("shaw-scores", {})["params"]["clip"] == p::shaw::kClip.def);
  CHECK(exportJson("attention", {})["params"]["d_model"] == p::toy::kDModel.def);
  const nlohmann::json c = exportJson("compare", {})["params"];
  CHECK(c["d_model"] == p::compare::kDModel.def);
  CHECK(c["original_max_positions"] == p::compare::kTrainedLength.def);
  CHECK(c["positions"] == p::compare::kTargetLength.def);
}

TEST_CASE("tab parameters: the views check their flags as the table says") {
  auto run = runCli({"export", "compare", "--positions", "1", "-o", "unused.json"});
  CHECK(run.code == 2);
  CHECK(run.err.find("--positions: got \"1\" (out of range), expected " + describeAllowed(p::compare::kTargetLength)) !=
        std::string::npos);
  run = runCli({"export", "shaw-scores", "--variant", "relative", "-o", "unused.json"});
  CHECK(run.code == 2);
  CHECK(run.err.find("expected " + describeAllowed(p::shaw::kVariant)) != std::string::npos);
  run = runCli({"export", "txl-terms", "--head-dim", "5", "-o", "unused.json"});
  CHECK(run.code == 2);
  CHECK(run.err.find("(dims come in pairs)") != std::string::npos);
  // A learned table's width is any positive integer, as core's learnedInit takes it.
  CHECK(exportJson("learned", {"--d-model", "7", "--max-len", "4", "--positions", "4"})["shape"][1] == 7);
  CHECK(exportJson("shaw-scores", {"--variant", "relative_key_query"})["params"]["variant"] == "relative_key_query");
}
