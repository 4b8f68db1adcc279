// settings.hpp: what posviz remembers between runs.
//
// FILE
//   $XDG_CONFIG_HOME/posviz/settings.json (else ~/.config/posviz/settings.json); imgui.ini
//   (ImGui's own window layout) sits beside it. POSVIZ_CONFIG_DIR overrides the directory (tests).
//   A missing file gives the defaults. One that cannot be read (not a regular file, over
//   kMaxSettingsBytes, nested past kMaxJsonDepth, not JSON) gives the defaults and a notice
//   (loadSettings' *notice), and is first renamed to "settings.json.bad-<UTC time>" so nothing
//   the user had is lost when the next save writes a fresh file. Saving goes through the safe
//   writer (core/atomic_file.hpp); a symlinked settings.json is updated where it points.
//
// PANEL SETTINGS
//   Each panel's load function reads its own object with readSetting(): a key that is missing, of
//   the wrong JSON type, not finite or outside [lo, hi] leaves the value as it was (and returns
//   false), so a hand-edited or older file can only ever set values the sliders could.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

#include "app/gui/shell/app_context.hpp"
#include "core/colormap.hpp"

namespace posviz::app {

struct Settings {
  int windowX = -1, windowY = -1;      // -1: let the window manager place it
  int windowWidth = 1440, windowHeight = 900;
  bool maximized = false;
  std::string panel = "learn";         // the panel shown at start (panels.hpp names)
  BackendChoice backend = BackendChoice::Auto;
  float fontScale = 1.0f;              // on top of the monitor's content scale, 0.5..3
  bool startHereDismissed = false;     // "Start here" was closed once: never shown at start again
  bool inlineHelp = true;              // View > Control help on screen (ui_common.hpp HelpMarker)
  nlohmann::json panels = nlohmann::json::object();   // per panel: its own saved parameters
};

inline constexpr std::size_t kMaxSettingsBytes = 4u << 20;  // a real file is a few KiB
inline constexpr std::size_t kMaxLayoutBytes = 256u << 10;   // imgui.ini: a few KiB in use

// The configuration directory ("" when neither XDG_CONFIG_HOME nor HOME is set).
std::string configDir();

// Defaults when the file is missing; defaults + *notice (and the file kept aside) when it
// cannot be read or parsed.
Settings loadSettings(const std::string& path, std::string* notice);
// False + *error when the file cannot be written (the old one is kept).
bool saveSettings(const std::string& path, const Settings& s, std::string* error);

// imgui.ini, ImGui's window layout, read and written by posviz (never by ImGui itself): the text
// of a regular file of at most kMaxLayoutBytes, or "" (and *notice, the file kept aside) otherwise.
std::string loadLayout(const std::string& path, std::string* notice);
bool saveLayout(const std::string& path, const std::string& text, std::string* error);

const char* backendChoiceName(BackendChoice b);   // "auto", "cpu", "gpu"

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
bool readSetting(const nlohmann::json& j, const char* key, std::string& value);   // a JSON string
bool readSetting(const nlohmann::json& j, const char* key, Colormap& value);      // a colormap name

}  // namespace posviz::app
