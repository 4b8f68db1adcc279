// cli.hpp: the headless command line. main() calls runCli first; when it returns a value the
// process exits with it and no window is opened.
//   posviz --help | --version
//   posviz export VIEW [options] -o FILE
//   posviz examples [NAME]
// Exit codes: 0 ok, 1 runtime failure (I/O, GL), 2 bad usage (flag, value, file).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/cli/export.hpp"

namespace posviz::cli {

// nullopt: not a CLI invocation (no arguments, or only GUI flags): start the app.
std::optional<int> runCli(int argc, char** argv);

// Parses and checks the arguments after "export" as runCli would (reading --config/--preset, the
// budget check included) without computing or writing anything. Returns "" when runCli would go
// on to export, else the message it would print with exit code 2. The CLI fuzz target's entry.
std::string checkExportArguments(const std::vector<std::string>& args);

// `posviz export ARGS...` without the process around it: args start with the view and hold -o.
// The window's File > Export calls this, so a view exported from the window and from the command
// line is the same file. Throws UsageError, ConfigError, std::invalid_argument (bad input or
// over budget) or std::runtime_error (I/O); writes nothing on failure.
void exportWithArguments(const std::vector<std::string>& args, const ExportProgress& progress = {});

// The shell command that exports the same thing: "posviz export sinusoidal --d-model 128 ...".
std::string commandLine(const std::vector<std::string>& args);

}  // namespace posviz::cli
