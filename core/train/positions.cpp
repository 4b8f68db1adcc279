#include "core/train/positions.hpp"

#include <cmath>
#include <cstddef>
#include <string>

#include "core/alibi.hpp"
#include "core/check.hpp"
#include "core/sinusoidal.hpp"
#include "core/xpos.hpp"

namespace posviz::train {

namespace {

std::size_t cell(int row, int cols, int col) { return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col); }

template <class T>
void fillRotation(const ModelConfig& c, const RopeScaling& scaling, PositionTables<T>& t) {
  const bool xpos = c.position.scheme == PositionScheme::Xpos;
  const RopeParams rp = ropeParamsOf(c, xpos ? RopeScaling{} : scaling);
  const RopeFrequencies f = ropeFrequencies(rp);
  t.numPairs = ropeNumPairs(rp);
  for (int i = 0; i < t.numPairs; ++i) {
    const DimPair d = ropePairDims(rp, i);
    t.pairA.push_back(d.a);
    t.pairB.push_back(d.b);
  }
  const std::size_t n = static_cast<std::size_t>(t.length) * static_cast<std::size_t>(t.numPairs);
  t.cosQ.resize(n);
  t.sinQ.resize(n);
  t.cosK.resize(n);
  t.sinK.resize(n);
  const XposParams xp{c.headDim(), c.position.ropeBase, c.position.xposScaleBase};
  for (int p = 0; p < t.length; ++p) {
    for (int i = 0; i < t.numPairs; ++i) {
      const double angle = static_cast<double>(p) * f.invFreq[static_cast<std::size_t>(i)];
      const double qs = xpos ? xposQueryScale(xp, i, p) : f.attentionFactor;
      const double ks = xpos ? xposKeyScale(xp, i, p) : f.attentionFactor;
      const std::size_t k = cell(p, t.numPairs, i);
      t.cosQ[k] = static_cast<T>(std::cos(angle) * qs);
      t.sinQ[k] = static_cast<T>(std::sin(angle) * qs);
      t.cosK[k] = static_cast<T>(std::cos(angle) * ks);
      t.sinK[k] = static_cast<T>(std::sin(angle) * ks);
    }
  }
}

template <class T>
void fillAdded(const ModelConfig& c, PositionTables<T>& t) {
  SinusoidalParams sp;
  sp.dModel = c.dModel;
  sp.base = c.position.sinusoidalBase;
  const SinusoidalTable table = sinusoidalTable(sp);
  t.added.resize(static_cast<std::size_t>(t.length) * static_cast<std::size_t>(c.dModel));
  for (int p = 0; p < t.length; ++p) {
    const std::vector<double> v = sinusoidalVector(table, static_cast<double>(p));
    for (int d = 0; d < c.dModel; ++d) t.added[cell(p, c.dModel, d)] = static_cast<T>(v[static_cast<std::size_t>(d)]);
  }
}

template <class T>
void fillPairwise(const ModelConfig& c, PositionTables<T>& t) {
  const int n = t.length;
  const std::size_t square = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  switch (c.position.scheme) {
    case PositionScheme::Alibi: {
      const std::vector<double> slopes = alibiSlopes(c.numHeads);
      t.alibi.assign(static_cast<std::size_t>(c.numHeads) * square, T(0));
      for (int h = 0; h < c.numHeads; ++h)
        for (int i = 0; i < n; ++i)
          for (int j = 0; j <= i; ++j)
            t.alibi[static_cast<std::size_t>(h) * square + cell(i, n, j)] = static_cast<T>(alibiBias(slopes[static_cast<std::size_t>(h)], i, j, true));
      break;
    }
    case PositionScheme::T5: {
      std::vector<int> byOffset(static_cast<std::size_t>(n));  // bucket of j - i = -offset
      for (int r = 0; r < n; ++r) byOffset[static_cast<std::size_t>(r)] = t5RelativePositionBucket(c.position.t5, -r);
      t.bucket.assign(square, -1);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) t.bucket[cell(i, n, j)] = byOffset[static_cast<std::size_t>(i - j)];
      break;
    }
    case PositionScheme::Fire:
      t.fireInput.assign(square, T(0));
      for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) t.fireInput[cell(i, n, j)] = static_cast<T>(fireInput(c.position.fire, i, j));
      break;
    default: break;
  }
}

}  // namespace

template <class T>
PositionTables<T> positionTables(const ModelConfig& c, int length, const RopeScaling& scaling) {
  static constexpr const char* kFn = "positionTables";
  validateModelConfig(kFn, c);
  if (length < 1 || length > 65536) failArgument(kFn, "length must be in [1, 65536], got " + std::to_string(length));
  PositionTables<T> t;
  t.length = length;
  if (schemeRotates(c.position)) fillRotation(c, scaling, t);
  if (c.position.scheme == PositionScheme::Sinusoidal) fillAdded(c, t);
  fillPairwise(c, t);
  return t;
}

template PositionTables<float> positionTables<float>(const ModelConfig&, int, const RopeScaling&);
template PositionTables<double> positionTables<double>(const ModelConfig&, int, const RopeScaling&);

}  // namespace posviz::train
