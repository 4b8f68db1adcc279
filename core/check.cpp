#include "core/check.hpp"

#include <cmath>
#include <stdexcept>

#include "core/portable.hpp"

namespace posviz {

void failArgument(const char* fn, const std::string& message) {
  throw std::invalid_argument(std::string(fn) + ": " + message);
}

std::string formatValue(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = toCharsShortest(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

void requireFinite(const char* fn, const char* param, double v) {
  if (!std::isfinite(v)) failArgument(fn, std::string(param) + " must be a finite number, got " + formatValue(v));
}

void requirePositive(const char* fn, const char* param, double v) {
  if (!std::isfinite(v) || !(v > 0)) failArgument(fn, std::string(param) + " must be a finite number > 0, got " + formatValue(v));
}

void requireAtLeast(const char* fn, const char* param, double v, double min) {
  if (!std::isfinite(v) || v < min)
    failArgument(fn, std::string(param) + " must be a finite number >= " + formatValue(min) + ", got " + formatValue(v));
}

void requireGreater(const char* fn, const char* param, double v, double min) {
  if (!std::isfinite(v) || !(v > min))
    failArgument(fn, std::string(param) + " must be a finite number > " + formatValue(min) + ", got " + formatValue(v));
}

void requireInRange(const char* fn, const char* param, double v, double lo, double hi) {
  if (!std::isfinite(v) || v < lo || v > hi)
    failArgument(fn, std::string(param) + " must be in [" + formatValue(lo) + ", " + formatValue(hi) + "], got " + formatValue(v));
}

void requirePositiveInt(const char* fn, const char* param, long long v) {
  if (v <= 0) failArgument(fn, std::string(param) + " must be > 0, got " + std::to_string(v));
}

void requireNonNegativeInt(const char* fn, const char* param, long long v) {
  if (v < 0) failArgument(fn, std::string(param) + " must be >= 0, got " + std::to_string(v));
}

void requireEven(const char* fn, const char* param, long long v) {
  if (v <= 0 || v % 2 != 0) failArgument(fn, std::string(param) + " must be even and > 0, got " + std::to_string(v));
}

void requireIndex(const char* fn, const char* param, long long v, long long count) {
  if (v < 0 || v >= count)
    failArgument(fn, std::string(param) + " must be in [0, " + std::to_string(count - 1) + "], got " + std::to_string(v));
}

}  // namespace posviz
