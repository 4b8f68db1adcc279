#include "core/attention.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include "core/alibi.hpp"
#include "core/check.hpp"
#include "core/kernels.hpp"
#include "core/learned.hpp"
#include "core/random.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

// [SECTION] float64 matrices and the attention kernel
// [SECTION] public SDPA
// [SECTION] toy model
// [SECTION] permutation check

namespace posviz {

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] float64 matrices and the attention kernel
// ---------------------------------------------------------------------------------------------

struct Mat {
  int rows = 0;
  int cols = 0;
  std::vector<double> v;
  Mat() = default;
  Mat(int r, int c) : rows(r), cols(c), v(static_cast<std::size_t>(r) * static_cast<std::size_t>(c), 0.0) {}
  double& at(int r, int c) { return v[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)]; }
  double at(int r, int c) const { return v[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)]; }
};

struct MatResult {
  Mat weights;
  Mat output;
};

// The toy model's ALiBi slope: 1/2, the steepest head of the paper's 8-head set, so the bias is
// comparable to the toy scores. (One head by the paper's rule would get 2^-8, nearly invisible
// over a few tokens.)
constexpr double kToyAlibiSlope = 0.5;
// The toy learned table: N(0, 1) rather than GPT-2's N(0, 0.02^2). It stands in for a trained
// table, whose rows are as large as the token embeddings (N(0, 1) here); at 0.02 the effect on a
// few tokens would be invisible.
constexpr double kToyLearnedStd = 1.0;
constexpr std::uint64_t kToyLearnedSeedOffset = 1;
constexpr double kToySinusoidalBase = 10000.0;
constexpr double kEquivariantTolerance = 1e-9;

// Row i of c gathers a(i, k) * row k of b, k in order: each c(i, j) sums its products in k order.
Mat matmul(const Mat& a, const Mat& b) {
  Mat c(a.rows, b.cols);
  const std::size_t n = static_cast<std::size_t>(b.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int k = 0; k < a.cols; ++k)
      kernels::addScaledInto(c.v.data() + static_cast<std::size_t>(i) * n, b.v.data() + static_cast<std::size_t>(k) * n, a.at(i, k), n);
  return c;
}

// softmax(Q K^T / sqrt(d) + B) V with an optional causal mask; bias empty or T x T (-inf masks).
MatResult attend(const char* fn, const Mat& q, const Mat& k, const Mat& v, const Mat* bias, bool causal) {
  const int t = q.rows;
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.cols));
  MatResult r{Mat(t, t), Mat(t, v.cols)};
  std::vector<double> s(static_cast<std::size_t>(t));
  for (int i = 0; i < t; ++i) {
    double mx = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < t; ++j) {
      double x = -std::numeric_limits<double>::infinity();
      if (!(causal && j > i)) {
        double dot = 0.0;
        for (int c = 0; c < q.cols; ++c) dot += q.at(i, c) * k.at(j, c);
        x = dot * scale + (bias ? bias->at(i, j) : 0.0);
      }
      s[j] = x;
      mx = std::max(mx, x);
    }
    if (mx == -std::numeric_limits<double>::infinity())
      failArgument(fn, "every key is masked for query " + std::to_string(i) + " (a row of the bias is all -inf)");
    double sum = 0.0;
    for (int j = 0; j < t; ++j) {
      s[j] = std::exp(s[j] - mx);  // exp(-inf) = 0 for masked keys
      sum += s[j];
    }
    for (int j = 0; j < t; ++j) {
      const double w = s[j] / sum;
      r.weights.at(i, j) = w;
      if (w == 0.0) continue;
      kernels::addScaledInto(&r.output.at(i, 0), &v.v[static_cast<std::size_t>(j) * static_cast<std::size_t>(v.cols)], w,
                             static_cast<std::size_t>(v.cols));
    }
  }
  return r;
}

Grid toGrid(const Mat& m) {
  Grid g(m.rows, m.cols);
  for (std::size_t i = 0; i < m.v.size(); ++i) g.values[i] = static_cast<float>(m.v[i]);
  return g;
}

void validateGrid(const char* fn, const char* param, const Grid& g) {
  requirePositiveInt(fn, (std::string(param) + ".rows").c_str(), g.rows);
  requirePositiveInt(fn, (std::string(param) + ".cols").c_str(), g.cols);
  const std::size_t want = static_cast<std::size_t>(g.rows) * static_cast<std::size_t>(g.cols);
  if (g.values.size() != want)
    failArgument(fn, std::string(param) + ".values must hold rows * cols = " + std::to_string(want) + " values, got " +
                         std::to_string(g.values.size()));
}

