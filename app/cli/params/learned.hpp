// learned.hpp: the parameter table of learned position tables (app/cli/params.hpp says what a Param is;
// app/cli/scheme_params.hpp lists the tables).
//
// kTab... parameters are the Learned tab's own (no flag): what the window shows, not what the
// table holds.
#pragma once

#include <limits>

#include "app/cli/limits.hpp"
#include "app/cli/params.hpp"
#include "app/cli/params/picture.hpp"
#include "core/learned.hpp"

// Each Param names only the fields it sets; the rest keep Param's defaults. GCC's
// -Wmissing-field-initializers reports every skipped field of a designated initializer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace posviz::cli::params {

namespace learned {  // learnedInit (core/learned.hpp)
inline const Param kMaxLen{.key = "max_len", .flag = "--max-len", .label = "max_len", .kind = ParamKind::Int, .min = 1,
                           .max = kIntMax, .def = 1024, .sliderMin = 1, .sliderMax = 131072, .log = true,
                           .unit = "rows", .help = "rows of the table: positions 0 .. max_len-1 have a row, later ones none (GPT-2: 1024)"};
inline const Param kDModel{.key = "d_model", .flag = "--d-model", .label = "d_model", .kind = ParamKind::Int, .min = 1,
                           .max = static_cast<double>(kMaxWidth), .def = 768, .sliderMin = 1, .sliderMax = 4096,
                           .log = true, .help = "model width: columns of the table (GPT-2: 768)"};
inline const Param kStd{.key = "std", .flag = "--std", .label = "std", .kind = ParamKind::Real, .min = 0.001, .max = 1,
                        .def = kGpt2InitStd, .log = true, .format = "%.3f",
                        .help = "standard deviation of the initial N(0, std^2) rows (GPT-2's initializer: 0.02)"};
inline const Param kSeed{.key = "seed", .flag = "--seed", .label = "seed", .kind = ParamKind::Int, .min = 0, .max = kIntMax,
                         .def = 0, .sliderMin = 0, .sliderMax = 999, .help = "the seed of the table's random numbers"};
inline const Param kTable{.key = "path", .flag = "--table", .label = "table", .kind = ParamKind::Text,
                          .help = "instead of a seeded table: a 2-D float32/float64 .npy (max_len x d_model), or a "
                                  "trained learned run (its folder DIR/learned/seed-N, or its model.safetensors)"};
inline const Param kTabPositions{.key = "positions", .flag = "", .label = "positions", .kind = ParamKind::Int, .min = 1,
                                 .max = 131072, .def = 1280, .log = true, .unit = "positions",
                                 .help = "rows shown: positions 0 .. positions-1, past max_len too"};
inline const Param kTabLookup{.key = "lookup_pos", .flag = "", .label = "lookup pos", .kind = ParamKind::Int, .min = 0,
                              .max = 131071, .def = 1024, .log = true,
                              .help = "the position whose row is looked up"};
inline const Param& kPixel = picture::kPixel;   // a --size picture's pixels (params/picture.hpp)
}  // namespace learned

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
