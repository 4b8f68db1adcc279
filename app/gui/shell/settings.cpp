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
      *notice = std::string(what) + " " + displayText(path, 300) + " could not be read (" + displayText(e.what(), 300) + "): " +
                consequence + (aside.empty() ? "." : "; the file was kept as " + displayText(aside, 300) + ".");
    }
    return T{};
  }
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
    // A settings.json the user linked elsewhere (a dotfiles folder) is updated where it points.
    writeFileAtomically(path, [&](std::ostream& out) { out << j.dump(2) << '\n'; }, WriteOptions{.followTargetLink = true});
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
  return true;
}

std::string loadLayout(const std::string& path, std::string* notice) {
  return readOrKeepAside<std::string>(
      path, "Window layout", "the default window layout is used", [&] { return readRegularFile(path, kMaxLayoutBytes, "window layout"); },
      notice);
}

bool saveLayout(const std::string& path, const std::string& text, std::string* error) {
  try {
    writeFileAtomically(path, [&](std::ostream& out) { out << text; }, WriteOptions{.followTargetLink = true});
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
  return true;
}

}  // namespace posviz::app
