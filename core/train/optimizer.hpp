// optimizer.hpp: AdamW with linear warmup, a cosine schedule and global gradient-norm clipping.
//
// SCHEDULE (step s = 0, 1, ... the update being made, S = the run's total steps, W = warmup)
//   s < W:  lr * (s + 1) / W
//   else:   minLr + (lr - minLr) * (1 + cos(pi * min(1, (s - W) / max(1, S - W)))) / 2,
//           minLr = lr * minLearningRateRatio
// CLIPPING (PyTorch's clip_grad_norm_)
//   norm = sqrt(sum of every gradient entry squared), summed in float64 in parameter order; when
//   clipNorm > 0 the gradient is multiplied by min(1, clipNorm / (norm + 1e-6)).
// UPDATE (PyTorch's AdamW, t = s + 1)
//   p -= lr * weightDecay * p            (tensors with TensorInfo::decay only)
//   m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2
//   p -= lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps)
#pragma once

#include <span>
#include <vector>

#include "core/train/model.hpp"

namespace posviz::train {

struct OptimConfig {
  double learningRate = 3e-3;
  double minLearningRateRatio = 0.1;
  int warmupSteps = 50;
  double beta1 = 0.9;
  double beta2 = 0.98;
  double eps = 1e-8;
  double weightDecay = 0.01;
  double clipNorm = 1.0;  // 0: no clipping
};

void validateOptimConfig(const char* fn, const OptimConfig& o);
double learningRateAt(const OptimConfig& o, long long step, long long totalSteps);

template <class T>
class AdamW {
 public:
  explicit AdamW(std::size_t numParams = 0) : m_(numParams, T(0)), v_(numParams, T(0)) {}
  // One update at schedule step `step` of `totalSteps`; clips grad in place and returns its norm
  // before clipping. grad and params have the tensors' total size.
  double update(const OptimConfig& o, long long step, long long totalSteps, const std::vector<TensorInfo>& tensors,
                std::span<T> params, std::span<T> grad);
  const std::vector<T>& firstMoment() const { return m_; }
  const std::vector<T>& secondMoment() const { return v_; }
  // Moments saved earlier (weights.hpp): a resumed run continues exactly. Throws
  // std::invalid_argument unless both hold one value per parameter.
  void setMoments(std::vector<T> m, std::vector<T> v);

 private:
  std::vector<T> m_, v_;
};

extern template class AdamW<float>;
extern template class AdamW<double>;

}  // namespace posviz::train
