// save_as.hpp: choosing where a file goes: the folder shown in full (typed, or walked through its
// subfolders and "..") and the file's name. The window remembers the folder between exports.
#pragma once

#include <string>
#include <vector>

namespace posviz::app {

struct SaveAsState {
  std::string folder;                    // absolute, as shown
  std::string name;                      // the file's name in it
  // Internals: the subfolders listed for `listed`.
  std::string listed;
  std::vector<std::string> subfolders;
  std::string listError;
};

// Starts the chooser in `folder` ("" or a folder that no longer exists: the working folder) with
// the file name `name`.
void openSaveAs(SaveAsState& s, const std::string& folder, const std::string& name);
// Draws the folder line, its subfolders and the name field, `width` pixels wide. True when Enter
// was pressed in the name field.
bool drawSaveAs(SaveAsState& s, float width);
// folder / name.
std::string saveAsPath(const SaveAsState& s);

}  // namespace posviz::app
