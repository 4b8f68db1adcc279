// path_field.hpp: a file's (or a folder's) path in a tab. The desktop types it. The page cannot
// reach the user's files by path, so it also shows "Choose..." beside the field: the browser's
// chooser copies the file (or the whole folder) into the page's memory and puts its path there
// into the field, as if it had been typed and Enter pressed. Typing still works in the page for
// what the page itself wrote (a run folder saved in this visit).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace posviz::app {

// What a field's chooser hands over: the path arrives from the browser between frames and is taken
// by the field's next draw. Lives in the panel's state beside the field's text.
struct PathPick {
  std::shared_ptr<std::string> arrived = std::make_shared<std::string>();
};

struct PathFieldSpec {
  const char* id;                        // ImGui id ("##addpath") and the pick button's name for tests
  const char* hint;                      // shown while the field is empty
  std::vector<std::string> extensions;   // what the chooser offers (".json"); ignored for a folder
  bool folder = false;                   // a folder (a saved run) instead of a file
  float width = 0.0f;                    // the field's width in pixels; 0 = ImGui's default
};

// Whether the user asked for the path this frame: Enter in the field, or a chosen file arrived.
enum class PathAsked { No, Entered, Chosen };
PathAsked pathField(const PathFieldSpec& spec, std::string& path, PathPick& pick);
PathAsked pathField(const PathFieldSpec& spec, char* buf, std::size_t size, PathPick& pick);

}  // namespace posviz::app
