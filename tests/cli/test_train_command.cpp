// `posviz train` (app/cli/train_command.cpp), run in-process: every argument error with its exact
// message and exit 2, a tiny run's JSON and table, "no row" past a learned table's rows, saved
// runs evaluated again with --load-weights --eval-only, and the same bytes for the same seed.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/params/train.hpp"
#include "core/train/tasks.hpp"
#include "tests/support/cli_support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using posviz::test::CliRun;
using posviz::test::runCli;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "cli" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A model small enough that 20 steps of three encodings and two seeds take milliseconds.
std::vector<std::string> tinyRun(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"train",        "--steps",    "20",  "--seeds", "2",      "--d-model", "16",  "--heads", "2",
                                   "--layers",     "1",          "--batch", "4",     "--train-length", "4", "--eval-lengths", "4,8",
                                   "--eval-examples", "16",      "--encodings", "nope,learned,rope", "--warmup", "0", "--lr", "0.01",
                                   "--loss-points", "8"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The message `posviz train ARGS` prints on stderr, checked to exit 2 and print nothing on stdout.
std::string usageError(std::vector<std::string> args) {
  args.insert(args.begin(), "train");
  const CliRun r = runCli(args);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  return r.err;
}

}  // namespace

TEST_SUITE("train_command") {

TEST_CASE("train: every bad argument names the option, the value and what is allowed") {
  CHECK(usageError({"--task", "sort"}) == "posviz train: --task: got \"sort\", expected one of copy|reverse|retrieve|assoc|count\n");
  CHECK(usageError({"--encodings", "rope,foo"}) ==
        "posviz train: --encodings: got \"rope,foo\" (unknown encoding \"foo\"), expected a comma-separated list of nope, sinusoidal, "
        "learned, rope, alibi, t5, fire, kerple, xpos\n");
  CHECK(usageError({"--encodings", "rope,rope"}) ==
        "posviz train: --encodings: got \"rope,rope\" (rope given twice), expected a comma-separated list of nope, sinusoidal, "
        "learned, rope, alibi, t5, fire, kerple, xpos\n");
  CHECK(usageError({"--d-model", "30"}) == "posviz train: --d-model: got \"30\", expected a multiple of --heads (4)\n");
  CHECK(usageError({"--layers", "5"}) == "posviz train: --layers: got \"5\" (out of range), expected an integer in [1, 4]\n");
  CHECK(usageError({"--steps", "0"}) == "posviz train: --steps: got \"0\" (out of range), expected an integer in [1, 10000000]\n");
  CHECK(usageError({"--lr", "nan"}) == "posviz train: --lr: got \"nan\" (not finite), expected a number in (0, 1]\n");
  CHECK(usageError({"--eval-lengths", "16,,32"}) ==
        "posviz train: --eval-lengths: got \"16,,32\" (entry 1 is empty), expected a comma-separated list of lengths in [1, 511] (the "
        "copy task at most 1024 tokens)\n");
  // copy reads 2n + 1 tokens: n = 511 is the longest within 1024.
  CHECK(usageError({"--eval-lengths", "16,600"}) ==
        "posviz train: --eval-lengths entry 1: got \"600\" (out of range), expected an integer in [1, 511]\n");
  // A length listed twice would be evaluated twice; more than 64 are refused before any run.
  CHECK(usageError({"--eval-lengths", "16,32,16"}) ==
        "posviz train: --eval-lengths: got \"16,32,16\" (lists 16 twice), expected each length once\n");
  std::string many;
  for (int n = 1; n <= 65; ++n) many += (n > 1 ? "," : "") + std::to_string(n);
  CHECK(contains(usageError({"--eval-lengths", many}), "(lists more than 64 lengths), expected at most 64 lengths"));
  std::string copies;
  for (int n = 0; n < 30000; ++n) copies += n ? ",16" : "16";
  CHECK(contains(usageError({"--eval-lengths", copies}), "(lists 16 twice)"));
  CHECK(usageError({"--min-train-length", "20"}) ==
        "posviz train: --min-train-length: got \"20\", expected an integer in [1, 16] (at most --train-length)\n");
  CHECK(usageError({"--mlp", "--no-mlp"}) == "posviz train: --no-mlp: cannot be given with --mlp\n");
  CHECK(usageError({"--step", "3"}) == "posviz train: unknown option \"--step\" (did you mean --steps?)\n");
  CHECK(usageError({"extra"}) == "posviz train: unexpected argument \"extra\" (options start with -; see posviz train --help)\n");
  CHECK(usageError({"-o", "r.csv"}) == "posviz train: -o: got \"r.csv\", expected a file name ending in .json\n");
}

TEST_CASE("train: options that need another are refused without it") {
  CHECK(usageError({"--drope", "10", "--encodings", "nope,alibi"}) ==
        "posviz train: --drope: got \"10\", expected rope among --encodings (DroPE drops a RoPE model's rotation)\n");
  CHECK(usageError({"--drope", "3000"}) == "posviz train: --drope: got \"3000\" (out of range), expected an integer in [0, 2000]\n");
  CHECK(usageError({"--eval-scaling", "pi", "--encodings", "nope"}) ==
        "posviz train: --eval-scaling: got \"pi\", expected rope among --encodings (it scales a RoPE model's frequencies)\n");
  CHECK(usageError({"--eval-scaling", "longrope"}) ==
        "posviz train: --eval-scaling: got \"longrope\", expected one of none|pi|linear|ntk|dynamic|yarn|llama3\n");
  // d_model 16 over 8 heads: head_dim 2, one rotating pair; NTK's exponent d/(d-2) needs two.
  CHECK(usageError({"--eval-scaling", "ntk", "--d-model", "16", "--heads", "8"}) ==
        "posviz train: --eval-scaling: got \"ntk\" (the heads rotate 2 dims), expected none|pi|linear|yarn|llama3, or wider heads\n");
  CHECK(usageError({"--eval-factor", "2"}) == "posviz train: --eval-factor: got \"2\", expected --eval-scaling METHOD with it\n");
  CHECK(usageError({"--eval-only"}) == "posviz train: --eval-only: needs --load-weights DIR (the runs to evaluate)\n");
  CHECK(usageError({"--load-weights", "x"}) ==
        "posviz train: --load-weights: needs --eval-only (saved runs are evaluated, not trained further)\n");
  const fs::path empty = scratch("train_empty");
  CHECK(usageError({"--load-weights", empty.string(), "--eval-only", "--layers", "2"}) ==
        "posviz train: --layers: cannot be given with --load-weights (the saved config.json fixes the model, the task and the "
        "training)\n");
  CHECK(usageError({"--load-weights", empty.string(), "--eval-only"}) ==
        "posviz train: --load-weights: \"" + empty.string() + "\" holds no runs (expected DIR/<encoding>/seed-<n>/ as --save-weights writes them)\n");
  CHECK(usageError({"--load-weights", (empty / "none").string(), "--eval-only"}) ==
        "posviz train: --load-weights: \"" + (empty / "none").string() + "\" is not a folder\n");
}

TEST_CASE("train: --help lists every option; the main help names the command") {
  const CliRun r = runCli({"train", "--help"});
  CHECK(r.code == 0);
  for (const char* flag : {"--task", "--encodings", "--eval-lengths", "--seeds", "--save-weights", "--load-weights", "--eval-only",
                           "--eval-scaling", "--drope", "--threads", "--no-mlp"})
    CHECK_MESSAGE(contains(r.out, flag), flag);
  CHECK(contains(runCli({"--help"}).out, "posviz train [--task copy"));
}

TEST_CASE("train: the command and the Train tab read one table: the same defaults, ranges and help") {
  namespace table = posviz::cli::params::training;
  const CliRun help = runCli({"train", "--help"});
  for (const posviz::cli::Param* p : {&table::kTask, &table::kTrainLength, &table::kSteps, &table::kSeeds, &table::kBatch,
                                      &table::kLearningRate, &table::kLayers, &table::kHeads, &table::kDModel})
    CHECK_MESSAGE(contains(help.out, posviz::cli::optionHelp(*p)), p->flag);
  // The defaults the README's default comparison states: copy, L = 16, 2000 steps, 3 seeds, lr 0.003.
  CHECK(table::kTask.choiceName(static_cast<int>(table::kTask.defaultInt())) == "copy");
  CHECK(table::kTrainLength.defaultInt() == 16);
  CHECK(table::kSteps.defaultInt() == 2000);
  CHECK(table::kSeeds.defaultInt() == 3);
  CHECK(table::kLearningRate.def == 0.003);
  // The task choices are core's task names, in core's order.
  CHECK(table::kTask.choiceCount() == static_cast<int>(std::size(posviz::train::kAllTasks)));
  for (int i = 0; i < table::kTask.choiceCount(); ++i)
    CHECK(table::kTask.choiceName(i) == posviz::train::taskName(posviz::train::kAllTasks[i]));
  CHECK(usageError({"--train-length", "65"}) ==
        "posviz train: --train-length: got \"65\" (out of range), expected an integer in [1, 64]\n");
  CHECK(usageError({"--lr", "0"}) == "posviz train: --lr: got \"0\" (out of range), expected a number in (0, 1]\n");
  CHECK(usageError({"--task", "sort"}) == "posviz train: --task: got \"sort\", expected one of copy|reverse|retrieve|assoc|count\n");
}

TEST_CASE("train: a tiny run writes every promised field, and a learned table past its rows is \"no row\"") {
  const fs::path dir = scratch("train_tiny");
  const CliRun r = runCli(tinyRun({"--threads", "1", "-o", (dir / "r.json").string()}));
  REQUIRE(r.code == 0);
  const json j = json::parse(readText(dir / "r.json"));
  CHECK(j["format"] == "posviz-train-results");
  CHECK(j["mode"] == "train");
  CHECK(j["task"]["kind"] == "copy");
  CHECK(j["task"]["train_tokens"] == 9);  // BOS x1..x4 SEP x1..x4, less the last: 2n + 1
  CHECK(j["task"]["vocab_size"] == 19);   // PAD BOS SEP + 16 symbols
  CHECK(j["training"]["seeds"] == json::array({1, 2}));
  CHECK(j["evaluation"]["lengths"] == json::array({4, 8}));
  REQUIRE(j["encodings"].size() == 3);
  CHECK(j["encodings"][0]["encoding"] == "nope");
  CHECK(j["encodings"][1]["encoding"] == "learned");
  CHECK(j["encodings"][2]["encoding"] == "rope");
  for (const json& e : j["encodings"]) {
    REQUIRE(e["runs"].size() == 2);
    for (const json& run : e["runs"]) {
      CHECK(run["steps"] == 20);
      // 20 steps in points of ceil(20 / 8) = 3 steps, the last point the 2 steps left.
      CHECK(run["loss_curve"]["every"] == 3);
      CHECK(run["loss_curve"]["step"] == json::array({3, 6, 9, 12, 15, 18, 20}));
      CHECK(run["final_loss"] == run["loss_curve"]["loss"].back());
      for (const json& l : run["loss_curve"]["loss"]) CHECK((l.get<double>() > 0.5 && l.get<double>() < 10.0));
      REQUIRE(run["eval"].size() == 2);
      CHECK(run["eval"][0]["tokens"] == 9);
      CHECK(run["eval"][1]["tokens"] == 17);
    }
    // The summary is the runs' spread: mean, sample std, min, max of their accuracies.
    const json& s = e["summary"][0];
    const double a = e["runs"][0]["eval"][0]["accuracy"], b = e["runs"][1]["eval"][0]["accuracy"];
    CHECK(s["status"] == "ok");
    CHECK(s["runs"] == 2);
    CHECK(s["accuracy"]["mean"].get<double>() == doctest::Approx((a + b) / 2).epsilon(1e-15));
    CHECK(s["accuracy"]["std"].get<double>() == doctest::Approx(std::abs(a - b) / std::sqrt(2.0)).epsilon(1e-12));
    CHECK(s["accuracy"]["min"] == std::min(a, b));
    CHECK(s["accuracy"]["max"] == std::max(a, b));
    // 16 examples of n = 4: 64 answer tokens, so every accuracy is a multiple of 1/64.
    CHECK(std::fmod(a * 64.0, 1.0) == 0.0);
  }
  const json& learned = j["encodings"][1];
  for (const json& run : learned["runs"]) {
    CHECK(run["eval"][0]["status"] == "ok");
    CHECK(run["eval"][1]["status"] == "no row");
    CHECK(run["eval"][1]["accuracy"].is_null());
    CHECK(run["eval"][1]["loss"].is_null());
  }
  CHECK(learned["summary"][1]["status"] == "no row");
  CHECK(learned["summary"][1]["accuracy"].is_null());
  CHECK(j["encodings"][2]["summary"][1]["status"] == "ok");  // rope has no table: any length is a number
  CHECK(j["encodings"][2]["runs"][0]["rope_dropped"] == false);
  // The table: one row per encoding, "no row" in learned's n=8 column.
  CHECK(contains(r.out, "posviz train: copy, trained on n <= 4 (9 tokens), 20 steps, 2 seeds, d_model 16, 1 layer, 2 heads, MLP\n"));
  CHECK(contains(r.out, "encoding   loss   n=4                  n=8\n"));
  std::istringstream lines(r.out);
  std::string line, learnedRow;
  while (std::getline(lines, line))
    if (line.rfind("learned ", 0) == 0) learnedRow = line;
  CHECK(learnedRow.size() > 30);
  CHECK(learnedRow.substr(learnedRow.size() - 6) == "no row");
  CHECK(contains(r.err, "posviz train: 6 runs trained and evaluated in "));
}

TEST_CASE("train: --save-weights then --load-weights --eval-only gives the same accuracies") {
  const fs::path dir = scratch("train_weights");
  REQUIRE(runCli(tinyRun({"--save-weights", (dir / "w").string(), "-o", (dir / "trained.json").string()})).code == 0);
  for (const char* enc : {"nope", "learned", "rope"})
    for (const char* seed : {"seed-1", "seed-2"})
      for (const char* file : {"model.safetensors", "optimizer.safetensors", "config.json"})
        CHECK_MESSAGE(fs::is_regular_file(dir / "w" / enc / seed / file), enc, "/", seed, "/", file);
  const CliRun again = runCli({"train", "--load-weights", (dir / "w").string(), "--eval-only", "--eval-lengths", "4,8", "--eval-examples", "16",
                               "-o", (dir / "loaded.json").string()});
  REQUIRE(again.code == 0);
  const json trained = json::parse(readText(dir / "trained.json")), loaded = json::parse(readText(dir / "loaded.json"));
  CHECK(loaded["mode"] == "eval-only");
  CHECK(loaded["task"] == trained["task"]);
  REQUIRE(loaded["encodings"].size() == 3);
  for (std::size_t e = 0; e < 3; ++e) {
    CHECK(loaded["encodings"][e]["encoding"] == trained["encodings"][e]["encoding"]);
    CHECK(loaded["encodings"][e]["summary"] == trained["encodings"][e]["summary"]);
    for (std::size_t r = 0; r < 2; ++r) {
      const json& a = trained["encodings"][e]["runs"][r];
      const json& b = loaded["encodings"][e]["runs"][r];
      CHECK(b["seed"] == a["seed"]);
      CHECK(b["steps"] == 20);
      CHECK(b["eval"] == a["eval"]);  // accuracy, sequence accuracy and loss, bit for bit
      CHECK(b["loss_curve"].is_null());
      CHECK(b["weights"] == a["weights"]);
    }
  }
  // --encodings picks saved runs; one that was not saved is named.
  const CliRun one = runCli({"train", "--load-weights", (dir / "w").string(), "--eval-only", "--encodings", "rope", "--eval-lengths", "4"});
  CHECK(one.code == 0);
  CHECK(contains(one.out, "\nrope       -      0."));
  CHECK(usageError({"--load-weights", (dir / "w").string(), "--eval-only", "--encodings", "alibi"}) ==
        "posviz train: --encodings: alibi has no saved run in \"" + (dir / "w").string() + "\" (expected " +
            (dir / "w" / "alibi" / "seed-1").string() + ")\n");
}

TEST_CASE("train: the same seed gives the same bytes, whatever the threads and the runs in parallel") {
  const fs::path dir = scratch("train_bytes");
  REQUIRE(runCli(tinyRun({"--threads", "1", "-o", (dir / "a.json").string()})).code == 0);
  REQUIRE(runCli(tinyRun({"--threads", "2", "-o", (dir / "b.json").string()})).code == 0);
  REQUIRE(runCli(tinyRun({"-o", (dir / "d.json").string()})).code == 0);  // --threads 0: runs in parallel, one per core
  REQUIRE(runCli(tinyRun({"--seed", "7", "-o", (dir / "c.json").string()})).code == 0);
  const std::string a = readText(dir / "a.json");
  CHECK(a.size() > 1000);
  CHECK(a == readText(dir / "b.json"));
  CHECK(a == readText(dir / "d.json"));
  CHECK(a != readText(dir / "c.json"));  // another seed, other weights and data
  CHECK(json::parse(readText(dir / "c.json"))["training"]["seeds"] == json::array({7, 8}));
}

}  // TEST_SUITE
