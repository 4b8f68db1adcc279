#include "app/gui/shell/settings.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/atomic_file.hpp"

namespace posviz::app {

const char* backendChoiceName(BackendChoice b) {
  switch (b) {
    case BackendChoice::Cpu: return "cpu";
    case BackendChoice::Gpu: return "gpu";
    case BackendChoice::Auto: break;
  }
  return "auto";
}

bool readSetting(const nlohmann::json& j, const char* key, bool& value) {
  if (!j.contains(key) || !j[key].is_boolean()) return false;
  value = j[key].get<bool>();
  return true;
}

bool readSetting(const nlohmann::json& j, const char* key, std::string& value) {
  if (!j.contains(key) || !j[key].is_string()) return false;
  value = j[key].get<std::string>();
  return true;
}

bool readSetting(const nlohmann::json& j, const char* key, Colormap& value) {
  std::string name;
  if (!readSetting(j, key, name)) return false;
  const std::optional<Colormap> c = parseColormapName(name);
  if (!c) return false;
  value = *c;
  return true;
}

std::string configDir() {
  if (const char* d = std::getenv("POSVIZ_CONFIG_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/posviz";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/posviz";
  return "";
}

Settings loadSettings(const std::string& path, std::string* notice) {
  Settings s;
  std::ifstream in(path, std::ios::binary);
  if (!in) return s;
  std::stringstream buf;
  buf << in.rdbuf();
  try {
    const nlohmann::json j = nlohmann::json::parse(buf.str());
    if (!j.is_object()) throw std::runtime_error("not a JSON object");
    Settings d;
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
    readSetting(j, "start_here_dismissed", s.startHereDismissed);
    if (j.contains("panels") && j["panels"].is_object()) s.panels = j["panels"];
  } catch (const std::exception& e) {
    if (notice) *notice = "Settings file " + path + " could not be read and was ignored (" + e.what() + ").";
    return Settings{};
  }
  return s;
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
  j["start_here_dismissed"] = s.startHereDismissed;
  j["panels"] = s.panels;
  try {
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (!dir.empty()) std::filesystem::create_directories(dir);
    writeFileAtomically(path, [&](std::ostream& out) { out << j.dump(2) << '\n'; });
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
  return true;
}

}  // namespace posviz::app
