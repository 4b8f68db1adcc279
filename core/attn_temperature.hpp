// attn_temperature.hpp: Llama 4's attention temperature on its NoPE layers (iRoPE).
//
// WHAT
//   Llama 4 interleaves RoPE layers (chunked attention) with NoPE layers (every
//   no_rope_layer_interval-th layer, global attention, no positional signal). With
//   attn_temperature_tuning on, a NoPE layer multiplies its queries by a factor that grows with
//   the position, so attention over very long contexts does not flatten.
// FORMULA (HF transformers, models/llama4/modeling_llama4.py, Llama4TextAttention.forward)
//   scale(pos) = log(floor((pos + 1) / floor_scale) + 1) * attn_scale + 1
//   with pos the token's cache position (0-based), natural log; defaults floor_scale = 8192,
//   attn_scale = 0.1 (configuration_llama4.py). The factor is 1 for pos < floor_scale - 1 and
//   steps up at every multiple of floor_scale.
// ERRORS
//   std::invalid_argument naming function, parameter and value: pos < 0, floorScale or attnScale
//   not positive and finite, numPositions < 1 or over the memory budget.
#pragma once

#include <vector>

namespace posviz {

struct AttnTemperatureParams {
  double floorScale = 8192.0;  // floor_scale
  double attnScale = 0.1;      // attn_scale
};

double llama4AttnScale(const AttnTemperatureParams& p, long long pos);

// scale(firstPos) .. scale(firstPos + numPositions - 1).
std::vector<double> llama4AttnScales(const AttnTemperatureParams& p, long long firstPos, long long numPositions);

}  // namespace posviz
