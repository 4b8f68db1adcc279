// rope.hpp: the parameter table of RoPE, its context extension and Llama 4's attention temperature (app/cli/params.hpp says what a Param is;
// app/cli/scheme_params.hpp lists the tables).
#pragma once

#include <limits>

#include "app/cli/limits.hpp"
#include "app/cli/params.hpp"
#include "app/cli/params/picture.hpp"
#include "app/cli/params/alibi.hpp"
#include "app/cli/params/toy.hpp"
#include "core/attention.hpp"
#include "core/attn_temperature.hpp"
#include "core/axial_rope.hpp"
#include "core/context_extension.hpp"
#include "core/extrapolation.hpp"
#include "core/rope.hpp"

// Each Param names only the fields it sets; the rest keep Param's defaults. GCC's
// -Wmissing-field-initializers reports every skipped field of a designated initializer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace posviz::cli::params {

// A Param of this table as another struct or tab holds it: the same flag, label, help and range,
// with what `edit` changes (a scheme's own default, the bounds its core accepts).
template <class Edit>
Param derivedParam(Param p, Edit edit) {
  edit(p);
  return p;
}

// The same Param saved under another settings key: a tab that holds it twice (the Image tab's
// two head dims), or whose settings files have long named it differently.
inline Param storedAs(Param p, std::string_view key) {
  p.key = key;
  return p;
}

namespace rope {  // RopeParams (core/rope.hpp)
inline const Param& kPixel = picture::kPixel;   // a --size picture's pixels (params/picture.hpp)
inline const Param kHeadDim{.key = "head_dim", .flag = "--head-dim", .label = "head_dim", .kind = ParamKind::EvenInt,
                            .min = 2, .max = static_cast<double>(kMaxHeadDim), .def = static_cast<double>(RopeParams{}.headDim),
                            .sliderMin = 2, .sliderMax = 256, .log = true,
                            .help = "dims of one attention head, rotated as head_dim/2 pairs"};
inline const Param kBase{.key = "base", .flag = "--base", .label = "base", .kind = ParamKind::Real, .min = 1,
                         .max = kMaxBase, .def = RopeParams{}.base, .sliderMin = 2, .sliderMax = 1e7, .log = true,
                         .minExclusive = true, .format = "%.0f",
                         .help = "RoPE base (rope_theta): pair i turns by theta_i = base^(-2i/head_dim) per position"};
inline const Param kLayout{.key = "layout", .flag = "--layout", .label = "pairing", .kind = ParamKind::Choice, .min = 0,
                           .max = 1, .def = static_cast<double>(RopeParams{}.layout),
                           .help = "which dims form a pair: half-split (i, i + d/2; HF Llama) or interleaved (2i, 2i+1; the paper)",
                           .choices = {"half-split", "interleaved"}};
inline const Param kRotaryFraction{.key = "rotary_fraction", .flag = "--rotary-fraction", .label = "rotary fraction",
                                   .kind = ParamKind::Real, .min = 0, .max = 1, .def = RopeParams{}.rotaryFraction,
                                   .minExclusive = true, .format = "%.3f",
                                   .help = "share of head_dim that rotates (partial_rotary_factor); the rest passes unchanged"};
inline const Param kPositions{.key = "positions", .flag = "--positions", .label = "positions T", .kind = ParamKind::Int,
                              .min = 1, .max = kIntMax, .def = 256, .sliderMin = 2, .sliderMax = 1 << 20, .log = true,
                              .unit = "positions",
                              .help = "positions 0 .. T-1: both axes of s(m, n), the rows of the angle grids, the distances of the decay bound"};
// The RoPE tab's two positions (the window's own; rope-rotate takes --position and --key-position).
inline const Param kQueryPosition{.key = "m", .flag = "", .label = "m (query pos)", .kind = ParamKind::Int, .min = 0,
                                  .max = kIntMax, .def = 12, .help = "query position m: q is rotated by m * theta_i"};
inline const Param kKeyPosition{.key = "n", .flag = "", .label = "n (key pos)", .kind = ParamKind::Int, .min = 0,
                                .max = kIntMax, .def = 4, .help = "key position n: k is rotated by n * theta_i"};
// q and k: drawn from a seed (the RoPE tab's slider spans 0..999; the CLI takes any --seed), or typed.
inline const Param kSeed{.key = "seed", .flag = "--seed", .label = "seed", .kind = ParamKind::Int, .min = 0, .max = 999,
                         .def = 1, .help = "q: head_dim random normal numbers from the seed; k: from the seed + 1"};
inline const Param kQ{.key = "q", .flag = "--q", .label = "q", .kind = ParamKind::Text,
                      .help = "the query vector, head_dim numbers separated by commas"};
inline const Param kK{.key = "k", .flag = "--k", .label = "k", .kind = ParamKind::Text,
                      .help = "the key vector, head_dim numbers separated by commas"};
}  // namespace rope

