// check.hpp: argument validation shared by every public core function.
//
// Each check throws std::invalid_argument with a message that names the function, the
// parameter, the value and what is allowed, e.g. "ropeAngle: headDim must be even, got 63".
// assert() is for internal invariants only; user input always goes through these.
#pragma once

#include <string>

namespace posviz {

[[noreturn]] void failArgument(const char* fn, const std::string& message);

std::string formatValue(double v);  // shortest round-trip text; "nan", "inf", "-inf"

void requireFinite(const char* fn, const char* param, double v);
void requirePositive(const char* fn, const char* param, double v);                // finite and > 0
void requireAtLeast(const char* fn, const char* param, double v, double min);     // finite and >= min
void requireGreater(const char* fn, const char* param, double v, double min);     // finite and > min
void requireInRange(const char* fn, const char* param, double v, double lo, double hi);  // finite, lo <= v <= hi
void requirePositiveInt(const char* fn, const char* param, long long v);          // > 0
void requireNonNegativeInt(const char* fn, const char* param, long long v);       // >= 0
void requireEven(const char* fn, const char* param, long long v);                 // > 0 and even
void requireIndex(const char* fn, const char* param, long long v, long long count);  // 0 <= v < count

}  // namespace posviz
