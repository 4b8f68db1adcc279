// panels.hpp: the one table of views, in menu order (Ctrl+1 .. Ctrl+7).
//
// Each entry names a view for the command line (--panel NAME), the settings file and
// screenshots (NAME.png), and says how to draw it. Adding a view = one state struct in
// AppState + one row in panels.cpp.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "app/app_state.hpp"

namespace posviz::app {

struct PanelInfo {
  const char* name;                                    // "sinusoidal"
  const char* title;                                   // "Sinusoidal"
  const char* summary;                                 // one line for Help and the tab tooltip
  void (*draw)(AppState&, AppContext&);
  void (*save)(const AppState&, nlohmann::json&);      // optional: parameters kept between runs
  void (*load)(AppState&, const nlohmann::json&);      // optional; ignores bad values
  void (*tweak)(AppState&);                            // optional: change one visible parameter (tests)
};

const std::vector<PanelInfo>& panels();
int findPanel(std::string_view name);   // index, or -1

}  // namespace posviz::app
