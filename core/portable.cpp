#include "core/portable.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

namespace posviz {

namespace {

// [SECTION] shortest digits
// |v| = digits * 10^exponent, digits having length decimal digits.
struct Decimal {
  std::uint64_t digits = 0;
  int exponent = 0;
  int length = 0;
};

template <class T>
constexpr int kMaxDigits = std::is_same_v<T, float> ? 9 : 17;  // always enough to read back

// 10^0 .. 10^22, each exact in double.
constexpr double kExactPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// The double nearest d where one correctly rounded operation on exact operands gives it: digits
// below 2^53 and |exponent| at most 22 (Clinger's fast path, the common case). false otherwise.
bool fastNearestDouble(const Decimal& d, double& x) {
  if (d.digits >= (std::uint64_t{1} << 53) || d.exponent < -22 || d.exponent > 22) return false;
  const double m = static_cast<double>(d.digits);
  x = d.exponent >= 0 ? m * kExactPowersOfTen[d.exponent] : m / kExactPowersOfTen[-d.exponent];
  return true;
}

template <class T>
T parseDecimal(const Decimal& d) {
  char buf[48];
  char* end = std::to_chars(buf, buf + 20, d.digits).ptr;
  *end++ = 'e';
  *std::to_chars(end, buf + sizeof buf - 1, d.exponent).ptr = '\0';
  if constexpr (std::is_same_v<T, float>)
    return std::strtof(buf, nullptr);
  else
    return std::strtod(buf, nullptr);
}

// Whether d reads back as a: by the fast path where it decides, else strtod / strtof (several
// times slower: about 2 us a call in the browser). For float the fast path's double is rounded
// once more, which gives the float nearest d unless that double lies exactly halfway between two
// floats, where d itself may lie on either side.
bool readsBack(double a, const Decimal& d) {
  double x = 0.0;
  if (fastNearestDouble(d, x)) return x == a;
  return parseDecimal<double>(d) == a;
}

bool readsBack(float a, const Decimal& d) {
  double x = 0.0;
  if (fastNearestDouble(d, x) && x <= std::numeric_limits<float>::max()) {
    const auto f = static_cast<float>(x);
    const float other = std::nextafter(f, x > f ? std::numeric_limits<float>::max() : 0.0f);  // x's other side
    if (x == static_cast<double>(f) || x != 0.5 * (static_cast<double>(f) + static_cast<double>(other))) return f == a;
  }
  return parseDecimal<float>(d) == a;
}

std::uint64_t powerOfTen(int n) {
  std::uint64_t p = 1;
  while (n-- > 0) p *= 10;
  return p;
}

// printf's "%.*e" of a with p significant digits, correctly rounded.
Decimal printfDecimal(double a, int p) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*e", p - 1, a);
  Decimal d{0, 0, p};
  const char* c = buf;
  for (; *c != 'e'; ++c)
    if (*c != '.') d.digits = d.digits * 10 + static_cast<std::uint64_t>(*c - '0');
  d.exponent = std::atoi(c + 1) - (p - 1);
  return d;
}

// The p-digit decimal nearest a, rounded from its kMaxDigits digits (all): that is the correct
// rounding unless those digits end in a tie ("5" then zeros) the exact value may lie on either
// side of, and then printf says.
template <class T>
Decimal nearestDecimal(T a, const Decimal& all, int p) {
  if (p == all.length) return all;
  const std::uint64_t cut = powerOfTen(all.length - p);
  const std::uint64_t tail = all.digits % cut;
  if (tail == cut / 2) return printfDecimal(static_cast<double>(a), p);
  Decimal d{all.digits / cut + (tail > cut / 2 ? 1 : 0), all.exponent + (all.length - p), p};
  if (d.digits == powerOfTen(p)) {  // rounded up to the next power of ten
    d.digits /= 10;
    ++d.exponent;
  }
  return d;
}

// The p-digit decimal nearest a (> 0, finite) among those that read back as a; digits 0 if none.
// Only a power of two's rounding interval is lopsided (the gap below is half the gap above, except
// at the smallest normal number): there, when the nearest lies below and misses, the next p-digit
// decimal above may still be inside.
template <class T>
Decimal readingBack(T a, const Decimal& all, int p) {
  const Decimal d = nearestDecimal(a, all, p);
  if (readsBack(a, d)) return d;
  int e = 0;
  if (a > std::numeric_limits<T>::min() && std::frexp(a, &e) == T(0.5)) {
    const std::uint64_t top = powerOfTen(p) - 1;  // the next one up is 10^(p-1) at ten times the scale
    const Decimal above =
        d.digits == top ? Decimal{powerOfTen(p - 1), d.exponent + 1, p} : Decimal{d.digits + 1, d.exponent, p};
    if (readsBack(a, above)) return above;
  }
  return Decimal{};
}

// Whether some p-digit decimal reads back grows with p (append a 0), so the fewest is a bisection;
// kMaxDigits always read back.
template <class T>
Decimal shortestDecimal(T a) {
  const Decimal all = printfDecimal(static_cast<double>(a), kMaxDigits<T>);
  Decimal best = all;
  int lo = 1;
  int hi = kMaxDigits<T>;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    const Decimal d = readingBack(a, all, mid);
    if (d.digits != 0) {
      best = d;
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return best;
}

// [SECTION] layout
// libstdc++'s choice (floating_to_chars.cc): fixed when the exponent of the shortest digits lies
// in [-(length + 3), 5] ([-(length + 2), 4] for one digit, whose scientific form has no '.'),
// exactly where fixed is not longer than scientific.
template <class T>
std::string shortestText(T v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  std::string out = std::signbit(v) ? "-" : "";
  if (std::isinf(v)) return out + "inf";
  if (v == 0) return out + "0";
  const T a = std::fabs(v);
  const Decimal d = shortestDecimal(a);
  const std::string digits = std::to_string(d.digits);
  int lower = -(d.length + 3);
  int upper = 5;
  if (d.length == 1) {
    ++lower;
    --upper;
  }
  if (d.exponent < lower || d.exponent > upper) {
    out += digits[0];
    if (d.length > 1) out += "." + digits.substr(1);
    const int e = d.exponent + d.length - 1;
    char buf[16];
    std::snprintf(buf, sizeof buf, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    return out + buf;
  }
  if (d.exponent >= 0) {
    // A whole number: every digit exact, as printf's "%.0f" writes it (the shortest digits alone
    // may end in zeros the value does not have).
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", static_cast<double>(a));
    return out + buf;
  }
  const int whole = d.length + d.exponent;  // digits before the point
  if (whole <= 0) return out + "0." + std::string(static_cast<std::size_t>(-whole), '0') + digits;
  return out + digits.substr(0, static_cast<std::size_t>(whole)) + "." + digits.substr(static_cast<std::size_t>(whole));
}

std::to_chars_result copyOut(char* first, char* last, const std::string& text) {
  if (last - first < static_cast<std::ptrdiff_t>(text.size())) return {last, std::errc::value_too_large};
  std::memcpy(first, text.data(), text.size());
  return {first + text.size(), std::errc{}};
}

// [SECTION] reading
bool startsWithWord(const char* p, const char* last, const char* word) {
  for (; *word != '\0'; ++p, ++word)
    if (p == last || (*p | 0x20) != *word) return false;
  return true;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

namespace detail {

std::to_chars_result toCharsShortestFallback(char* first, char* last, float v) {
  return copyOut(first, last, shortestText(v));
}

std::to_chars_result toCharsShortestFallback(char* first, char* last, double v) {
  return copyOut(first, last, shortestText(v));
}

std::from_chars_result fromCharsRealFallback(const char* first, const char* last, double& v) {
  const char* p = first;
  const bool negative = p != last && *p == '-';
  if (negative) ++p;
  const double sign = negative ? -1.0 : 1.0;
  if (startsWithWord(p, last, "inf")) {
    p += startsWithWord(p, last, "infinity") ? 8 : 3;
    v = sign * std::numeric_limits<double>::infinity();
    return {p, std::errc{}};
  }
  if (startsWithWord(p, last, "nan")) {
    p += 3;
    if (p != last && *p == '(') {  // nan(n-char-sequence): letters, digits and '_'
      const char* q = p + 1;
      while (q != last && (isDigit(*q) || ((*q | 0x20) >= 'a' && (*q | 0x20) <= 'z') || *q == '_')) ++q;
      if (q != last && *q == ')') p = q + 1;
    }
    v = std::copysign(std::numeric_limits<double>::quiet_NaN(), sign);
    return {p, std::errc{}};
  }
  bool nonzero = false;
  int mantissaDigits = 0;
  for (; p != last && isDigit(*p); ++p, ++mantissaDigits) nonzero |= *p != '0';
  if (p != last && *p == '.')
    for (++p; p != last && isDigit(*p); ++p, ++mantissaDigits) nonzero |= *p != '0';
  if (mantissaDigits == 0) return {first, std::errc::invalid_argument};
  if (p != last && (*p == 'e' || *p == 'E')) {
    const char* q = p + 1;
    if (q != last && (*q == '+' || *q == '-')) ++q;
    if (q != last && isDigit(*q)) {
      while (q != last && isDigit(*q)) ++q;
      p = q;
    }
  }
  const double r = std::strtod(std::string(first, p).c_str(), nullptr);
  if (std::isinf(r) || (r == 0 && nonzero)) return {p, std::errc::result_out_of_range};
  v = r;
  return {p, std::errc{}};
}

}  // namespace detail

// [SECTION] dispatch: the library's own functions where it has floating-point charconv.
#if defined(__cpp_lib_to_chars)
std::to_chars_result toCharsShortest(char* first, char* last, float v) { return std::to_chars(first, last, v); }
std::to_chars_result toCharsShortest(char* first, char* last, double v) { return std::to_chars(first, last, v); }
std::from_chars_result fromCharsReal(const char* first, const char* last, double& v) {
  return std::from_chars(first, last, v);
}
#else
std::to_chars_result toCharsShortest(char* first, char* last, float v) {
  return detail::toCharsShortestFallback(first, last, v);
}
std::to_chars_result toCharsShortest(char* first, char* last, double v) {
  return detail::toCharsShortestFallback(first, last, v);
}
std::from_chars_result fromCharsReal(const char* first, const char* last, double& v) {
  return detail::fromCharsRealFallback(first, last, v);
}
#endif

}  // namespace posviz
