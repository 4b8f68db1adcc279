#include "core/grid.hpp"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace posviz {

namespace {
std::atomic<std::uint64_t> gBudget{kDefaultMemoryBudgetBytes};
}

namespace {

// Branch-free, so the loop vectorizes (a 256 x 256 grid per ALiBi head, 128 heads a drag):
// v - v is 0 for a finite v and NaN for an infinity or a NaN, so only finite values move lo and
// hi. No finite value: {0, 0}.
template <class T>
ValueRange finiteRangeOf(std::span<const T> values) {
  T lo = std::numeric_limits<T>::infinity(), hi = -std::numeric_limits<T>::infinity();
  for (const T v : values) {
    const bool finite = v - v == T(0);
    lo = finite && v < lo ? v : lo;
    hi = finite && v > hi ? v : hi;
  }
  if (!(lo <= hi)) return {0.0f, 0.0f};
  return {static_cast<float>(lo), static_cast<float>(hi)};
}

}  // namespace

ValueRange finiteRange(const Grid& g) { return finiteRangeOf<float>(g.values); }

ValueRange finiteRange(std::span<const double> values) { return finiteRangeOf<double>(values); }

std::uint64_t memoryBudgetBytes() { return gBudget.load(); }

void setMemoryBudgetBytes(std::uint64_t bytes) {
  if (bytes == 0) throw std::invalid_argument("setMemoryBudgetBytes: bytes must be > 0, got 0");
  gBudget.store(bytes);
}

std::string formatBytes(std::uint64_t bytes) {
  char buf[64];
  const double b = static_cast<double>(bytes);
  if (bytes < 1024) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else if (bytes < (1ull << 20)) std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
  else if (bytes < (1ull << 30)) std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.2f GiB", b / 1073741824.0);
  return buf;
}

void requireBudget(const char* fn, std::uint64_t count, std::uint64_t bytesPerElement, const std::string& what) {
  const std::uint64_t budget = memoryBudgetBytes();
  const bool overflow = bytesPerElement != 0 && count > std::numeric_limits<std::uint64_t>::max() / bytesPerElement;
  const std::uint64_t need = overflow ? std::numeric_limits<std::uint64_t>::max() : count * bytesPerElement;
  if (overflow || need > budget) {
    throw std::invalid_argument(std::string(fn) + ": " + what + " needs " +
                                (overflow ? std::string("more than 16 EiB") : formatBytes(need)) +
                                ", over the memory budget of " + formatBytes(budget));
  }
}

}  // namespace posviz
