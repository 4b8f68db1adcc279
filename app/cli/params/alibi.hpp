// alibi.hpp: the parameter table of ALiBi (app/cli/params.hpp says what a Param is;
// app/cli/scheme_params.hpp lists the tables).
//
// kTab... parameters are a tab's own (no flag): the window draws a grid per head, so it keeps
// its own bounds and, where a teaching choice asks for it, its own default.
#pragma once

#include <limits>

#include "app/cli/limits.hpp"
#include "app/cli/params.hpp"
#include "app/cli/params/picture.hpp"
#include "core/alibi.hpp"

// Each Param names only the fields it sets; the rest keep Param's defaults. GCC's
// -Wmissing-field-initializers reports every skipped field of a designated initializer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace posviz::cli::params {

namespace alibi {  // alibiSlopes (core/alibi.hpp)
inline const Param& kPixel = picture::kPixel;   // a --size picture's pixels (params/picture.hpp)
inline const Param kHeads{.key = "heads", .flag = "--heads", .label = "heads", .kind = ParamKind::Int, .min = 1,
                          .max = static_cast<double>(kMaxHeads), .def = 8, .sliderMin = 1, .sliderMax = 128,
                          .help = "attention heads: head h gets slope 2^(-8h/n) (n a power of two; the paper's rule between)"};
inline const Param kSlope{.key = "slope", .flag = "--slope", .label = "slope m", .kind = ParamKind::Real, .min = 0,
                          .max = 1e6, .def = 0.5, .sliderMin = 1.0 / 256, .sliderMax = 1, .log = true,
                          .minExclusive = true, .format = "%.4f",
                          .help = "one head's slope m: the bias is -m times the distance"};
inline const Param kPositions{.key = "positions", .flag = "--positions", .label = "positions T", .kind = ParamKind::Int,
                              .min = 1, .max = kIntMax, .def = 16, .sliderMin = 2, .sliderMax = 256, .log = true,
                              .unit = "positions", .help = "query and key positions 0 .. T-1 of each bias grid"};
inline const Param kHead{.key = "head", .flag = "--head", .label = "head", .kind = ParamKind::Int, .min = 1,
                         .max = static_cast<double>(kMaxHeads), .def = 1, .sliderMin = 1, .sliderMax = 128,
                         .help = "one head, numbered from 1 as in the paper"};
// A bias grid's causal mask (alibi-bias, kerple-bias): key j after query i is masked (-inf).
inline const Param kCausal{.key = "causal", .flag = "--causal", .label = "causal", .kind = ParamKind::Switch,
                           .help = "causal: -m(i-j), keys after the query masked (-inf); else symmetric -m|i-j|"};
// The ALiBi tab draws one small grid per head and per position pair.
inline const Param kTabHeads{.key = "heads", .flag = "", .label = "heads", .kind = ParamKind::Int, .min = 1, .max = 128,
                             .def = 12,
                             .help = "attention heads, one small bias grid each; 12, not a power of two, shows both "
                                     "halves of the paper's rule (an export's --heads defaults to 8)"};
inline const Param kTabPositions{.key = "positions", .flag = "", .label = "positions T", .kind = ParamKind::Int,
                                 .min = 2, .max = 256, .def = 24, .log = true, .unit = "positions",
                                 .help = "positions 0 .. T-1 of each small bias grid (an export's --positions takes any T)"};
inline const Param kTabFirstHeads{.key = "first_heads", .flag = "", .label = "first heads", .kind = ParamKind::Int,
                                  .min = 1, .max = 32, .def = 8, .help = "how many heads get a small bias grid"};
// The Relative tab's ALiBi grid beside KERPLE's and FIRE's.
inline const Param kRelativeTabSlope{.key = "alibi_slope", .flag = "", .label = "ALiBi m", .kind = ParamKind::Real,
                                     .min = 0, .max = 1e6, .def = 0.0625, .sliderMin = 0.001, .sliderMax = 1,
                                     .log = true, .minExclusive = true, .format = "%.4f",
                                     .help = "ALiBi's slope m beside KERPLE and FIRE; 2^-4 (head 2 of 8) keeps the three "
                                             "biases on one colour scale (an export's --slope takes any m)"};
}  // namespace alibi

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
