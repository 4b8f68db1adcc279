#include "core/atomic_file.hpp"

#include "core/untrusted_text.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>   // nanosleep (POSIX, declared with the C library's time functions)
#include <mutex>
#include <random>
#include <stdexcept>
#include <streambuf>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

namespace posviz {

namespace {

// ---- Temporary files and signals --------------------------------------------------------------
// A fixed table the signal handler can walk without allocating: a slot is claimed by a thread,
// filled, then published; the handler unlinks every published path.
constexpr int kSlots = 64;
constexpr std::size_t kSlotPath = 4096;
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled or cleared, 2 published
  char path[kSlotPath];
};
Slot gSlots[kSlots];
std::atomic<std::size_t> gPending{0};
const int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};
// A signal is process-wide but blocked per thread: while one thread holds the signals (creating,
// publishing, removing or renaming its temporary file) another thread can take the signal. So
// the handler first says the process is dying (no thread starts a held section after that, and
// the handler is not installed again), then waits for the held sections under way to end, so
// that the table it walks says which temporary files exist.
std::atomic<bool> gDying{false};
std::atomic<int> gHolding{0};

extern "C" void removeTemporariesAndDie(int sig) {
  // The handler stays installed (no SA_RESETHAND): a second signal that reaches another thread
  // while this one cleans up must not end the process before the files are gone. It waits here
  // for the first to end the process.
  if (gDying.exchange(true)) {
    for (;;) ::pause();
  }
  for (int waited = 0; gHolding.load() > 0 && waited < 2000; ++waited) {   // at most about 2 s
    struct timespec ms {0, 1000000};
    ::nanosleep(&ms, nullptr);
  }
  for (Slot& s : gSlots) {
    if (s.state.load(std::memory_order_acquire) == 2) ::unlink(s.path);
  }
  // With the default action back, the signal raised again ends the process as it would have
  // without posviz's handler (exit status 128 + sig for the shell) once this handler returns.
  struct sigaction byDefault {};
  byDefault.sa_handler = SIG_DFL;
  sigemptyset(&byDefault.sa_mask);
  ::sigaction(sig, &byDefault, nullptr);
  ::raise(sig);
}

// Checked at every write, not once: a signal whose handler was reset to the default since (a
// forked child, a program that stopped handling it) gets the cleanup too.
void installSignalCleanup() {
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  if (gDying.load()) return;   // the handler has run and reset itself: the process is ending
  {
    for (int sig : kCleanupSignals) {
      struct sigaction current {};
      if (::sigaction(sig, nullptr, &current) != 0) continue;
      // A signal the user ignores (nohup) or that the program handles itself stays as it is.
      if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
      struct sigaction action {};
      action.sa_handler = removeTemporariesAndDie;
      sigemptyset(&action.sa_mask);
      for (int other : kCleanupSignals) sigaddset(&action.sa_mask, other);
      action.sa_flags = 0;
      ::sigaction(sig, &action, nullptr);
    }
  }
}

// Blocks the cleanup signals for its lifetime, so that a file is never created without being
// published, nor renamed while still published.
class SignalsHeld {
 public:
  SignalsHeld() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kCleanupSignals) sigaddset(&set, sig);
    ::pthread_sigmask(SIG_BLOCK, &set, &old_);
    gHolding.fetch_add(1);
    if (gDying.load()) {   // another thread is removing the temporary files: start nothing new
      gHolding.fetch_sub(1);
      for (;;) ::pause();   // the signal ends the process from that thread
    }
  }
  ~SignalsHeld() {
    gHolding.fetch_sub(1);
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t old_;
};

// Publishes path for the handler; -1 when the table is full (the file is still written, only
// not removed on a signal) or the path is too long for a slot.
int publish(const std::string& path) {
  if (path.size() >= kSlotPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (gSlots[i].state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
      std::memcpy(gSlots[i].path, path.c_str(), path.size() + 1);
      gSlots[i].state.store(2, std::memory_order_release);
      gPending.fetch_add(1);
      return i;
    }
  }
  return -1;
}

void unpublish(int slot) {
  if (slot < 0) return;
  gSlots[slot].state.store(0, std::memory_order_release);
  gPending.fetch_sub(1);
}

std::string osReason(int err) { return err != 0 ? std::string(std::strerror(err)) : std::string("I/O error"); }

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
  throw std::runtime_error("cannot write " + displayText(path) + ": " + reason);
}

// getentropy: the kernel's getrandom on Linux, the browser's crypto.getRandomValues in the page.
std::string randomHex() {
  unsigned char bytes[8];
  const bool got = ::getentropy(bytes, sizeof bytes) == 0;
  if (!got) {  // no entropy call: the C++ source of entropy
    std::random_device rd;
    for (unsigned char& b : bytes) b = static_cast<unsigned char>(rd());
  }
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::string folderOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return path.substr(0, slash + 1);  // keeps the slash; "/" for a file at the root
}

// The file a chain of links at path ends at (path itself when it is no link). A missing final
// file is fine (it will be created); a loop or a chain of more than 40 links is refused.
std::string resolveLinks(std::string path) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::vector<char> buf(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 4095) + 1);
    const ssize_t n = ::readlink(path.c_str(), buf.data(), buf.size());
    if (n < 0) fail(path, "cannot read the link: " + osReason(errno));
    std::string target(buf.data(), static_cast<std::size_t>(n));
    path = (!target.empty() && target[0] == '/') ? target : folderOf(path) + target;
  }
  fail(path, "too many levels of symbolic links");
}

