// tar.hpp: a folder as one tar (ustar) archive, so that the page can hand a saved run folder over
// as a single download; `tar xf` unpacks it as the desktop saves it.
#pragma once

#include <filesystem>

namespace posviz::cli {

// Writes `dir` (its own name first in every entry's name: "runs/learned/seed-1/config.json") to
// `tarPath`. Regular files and folders only (a link is left out, not followed). False, with no
// file left at tarPath, when a name does not fit ustar's 255 bytes or a file cannot be read.
bool writeTar(const std::filesystem::path& dir, const std::filesystem::path& tarPath);

}  // namespace posviz::cli
