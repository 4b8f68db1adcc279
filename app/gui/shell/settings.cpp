#include "app/gui/shell/settings.hpp"

#include "app/gui/platform/platform.hpp"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "core/atomic_file.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::app {

const char* backendChoiceName(BackendChoice b) {
  switch (b) {
    case BackendChoice::Cpu: return "cpu";
    case BackendChoice::Gpu: return "gpu";
    case BackendChoice::Auto: break;
  }
  return "auto";
}

std::string configDir() { return platform::configDir(); }

namespace {

// Where an unreadable settings file is kept: "<path>.bad-<UTC time>", never over an earlier copy.
std::string keepAside(const std::string& path) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  for (int n = 0; n < 100; ++n) {
    const std::string aside = path + ".bad-" + stamp + (n == 0 ? "" : "-" + std::to_string(n));
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::symlink_status(aside, ec))) continue;
    std::filesystem::rename(path, aside, ec);
    return ec ? "" : aside;
  }
  return "";
}

// What read() returns; T{} when the file is missing (a first run). A file read() cannot take (not
// a regular file, too large, not parseable) gives T{} as well, is first kept aside, and *notice
// says so: "<what> PATH could not be read (WHY): <consequence>; the file was kept as ASIDE."
template <class T, class Read>
T readOrKeepAside(const std::string& path, const char* what, const char* consequence, Read read, std::string* notice) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return T{};
  try {
    return read();
  } catch (const std::exception& e) {
    const std::string aside = keepAside(path);
    if (notice) {
      *notice = std::string(what) + " " + displayText(path) + " could not be read (" + displayMessage(e.what()) + "): " +
                consequence + (aside.empty() ? "." : "; the file was kept as " + displayText(aside) + ".");
    }
    return T{};
  }
}

// [SECTION] Links: a settings.json or imgui.ini that is a link is followed only to a file of its
// own kind. A link to anything else (another program's JSON, a text file, nothing at all) is moved
// aside, never read or written through, and posviz keeps a file of its own in its place.

constexpr const char* kSettingsKeys[] = {"window_x", "window_y", "window_width", "window_height", "maximized", "panel",
                                         "backend", "font_scale", "inline_help", "start_here_dismissed", "light_theme",
                                         "export_folder", "figure_width", "panels", "recent_configs"};

// A JSON object of posviz's settings keys only (at least one): what saveSettings writes, or a
// part of it a person wrote by hand.
bool isSettingsText(const std::string& text) {
  if (jsonNestingProblem(text)) return false;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || j.empty()) return false;
  for (const auto& [key, value] : j.items())
    if (std::find(std::begin(kSettingsKeys), std::end(kSettingsKeys), key) == std::end(kSettingsKeys)) return false;
  return true;
}

// ImGui's ini: [Section][Name] headers and Key=Value lines, at least one header.
bool isLayoutText(const std::string& text) {
  bool header = false;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    start = end + 1;
    if (line.empty()) continue;
    if (line.front() == '[' && line.find(']') != std::string::npos) header = true;
    else if (line.find('=') == std::string::npos) return false;
  }
  return header;
}

// "" when path is no link, or a link to a regular file that `ours` recognises; otherwise the link
// is renamed aside (the file it points to stays as it was) and the notice says so.
std::string refuseForeignLink(const std::string& path, const char* what, std::size_t maxBytes, bool (*ours)(const std::string&)) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec))) return "";
  const std::string target = std::filesystem::read_symlink(path, ec).string();
  bool recognised = false;
  try {
    recognised = std::filesystem::is_regular_file(path, ec) && ours(readRegularFile(path, maxBytes, what));
  } catch (const std::exception&) {
    recognised = false;
  }
  if (recognised) return "";
  const std::string aside = keepAside(path);
  return std::string(what) + " " + displayText(path) + " is a link to " + displayText(target) +
         ", which is not a posviz " + what + " file: it was left as it is" +
         (aside.empty() ? "" : ", the link kept as " + displayText(aside)) + ", and posviz keeps its own file there.";
}

void addNotice(std::string* notice, const std::string& more) {
  if (notice && !more.empty()) *notice += (notice->empty() ? "" : " ") + more;
}

