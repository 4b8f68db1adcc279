// train_command.cpp: `posviz train` (train_command.hpp).
// [SECTION] Options and help
// [SECTION] Parsing: the plan of runs
// [SECTION] Running: train, evaluate, save, load
// [SECTION] Results: JSON and the table
// [SECTION] The command
#include "app/cli/train_command.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/params/train.hpp"
#include "app/cli/progress_bar.hpp"
#include "app/cli/request.hpp"
#include "core/atomic_file.hpp"
#include "core/context_extension.hpp"
#include "core/parallel.hpp"
#include "core/train/train.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::cli {

namespace {

namespace fs = std::filesystem;
namespace tr = posviz::train;
namespace table = params::training;
using json = nlohmann::ordered_json;  // fields in the order written: format and settings first

constexpr int kMaxEvalTokens = 1024;   // evaluation memory grows with tokens^2 per head
constexpr std::size_t kMaxEvalLengths = 64;   // --eval-lengths: each is a whole evaluation of every run
constexpr const char* kDefaultEncodings = "nope,sinusoidal,learned,rope,alibi";

// [SECTION] Options and help

std::string schemeList() {
  std::string out;
  for (tr::PositionScheme s : tr::kAllSchemes) out += (out.empty() ? "" : ", ") + std::string(tr::positionSchemeName(s));
  return out;
}

// The options a saved run's config.json fixes: refused with --load-weights.
const std::vector<std::string> kModelOptions = {
    "--task",    "--train-length", "--min-train-length", "--symbols", "--steps",      "--seeds",       "--seed",
    "--batch",   "--lr",           "--warmup",           "--layers",  "--heads",      "--d-model",     "--mlp",
    "--no-mlp",  "--activation",   "--base",             "--rope-layout", "--rotary-fraction", "--drope"};

std::string formatSpec(const OptionSpec& s) {
  std::string head = "  " + s.name + (s.takesValue ? " " + s.metavar : "");
  head.resize(std::max<std::size_t>(head.size() + 1, 32), ' ');
  return head + s.help + "\n";
}

}  // namespace

const std::vector<OptionSpec>& trainOptionSpecs() {
  static const std::vector<OptionSpec> specs = {
      optionSpec(table::kTask, "NAME"),
      {"--encodings", true, "LIST", "comma-separated schemes among " + schemeList() + " (default " + kDefaultEncodings + ")"},
      optionSpec(table::kTrainLength, "L"),
      {"--min-train-length", true, "N", "train on lengths n >= N (default 1)"},
      {"--symbols", true, "S", "symbols the task draws from, 2..1024 (default 16)"},
      {"--eval-lengths", true, "LIST", "comma-separated lengths n to evaluate (default L,2L,4L)"},
      {"--eval-examples", true, "N", "examples per evaluated length (default 256)"},
      optionSpec(table::kSteps, "N"),
      optionSpec(table::kSeeds, "N"),
      {"--seed", true, "S", "the first seed (default 1)"},
      optionSpec(table::kBatch, "N"),
      optionSpec(table::kLearningRate, "X"),
      {"--warmup", true, "N", "warmup steps (default 50)"},
      optionSpec(table::kLayers, "N"),
      optionSpec(table::kHeads, "N"),
      optionSpec(table::kDModel, "N"),
      {"--mlp", false, "", "an MLP in every layer (the default)"},
      {"--no-mlp", false, "", "attention-only layers"},
      {"--activation", true, "NAME", "the MLP's activation: gelu|relu (default gelu)"},
      {"--base", true, "X", "RoPE and xPos base (default 10000)"},
      {"--rope-layout", true, "NAME", "RoPE pairing: half-split|interleaved (default half-split)"},
      {"--rotary-fraction", true, "F", "RoPE: the fraction of each head rotated, (0, 1] (default 1)"},
      {"--eval-scaling", true, "METHOD", "RoPE context extension at evaluation: none|pi|linear|ntk|dynamic|yarn|llama3 (default none)"},
      {"--eval-factor", true, "F", "the scaling factor, >= 1 (default: each length's tokens / the trained tokens)"},
      {"--drope", true, "STEP", "RoPE runs drop the rotation at STEP and train on without positions (DroPE)"},
      {"--threads", true, "N", "0: runs in parallel, one per core (default); N: one run at a time on N threads; results do not depend on it"},
      {"--loss-points", true, "N", "points of the loss curve in the JSON, each the mean of its steps (default 100)"},
      {"--save-weights", true, "DIR", "save each run to DIR/<encoding>/seed-<n>/ (model.safetensors, config.json)"},
      {"--load-weights", true, "DIR", "read the runs saved in DIR instead of training (with --eval-only)"},
      {"--eval-only", false, "", "evaluate the runs of --load-weights without training"},
      {"-o", true, "FILE", "write the results as JSON (.json)"},
      {"--progress", false, "", "show the progress bar on stderr (shown anyway when stderr is a terminal)"},
      {"--help", false, "", "this help"},
      {"-h", false, "", "this help"},
  };
  return specs;
}

