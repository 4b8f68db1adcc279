// lab_model.hpp: what a model config sets in the extrapolation lab, written once for
// `posviz export extrapolation --config` and the Extrapolation tab.
//
// A RoPE model runs as itself: its head_dim, base and scaling (every parameter of it), with the
// trained length L0 = the scaling's original_max_position_embeddings (max_position_embeddings when
// unscaled). An ALiBi model runs with its steepest head's slope; a learned-position model with its
// table length as L0 and its width as the toy model's. Dynamic NTK and LongRoPE are not run by the
// lab: labModelOf throws std::invalid_argument saying so; so it does for a config of any other
// encoding.
#pragma once

#include "app/cli/model_config.hpp"
#include "core/extrapolation.hpp"
#include "core/rope.hpp"

namespace posviz::cli {

struct LabModel {
  ExtrapolationEncoding encoding = ExtrapolationEncoding::Rope;  // the one run the model is
  RopeParams rope;              // RoPE models: the model's (scaling.originalMaxPositions = L0)
  int trainedLength = 0;        // L0
  int headDim = 0;              // the toy model's width: RoPE head_dim, learned hidden_size (<= 4096)
  double alibiSlope = 0.0;      // ALiBi: the steepest head's slope
  bool factorGiven = false;     // RoPE: the model fixes its scaling factor
};

LabModel labModelOf(const ModelConfig& m);

}  // namespace posviz::cli
