// picture.hpp: what a pixel of a huge grid's picture shows, one definition for every grid view
// that offers the choice (sinusoidal, RoPE angle / cos / sin / scores, ALiBi bias, learned tables); core's
// PixelChoice in the same order (core/pixel_stats.hpp).
#pragma once

#include "app/cli/params.hpp"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace posviz::cli::params::picture {

inline const Param kPixel{.key = "pixel", .flag = "--pixel", .label = "pixel shows", .kind = ParamKind::Choice,
                          .min = 0, .max = 4, .def = 0,
                          .help = "where a pixel covers many cells (a --size picture, a zoomed-out window), what it shows "
                                  "of them: auto (pictures, in the window and .png/.svg: the mean, or the RMS where every mean is "
                                  "within a tenth of the grid's largest |value|; numbers: the mean), mean, min or max (the "
                                  "envelope), rms; all exact (closed forms; RoPE scores from s at each offset m - n; a learned "
                                  "table from its cells; the angle grid has no rms)",
                          .choices = {"auto", "mean", "min", "max", "rms"}};

}  // namespace posviz::cli::params::picture

#pragma GCC diagnostic pop
