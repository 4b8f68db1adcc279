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

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rope_check.hpp"

namespace posviz::cli {

int runCheckCommand(const std::vector<std::string>& args);

// The tensors to check, by role: "inv-freq", or "cos" and "sin", or "q" and "rotated"; optional
// "positions". The Model tab's check reads the same files the same way.
struct CheckFiles {
  std::map<std::string, std::string> files;
  std::optional<long long> firstPosition;
};
struct CheckInputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Reads the .npy files into a check of the model's RoPE p; CheckInputError (or NpyError) naming
// the file or shape that is wrong.
RopeCheckInput loadCheckInput(const CheckFiles& f, const RopeParams& p);

}  // namespace posviz::cli
