#include "core/rope_check.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace posviz {

namespace {

// One way of building the tensors: the reference, or the reference with one known mistake.
struct Variant {
  std::string id;
  std::string verdict;
  std::vector<double> inv;  // per pair
  RopeLayout layout = RopeLayout::HalfSplit;
  double afCos = 1.0, afSin = 1.0;
  double offset = 0.0;
};

constexpr double kUlp32 = 1.0 / 16777216.0;  // 2^-24

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

RopeLayout other(RopeLayout l) { return l == RopeLayout::HalfSplit ? RopeLayout::Interleaved : RopeLayout::HalfSplit; }

Variant base(const std::string& id, const std::string& verdict, const RopeParams& p) {
  const RopeFrequencies f = ropeFrequencies(p);
  return {id, verdict, f.invFreq, p.layout, f.attentionFactor, f.attentionFactor, 0.0};
}

// Relative error of float32 inverse frequencies: base^(-2i/d) evaluated in float32 carries the
// exponent's rounding times ln(base), plus the scaling's own few operations.
double invRelTol(const RopeCheckInput& in) {
  const double unit = in.float32 ? kUlp32 : 1e-9;
  return unit * (16.0 + 4.0 * std::log(in.params.base));
}

double unitTol(const RopeCheckInput& in) { return (in.float32 ? 8.0 * kUlp32 : 1e-9); }

int pairOfColumn(RopeLayout layout, int col, int half) { return layout == RopeLayout::HalfSplit ? col % half : col / 2; }

DimPair dimsOfPair(RopeLayout layout, int pair, int half) {
  return layout == RopeLayout::HalfSplit ? DimPair{pair, pair + half} : DimPair{2 * pair, 2 * pair + 1};
}

// The largest |user - expected| / tolerance over the values, and the largest plain difference.
struct Fit {
  double worst = 0.0;     // <= 1: within tolerance
  double maxError = 0.0;
  double tolAtWorst = 0.0;
  double errAtWorst = 0.0;
  std::size_t at = 0;
};

void account(Fit& f, double user, double expected, double tol, std::size_t index) {
  const double err = std::abs(user - expected);
  f.maxError = std::max(f.maxError, err);
  if (err / tol > f.worst || f.tolAtWorst == 0.0) {
    f.worst = std::max(f.worst, err / tol);
    f.at = index;
    f.tolAtWorst = tol;
    f.errAtWorst = err;
  }
}

Fit fitInvFreq(const RopeCheckInput& in, const Variant& v) {
  Fit f;
  if (in.invFreq.size() != v.inv.size()) return {1e300, 0.0, 0.0, 0};
  const double rel = invRelTol(in);
  for (std::size_t i = 0; i < v.inv.size(); ++i) account(f, in.invFreq[i], v.inv[i], rel * std::abs(v.inv[i]) + 1e-300, i);
  return f;
}

Fit fitCosSin(const RopeCheckInput& in, const Variant& v) {
  Fit f;
  const int half = static_cast<int>(v.inv.size());
  if (in.cols != 2 * half) return {1e300, 0.0, 0.0, 0};
  const double rel = invRelTol(in), unit = unitTol(in);
  for (std::size_t r = 0; r < in.positions.size(); ++r) {
    for (int c = 0; c < in.cols; ++c) {
      const double angle = (in.positions[r] + v.offset) * v.inv[static_cast<std::size_t>(pairOfColumn(v.layout, c, half))];
      const std::size_t k = r * static_cast<std::size_t>(in.cols) + static_cast<std::size_t>(c);
      const double tolBase = unit + std::abs(angle) * (rel + kUlp32);
      account(f, in.cos[k], std::cos(angle) * v.afCos, tolBase * v.afCos, k);
      account(f, in.sin[k], std::sin(angle) * v.afSin, tolBase * v.afSin, k);
    }
  }
  return f;
}

Fit fitRotated(const RopeCheckInput& in, const Variant& v) {
  Fit f;
  const int half = static_cast<int>(v.inv.size());
  if (2 * half > in.cols) return {1e300, 0.0, 0.0, 0};
  const double rel = invRelTol(in), unit = unitTol(in);
  const auto cols = static_cast<std::size_t>(in.cols);
  for (std::size_t r = 0; r < in.positions.size(); ++r) {
    const double* q = in.q.data() + r * cols;
    const double* out = in.rotated.data() + r * cols;
    std::vector<double> expected(q, q + cols);
    std::vector<double> tol(cols, 0.0);
    for (std::size_t d = 0; d < cols; ++d) tol[d] = unit * std::max(1.0, std::abs(q[d]));
    for (int i = 0; i < half; ++i) {
      const DimPair dp = dimsOfPair(v.layout, i, half);
      const double angle = (in.positions[r] + v.offset) * v.inv[static_cast<std::size_t>(i)];
      const double c = std::cos(angle) * v.afCos, s = std::sin(angle) * v.afSin;
      const double a = q[dp.a], b = q[dp.b];
      expected[static_cast<std::size_t>(dp.a)] = a * c - b * s;
      expected[static_cast<std::size_t>(dp.b)] = b * c + a * s;
      const double t = (std::abs(a) + std::abs(b)) * std::max(v.afCos, v.afSin) * (unit + std::abs(angle) * (rel + kUlp32));
      tol[static_cast<std::size_t>(dp.a)] = t + unit * std::abs(expected[static_cast<std::size_t>(dp.a)]);
      tol[static_cast<std::size_t>(dp.b)] = t + unit * std::abs(expected[static_cast<std::size_t>(dp.b)]);
    }
    for (std::size_t d = 0; d < cols; ++d) account(f, out[d], expected[d], tol[d] + 1e-300, r * cols + d);
  }
  return f;
}

Fit fitOf(const RopeCheckInput& in, const Variant& v) {
  switch (in.kind) {
    case RopeCheckKind::InvFreq: return fitInvFreq(in, v);
    case RopeCheckKind::CosSin: return fitCosSin(in, v);
    case RopeCheckKind::Rotated: return fitRotated(in, v);
  }
  return {};
}

// The user's inverse frequencies of pairs 0 and 1, when the values show them: given directly,
// or as the angle of the cos/sin cache at the first row with a small positive position.
std::optional<std::pair<double, double>> userFirstFreqs(const RopeCheckInput& in, const Variant& ref) {
  const int half = static_cast<int>(ref.inv.size());
  if (half < 2) return std::nullopt;
  if (in.kind == RopeCheckKind::InvFreq && in.invFreq.size() >= 2) return std::make_pair(in.invFreq[0], in.invFreq[1]);
  if (in.kind != RopeCheckKind::CosSin || in.cols != 2 * half) return std::nullopt;
  for (std::size_t r = 0; r < in.positions.size(); ++r) {
    const double pos = in.positions[r];
    if (!(pos > 0.0 && pos <= 3.0)) continue;
    const auto freq = [&](int pair) {
      const std::size_t k = r * static_cast<std::size_t>(in.cols) + static_cast<std::size_t>(ref.layout == RopeLayout::HalfSplit ? pair : 2 * pair);
      return std::atan2(in.sin[k] / ref.afSin, in.cos[k] / ref.afCos) / pos;
    };
    return std::make_pair(freq(0), freq(1));
  }
  return std::nullopt;
}

void addScalingVariants(const RopeCheckInput& in, const Variant& ref, std::vector<Variant>& out) {
  const RopeParams& p = in.params;
  if (p.scaling.method == ScalingMethod::None) return;
  RopeParams plain = p;
  plain.scaling = RopeScaling{};
  out.push_back(base("scaling-missing", std::string(scalingName(p.scaling.method)) + " scaling is missing: the values are plain RoPE's "
                                            "(the model scales its frequencies by factor " + fmt(p.scaling.factor) + ")", plain));
  const RopeFrequencies f = ropeFrequencies(p);
  Variant twice = ref;
  twice.id = "scaling-twice";
  twice.verdict = std::string(scalingName(p.scaling.method)) + " scaling is applied twice: each pair's frequency is divided by its "
                  "scaling ratio a second time";
  // Every method but Llama 3.1's scales pair i by a ratio of its own (or, NTK, by a base whose
  // second application squares it); Llama 3.1's depends on the wavelength, so it is rerun.
  if (p.scaling.method == ScalingMethod::Llama3) twice.inv = llama3Scaled(f.invFreq, p.scaling);
  else for (std::size_t i = 0; i < twice.inv.size(); ++i) twice.inv[i] = f.invFreq[i] * f.invFreq[i] / f.baseInvFreq[i];
  out.push_back(twice);
}

void addWidthVariants(const RopeCheckInput& in, const Variant& ref, std::vector<Variant>& out) {
  const RopeParams& p = in.params;
  const int rot = ropeRotaryDims(p);
  if (rot >= p.headDim) return;
  RopeParams whole = p;
  whole.rotaryFraction = 1.0;
  if (whole.scaling.method == ScalingMethod::LongRope) return;  // its factor lists are per rotary pair
  Variant w = base("wrong-width", "partial rotary over the wrong width: the values rotate the whole head_dim " + std::to_string(p.headDim) +
                                      ", the model rotates " + std::to_string(rot) + " dims",
                   whole);
  out.push_back(w);
  // The exponent over head_dim instead of the rotary dims: base^(-2i/head_dim) for the rotary pairs.
  Variant e = ref;
  e.id = "wrong-width";
  e.verdict = "partial rotary over the wrong width: the frequencies use base^(-2i/" + std::to_string(p.headDim) +
              ") (head_dim) where the model uses base^(-2i/" + std::to_string(rot) + ") (the rotary dims)";
  const RopeFrequencies f = ropeFrequencies(p);
  for (std::size_t i = 0; i < e.inv.size(); ++i) {
    const double plain = std::pow(p.base, -2.0 * static_cast<double>(i) / p.headDim);
    e.inv[i] = plain * f.invFreq[i] / f.baseInvFreq[i];
  }
  out.push_back(e);
}

void addFactorVariants(const Variant& ref, std::vector<Variant>& out) {
  const double af = ref.afCos;
  if (std::abs(af - 1.0) < 1e-12) return;
  Variant missing = ref, twice = ref, cosOnly = ref;
  missing.id = "attention-factor-missing";
  missing.verdict = "the attention factor " + fmt(af) + " is missing: cos and sin are not multiplied by it";
  missing.afCos = missing.afSin = 1.0;
  twice.id = "attention-factor-misplaced";
  twice.verdict = "the attention factor " + fmt(af) + " is applied twice (cos and sin carry " + fmt(af * af) + ")";
  twice.afCos = twice.afSin = af * af;
  cosOnly.id = "attention-factor-misplaced";
  cosOnly.verdict = "the attention factor " + fmt(af) + " multiplies cos but not sin";
  cosOnly.afSin = 1.0;
  out.insert(out.end(), {missing, twice, cosOnly});
}

void addBaseVariants(const RopeCheckInput& in, const Variant& ref, std::vector<Variant>& out) {
  const RopeParams& p = in.params;
  std::vector<double> bases = {10000.0, 100000.0, 500000.0, 1e6, 5e6, 1e7, 1e8};
  if (auto f = userFirstFreqs(in, ref); f && f->first > 0.0 && f->second > 0.0 && f->second < f->first) {
    // theta_1 / theta_0 = base^(-2/d): the base the values were made with.
    bases.insert(bases.begin(), std::pow(f->first / f->second, ropeRotaryDims(p) / 2.0));
  }
  for (double b : bases) {
    if (!(b > 1.0) || !std::isfinite(b) || std::abs(b / p.base - 1.0) < 1e-6) continue;
    RopeParams q = p;
    q.base = b;
    try {
      out.push_back(base("wrong-base", "wrong base: the values were made with base " + fmt(b) + ", the model uses " + fmt(p.base), q));
    } catch (const std::invalid_argument&) {
      // a base the scaling refuses is no candidate
    }
  }
}

std::vector<Variant> mistakes(const RopeCheckInput& in, const Variant& ref) {
  std::vector<Variant> out;
  Variant swapped = ref;
  swapped.id = "layout-swapped";
  swapped.verdict = std::string("pairing layout swapped: the values pair dims ") +
                    (ref.layout == RopeLayout::HalfSplit ? "interleaved (adjacent dims; repeat_interleave of the angles)"
                                                         : "half-split (i with i + d/2; torch.cat((freqs, freqs)))") +
                    ", the model's code pairs them " + ropeLayoutName(ref.layout);
  swapped.layout = other(ref.layout);
  if (in.kind != RopeCheckKind::InvFreq) out.push_back(swapped);
  addScalingVariants(in, ref, out);
  addWidthVariants(in, ref, out);
  if (in.kind != RopeCheckKind::InvFreq) addFactorVariants(ref, out);
  for (int d = -8; d <= 8 && in.kind != RopeCheckKind::InvFreq; ++d) {
    if (d == 0) continue;
    Variant o = ref;
    o.id = "position-offset";
    o.verdict = "position offset: the values are those of position p " + std::string(d > 0 ? "+ " : "- ") + std::to_string(std::abs(d)) +
                " for each given position p (positions counted from " + std::to_string(d) + " instead of 0)";
    o.offset = d;
    out.push_back(o);
  }
  addBaseVariants(in, ref, out);
  return out;
}

void checkInput(const RopeCheckInput& in) {
  auto finite = [](const std::vector<double>& v, const char* what) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!std::isfinite(v[i])) throw std::invalid_argument(std::string(what) + "[" + std::to_string(i) + "] is not finite");
    }
  };
  validateRope("checkRope", in.params);
  const std::size_t rows = in.positions.size();
  switch (in.kind) {
    case RopeCheckKind::InvFreq:
      if (in.invFreq.empty()) throw std::invalid_argument("inverse frequencies: no values");
      finite(in.invFreq, "inv_freq");
      return;
    case RopeCheckKind::CosSin:
      if (rows == 0 || in.cols <= 0 || in.cos.size() != rows * static_cast<std::size_t>(in.cols) || in.sin.size() != in.cos.size()) {
        throw std::invalid_argument("cos and sin must both be positions x columns (" + std::to_string(rows) + " positions)");
      }
      finite(in.cos, "cos");
      finite(in.sin, "sin");
      break;
    case RopeCheckKind::Rotated:
      if (rows == 0 || in.cols != in.params.headDim || in.q.size() != rows * static_cast<std::size_t>(in.cols) ||
          in.rotated.size() != in.q.size()) {
        throw std::invalid_argument("q and its rotation must both be positions x head_dim (" + std::to_string(rows) + " x " +
                                    std::to_string(in.params.headDim) + ")");
      }
      finite(in.q, "q");
      finite(in.rotated, "rotated");
      break;
  }
  finite(in.positions, "positions");
}

