#include "app/cli/args.hpp"

#include "core/portable.hpp"
#include "core/untrusted_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <system_error>

namespace posviz::cli {

namespace {

[[noreturn]] void failValue(const std::string& flag, const std::string& text, const std::string& expected,
                            const std::string& why = "") {
  throw UsageError(flag + ": got " + quotedText(text) + (why.empty() ? "" : " (" + why + ")") + ", expected " + expected);
}

std::string formatBound(double v) {
  std::ostringstream s;
  s.precision(15);
  s << v;
  return s.str();
}

std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::optional<std::string> ParsedOptions::value(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

std::string closestOptionName(const std::string& name, const std::vector<OptionSpec>& specs) {
  std::string best;
  std::size_t bestDistance = 4;
  for (const OptionSpec& s : specs) {
    const std::size_t d = editDistance(name, s.name);
    if (d < bestDistance) {
      bestDistance = d;
      best = s.name;
    }
  }
  return best;
}

ParsedOptions parseOptions(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs) {
  ParsedOptions out;
  bool onlyPositional = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (onlyPositional || arg.size() < 2 || arg[0] != '-' || arg == "-") {
      out.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      onlyPositional = true;
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inlineValue;
    if (const auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      name = arg.substr(0, eq);
      inlineValue = arg.substr(eq + 1);
    }
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.name == name; });
    if (spec == specs.end()) {
      const std::string near = closestOptionName(name, specs);
      throw UsageError("unknown option " + quotedText(name) + (near.empty() ? "" : " (did you mean " + near + "?)"));
    }
    if (out.has(name)) throw UsageError(name + ": given more than once");
    if (!spec->takesValue) {
      if (inlineValue) throw UsageError(name + ": takes no value, got " + quotedText(*inlineValue));
      out.values[name] = "";
      continue;
    }
    if (inlineValue) {
      out.values[name] = *inlineValue;
    } else {
      if (i + 1 >= args.size()) throw UsageError(name + ": needs a value (" + spec->metavar + ")");
      out.values[name] = args[++i];
    }
  }
  return out;
}

long long parseIntOption(const std::string& flag, const std::string& text, long long min, long long max) {
  const std::string expected = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (text.empty()) failValue(flag, text, expected, "empty");
  long long v = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec == std::errc::result_out_of_range) failValue(flag, text, expected, "too large");
  if (ec != std::errc() || ptr != last) {
    // A whole-valued real ("1e3", "4096.0") is still not an integer spelling: say so plainly.
    failValue(flag, text, expected, "not an integer");
  }
  if (v < min || v > max) failValue(flag, text, expected, "out of range");
  return v;
}

std::string describeRange(const RealRange& r) {
  const bool hasMin = r.min > -1.0e299;
  const bool hasMax = r.max < 1.0e299;
  if (hasMin && hasMax) {
    return std::string("a number in ") + (r.minExclusive ? "(" : "[") + formatBound(r.min) + ", " + formatBound(r.max) +
           (r.maxExclusive ? ")" : "]");
  }
  if (hasMin) return std::string("a number ") + (r.minExclusive ? "> " : ">= ") + formatBound(r.min);
  if (hasMax) return std::string("a number ") + (r.maxExclusive ? "< " : "<= ") + formatBound(r.max);
  return "a finite number";
}

double parseRealOption(const std::string& flag, const std::string& text, const RealRange& range) {
  const std::string expected = describeRange(range);
  if (text.empty()) failValue(flag, text, expected, "empty");
  double v = 0.0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (*first == '+') ++first;  // from_chars does not take a leading '+'
  const auto [ptr, ec] = fromCharsReal(first, last, v);
  if (ec == std::errc::result_out_of_range) failValue(flag, text, expected, "too large");
  if (ec != std::errc() || ptr != last || first == last) failValue(flag, text, expected, "not a number");
  if (!std::isfinite(v)) failValue(flag, text, expected, "not finite");
  const bool belowMin = range.minExclusive ? !(v > range.min) : !(v >= range.min);
  const bool aboveMax = range.maxExclusive ? !(v < range.max) : !(v <= range.max);
  if (belowMin || aboveMax) failValue(flag, text, expected, "out of range");
  return v;
}

std::vector<double> parseRealListOption(const std::string& flag, const std::string& text, const RealRange& range) {
  const std::string expected = "a comma-separated list, each " + describeRange(range);
  if (text.empty()) failValue(flag, text, expected, "empty");
  std::vector<double> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::string where = flag + " entry " + std::to_string(out.size());
    if (item.empty()) failValue(flag, text, expected, "entry " + std::to_string(out.size()) + " is empty");
    out.push_back(parseRealOption(where, item, range));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string parseChoiceOption(const std::string& flag, const std::string& text, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), text) != allowed.end()) return text;
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : "|") + a;
  failValue(flag, text, "one of " + list);
}

std::uint64_t parseByteSizeOption(const std::string& flag, const std::string& text) {
  const std::string expected = "a byte count > 0 such as 512M, 2G or 1048576 (suffixes K, M, G, T = 1024^n)";
  if (text.empty()) failValue(flag, text, expected, "empty");
  std::uint64_t v = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec == std::errc::result_out_of_range) failValue(flag, text, expected, "too large");
  if (ec != std::errc() || ptr == first) failValue(flag, text, expected, "not a number");
  const std::string suffix(ptr, last);
  int shift = -1;
  if (suffix.empty() || suffix == "B") shift = 0;
  else if (suffix == "K" || suffix == "KiB") shift = 10;
  else if (suffix == "M" || suffix == "MiB") shift = 20;
  else if (suffix == "G" || suffix == "GiB") shift = 30;
  else if (suffix == "T" || suffix == "TiB") shift = 40;
  if (shift < 0) failValue(flag, text, expected, "unknown suffix");
  if (v == 0) failValue(flag, text, expected, "zero");
  if (shift > 0 && v > (std::numeric_limits<std::uint64_t>::max() >> shift)) failValue(flag, text, expected, "too large");
  return v << shift;
}

}  // namespace posviz::cli
