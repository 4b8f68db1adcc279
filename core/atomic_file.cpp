#include "core/atomic_file.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <unistd.h>

namespace posviz {

namespace {

std::atomic<unsigned long long> gTempCounter{0};

std::string osReason(int err) { return err != 0 ? std::string(std::strerror(err)) : std::string("I/O error"); }

[[noreturn]] void fail(const std::string& path, const std::string& tmp, const std::string& reason) {
  if (!tmp.empty()) std::remove(tmp.c_str());
  throw std::runtime_error("cannot write " + path + ": " + reason);
}

}  // namespace

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty()) throw std::runtime_error("cannot write an empty path: a file name is required");
  const std::string tmp = path + ".tmp-" + std::to_string(static_cast<long long>(::getpid())) + "-" +
                          std::to_string(gTempCounter.fetch_add(1));
  errno = 0;
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, "", osReason(errno));  // nothing was created
  try {
    write(out);
  } catch (const std::exception& e) {
    out.close();
    fail(path, tmp, e.what());
  } catch (...) {
    out.close();
    fail(path, tmp, "the writer threw an unknown exception");
  }
  errno = 0;
  out.flush();
  if (!out) {
    const int err = errno;
    out.close();
    fail(path, tmp, osReason(err));
  }
  errno = 0;
  out.close();
  if (out.fail()) fail(path, tmp, osReason(errno));
  errno = 0;
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail(path, tmp, osReason(errno));
}

}  // namespace posviz
