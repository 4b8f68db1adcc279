// relative.hpp: the parameter table of relative schemes: T5 buckets, xPos, KERPLE, FIRE (app/cli/params.hpp says what a Param is;
// app/cli/scheme_params.hpp lists the tables).
#pragma once

#include <limits>

#include "app/cli/limits.hpp"
#include "app/cli/params.hpp"
#include "core/relative_bias.hpp"
#include "core/xpos.hpp"
#include "core/kerple.hpp"
#include "core/fire.hpp"

// Each Param names only the fields it sets; the rest keep Param's defaults. GCC's
// -Wmissing-field-initializers reports every skipped field of a designated initializer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace posviz::cli::params {

namespace t5 {  // T5BucketParams (core/relative_bias.hpp)
inline const Param kNumBuckets{.key = "num_buckets", .flag = "--num-buckets", .label = "num_buckets",
                               .kind = ParamKind::Int, .min = 2, .max = 65536, .def = T5BucketParams{}.numBuckets,
                               .sliderMin = 2, .sliderMax = 256,
                               .help = "relative_attention_num_buckets: half for each direction unless causal"};
inline const Param kMaxDistance{.key = "max_distance", .flag = "--max-distance", .label = "max_distance",
                                .kind = ParamKind::Int, .min = 2, .max = kIntMax, .def = T5BucketParams{}.maxDistance,
                                .sliderMin = 2, .sliderMax = 4096, .log = true, .unit = "positions",
                                .help = "relative_attention_max_distance: every longer distance shares the last bucket"};
}  // namespace t5

namespace xpos {  // XposParams (core/xpos.hpp)
inline const Param kScaleBase{.key = "scale_base", .flag = "--scale-base", .label = "scale_base", .kind = ParamKind::Real,
                              .min = 0, .max = 1e9, .def = XposParams{}.scaleBase, .sliderMin = 16, .sliderMax = 8192,
                              .log = true, .minExclusive = true, .format = "%.0f",
                              .help = "xPos scale_base (torchscale's 512): how slowly the decay sets in with distance"};
}  // namespace xpos

namespace kerple {  // KerpleParams (core/kerple.hpp)
inline const Param kKernel{.key = "kernel", .flag = "--kernel", .label = "kernel", .kind = ParamKind::Choice, .min = 0,
                           .max = 1, .def = static_cast<double>(KerpleParams{}.kernel),
                           .help = "log: -r1 log(1 + r2 |i-j|); power: -r1 |i-j|^r2", .choices = {"log", "power"}};
inline const Param kR1{.key = "r1", .flag = "--r1", .label = "r1", .kind = ParamKind::Real, .min = 0, .max = 1e6,
                       .def = KerpleParams{}.r1, .sliderMin = 0.01, .sliderMax = 10, .log = true, .minExclusive = true,
                       .format = "%.3f", .help = "KERPLE's scale r1 (learned in the paper)"};
inline const Param kR2{.key = "r2", .flag = "--r2", .label = "r2", .kind = ParamKind::Real, .min = 0, .max = 1e6,
                       .def = KerpleParams{}.r2, .sliderMin = 0.01, .sliderMax = 10, .log = true, .minExclusive = true,
                       .format = "%.3f", .help = "KERPLE's r2: inside the log, or the power (at most 2 for the power kernel)"};
}  // namespace kerple

namespace fire {  // FireParams (core/fire.hpp)
inline const Param kC{.key = "fire_c", .flag = "--fire-c", .label = "FIRE c", .kind = ParamKind::Real, .min = 0,
                      .max = 1e6, .def = FireParams{}.c, .sliderMin = 0.01, .sliderMax = 100, .log = true,
                      .minExclusive = true, .format = "%.3f", .help = "c in psi(x) = log(c x + 1) (the reference's init_c: 0.1)"};
inline const Param kThreshold{.key = "fire_threshold", .flag = "--fire-threshold", .label = "FIRE L",
                              .kind = ParamKind::Real, .min = 1, .max = 1e9, .def = FireParams{}.threshold,
                              .sliderMin = 1, .sliderMax = 65536, .log = true, .format = "%.1f", .unit = "positions",
                              .help = "L in psi(max(L, i)): queries before L are normalised as if at L (the reference's init_L: 512)"};
inline const Param kHidden{.key = "fire_hidden", .flag = "--fire-hidden", .label = "FIRE hidden", .kind = ParamKind::Int,
                           .min = 1, .max = 4096, .def = kFireHidden, .sliderMin = 1, .sliderMax = 128,
                           .help = "hidden units of the MLP f_theta (the reference's mlp_width: 32)"};
}  // namespace fire

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
