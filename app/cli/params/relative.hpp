// relative.hpp: the parameter table of relative schemes: T5 buckets, xPos, KERPLE, FIRE, Shaw's
// clipped distances and Transformer-XL's terms (app/cli/params.hpp says what a Param is;
// app/cli/scheme_params.hpp lists the tables).
//
// kTab... parameters are the Relative tab's own (no flag): every grid of the tab is T x T, drawn
// at once, so the tab keeps its own T.
#pragma once

#include <limits>

#include "app/cli/limits.hpp"
#include "app/cli/params.hpp"
#include "core/relative_bias.hpp"
#include "core/xpos.hpp"
#include "core/kerple.hpp"
#include "core/fire.hpp"

// Each Param names only the fields it sets; the rest keep Param's defaults. GCC's
// -Wmissing-field-initializers reports every skipped field of a designated initializer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace posviz::cli::params {

namespace relative {  // the grids of t5-buckets, kerple-bias, fire-bias, shaw-scores, txl-terms
inline const Param kPositions{.key = "positions", .flag = "--positions", .label = "positions T", .kind = ParamKind::Int,
                              .min = 1, .max = kIntMax, .def = 16, .sliderMin = 2, .sliderMax = 256, .log = true,
                              .unit = "positions", .help = "query positions i and key positions j = 0 .. T-1"};
inline const Param kTabPositions{.key = "positions", .flag = "", .label = "positions T", .kind = ParamKind::Int,
                                 .min = 2, .max = 256, .def = 48, .log = true, .unit = "positions",
                                 .help = "positions 0 .. T-1 of the tab's grids (an export's --positions takes any T)"};
// Which of the tab's grids File > Export writes: each is the view of that name.
inline const Param kTabExport{.key = "export", .flag = "", .label = "export", .kind = ParamKind::Choice, .min = 0,
                              .max = 6, .def = 0, .help = "the grid File > Export writes, as the view of that name",
                              .choices = {"t5-buckets", "t5-bias-table", "t5-bias", "kerple-bias", "fire-bias",
                                          "alibi-bias", "txl-terms"}};
}  // namespace relative

namespace t5 {  // T5BucketParams (core/relative_bias.hpp)
inline const Param kNumBuckets{.key = "num_buckets", .flag = "--num-buckets", .label = "num_buckets",
                               .kind = ParamKind::Int, .min = 2, .max = 65536, .def = T5BucketParams{}.numBuckets,
                               .sliderMin = 2, .sliderMax = 256,
                               .help = "relative_attention_num_buckets: half for each direction unless causal"};
inline const Param kMaxDistance{.key = "max_distance", .flag = "--max-distance", .label = "max_distance",
                                .kind = ParamKind::Int, .min = 2, .max = kIntMax, .def = T5BucketParams{}.maxDistance,
                                .sliderMin = 2, .sliderMax = 4096, .log = true, .unit = "positions",
                                .help = "relative_attention_max_distance: every longer distance shares the last bucket"};
inline const Param kCausal{.key = "t5_causal", .flag = "--causal", .label = "causal (decoder)", .kind = ParamKind::Switch,
                           .help = "decoder buckets: only the past counts, all buckets on one side, later keys share bucket 0"};
inline const Param kHeads{.key = "heads", .flag = "--heads", .label = "heads", .kind = ParamKind::Int, .min = 1, .max = 128,
                          .def = 8, .sliderMin = 1, .sliderMax = 32,
                          .help = "heads of the bias table: one learned scalar per (bucket, head)"};
inline const Param kHead{.key = "head", .flag = "--head", .label = "head", .kind = ParamKind::Int, .min = 1, .max = 128,
                         .def = 1, .sliderMin = 1, .sliderMax = 32, .help = "one head, numbered from 1"};
inline const Param kSeed{.key = "table_seed", .flag = "--seed", .label = "table seed", .kind = ParamKind::Int, .min = 0,
                         .max = 999, .def = 0, .help = "the seed of the bias table's random numbers (normal, standing in for trained weights)"};
}  // namespace t5

