// model_command.hpp: `posviz model --config FILE | --preset NAME [--json]`, a model's positional
// scheme layer by layer: each kind of layer with its indices, RoPE (rotary dims, base, layout,
// scaling, attention factor on cos/sin), NoPE, ALiBi or learned, its sliding window, and the
// position-dependent factors the model applies beside the encoding.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/model_config.hpp"

namespace posviz::cli {

// args: the arguments after "model". Returns the exit code (0 ok, 2 usage or config error).
int runModelCommand(const std::vector<std::string>& args);

std::string layerRangesText(const std::vector<int>& layers);  // {0,1,2,5} -> "0-2, 5"
std::string layerKindText(const LayerKind& k);
// "llama3 x8 from 8192", "linear x8" (no trained length: linear and static NTK do not read one), "no scaling".
std::string scalingText(const RopeScaling& s);            // "RoPE, rotary dims 64 of head_dim 128, ..."
// Learned / sinusoidal table rows, width and offset, or T5's buckets; "" for other schemes.
std::string tableText(const ModelConfig& m);
// What multi-head latent attention rotates and what it does not; "" for other attention.
std::string mlaText(const ModelConfig& m);
// "M-RoPE position ids: get_rope_index's seconds rule, spatial merge 2, ..." ("" without M-RoPE).
std::string mropeIndexText(const ModelConfig& m);
// Pixtral's 2-D RoPE over its patch grid ("" for other models).
std::string rope2dText(const ModelConfig& m);
void printModel(std::ostream& out, const ModelConfig& m);  // the text report
nlohmann::json modelJson(const ModelConfig& m);            // the --json report

}  // namespace posviz::cli