namespace scaling {  // RopeScaling (core/context_extension.hpp)
inline const Param kFactor{.key = "factor", .flag = "--factor", .label = "factor s", .kind = ParamKind::Real, .min = 1,
                           .max = kMaxFactor, .def = RopeScaling{}.factor, .sliderMin = 1, .sliderMax = 64, .log = true,
                           .format = "%.2f", .help = "scaling factor s: target length / trained length L0"};
inline const Param kOriginalMax{.key = "original_max_positions", .flag = "--original-max-positions",
                                .label = "trained length L0", .kind = ParamKind::Int, .min = 1, .max = kIntMax,
                                .def = static_cast<double>(RopeScaling{}.originalMaxPositions), .sliderMin = 64, .sliderMax = 1 << 20,
                                .log = true, .unit = "positions", .help = "L0: the context length the model was trained on"};
inline const Param kBetaFast{.key = "beta_fast", .flag = "--beta-fast", .label = "beta_fast", .kind = ParamKind::Real,
                             .min = 0, .max = 1e300, .def = RopeScaling{}.betaFast, .sliderMin = 0.5, .sliderMax = 256,
                             .log = true, .minExclusive = true, .format = "%.2f", .unit = "rotations",
                             .help = "YaRN: pairs turning more than beta_fast times over L0 keep their frequency"};
inline const Param kBetaSlow{.key = "beta_slow", .flag = "--beta-slow", .label = "beta_slow", .kind = ParamKind::Real,
                             .min = 0, .max = 1e300, .def = RopeScaling{}.betaSlow, .sliderMin = 0.05, .sliderMax = 64,
                             .log = true, .minExclusive = true, .format = "%.2f", .unit = "rotations",
                             .help = "YaRN: pairs turning fewer than beta_slow times over L0 are interpolated by s"};
inline const Param kLowFreqFactor{.key = "low_freq_factor", .flag = "--low-freq-factor", .label = "low_freq_factor",
                                  .kind = ParamKind::Real, .min = 0, .max = 1e300, .def = RopeScaling{}.lowFreqFactor,
                                  .sliderMin = 0.1, .sliderMax = 32, .log = true, .minExclusive = true, .format = "%.2f",
                                  .help = "Llama 3: wavelengths above L0 / low_freq_factor are divided by s"};
inline const Param kHighFreqFactor{.key = "high_freq_factor", .flag = "--high-freq-factor", .label = "high_freq_factor",
                                   .kind = ParamKind::Real, .min = 0, .max = 1e300, .def = RopeScaling{}.highFreqFactor,
                                   .sliderMin = 0.1, .sliderMax = 64, .log = true, .minExclusive = true, .format = "%.2f",
                                   .help = "Llama 3: wavelengths below L0 / high_freq_factor are kept"};
inline const Param kMscale{.key = "mscale", .flag = "--mscale", .label = "mscale", .kind = ParamKind::Real, .min = 0,
                           .max = 1e300, .def = RopeScaling{}.mscale, .sliderMin = 0, .sliderMax = 2, .format = "%.3f",
                           .help = "YaRN, DeepSeek's variant: mscale (0 = unset)"};
inline const Param kMscaleAllDim{.key = "mscale_all_dim", .flag = "--mscale-all-dim", .label = "mscale_all_dim",
                                 .kind = ParamKind::Real, .min = 0, .max = 1e300, .def = RopeScaling{}.mscaleAllDim,
                                 .sliderMin = 0, .sliderMax = 2, .format = "%.3f",
                                 .help = "YaRN, DeepSeek's variant: mscale_all_dim (0 = unset)"};
inline const Param kAttentionFactor{.key = "attention_factor", .flag = "--attention-factor", .label = "attention factor",
                                    .kind = ParamKind::Real, .min = 0, .max = 1e6, .def = 1, .sliderMin = 0.1,
                                    .sliderMax = 4, .minExclusive = true, .format = "%.3f",
                                    .help = "YaRN, LongRoPE: the factor q and k are multiplied by, instead of the computed one"};
inline const Param kMethod{.key = "method", .flag = "--scaling", .label = "scaling", .kind = ParamKind::Choice, .min = 0,
                           .max = 6, .def = static_cast<double>(RopeScaling{}.method),
                           .help = "RoPE context extension (rope_scaling's rope_type)",
                           .choices = {"none", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope"}};
inline const Param kShortFactor{.key = "short_factor", .flag = "--short-factor", .label = "short factor",
                                .kind = ParamKind::Text, .help = "LongRoPE: one factor per rotary pair, for sequences up to L0"};
inline const Param kLongFactor{.key = "long_factor", .flag = "--long-factor", .label = "long factor",
                               .kind = ParamKind::Text, .help = "LongRoPE: one factor per rotary pair, for longer sequences"};
inline const Param kNoTruncate{.key = "truncate", .flag = "--no-truncate", .label = "no truncate", .kind = ParamKind::Switch,
                               .help = "YaRN: keep the correction range's ends unrounded (a config's \"truncate\": false)"};
inline const Param kSeqLen{.key = "seq_len", .flag = "--seq-len", .label = "seq len L", .kind = ParamKind::Int, .min = 0,
                           .max = 1e18, .def = static_cast<double>(RopeScaling{}.seqLen), .sliderMin = 1,
                           .sliderMax = 1 << 22, .log = true, .unit = "positions",
                           .help = "dynamic NTK, LongRoPE: the current sequence length L (0 = L0)"};
}  // namespace scaling

namespace axial {  // AxialRopeParams (core/axial_rope.hpp): RoPE's head_dim and base, rope-vit's defaults
inline constexpr int kMaxGridSide = 4096;   // --grid RxC, each side
inline const Param kHeadDim = derivedParam(rope::kHeadDim, [](Param& p) {
  p.min = 4;
  p.max = 65536;
  p.def = AxialRopeParams{}.headDim;
  p.sliderMin = 4;
  p.help = "dims of one attention head, a multiple of 4: half the pairs turn with the patch's column, half with its row";
});
inline const Param kBase = derivedParam(rope::kBase, [](Param& p) {
  p.def = AxialRopeParams{}.base;
  p.help = "RoPE base: the frequencies f_j = base^(-4j/head_dim) of both halves (rope-vit uses 100 for images)";
});
// The Image tab's grid of patches and query patch (the window's own; axial-angles takes --grid RxC).
inline const Param kPatchRows{.key = "rows", .flag = "", .label = "patch rows", .kind = ParamKind::Int, .min = 1,
                              .max = 64, .def = 14, .help = "rows of image patches (rope-vit: a 224-pixel image in 16-pixel patches)"};
inline const Param kPatchCols{.key = "cols", .flag = "", .label = "patch columns", .kind = ParamKind::Int, .min = 1,
                              .max = 64, .def = 14, .help = "columns of image patches"};
inline const Param kQueryRow{.key = "query_row", .flag = "", .label = "query row", .kind = ParamKind::Int, .min = 0,
                             .max = 63, .def = 7, .help = "the query patch's row"};
inline const Param kQueryCol{.key = "query_col", .flag = "", .label = "query column", .kind = ParamKind::Int, .min = 0,
                             .max = 63, .def = 7, .help = "the query patch's column"};
inline const Param kGrid{.key = "grid", .flag = "--grid", .label = "grid", .kind = ParamKind::Text,
                         .help = "the patch grid as rows x columns, such as 14x14"};
inline const Param kScheme{.key = "image_scheme", .flag = "--image-scheme", .label = "2-D scheme", .kind = ParamKind::Choice,
                           .min = 0, .max = 1, .def = 0,
                           .help = "rope-vit (Heo et al.: column pairs first, one frequency set, adjacent dims) or pixtral "
                                   "(row pairs first at base^(-4j/D), column pairs at the odd frequencies, rotate_half dims)",
                           .choices = {"rope-vit", "pixtral"}};
}  // namespace axial

namespace mrope {  // the Image tab's M-RoPE sequence and sections (mrope-angles takes --sequence and --section)
inline const Param kTextBefore{.key = "text_before", .flag = "", .label = "text before", .kind = ParamKind::Int,
                               .min = 0, .max = 32, .def = 4, .help = "text tokens before the image"};
inline const Param kImageRows{.key = "image_rows", .flag = "", .label = "image rows", .kind = ParamKind::Int, .min = 1,
                              .max = 16, .def = 4, .help = "the image's rows of merged patches"};
inline const Param kImageCols{.key = "image_cols", .flag = "", .label = "image columns", .kind = ParamKind::Int,
                              .min = 1, .max = 16, .def = 6, .help = "the image's columns of merged patches"};
inline const Param kTextAfter{.key = "text_after", .flag = "", .label = "text after", .kind = ParamKind::Int, .min = 0,
                              .max = 32, .def = 3, .help = "text tokens after the image"};
inline const Param kSectionT{.key = "section_t", .flag = "", .label = "pairs on t", .kind = ParamKind::Int, .min = 0,
                             .max = static_cast<double>(kMaxHeadDim / 2), .def = 16,
                             .help = "mrope_section t: the first pairs, turned by the time id (Qwen2-VL: 16)"};
inline const Param kSectionH{.key = "section_h", .flag = "", .label = "pairs on h", .kind = ParamKind::Int, .min = 0,
                             .max = static_cast<double>(kMaxHeadDim / 2), .def = 24,
                             .help = "mrope_section h: the next pairs, turned by the row id (Qwen2-VL: 24); the rest follow the column id"};
// How each family's get_rope_index gives a vision segment its time ids (core/mrope.hpp).
inline const Param kIndexRule{.key = "index_rule", .flag = "--index-rule", .label = "position-id rule", .kind = ParamKind::Choice,
                              .min = 0, .max = 2, .def = 0,
                              .help = "get_rope_index's time ids: steps (Qwen2-VL: +1 per grid), seconds (Qwen2.5-VL: "
                                      "second_per_grid x tokens_per_second), frames (Qwen3-VL, GLM-4V: one timestamped "
                                      "frame per grid); default: the model's",
                              .choices = {"steps", "seconds", "frames"}};
inline const Param kSpatialMerge{.key = "spatial_merge", .flag = "--spatial-merge", .label = "spatial merge", .kind = ParamKind::Int,
                                 .min = 1, .max = 16, .def = 1,
                                 .help = "vision_config.spatial_merge_size: grids are raw patches, the model sees H/m x W/m "
                                         "(1: grids already merged; default: the model's)"};
inline const Param kTokensPerSecond{.key = "tokens_per_second", .flag = "--tokens-per-second", .label = "tokens per second",
                                    .kind = ParamKind::Real, .min = 0, .max = 1000, .def = 2, .format = "%.3g",
                                    .help = "seconds rule: vision_config.tokens_per_second, time ids per second of video "
                                            "(Qwen2.5-VL's published configs: 2; default: the model's)"};
inline const Param kTimestampTokens{.key = "timestamp_tokens", .flag = "--timestamp-tokens", .label = "timestamp tokens",
                                    .kind = ParamKind::Int, .min = 0, .max = 64, .def = 6,
                                    .help = "frames rule: text tokens of one \"<x.x seconds>\" before each frame (6 for "
                                            "\"<0.5 seconds>\" in Qwen's tokenizer, which splits digits)"};
inline const Param kVideoFrames{.key = "video_frames", .flag = "", .label = "video grids", .kind = ParamKind::Int, .min = 0,
                                .max = 8, .def = 0, .help = "temporal grids of a video after the image (0: no video)"};
inline const Param kSecondsPerGrid{.key = "seconds_per_grid", .flag = "", .label = "seconds per grid", .kind = ParamKind::Real,
                                   .min = 0, .max = 16, .def = 1, .format = "%.2g",
                                   .help = "second_per_grid_ts: temporal_patch_size / fps (2 frames at 2 fps: 1.0)"};
// The M-RoPE head dim is rope::kHeadDim, saved beside the axial one under its own key.
inline const Param kHeadDim = storedAs(rope::kHeadDim, "mrope_head_dim");
}  // namespace mrope

namespace extrapolation {  // ExtrapolationSetup (core/extrapolation.hpp): the lab's toy model and L0
inline const Param kTrainedLength = derivedParam(scaling::kOriginalMax, [](Param& p) {
  p.key = "trained_length";
  p.min = 2;
  p.max = kMaxExtrapolationLength;
  p.def = ExtrapolationSetup{}.trainedLength;
  p.sliderMin = 16;
  p.sliderMax = 16384;
  p.help = "L0: the length the toy model was trained at (positions 0..L0-1, distances 0..L0-1)";
});
inline const Param kHeadDim = derivedParam(rope::kHeadDim, [](Param& p) {
  p.max = kMaxToyDim;
  p.def = ExtrapolationSetup{}.model.dModel;
  p.help = "the toy model's d_model: its one head's width; RoPE rotates head_dim/2 pairs";
});
// The lab's ALiBi run and toy model, saved under the tab's own keys.
inline const Param kSlope = derivedParam(alibi::kSlope, [](Param& p) {
  p.key = "alibi_slope";
  p.label = "ALiBi slope m";   // beside RoPE's parameters, the lab names the scheme
});
inline const Param kSeed = derivedParam(toy::kSeed, [](Param& p) {
  p.key = "seed";
  p.flag = "--seed";
});
inline const Param kLength = derivedParam(rope::kPositions, [](Param& p) {
  p.key = "length";
  p.max = kMaxExtrapolationLength;
  p.def = 4 * ExtrapolationSetup{}.trainedLength;
  p.help = "L: the toy sentence tiled to L tokens, the last one the query";
});
inline const Param kText{.key = "sentence", .flag = "--text", .label = "sentence", .kind = ParamKind::Text,
                         .help = "the toy sentence, split on whitespace and tiled to the length"};
}  // namespace extrapolation

namespace temperature {  // AttnTemperatureParams (core/attn_temperature.hpp)
inline const Param kFloorScale{.key = "floor_scale", .flag = "--floor-scale", .label = "floor_scale",
                               .kind = ParamKind::Real, .min = 0, .max = 1e15, .def = AttnTemperatureParams{}.floorScale,
                               .minExclusive = true, .format = "%.0f", .unit = "positions",
                               .help = "Llama 4's floor_scale: the temperature steps up every floor_scale positions"};
inline const Param kAttnScale{.key = "attn_scale", .flag = "--attn-scale", .label = "attn_scale",
                              .kind = ParamKind::Real, .min = 0, .max = 1e6, .def = AttnTemperatureParams{}.attnScale,
                              .minExclusive = true, .format = "%.3f",
                              .help = "Llama 4's attn_scale: how much each step of log(floor(pos / floor_scale) + 1) adds"};
}  // namespace temperature

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
