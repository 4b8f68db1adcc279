// order.hpp: the parameter table of the Word order tab's views, order-attention and nope-counting
// (app/cli/params.hpp says what a Param is; app/cli/scheme_params.hpp lists the tables). The toy
// model's own parameters (d_model, seed, sentence, encoding, causal mask) are params::toy's.
#pragma once

#include "app/cli/params.hpp"
#include "core/order.hpp"

// Each Param names only the fields it sets; the rest keep Param's defaults. GCC's
// -Wmissing-field-initializers reports every skipped field of a designated initializer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace posviz::cli::params {

namespace order {  // compareOrder (core/order.hpp), nopeCounting (core/nope.hpp)
inline const Param kShuffled{.key = "shuffled", .flag = "--shuffled", .label = "shuffled", .kind = ParamKind::Text,
                             .help = "the same words as --text in another order (matched case-sensitively, left to right)"};
// The grids of compareOrder, in the order the Word order tab draws them.
inline const Param kMatrix{.key = "matrix", .flag = "--matrix", .label = "export", .kind = ParamKind::Choice, .min = 0,
                           .max = 4, .def = 1,
                           .help = "original W(X), shuffled W(PX), permuted P W(X) P^T, shuffled-output Attn(PX), "
                                   "permuted-output P Attn(X)",
                           .choices = {"original", "shuffled", "permuted", "shuffled-output", "permuted-output"}};
inline const Param kToyHead{.key = "toy_head", .flag = "--toy-head", .label = "toy head", .kind = ParamKind::Switch,
                            .help = "the toy model's own causal head on <bos> + the sentence instead of the uniform "
                                    "counting head"};
}  // namespace order

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
