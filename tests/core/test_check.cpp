// Tests for core/check: every validator's accepted range and message.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/check.hpp"

using namespace posviz;

namespace {
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("check: formatValue is shortest round-trip text") {
  CHECK(formatValue(0.5) == "0.5");
  CHECK(formatValue(10000.0) == "10000");
  CHECK(formatValue(0.1) == "0.1");
  CHECK(formatValue(kNan) == "nan");
  CHECK(formatValue(kInf) == "inf");
  CHECK(formatValue(-kInf) == "-inf");
  CHECK(std::stod(formatValue(1.0 / 3.0)) == 1.0 / 3.0);
}

TEST_CASE("check: failArgument prefixes the function") {
  CHECK_THROWS_WITH_AS(failArgument("fn", "p must be x"), "fn: p must be x", std::invalid_argument);
}

TEST_CASE("check: floating-point validators") {
  CHECK_NOTHROW(requireFinite("f", "x", -3.0));
  CHECK_THROWS_WITH_AS(requireFinite("f", "x", kNan), "f: x must be a finite number, got nan", std::invalid_argument);
  CHECK_THROWS_WITH_AS(requireFinite("f", "x", -kInf), "f: x must be a finite number, got -inf", std::invalid_argument);

  CHECK_NOTHROW(requirePositive("f", "x", 1e-300));
  CHECK_THROWS_WITH_AS(requirePositive("f", "x", 0.0), "f: x must be a finite number > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(requirePositive("f", "x", kInf), "f: x must be a finite number > 0, got inf", std::invalid_argument);
  CHECK_THROWS_WITH_AS(requirePositive("f", "x", kNan), "f: x must be a finite number > 0, got nan", std::invalid_argument);

  CHECK_NOTHROW(requireAtLeast("f", "factor", 1.0, 1.0));
  CHECK_THROWS_WITH_AS(requireAtLeast("f", "factor", 0.5, 1.0), "f: factor must be a finite number >= 1, got 0.5",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(requireAtLeast("f", "factor", kNan, 1.0), "f: factor must be a finite number >= 1, got nan",
                       std::invalid_argument);

  CHECK_NOTHROW(requireGreater("f", "base", 1.0000001, 1.0));
  CHECK_THROWS_WITH_AS(requireGreater("f", "base", 1.0, 1.0), "f: base must be a finite number > 1, got 1",
                       std::invalid_argument);

  CHECK_NOTHROW(requireInRange("f", "frac", 1.0, 0.0, 1.0));
  CHECK_NOTHROW(requireInRange("f", "frac", 0.0, 0.0, 1.0));
  CHECK_THROWS_WITH_AS(requireInRange("f", "frac", 1.5, 0.0, 1.0), "f: frac must be in [0, 1], got 1.5", std::invalid_argument);
  CHECK_THROWS_WITH_AS(requireInRange("f", "frac", kNan, 0.0, 1.0), "f: frac must be in [0, 1], got nan", std::invalid_argument);
}

TEST_CASE("check: integer validators") {
  CHECK_NOTHROW(requirePositiveInt("f", "n", 1));
  CHECK_THROWS_WITH_AS(requirePositiveInt("f", "n", 0), "f: n must be > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(requirePositiveInt("f", "n", -5), "f: n must be > 0, got -5", std::invalid_argument);

  CHECK_NOTHROW(requireNonNegativeInt("f", "pos", 0));
  CHECK_THROWS_WITH_AS(requireNonNegativeInt("f", "pos", -1), "f: pos must be >= 0, got -1", std::invalid_argument);

  CHECK_NOTHROW(requireEven("f", "dModel", 2));
  CHECK_THROWS_WITH_AS(requireEven("f", "dModel", 63), "f: dModel must be even and > 0, got 63", std::invalid_argument);
  CHECK_THROWS_WITH_AS(requireEven("f", "dModel", 0), "f: dModel must be even and > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(requireEven("f", "dModel", -4), "f: dModel must be even and > 0, got -4", std::invalid_argument);

  CHECK_NOTHROW(requireIndex("f", "pair", 3, 4));
  CHECK_THROWS_WITH_AS(requireIndex("f", "pair", 4, 4), "f: pair must be in [0, 3], got 4", std::invalid_argument);
  CHECK_THROWS_WITH_AS(requireIndex("f", "pair", -1, 4), "f: pair must be in [0, 3], got -1", std::invalid_argument);
}