namespace xpos {  // XposParams (core/xpos.hpp)
inline const Param kScaleBase{.key = "scale_base", .flag = "--scale-base", .label = "scale_base", .kind = ParamKind::Real,
                              .min = 0, .max = 1e9, .def = XposParams{}.scaleBase, .sliderMin = 16, .sliderMax = 8192,
                              .log = true, .minExclusive = true, .format = "%.0f",
                              .help = "xPos scale_base (torchscale's 512): how slowly the decay sets in with distance"};
inline const Param kPositions{.key = "positions", .flag = "--positions", .label = "positions", .kind = ParamKind::Int,
                              .min = 1, .max = kIntMax, .def = 1024, .log = true, .unit = "positions",
                              .help = "rows of the scale table: positions n from --position"};
inline const Param kMaxOffset{.key = "max_offset", .flag = "", .label = "max distance", .kind = ParamKind::Int,
                              .min = 16, .max = 16384, .def = 2048, .log = true, .unit = "positions",
                              .help = "distances n - m = 0 .. this on the plot's x axis"};
inline const Param kSide{.key = "xpos_side", .flag = "--side", .label = "side", .kind = ParamKind::Choice, .min = 0, .max = 1,
                         .def = 0,
                         .help = "query: zeta_i^(n/scale_base); key: torchscale's downscale=True, 1 / zeta_i^(n/scale_base)",
                         .choices = {"query", "key"}};
inline const Param kTorchscalePositions{.key = "torchscale_positions", .flag = "--torchscale-positions", .label = "centred positions",
                                        .kind = ParamKind::Switch,
                                        .help = "number the rows as torchscale's XPOS does, from -(positions) // 2, so both "
                                                "factors stay near 1 (q.k is unchanged); replaces --position"};
}  // namespace xpos

namespace kerple {  // KerpleParams (core/kerple.hpp)
inline const Param kKernel{.key = "kerple_kernel", .flag = "--kernel", .label = "kernel", .kind = ParamKind::Choice,
                           .min = 0, .max = 1, .def = static_cast<double>(KerpleParams{}.kernel),
                           .help = "log: -r1 log(1 + r2 |i-j|); power: -r1 |i-j|^r2", .choices = {"log", "power"}};
inline const Param kR1{.key = "kerple_r1", .flag = "--r1", .label = "r1", .kind = ParamKind::Real, .min = 0, .max = 1e6,
                       .def = KerpleParams{}.r1, .sliderMin = 0.01, .sliderMax = 10, .log = true, .minExclusive = true,
                       .format = "%.3f", .help = "KERPLE's scale r1 (learned in the paper)"};
inline const Param kR2{.key = "kerple_r2", .flag = "--r2", .label = "r2", .kind = ParamKind::Real, .min = 0, .max = 1e6,
                       .def = KerpleParams{}.r2, .sliderMin = 0.01, .sliderMax = 10, .log = true, .minExclusive = true,
                       .format = "%.3f", .help = "KERPLE's r2: inside the log, or the power (at most 2 for the power kernel)"};
}  // namespace kerple

