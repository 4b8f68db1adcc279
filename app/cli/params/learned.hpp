// learned.hpp: the parameter table of learned position tables (app/cli/params.hpp says what a Param is;
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

namespace learned {  // learnedInit (core/learned.hpp)
inline const Param kMaxLen{.key = "max_len", .flag = "--max-len", .label = "max_len", .kind = ParamKind::Int, .min = 1,
                           .max = kIntMax, .def = 1024, .sliderMin = 1, .sliderMax = 131072, .log = true,
                           .unit = "rows", .help = "rows of the table: positions 0 .. max_len-1 have a row, later ones none"};
inline const Param kDModel{.key = "d_model", .flag = "--d-model", .label = "d_model", .kind = ParamKind::Int, .min = 1,
                           .max = static_cast<double>(kMaxWidth), .def = 768, .sliderMin = 1, .sliderMax = 4096,
                           .log = true, .help = "model width: columns of the table (GPT-2: 768)"};
inline const Param kStd{.key = "std", .flag = "", .label = "std", .kind = ParamKind::Real, .min = 0.001, .max = 1,
                        .def = 0.02, .log = true, .format = "%.3f",
                        .help = "standard deviation of the initial N(0, std^2) rows (GPT-2's initializer: 0.02)"};
}  // namespace learned

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
