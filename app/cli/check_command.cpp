#include "app/cli/check_command.hpp"

#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "app/cli/config_readings.hpp"
#include "app/cli/model_config.hpp"
#include "app/cli/request.hpp"
#include "core/check.hpp"
#include "core/npy.hpp"
#include "core/rope_check.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::cli {

namespace {

const char* kUsage =
    "usage: posviz check (--config FILE | --preset NAME) [--layer-type T]\n"
    "                    (--inv-freq F.npy | --cos C.npy --sin S.npy | --q Q.npy --rotated R.npy)\n"
    "                    [--positions P.npy | --first-position N]\n"
    "  compares your RoPE tensors (.npy, float32 or float64) with the exact reference for the model and\n"
    "  names the mistake when they differ. --cos/--sin: positions x rotary dims, as the model's rotary\n"
    "  embedding returns them; --q/--rotated: rows of head_dim, one position per row. Positions are\n"
    "  0, 1, ... unless --positions or --first-position says otherwise.\n"
    "  exit 0: matches (up to rounding); 1: differs, with the diagnosis; 2: bad input\n";

struct CheckArgs : CheckFiles {
  std::string config, preset, layerType;
};

using BadInput = CheckInputError;

void checkCombination(const CheckFiles& a) {
  const bool inv = a.files.count("inv-freq") != 0, cs = a.files.count("cos") + a.files.count("sin") != 0,
             rot = a.files.count("q") + a.files.count("rotated") != 0;
  if (inv + cs + rot != 1) throw BadInput("give one of --inv-freq, --cos with --sin, or --q with --rotated");
  if (cs && a.files.size() - a.files.count("positions") != 2) throw BadInput("--cos and --sin go together");
  if (rot && a.files.size() - a.files.count("positions") != 2) throw BadInput("--q and --rotated go together");
  if (a.files.count("positions") != 0 && a.firstPosition) throw BadInput("give --positions or --first-position, not both");
}

// The largest position --first-position and --positions take: 2^53, past which doubles skip integers.
constexpr double kMaxFirstPosition = 9007199254740992.0;

CheckArgs parseArgs(const std::vector<std::string>& args) {
  CheckArgs a;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& f = args[i];
    if (f.rfind("--", 0) != 0) throw BadInput("unexpected argument " + quotedText(f));
    if (i + 1 >= args.size()) throw BadInput(f + ": needs a value");
    const std::string& v = args[++i];
    const std::string key = f.substr(2);
    if (key == "config") a.config = v;
    else if (key == "preset") a.preset = v;
    else if (key == "layer-type") a.layerType = v;
    else if (key == "first-position") {
      char* end = nullptr;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 0 || static_cast<double>(n) > kMaxFirstPosition)
        throw BadInput("--first-position must be an integer in [0, 2^53], got " + quotedText(v));
      a.firstPosition = n;
    } else if (key == "inv-freq" || key == "cos" || key == "sin" || key == "q" || key == "rotated" || key == "positions") {
      a.files[key] = v;
    } else {
      throw BadInput("unknown option " + quotedText(f));
    }
  }
  if (a.config.empty() == a.preset.empty()) throw BadInput("give exactly one of --config FILE or --preset NAME");
  checkCombination(a);
  return a;
}

struct Loaded {
  std::vector<double> values;
  std::vector<std::int64_t> shape;
  bool float32 = true;
};

Loaded load(const std::string& path) {
  const NpyArray a = readNpy(path);
  return {std::vector<double>(a.data.begin(), a.data.end()), a.shape, a.sourceType == DType::F32};
}

std::string shapeText(const std::vector<std::int64_t>& s) {
  std::string t = "(";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

// rows x cols of a tensor whose leading dims are flattened into rows.
std::pair<std::size_t, int> rowsCols(const Loaded& l, const std::string& what) {
  if (l.shape.size() < 2 || l.shape.back() <= 0) throw BadInput(what + " must have at least 2 dims (positions x columns), got shape " + shapeText(l.shape));
  const auto cols = static_cast<std::size_t>(l.shape.back());
  return {l.values.size() / cols, static_cast<int>(cols)};
}

std::vector<double> positionsFor(const CheckFiles& a, std::size_t rows) {
  if (auto it = a.files.find("positions"); it != a.files.end()) {
    Loaded p = load(it->second);
    if (p.shape.size() != 1) throw BadInput("--positions must be 1-D, one position per row, got shape " + shapeText(p.shape));
    if (p.values.size() != rows) {
      throw BadInput("--positions has " + std::to_string(p.values.size()) + " values, expected one per row (" + std::to_string(rows) + ")");
    }
    // The same limit as --first-position: a position past 2^53 has no exact double.
    for (double v : p.values) {
      if (!(v >= 0.0) || v != std::floor(v) || v > kMaxFirstPosition) {
        throw BadInput("--positions must hold whole numbers in [0, 2^53], got " + formatValue(v));
      }
    }
    return p.values;
  }
  std::vector<double> pos(rows);
  for (std::size_t i = 0; i < rows; ++i) pos[i] = static_cast<double>(a.firstPosition.value_or(0) + static_cast<long long>(i));
  return pos;
}

}  // namespace

