// params.cpp: what a Param allows, said and checked the same way for the CLI, settings and the window.
#include "app/cli/params.hpp"

#include <cmath>

#include "app/cli/export.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::cli {

namespace {

std::string number(double v) {
  if (std::abs(v) < 9.0e15 && v == std::floor(v)) return std::to_string(static_cast<long long>(v));
  return formatNumber(v);
}

std::string choiceList(const Param& p) {
  std::string out;
  for (int i = 0; i < p.choiceCount(); ++i) {
    if (i > 0) out += '|';
    out += std::string(p.choiceName(i));
  }
  return out;
}

RealRange realRange(const Param& p) { return RealRange{p.min, p.max, p.minExclusive, false}; }

}  // namespace

int Param::choiceCount() const {
  int n = 0;
  while (n < static_cast<int>(choices.size()) && !choices[static_cast<std::size_t>(n)].empty()) ++n;
  return n;
}

std::string_view Param::choiceName(int index) const {
  const std::string_view all = choices.at(static_cast<std::size_t>(index));
  return all.substr(0, all.find('|'));
}

std::optional<int> Param::choiceIndex(std::string_view name) const {
  for (int i = 0; i < choiceCount(); ++i) {
    std::string_view rest = choices[static_cast<std::size_t>(i)];
    while (!rest.empty()) {
      const std::size_t bar = rest.find('|');
      if (rest.substr(0, bar) == name) return i;
      rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
    }
  }
  return std::nullopt;
}

std::string describeAllowed(const Param& p) {
  switch (p.kind) {
    case ParamKind::Int: return "an integer in [" + number(p.min) + ", " + number(p.max) + "]";
    case ParamKind::EvenInt: return "an even integer in [" + number(p.min) + ", " + number(p.max) + "]";
    case ParamKind::Choice: return "one of " + choiceList(p);
    case ParamKind::Text: return "text";
    case ParamKind::Switch: return "on or off";
    case ParamKind::Real: break;
  }
  return describeRange(realRange(p));
}

std::string formatDefault(const Param& p) {
  if (p.kind == ParamKind::Switch) return p.def != 0.0 ? "on" : "off";
  if (p.kind == ParamKind::Choice) return std::string(p.choiceName(static_cast<int>(p.def)));
  return number(p.def);
}

std::string optionHelp(const Param& p) {
  if (p.kind == ParamKind::Text || p.kind == ParamKind::Switch) return std::string(p.help);
  std::string out = std::string(p.help) + "; " + describeAllowed(p);
  if (!p.unit.empty()) out += " " + std::string(p.unit);
  return out + " (default " + formatDefault(p) + ")";
}

OptionSpec optionSpec(const Param& p, std::string_view metavar) {
  return OptionSpec{std::string(p.flag), p.kind != ParamKind::Switch, std::string(metavar), optionHelp(p)};
}

bool fitsParam(const Param& p, double v) {
  if (!std::isfinite(v)) return false;
  switch (p.kind) {
    case ParamKind::Text: return false;
    case ParamKind::Switch: return v == 0.0 || v == 1.0;
    case ParamKind::Choice: return v == std::floor(v) && v >= 0 && v < p.choiceCount();
    case ParamKind::Int: return v == std::floor(v) && v >= p.min && v <= p.max;
    case ParamKind::EvenInt: return v == std::floor(v) && v >= p.min && v <= p.max && std::fmod(v, 2.0) == 0.0;
    case ParamKind::Real: break;
  }
  return (p.minExclusive ? v > p.min : v >= p.min) && v <= p.max;
}

std::string notAllowedText(const Param& p, double v, std::string_view source) {
  return std::string(source) + ": " + std::string(p.key) + " = " + number(v) + " is not " + describeAllowed(p);
}

std::optional<long long> parseParamInt(const ParsedOptions& o, const Param& p) {
  const std::optional<std::string> text = o.value(std::string(p.flag));
  if (!text || p.flag.empty()) return std::nullopt;
  const std::string flag(p.flag);
  if (p.kind == ParamKind::Choice) {
    if (const std::optional<int> i = p.choiceIndex(*text)) return *i;
    throw UsageError(flag + ": got " + quotedText(*text) + ", expected " + describeAllowed(p));
  }
  if (p.kind == ParamKind::Switch) return 1;
  if (p.kind == ParamKind::Real || p.kind == ParamKind::Text) throw std::logic_error(flag + " is not an integer parameter");
  const long long v = parseIntOption(flag, *text, static_cast<long long>(p.min), static_cast<long long>(p.max));
  if (p.kind == ParamKind::EvenInt && v % 2 != 0) {
    throw UsageError(flag + ": got " + quotedText(*text) + ", expected " + describeAllowed(p) + " (dims come in pairs)");
  }
  return v;
}

std::optional<double> parseParamValue(const ParsedOptions& o, const Param& p) {
  if (p.isInteger()) {
    const std::optional<long long> v = parseParamInt(o, p);
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  }
  if (p.kind == ParamKind::Text) throw std::logic_error(std::string(p.flag) + " is text: the view reads it itself");
  const std::optional<std::string> text = o.value(std::string(p.flag));
  if (!text || p.flag.empty()) return std::nullopt;
  return parseRealOption(std::string(p.flag), *text, realRange(p));
}

bool loadParamNumber(const nlohmann::json& j, const Param& p, double& value) {
  if (!j.is_object()) return false;
  const auto it = j.find(std::string(p.key));
  if (it == j.end()) return false;
  double v = 0.0;
  if (p.kind == ParamKind::Text) return false;
  if (p.kind == ParamKind::Switch) {
    if (!it->is_boolean()) return false;
    v = it->get<bool>() ? 1.0 : 0.0;
  } else if (p.kind == ParamKind::Choice) {
    if (!it->is_string()) return false;
    const std::optional<int> i = p.choiceIndex(it->get<std::string>());
    if (!i) return false;
    v = *i;
  } else {
    if (!it->is_number()) return false;
    v = it->get<double>();
    if (p.isInteger()) v = std::trunc(v);   // as a slider would
  }
  if (!fitsParam(p, v)) return false;
  value = v;
  return true;
}

void saveParamNumber(nlohmann::json& j, const Param& p, double value) {
  const std::string key(p.key);
  if (p.kind == ParamKind::Switch) {
    j[key] = value != 0.0;
  } else if (p.kind == ParamKind::Choice) {
    j[key] = std::string(p.choiceName(static_cast<int>(value)));
  } else if (p.isInteger()) {
    j[key] = static_cast<long long>(value);
  } else {
    j[key] = value;
  }
}

}  // namespace posviz::cli
