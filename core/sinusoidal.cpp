#include "core/sinusoidal.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "core/check.hpp"
#include "core/kernels.hpp"

namespace posviz {

namespace {

// Positions are carried as double; past 2^53 consecutive integers are no longer distinct.
constexpr long long kMaxPosition = 1ll << 53;

void requireLayout(const char* fn, SinusoidalLayout l) {
  if (l != SinusoidalLayout::Interleaved && l != SinusoidalLayout::Tensor2Tensor && l != SinusoidalLayout::Halves)
    failArgument(fn, "layout must be Interleaved, Tensor2Tensor or Halves, got " + std::to_string(static_cast<int>(l)));
}

// omega_i of a checked p, the one formula: its logarithm is taken once, for all pairs.
class FrequencyLaw {
 public:
  explicit FrequencyLaw(const SinusoidalParams& p)
      : p_(p),
        log_(p.layout != SinusoidalLayout::Tensor2Tensor
                 ? std::log(p.base)
                 : std::log(p.base / p.minTimescale) / std::max(p.dModel / 2 - 1, 1)) {}
  double operator()(int pair) const {
    if (p_.layout != SinusoidalLayout::Tensor2Tensor) return std::exp(-2.0 * pair * log_ / p_.dModel);
    return p_.minTimescale * std::exp(-static_cast<double>(pair) * log_);   // log_: the log-timescale step
  }

