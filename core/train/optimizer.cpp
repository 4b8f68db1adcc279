#include "core/train/optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>

#include "core/check.hpp"

namespace posviz::train {

void validateOptimConfig(const char* fn, const OptimConfig& o) {
  requirePositive(fn, "learningRate", o.learningRate);
  requireInRange(fn, "minLearningRateRatio", o.minLearningRateRatio, 0.0, 1.0);
  if (o.warmupSteps < 0) failArgument(fn, "warmupSteps must be >= 0, got " + std::to_string(o.warmupSteps));
  requireInRange(fn, "beta1", o.beta1, 0.0, 0.999999);
  requireInRange(fn, "beta2", o.beta2, 0.0, 0.999999);
  requirePositive(fn, "eps", o.eps);
  requireAtLeast(fn, "weightDecay", o.weightDecay, 0.0);
  requireAtLeast(fn, "clipNorm", o.clipNorm, 0.0);
}

double learningRateAt(const OptimConfig& o, long long step, long long totalSteps) {
  if (step < o.warmupSteps) return o.learningRate * static_cast<double>(step + 1) / static_cast<double>(o.warmupSteps);
  const double minLr = o.learningRate * o.minLearningRateRatio;
  const double span = static_cast<double>(std::max(1LL, totalSteps - o.warmupSteps));
  const double progress = std::min(1.0, static_cast<double>(step - o.warmupSteps) / span);
  return minLr + (o.learningRate - minLr) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
}

template <class T>
double AdamW<T>::update(const OptimConfig& o, long long step, long long totalSteps, const std::vector<TensorInfo>& tensors,
                        std::span<T> params, std::span<T> grad) {
  static constexpr const char* kFn = "AdamW::update";
  if (params.size() != m_.size() || grad.size() != m_.size())
    failArgument(kFn, "params and grad must hold " + std::to_string(m_.size()) + " values");
  double sumSq = 0.0;
  for (T g : grad) sumSq += static_cast<double>(g) * static_cast<double>(g);
  const double norm = std::sqrt(sumSq);
  if (o.clipNorm > 0.0 && norm > o.clipNorm) {
    const auto coef = static_cast<T>(o.clipNorm / (norm + 1e-6));
    for (T& g : grad) g *= coef;
  }
  const double lr = learningRateAt(o, step, totalSteps);
  const double t = static_cast<double>(step + 1);
  const auto c1 = static_cast<T>(1.0 / (1.0 - std::pow(o.beta1, t)));
  const auto c2 = static_cast<T>(1.0 / (1.0 - std::pow(o.beta2, t)));
  const auto b1 = static_cast<T>(o.beta1), b2 = static_cast<T>(o.beta2), eps = static_cast<T>(o.eps);
  const auto lrT = static_cast<T>(lr), decay = static_cast<T>(1.0 - lr * o.weightDecay);
  for (const TensorInfo& ti : tensors) {
    for (std::size_t i = ti.offset; i < ti.offset + ti.size; ++i) {
      if (ti.decay) params[i] *= decay;
      m_[i] = b1 * m_[i] + (T(1) - b1) * grad[i];
      v_[i] = b2 * v_[i] + (T(1) - b2) * grad[i] * grad[i];
      params[i] -= lrT * (m_[i] * c1) / (std::sqrt(v_[i] * c2) + eps);
    }
  }
  return norm;
}

template <class T>
void AdamW<T>::setMoments(std::vector<T> m, std::vector<T> v) {
  if (m.size() != m_.size() || v.size() != v_.size())
    failArgument("AdamW::setMoments", "the moments must hold " + std::to_string(m_.size()) + " values each");
  m_ = std::move(m);
  v_ = std::move(v);
}

template class AdamW<float>;
template class AdamW<double>;

}  // namespace posviz::train
