// toy.hpp: the parameter table of the teaching tabs' own models: the toy attention model (Word
// order, Where position enters, ALiBi's toy attention, `posviz export attention`) and the model
// shape of the Compare tab (app/cli/params.hpp says what a Param is; app/cli/scheme_params.hpp
// lists the tables).
#pragma once

#include <limits>

#include "app/cli/limits.hpp"
#include "app/cli/params.hpp"
#include "core/attention.hpp"
#include "core/comparison.hpp"

// Each Param names only the fields it sets; the rest keep Param's defaults. GCC's
// -Wmissing-field-initializers reports every skipped field of a designated initializer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace posviz::cli::params {

namespace toy {  // ToyModel (core/attention.hpp)
inline const Param kDModel{.key = "toy_d_model", .flag = "--d-model", .label = "toy d_model", .kind = ParamKind::EvenInt,
                           .min = 2, .max = kMaxToyDim, .def = static_cast<double>(ToyModel{}.dModel), .sliderMin = 2, .sliderMax = 64,
                           .log = true, .help = "width of the toy model's token vectors and positions"};
inline const Param kSeed{.key = "toy_seed", .flag = "--seed", .label = "toy seed", .kind = ParamKind::Int, .min = 0,
                         .max = 999, .def = 0, .help = "the seed of the toy model's random token vectors and weights"};
inline const Param kText{.key = "sentence", .flag = "--text", .label = "sentence", .kind = ParamKind::Text,
                         .help = "the sentence, split on whitespace into the toy model's tokens"};
inline const Param kEncoding{.key = "encoding", .flag = "--encoding", .label = "encoding", .kind = ParamKind::Choice,
                             .min = 0, .max = 4, .def = static_cast<double>(PositionEncoding::None),
                             .help = "the position encoding of the toy attention",
                             .choices = {"none", "sinusoidal", "learned", "rope", "alibi"}};
inline const Param kCausal{.key = "causal", .flag = "--causal", .label = "causal mask", .kind = ParamKind::Switch,
                           .help = "causal mask: each token attends only to itself and earlier tokens"};
// Where position enters: the token whose vector the add/concatenate norms use.
inline const Param kToken{.key = "token", .flag = "", .label = "token", .kind = ParamKind::Int, .min = 0, .max = 255,
                          .def = 1, .help = "which token (and position) the add/concatenate norms use"};
// Where position enters: RoPE on V as well as on Q and K (rope-outputs).
inline const Param kRotateValues{.key = "rotate_values", .flag = "--rotate-v", .label = "rotate V too",
                                 .kind = ParamKind::Switch,
                                 .help = "rotate V as well as Q and K: the weights stay, the outputs change"};
}  // namespace toy

namespace compare {  // ComparisonParams (core/comparison.hpp)
inline const Param kDModel{.key = "d_model", .flag = "--d-model", .label = "d_model", .kind = ParamKind::EvenInt,
                           .min = 2, .max = 65536, .def = static_cast<double>(ComparisonParams{}.dModel), .sliderMin = 2, .sliderMax = 8192,
                           .log = true, .help = "width of the embeddings; head_dim = d_model / heads"};
inline const Param kHeads{.key = "heads", .flag = "--heads", .label = "heads", .kind = ParamKind::Int, .min = 1,
                          .max = static_cast<double>(kMaxHeads), .def = ComparisonParams{}.numHeads, .sliderMin = 1,
                          .sliderMax = 64, .help = "attention heads: d_model / heads must be an even head_dim"};
inline const Param kTrainedLength{.key = "trained_length", .flag = "--original-max-positions", .label = "trained L0",
                                  .kind = ParamKind::Int, .min = 2, .max = 1 << 20,
                                  .def = static_cast<double>(ComparisonParams{}.trainedLength), .log = true,
                                  .unit = "positions", .help = "L0: the positions seen in training"};
inline const Param kTargetLength{.key = "target_length", .flag = "--positions", .label = "target L",
                                 .kind = ParamKind::Int, .min = 2, .max = kIntMax,
                                 .def = static_cast<double>(ComparisonParams{}.targetLength), .sliderMin = 2,
                                 .sliderMax = 1 << 29, .log = true, .unit = "positions",
                                 .help = "L: the sequence run now, positions 0 .. L-1"};
inline const Param kSeed{.key = "seed", .flag = "--seed", .label = "seed", .kind = ParamKind::Int, .min = 0, .max = 999,
                         .def = 0, .help = "the seed of the relative check's q and k"};
}  // namespace compare

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