 private:
  SinusoidalParams p_;
  double log_;
};

// omega_i for every pair of a checked p, float64.
std::vector<double> frequencies(const SinusoidalParams& p) {
  const FrequencyLaw law(p);
  std::vector<double> w(static_cast<std::size_t>(p.dModel / 2));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = law(static_cast<int>(i));
  return w;
}

// The dims of pair i: (sin dim, cos dim).
struct SinCosDims {
  int s;
  int c;
};
SinCosDims pairDims(const SinusoidalParams& p, int pair) {
  if (p.layout == SinusoidalLayout::Interleaved) return {2 * pair, 2 * pair + 1};
  return {pair, p.dModel / 2 + pair};
}

void validateRows(const char* fn, int numPositions, long long firstPos) {
  requirePositiveInt(fn, "numPositions", numPositions);
  requireNonNegativeInt(fn, "firstPos", firstPos);
  if (firstPos > kMaxPosition - numPositions)
    failArgument(fn, "firstPos + numPositions must be <= 2^53 (positions are exact in float64), got firstPos " +
                         std::to_string(firstPos));
}

std::string gridWhat(long long rows, long long cols, const char* type) {
  return "a grid of " + std::to_string(rows) + " x " + std::to_string(cols) + " x " + type;
}

}  // namespace

void validateSinusoidal(const char* fn, const SinusoidalParams& p) {
  requireEven(fn, "dModel", p.dModel);
  requireLayout(fn, p.layout);
  requireGreater(fn, "base", p.base, 1.0);
  if (p.layout == SinusoidalLayout::Tensor2Tensor) {
    requirePositive(fn, "minTimescale", p.minTimescale);
    if (!(p.minTimescale < p.base))
      failArgument(fn, "minTimescale must be < base (the max timescale " + formatValue(p.base) + "), got " +
                           formatValue(p.minTimescale));
  }
}

double sinusoidalFrequency(const SinusoidalParams& p, int pair) {
  validateSinusoidal("sinusoidalFrequency", p);
  requireIndex("sinusoidalFrequency", "pair", pair, p.dModel / 2);
  return FrequencyLaw(p)(pair);
}

double sinusoidalWavelength(const SinusoidalParams& p, int pair) {
  validateSinusoidal("sinusoidalWavelength", p);
  requireIndex("sinusoidalWavelength", "pair", pair, p.dModel / 2);
  return 2.0 * std::numbers::pi / sinusoidalFrequency(p, pair);
}

SinusoidalTable sinusoidalTable(const SinusoidalParams& p) {
  validateSinusoidal("sinusoidalTable", p);
  SinusoidalTable t;
  t.frequency = frequencies(p);
  t.wavelength.reserve(t.frequency.size());
  for (double w : t.frequency) t.wavelength.push_back(2.0 * std::numbers::pi / w);
  t.pairOfDim.resize(static_cast<std::size_t>(p.dModel));
  t.dimIsSin.resize(static_cast<std::size_t>(p.dModel));
  for (int i = 0; i < p.dModel / 2; ++i) {
    const SinCosDims d = pairDims(p, i);
    t.pairOfDim[static_cast<std::size_t>(d.s)] = t.pairOfDim[static_cast<std::size_t>(d.c)] = i;
    t.dimIsSin[static_cast<std::size_t>(d.s)] = 1;
  }
  return t;
}

int sinusoidalPairOfDim(const SinusoidalParams& p, int dim) {
  validateSinusoidal("sinusoidalPairOfDim", p);
  requireIndex("sinusoidalPairOfDim", "dim", dim, p.dModel);
  return p.layout == SinusoidalLayout::Interleaved ? dim / 2 : dim % (p.dModel / 2);
}

bool sinusoidalDimIsSin(const SinusoidalParams& p, int dim) {
  validateSinusoidal("sinusoidalDimIsSin", p);
  requireIndex("sinusoidalDimIsSin", "dim", dim, p.dModel);
  return p.layout == SinusoidalLayout::Interleaved ? dim % 2 == 0 : dim < p.dModel / 2;
}

double sinusoidalValue(const SinusoidalParams& p, double pos, int dim) {
  validateSinusoidal("sinusoidalValue", p);
  requireAtLeast("sinusoidalValue", "pos", pos, 0.0);
  requireIndex("sinusoidalValue", "dim", dim, p.dModel);
  const int pair = sinusoidalPairOfDim(p, dim);
  const double angle = pos * sinusoidalFrequency(p, pair);
  return sinusoidalDimIsSin(p, dim) ? std::sin(angle) : std::cos(angle);
}

std::vector<double> sinusoidalVector(const SinusoidalParams& p, double pos) {
  validateSinusoidal("sinusoidalVector", p);
  requireAtLeast("sinusoidalVector", "pos", pos, 0.0);
  const std::vector<double> w = frequencies(p);
  std::vector<double> v(static_cast<std::size_t>(p.dModel));
  for (int i = 0; i < p.dModel / 2; ++i) {
    const SinCosDims d = pairDims(p, i);
    const double angle = pos * w[i];
    v[d.s] = std::sin(angle);
    v[d.c] = std::cos(angle);
  }
  return v;
}

std::vector<double> sinusoidalVector(const SinusoidalTable& t, double pos) {
  requireAtLeast("sinusoidalVector", "pos", pos, 0.0);
  if (t.pairOfDim.size() != t.dimIsSin.size() || t.pairOfDim.size() != 2 * t.frequency.size())
    failArgument("sinusoidalVector", "the table's per-dim and per-pair sizes disagree (" +
                                         std::to_string(t.pairOfDim.size()) + " dims, " +
                                         std::to_string(t.frequency.size()) + " pairs); build it with sinusoidalTable");
  std::vector<double> v(t.pairOfDim.size());
  for (std::size_t d = 0; d < v.size(); ++d) {
    const auto pair = static_cast<std::size_t>(t.pairOfDim[d]);
    if (t.pairOfDim[d] < 0 || pair >= t.frequency.size())
      failArgument("sinusoidalVector", "the table's dim " + std::to_string(d) + " names pair " +
                                           std::to_string(t.pairOfDim[d]) + ", not one of its " +
                                           std::to_string(t.frequency.size()) + "; build it with sinusoidalTable");
    const double angle = pos * t.frequency[pair];
    v[d] = t.dimIsSin[d] != 0 ? std::sin(angle) : std::cos(angle);
  }
  return v;
}

Grid sinusoidalGrid(const SinusoidalParams& p, int numPositions, long long firstPos) {
  validateSinusoidal("sinusoidalGrid", p);
  validateRows("sinusoidalGrid", numPositions, firstPos);
  requireBudget("sinusoidalGrid", static_cast<std::uint64_t>(numPositions) * static_cast<std::uint64_t>(p.dModel),
                sizeof(float), gridWhat(numPositions, p.dModel, "float32"));
  Grid g(numPositions, p.dModel);
  sinusoidalGridInto(p, numPositions, firstPos, g.values.data());
  return g;
}

void sinusoidalGridInto(const SinusoidalParams& p, int numPositions, long long firstPos, float* out) {
  validateSinusoidal("sinusoidalGridInto", p);
  validateRows("sinusoidalGridInto", numPositions, firstPos);
  if (out == nullptr) failArgument("sinusoidalGridInto", "out must not be null");
  const std::vector<double> w = frequencies(p);
  if (p.layout == SinusoidalLayout::Interleaved)
    kernels::sinusoidalInterleavedInto(w.data(), p.dModel / 2, numPositions, firstPos, out);
  else
    kernels::sinusoidalT2TInto(w.data(), p.dModel / 2, numPositions, firstPos, out);
}

std::vector<double> sinusoidalOffsetMatrix(const SinusoidalParams& p, double k) {
  validateSinusoidal("sinusoidalOffsetMatrix", p);
  requireFinite("sinusoidalOffsetMatrix", "k", k);
  const auto d = static_cast<std::uint64_t>(p.dModel);
  requireBudget("sinusoidalOffsetMatrix", d * d, sizeof(double), gridWhat(p.dModel, p.dModel, "float64"));
  const std::vector<double> w = frequencies(p);
  std::vector<double> m(static_cast<std::size_t>(d * d), 0.0);
  // sin((pos+k)w) = sin(pos w)cos(k w) + cos(pos w)sin(k w)
  // cos((pos+k)w) = cos(pos w)cos(k w) - sin(pos w)sin(k w)
  for (int i = 0; i < p.dModel / 2; ++i) {
    const SinCosDims dims = pairDims(p, i);
    const double ck = std::cos(k * w[i]), sk = std::sin(k * w[i]);
    const auto at = [&](int r, int col) -> double& {
      return m[static_cast<std::size_t>(r) * static_cast<std::size_t>(p.dModel) + static_cast<std::size_t>(col)];
    };
    at(dims.s, dims.s) = ck;
    at(dims.s, dims.c) = sk;
    at(dims.c, dims.s) = -sk;
    at(dims.c, dims.c) = ck;
  }
  return m;
}

double sinusoidalSimilarity(const SinusoidalParams& p, double posA, double posB) {
  validateSinusoidal("sinusoidalSimilarity", p);
  requireAtLeast("sinusoidalSimilarity", "posA", posA, 0.0);
  requireAtLeast("sinusoidalSimilarity", "posB", posB, 0.0);
  // sin a sin b + cos a cos b = cos(a - b), per pair.
  const double delta = posA - posB;
  double sum = 0.0;
  for (double w : frequencies(p)) sum += std::cos(delta * w);
  return sum;
}

Grid sinusoidalSimilarityGrid(const SinusoidalParams& p, int numPositions) {
  validateSinusoidal("sinusoidalSimilarityGrid", p);
  requirePositiveInt("sinusoidalSimilarityGrid", "numPositions", numPositions);
  const auto np = static_cast<std::uint64_t>(numPositions);
  requireBudget("sinusoidalSimilarityGrid", np * np, sizeof(float), gridWhat(numPositions, numPositions, "float32"));
  const std::vector<double> w = frequencies(p);
  // The value depends only on |a - b|: one sum per offset, then fill.
  std::vector<float> byOffset(static_cast<std::size_t>(numPositions));
  for (int delta = 0; delta < numPositions; ++delta) {
    double sum = 0.0;
    for (double wi : w) sum += std::cos(static_cast<double>(delta) * wi);
    byOffset[delta] = static_cast<float>(sum);
  }
  Grid g(numPositions, numPositions);
  for (int a = 0; a < numPositions; ++a) {
    float* row = g.row(a);
    for (int b = 0; b < numPositions; ++b) row[b] = byOffset[a >= b ? a - b : b - a];
  }
  return g;
}

double sinusoidalOffsetResidual(std::span<const double> mk, std::span<const double> pe, std::span<const double> peK) {
  const char* fn = "sinusoidalOffsetResidual";
  const std::size_t d = pe.size();
  if (d == 0) failArgument(fn, "pe must not be empty");
  if (peK.size() != d) failArgument(fn, "peK must have pe's " + std::to_string(d) + " values, got " + std::to_string(peK.size()));
  if (mk.size() != d * d)
    failArgument(fn, "mk must be " + std::to_string(d) + " x " + std::to_string(d) + ", got " + std::to_string(mk.size()) + " values");
  double worst = 0.0;
  for (std::size_t r = 0; r < d; ++r) {
    double acc = 0.0;
    for (std::size_t c = 0; c < d; ++c) acc += mk[r * d + c] * pe[c];
    worst = std::max(worst, std::fabs(acc - peK[r]));
  }
  return worst;
}

}  // namespace posviz
