#include "core/atomic_file.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <streambuf>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace posviz {

namespace {

std::atomic<unsigned long long> gTempCounter{0};

std::string osReason(int err) { return err != 0 ? std::string(std::strerror(err)) : std::string("I/O error"); }

[[noreturn]] void fail(const std::string& path, const std::string& tmp, const std::string& reason) {
  if (!tmp.empty()) std::remove(tmp.c_str());
  throw std::runtime_error("cannot write " + path + ": " + reason);
}

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

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty()) throw std::runtime_error("cannot write an empty path: a file name is required");
  const std::string tmp = path + ".tmp-" + std::to_string(static_cast<long long>(::getpid())) + "-" +
                          std::to_string(gTempCounter.fetch_add(1));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) fail(path, "", osReason(errno));  // nothing was created
  FdOutBuf buf(fd);
  std::ostream out(&buf);
  // The OS reason of the first failing write wins over whatever the writer made of it.
  auto failWith = [&](const std::string& reason) {
    ::close(fd);
    fail(path, tmp, buf.failed() ? osReason(buf.firstError()) : reason);
  };
  try {
    write(out);
  } catch (const std::exception& e) {
    failWith(e.what());
  } catch (...) {
    failWith("the writer threw an unknown exception");
  }
  if (!out || !buf.flushBuffer()) failWith("I/O error");
  if (::close(fd) != 0) fail(path, tmp, osReason(errno));
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail(path, tmp, osReason(errno));
}

}  // namespace posviz