RopeCheckInput loadCheckInput(const CheckFiles& a, const RopeParams& p) {
  checkCombination(a);
  RopeCheckInput in;
  in.params = p;
  if (auto it = a.files.find("inv-freq"); it != a.files.end()) {
    Loaded l = load(it->second);
    // inv_freq is one frequency per rotary pair: a table passed by mistake is refused, not flattened.
    if (l.shape.size() != 1) {
      throw BadInput("--inv-freq must be 1-D, one frequency per rotary pair (shape (rotary_dim / 2,)), got shape " + shapeText(l.shape));
    }
    in.kind = RopeCheckKind::InvFreq;
    in.invFreq = l.values;
    in.float32 = l.float32;
    return in;
  }
  const bool cs = a.files.count("cos") != 0;
  Loaded x = load(a.files.at(cs ? "cos" : "q")), y = load(a.files.at(cs ? "sin" : "rotated"));
  if (x.shape != y.shape) {
    throw BadInput(std::string(cs ? "--cos and --sin" : "--q and --rotated") + " must have one shape, got " + shapeText(x.shape) + " and " + shapeText(y.shape));
  }
  const auto [rows, cols] = rowsCols(x, cs ? "--cos" : "--q");
  in.kind = cs ? RopeCheckKind::CosSin : RopeCheckKind::Rotated;
  in.cols = cols;
  in.float32 = x.float32 || y.float32;
  in.positions = positionsFor(a, rows);
  (cs ? in.cos : in.q) = std::move(x.values);
  (cs ? in.sin : in.rotated) = std::move(y.values);
  return in;
}

namespace {

std::string referenceText(const ModelConfig& m, const RopeParams& p) {
  std::ostringstream os;
  os.precision(6);
  const RopeFrequencies f = ropeFrequencies(p);
  os << m.name << ": RoPE base " << p.base << ", rotary dims " << ropeRotaryDims(p) << " of head_dim " << p.headDim << ", "
     << ropeLayoutName(p.layout) << ", " << scalingName(p.scaling.method);
  if (p.scaling.method != ScalingMethod::None) os << " x" << p.scaling.factor;
  os << ", attention factor " << f.attentionFactor;
  return os.str();
}

}  // namespace

int runCheckCommand(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << kUsage;
    return 0;
  }
  try {
    const CheckArgs a = parseArgs(args);
    const ModelConfig m = a.config.empty() ? loadPreset(a.preset) : loadModelConfig(a.config);
    if (!m.guess.empty()) std::cerr << "posviz check: guess: " << m.guess << "\n";
    const std::optional<std::string> layer = a.layerType.empty() ? std::nullopt : std::optional<std::string>(a.layerType);
    const std::optional<RopeParams> p = readRopeConfig(m, layer, m.name);
    if (!p) throw BadInput(m.name + " uses no RoPE (" + layerKindList(m, false) + "): there is nothing to check");
    const RopeCheckInput in = loadCheckInput(a, *p);
    const RopeCheckResult r = checkRope(in);
    std::cout << "reference: " << referenceText(m, *p) << "\n";
    std::cout << (r.match ? "MATCH: " : "MISMATCH: ") << r.verdict << "\n";
    if (!r.match) std::cout << "mistake: " << r.mistake << "\n";
    return r.match ? 0 : 1;
  } catch (const std::exception& e) {  // bad arguments, files, configs or shapes
    std::cerr << "posviz check: " << displayMessage(e.what()) << "\n" << (dynamic_cast<const BadInput*>(&e) ? kUsage : "");
    return 2;
  }
}

}  // namespace posviz::cli