// ---- An output buffer over a file descriptor -------------------------------------------------
// An output buffer over a file descriptor that keeps the errno of the first failing write(2), so
// that a full disk reads "No space left on device" rather than a stream's generic failure.
class FdOutBuf : public std::streambuf {
 public:
  explicit FdOutBuf(int fd) : fd_(fd), buffer_(1 << 16) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  FdOutBuf(const FdOutBuf&) = delete;
  FdOutBuf& operator=(const FdOutBuf&) = delete;

  int firstError() const { return firstError_; }
  bool failed() const { return failed_; }

  // Writes what is buffered; false (and the error kept) on failure.
  bool flushBuffer() {
    const bool ok = writeAll(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return ok;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (!flushBuffer()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }

  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (failed_) return 0;
    const auto count = static_cast<std::size_t>(n);
    if (count <= static_cast<std::size_t>(epptr() - pptr())) {
      std::memcpy(pptr(), s, count);
      pbump(static_cast<int>(n));
      return n;
    }
    if (!flushBuffer()) return 0;
    if (count < buffer_.size()) {
      std::memcpy(pptr(), s, count);
      pbump(static_cast<int>(n));
      return n;
    }
    return writeAll(s, count) ? n : 0;
  }

  int sync() override { return flushBuffer() ? 0 : -1; }

  // A writer may go back (a video's muxer fills in sizes at the end): what is buffered is written
  // first, then the file offset moves.
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode) override {
    if (!flushBuffer()) return pos_type(off_type(-1));
    const int whence = dir == std::ios_base::beg ? SEEK_SET : dir == std::ios_base::cur ? SEEK_CUR : SEEK_END;
    const off_t at = ::lseek(fd_, static_cast<off_t>(off), whence);
    return at < 0 ? pos_type(off_type(-1)) : pos_type(static_cast<off_type>(at));
  }
  pos_type seekpos(pos_type pos, std::ios_base::openmode which) override { return seekoff(off_type(pos), std::ios_base::beg, which); }

 private:
  bool writeAll(const char* data, std::size_t size) {
    if (failed_) return false;
    while (size > 0) {
      const ssize_t n = ::write(fd_, data, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failed_ = true;
        firstError_ = n < 0 ? errno : EIO;
        return false;
      }
      data += n;
      size -= static_cast<std::size_t>(n);
    }
    return true;
  }

  int fd_;
  std::vector<char> buffer_;
  bool failed_ = false;
  int firstError_ = 0;
};

}  // namespace

std::size_t pendingTemporaryFiles() { return gPending.load(); }

void writeFileAtomically(const std::string& requested, const std::function<void(std::ostream&)>& write,
                         const WriteOptions& options) {
  if (requested.empty()) throw std::runtime_error("cannot write an empty path: a file name is required");
  if (requested.back() == '/') fail(requested, "it names a folder; a file name is required");
  const std::string path = options.followTargetLink ? resolveLinks(requested) : requested;
  installSignalCleanup();
  const std::string folder = folderOf(path);

  std::string tmp;
  int fd = -1;
  int slot = -1;
  {
    const SignalsHeld held;
    for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
      tmp = folder + ".posviz-" + randomHex() + ".tmp";
      fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
      if (fd < 0 && errno != EEXIST) fail(requested, osReason(errno));  // nothing was created
    }
    if (fd < 0) fail(requested, "could not create a temporary file beside it (16 names were taken)");
    slot = publish(tmp);
  }
  // Removes the temporary file: on every error path, and never while a signal could see it half-gone.
  auto discard = [&]() {
    const SignalsHeld held;
    ::unlink(tmp.c_str());
    unpublish(slot);
  };

  FdOutBuf buf(fd);
  std::ostream out(&buf);
  // The OS reason of the first failing write wins over whatever the writer made of it.
  auto failWith = [&](const std::string& reason) {
    ::close(fd);
    discard();
    fail(requested, buf.failed() ? osReason(buf.firstError()) : reason);
  };
  try {
    write(out);
  } catch (const std::exception& e) {
    failWith(e.what());
  } catch (...) {
    failWith("the writer threw an unknown exception");
  }
  if (!out || !buf.flushBuffer()) failWith("I/O error");
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) failWith(osReason(errno));
  if (::close(fd) != 0) {
    const int err = errno;
    discard();
    fail(requested, osReason(err));
  }
  const SignalsHeld held;
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    unpublish(slot);
    fail(requested, osReason(err));
  }
  unpublish(slot);
}

std::string readRegularFile(const std::string& path, std::size_t maxBytes, const std::string& what) {
  auto refuse = [&](const std::string& reason) -> std::runtime_error {
    return std::runtime_error("cannot read " + what + " " + displayText(path) + ": " + reason);
  };
  if (path.empty()) throw std::runtime_error("cannot read " + what + ": the file name is empty");
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == EISDIR) throw refuse("it is a directory");
    throw refuse(osReason(errno));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw refuse(osReason(errno));
  if (S_ISDIR(st.st_mode)) throw refuse("it is a directory");
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a plain file";
    throw refuse(std::string("it is ") + kind + ", not a regular file");
  }
  auto tooLarge = [&]() {
    const std::string limit = maxBytes >= (1u << 20) && maxBytes % (1u << 20) == 0 ? std::to_string(maxBytes >> 20) + " MiB"
                              : maxBytes >= 1024 && maxBytes % 1024 == 0          ? std::to_string(maxBytes >> 10) + " KiB"
                                                                                  : std::to_string(maxBytes) + " bytes";
    return refuse("larger than the " + limit + " a " + what + " file may have");
  };
  if (static_cast<unsigned long long>(st.st_size) > maxBytes) throw tooLarge();
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) throw refuse(osReason(errno));
    if (n == 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
    if (text.size() > maxBytes) throw tooLarge();  // a file that grew while being read
  }
  return text;
}

}  // namespace posviz
