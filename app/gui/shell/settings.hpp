// settings.hpp: what posviz remembers between runs.
//
// FILE
//   $XDG_CONFIG_HOME/posviz/settings.json (else ~/.config/posviz/settings.json); imgui.ini
//   (ImGui's own window layout) sits beside it. POSVIZ_CONFIG_DIR overrides the directory (tests).
//   A missing file gives the defaults. One that cannot be read (not a regular file, over
//   kMaxSettingsBytes, nested past kMaxJsonDepth, not JSON) gives the defaults and a notice
//   (loadSettings' *notice), and is first renamed to "settings.json.bad-<UTC time>" so nothing
//   the user had is lost when the next save writes a fresh file. Saving goes through the safe
//   writer (core/atomic_file.hpp); a symlinked settings.json (or imgui.ini) is updated where it
//   points only when it points to posviz's own kind of file (a JSON object of settings keys; an
//   ImGui layout). A link to anything else, or to nothing, is renamed aside like a damaged file,
//   the file it points to left as it was, a notice says so, and posviz writes its own file there.
//
// PANEL SETTINGS
//   Each panel's load function reads its own object (app/gui/base/read_setting.hpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "app/gui/base/app_context.hpp"
#include "app/gui/base/read_setting.hpp"
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
  bool lightTheme = false;             // View > Light theme: dark text on white, for projectors and print
  std::string exportFolder;            // where File > Export figure last wrote ("" = the working folder)
  int figureWidth = 1600;              // the width last chosen for an exported figure, pixels
  std::vector<std::string> recentConfigs;  // File > Open model config: the last kRecentConfigs opened, newest first
  nlohmann::json panels = nlohmann::json::object();   // per panel: its own saved parameters
};

inline constexpr std::size_t kRecentConfigs = 8;
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

}  // namespace posviz::app
