#include "app/gui/widgets/path_field.hpp"

#include <imgui.h>

#include <algorithm>

#include "app/gui/platform/platform.hpp"
#include "app/gui/widgets/ui_common.hpp"

namespace posviz::app {

namespace {

// The page's "Choose..." button; true when a chosen path has arrived (and is now in `path`).
bool chooser(const PathFieldSpec& spec, PathPick& pick, std::string* path) {
  if (!platform::opensByPicker()) return false;
  ImGui::SameLine();
  ImGui::PushID(spec.id);
  const bool clicked = ImGui::Button(spec.folder ? "Choose folder..." : "Choose...");
  const ImVec2 at = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
  const std::string id(spec.id);
  platform::noteButton(id.substr(std::min(id.find_first_not_of('#'), id.size())), at.x, at.y, size.x, size.y);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(spec.folder ? "a folder from your computer, copied into the page" : "a file from your computer, copied into the page");
  ImGui::PopID();
  if (clicked) {
    std::weak_ptr<std::string> into = pick.arrived;
    platform::pickPath(spec.extensions, spec.folder, [into](const std::string& p) {
      if (auto s = into.lock()) *s = p;
    });
  }
  if (pick.arrived->empty()) return false;
  *path = *pick.arrived;
  pick.arrived->clear();
  return true;
}

}  // namespace

PathAsked pathField(const PathFieldSpec& spec, std::string& path, PathPick& pick) {
  if (spec.width > 0.0f) ImGui::SetNextItemWidth(spec.width);
  bool asked = false;
  if (spec.hint && *spec.hint) {
    std::string buf = path;
    buf.resize(std::max<std::size_t>(path.size() + 256, 1024));
    asked = ImGui::InputTextWithHint(spec.id, spec.hint, buf.data(), buf.size(), ImGuiInputTextFlags_EnterReturnsTrue);
    path = buf.c_str();
  } else {
    asked = inputTextString(spec.id, path, ImGuiInputTextFlags_EnterReturnsTrue);
  }
  if (chooser(spec, pick, &path)) return PathAsked::Chosen;
  return asked ? PathAsked::Entered : PathAsked::No;
}

PathAsked pathField(const PathFieldSpec& spec, char* buf, std::size_t size, PathPick& pick) {
  if (spec.width > 0.0f) ImGui::SetNextItemWidth(spec.width);
  const bool asked = ImGui::InputTextWithHint(spec.id, spec.hint ? spec.hint : "", buf, size, ImGuiInputTextFlags_EnterReturnsTrue);
  std::string chosen;
  if (!chooser(spec, pick, &chosen)) return asked ? PathAsked::Entered : PathAsked::No;
  if (chosen.size() >= size) return PathAsked::No;   // longer than the field holds (/uploads/ + a name cannot be): not cut
  std::copy(chosen.begin(), chosen.end(), buf);
  buf[chosen.size()] = '\0';
  return PathAsked::Chosen;
}

}  // namespace posviz::app