std::string trainHelp() {
  std::ostringstream os;
  os << "Usage: posviz train [options] [-o results.json]\n"
     << "       posviz train --load-weights DIR --eval-only [--eval-lengths LIST] [-o results.json]\n\n"
     << "Trains a small decoder-only transformer with each positional scheme of --encodings on a synthetic\n"
     << "task, --seeds runs each, and prints the accuracy over answer tokens at each evaluated length: the\n"
     << "mean over seeds with [min, max]. A learned table has no row past the trained length: such a length\n"
     << "is reported as \"no row\", never as a number. Tasks (n = the example's length):\n"
     << "  copy      BOS x1..xn SEP x1..xn          reverse   BOS x1..xn SEP xn..x1\n"
     << "  retrieve  BOS x1..xn SEP @p xp           assoc     BOS k1 v1..kn vn SEP kq vq\n"
     << "  count     BOS x1..xn SEP s #c  (c = how often s occurs)\n"
     << "The same command gives the same results, byte for byte, whatever --threads is.\n\nOptions:\n";
  for (const OptionSpec& s : trainOptionSpecs())
    if (s.name != "-h") os << formatSpec(s);
  os << "\nExample:\n"
     << "  posviz train --task copy --encodings nope,sinusoidal,learned,rope,alibi --train-length 16 \\\n"
     << "      --eval-lengths 16,32,64 --steps 2000 --seeds 3 -o results.json\n";
  return os.str();
}

