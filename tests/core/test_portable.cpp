// Tests for core/portable: bitCast, and the charconv fallbacks the browser build runs, compared
// byte for byte (and value for value) with the desktop library's std::to_chars / std::from_chars.
#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/portable.hpp"
#include "core/random.hpp"

using namespace posviz;

namespace {

template <class T>
using BitsOf = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <class T>
std::string hexBits(T v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", static_cast<int>(2 * sizeof(T)),
                static_cast<unsigned long long>(bitCast<BitsOf<T>>(v)));
  return buf;
}

template <class T>
std::string fallbackText(T v) {
  char buf[64];
  const auto r = detail::toCharsShortestFallback(buf, buf + sizeof buf, v);
  REQUIRE(r.ec == std::errc{});
  return std::string(buf, r.ptr);
}

template <class T>
std::string shortestText(T v) {
  char buf[64];
  const auto r = toCharsShortest(buf, buf + sizeof buf, v);
  REQUIRE(r.ec == std::errc{});
  return std::string(buf, r.ptr);
}

// Bit patterns of every class: raw bits (mostly normal numbers), subnormals (exponent field 0),
// infinities and NaNs of either sign and any payload (exponent field all ones), and decimals of
// a few digits (short texts, where the fixed / scientific choice and trailing zeros are decided).
template <class T>
T drawValue(Rng& rng) {
  using Bits = BitsOf<T>;
  constexpr int kMantissaBits = std::numeric_limits<T>::digits - 1;
  constexpr Bits kMantissa = (Bits{1} << kMantissaBits) - 1;
  constexpr Bits kExponent = static_cast<Bits>(~Bits{0} >> 1) & ~kMantissa;
  constexpr Bits kSign = static_cast<Bits>(~(~Bits{0} >> 1));
  const Bits raw = static_cast<Bits>(rng.nextU64());
  switch (rng.nextU64() % 8) {
    case 0: return bitCast<T>(static_cast<Bits>(raw & (kSign | kMantissa)));                        // subnormal or zero
    case 1: return bitCast<T>(static_cast<Bits>(raw | kExponent));                                   // NaN or inf
    case 2: return bitCast<T>(static_cast<Bits>((raw & kSign) | kExponent));                         // inf
    case 3: return bitCast<T>(static_cast<Bits>(raw & kSign));                                       // signed zero
    case 4:
    case 5: {
      const int digits = 1 + static_cast<int>(rng.nextU64() % std::numeric_limits<T>::max_digits10);
      std::uint64_t m = rng.nextU64() % 100000000000000000ULL;
      while (m >= 10 && std::to_string(m).size() > static_cast<std::size_t>(digits)) m /= 10;
      const int e = static_cast<int>(rng.nextU64() % 61) - 30;
      const std::string text = std::to_string(m) + "e" + std::to_string(e);
      const double d = std::strtod(text.c_str(), nullptr);
      return static_cast<T>((raw & 1) ? -d : d);
    }
    default: return bitCast<T>(raw);
  }
}

// Values at the edges: zeros, extremes of each range, powers of two (whose lower rounding gap is
// half the upper, so the nearest decimal of some length may not read back while its neighbour
// does), powers of ten and the fixed / scientific boundary around them.
template <class T>
std::vector<T> edgeValues() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0),        -T(0),         L::min(),      L::denorm_min(), -L::denorm_min(), L::max(),
                      -L::max(),   L::lowest(),   L::epsilon(),  L::infinity(),   -L::infinity(),   L::quiet_NaN(),
                      -L::quiet_NaN(), T(0.1),    T(0.2),        T(0.3),          T(1) / T(3),      T(2) / T(3),
                      T(1e20),     T(1e-7),       T(123456789.0), T(1e-5),        T(1e-4),          T(12345.678),
                      T(100000),   T(1000000),    T(9999999),    T(1.5e17),       T(0.000123),      T(1e15),
                      T(1e16),     T(16777216.0), T(16777217.0), T(9007199254740992.0), T(9007199254740993.0)};
  v.push_back(std::nextafter(L::min(), T(0)));  // largest subnormal
  v.push_back(std::nextafter(L::max(), T(0)));
  for (int e = L::min_exponent - L::digits; e < L::max_exponent; ++e) {
    v.push_back(std::ldexp(T(1), e));
    v.push_back(std::nextafter(std::ldexp(T(1), e), T(0)));
  }
  for (int e = L::min_exponent10 - 1; e <= L::max_exponent10; ++e) {
    const T p = static_cast<T>(std::strtod(("1e" + std::to_string(e)).c_str(), nullptr));
    v.push_back(p);
    v.push_back(std::nextafter(p, T(0)));
    v.push_back(std::nextafter(p, L::infinity()));
    v.push_back(static_cast<T>(std::strtod(("1.2345e" + std::to_string(e)).c_str(), nullptr)));
  }
  return v;
}

}  // namespace

TEST_CASE("portable: bitCast rereads the bits") {
  CHECK(bitCast<std::uint32_t>(1.0f) == 0x3f800000u);
  CHECK(bitCast<std::uint32_t>(-0.0f) == 0x80000000u);
  CHECK(bitCast<std::uint64_t>(1.0) == 0x3ff0000000000000ull);
  CHECK(bitCast<std::uint64_t>(-2.5) == 0xc004000000000000ull);
  CHECK(bitCast<float>(0x7f800000u) == std::numeric_limits<float>::infinity());
  CHECK(bitCast<double>(0x0000000000000001ull) == std::numeric_limits<double>::denorm_min());
  Rng rng(7);
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t u = rng.nextU64();
    CAPTURE(u);
    CHECK(bitCast<std::uint64_t>(bitCast<double>(u)) == u);
    const auto u32 = static_cast<std::uint32_t>(u);
    CHECK(bitCast<std::uint32_t>(bitCast<float>(u32)) == u32);
    double d = 0.0;
    std::memcpy(&d, &u, sizeof d);
    CHECK(bitCast<std::uint64_t>(d) == u);
  }
}

