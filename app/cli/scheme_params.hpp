// scheme_params.hpp: every scheme's parameter table (app/cli/params.hpp says what a Param is).
//
// Each scheme's table (app/cli/params/<scheme>.hpp) sits over the core struct it fills; a default
// that core has is read from that struct (SinusoidalParams{}.dModel), so it is written once, in
// core. Ranges are what core and the CLI accept; the slider span is where a slider starts (it
// widens for a larger value). A parameter that means the same thing in several tabs is one Param:
// the RoPE base is params::rope::kBase in the RoPE, Context extension, Extrapolation and Relative
// tabs alike.
#pragma once

#include "app/cli/params/alibi.hpp"
#include "app/cli/params/learned.hpp"
#include "app/cli/params/lessons.hpp"
#include "app/cli/params/order.hpp"
#include "app/cli/params/relative.hpp"
#include "app/cli/params/rope.hpp"
#include "app/cli/params/sinusoidal.hpp"
#include "app/cli/params/toy.hpp"
#include "app/cli/params/train.hpp"
