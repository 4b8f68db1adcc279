// train_command.hpp: `posviz train`: train the small transformer of core/train with several
// positional schemes on one synthetic task, several seeds each, and report accuracy against length.
//
//   posviz train --task copy --encodings nope,sinusoidal,learned,rope,alibi --train-length 16
//                --eval-lengths 16,32,64 --steps 2000 --seeds 3 -o results.json
//   posviz train ... --save-weights DIR            each run in DIR/<encoding>/seed-<n>/ (core's saveRun)
//   posviz train --load-weights DIR --eval-only    the runs saved there, evaluated again (no training)
//   posviz train --help                            every option
//
// WHAT IT PRINTS
//   stdout: one row per encoding: the final training loss and, per evaluated length, the accuracy
//   over answer tokens as the mean over seeds with [min, max]; "no row" where a learned table has
//   no row for the length (never a number). stderr: a progress bar when stderr is a terminal (or
//   with --progress) and the wall time.
//   -o FILE.json: per encoding and seed the sampled loss curve and every length's accuracy,
//   sequence accuracy and loss; per encoding and length the mean, sample std, min and max over
//   seeds (layout: README, "posviz train"). No timing goes into the file: the same
//   command gives the same bytes, whatever --threads is.
//
// ERRORS
//   Every bad argument is a UsageError naming the option, the value and what is allowed (exit 2),
//   as args.hpp's parsers word them; a run folder that cannot be read is exit 2 too (bad input);
//   a file or folder that cannot be written is exit 1.
#pragma once

#include <string>
#include <vector>

#include "app/cli/args.hpp"

namespace posviz::cli {

// args: the arguments after "train". Returns the process exit code (0 ok, 1 I/O, 2 usage).
int runTrainCommand(const std::vector<std::string>& args);

// The options `posviz train` takes, for its help text and the tests.
const std::vector<OptionSpec>& trainOptionSpecs();

// `posviz train --help`.
std::string trainHelp();

}  // namespace posviz::cli
