// The views behind the typed exports of the Learned, ALiBi, Relative, Compare, Where position
// enters and Word order tabs: each computes what core computes for the tab (learned --std,
// t5-bias-table, t5-bias, rope-outputs, order-attention, nope-counting), refuses what it cannot
// compute naming the flag, and a ViewCall of it says exactly the command it runs.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "app/cli/cli.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/view_call.hpp"
#include "app/cli/view_table.hpp"
#include "core/alibi.hpp"
#include "core/learned.hpp"
#include "core/nope.hpp"
#include "core/npy.hpp"
#include "core/order.hpp"
#include "core/pipeline.hpp"
#include "core/relative_bias.hpp"
#include "tests/support/cli_support.hpp"
#include "tests/support/export_support.hpp"

namespace fs = std::filesystem;
using namespace posviz;
using posviz::cli::ViewCall;
namespace p = posviz::cli::params;

namespace {

fs::path scratch(const std::string& name) { return test::exportScratch("tabs-typed/" + name); }

NpyArray exported(const ViewCall& call, const fs::path& path) {
  cli::exportCall(call, path.string(), {}, false);
  return readNpy(path.string());
}

std::string command(const ViewCall& call) { return cli::commandLine(cli::exportCallArguments(call, "x.npy", {}, false)); }

// The error text of `posviz export ARGS -o DIR/unused.npy`, which must fail with exit 2.
std::string refusal(std::vector<std::string> args) {
  args.insert(args.begin(), "export");
  args.insert(args.end(), {"-o", (scratch("refused") / "unused.npy").string()});
  const test::CliRun run = test::runCli(args);
  CHECK(run.code == 2);
  return run.err;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const std::vector<std::string> kSentence = {"The", "cat", "sat", "on", "the", "mat"};
const std::vector<std::string> kShuffled = {"mat", "the", "on", "sat", "cat", "The"};

}  // namespace

TEST_SUITE("exports_tabs") {

TEST_CASE("learned: --seed and --std give learnedInit's table; --table reads a file; --std with --table is refused") {
  const fs::path dir = scratch("learned");
  ViewCall call{"learned"};
  call.set(p::learned::kDModel, 6).set(p::learned::kMaxLen, 5).set(p::learned::kSeed, 7).set(p::learned::kStd, 0.25);
  CHECK(command(call) == "posviz export learned --d-model 6 --max-len 5 --seed 7 --std 0.25 -o x.npy");
  const NpyArray a = exported(call, dir / "seeded.npy");
  CHECK(a.shape == std::vector<std::int64_t>{5, 6});
  CHECK(a.data == learnedInit(5, 6, 7, 0.25).values);
  CHECK(a.data != learnedInit(5, 6, 7).values);   // the std is not GPT-2's any more

  ViewCall file{"learned"};
  file.set(p::learned::kTable, (dir / "seeded.npy").string());
  CHECK(exported(file, dir / "loaded.npy").data == a.data);
  CHECK(contains(refusal({"learned", "--table", (dir / "seeded.npy").string(), "--std", "0.1"}),
                 "--std: does not apply with --table"));
  CHECK(contains(refusal({"learned", "--std", "2"}), "--std: got \"2\""));
  const test::CliRun help = test::runCli({"export", "learned", "--help"});
  CHECK(contains(help.out, cli::optionHelp(p::learned::kStd)));
}

TEST_CASE("t5-bias-table and t5-bias: the seeded table and one head's table[bucket(j - i)]") {
  const fs::path dir = scratch("t5");
  ViewCall table{"t5-bias-table"};
  table.set(p::t5::kNumBuckets, 16).set(p::t5::kHeads, 4).set(p::t5::kSeed, 3);
  const NpyArray t = exported(table, dir / "table.npy");
  CHECK(t.shape == std::vector<std::int64_t>{16, 4});
  CHECK(t.data == t5BiasTable(16, 4, 3).values);

  ViewCall bias{"t5-bias"};
  bias.set(p::relative::kPositions, 9).set(p::t5::kNumBuckets, 16).set(p::t5::kMaxDistance, 20).on(p::t5::kCausal);
  bias.set(p::t5::kHeads, 4).set(p::t5::kHead, 3).set(p::t5::kSeed, 3);
  CHECK(command(bias) ==
        "posviz export t5-bias --positions 9 --num-buckets 16 --max-distance 20 --heads 4 --head 3 --seed 3 --causal -o x.npy");
  const NpyArray b = exported(bias, dir / "bias.npy");
  CHECK(b.shape == std::vector<std::int64_t>{9, 9});
  CHECK(b.data == t5BiasGrid({16, 20, false}, t5BiasTable(16, 4, 3), 2, 9).values);
  // Head 3 reads column 2 of the table: bucket 0 (j = i) on the diagonal.
  CHECK(b.data[0] == t.data[0 * 4 + 2]);

  CHECK(contains(refusal({"t5-bias", "--heads", "2", "--head", "3"}), "--head: got \"3\" (out of range), expected an integer in [1, 2]"));
  CHECK(contains(refusal({"t5-bias", "--num-buckets", "3"}), "numBuckets 3 leaves no exact bucket per direction"));
  CHECK(contains(refusal({"t5-bias-table", "--heads", "129"}), "--heads: got \"129\""));
}

TEST_CASE("rope-outputs: the toy attention's outputs with RoPE on Q and K, and with --rotate-v on V too") {
  const fs::path dir = scratch("rope-outputs");
  ViewCall call{"rope-outputs"};
  call.set(p::toy::kText, std::string("The cat sat on the mat")).set(p::toy::kDModel, 8).set(p::toy::kSeed, 2);
  const RotateValuesResult r = ropeRotateValues(ToyModel{8, 2, false}, kSentence);
  CHECK(exported(call, dir / "plain.npy").data == r.plain.output.values);
  call.on(p::toy::kRotateValues);
  CHECK(command(call) == "posviz export rope-outputs --d-model 8 --seed 2 --text 'The cat sat on the mat' --rotate-v -o x.npy");
  const NpyArray rotated = exported(call, dir / "rotated.npy");
  CHECK(rotated.shape == std::vector<std::int64_t>{6, 8});
  CHECK(rotated.data == r.rotated.output.values);
  CHECK(rotated.data != r.plain.output.values);
  call.on(p::toy::kCausal);
  CHECK(exported(call, dir / "causal.npy").data == ropeRotateValues(ToyModel{8, 2, true}, kSentence).rotated.output.values);
  CHECK(contains(refusal({"rope-outputs", "--text", "  "}), "--text: got"));
}

TEST_CASE("order-attention: each --matrix is compareOrder's grid; a --shuffled that is no rearrangement is refused") {
  const fs::path dir = scratch("order");
  const std::vector<int> perm = permutationBetween(kSentence, kShuffled);
  for (PositionEncoding enc : {PositionEncoding::None, PositionEncoding::Rope, PositionEncoding::Alibi}) {
    const OrderComparison c = compareOrder(ToyModel{8, 1, true}, kSentence, perm, enc);
    const Grid* grids[] = {&c.original.weights, &c.permuted.weights, &c.originalWeightsPermuted, &c.permuted.output,
                           &c.originalOutputPermuted};
    for (int m = 0; m < 5; ++m) {
      CAPTURE(positionEncodingName(enc));
      CAPTURE(m);
      ViewCall call{"order-attention"};
      call.set(p::toy::kText, std::string("The cat sat on the mat")).set(p::order::kShuffled, std::string("mat the on sat cat The"));
      call.set(p::toy::kEncoding, static_cast<double>(enc)).set(p::order::kMatrix, m).set(p::toy::kSeed, 1).on(p::toy::kCausal);
      const NpyArray a = exported(call, dir / "m.npy");
      CHECK(a.shape == std::vector<std::int64_t>{grids[m]->rows, grids[m]->cols});
      CHECK(a.data == grids[m]->values);
    }
  }
  // Without position and without the mask the shuffled weights are the permuted ones.
  CHECK(test::runCli({"export", "order-attention", "-o", (dir / "w.npy").string()}).code == 0);
  CHECK(test::runCli({"export", "order-attention", "--matrix", "permuted", "-o", (dir / "pw.npy").string()}).code == 0);
  const NpyArray w = readNpy((dir / "w.npy").string()), pw = readNpy((dir / "pw.npy").string());
  for (std::size_t i = 0; i < w.data.size(); ++i) CHECK(w.data[i] == doctest::Approx(pw.data[i]).epsilon(1e-6));

  CHECK(contains(refusal({"order-attention", "--text", "dog bites man", "--shuffled", "man bites cat"}),
                 "--shuffled: got \"man bites cat\", expected the words of --text in another order"));
  CHECK(contains(refusal({"order-attention", "--matrix", "diagonal"}), "--matrix: got \"diagonal\""));
}

TEST_CASE("nope-counting: the uniform causal head on <bos> + the sentence, or the toy model's own head") {
  const fs::path dir = scratch("nope");
  ViewCall call{"nope-counting"};
  call.set(p::toy::kText, std::string("dog bites man")).set(p::toy::kDModel, 6).set(p::toy::kSeed, 4);
  const NopeCounting c = nopeCounting(ToyModel{6, 4, false}, {"dog", "bites", "man"});
  const NpyArray counting = exported(call, dir / "counting.npy");
  CHECK(counting.shape == std::vector<std::int64_t>{4, 4});
  CHECK(counting.data == c.weights.values);
  CHECK(counting.data[3 * 4 + 0] == doctest::Approx(0.25));   // query t = 3 puts 1/(t+1) on <bos>
  call.on(p::order::kToyHead);
  CHECK(exported(call, dir / "toy.npy").data == c.toyWeights.values);
  CHECK(contains(refusal({"nope-counting", "--text", "<bos> bites man"}), "which holds <bos>"));
}

TEST_CASE("alibi-bias, kerple-bias: the causal switch is a table parameter, said as --causal") {
  ViewCall call{"alibi-bias"};
  call.set(p::alibi::kSlope, 0.0625).set(p::alibi::kPositions, 4).on(p::alibi::kCausal);
  CHECK(command(call) == "posviz export alibi-bias --slope 0.0625 --positions 4 --causal -o x.npy");
  const NpyArray a = exported(call, scratch("alibi") / "a.npy");
  CHECK(a.data == alibiBiasGrid(0.0625, 4, true).values);
  ViewCall off{"alibi-bias"};
  off.set(p::alibi::kHeads, 12).set(p::alibi::kHead, 5).on(p::alibi::kCausal, false);
  CHECK(command(off) == "posviz export alibi-bias --heads 12 --head 5 -o x.npy");
  for (const char* view : {"alibi-bias", "kerple-bias", "t5-buckets", "t5-bias"}) {
    CAPTURE(view);
    const test::CliRun help = test::runCli({"export", view, "--help"});
    CHECK(help.code == 0);
    CHECK(contains(help.out, "--causal"));
  }
  CHECK(contains(test::runCli({"export", "t5-buckets", "--help"}).out, std::string(p::t5::kCausal.help)));
}

}
