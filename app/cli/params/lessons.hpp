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

namespace learn {  // the Learn tab's own
inline const Param kPlaySpeed{.key = "speed", .label = "speed (steps per second)", .kind = ParamKind::Real,
                              .min = 0.25, .max = 20, .def = 2, .log = true, .format = "%.2f",
                              .help = "how fast Play moves the step's figure"};
}  // namespace learn

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