Mat fromGrid(const char* fn, const char* param, const Grid& g, bool allowMask) {
  validateGrid(fn, param, g);
  Mat m(g.rows, g.cols);
  for (std::size_t i = 0; i < g.values.size(); ++i) {
    const float x = g.values[i];
    const bool ok = std::isfinite(x) || (allowMask && x == -std::numeric_limits<float>::infinity());
    if (!ok)
      failArgument(fn, std::string(param) + " must hold finite values" + (allowMask ? " (or -inf to mask)" : "") +
                           ", got " + formatValue(x) + " at row " + std::to_string(i / static_cast<std::size_t>(g.cols)) +
                           ", col " + std::to_string(i % static_cast<std::size_t>(g.cols)));
    m.v[i] = x;
  }
  return m;
}

void requireEncoding(const char* fn, PositionEncoding e) {
  switch (e) {
    case PositionEncoding::None:
    case PositionEncoding::Sinusoidal:
    case PositionEncoding::Learned:
    case PositionEncoding::Rope:
    case PositionEncoding::Alibi: return;
  }
  failArgument(fn, "enc must be None, Sinusoidal, Learned, Rope or Alibi, got " + std::to_string(static_cast<int>(e)));
}

// ---------------------------------------------------------------------------------------------
// [SECTION] toy model
// ---------------------------------------------------------------------------------------------

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

void validateToy(const char* fn, const ToyModel& m) {
  requireEven(fn, "model.dModel", m.dModel);
  if (m.dModel > kMaxToyDim)
    failArgument(fn, "model.dModel must be <= " + std::to_string(kMaxToyDim) + ", got " + std::to_string(m.dModel));
}

int validateTokens(const char* fn, const std::vector<std::string>& tokens) {
  if (tokens.empty()) failArgument(fn, "tokens must not be empty");
  if (tokens.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    failArgument(fn, "tokens must hold at most " + std::to_string(std::numeric_limits<int>::max()) + " tokens, got " +
                         std::to_string(tokens.size()));
  const auto t = static_cast<std::uint64_t>(tokens.size());
  requireBudget(fn, t * t, sizeof(double), "attention weights of " + std::to_string(t) + " x " + std::to_string(t) + " x float64");
  return static_cast<int>(t);
}

// W (dModel x dModel): normals / sqrt(dModel), seeded by the model seed and the matrix name.
// The names contain a space, so no token from splitTokens can share their seed.
Mat projection(const ToyModel& m, const char* name) {
  const std::vector<float> w =
      randomNormalVector(m.dModel * m.dModel, m.seed ^ fnv1a(name), 1.0 / std::sqrt(static_cast<double>(m.dModel)));
  Mat r(m.dModel, m.dModel);
  for (std::size_t i = 0; i < w.size(); ++i) r.v[i] = w[i];
  return r;
}

MatResult toyAttentionMat(const char* fn, const ToyModel& m, const std::vector<std::string>& tokens, PositionEncoding enc) {
  validateToy(fn, m);
  requireEncoding(fn, enc);
  const int t = validateTokens(fn, tokens);
  const int d = m.dModel;

  Mat x(t, d);
  for (int i = 0; i < t; ++i) {
    const std::vector<float> e = toyEmbedding(m, tokens[i]);
    for (int c = 0; c < d; ++c) x.at(i, c) = e[c];
  }
  if (enc == PositionEncoding::Sinusoidal) {
    const SinusoidalParams sp{d, kToySinusoidalBase, SinusoidalLayout::Interleaved, 1.0};
    for (int i = 0; i < t; ++i) {
      const std::vector<double> pe = sinusoidalVector(sp, i);
      for (int c = 0; c < d; ++c) x.at(i, c) += pe[c];
    }
  } else if (enc == PositionEncoding::Learned) {
    const Grid table = learnedInit(t, d, m.seed + kToyLearnedSeedOffset, kToyLearnedStd);
    for (int i = 0; i < t; ++i)
      for (int c = 0; c < d; ++c) x.at(i, c) += table.at(i, c);
  }

  Mat q = matmul(x, projection(m, "W q"));
  Mat k = matmul(x, projection(m, "W k"));
  const Mat v = matmul(x, projection(m, "W v"));

  if (enc == PositionEncoding::Rope) {
    RopeParams rp;
    rp.headDim = d;
    for (Mat* mat : {&q, &k}) {
      for (int i = 0; i < t; ++i) {
        const std::span<const double> row(mat->v.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(d),
                                          static_cast<std::size_t>(d));
        const std::vector<double> rotated = ropeRotate(rp, row, static_cast<double>(i));
        std::copy(rotated.begin(), rotated.end(), mat->v.begin() + static_cast<std::ptrdiff_t>(i) * d);
      }
    }
  }
  if (enc == PositionEncoding::Alibi) {
    Mat bias(t, t);
    for (int i = 0; i < t; ++i)
      for (int j = 0; j < t; ++j) bias.at(i, j) = alibiBias(kToyAlibiSlope, i, j, m.causal);
    return attend(fn, q, k, v, &bias, m.causal);
  }
  return attend(fn, q, k, v, nullptr, m.causal);
}

}  // namespace

