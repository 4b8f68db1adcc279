// limits.hpp: the size limits a flag and the matching model-config field both obey, in one place.
// A config.json is input like a flag: `"head_dim": 2147483646` is refused as `--head-dim
// 2147483646` is, with a message naming the field and the range, before anything is allocated.
#pragma once

#include <cstddef>

namespace posviz::cli {

inline constexpr long long kMaxWidth = 1 << 20;    // --d-model; hidden_size, n_embd, d_model, dim
inline constexpr long long kMaxHeadDim = 1 << 20;  // --head-dim; head_dim, qk_rope_head_dim, kv_channels, rotary_dim
inline constexpr long long kMaxHeads = 65536;      // --heads; num_attention_heads, n_head, n_heads
inline constexpr long long kMaxLayers = 65536;     // num_hidden_layers, n_layer, n_layers (published models: < 200)
inline constexpr double kMaxBase = 1e300;          // --base; rope_theta, rotary_emb_base
inline constexpr double kMaxFactor = 1e300;        // --factor; rope_scaling.factor

// Flags that multiply work or size without a size of their own.
inline constexpr std::size_t kMaxCaptionBytes = 300;  // --caption: one line above the picture
inline constexpr std::size_t kMaxMultiples = 32;      // --multiples: lengths in an extrapolation sweep

}  // namespace posviz::cli
