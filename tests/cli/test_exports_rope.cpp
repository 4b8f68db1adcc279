// The RoPE family's typed exports (app/cli/view_call.hpp): a RopeParams set on a call parses back
// to the same parameters, rope-cos and rope-sin are core's grids, and rope-scores / rope-rotate
// draw q and k from --seed exactly as the RoPE tab does.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/args.hpp"
#include "app/cli/cli.hpp"
#include "app/cli/request.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_call.hpp"
#include "app/cli/view_table.hpp"
#include "core/context_extension.hpp"
#include "core/exact_average.hpp"
#include "core/npy.hpp"
#include "core/random.hpp"
#include "core/rope.hpp"
#include "tests/support/export_support.hpp"
#include "tests/support/param_checks.hpp"

namespace fs = std::filesystem;
using namespace posviz;
using posviz::cli::UsageError;
using posviz::cli::ViewCall;

namespace {

fs::path scratch(const std::string& name) { return test::exportScratch("rope-typed/" + name); }

NpyArray exported(const ViewCall& call, const fs::path& path) {
  cli::exportCall(call, path.string(), {}, false);
  return readNpy(path.string());
}

std::vector<RopeParams> ropeCases() {
  std::vector<RopeParams> cases(7);
  cases[1].base = 500000.0;
  cases[1].layout = RopeLayout::Interleaved;
  cases[1].rotaryFraction = 0.25;
  cases[2].scaling.method = ScalingMethod::Yarn;
  cases[2].scaling.factor = 40.0;
  cases[2].scaling.mscale = 1.0;
  cases[2].scaling.mscaleAllDim = 0.707;
  cases[2].scaling.betaFast = 16.0;
  cases[3].scaling.method = ScalingMethod::Llama3;
  cases[3].scaling.factor = 8.0;
  cases[3].scaling.originalMaxPositions = 8192;
  cases[4].headDim = 8;
  cases[4].scaling.method = ScalingMethod::LongRope;
  cases[4].scaling.factor = 32.0;
  cases[4].scaling.shortFactor = {1.0, 1.1, 1.25, 0.1};
  cases[4].scaling.longFactor = {1.0, 2.5, 3.0, 7.0000001};
  cases[4].scaling.seqLen = 100000;
  cases[4].scaling.attentionFactor = 1.19;
  cases[5].scaling.method = ScalingMethod::DynamicNtk;
  cases[5].scaling.factor = 2.5;
  // gpt-oss's rope_scaling: YaRN without rounding the correction range ("truncate": false).
  cases[6].scaling.method = ScalingMethod::Yarn;
  cases[6].scaling.factor = 32.0;
  cases[6].scaling.truncate = false;
  return cases;
}

}  // namespace

TEST_SUITE("exports_rope") {

TEST_CASE("addRopeParams: every RoPE setting, scalings and YaRN without rounding included, parses back exactly") {
  const fs::path dir = scratch("params");
  const std::vector<RopeParams> cases = ropeCases();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(i);
    ViewCall call{"rope-freqs"};
    cli::addRopeParams(call, cases[i]);
    const std::vector<std::string> args = cli::exportCallArguments(call, (dir / "f.json").string(), {}, false);
    CAPTURE(cli::commandLine(args));
    std::vector<std::string> f64 = args;
    f64.insert(f64.end() - 2, {"--dtype", "f64"});
    cli::exportWithArguments(f64);
    const RopeFrequencies expected = ropeFrequencies(cases[i]);
    const nlohmann::json doc = nlohmann::json::parse(test::readText(dir / "f.json"));
    const std::vector<double> got = doc["inv_freq"].get<std::vector<double>>();
    REQUIRE(got.size() == expected.invFreq.size());
    // Exact: every value is written in shortest round-trip form and parsed back to the same double.
    for (std::size_t k = 0; k < got.size(); ++k) CHECK(got[k] == expected.invFreq[k]);
    CHECK(doc["attention_factor"].get<double>() == expected.attentionFactor);
  }
  // Rounding off changes YaRN's ramp, so the switch is what makes case 6 exact.
  ViewCall call{"rope-freqs"};
  CHECK(cli::commandLine(cli::exportCallArguments(cli::addRopeParams(call, cases[6]), "f.json", {}, false)) ==
        "posviz export rope-freqs --head-dim 128 --base 10000 --layout half-split --scaling yarn --factor 32 "
        "--original-max-positions 4096 --beta-fast 32 --beta-slow 1 --no-truncate -o f.json");
  RopeParams rounded = cases[6];
  rounded.scaling.truncate = true;
  CHECK(ropeFrequencies(rounded).invFreq != ropeFrequencies(cases[6]).invFreq);
  CHECK_FALSE(test::viewRequest("rope-freqs", {"--scaling", "yarn", "--no-truncate"}).rope.scaling.truncate);
  CHECK_THROWS_WITH_AS(test::viewRequest("rope-freqs", {"--no-truncate"}), doctest::Contains("--no-truncate: needs --scaling"), UsageError);
}

