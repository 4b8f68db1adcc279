#include "app/cli/config_reader.hpp"

#include <array>
#include <string_view>

namespace posviz::cli {

namespace {

// A marker is a string no config holds: U+0001 then the literal's name.
constexpr std::array<std::string_view, 3> kLiterals = {"-Infinity", "Infinity", "NaN"};

bool startsWord(const std::string& text, std::size_t i, std::string_view word) {
  if (text.compare(i, word.size(), word) != 0) return false;
  const std::size_t end = i + word.size();
  return end == text.size() || !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_');
}

}  // namespace

std::string withNonFiniteMarkers(const std::string& jsonText) {
  std::string out;
  out.reserve(jsonText.size());
  bool inString = false;
  for (std::size_t i = 0; i < jsonText.size(); ++i) {
    const char ch = jsonText[i];
    if (inString) {
      out += ch;
      if (ch == '\\' && i + 1 < jsonText.size()) out += jsonText[++i];
      else if (ch == '"') inString = false;
      continue;
    }
    if (ch == '"') inString = true;
    bool replaced = false;
    for (std::string_view lit : kLiterals) {
      if (!startsWord(jsonText, i, lit)) continue;
      out += "\"\\u0001" + std::string(lit) + "\"";
      i += lit.size() - 1;
      replaced = true;
      break;
    }
    if (!replaced) out += ch;
  }
  return out;
}

std::string nonFiniteMarkerName(const nlohmann::json& v) {
  if (!v.is_string()) return "";
  const std::string& s = v.get_ref<const std::string&>();
  if (s.size() < 2 || s[0] != '\x01') return "";
  for (std::string_view lit : kLiterals) {
    if (s.compare(1, std::string::npos, lit) == 0) return std::string(lit);
  }
  return "";
}

}  // namespace posviz::cli