std::string matchVerdict(const RopeCheckInput& in, const Fit& f) {
  if (f.maxError == 0.0) return "matches the reference exactly";
  return std::string("matches the reference: the differences are ") + (in.float32 ? "float32" : "float64") +
         " rounding only (largest " + fmt(f.maxError) + "; each within the rounding expected at its angle, the closest " +
         fmt(f.errAtWorst) + " against " + fmt(f.tolAtWorst) + ")";
}

// A shape that is itself the mistake: the user's tensors are as wide as the whole head where the
// model rotates part of it.
std::optional<RopeCheckResult> widthByShape(const RopeCheckInput& in) {
  const int rot = ropeRotaryDims(in.params), head = in.params.headDim;
  const std::size_t n = in.kind == RopeCheckKind::InvFreq ? in.invFreq.size() * 2 : static_cast<std::size_t>(in.cols);
  if (in.kind == RopeCheckKind::Rotated || n == static_cast<std::size_t>(rot)) return std::nullopt;
  RopeCheckResult r;
  r.mistake = n == static_cast<std::size_t>(head) ? "wrong-width" : "shape";
  r.verdict = (n == static_cast<std::size_t>(head) ? "partial rotary over the wrong width: " : "wrong size: ") +
              std::string("the values cover ") + std::to_string(n) + " dims (" + std::to_string(n / 2) + " pairs), the model rotates " +
              std::to_string(rot) + " of head_dim " + std::to_string(head);
  return r;
}

}  // namespace

RopeCheckResult checkRope(const RopeCheckInput& in) {
  checkInput(in);
  if (auto w = widthByShape(in)) return *w;
  const Variant ref = base("", "", in.params);
  const Fit exact = fitOf(in, ref);
  if (exact.worst <= 1.0) return {true, "", matchVerdict(in, exact), exact.maxError, exact.tolAtWorst};
  for (const Variant& v : mistakes(in, ref)) {
    const Fit f = fitOf(in, v);
    if (f.worst <= 1.0) return {false, v.id, v.verdict, f.maxError, f.tolAtWorst};
  }
  RopeCheckResult r;
  r.mistake = "unrecognised";
  r.verdict = "differs from the reference in a way not recognised (none of: layout swapped, scaling missing or twice, wrong width, "
              "attention factor missing or misplaced, position offset -8..8, wrong base): largest difference " + fmt(exact.maxError) +
              " at value " + std::to_string(exact.at) + ", allowed " + fmt(exact.tolAtWorst);
  r.maxError = exact.maxError;
  r.tolerance = exact.tolAtWorst;
  return r;
}

}  // namespace posviz
