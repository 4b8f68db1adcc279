// cli.hpp: the headless command line. main() calls runCli first; when it returns a value the
// process exits with it and no window is opened.
//   posviz --help | --version
//   posviz export VIEW [options] -o FILE
//   posviz examples [NAME]
// Exit codes: 0 ok, 1 runtime failure (I/O, GL), 2 bad usage (flag, value, file).
#pragma once

#include <optional>

namespace posviz::cli {

// nullopt: not a CLI invocation (no arguments, or only GUI flags): start the app.
std::optional<int> runCli(int argc, char** argv);

}  // namespace posviz::cli