const char* positionEncodingName(PositionEncoding e) {
  switch (e) {
    case PositionEncoding::None: return "none";
    case PositionEncoding::Sinusoidal: return "sinusoidal";
    case PositionEncoding::Learned: return "learned";
    case PositionEncoding::Rope: return "rope";
    case PositionEncoding::Alibi: return "alibi";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] public SDPA
// ---------------------------------------------------------------------------------------------

AttentionResult scaledDotProductAttention(const Grid& q, const Grid& k, const Grid& v, const Grid& bias, bool causal) {
  const char* fn = "scaledDotProductAttention";
  const Mat mq = fromGrid(fn, "q", q, false);
  const Mat mk = fromGrid(fn, "k", k, false);
  const Mat mv = fromGrid(fn, "v", v, false);
  if (k.rows != q.rows) failArgument(fn, "k.rows must equal q.rows (" + std::to_string(q.rows) + "), got " + std::to_string(k.rows));
  if (v.rows != q.rows) failArgument(fn, "v.rows must equal q.rows (" + std::to_string(q.rows) + "), got " + std::to_string(v.rows));
  if (k.cols != q.cols) failArgument(fn, "k.cols must equal q.cols (" + std::to_string(q.cols) + "), got " + std::to_string(k.cols));
  const auto t = static_cast<std::uint64_t>(q.rows);
  requireBudget(fn, t * t, sizeof(double), "attention weights of " + std::to_string(t) + " x " + std::to_string(t) + " x float64");
  const bool hasBias = !(bias.rows == 0 && bias.cols == 0 && bias.values.empty());
  Mat mb;
  if (hasBias) {
    mb = fromGrid(fn, "bias", bias, true);
    if (bias.rows != q.rows || bias.cols != q.rows)
      failArgument(fn, "bias must be empty or " + std::to_string(q.rows) + " x " + std::to_string(q.rows) + ", got " +
                           std::to_string(bias.rows) + " x " + std::to_string(bias.cols));
  }
  const MatResult r = attend(fn, mq, mk, mv, hasBias ? &mb : nullptr, causal);
  return {toGrid(r.weights), toGrid(r.output)};
}

std::vector<float> toyEmbedding(const ToyModel& m, const std::string& token) {
  validateToy("toyEmbedding", m);
  return randomNormalVector(m.dModel, m.seed ^ fnv1a(token));
}

AttentionResult toyAttention(const ToyModel& m, const std::vector<std::string>& tokens, PositionEncoding enc) {
  const MatResult r = toyAttentionMat("toyAttention", m, tokens, enc);
  return {toGrid(r.weights), toGrid(r.output)};
}

Grid toyProjection(const ToyModel& m, ToyMatrix which) {
  validateToy("toyProjection", m);
  const char* name = which == ToyMatrix::Query ? "W q" : which == ToyMatrix::Key ? "W k" : "W v";
  return toGrid(projection(m, name));  // drawn as float32, so the Grid holds them exactly
}

ToyConstants toyConstants() { return {kToyAlibiSlope, kToyLearnedStd, kToyLearnedSeedOffset, kToySinusoidalBase}; }

// ---------------------------------------------------------------------------------------------
// [SECTION] permutation check
// ---------------------------------------------------------------------------------------------

PermutationCheck checkPermutation(const ToyModel& m, const std::vector<std::string>& tokens, const std::vector<int>& perm,
                                  PositionEncoding enc) {
  const char* fn = "checkPermutation";
  validateToy(fn, m);
  requireEncoding(fn, enc);
  const int t = validateTokens(fn, tokens);
  if (perm.size() != tokens.size())
    failArgument(fn, "perm must have one entry per token (" + std::to_string(t) + "), got " + std::to_string(perm.size()));
  std::vector<char> seen(static_cast<std::size_t>(t), 0);
  for (std::size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= t)
      failArgument(fn, "perm[" + std::to_string(i) + "] must be in [0, " + std::to_string(t - 1) + "], got " + std::to_string(perm[i]));
    if (seen[perm[i]]) failArgument(fn, "perm must be a permutation of 0.." + std::to_string(t - 1) + ": " + std::to_string(perm[i]) + " appears twice");
    seen[perm[i]] = 1;
  }
  std::vector<std::string> shuffled(tokens.size());
  for (std::size_t i = 0; i < perm.size(); ++i) shuffled[i] = tokens[perm[i]];

  const MatResult original = toyAttentionMat(fn, m, tokens, enc);
  const MatResult permuted = toyAttentionMat(fn, m, shuffled, enc);
  PermutationCheck c;
  c.perm = perm;
  // Row i of P Attn(X) is row perm[i] of Attn(X).
  for (int i = 0; i < t; ++i)
    for (int col = 0; col < m.dModel; ++col)
      c.maxDifference = std::max(c.maxDifference, std::fabs(permuted.output.at(i, col) - original.output.at(perm[i], col)));
  c.equivariant = c.maxDifference <= kEquivariantTolerance;
  return c;
}

std::vector<std::string> splitTokens(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : text) {
    if (std::isspace(static_cast<unsigned char>(ch))) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

}  // namespace posviz
