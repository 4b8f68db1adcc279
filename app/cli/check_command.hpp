// check_command.hpp: `posviz check`, a user's RoPE tensors against the exact reference of a model.
//
//   posviz check (--config FILE | --preset NAME) [--layer-type T]
//                (--inv-freq F.npy | --cos C.npy --sin S.npy | --q Q.npy --rotated R.npy)
//                [--positions P.npy | --first-position N]
//
// --cos/--sin: positions x rotary dims, as the model's rotary embedding returns them (a leading
// batch dim of 1 is accepted); --q/--rotated: rows of head_dim, one position per row (leading dims
// are flattened). Positions are 0.. (or --first-position N..) unless --positions gives one per row.
// Prints what was compared and the verdict (core/rope_check.hpp names the mistake). Exit 0 when the
// values match the reference up to rounding, 1 with the diagnosis when they do not, 2 on bad input.
#pragma once

#include <string>
#include <vector>

namespace posviz::cli {

int runCheckCommand(const std::vector<std::string>& args);

}  // namespace posviz::cli
