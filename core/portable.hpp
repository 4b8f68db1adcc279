// portable.hpp: the standard-library pieces posviz uses that the browser build's library lacks,
// each behind one name that means the same on every platform.
//
// WHAT
//   bitCast<To>(from)           std::bit_cast (the bits of from, reread as To; same size)
//   toCharsShortest(f, l, v)    std::to_chars(first, last, v) for float and double: the shortest
//                               text that reads back as v, in fixed or scientific form, whichever
//                               is shorter (fixed on a tie): "0.1", "1e+20", "1e-07", "123456792",
//                               "5e-324", "-0", "inf", "-nan"
//   fromCharsReal(f, l, v)      std::from_chars(first, last, v) for double (chars_format::general)
//
// WHY
//   emscripten 3.1.6's libc++ (the browser build) has no std::bit_cast and no floating-point
//   std::to_chars or std::from_chars. Where the library has them (__cpp_lib_bit_cast,
//   __cpp_lib_to_chars, as libstdc++ 12 on the desktop does) these are the std functions; else the
//   fallbacks in namespace detail run, written to give the same bytes and values (the tests compare
//   them with the std functions on the desktop: tests/core/test_portable.cpp).
//
// HOW (fallbacks)
//   bitCast: std::memcpy. toCharsShortest: the fewest significant digits p (1..9 float, 1..17
//   double) for which the p-digit decimal nearest v reads back as v: printf's correctly rounded
//   "%.*e" or, when v is a power of two (whose lower gap is half the upper), the next p-digit
//   decimal above it; whether a decimal reads back is one double operation where that decides
//   (Clinger's fast path), else strtof / strtod. Then laid out as libstdc++'s to_chars does:
//   scientific with at least two exponent digits, or fixed, where a whole number is written
//   exactly ("%.0f", as printf would: 123456789.0f is "123456792").
//   fromCharsReal: the from_chars grammar scanned here (no leading space or '+', no hex; "inf",
//   "infinity", "nan", "nan(chars)" in any case), the digits converted by strtod. Both use the C
//   library in the "C" locale, which posviz never changes.
//
// ERRORS
//   As the std functions: toCharsShortest returns {last, std::errc::value_too_large} when the text
//   does not fit; fromCharsReal returns {first, std::errc::invalid_argument} when no number starts
//   at first, and std::errc::result_out_of_range (v unchanged) when the number overflows to inf or
//   underflows to 0.
#pragma once

#include <bit>
#include <charconv>
#include <cstring>
#include <type_traits>

namespace posviz {

template <class To, class From>
To bitCast(const From& from) noexcept {
  static_assert(sizeof(To) == sizeof(From), "bitCast: To and From must have the same size");
  static_assert(std::is_trivially_copyable_v<To> && std::is_trivially_copyable_v<From>,
                "bitCast: To and From must be trivially copyable");
#if defined(__cpp_lib_bit_cast)
  return std::bit_cast<To>(from);
#else
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
#endif
}

std::to_chars_result toCharsShortest(char* first, char* last, float v);
std::to_chars_result toCharsShortest(char* first, char* last, double v);
std::from_chars_result fromCharsReal(const char* first, const char* last, double& v);

namespace detail {
// The paths taken where the library has no floating-point charconv; public for the tests.
std::to_chars_result toCharsShortestFallback(char* first, char* last, float v);
std::to_chars_result toCharsShortestFallback(char* first, char* last, double v);
std::from_chars_result fromCharsRealFallback(const char* first, const char* last, double& v);
}  // namespace detail

}  // namespace posviz
