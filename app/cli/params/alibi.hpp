// alibi.hpp: the parameter table of ALiBi (app/cli/params.hpp says what a Param is;
// app/cli/scheme_params.hpp lists the tables).
#pragma once

#include <limits>

#include "app/cli/limits.hpp"
#include "app/cli/params.hpp"
#include "core/alibi.hpp"

// Each Param names only the fields it sets; the rest keep Param's defaults. GCC's
// -Wmissing-field-initializers reports every skipped field of a designated initializer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace posviz::cli::params {

namespace alibi {  // alibiSlopes (core/alibi.hpp)
inline const Param kHeads{.key = "heads", .flag = "--heads", .label = "heads", .kind = ParamKind::Int, .min = 1,
                          .max = static_cast<double>(kMaxHeads), .def = 8, .sliderMin = 1, .sliderMax = 128,
                          .help = "attention heads: head h gets slope 2^(-8h/n) (n a power of two; the paper's rule between)"};
inline const Param kSlope{.key = "slope", .flag = "--slope", .label = "slope m", .kind = ParamKind::Real, .min = 0,
                          .max = 1e6, .def = 0.5, .sliderMin = 1.0 / 256, .sliderMax = 1, .log = true,
                          .minExclusive = true, .format = "%.4f",
                          .help = "one head's slope m: the bias is -m times the distance"};
}  // namespace alibi

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
