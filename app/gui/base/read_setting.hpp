// read_setting.hpp: how a panel reads its saved values back (settings.json's "panels" object).
//
// A key that is missing, of the wrong JSON type, not finite or outside [lo, hi] leaves the value
// as it was (and returns false), so a hand-edited or older file can only ever set values the
// sliders could. Parameters of the table (app/cli/scheme_params.hpp) are read with cli::loadParam.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "app/cli/params.hpp"
#include "core/colormap.hpp"

namespace posviz::app {

// value = j[key] when it is a number in [lo, hi] (integers are truncated, as a slider would);
// 64-bit unsigned values (seeds) must be unsigned JSON integers and are read exactly.
template <class T>
bool readSetting(const nlohmann::json& j, const char* key, T& value, std::type_identity_t<T> lo,
                 std::type_identity_t<T> hi) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, "readSetting: numbers only here");
  if (!j.contains(key)) return false;
  const nlohmann::json& v = j[key];
  if constexpr (std::is_unsigned_v<T> && sizeof(T) == sizeof(std::uint64_t)) {
    if (!v.is_number_unsigned()) return false;
    const std::uint64_t x = v.get<std::uint64_t>();
    if (x < lo || x > hi) return false;
    value = static_cast<T>(x);
  } else {
    if (!v.is_number()) return false;
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < static_cast<double>(lo) || x > static_cast<double>(hi)) return false;
    value = static_cast<T>(x);
  }
  return true;
}
bool readSetting(const nlohmann::json& j, const char* key, bool& value);          // a JSON boolean

// A tab lists its parameters once, in a function that calls visit(param, member) for each; save
// walks that list with ParamSaver, load with ParamLoader.
struct ParamSaver {
  nlohmann::json& j;
  template <class T>
  void operator()(const cli::Param& p, const T& value) const { cli::saveParam(j, p, value); }
};
struct ParamLoader {
  const nlohmann::json& j;
  template <class T>
  void operator()(const cli::Param& p, T& value) const { cli::loadParam(j, p, value); }
};
bool readSetting(const nlohmann::json& j, const char* key, std::string& value);   // a JSON string
bool readSetting(const nlohmann::json& j, const char* key, Colormap& value);      // a colormap name

}  // namespace posviz::app
