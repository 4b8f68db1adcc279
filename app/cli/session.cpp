// session.cpp: .posviz files and pasted session lines (session.hpp).
#include "app/cli/session.hpp"

#include <array>
#include <cmath>
#include <functional>
#include <cstdint>
#include <optional>
#include <ostream>

#include "core/atomic_file.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::cli {

namespace {

constexpr const char* kFormat = "posviz-session";
constexpr const char* kLinePrefix = "posviz-session-";
constexpr std::array<char, 64> kAlphabet = {'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O', 'P',
                                            'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', 'a', 'b', 'c', 'd', 'e', 'f',
                                            'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v',
                                            'w', 'x', 'y', 'z', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '-', '_'};

std::string base64url(const std::string& bytes) {
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    acc = acc << 8 | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[acc >> bits & 63]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[acc << (6 - bits) & 63]);
  return out;
}

// false on a character outside the alphabet.
bool fromBase64url(const std::string& text, std::string& out) {
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v = -1;
    for (int i = 0; i < 64; ++i)
      if (kAlphabet[static_cast<std::size_t>(i)] == c) v = i;
    if (v < 0) return false;
    acc = acc << 6 | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>(acc >> bits & 255));
    }
  }
  return true;
}

nlohmann::json documentOf(const Session& s, const nlohmann::json& panels) {
  nlohmann::json j = {{"format", kFormat}, {"version", kSessionVersion}, {"panel", s.panel}, {"panels", panels}};
  for (const auto& [key, v] : s.views) j["views"][key] = {v.row0, v.rows, v.col0, v.cols};
  return j;
}

// "views": each a figure key of at most 64 characters -> [row0, rows, col0, cols], finite, the
// first and third >= 0, the others > 0.
std::map<std::string, FigureView> viewsOf(const nlohmann::json& j, const std::function<SessionError(const std::string&)>& bad) {
  std::map<std::string, FigureView> out;
  if (!j.is_object()) throw bad("\"views\" is not an object");
  for (const auto& [key, value] : j.items()) {
    const std::string name = "the view of figure " + displayText(key);
    if (key.empty() || key.size() > 64) throw bad("a figure key must be 1 to 64 characters");
    if (!value.is_array() || value.size() != 4) throw bad(name + " is not [row0, rows, col0, cols]");
    double v[4];
    for (std::size_t i = 0; i < 4; ++i) {
      if (!value[i].is_number() || !std::isfinite(value[i].get<double>())) throw bad(name + " holds a value that is not a finite number");
      v[i] = value[i].get<double>();
    }
    if (v[0] < 0 || v[2] < 0 || v[1] <= 0 || v[3] <= 0) throw bad(name + " needs row0, col0 >= 0 and rows, cols > 0");
    out[key] = FigureView{v[0], v[1], v[2], v[3]};
  }
  return out;
}

// JSON text read with a nesting limit (a hostile file must not exhaust the stack).
nlohmann::json parseLimited(const std::string& text, const std::string& source, const char* what) {
  if (std::optional<std::string> deep = jsonNestingProblem(text)) throw SessionError(source + ": " + what + " " + *deep + "; nothing was changed");
  return nlohmann::json::parse(text, nullptr, false);
}

Session sessionOf(const nlohmann::json& j, const std::string& source) {
  auto bad = [&](const std::string& why) { return SessionError(source + ": " + why + "; nothing was changed"); };
  if (!j.is_object() || !j.contains("format") || j["format"] != kFormat) throw bad("not a posviz session (no \"format\": \"posviz-session\")");
  if (!j.contains("version") || !j["version"].is_number_integer()) throw bad("no session version");
  const long long version = j["version"].get<long long>();
  if (version > kSessionVersion)
    throw bad("version " + std::to_string(version) + " was saved by a newer posviz; this one reads version " + std::to_string(kSessionVersion));
  if (version < 1) throw bad("version " + std::to_string(version) + " is not a session version");
  Session s;
  if (j.contains("panel") && j["panel"].is_string()) s.panel = j["panel"].get<std::string>();
  if (j.contains("panels")) {
    if (!j["panels"].is_object()) throw bad("\"panels\" is not an object");
    for (const auto& [name, value] : j["panels"].items())
      if (!value.is_object()) throw bad("the parameters of tab " + displayText(name) + " are not an object");
    s.panels = j["panels"];
  }
  if (j.contains("views")) s.views = viewsOf(j["views"], bad);
  return s;
}

}  // namespace

std::string sessionFileText(const Session& s) { return documentOf(s, s.panels).dump(2) + "\n"; }

std::string sessionLine(const Session& s, const nlohmann::json& defaults) {
  nlohmann::json changed = nlohmann::json::object();
  for (const auto& [name, params] : s.panels.items()) {
    const nlohmann::json* base = defaults.contains(name) ? &defaults[name] : nullptr;
    for (const auto& [key, value] : params.items())
      if (base == nullptr || !base->contains(key) || (*base)[key] != value) changed[name][key] = value;
  }
  return kLinePrefix + std::to_string(kSessionVersion) + ":" + base64url(documentOf(s, changed).dump());
}

Session parseSession(const std::string& text, const std::string& source) {
  std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) throw SessionError(source + ": empty; nothing was changed");
  if (text.compare(start, std::string(kLinePrefix).size(), kLinePrefix) == 0) {
    const std::size_t colon = text.find(':', start);
    const std::size_t end = text.find_last_not_of(" \t\r\n") + 1;
    std::string json;
    if (colon == std::string::npos || colon > end || !fromBase64url(text.substr(colon + 1, end - colon - 1), json))
      throw SessionError(source + ": a damaged session line (expected posviz-session-1: and base64url text); nothing was changed");
    const nlohmann::json j = parseLimited(json, source, "the session line");
    if (j.is_discarded()) throw SessionError(source + ": a damaged session line (its text is not JSON); nothing was changed");
    return sessionOf(j, source);
  }
  const nlohmann::json j = parseLimited(text, source, "the file");
  if (j.is_discarded()) throw SessionError(source + ": not JSON and not a session line; nothing was changed");
  return sessionOf(j, source);
}

Session readSessionFile(const std::string& path) {
  std::string text;
  try {
    text = readRegularFile(path, kMaxSessionBytes, "session");
  } catch (const std::exception& e) {
    throw SessionError(std::string(e.what()) + "; nothing was changed");
  }
  return parseSession(text, "session " + displayText(path));
}

void writeSessionFile(const std::string& path, const Session& s) {
  const std::string text = sessionFileText(s);
  writeFileAtomically(path, [&](std::ostream& os) { os << text; });
}

}  // namespace posviz::cli
