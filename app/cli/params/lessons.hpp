// lessons.hpp: the parameters of the worked examples' pictures (app/cli/params.hpp says what a
// Param is; app/cli/scheme_params.hpp lists the tables).
#pragma once

#include "app/cli/params.hpp"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace posviz::cli::params {

namespace example {  // WorkedExample (core/lessons/lessons.hpp)
inline const Param kName{.key = "example", .flag = "--example", .label = "example", .kind = ParamKind::Text,
                         .help = "the worked example, by name (posviz examples --list)"};
inline const Param kStep{.key = "step", .flag = "--step", .label = "step", .kind = ParamKind::Int, .min = 1, .max = 1000,
                         .def = 1, .help = "the example's step whose picture is written, counted from 1"};
}  // namespace example

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
