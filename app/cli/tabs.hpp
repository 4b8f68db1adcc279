// tabs.hpp: posviz's one vocabulary. The window's tabs and the exportable views are defined
// here, once, and read by everything that names them: the GUI's tabs, menus and tooltips
// (app/gui/panels/panels.cpp pairs each tab with its draw function), `--panel NAME`, the settings
// file's keys, screenshot file names, `posviz export VIEW`, File > Export and every help text.
//
// TABS
//   A tab is what the window shows at once; it draws one or more exportable views. Its name is the
//   `--panel` argument and the settings key; `posviz export TAB` means the tab's main view.
// VIEWS
//   An exportable view (app/cli/view_table.hpp) is one array of numbers: its name, options with
//   ranges, defaults and help, how core computes it and its layout in each file format.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/cli/model_config.hpp"

namespace posviz::cli {

struct TabDef {
  std::string name;                  // "rope": --panel NAME, settings key, screenshot NAME.png
  std::string title;                 // "RoPE": the tab's label
  std::string summary;               // one line: tab tooltip, Help, posviz --help
  std::string mainView;              // what `posviz export NAME` writes ("" = none)
  std::vector<std::string> aliases;  // other spellings accepted wherever a tab is named
};

// In the window's order (Ctrl+1 .. Ctrl+N).
const std::vector<TabDef>& tabs();
// By name or alias; nullptr when none.
const TabDef* findTab(std::string_view nameOrAlias);
// The tab names joined by sep: "sinusoidal, learned, ...".
std::string tabList(const std::string& sep);

// The tab that shows a model's positions: "rope" ("context-extension" when scaledRope: a scaled RoPE is
// the Context extension tab's subject), "alibi", "learned" or "sinusoidal". The one place where a
// scheme meets a tab name.
const char* tabShowing(ModelEncoding encoding, bool scaledRope = false);

}  // namespace posviz::cli
