// no_window.cpp: runWindow for a build without the GUI (-DPOSVIZ_BUILD_GUI=OFF). Window flags are
// still checked, so a typo reads as a typo, not as a missing window.
#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/window_options.hpp"
#include "app/window.hpp"
#include "core/untrusted_text.hpp"

namespace posviz {

int runWindow(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    cli::parseWindowOptions(args);
  } catch (const cli::UsageError& e) {
    std::fprintf(stderr, "posviz: %s\n", displayMessage(e.what()).c_str());
    return 2;
  }
  std::fprintf(stderr,
               "posviz: this build has no window (configured with -DPOSVIZ_BUILD_GUI=OFF); the commands export and\n"
               "examples work as always: posviz --help\n");
  return 2;
}

}  // namespace posviz
