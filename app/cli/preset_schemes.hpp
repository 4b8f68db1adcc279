// preset_schemes.hpp: which comparison scheme (core/comparison.hpp) each shipped preset uses,
// read from its config (model_config.hpp), for the Compare table's "Used by" row.
//
// MAPPING (per layer kind; a model lists each scheme once)
//   LayerScheme Rope -> rope, NoPE -> nope, Alibi -> alibi, Learned -> learned, None -> nothing
//   (linear attention sees no positions through a scheme); ModelEncoding Sinusoidal -> sinusoidal.
#pragma once

#include <vector>

#include "core/comparison.hpp"

namespace posviz::cli {

struct ModelConfig;

// The schemes one model config uses, in order of first layer.
ModelSchemes modelSchemes(const ModelConfig& m);
// Every preset of presetNames(), parsed from the embedded files (throws ConfigError if one does
// not parse, which the preset tests rule out).
std::vector<ModelSchemes> presetSchemes();

}  // namespace posviz::cli