namespace {

// [SECTION] Parsing: the plan of runs

struct TrainPlan {
  tr::TrainConfig base;                       // every run's config but its scheme and seed
  std::vector<tr::PositionScheme> schemes;
  bool schemesGiven = false;                  // training, or --encodings with --load-weights
  std::vector<std::uint64_t> seeds;
  std::vector<int> evalLengths;
  std::string evalLengthsText;                // empty: L, 2L, 4L of the (loaded) task
  tr::EvalOptions eval;
  int lossPoints = 100;
  std::string output, saveDir, loadDir;
  bool progress = false;
};

UsageError badValue(const std::string& flag, const std::string& text, const std::string& why, const std::string& expected) {
  return UsageError(flag + ": got " + quotedText(text) + (why.empty() ? "" : " (" + why + ")") + ", expected " + expected);
}

std::vector<std::string> splitList(const std::string& flag, const std::string& text, const std::string& expected) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (out.back().empty()) throw badValue(flag, text, "entry " + std::to_string(out.size() - 1) + " is empty", expected);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::vector<tr::PositionScheme> parseEncodings(const std::string& text) {
  const std::string expected = "a comma-separated list of " + schemeList();
  std::vector<tr::PositionScheme> out;
  for (const std::string& item : splitList("--encodings", text, expected)) {
    const auto s = tr::parsePositionScheme(item);
    if (!s) throw badValue("--encodings", text, "unknown encoding " + quotedText(item), expected);
    if (std::find(out.begin(), out.end(), *s) != out.end()) throw badValue("--encodings", text, item + " given twice", expected);
    out.push_back(*s);
  }
  return out;
}

int intOption(const ParsedOptions& o, const std::string& flag, long long fallback, long long lo, long long hi) {
  const auto v = o.value(flag);
  return static_cast<int>(v ? parseIntOption(flag, *v, lo, hi) : fallback);
}

double realOption(const ParsedOptions& o, const std::string& flag, double fallback, const RealRange& range) {
  const auto v = o.value(flag);
  return v ? parseRealOption(flag, *v, range) : fallback;
}

bool hasRope(const TrainPlan& p) {
  return std::find(p.schemes.begin(), p.schemes.end(), tr::PositionScheme::Rope) != p.schemes.end();
}

// The longest n a task can be evaluated at: within taskMaxLength and kMaxEvalTokens.
int maxEvalLength(const tr::TaskConfig& t) {
  int n = std::min(tr::taskMaxLength(t), kMaxEvalTokens);
  while (n > 1 && tr::taskInputTokens(t, n) > kMaxEvalTokens) --n;
  return n;
}

std::vector<int> evalLengthsFor(const TrainPlan& p, const tr::TaskConfig& task) {
  const int hi = maxEvalLength(task);
  const std::string expected = "a comma-separated list of lengths in [1, " + std::to_string(hi) + "] (the " + tr::taskName(task.kind) +
                               " task at most " + std::to_string(kMaxEvalTokens) + " tokens)";
  std::vector<int> out;
  if (p.evalLengthsText.empty()) {
    for (int f : {1, 2, 4}) out.push_back(std::min(hi, f * task.trainLength));
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  for (const std::string& item : splitList("--eval-lengths", p.evalLengthsText, expected)) {
    const int n = static_cast<int>(parseIntOption("--eval-lengths entry " + std::to_string(out.size()), item, 1, hi));
    // Each length is evaluated once: a repeat would cost a whole evaluation and add no number.
    if (std::find(out.begin(), out.end(), n) != out.end())
      throw badValue("--eval-lengths", p.evalLengthsText, "lists " + std::to_string(n) + " twice", "each length once");
    out.push_back(n);
    if (out.size() > kMaxEvalLengths)
      throw badValue("--eval-lengths", p.evalLengthsText, "lists more than " + std::to_string(kMaxEvalLengths) + " lengths",
                     "at most " + std::to_string(kMaxEvalLengths) + " lengths");
  }
  return out;
}

void parseTask(const ParsedOptions& o, tr::TaskConfig& t) {
  int task = static_cast<int>(table::kTask.defaultInt());
  readParam(o, table::kTask, task);
  t.kind = tr::kAllTasks[static_cast<std::size_t>(task)];
  t.trainLength = static_cast<int>(table::kTrainLength.defaultInt());
  readParam(o, table::kTrainLength, t.trainLength);
  t.minTrainLength = intOption(o, "--min-train-length", 1, 1, static_cast<int>(table::kTrainLength.max));
  if (t.minTrainLength > t.trainLength)
    throw badValue("--min-train-length", *o.value("--min-train-length"), "",
                   "an integer in [1, " + std::to_string(t.trainLength) + "] (at most --train-length)");
  t.numSymbols = intOption(o, "--symbols", 16, 2, 1024);
}

void parseModel(const ParsedOptions& o, tr::ModelConfig& m) {
  m.numLayers = static_cast<int>(table::kLayers.defaultInt());
  m.numHeads = static_cast<int>(table::kHeads.defaultInt());
  m.dModel = static_cast<int>(table::kDModel.defaultInt());
  readParam(o, table::kLayers, m.numLayers);
  readParam(o, table::kHeads, m.numHeads);
  readParam(o, table::kDModel, m.dModel);
  if (m.dModel % m.numHeads != 0)
    throw badValue("--d-model", std::to_string(m.dModel), "", "a multiple of --heads (" + std::to_string(m.numHeads) + ")");
  if (o.has("--mlp") && o.has("--no-mlp")) throw UsageError("--no-mlp: cannot be given with --mlp");
  m.mlp = !o.has("--no-mlp");
  if (const auto v = o.value("--activation")) m.activation = *tr::parseActivation(parseChoiceOption("--activation", *v, {"gelu", "relu"}));
  tr::PositionConfig& p = m.position;
  p.ropeBase = realOption(o, "--base", 10000.0, RealRange{1.0, 1.0e300, true, false});
  if (const auto v = o.value("--rope-layout"))
    p.ropeLayout = *parseRopeLayoutName(parseChoiceOption("--rope-layout", *v, {"half-split", "interleaved"}));
  p.rotaryFraction = realOption(o, "--rotary-fraction", 1.0, RealRange{0.0, 1.0, true, false});
}

void parseTraining(const ParsedOptions& o, TrainPlan& p) {
  tr::TrainConfig& c = p.base;
  c.steps = table::kSteps.defaultInt();
  c.batchSize = static_cast<int>(table::kBatch.defaultInt());
  c.optim.learningRate = table::kLearningRate.def;
  readParam(o, table::kSteps, c.steps);
  readParam(o, table::kBatch, c.batchSize);
  readParam(o, table::kLearningRate, c.optim.learningRate);
  c.optim.warmupSteps = intOption(o, "--warmup", 50, 0, 10000000);
  c.threads = intOption(o, "--threads", 0, 0, 256);
  int seeds = static_cast<int>(table::kSeeds.defaultInt());
  readParam(o, table::kSeeds, seeds);
  const auto first = o.value("--seed");
  const long long seed0 = first ? parseIntOption("--seed", *first, 0, 1000000000000LL) : 1;
  for (int i = 0; i < seeds; ++i) p.seeds.push_back(static_cast<std::uint64_t>(seed0 + i));
  if (const auto v = o.value("--drope")) {
    c.dropeAtStep = parseIntOption("--drope", *v, 0, c.steps);
    if (!hasRope(p)) throw badValue("--drope", *v, "", "rope among --encodings (DroPE drops a RoPE model's rotation)");
  }
  p.lossPoints = intOption(o, "--loss-points", 100, 1, 100000);
}

void parseEvaluation(const ParsedOptions& o, TrainPlan& p) {
  p.eval.examples = intOption(o, "--eval-examples", 256, 1, 100000);
  p.eval.threads = p.base.threads;
  p.evalLengthsText = o.value("--eval-lengths").value_or("");
  if (p.evalLengthsText.empty() && o.has("--eval-lengths")) throw badValue("--eval-lengths", "", "empty", "a comma-separated list of lengths");
  const auto method = o.value("--eval-scaling");
  if (!method) {
    if (const auto f = o.value("--eval-factor")) throw badValue("--eval-factor", *f, "", "--eval-scaling METHOD with it");
    return;
  }
  const std::string m = parseChoiceOption("--eval-scaling", *method, {"none", "pi", "linear", "ntk", "dynamic", "yarn", "llama3"});
  p.eval.scaling.method = *parseScalingName(m == "pi" ? "linear" : m);
  if (const auto f = o.value("--eval-factor")) p.eval.scaling.factor = parseRealOption("--eval-factor", *f, RealRange{1.0, 1.0e6});
  else p.eval.factorFromLength = true;
  if (p.schemesGiven && !hasRope(p)) throw badValue("--eval-scaling", m, "", "rope among --encodings (it scales a RoPE model's frequencies)");
  if (!p.loadDir.empty()) return;  // the saved model's heads are checked when it is evaluated
  const int rotary = ropeRotaryDims(tr::ropeParamsOf(p.base.model));
  if ((m == "ntk" || m == "dynamic") && rotary < 4)
    throw badValue("--eval-scaling", m, "the heads rotate " + std::to_string(rotary) + " dims", "none|pi|linear|yarn|llama3, or wider heads");
}

void parseFiles(const ParsedOptions& o, TrainPlan& p) {
  p.progress = o.has("--progress");
  p.output = o.value("-o").value_or("");
  if (o.has("-o") && (p.output.size() < 6 || p.output.substr(p.output.size() - 5) != ".json"))
    throw badValue("-o", p.output, "", "a file name ending in .json");
  p.saveDir = o.value("--save-weights").value_or("");
  p.loadDir = o.value("--load-weights").value_or("");
  if (o.has("--save-weights") && p.saveDir.empty()) throw badValue("--save-weights", "", "empty", "a folder");
  if (o.has("--load-weights") && p.loadDir.empty()) throw badValue("--load-weights", "", "empty", "a folder");
  if (o.has("--eval-only") && !o.has("--load-weights")) throw UsageError("--eval-only: needs --load-weights DIR (the runs to evaluate)");
  if (o.has("--load-weights") && !o.has("--eval-only"))
    throw UsageError("--load-weights: needs --eval-only (saved runs are evaluated, not trained further)");
  if (o.has("--load-weights") && o.has("--save-weights")) throw UsageError("--save-weights: cannot be given with --load-weights");
  if (!o.has("--load-weights")) return;
  for (const std::string& flag : kModelOptions)
    if (o.has(flag))
      throw UsageError(flag + ": cannot be given with --load-weights (the saved config.json fixes the model, the task and the training)");
}

TrainPlan parsePlan(const std::vector<std::string>& args) {
  const ParsedOptions o = parseOptions(args, trainOptionSpecs());
  if (!o.positional.empty())
    throw UsageError("unexpected argument " + quotedText(o.positional[0]) + " (options start with -; see posviz train --help)");
  TrainPlan p;
  parseFiles(o, p);
  p.schemesGiven = p.loadDir.empty() || o.has("--encodings");
  p.schemes = parseEncodings(o.value("--encodings").value_or(kDefaultEncodings));
  parseTask(o, p.base.task);
  parseModel(o, p.base.model);
  parseTraining(o, p);
  parseEvaluation(o, p);
  if (p.loadDir.empty()) p.evalLengths = evalLengthsFor(p, p.base.task);
  return p;
}

// [SECTION] Running: train, evaluate, save, load

struct RunResult {
  tr::PositionScheme scheme = tr::PositionScheme::None;
  tr::TrainConfig config;                 // resolved: the run's own scheme and seed
  long long steps = 0;                    // steps trained
  std::vector<tr::StepReport> history;    // empty for a loaded run
  std::vector<tr::LengthResult> eval;
  std::string weights;                    // the run's folder, when saved or loaded
};

std::string runFolder(const std::string& dir, tr::PositionScheme s, std::uint64_t seed) {
  return (fs::path(dir) / tr::positionSchemeName(s) / ("seed-" + std::to_string(seed))).string();
}

// The config of one run; core's refusal (a width a scheme cannot use) names the encoding.
tr::TrainConfig runConfig(const TrainPlan& p, tr::PositionScheme s, std::uint64_t seed) {
  tr::TrainConfig c = p.base;
  c.model.position.scheme = s;
  c.seed = seed;
  if (s != tr::PositionScheme::Rope) c.dropeAtStep = -1;
  try {
    return tr::resolvedConfig(c);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--encodings: ") + tr::positionSchemeName(s) + " cannot be trained with these options: " + e.what());
  }
}

RunResult trainRun(const TrainPlan& p, const tr::TrainConfig& c, const tr::EvalOptions& eval, const std::function<void(double)>& progress) {
  tr::Trainer t(c);
  const double total = static_cast<double>(c.steps);
  t.train(c.steps, [&](const tr::StepReport& r) {
    progress(static_cast<double>(r.step) / total);
    return true;
  });
  RunResult out;
  out.scheme = c.model.position.scheme;
  out.config = t.config();
  out.steps = t.step();
  out.history = t.history();
  out.eval = t.evaluate(p.evalLengths, eval);
  if (!p.saveDir.empty()) {
    out.weights = runFolder(p.saveDir, out.scheme, c.seed);
    std::error_code ec;
    fs::create_directories(out.weights, ec);
    if (ec) throw RuntimeFailure("--save-weights: cannot create " + quotedText(out.weights) + ": " + ec.message());
    tr::saveRun(out.weights, t);
  }
  return out;
}

// Runs are independent: with --threads 0 they go to one worker thread per core, each run on one
// thread (a small model's batch splits poorly over cores); otherwise one after the other, each on
// --threads threads. A run's result does not depend on either (trainer.hpp).
std::vector<RunResult> trainAll(const TrainPlan& p) {
  std::vector<tr::TrainConfig> configs;
  for (tr::PositionScheme s : p.schemes)
    for (std::uint64_t seed : p.seeds) configs.push_back(runConfig(p, s, seed));  // every refusal before any work
  if (!p.saveDir.empty()) {
    std::error_code ec;
    fs::create_directories(p.saveDir, ec);
    if (ec || !fs::is_directory(p.saveDir, ec)) throw RuntimeFailure("--save-weights: cannot create " + quotedText(p.saveDir) + (ec ? ": " + ec.message() : ": a file of that name is in the way"));
  }
  const std::size_t runs = configs.size();
  const int workers = p.base.threads == 0 ? std::min(static_cast<int>(runs), hardwareThreads()) : 1;
  tr::EvalOptions eval = p.eval;
  if (workers > 1) {
    for (tr::TrainConfig& c : configs) c.threads = 1;
    eval.threads = 1;
  }
  ProgressBar bar(p.progress, "posviz train " + std::string(tr::taskName(p.base.task.kind)) + ", " + std::to_string(runs) + " runs");
  std::mutex mutex;
  std::vector<double> done(runs, 0.0);
  std::vector<RunResult> out(runs);
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  auto work = [&] {
    for (std::size_t i = next++; i < runs; i = next++) {
      try {
        out[i] = trainRun(p, configs[i], eval, [&, i](double f) {
          const std::lock_guard<std::mutex> lock(mutex);
          done[i] = f;
          double sum = 0.0;
          for (double d : done) sum += d;
          bar.update(0, 1, sum / static_cast<double>(runs));
        });
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = std::current_exception();
        next = runs;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  bar.finish();
  return out;
}

// The seeds saved for one encoding: DIR/<encoding>/seed-<n>/, in seed order.
std::vector<std::string> savedSeedFolders(const fs::path& dir) {
  std::vector<std::pair<unsigned long long, std::string>> seeds;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return {};
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const bool digits = name.size() > 5 && name.size() < 25 && name.find_first_not_of("0123456789", 5) == std::string::npos;
    if (name.rfind("seed-", 0) == 0 && digits) seeds.emplace_back(std::stoull(name.substr(5)), e.path().string());
  }
  std::sort(seeds.begin(), seeds.end());
  std::vector<std::string> out;
  for (auto& s : seeds) out.push_back(s.second);
  return out;
}

// The saved runs of DIR in encoding order, then seed order (only --encodings' when given).
std::vector<std::string> savedRunFolders(const TrainPlan& p) {
  std::error_code ec;
  if (!fs::is_directory(p.loadDir, ec)) throw UsageError("--load-weights: " + quotedText(p.loadDir) + " is not a folder");
  std::vector<std::string> out;
  for (tr::PositionScheme s : tr::kAllSchemes) {
    if (p.schemesGiven && std::find(p.schemes.begin(), p.schemes.end(), s) == p.schemes.end()) continue;
    const std::vector<std::string> seeds = savedSeedFolders(fs::path(p.loadDir) / tr::positionSchemeName(s));
    if (seeds.empty() && p.schemesGiven)
      throw UsageError("--encodings: " + std::string(tr::positionSchemeName(s)) + " has no saved run in " + quotedText(p.loadDir) +
                       " (expected " + runFolder(p.loadDir, s, 1) + ")");
    out.insert(out.end(), seeds.begin(), seeds.end());
  }
  if (out.empty())
    throw UsageError("--load-weights: " + quotedText(p.loadDir) + " holds no runs (expected DIR/<encoding>/seed-<n>/ as --save-weights writes them)");
  return out;
}

// One run's weights are held at a time: the configs are read first (a folder of another task is
// refused before any evaluation), then each run is loaded, evaluated and let go.
std::vector<RunResult> loadAll(TrainPlan& p) {
  const std::vector<std::string> folders = savedRunFolders(p);
  std::vector<tr::TrainConfig> configs;
  for (const std::string& f : folders) {
    const std::string path = f + "/" + tr::kConfigFileName;
    std::string text;
    try {
      text = readRegularFile(path, 1 << 20, "config");
    } catch (const std::runtime_error& e) {
      throw tr::WeightsError(e.what());
    }
    configs.push_back(tr::resolvedConfig(tr::parseRunConfigJson(text, path).config));
  }
  const tr::TrainConfig& first = configs.front();
  for (std::size_t i = 1; i < configs.size(); ++i) {
    const tr::TaskConfig& t = configs[i].task;
    if (t.kind != first.task.kind || t.trainLength != first.task.trainLength || t.numSymbols != first.task.numSymbols)
      throw UsageError("--load-weights: " + folders[i] + " was trained on another task than " + folders[0] + "; evaluate them apart");
  }
  p.base = first;
  p.evalLengths = evalLengthsFor(p, first.task);
  std::vector<RunResult> out;
  for (const std::string& folder : folders) {
    tr::Trainer trainer = tr::loadRun(folder);
    RunResult r;
    r.config = trainer.config();
    r.scheme = r.config.model.position.scheme;
    r.steps = trainer.step();
    r.eval = trainer.evaluate(p.evalLengths, p.eval);
    r.weights = folder;
    out.push_back(std::move(r));
  }
  return out;
}

// [SECTION] Results: JSON and the table

struct Stats {
  double mean = 0, std = 0, min = 0, max = 0;
};

// Mean, sample standard deviation (n - 1; 0 for one value), min and max.
Stats statsOf(const std::vector<double>& v) {
  Stats s{0, 0, v.front(), v.front()};
  for (double x : v) {
    s.mean += x;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
  }
  s.mean /= static_cast<double>(v.size());
  for (double x : v) s.std += (x - s.mean) * (x - s.mean);
  s.std = v.size() > 1 ? std::sqrt(s.std / static_cast<double>(v.size() - 1)) : 0.0;
  return s;
}

json orNull(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// The loss curve sampled to at most `points` points: each point is the mean loss of the `every`
// steps ending at its step (the last point: the steps left).
json lossCurveJson(const std::vector<tr::StepReport>& h, int points) {
  if (h.empty()) return nullptr;
  const std::size_t every = (h.size() + static_cast<std::size_t>(points) - 1) / static_cast<std::size_t>(points);
  json steps = json::array(), losses = json::array();
  for (std::size_t begin = 0; begin < h.size(); begin += every) {
    const std::size_t end = std::min(h.size(), begin + every);
    double sum = 0.0;
    for (std::size_t i = begin; i < end; ++i) sum += h[i].loss;
    steps.push_back(h[end - 1].step);
    losses.push_back(sum / static_cast<double>(end - begin));
  }
  return {{"every", every}, {"step", steps}, {"loss", losses}};
}

json runJson(const RunResult& r, int points) {
  json eval = json::array();
  for (const tr::LengthResult& l : r.eval)
    eval.push_back({{"length", l.length}, {"tokens", l.tokens}, {"status", tr::evalStatusName(l.status)}, {"accuracy", orNull(l.accuracy)},
                    {"sequence_accuracy", orNull(l.sequenceAccuracy)}, {"loss", orNull(l.loss)}});
  json curve = lossCurveJson(r.history, points);
  json j = {{"seed", r.config.seed}, {"steps", r.steps}, {"final_loss", curve.is_null() ? json(nullptr) : curve["loss"].back()}};
  if (r.scheme == tr::PositionScheme::Rope) j["rope_dropped"] = r.config.model.position.dropped;
  j["eval"] = eval;
  j["loss_curve"] = curve;
  j["weights"] = r.weights.empty() ? json(nullptr) : json(r.weights);
  return j;
}

// Per length: the spread over the runs of one encoding (a "no row" length has no numbers).
json summaryJson(const std::vector<const RunResult*>& runs) {
  json out = json::array();
  for (std::size_t i = 0; i < runs.front()->eval.size(); ++i) {
    const tr::LengthResult& l = runs.front()->eval[i];
    json j = {{"length", l.length}, {"tokens", l.tokens}, {"status", tr::evalStatusName(l.status)}, {"runs", runs.size()}};
    for (const bool sequence : {false, true}) {
      std::vector<double> v;
      for (const RunResult* r : runs)
        if (r->eval[i].status == tr::EvalStatus::Ok) v.push_back(sequence ? *r->eval[i].sequenceAccuracy : *r->eval[i].accuracy);
      const char* key = sequence ? "sequence_accuracy" : "accuracy";
      if (v.empty()) {
        j[key] = nullptr;
        continue;
      }
      const Stats s = statsOf(v);
      j[key] = {{"mean", s.mean}, {"std", s.std}, {"min", s.min}, {"max", s.max}};
    }
    out.push_back(j);
  }
  return out;
}

// The runs grouped by encoding, in the order the encodings first appear.
std::vector<std::vector<const RunResult*>> byEncoding(const std::vector<RunResult>& runs) {
  std::vector<std::vector<const RunResult*>> out;
  for (const RunResult& r : runs) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& g) { return g.front()->scheme == r.scheme; });
    if (it == out.end()) out.push_back({&r});
    else it->push_back(&r);
  }
  return out;
}

json settingsJson(const TrainPlan& p, const std::vector<RunResult>& runs) {
  const tr::TrainConfig& c = runs.front().config;
  const tr::ModelConfig& m = c.model;
  json seeds = json::array();
  for (const RunResult& r : runs)
    if (std::find(seeds.begin(), seeds.end(), json(r.config.seed)) == seeds.end()) seeds.push_back(r.config.seed);
  json scaling = {{"method", scalingName(p.eval.scaling.method)}};
  if (p.eval.scaling.method != ScalingMethod::None)
    scaling["factor"] = p.eval.factorFromLength ? json("tokens / trained tokens") : json(p.eval.scaling.factor);
  return {{"task", {{"kind", tr::taskName(c.task.kind)}, {"train_length", c.task.trainLength}, {"min_train_length", c.task.minTrainLength},
                    {"num_symbols", c.task.numSymbols}, {"train_tokens", m.maxPositions}, {"vocab_size", m.vocabSize}}},
          {"model", {{"d_model", m.dModel}, {"num_layers", m.numLayers}, {"num_heads", m.numHeads}, {"mlp", m.mlp},
                     {"activation", tr::activationName(m.activation)}, {"rope_base", m.position.ropeBase},
                     {"rope_layout", ropeLayoutName(m.position.ropeLayout)}, {"rotary_fraction", m.position.rotaryFraction}}},
          {"training", {{"steps", c.steps}, {"batch_size", c.batchSize}, {"learning_rate", c.optim.learningRate},
                        {"warmup_steps", c.optim.warmupSteps}, {"seeds", seeds},
                        {"drope_at_step", p.base.dropeAtStep >= 0 ? json(p.base.dropeAtStep) : json(nullptr)}}},
          {"evaluation", {{"lengths", p.evalLengths}, {"examples", p.eval.examples}, {"scaling", scaling}}}};
}

json resultsJson(const TrainPlan& p, const std::vector<RunResult>& runs, bool evalOnly) {
  json j = {{"format", "posviz-train-results"}, {"version", 1}, {"mode", evalOnly ? "eval-only" : "train"}};
  const json settings = settingsJson(p, runs);
  for (const char* key : {"task", "model", "training", "evaluation"}) j[key] = settings[key];
  json encodings = json::array();
  for (const auto& group : byEncoding(runs)) {
    json list = json::array();
    for (const RunResult* r : group) list.push_back(runJson(*r, p.lossPoints));
    encodings.push_back({{"encoding", tr::positionSchemeName(group.front()->scheme)}, {"summary", summaryJson(group)}, {"runs", list}});
  }
  j["encodings"] = encodings;
  return j;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

using Cells = std::vector<std::pair<std::string, std::size_t>>;  // text, column width

// Cells padded to their column's width, one space apart, no trailing blanks.
std::string tableRow(const Cells& cells) {
  std::string out;
  for (const auto& [text, width] : cells) {
    if (!out.empty()) out += ' ';
    out += text;
    if (text.size() < width) out.append(width - text.size(), ' ');
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "\n";
}

// One cell: the mean accuracy over seeds, with [min, max] for several seeds; "no row".
std::string accuracyCell(const json& summary) {
  if (summary["accuracy"].is_null()) return "no row";
  const json& a = summary["accuracy"];
  std::string cell = fixed(a["mean"].get<double>(), 3);
  if (summary["runs"].get<int>() > 1) cell += " [" + fixed(a["min"].get<double>(), 3) + ", " + fixed(a["max"].get<double>(), 3) + "]";
  return cell;
}

void printTable(std::ostream& out, const json& results) {
  const json& t = results["task"];
  const json& m = results["model"];
  const json& tc = results["training"];
  const std::size_t seeds = tc["seeds"].size();
  out << "posviz train: " << t["kind"].get<std::string>() << ", trained on n <= " << t["train_length"] << " (" << t["train_tokens"]
      << " tokens), " << tc["steps"] << " steps, " << seeds << (seeds == 1 ? " seed" : " seeds") << ", d_model " << m["d_model"] << ", "
      << m["num_layers"] << (m["num_layers"] == 1 ? " layer, " : " layers, ") << m["num_heads"] << (m["num_heads"] == 1 ? " head" : " heads")
      << (m["mlp"].get<bool>() ? ", MLP" : ", no MLP") << "\n"
      << "accuracy over answer tokens at length n: mean over seeds [min, max]; \"no row\": past a learned table's rows\n\n";
  const std::size_t width = seeds > 1 ? 20 : 6;
  Cells head = {{"encoding", 10}, {"loss", 6}};
  for (const json& n : results["evaluation"]["lengths"]) head.emplace_back("n=" + std::to_string(n.get<int>()), width);
  out << tableRow(head);
  for (const json& e : results["encodings"]) {
    double loss = 0.0;
    bool haveLoss = true;
    for (const json& r : e["runs"]) {
      haveLoss = haveLoss && !r["final_loss"].is_null();
      if (haveLoss) loss += r["final_loss"].get<double>() / static_cast<double>(e["runs"].size());
    }
    Cells cells = {{e["encoding"].get<std::string>(), 10}, {haveLoss ? fixed(loss, 3) : "-", 6}};
    for (const json& s : e["summary"]) cells.emplace_back(accuracyCell(s), width);
    out << tableRow(cells);
  }
}

// [SECTION] The command

int runTrain(const std::vector<std::string>& args) {
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") {
      std::cout << trainHelp();
      return 0;
    }
  TrainPlan p = parsePlan(args);
  if (!p.output.empty()) checkOutputPath(p.output);
  const auto start = std::chrono::steady_clock::now();
  const bool evalOnly = !p.loadDir.empty();
  const std::vector<RunResult> runs = evalOnly ? loadAll(p) : trainAll(p);
  const json results = resultsJson(p, runs, evalOnly);
  if (!p.output.empty()) writeFileAtomically(p.output, [&](std::ostream& os) { os << results.dump(2) << "\n"; });
  printTable(std::cout, results);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cerr << "posviz train: " << runs.size() << (runs.size() == 1 ? " run " : " runs ") << (evalOnly ? "evaluated" : "trained and evaluated")
            << " in " << fixed(seconds, 1) << " s" << (p.output.empty() ? "" : ", results in " + p.output) << "\n";
  return 0;
}

}  // namespace

int runTrainCommand(const std::vector<std::string>& args) {
  const std::string prefix = "posviz train: ";
  try {
    return runTrain(args);
  } catch (const UsageError& e) {
    std::cerr << prefix << displayMessage(e.what()) << "\n";
    return 2;
  } catch (const tr::WeightsError& e) {  // a saved run that cannot be read: bad input
    std::cerr << prefix << displayMessage(e.what()) << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {  // core refused a combination
    std::cerr << prefix << displayMessage(e.what()) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << prefix << "out of memory\n";
    return 1;
  } catch (const std::exception& e) {  // I/O: the results file, the run folders
    std::cerr << prefix << displayMessage(e.what()) << "\n";
    return 1;
  }
}

}  // namespace posviz::cli