TEST_CASE("rope-cos and rope-sin are core's cos and sin grids, attention factor included; --size their block means") {
  const fs::path dir = scratch("pairs");
  RopeParams p;
  p.headDim = 16;
  p.base = 500.0;
  p.scaling.method = ScalingMethod::Yarn;   // an attention factor != 1 multiplies both
  p.scaling.factor = 8.0;
  p.scaling.originalMaxPositions = 64;
  REQUIRE(ropeFrequencies(p).attentionFactor != 1.0);
  for (const char* view : {"rope-angles", "rope-cos", "rope-sin"}) {
    CAPTURE(view);
    ViewCall call{view};
    cli::addRopeParams(call, p).set(cli::params::rope::kPositions, 300);
    const NpyArray a = exported(call, dir / "g.npy");
    const std::string name = view;
    const Grid expected = name == "rope-cos" ? ropeCosGrid(p, 300) : name == "rope-sin" ? ropeSinGrid(p, 300) : ropeAngleGrid(p, 300);
    CHECK(a.shape == std::vector<std::int64_t>{300, 8});
    CHECK(a.data == expected.values);
    // The --size picture: each pixel the exact mean of its block (core/exact_average.hpp).
    const RopePairValue value = name == "rope-cos" ? RopePairValue::Cos : name == "rope-sin" ? RopePairValue::Sin : RopePairValue::Angle;
    std::vector<std::string> args = cli::exportCallArguments(call, (dir / "s.npy").string(), {}, false);
    args.insert(args.end() - 2, {"--size", "4x10"});
    cli::exportWithArguments(args);
    const NpyArray s = readNpy((dir / "s.npy").string());
    REQUIRE(s.shape == std::vector<std::int64_t>{10, 4});
    CHECK(s.data[0] == doctest::Approx(ropePairBlockMean(p, value, 0, 30, 0, 2)).epsilon(1e-6));
    CHECK(s.data[9 * 4 + 3] == doctest::Approx(ropePairBlockMean(p, value, 270, 300, 6, 8)).epsilon(1e-6));
  }
  const cli::ViewDef* cosines = cli::findView("rope-cos");
  REQUIRE(cosines != nullptr);
  CHECK(cosines->png);
  CHECK(cosines->tab == "rope");
}

TEST_CASE("rope-scores --seed N draws q from N and k from N + 1, as the RoPE tab does; typed lists stay lists") {
  const fs::path dir = scratch("seed");
  RopeParams p;
  p.headDim = 12;
  const std::vector<float> q = randomNormalVector(12, 7), k = randomNormalVector(12, 8);
  ViewCall seeded{"rope-scores"};
  cli::addRopeParams(seeded, p).set(cli::params::rope::kPositions, 40).set(cli::params::rope::kSeed, 7);
  const std::string command = cli::commandLine(cli::exportCallArguments(seeded, "s.npy", {}, false));
  CHECK(command == "posviz export rope-scores --head-dim 12 --base 10000 --layout half-split --positions 40 --seed 7 -o s.npy");
  const NpyArray a = exported(seeded, dir / "seeded.npy");
  CHECK(a.data == ropeScoreGrid(p, q, k, 40).values);

  std::string qText, kText;
  for (std::size_t i = 0; i < q.size(); ++i) {
    qText += (i ? "," : "") + cli::formatNumber(q[i]);
    kText += (i ? "," : "") + cli::formatNumber(k[i]);
  }
  ViewCall typed{"rope-scores"};
  cli::addRopeParams(typed, p).set(cli::params::rope::kPositions, 40);
  typed.set(cli::params::rope::kQ, qText).set(cli::params::rope::kK, kText);
  exported(typed, dir / "typed.npy");
  CHECK(test::readText(dir / "seeded.npy") == test::readText(dir / "typed.npy"));

  // rope-rotate takes the same seed.
  const cli::Request rotate = test::viewRequest("rope-rotate", {"--head-dim", "12", "--seed", "7"});
  CHECK(rotate.q == std::vector<double>(q.begin(), q.end()));
  CHECK(rotate.k == std::vector<double>(k.begin(), k.end()));
  CHECK_THROWS_WITH_AS(test::viewRequest("rope-scores", {"--seed", "7", "--q", "1,2"}), doctest::Contains("--seed: draws q and k"), UsageError);
  CHECK_THROWS_WITH_AS(test::viewRequest("rope-angles", {"--seed", "7"}), doctest::Contains("--seed"), UsageError);
}

TEST_CASE("extrapolation reads a model's YaRN attention factor settings, as the Extrapolation tab runs them") {
  const cli::Request r = test::viewRequest("extrapolation", {"--mscale", "1", "--mscale-all-dim", "0.5", "--attention-factor", "1.25",
                                                   "--no-truncate"});
  CHECK(r.rope.scaling.mscale == 1.0);
  CHECK(r.rope.scaling.mscaleAllDim == 0.5);
  REQUIRE(r.rope.scaling.attentionFactor.has_value());
  CHECK(*r.rope.scaling.attentionFactor == 1.25);
  CHECK_FALSE(r.rope.scaling.truncate);
  CHECK(test::viewRequest("extrapolation", {}).rope.scaling.truncate);
}

}  // TEST_SUITE
