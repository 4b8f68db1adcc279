#include "app/cli/lab_model.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/alibi.hpp"
#include "core/attention.hpp"
#include "core/context_extension.hpp"

namespace posviz::cli {

namespace {

constexpr long long kMaxIntValue = std::numeric_limits<int>::max();

ExtrapolationEncoding ropeRun(ScalingMethod m) {
  switch (m) {
    case ScalingMethod::Linear: return ExtrapolationEncoding::RopeLinear;
    case ScalingMethod::NtkAware: return ExtrapolationEncoding::RopeNtk;
    case ScalingMethod::Yarn: return ExtrapolationEncoding::RopeYarn;
    case ScalingMethod::Llama3: return ExtrapolationEncoding::RopeLlama3;
    default: return ExtrapolationEncoding::Rope;
  }
}

}  // namespace

LabModel labModelOf(const ModelConfig& m) {
  LabModel lab;
  if (m.encoding == ModelEncoding::Rope) {
    const ScalingMethod method = m.rope.scaling.method;
    if (method == ScalingMethod::DynamicNtk || method == ScalingMethod::LongRope)
      throw std::invalid_argument(std::string("the model scales RoPE with ") + scalingName(method) +
                                  ", which the lab does not run (none|linear|ntk|yarn|llama3)");
    lab.rope = m.rope;
    lab.rope.scaling.originalMaxPositions = method == ScalingMethod::None
                                                ? static_cast<int>(std::min<long long>(m.maxPositions, kMaxIntValue))
                                                : m.rope.scaling.originalMaxPositions;
    lab.encoding = ropeRun(method);
    lab.factorGiven = method != ScalingMethod::None;
    lab.trainedLength = lab.rope.scaling.originalMaxPositions;
    lab.headDim = m.rope.headDim;
    return lab;
  }
  if (m.encoding == ModelEncoding::Alibi && m.numHeads >= 1) {
    lab.encoding = ExtrapolationEncoding::Alibi;
    lab.alibiSlope = alibiSlopes(m.numHeads).front();
    return lab;
  }
  if (m.encoding == ModelEncoding::Learned && m.maxPositions >= 2) {
    lab.encoding = ExtrapolationEncoding::Learned;
    lab.trainedLength = static_cast<int>(std::min<long long>(m.maxPositions, kMaxExtrapolationLength));
    lab.headDim = std::clamp(m.hiddenSize - m.hiddenSize % 2, 2, kMaxToyDim);
    return lab;
  }
  throw std::invalid_argument("expected a RoPE, ALiBi or learned-position model");
}

}  // namespace posviz::cli
