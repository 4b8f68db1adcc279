// params.hpp: the one definition of every parameter a person can set, per scheme.
//
// A Param is a parameter's name in settings, its command-line flag, its slider label, what values
// it allows, its default (the core struct's own default where core has the parameter), the
// slider's usual span, its unit and one line of help. Everything that shows or reads the
// parameter reads this definition:
//   the CLI           readParam(options, p, value)      range checks and error text, optionHelp(p) in --help
//   settings          loadParam(json, p, value) / saveParam(json, p, value)
//   the window        paramSlider(p, value) (app/gui/widgets/param_widgets.hpp): range, help, default
//   model configs     fitsParam(p, value): a config's value the parameter cannot take is reported
//
// USAGE
//   int d = params::sinusoidal::kDModel.defaultInt();              // 128, core's SinusoidalParams{}.dModel
//   readParam(o, params::sinusoidal::kDModel, r.sin.dModel);       // --d-model checked: even, 2 .. 2^20
//   saveParam(j, params::rope::kBase, s.params.base);              // j["base"] = 10000
//
// RANGES
//   [min, max] is what core accepts (and the CLI and settings with it). A slider shows the usual
//   span [sliderMin, sliderMax] and widens it to show any allowed value it is given, so a loaded
//   config is never cut to a slider's end without a word.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "app/cli/args.hpp"

namespace posviz::cli {

enum class ParamKind {
  Int,      // an integer in [min, max]
  EvenInt,  // an even integer in [min, max] (dims come in pairs)
  Real,     // a finite number in [min, max] (> min when minExclusive)
  Choice,   // one of choices[0..]; the value is its index
  Text,     // text the view reads itself (a list, a sentence, a sequence): flag, help and key only
  Switch,   // a flag without a value (--causal): present or not
};

struct Param {
  std::string_view key;        // settings key and JSON name: "d_model"
  std::string_view flag;       // "--d-model"; empty when only the window sets it
  std::string_view label;      // the slider's label: "d_model"
  ParamKind kind = ParamKind::Real;
  double min = 0.0, max = 0.0;  // allowed, inclusive (see minExclusive)
  double def = 0.0;            // the default; Choice: the index
  double sliderMin = 0.0, sliderMax = 0.0;   // the slider's usual span inside [min, max]; 0, 0 = [min, max]
  bool log = false;            // slider on a log scale
  bool minExclusive = false;   // Real: > min rather than >= min
  std::string_view format = "%.4g";          // slider text for Real values
  std::string_view unit;       // "positions", "rotations", "" (shown after the range in help)
  std::string_view help;       // one line
  // Choice: the names in index order ("" ends the list); "t2t|tensor2tensor" is written as its
  // first name and read as any of them.
  std::array<std::string_view, 8> choices{};

  bool isInteger() const { return kind == ParamKind::Int || kind == ParamKind::EvenInt || kind == ParamKind::Choice; }
  long long defaultInt() const { return static_cast<long long>(def); }
  double spanMin() const { return sliderMin == 0.0 && sliderMax == 0.0 ? min : sliderMin; }
  double spanMax() const { return sliderMin == 0.0 && sliderMax == 0.0 ? max : sliderMax; }
  int choiceCount() const;
  std::string_view choiceName(int index) const;   // the first name of choices[index]
  std::optional<int> choiceIndex(std::string_view name) const;   // any of its names
};

// "an even integer in [2, 1048576]", "a number > 1", "one of half-split|interleaved".
std::string describeAllowed(const Param& p);
// The default as it is written on a command line ("10000", "half-split", "0.1").
std::string formatDefault(const Param& p);
// The --help line: help, what is allowed, the default ("... even integer in [2, 1048576], default 128").
std::string optionHelp(const Param& p);
// The row of the CLI's option table for p (p.flag must be set).
OptionSpec optionSpec(const Param& p, std::string_view metavar);
// True when v is allowed (an even integer for EvenInt, a valid index for Choice).
bool fitsParam(const Param& p, double v);
// "--d-model: got 5, expected an even integer in [2, 1048576]"-style text for a value from
// somewhere other than the command line (a config, a lesson), naming `source`.
std::string notAllowedText(const Param& p, double v, std::string_view source);

// The value given for p.flag parsed and checked (UsageError naming the flag otherwise); nullopt
// when the flag is absent. Integers come back exactly, reals as given, choices as their index.
std::optional<double> parseParamValue(const ParsedOptions& o, const Param& p);
std::optional<long long> parseParamInt(const ParsedOptions& o, const Param& p);

// value = the flag's value when given; true when it was.
template <class T>
bool readParam(const ParsedOptions& o, const Param& p, T& value) {
  if constexpr (std::is_floating_point_v<T>) {
    const std::optional<double> v = parseParamValue(o, p);
    if (!v) return false;
    value = static_cast<T>(*v);
  } else {
    const std::optional<long long> v = parseParamInt(o, p);
    if (!v) return false;
    value = static_cast<T>(*v);
  }
  return true;
}

// Settings: value = j[p.key] when it is there and allowed (a choice by its name); otherwise the
// value stays as it was and the result is false, so a hand-edited file can only set allowed values.
bool loadParamNumber(const nlohmann::json& j, const Param& p, double& value);
template <class T>
bool loadParam(const nlohmann::json& j, const Param& p, T& value) {
  double v = 0.0;
  if (!loadParamNumber(j, p, v)) return false;
  value = static_cast<T>(v);
  return true;
}
// j[p.key] = value (a choice by its name).
void saveParamNumber(nlohmann::json& j, const Param& p, double value);
template <class T>
void saveParam(nlohmann::json& j, const Param& p, const T& value) {
  saveParamNumber(j, p, static_cast<double>(value));
}

namespace params {
inline constexpr double kIntMax = static_cast<double>(std::numeric_limits<int>::max());   // for position counts
}  // namespace params

}  // namespace posviz::cli
