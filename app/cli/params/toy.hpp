// toy.hpp: the parameter table of the toy models of the teaching tabs (app/cli/params.hpp says what a Param is;
// app/cli/scheme_params.hpp lists the tables).
#pragma once

#include <limits>

#include "app/cli/limits.hpp"
#include "app/cli/params.hpp"

// Each Param names only the fields it sets; the rest keep Param's defaults. GCC's
// -Wmissing-field-initializers reports every skipped field of a designated initializer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace posviz::cli::params {

// Small models the teaching tabs build from a seed (Word order, Pipeline, ALiBi's toy attention).
namespace toy {
inline const Param kDModel{.key = "toy_d_model", .flag = "", .label = "toy d_model", .kind = ParamKind::EvenInt,
                           .min = 2, .max = 64, .def = 16, .log = true,
                           .help = "width of the toy model's token vectors and positions"};
inline const Param kSeed{.key = "toy_seed", .flag = "", .label = "toy seed", .kind = ParamKind::Int, .min = 0,
                         .max = 999, .def = 0, .help = "the seed of the toy model's random token vectors and weights"};
}  // namespace toy

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
