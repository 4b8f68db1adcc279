// atomic_file.hpp: the one way posviz writes a file, and the one way it reads a small input file.
//
// writeFileAtomically: the content goes to a new temporary file in the target's folder, named
// ".posviz-<16 random hex digits>.tmp" (so any name the system allows for the target works), created
// with O_CREAT | O_EXCL | O_NOFOLLOW: a link planted under that name is never followed, the name is
// drawn again instead. The file is fsynced, closed and renamed over the target, so the target
// appears complete or not at all, and a link at the target itself is replaced, not written through.
// With WriteOptions::followTargetLink (settings files a user may have linked elsewhere on purpose)
// the link chain is resolved first and the file it ends at is replaced, in that file's folder.
// On any failure (unwritable folder, full disk, an exception from the writer) the temporary file is
// removed and std::runtime_error is thrown naming the path and the OS reason (the first failing
// write(2)'s strerror: "No space left on device", "File too large"). While a temporary file exists,
// SIGINT, SIGTERM and SIGHUP remove it before the process ends as the signal would have ended it.
//
// readRegularFile: opens without blocking (a FIFO cannot hang the reader) and without following
// a link to a non-regular file; anything but a regular file of at most maxBytes is refused with
// std::runtime_error naming the path and what is allowed ("... is a FIFO, not a regular file").
#pragma once

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>

namespace posviz {

struct WriteOptions {
  bool followTargetLink = false;  // replace the file a symlinked target points to, not the link
};

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write,
                         const WriteOptions& options = {});

// The temporary files this process has open right now (for tests and the signal handler).
std::size_t pendingTemporaryFiles();

// what names the file in messages ("config", "settings"); the message reads
// "cannot read <what> <path>: <reason>".
std::string readRegularFile(const std::string& path, std::size_t maxBytes, const std::string& what);

}  // namespace posviz