Settings parseSettings(const std::string& text) {
  if (std::optional<std::string> deep = jsonNestingProblem(text)) throw std::runtime_error("it " + *deep);
  const nlohmann::json j = nlohmann::json::parse(text);
  if (!j.is_object()) throw std::runtime_error("not a JSON object");
  Settings s, d;
  auto getInt = [&](const char* key, int lo, int hi, int fallback) {
    if (!j.contains(key) || !j[key].is_number_integer()) return fallback;
    const long long v = j[key].get<long long>();
    return v < lo || v > hi ? fallback : static_cast<int>(v);
  };
  s.windowX = getInt("window_x", -100000, 100000, d.windowX);
  s.windowY = getInt("window_y", -100000, 100000, d.windowY);
  s.windowWidth = getInt("window_width", 320, 16384, d.windowWidth);
  s.windowHeight = getInt("window_height", 240, 16384, d.windowHeight);
  readSetting(j, "maximized", s.maximized);
  readSetting(j, "panel", s.panel);
  if (std::string b; readSetting(j, "backend", b))
    s.backend = b == "cpu" ? BackendChoice::Cpu : b == "gpu" ? BackendChoice::Gpu : BackendChoice::Auto;
  readSetting(j, "font_scale", s.fontScale, 0.5f, 3.0f);
  readSetting(j, "inline_help", s.inlineHelp);
  readSetting(j, "start_here_dismissed", s.startHereDismissed);
  readSetting(j, "light_theme", s.lightTheme);
  if (std::string folder; readSetting(j, "export_folder", folder) && folder.size() <= 4096) s.exportFolder = folder;
  s.figureWidth = getInt("figure_width", 160, 8192, d.figureWidth);
  if (j.contains("panels") && j["panels"].is_object()) s.panels = j["panels"];
  // Paths only (a path is at most 4096 bytes); anything else in the list is dropped.
  if (auto it = j.find("recent_configs"); it != j.end() && it->is_array()) {
    for (const nlohmann::json& p : *it) {
      if (p.is_string() && !p.get<std::string>().empty() && p.get<std::string>().size() <= 4096 && s.recentConfigs.size() < kRecentConfigs) {
        s.recentConfigs.push_back(p.get<std::string>());
      }
    }
  }
  return s;
}

}  // namespace

Settings loadSettings(const std::string& path, std::string* notice) {
  if (const std::string refused = refuseForeignLink(path, "settings", kMaxSettingsBytes, isSettingsText); !refused.empty()) {
    addNotice(notice, refused);
    return Settings{};
  }
  return readOrKeepAside<Settings>(
      path, "Settings file", "defaults are used",
      [&] { return parseSettings(readRegularFile(path, kMaxSettingsBytes, "settings")); }, notice);
}

bool saveSettings(const std::string& path, const Settings& s, std::string* error) {
  nlohmann::json j;
  j["window_x"] = s.windowX;
  j["window_y"] = s.windowY;
  j["window_width"] = s.windowWidth;
  j["window_height"] = s.windowHeight;
  j["maximized"] = s.maximized;
  j["panel"] = s.panel;
  j["backend"] = backendChoiceName(s.backend);
  j["font_scale"] = s.fontScale;
  j["inline_help"] = s.inlineHelp;
  j["start_here_dismissed"] = s.startHereDismissed;
  j["light_theme"] = s.lightTheme;
  j["export_folder"] = s.exportFolder;
  j["figure_width"] = s.figureWidth;
  j["panels"] = s.panels;
  j["recent_configs"] = s.recentConfigs;
  try {
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (!dir.empty()) std::filesystem::create_directories(dir);
    // A settings.json the user linked elsewhere (a dotfiles folder) is updated where it points,
    // when it points to posviz's settings; a link to anything else is moved aside first.
    refuseForeignLink(path, "settings", kMaxSettingsBytes, isSettingsText);
    writeFileAtomically(path, [&](std::ostream& out) { out << j.dump(2) << '\n'; }, WriteOptions{.followTargetLink = true});
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
  return true;
}

std::string loadLayout(const std::string& path, std::string* notice) {
  if (const std::string refused = refuseForeignLink(path, "window layout", kMaxLayoutBytes, isLayoutText); !refused.empty()) {
    addNotice(notice, refused);
    return "";
  }
  return readOrKeepAside<std::string>(
      path, "Window layout", "the default window layout is used", [&] { return readRegularFile(path, kMaxLayoutBytes, "window layout"); },
      notice);
}

bool saveLayout(const std::string& path, const std::string& text, std::string* error) {
  try {
    refuseForeignLink(path, "window layout", kMaxLayoutBytes, isLayoutText);
    writeFileAtomically(path, [&](std::ostream& out) { out << text; }, WriteOptions{.followTargetLink = true});
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
  return true;
}

}  // namespace posviz::app
