#include "core/pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include "core/check.hpp"
#include "core/learned.hpp"
#include "core/random.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

namespace posviz {

const char* pipelineStageName(PipelineStage s) {
  switch (s) {
    case PipelineStage::Tokens: return "tokens";
    case PipelineStage::Embedding: return "embedding";
    case PipelineStage::AddPE: return "+PE";
    case PipelineStage::Blocks: return "blocks";
    case PipelineStage::Query: return "Q";
    case PipelineStage::Key: return "K";
    case PipelineStage::Value: return "V";
    case PipelineStage::Scores: return "scores";
    case PipelineStage::Softmax: return "softmax";
    case PipelineStage::Output: return "output";
  }
  return "unknown";
}

const std::vector<PipelineStage>& pipelineStages() {
  static const std::vector<PipelineStage> kStages = {PipelineStage::Tokens, PipelineStage::Embedding, PipelineStage::AddPE,
                                                     PipelineStage::Blocks, PipelineStage::Query,     PipelineStage::Key,
                                                     PipelineStage::Value,  PipelineStage::Scores,    PipelineStage::Softmax,
                                                     PipelineStage::Output};
  return kStages;
}

std::vector<PipelineStage> stagesWhereApplied(PositionEncoding e, bool rotateValues) {
  switch (e) {
    case PositionEncoding::Sinusoidal:
    case PositionEncoding::Learned: return {PipelineStage::AddPE};
    case PositionEncoding::Rope:
      if (rotateValues) return {PipelineStage::Query, PipelineStage::Key, PipelineStage::Value};
      return {PipelineStage::Query, PipelineStage::Key};
    case PositionEncoding::Alibi: return {PipelineStage::Scores};
    case PositionEncoding::None: return {};
  }
  return {};
}

namespace {

constexpr long long kMaxPos = 4096;  // the learned table holds pos + 1 rows

// The toy model's learned table has std 1 (attention.hpp, ENCODINGS).
constexpr double kToyLearnedStd = 1.0;

std::vector<double> positionVector(const ToyModel& m, long long pos, PositionEncoding enc) {
  if (enc == PositionEncoding::Sinusoidal) {
    const SinusoidalParams sp{m.dModel, 10000.0, SinusoidalLayout::Interleaved, 1.0};
    return sinusoidalVector(sp, static_cast<double>(pos));
  }
  const Grid table = learnedInit(static_cast<int>(pos + 1), m.dModel, m.seed + 1, kToyLearnedStd);
  const std::vector<float> row = learnedLookup(table, pos);
  return std::vector<double>(row.begin(), row.end());
}

}  // namespace

AddVsConcat addVsConcat(const ToyModel& m, const std::string& token, long long pos, PositionEncoding enc) {
  const char* fn = "addVsConcat";
  if (enc != PositionEncoding::Sinusoidal && enc != PositionEncoding::Learned)
    failArgument(fn, std::string("enc must be sinusoidal or learned (the encodings that are added), got ") + positionEncodingName(enc));
  if (pos < 0 || pos > kMaxPos) failArgument(fn, "pos must be in [0, " + std::to_string(kMaxPos) + "], got " + std::to_string(pos));
  const std::vector<float> x = toyEmbedding(m, token);
  const std::vector<double> p = positionVector(m, pos, enc);
  AddVsConcat r;
  r.addedDim = m.dModel;
  r.concatDim = 2 * m.dModel;
  double xx = 0.0, pp = 0.0, zz = 0.0;
  for (int i = 0; i < m.dModel; ++i) {
    xx += static_cast<double>(x[i]) * x[i];
    pp += p[i] * p[i];
    r.crossTerm += x[i] * p[i];
    const double z = x[i] + p[i];
    zz += z * z;
  }
  r.tokenNorm = std::sqrt(xx);
  r.positionNorm = std::sqrt(pp);
  r.addedNorm = std::sqrt(zz);
  double cc = 0.0;  // the concatenated vector's own entries, summed as one vector
  std::vector<double> z(x.begin(), x.end());
  z.insert(z.end(), p.begin(), p.end());
  for (double v : z) cc += v * v;
  r.concatNorm = std::sqrt(cc);
  r.addedGap = std::fabs(zz - (xx + pp + 2.0 * r.crossTerm));
  r.concatGap = std::fabs(cc - (xx + pp));
  return r;
}

namespace {

// x W for one of the toy model's projections (attention.hpp toyProjection), summed in double.
Grid project(const Grid& x, const ToyModel& m, ToyMatrix which) {
  const Grid w = toyProjection(m, which);
  const int d = m.dModel;
  Grid out(x.rows, d);
  for (int t = 0; t < x.rows; ++t)
    for (int j = 0; j < d; ++j) {
      double s = 0.0;
      for (int c = 0; c < d; ++c) s += static_cast<double>(x.at(t, c)) * static_cast<double>(w.at(c, j));
      out.at(t, j) = static_cast<float>(s);
    }
  return out;
}

void rotateRows(Grid& g, int headDim) {
  RopeParams rp;
  rp.headDim = headDim;
  for (int t = 0; t < g.rows; ++t) {
    const std::vector<float> r = ropeRotate(rp, std::span<const float>(g.row(t), static_cast<std::size_t>(g.cols)), t);
    std::copy(r.begin(), r.end(), g.row(t));
  }
}

double maxAbsDelta(const Grid& a, const Grid& b) {
  double d = 0.0;
  for (std::size_t i = 0; i < a.values.size(); ++i) d = std::max(d, std::fabs(static_cast<double>(a.values[i]) - b.values[i]));
  return d;
}

}  // namespace

RotateValuesResult ropeRotateValues(const ToyModel& m, const std::vector<std::string>& tokens) {
  const char* fn = "ropeRotateValues";
  if (tokens.empty()) failArgument(fn, "tokens must not be empty");
  Grid x(static_cast<int>(tokens.size()), m.dModel);
  for (int t = 0; t < x.rows; ++t) {
    const std::vector<float> e = toyEmbedding(m, tokens[static_cast<std::size_t>(t)]);
    std::copy(e.begin(), e.end(), x.row(t));
  }
  Grid q = project(x, m, ToyMatrix::Query);
  Grid k = project(x, m, ToyMatrix::Key);
  Grid v = project(x, m, ToyMatrix::Value);
  rotateRows(q, m.dModel);
  rotateRows(k, m.dModel);
  RotateValuesResult r;
  r.plain = scaledDotProductAttention(q, k, v, Grid{}, m.causal);
  rotateRows(v, m.dModel);
  r.rotated = scaledDotProductAttention(q, k, v, Grid{}, m.causal);
  r.maxWeightDelta = maxAbsDelta(r.plain.weights, r.rotated.weights);
  r.maxOutputDelta = maxAbsDelta(r.plain.output, r.rotated.output);
  return r;
}

}  // namespace posviz
