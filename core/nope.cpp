#include "core/nope.hpp"

#include <algorithm>
#include <cmath>

#include "core/attention.hpp"
#include "core/check.hpp"

namespace posviz {

NopeOrder compareNopeOrder(const ToyModel& m, const std::vector<std::string>& tokens, const std::vector<int>& perm) {
  ToyModel bidir = m;
  bidir.causal = false;
  ToyModel causal = m;
  causal.causal = true;
  return {compareOrder(bidir, tokens, perm, PositionEncoding::None),
          compareOrder(causal, tokens, perm, PositionEncoding::None)};
}

std::vector<std::vector<double>> uniformHeadWeights(int numTokens, bool causal) {
  requirePositiveInt("uniformHeadWeights", "numTokens", numTokens);
  std::vector<std::vector<double>> w(static_cast<std::size_t>(numTokens),
                                     std::vector<double>(static_cast<std::size_t>(numTokens), 0.0));
  for (int t = 0; t < numTokens; ++t) {
    // Every visible score is q . k = 0 (W_q = 0): exp(0) = 1 each, normalised by their count.
    const int visible = causal ? t + 1 : numTokens;
    double sum = 0.0;
    for (int j = 0; j < visible; ++j) sum += std::exp(0.0);
    for (int j = 0; j < visible; ++j) w[static_cast<std::size_t>(t)][static_cast<std::size_t>(j)] = std::exp(0.0) / sum;
  }
  return w;
}

NopeCounting nopeCounting(const ToyModel& m, const std::vector<std::string>& tokens) {
  const char* fn = "nopeCounting";
  if (tokens.empty()) failArgument(fn, "tokens must hold at least one token");
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] == kNopeBosToken)
      failArgument(fn, "tokens[" + std::to_string(i) + "] must not be \"" + std::string(kNopeBosToken) +
                           "\": it is the BOS token put first, and a second one would be counted too");
  NopeCounting c;
  c.tokens.push_back(kNopeBosToken);
  c.tokens.insert(c.tokens.end(), tokens.begin(), tokens.end());
  const int t = static_cast<int>(c.tokens.size());
  const auto causal = uniformHeadWeights(t, true);
  const auto bidir = uniformHeadWeights(t, false);
  ToyModel toy = m;
  toy.causal = true;
  const AttentionResult toyRun = toyAttention(toy, c.tokens, PositionEncoding::None);
  c.toyWeights = toyRun.weights;
  c.weights = Grid(t, t);
  for (int q = 0; q < t; ++q) {
    const std::size_t qs = static_cast<std::size_t>(q);
    for (int j = 0; j < t; ++j) c.weights.at(q, j) = static_cast<float>(causal[qs][static_cast<std::size_t>(j)]);
    // The value reads "is BOS": v_j = 1 for j = 0 only, so the output at q is the weight on BOS.
    c.bosWeight.push_back(causal[qs][0]);
    c.recoveredPosition.push_back(1.0 / causal[qs][0] - 1.0);
    c.bidirectionalBosWeight.push_back(bidir[qs][0]);
    c.bidirectionalRecovered.push_back(1.0 / bidir[qs][0] - 1.0);
    const double tw = static_cast<double>(toyRun.weights.at(q, 0));
    c.toyBosWeight.push_back(tw);
    c.toyRecovered.push_back(1.0 / tw - 1.0);
    c.maxPositionError = std::max(c.maxPositionError, std::fabs(c.recoveredPosition.back() - q));
    c.maxToyPositionError = std::max(c.maxToyPositionError, std::fabs(c.toyRecovered.back() - q));
  }
  return c;
}

}  // namespace posviz
