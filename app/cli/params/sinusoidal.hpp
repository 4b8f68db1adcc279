// sinusoidal.hpp: the parameter table of the sinusoidal encoding (Vaswani et al. 2017) (app/cli/params.hpp says what a Param is;
// app/cli/scheme_params.hpp lists the tables).
#pragma once

#include <limits>

#include "app/cli/limits.hpp"
#include "app/cli/params.hpp"
#include "app/cli/params/picture.hpp"
#include "core/sinusoidal.hpp"

// Each Param names only the fields it sets; the rest keep Param's defaults. GCC's
// -Wmissing-field-initializers reports every skipped field of a designated initializer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace posviz::cli::params {

namespace sinusoidal {  // SinusoidalParams (core/sinusoidal.hpp)
inline const Param kDModel{.key = "d_model", .flag = "--d-model", .label = "d_model", .kind = ParamKind::EvenInt,
                           .min = 2, .max = static_cast<double>(kMaxWidth), .def = SinusoidalParams{}.dModel,
                           .sliderMin = 2, .sliderMax = 4096, .log = true,
                           .help = "model width d_model: the number of dims, two per frequency"};
inline const Param kBase{.key = "base", .flag = "--base", .label = "base", .kind = ParamKind::Real, .min = 1,
                         .max = kMaxBase, .def = SinusoidalParams{}.base, .sliderMin = 10, .sliderMax = 1e6,
                         .log = true, .minExclusive = true, .format = "%.0f",
                         .help = "frequency base: pair i turns at angle pos / base^(2i/d_model) (t2t: the max timescale)"};
inline const Param kLayout{.key = "layout", .flag = "--layout", .label = "layout", .kind = ParamKind::Choice,
                           .min = 0, .max = 2, .def = static_cast<double>(SinusoidalParams{}.layout),
                           .help = "where sin and cos sit: interleaved (sin, cos per pair, the paper), t2t (all sines, then all "
                                   "cosines, timescales spaced by n-1) or halves (the paper's frequencies, sines then cosines: Marian, Pegasus)",
                           .choices = {"interleaved", "t2t|tensor2tensor", "halves"}};
inline const Param& kPixel = picture::kPixel;
inline const Param kPositions{.key = "positions", .flag = "--positions", .label = "positions", .kind = ParamKind::Int,
                              .min = 1, .max = kIntMax, .def = 512, .sliderMin = 1, .sliderMax = kIntMax,
                              .log = true, .unit = "positions", .help = "rows of the table: N positions from the first"};
inline const Param kSimilarityPositions{.key = "similarity_positions", .flag = "--positions", .label = "similarity N",
                                        .kind = ParamKind::Int, .min = 2, .max = 2048, .def = 256, .log = true,
                                        .unit = "positions",
                                        .help = "size of the similarity grid PE(a).PE(b), positions 0 .. N-1 on both axes"};
// The window's own: which position, pair and offset the clock, M_k and similarity views look at.
inline const Param kPos{.key = "pos", .label = "pos", .kind = ParamKind::Int, .min = 0, .max = kIntMax - 1, .def = 20,
                        .log = true, .unit = "position",
                        .help = "the position of the clock view, the PE(pos) plot and the M_k check"};
inline const Param kPlaySpeed{.key = "play_speed", .label = "pos/s", .kind = ParamKind::Real, .min = 0.25, .max = 256,
                              .def = 4, .log = true, .format = "%.2f", .help = "positions per second while playing"};
inline const Param kPair{.key = "pair", .label = "pair i", .kind = ParamKind::Int, .min = 0, .max = kMaxWidth / 2 - 1,
                         .def = 2, .sliderMin = 0, .sliderMax = 2047, .help = "the sin/cos pair shown: frequency theta_i"};
inline const Param kOffsetK{.key = "k", .label = "k", .kind = ParamKind::Int, .min = -1024, .max = 1024, .def = 7,
                            .unit = "positions", .help = "the offset of M_k: PE(pos+k) = M_k PE(pos)"};
inline const Param kSimilarityRef{.key = "similarity_reference", .label = "reference a", .kind = ParamKind::Int,
                                  .min = 0, .max = 65536, .def = 0, .log = true, .unit = "position",
                                  .help = "similarity against offset, plotted from a and from a+1000"};
inline const Param kClockThin{.key = "clock_thin", .label = "every n-th pair (0 = auto)", .kind = ParamKind::Int,
                              .min = 0, .max = kMaxWidth / 2, .def = 0, .sliderMin = 0, .sliderMax = 64,
                              .help = "the clock view shows every n-th pair; 0 picks n so that at most 64 clocks show"};
}  // namespace sinusoidal

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