TEST_CASE("portable: toCharsShortest writes the shortest text, fixed or scientific, whichever is shorter") {
  CHECK(shortestText(1e20) == "1e+20");
  CHECK(shortestText(1e-7) == "1e-07");
  CHECK(shortestText(123456789.0) == "123456789");
  CHECK(shortestText(123456789.0f) == "123456792");  // fixed writes the whole number exactly
  CHECK(shortestText(0.1f) == "0.1");
  CHECK(shortestText(0.1) == "0.1");
  CHECK(shortestText(5e-324) == "5e-324");
  CHECK(shortestText(1.2345678901234568e20) == "123456789012345683968");
  CHECK(shortestText(-0.0) == "-0");
  CHECK(shortestText(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(shortestText(-std::numeric_limits<float>::infinity()) == "-inf");
  CHECK(shortestText(std::numeric_limits<double>::quiet_NaN()) == "nan");
  CHECK(shortestText(-std::numeric_limits<double>::quiet_NaN()) == "-nan");
}

TEST_CASE("portable: the to_chars fallback reports a buffer too small as value_too_large") {
  char buf[8];
  for (const double v : {1.0 / 3.0, -1e-300, 123456789.0}) {
    CAPTURE(v);
    const auto r = detail::toCharsShortestFallback(buf, buf + 4, v);
    CHECK(r.ec == std::errc::value_too_large);
    CHECK(r.ptr == buf + 4);
  }
  const auto fits = detail::toCharsShortestFallback(buf, buf + 3, 0.5f);
  CHECK(fits.ec == std::errc{});
  CHECK(std::string(buf, fits.ptr) == "0.5");
}

#if defined(__cpp_lib_to_chars)

namespace {

template <class T>
void checkSameText(T v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  REQUIRE(r.ec == std::errc{});
  CHECK(fallbackText(v) == std::string(buf, r.ptr));
}

// The same pointer, error and value (bits; for a NaN, NaN and sign) as std::from_chars.
void checkSameReading(const std::string& text) {
  const char* first = text.data();
  const char* last = first + text.size();
  double expected = -7.0;
  double got = -7.0;
  const auto want = std::from_chars(first, last, expected);
  const auto have = detail::fromCharsRealFallback(first, last, got);
  CHECK(have.ptr - first == want.ptr - first);
  CHECK(have.ec == want.ec);
  if (std::isnan(expected)) {
    CHECK(std::isnan(got));
    CHECK(std::signbit(got) == std::signbit(expected));
  } else {
    CHECK(hexBits(got) == hexBits(expected));
  }
}

}  // namespace

TEST_CASE("portable: the to_chars fallback writes std::to_chars's bytes at the edges") {
  for (const float v : edgeValues<float>()) {
    CAPTURE(hexBits(v));
    checkSameText(v);
  }
  for (const double v : edgeValues<double>()) {
    CAPTURE(hexBits(v));
    checkSameText(v);
  }
}

TEST_CASE("portable: the to_chars fallback writes std::to_chars's bytes for random bit patterns") {
  Rng rng(20240601);
  for (int i = 0; i < 100000; ++i) {
    const float f = drawValue<float>(rng);
    const double d = drawValue<double>(rng);
    CAPTURE(i);
    CAPTURE(hexBits(f));
    CAPTURE(hexBits(d));
    checkSameText(f);
    checkSameText(d);
  }
}

TEST_CASE("portable: the from_chars fallback reads as std::from_chars does") {
  const char* texts[] = {"0",      "-0",       "1",         "-1.5",      "0.1",     ".5",        "5.",
                         "1e5",    "1E5",      "1e+5",      "1e-5",      "1.e5",    "1e",        "1e+",
                         "1e5x",   "12abc",    "0x10",      "1e-400",    "1e400",   "-1e400",    "2e-324",
                         "3e-324", "4.9e-324", "1e-310",    "2.2250738585072014e-308", "1.7976931348623157e308",
                         "1.7976931348623159e308", "inf",  "-INF",      "Infinity", "infinit",   "nan",
                         "-nan",   "NaN(123)", "nan(ab_c)", "nan(",      "nan(x y)", "",          "-",
                         "+1",     " 1",       ".",         "-.",        "e5",      "0000.000100", "1,5",
                         "123456789012345678901234567890e-10", "0.000000000000000000000000000001e-300"};
  for (const char* t : texts) {
    CAPTURE(std::string(t));
    checkSameReading(t);
  }
  // Texts the writer makes read back to the same double.
  Rng rng(99);
  for (int i = 0; i < 20000; ++i) {
    const double d = drawValue<double>(rng);
    const std::string text = fallbackText(d);
    CAPTURE(text);
    checkSameReading(text);
  }
}

#else

TEST_CASE("portable: the fallbacks are checked against std::to_chars") {
  WARN_MESSAGE(false, "this standard library has no floating-point std::to_chars to compare the fallbacks with");
}

#endif
