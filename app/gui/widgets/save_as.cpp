// save_as.cpp: see save_as.hpp.
#include "app/gui/widgets/save_as.hpp"

#include "app/gui/platform/platform.hpp"

#include <imgui.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "app/gui/widgets/ui_common.hpp"

namespace posviz::app {

namespace fs = std::filesystem;

namespace {

// A folder with thousands of subfolders lists the first of them (sorted), and says so.
constexpr std::size_t kMaxListed = 400;

void listFolder(SaveAsState& s) {
  s.listed = s.folder;
  s.subfolders.clear();
  s.listError.clear();
  std::error_code ec;
  fs::directory_iterator it(s.folder, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    s.listError = "cannot list " + s.folder + ": " + ec.message();
    return;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code e2;
    if (it->is_directory(e2)) s.subfolders.push_back(name);
    if (s.subfolders.size() > kMaxListed) break;
  }
  std::sort(s.subfolders.begin(), s.subfolders.end());
}

void enter(SaveAsState& s, const fs::path& folder) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(folder, ec);
  s.folder = (ec ? folder : canonical).string();
}

}  // namespace

void openSaveAs(SaveAsState& s, const std::string& folder, const std::string& name) {
  std::error_code ec;
  if (!folder.empty() && fs::is_directory(folder, ec)) enter(s, folder);
  else enter(s, fs::current_path(ec));
  s.name = name;
  s.listed.clear();
}

bool drawSaveAs(SaveAsState& s, float width) {
  if (!platform::saveOffersFolders()) {   // the page: the browser puts the download where it puts them
    ImGui::TextUnformatted("File name (the browser saves it as a download)");
    ImGui::SetNextItemWidth(width);
    return inputTextString("##name", s.name, ImGuiInputTextFlags_EnterReturnsTrue);
  }
  ImGui::TextUnformatted("Folder");
  ImGui::SetNextItemWidth(width);
  inputTextString("##folder", s.folder);
  if (s.listed != s.folder) listFolder(s);
  const float rowH = ImGui::GetTextLineHeightWithSpacing();
  ImGui::BeginChild("##subfolders", ImVec2(width, rowH * 6.5f), true);
  if (ImGui::Selectable(".. (the folder above)")) enter(s, fs::path(s.folder).parent_path());
  for (const std::string& sub : s.subfolders) {
    if (ImGui::Selectable((sub + "/").c_str())) {
      enter(s, fs::path(s.folder) / sub);
      break;   // the list changes under the loop
    }
  }
  if (s.subfolders.size() > kMaxListed) ImGui::TextDisabled("(the first %zu subfolders)", kMaxListed);
  ImGui::EndChild();
  if (!s.listError.empty()) ErrorText(s.listError);
  ImGui::TextUnformatted("File name");
  ImGui::SetNextItemWidth(width);
  return inputTextString("##name", s.name, ImGuiInputTextFlags_EnterReturnsTrue);
}

std::string saveAsPath(const SaveAsState& s) {
  const fs::path folder = platform::saveOffersFolders() ? fs::path(s.folder) : fs::path(platform::downloadFolder());
  return (folder / s.name).string();
}

}  // namespace posviz::app
