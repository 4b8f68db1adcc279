// atomic_file.hpp: write a file so that it appears complete or not at all.
//
// The content goes to "<path>.tmp-<pid>-<n>" in the same directory, is flushed and closed,
// then renamed over path. On any failure (unwritable directory, full disk, an exception from
// the writer) the temporary file is removed and std::runtime_error is thrown naming the path
// and the OS reason. When a write(2) failed, the reason is that first failure's strerror ("No
// space left on device", "File too large"), whatever the writer made of the failed stream.
// Used by every exporter (npy, csv, json, png).
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace posviz {

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace posviz
