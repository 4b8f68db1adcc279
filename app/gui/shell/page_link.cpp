// page_link.cpp: the window's side of files that arrive from outside and of the page's address.
//
// [SECTION] Files      dropped on the window or picked in the page: a session, a config.json or a
//                      learned table, told apart by what they hold
// [SECTION] Address    #posviz-session-1:... is a link to a session; on Learn each new step is
//                      a history entry, so the browser's Back returns to the step before
// [SECTION] Page       what the page's JavaScript calls (platform::Page)
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "app/cli/session.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/platform/platform.hpp"
#include "app/gui/shell/app_shell.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::app {

// -----------------------------------------------------------------------------------------------
// [SECTION] Files
// -----------------------------------------------------------------------------------------------

namespace {

enum class FileKind { Session, Config, LearnedTable, Unknown };

// By the first bytes: a .npy's magic, a session's "format" field, any other JSON object a config
// (whose reader then says what is wrong with it). The name's extension decides nothing.
FileKind kindOf(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char head[4096] = {};
  f.read(head, sizeof head);
  const std::string text(head, static_cast<std::size_t>(f.gcount()));
  if (text.rfind("\x93NUMPY", 0) == 0) return FileKind::LearnedTable;
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{') return FileKind::Unknown;
  if (text.find("\"posviz-session\"") != std::string::npos) return FileKind::Session;
  return FileKind::Config;
}

}  // namespace

bool AppShell::openFile(const std::string& path, std::string* error) {
  const std::string name = std::filesystem::path(path).filename().string();
  switch (kindOf(path)) {
    case FileKind::Session: return openSessionFile(path, error);
    case FileKind::Config:   // as --config opens one: every tab takes it, the Model tab shows it
      if (openConfigFile(path)) {
        state_.requestedPanel = findPanel("model");
        return true;
      }
      if (error) *error = "Config " + displayText(name) + ": " + configError_;
      return false;
    case FileKind::LearnedTable: openLearnedTableFile(state_, path); return true;
    case FileKind::Unknown: break;
  }
  if (error)
    *error = displayText(name) +
             " is not a file posviz opens: it takes a session (.posviz), a model's config.json, or a learned table (.npy)";
  return false;
}

void AppShell::dropCallback(GLFWwindow* window, int count, const char** paths) {
  auto* self = static_cast<AppShell*>(glfwGetWindowUserPointer(window));
  if (!self) return;
  for (int i = 0; i < count; ++i) {
    std::string err;
    if (!self->openFile(paths[i], &err)) self->state_.notice = err;
  }
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Address
// -----------------------------------------------------------------------------------------------

bool AppShell::applyAddress(std::string* error) {
  const std::string fragment = platform::addressFragment();
  if (fragment.empty() || fragment == addressShown_) return true;
  try {
    applySession(cli::parseSession(fragment, "the link"));
  } catch (const cli::SessionError& e) {
    if (error) *error = std::string("This link was not opened, nothing changed: ") + e.what();
    addressShown_ = fragment;   // refused once; the window keeps what it shows
    return false;
  }
  addressShown_ = fragment;
  addressStep_ = state_.learn.step;
  return true;
}

// On Learn, a step reached by Next, Back or a jump is a new entry in the browser's history.
// The step shown first replaces the address's entry (a bare address then holds its step too).
void AppShell::followAddress() {
  if (!platform::hasAddress()) return;
  if (findPanel("learn") != state_.activePanel) return;
  if (addressFollowed_ && state_.learn.step == addressStep_) return;
  addressStep_ = state_.learn.step;
  addressShown_ = cli::sessionLine(captureSession(), defaultPanelParams());
  platform::setAddressFragment(addressShown_, addressFollowed_);
  addressFollowed_ = true;
}

// File > Copy link (the page's menu only): the address with this session, in the address bar and
// on the clipboard.
void AppShell::copyLink() {
  addressShown_ = cli::sessionLine(captureSession(), defaultPanelParams());
  addressStep_ = state_.learn.step;
  platform::setAddressFragment(addressShown_, false);
  ImGui::SetClipboardText(platform::address().c_str());
  state_.message = "Link copied: it opens this session, every tab as it is now";
  state_.messageUntil = ImGui::GetTime() + 6.0;
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Page
// -----------------------------------------------------------------------------------------------

std::string AppShell::pageState() const {
  nlohmann::json j;
  j["title"] = windowTitle_;
  j["presenting"] = presentedFigure() != 0;
  j["light"] = settings_.lightTheme;
  const auto& table = panels();
  j["panel"] = state_.activePanel >= 0 && state_.activePanel < static_cast<int>(table.size())
                   ? table[static_cast<std::size_t>(state_.activePanel)].name
                   : "";
  j["step"] = state_.learn.step;
  j["frame"] = ctx_.frame;
  j["busy"] = ctx_.status.busy;
  j["backend"] = ctx_.status.backend;
  j["notice"] = state_.notice;
  j["message"] = state_.message;
  j["fragment"] = addressShown_;
  if (const TrainProgress t = trainProgress(state_); t.runs > 0)   // the Train tab's runs, for a test to follow
    j["train"] = {{"runs", t.runs}, {"finished", t.finished}, {"progress", t.progress}};
  return j.dump();
}

void AppShell::connectPage() {
  platform::Page page;
  page.openFile = [this](const std::string& path) {
    std::string err;
    if (!openFile(path, &err)) state_.notice = err;
  };
  page.addressChanged = [this] {
    std::string err;
    if (!applyAddress(&err)) state_.notice = err;
  };
  page.storeSettings = [this] { storeSettings(); };
  page.state = [this] { return pageState(); };
  page.selectPanel = [this](const std::string& name) {
    const int index = findPanel(name);
    if (index < 0) return false;
    state_.requestedPanel = index;
    return true;
  };
  platform::connectPage(std::move(page));
}

}  // namespace posviz::app