namespace fire {  // FireParams (core/fire.hpp)
inline const Param kC{.key = "fire_c", .flag = "--fire-c", .label = "FIRE c", .kind = ParamKind::Real, .min = 0,
                      .max = 1e6, .def = FireParams{}.c, .sliderMin = 0.01, .sliderMax = 100, .log = true,
                      .minExclusive = true, .format = "%.3f", .help = "c in psi(x) = log(c x + 1) (the reference's init_c: 0.1)"};
inline const Param kThreshold{.key = "fire_threshold", .flag = "--fire-threshold", .label = "FIRE L",
                              .kind = ParamKind::Real, .min = 1, .max = 1e9, .def = FireParams{}.threshold,
                              .sliderMin = 1, .sliderMax = 65536, .log = true, .format = "%.1f", .unit = "positions",
                              .help = "L in psi(max(L, i)): queries before L are normalised as if at L (the reference's init_L: 512)"};
inline const Param kHidden{.key = "fire_hidden", .flag = "--fire-hidden", .label = "FIRE hidden", .kind = ParamKind::Int,
                           .min = 1, .max = 4096, .def = kFireHidden, .sliderMin = 1, .sliderMax = 128,
                           .help = "hidden units of the MLP f_theta (the reference's mlp_width: 32)"};
inline const Param kSeed{.key = "fire_seed", .flag = "--seed", .label = "FIRE seed", .kind = ParamKind::Int, .min = 0,
                         .max = 999, .def = 0, .help = "the seed of f_theta's weights, drawn as nn.Linear initialises them"};
}  // namespace fire

namespace shaw {  // shaw-scores (core/shaw_relative.hpp)
inline const Param kClip{.key = "clip", .flag = "--clip", .label = "clip k", .kind = ParamKind::Int, .min = 1,
                         .max = 65536, .def = 4, .sliderMin = 1, .sliderMax = 64,
                         .help = "Shaw's clipping distance k: a table of 2k + 1 rows"};
inline const Param kVariant{.key = "variant", .flag = "--variant", .label = "variant", .kind = ParamKind::Choice,
                            .min = 0, .max = 3, .def = 0,
                            .help = "shaw (Shaw et al. 2018), HF BERT's position_embedding_type relative_key / "
                                    "relative_key_query, or Wav2Vec2-BERT's relative_key, clamped to [-left, right]",
                            .choices = {"shaw", "relative_key", "relative_key_query", "relative_key_clamped"}};
inline const Param kLeftMax{.key = "left_max", .flag = "--left-max", .label = "left max", .kind = ParamKind::Int, .min = 0,
                            .max = 65536, .def = 64,
                            .help = "relative_key_clamped: left_max_position_embeddings, the farthest key before the query "
                                    "with a row of its own (Wav2Vec2-BERT: 64)"};
inline const Param kRightMax{.key = "right_max", .flag = "--right-max", .label = "right max", .kind = ParamKind::Int, .min = 0,
                             .max = 65536, .def = 8,
                             .help = "relative_key_clamped: right_max_position_embeddings, the farthest key after it (Wav2Vec2-BERT: 8)"};
inline const Param kHeadDim{.key = "head_dim", .flag = "--head-dim", .label = "head_dim", .kind = ParamKind::EvenInt,
                            .min = 2, .max = 4096, .def = 8, .sliderMin = 2, .sliderMax = 256, .log = true,
                            .help = "length of the seeded q, k and table rows"};
}  // namespace shaw

namespace txl {  // txl-terms (core/txl_relative.hpp)
inline const Param kDModel{.key = "txl_d_model", .flag = "--d-model", .label = "d_model", .kind = ParamKind::EvenInt,
                           .min = 2, .max = 4096, .def = 16, .sliderMin = 2, .sliderMax = 256, .log = true,
                           .help = "width of the token embeddings E_x and of the relative sinusoid R_{i-j}"};
inline const Param kDHead{.key = "txl_d_head", .flag = "--head-dim", .label = "d_head", .kind = ParamKind::EvenInt,
                          .min = 2, .max = 4096, .def = 8, .sliderMin = 2, .sliderMax = 128, .log = true,
                          .help = "rows of Wq, Wk,E, Wk,R and the length of u and v"};
inline const Param kSeed{.key = "txl_seed", .flag = "--seed", .label = "TXL seed", .kind = ParamKind::Int, .min = 0,
                         .max = 999, .def = 0, .help = "the seed of the weights and embeddings"};
inline const Param kQuery{.key = "txl_query", .flag = "", .label = "query i", .kind = ParamKind::Int, .min = 0,
                          .max = 255, .def = 24, .help = "the query row whose four score terms are plotted"};
}  // namespace txl

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
