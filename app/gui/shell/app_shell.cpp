// app_shell.cpp: the window, menus, shortcuts and status bar around the views.
//
// [SECTION] Creation (GL context, ImGui, GPU backend, settings)
// [SECTION] Fonts (DPI)
// [SECTION] Frame
// [SECTION] Start here (first-run window; help windows)
// [SECTION] Menu bar and shortcuts
// [SECTION] Status bar
// [SECTION] Screenshots
#include "app/gui/shell/app_shell.hpp"

#include "app/gui/platform/gl.hpp"
#include "app/gui/platform/platform.hpp"

#include "app/cli/view_call.hpp"
#include "app/gui/widgets/figure_export.hpp"
#include "app/gui/widgets/theme.hpp"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "app/cli/animate.hpp"
#include "app/cli/cli.hpp"
#include "app/cli/glossary.hpp"
#include "app/cli/tabs.hpp"
#include "app/cli/video.hpp"
#include "app/cli/view_table.hpp"
#include "app/gui/shell/view_export.hpp"
#include "app/gui/panels/panels.hpp"
#include "core/untrusted_text.hpp"
#include "core/npy.hpp"
#include "app/gui/shell/screenshot.hpp"
#include "app/gui/widgets/retained.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/lessons/lessons.hpp"
#include "core/embedded.hpp"
#include "core/gpu/gpu_compute.hpp"

namespace posviz::app {

namespace {

// The page's tests click menus by where they were drawn (platform::noteButton; the desktop: nothing).
void noteItem(const char* id) {
  const ImVec2 at = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
  platform::noteButton(id, at.x, at.y, size.x, size.y);
}

// What ImGui's stacks held before a view was drawn, so that a view which throws half-way can be
// unwound to that point and the frame goes on (the view then shows its error instead).
struct ImGuiStackMark {
  int windows, ids, colors, styleVars, fonts, groups, tabBars;
  ImGuiTable* table;
  static ImGuiStackMark take() {
    ImGuiContext& g = *ImGui::GetCurrentContext();
    return {g.CurrentWindowStack.Size, g.CurrentWindow->IDStack.Size, g.ColorStack.Size, g.StyleVarStack.Size,
            g.FontStack.Size, g.GroupStack.Size, g.CurrentTabBarStack.Size, g.CurrentTable};
  }
  void unwind() const {
    ImGuiContext& g = *ImGui::GetCurrentContext();
    while (g.CurrentWindowStack.Size > windows) {
      while (g.CurrentTable && g.CurrentTable != table && g.CurrentTable->OuterWindow == g.CurrentWindow) ImGui::EndTable();
      while (g.GroupStack.Size > 0 && g.GroupStack.back().WindowID == g.CurrentWindow->ID) ImGui::EndGroup();
      while (g.CurrentWindow->IDStack.Size > 1) ImGui::PopID();
      if (g.CurrentWindow->Flags & ImGuiWindowFlags_ChildWindow) ImGui::EndChild(); else ImGui::End();
    }
    while (g.CurrentTable && g.CurrentTable != table) ImGui::EndTable();
    while (g.CurrentTabBarStack.Size > tabBars) ImGui::EndTabBar();
    while (g.GroupStack.Size > groups) ImGui::EndGroup();
    while (g.CurrentWindow->IDStack.Size > ids) ImGui::PopID();
    if (g.ColorStack.Size > colors) ImGui::PopStyleColor(g.ColorStack.Size - colors);
    if (g.StyleVarStack.Size > styleVars) ImGui::PopStyleVar(g.StyleVarStack.Size - styleVars);
    while (g.FontStack.Size > fonts) ImGui::PopFont();
  }
};

// Present mode's text, against the window's.
constexpr float kPresentTextScale = 1.8f;

void glfwErrorCallback(int code, const char* description) {
  std::fprintf(stderr, "posviz: GLFW error %d: %s\n", code, description);
}

}  // namespace

// -----------------------------------------------------------------------------------------------
// [SECTION] Creation
// -----------------------------------------------------------------------------------------------

std::unique_ptr<AppShell> AppShell::create(const AppOptions& options, std::string* error) {
  std::unique_ptr<AppShell> app(new AppShell());
  app->options_ = options;
  forgetHeatmapViews();   // the zoom and the presented figure of a window closed before belong to it
  setPresentedFigure(0, nullptr);
  glfwSetErrorCallback(glfwErrorCallback);
  if (!glfwInit()) {
    if (error) *error = "cannot initialise GLFW (no display? set DISPLAY or run under xvfb-run)";
    return nullptr;
  }

  std::string notice;
  if (options.useSettings) {
    const std::string dir = configDir();
    if (!dir.empty()) {
      app->settingsPath_ = dir + "/settings.json";
      app->iniPath_ = dir + "/imgui.ini";
      app->settings_ = loadSettings(app->settingsPath_, &notice);
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec || !std::filesystem::is_directory(dir, ec)) {
        notice += std::string(notice.empty() ? "" : " ") + "Settings will not be saved: the folder " + displayText(dir) +
                  " cannot be made (" + (ec ? ec.message() : std::string("a file has its name")) + ").";
      }
    }
  }
  if (const std::string kept = platform::settingsNotice(); options.useSettings && !kept.empty())
    notice += (notice.empty() ? "" : " ") + kept;
  if (!app->openWindow()) {
    if (error) *error = "cannot create an OpenGL 3.3 window (no GPU driver or display?)";
    glfwTerminate();
    return nullptr;
  }
  app->startGpuBackend();

  // Our key callback first: ImGui's backend chains to it.
  glfwSetWindowUserPointer(app->window_, app.get());
  glfwSetKeyCallback(app->window_, &AppShell::keyCallback);
  glfwSetDropCallback(app->window_, &AppShell::dropCallback);
  app->initImGui();
  app->connectPage();

  // Panel parameters saved last time, then the start panel.
  app->loadPanelSettings();
  app->startHereOpen_ = options.startHere && !app->settings_.startHereDismissed;
  const std::string start = options.startPanel.empty() ? app->settings_.panel : options.startPanel;
  const int idx = findPanel(start);
  app->state_.activePanel = idx >= 0 ? idx : 0;
  app->state_.requestedPanel = app->state_.activePanel;
  if (!notice.empty()) {
    app->state_.notice = notice + (app->state_.notice.empty() ? "" : " " + app->state_.notice);
  }
  return app;
}

bool AppShell::openWindow() {
  const int width = options_.width > 0 ? options_.width : settings_.windowWidth;
  const int height = options_.height > 0 ? options_.height : settings_.windowHeight;
#ifndef NDEBUG
  constexpr bool kDebugContext = true;
#else
  constexpr bool kDebugContext = false;
#endif
  for (const platform::GlRequest& r : platform::contextRequests(options_.forceGl33)) {
    glfwDefaultWindowHints();
    platform::applyContextHints(r, kDebugContext);
    if (settings_.maximized && options_.width == 0) glfwWindowHint(GLFW_MAXIMIZED, GLFW_TRUE);
    window_ = glfwCreateWindow(width, height, "posviz", nullptr, nullptr);
    if (window_) {
      glMajor_ = r.major;
      glMinor_ = r.minor;
      break;
    }
  }
  if (!window_) return false;
  if (options_.width == 0 && settings_.windowX >= 0 && settings_.windowY >= 0)
    glfwSetWindowPos(window_, settings_.windowX, settings_.windowY);
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(1);
  if (kDebugContext) platform::installGlDebugOutput();
  return true;
}

// Without GL 4.3 or a working compute backend, ctx_.gpuNotice says why and every view runs on
// the CPU.
void AppShell::startGpuBackend() {
  if (glMajor_ >= 4) {
    std::string why;
    gpu_ = gpu::GpuCompute::create(&why);
    if (!gpu_) ctx_.gpuNotice = "GPU compute unavailable (" + why + "): every view runs on the CPU.";
  } else if (!platform::hasGpuBackend()) {
    // The page: the status line says so on hover; no banner for what a browser never has.
    std::string why;
    gpu::GpuCompute::create(&why);
    ctx_.gpuNotice = "GPU compute unavailable (" + why + "): every view runs on the CPU.";
    state_.showGpuNotice = false;
  } else {
    ctx_.gpuNotice = options_.forceGl33
                         ? std::string("GPU compute off: OpenGL 4.3 is not available in the OpenGL 3.3 context that --gl33 "
                                       "asked for, so there are no compute shaders; every view runs on the CPU.")
                         : "OpenGL 4.3 is not available (the driver gave " + std::to_string(platform::glVersion() / 10) +
                               "." + std::to_string(platform::glVersion() % 10) +
                               "), so there are no compute shaders: every view runs on the CPU.";
  }
  ctx_.gpu = gpu_.get();
  ctx_.backend = settings_.backend;
}

void AppShell::initImGui() {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  // The layout is read and written here, through the safe reader and writer, never by ImGui.
  io.IniFilename = nullptr;
  if (!iniPath_.empty()) {
    std::string notice;
    const std::string layout = loadLayout(iniPath_, &notice);
    if (!layout.empty()) ImGui::LoadIniSettingsFromMemory(layout.data(), layout.size());
    if (!notice.empty()) state_.notice += (state_.notice.empty() ? "" : " ") + notice;
  }
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init(platform::glslVersion());
  platform::installClipboard();
  imguiReady_ = true;
  contentScale_ = std::max(0.5f, platform::contentScale(window_));
  fontsDirty_ = true;
}

void AppShell::loadPanelSettings() { loadPanels(settings_.panels); }

void AppShell::loadPanels(const nlohmann::json& params) {
  for (const PanelInfo& p : panels()) {
    if (!p.def->load) continue;
    // Under the tab's name, or under an older name of it (an alias) in a file saved before a rename.
    std::vector<std::string> keys = {p.name};
    if (const cli::TabDef* tab = cli::findTab(p.name)) keys.insert(keys.end(), tab->aliases.begin(), tab->aliases.end());
    for (const std::string& key : keys) {
      if (!params.contains(key) || !params[key].is_object()) continue;
      try {
        p.def->load(state_, params[key]);
      } catch (const std::exception&) {
        // A bad saved value must not stop the start; that panel keeps its defaults.
      }
      break;
    }
  }
}

nlohmann::json AppShell::savedPanels(const AppState& state) {
  nlohmann::json out = nlohmann::json::object();
  for (const PanelInfo& p : panels()) {
    if (!p.def->save) continue;
    nlohmann::json j = nlohmann::json::object();
    p.def->save(state, j);
    out[p.name] = j;
  }
  return out;
}

AppShell::~AppShell() {
  if (window_) {
    storeSettings();
    glfwMakeContextCurrent(window_);
  }
  gpu_.reset();
  if (imguiReady_) {
    releaseRetained();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

void AppShell::storeSettings() {
  if (!options_.useSettings || settingsPath_.empty()) return;
  settings_.maximized = glfwGetWindowAttrib(window_, GLFW_MAXIMIZED) == GLFW_TRUE;
  if (!settings_.maximized && !glfwGetWindowAttrib(window_, GLFW_ICONIFIED)) {
    glfwGetWindowPos(window_, &settings_.windowX, &settings_.windowY);
    glfwGetWindowSize(window_, &settings_.windowWidth, &settings_.windowHeight);
  }
  settings_.panel = panels()[static_cast<std::size_t>(state_.activePanel)].name;
  settings_.backend = ctx_.backend;
  const nlohmann::json saved = savedPanels(state_);
  for (const auto& [name, params] : saved.items()) settings_.panels[name] = params;
  std::string err;
  if (!saveSettings(settingsPath_, settings_, &err)) std::fprintf(stderr, "posviz: %s\n", err.c_str());
  if (imguiReady_ && ImGui::GetCurrentContext() && !iniPath_.empty()) {
    std::size_t size = 0;
    const char* layout = ImGui::SaveIniSettingsToMemory(&size);
    if (!saveLayout(iniPath_, std::string(layout, size), &err)) std::fprintf(stderr, "posviz: %s\n", err.c_str());
  }
  platform::settingsSaved();
}

bool AppShell::shouldClose() const { return glfwWindowShouldClose(window_); }
void AppShell::requestClose() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }
void AppShell::selectPanel(int index) {
  if (index >= 0 && index < static_cast<int>(panels().size())) state_.requestedPanel = index;
}
void AppShell::parkMouse() { glfwSetCursorPos(window_, -2000.0, -2000.0); }

int AppShell::framebufferWidth() const {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  return w;
}
int AppShell::framebufferHeight() const {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  return h;
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Fonts (DPI)
// -----------------------------------------------------------------------------------------------

void AppShell::rebuildFonts() {
  const float scale = contentScale_ * settings_.fontScale;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  addAppFont(io.Fonts, kBaseFontPx * scale);
  presentFont_ = addAppFont(io.Fonts, kBaseFontPx * scale * kPresentTextScale);
  io.Fonts->Build();
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  if (presentedFigure() != 0) setPresentedFigure(presentedFigure(), presentFont_);
  setLightTheme(settings_.lightTheme);
  ImGuiStyle fresh;
  if (settings_.lightTheme) ImGui::StyleColorsLight(&fresh);
  else ImGui::StyleColorsDark(&fresh);
  fresh.WindowRounding = 0.0f;
  fresh.FrameRounding = 3.0f;
  fresh.GrabRounding = 3.0f;
  fresh.TabRounding = 3.0f;
  // The value is drawn over the grab: a thin, translucent grab keeps every digit readable.
  fresh.GrabMinSize = 5.0f;
  fresh.Colors[ImGuiCol_SliderGrab].w = 0.45f;
  fresh.Colors[ImGuiCol_SliderGrabActive].w = 0.65f;
  fresh.ScaleAllSizes(scale);
  ImGui::GetStyle() = fresh;
  ctx_.uiScale = scale;
  fontsDirty_ = false;
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Frame
// -----------------------------------------------------------------------------------------------

bool AppShell::frame(const std::string& screenshotPath, std::string* error) {
  glfwMakeContextCurrent(window_);
  platform::followPageSize(window_);
  if (glfwGetWindowAttrib(window_, GLFW_ICONIFIED)) {
    glfwWaitEventsTimeout(0.1);
    return screenshotPath.empty();
  }
  waitForEvents(!screenshotPath.empty());
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  ctx_.frame++;
  ctx_.time = ImGui::GetTime();
  ctx_.deltaTime = ImGui::GetIO().DeltaTime;
  beginFigureFrame();

  handleShortcuts();
  setInlineHelp(settings_.inlineHelp);

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float statusH = ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y;
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x, std::max(vp->WorkSize.y - statusH, 10.0f)));
  // The window's background is the frame's clear colour (present()): drawn as a rectangle it
  // is a blended pass over the whole window, the costliest draw of a frame on a software GL.
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_MenuBar | ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoBackground;
  ctx_.status = StatusInfo{};
  ImGui::Begin("posviz", nullptr, flags);
  if (const float border = ImGui::GetStyle().WindowBorderSize; border > 0.0f) {   // NoBackground drops it too
    const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PushClipRect(at, ImVec2(at.x + size.x, at.y + size.y), false);
    dl->AddRect(at, ImVec2(at.x + size.x, at.y + size.y), ImGui::GetColorU32(ImGuiCol_Border), ImGui::GetStyle().WindowRounding, 0,
                border);
    dl->PopClipRect();
  }
  drawMenuBar();
  if (!ctx_.gpuNotice.empty() && state_.showGpuNotice) {
    NoticeText(ctx_.gpuNotice);
    ImGui::SameLine();
    if (ImGui::SmallButton("dismiss")) state_.showGpuNotice = false;
  }
  if (!state_.notice.empty()) {  // the button first: a long notice wraps beside it, never over it
    const bool dismiss = ImGui::SmallButton("dismiss##settings");
    ImGui::SameLine();
    NoticeText(state_.notice);
    if (dismiss) state_.notice.clear();
  }
  drawPanelTabs();
  ImGui::End();

  handleFigureChoices();
  drawExportPopup();
  drawSessionPopup();
  drawConfigPopup();
  drawFigureDialog(figureDialog_, settings_.exportFolder, settings_.figureWidth);
  pollExport();

  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x, vp->WorkPos.y + vp->WorkSize.y - statusH));
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x, statusH));
  drawStatusBar(statusH);
  drawHelpWindows();
  return present(screenshotPath, error);
}

// Idle (nothing computing or moving): sleep until input or a tenth of a second, not spin. Then
// follow the monitor's content scale (fonts are rebuilt when it or the font scale changed).
void AppShell::waitForEvents(bool screenshotWanted) {
  const bool idle = !ctx_.status.busy && !ctx_.status.animating && !exporting_ && !figureExportPending() && state_.requestedPanel < 0 &&
                    !screenshotWanted && ctx_.frame > 2 && !continuous_;
  if (idle) glfwWaitEventsTimeout(0.1);
  else glfwPollEvents();
  const float cs = std::max(0.5f, platform::contentScale(window_));
  if (cs != contentScale_) {
    contentScale_ = cs;
    fontsDirty_ = true;
  }
  if (fontsDirty_) rebuildFonts();
}

// One tab per panel; only the open one is drawn. A view that throws is unwound and shows its
// error instead, and the frame goes on.
void AppShell::drawPanelTabs() {
  const auto& table = panels();
  int opened = -1;
  if (ImGui::BeginTabBar("panels", ImGuiTabBarFlags_FittingPolicyScroll)) {
    for (std::size_t i = 0; i < table.size(); ++i) {
      const PanelInfo& p = table[i];
      ImGuiTabItemFlags tf = 0;
      if (state_.requestedPanel == static_cast<int>(i)) tf |= ImGuiTabItemFlags_SetSelected;
      const bool open = ImGui::BeginTabItem(p.title, nullptr, tf);
      if (ImGui::IsItemHovered()) {
        if (i < 9)   // only Ctrl+1 .. Ctrl+9 can be typed
          ImGui::SetTooltip("%s  (Ctrl+%d)", p.summary, static_cast<int>(i) + 1);
        else
          ImGui::SetTooltip("%s", p.summary);
      }
      if (!open) continue;
      opened = static_cast<int>(i);
      const ImGuiStackMark mark = ImGuiStackMark::take();
      try {
        p.def->draw(state_, ctx_);
      } catch (const std::exception& e) {
        mark.unwind();
        std::fprintf(stderr, "posviz: the %s view failed: %s\n", p.title, e.what());
        ErrorText(std::string("This view failed: ") + e.what());
      }
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  if (opened >= 0) state_.activePanel = opened;
  if (state_.requestedPanel >= 0 && state_.requestedPanel == opened) state_.requestedPanel = -1;
  // The window title names the tab, and on Learn the step: scripts follow a walk by it.
  std::string title = "posviz";
  if (opened >= 0) {
    const PanelInfo& p = table[static_cast<std::size_t>(opened)];
    title += std::string(" - ") + (p.def->windowTitle ? p.def->windowTitle(state_) : std::string(p.title));
  }
  if (title != windowTitle_) {
    windowTitle_ = title;
    glfwSetWindowTitle(window_, title.c_str());   // the page: the browser tab's title
  }
  followAddress();
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Start here
// -----------------------------------------------------------------------------------------------

ExportableView AppShell::activeExports() const {
  const auto& table = panels();
  if (state_.activePanel < 0 || state_.activePanel >= static_cast<int>(table.size())) return {};
  const PanelDef& def = *table[static_cast<std::size_t>(state_.activePanel)].def;
  return def.exports != nullptr ? def.exports(state_) : ExportableView{};
}

void AppShell::openTab(std::string_view name, void (*PanelDef::*action)(AppState&)) {
  const int index = findPanel(name);
  if (index < 0) return;
  const PanelDef& def = *panels()[static_cast<std::size_t>(index)].def;
  if (action != nullptr && def.*action != nullptr) (def.*action)(state_);
  state_.requestedPanel = index;
}

void AppShell::followStartHereLink(StartHereLink link) {
  startHereOpen_ = false;   // out of the way of what the link opened (Help > Start here brings it back)
  switch (link) {
    case StartHereLink::Learn: state_.requestedPanel = findPanel("learn"); break;
    case StartHereLink::FirstExample:
      openTab("worked-examples", &PanelDef::start);
      break;
    case StartHereLink::Sinusoidal: state_.requestedPanel = findPanel("sinusoidal"); break;
    case StartHereLink::ModelPreset:
      try {
        showConfigNotes(kStartHerePreset, applyModelConfig(state_, cli::loadPreset(kStartHerePreset)));
        state_.requestedPanel = findPanel("model");
      } catch (const std::exception& e) {
        state_.message = std::string("Preset ") + kStartHerePreset + ": " + e.what();
        state_.messageUntil = ImGui::GetTime() + 8.0;
      }
      break;
  }
}

void AppShell::dismissStartHere() {
  startHereOpen_ = false;
  settings_.startHereDismissed = true;
  storeSettings();   // at once: "never again" must hold even if the app does not exit cleanly
}

// A short window over the views: four ways in, each a button that switches the tab and closes the window.
void AppShell::drawStartHere() {
  if (!startHereOpen_) return;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.4f), ImGuiCond_Appearing,
                          ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(560 * ctx_.uiScale, 0), ImGuiCond_Appearing);
  ImGui::SetNextWindowBgAlpha(1.0f);   // opaque: the view behind is busy
  if (startHereExample_.empty()) {     // once: the first example's title (core computes the example)
    const std::vector<std::string> names = workedExampleNames();
    const std::optional<WorkedExample> first = names.empty() ? std::nullopt : findWorkedExample(names.front());
    startHereExample_ = first ? first->title : "(none)";
  }
  bool open = true;
  if (ImGui::Begin("Start here", &open, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
    ImGui::TextWrapped("posviz draws how transformers tell token positions apart: every number exact, every cell "
                       "hoverable. Four ways in:");
    ImGui::Spacing();
    const float w = ImGui::GetContentRegionAvail().x;
    const struct {
      StartHereLink link;
      std::string label, detail;
    } links[] = {
        {StartHereLink::Learn, "The Learn path",
         "Why each scheme works, one live figure per step, in the articles' order, with what the articles get wrong."},
        {StartHereLink::FirstExample, "The documents' first worked example",
         startHereExample_ + ": step by step, each claim the document makes checked against the exact value."},
        {StartHereLink::Sinusoidal, "The sinusoidal view",
         "The original encoding: sin and cos waves by position and dimension. Drag d_model and base."},
        {StartHereLink::ModelPreset, std::string("A real model: ") + kStartHerePreset,
         "Its published config.json in the Model tab: which positions each layer uses."},
    };
    for (const auto& l : links) {
      ImGui::PushID(static_cast<int>(l.link));
      if (ImGui::Button((l.label + "  \xe2\x86\x92").c_str(), ImVec2(w, 0))) followStartHereLink(l.link);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("%s", l.detail.c_str());
      ImGui::PopStyleColor();
      ImGui::Spacing();
      ImGui::PopID();
    }
    ImGui::Separator();
    if (ImGui::Button("Don't show again")) open = false;
    ImGui::SameLine();
    ImGui::TextDisabled("Help > Start here opens this again.");
  }
  ImGui::End();
  if (!open) dismissStartHere();
}

void AppShell::drawHelpWindows() {
  drawStartHere();
  drawGlossary();
  if (state_.showAbout) {
    ImGui::SetNextWindowSize(ImVec2(520 * ctx_.uiScale, 0), ImGuiCond_Appearing);
    if (ImGui::Begin("About posviz", &state_.showAbout, ImGuiWindowFlags_NoSavedSettings)) {
      ImGui::Text("posviz %s", POSVIZ_VERSION);
      ImGui::TextWrapped(
          "Transformer positional encodings, visible and exact: sinusoidal, learned tables, RoPE and its context "
          "extensions, ALiBi. Every number is computed exactly (angles in float64); hover any cell for its exact "
          "value and formula.");
      ImGui::Separator();
      ImGui::Text("OpenGL %d.%d, backend: %s", glMajor_, glMinor_, ctx_.gpu ? "GPU compute available" : "CPU only");
      ImGui::Text("Settings: %s", settingsPath_.empty() ? "(not saved)" : settingsPath_.c_str());
      ImGui::TextUnformatted("Font: DejaVu Sans (assets/fonts/LICENSE-DejaVu.txt)");
    }
    ImGui::End();
  }
  if (state_.showShortcuts) {
    if (ImGui::Begin("Keyboard shortcuts", &state_.showShortcuts, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
      ImGui::Text("Ctrl+1 .. Ctrl+%d   switch to one of the first %d tabs", std::min(9, static_cast<int>(panels().size())),
                  std::min(9, static_cast<int>(panels().size())));
      ImGui::TextUnformatted("F12                save a screenshot (PNG)");
      ImGui::TextUnformatted("F11                present the figure under the mouse (or the largest); again or Esc: back");
      ImGui::TextUnformatted("Page Down / Up     while presenting: the tab's next / previous figure");
      ImGui::TextUnformatted("right-click        on a figure: export it (PNG or SVG) or present it");
      ImGui::TextUnformatted("Ctrl+O             open a model config.json");
      ImGui::TextUnformatted("Ctrl+Shift+O       open a learned table (.npy)");
      ImGui::TextUnformatted("Ctrl+= / Ctrl+-    larger / smaller text");
      ImGui::TextUnformatted("Ctrl+Q             quit");
      ImGui::TextUnformatted("Page Down / Up     Learn: next / previous step (also Right / Left)");
      ImGui::Separator();
      ImGui::TextUnformatted("Heatmaps: wheel zooms at the mouse (Shift: columns only, Ctrl: rows only),");
      ImGui::TextUnformatted("drag pans, double-click resets, hover shows the exact value and formula.");
      ImGui::TextUnformatted("Sliders: Ctrl+click to type a value.");
    }
    ImGui::End();
  }
}

// Help > Glossary: every symbol, one name per concept, with the articles' other names for it.
void AppShell::drawGlossary() {
  if (!state_.showGlossary) return;
  ImGui::SetNextWindowSize(ImVec2(760 * ctx_.uiScale, 560 * ctx_.uiScale), ImGuiCond_Appearing);
  if (ImGui::Begin("Glossary", &state_.showGlossary, ImGuiWindowFlags_NoSavedSettings)) {
    if (ImGui::BeginTable("glossary", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp)) {
      ImGui::TableSetupColumn("symbol", ImGuiTableColumnFlags_WidthFixed, 130 * ctx_.uiScale);
      ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthFixed, 170 * ctx_.uiScale);
      ImGui::TableSetupColumn("meaning (and the articles' other names for it)", ImGuiTableColumnFlags_WidthStretch);
      ImGui::TableHeadersRow();
      for (const cli::GlossaryEntry& e : cli::glossary()) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted(e.symbol.c_str());
        ImGui::TableSetColumnIndex(1);
        ImGui::TextWrapped("%s", e.name.c_str());
        ImGui::TableSetColumnIndex(2);
        ImGui::TextWrapped("%s", e.meaning.c_str());
        if (!e.also.empty()) ImGui::TextDisabled("also: %s", e.also.c_str());
      }
      ImGui::EndTable();
    }
  }
  ImGui::End();
}

// The main window's background as it looked when drawn over the old clear colour: the style's
// WindowBg (translucent in the dark theme) blended over (20, 20, 23), in the 8-bit arithmetic of
// the blend it replaces.
namespace {
Rgba8 windowBackground() {
  const ImVec4 c = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  const ImU32 packed = ImGui::ColorConvertFloat4ToU32(c);
  const int a = static_cast<int>((packed >> IM_COL32_A_SHIFT) & 0xff);
  auto over = [a](ImU32 src, int shift, int dst) {
    const int s = static_cast<int>((src >> shift) & 0xff);
    return static_cast<unsigned char>((s * a + dst * (255 - a) + 127) / 255);
  };
  return Rgba8{over(packed, IM_COL32_R_SHIFT, 20), over(packed, IM_COL32_G_SHIFT, 20), over(packed, IM_COL32_B_SHIFT, 23), 255};
}
}  // namespace

// Renders, saves the screenshot asked for (read before the swap), then swaps.
bool AppShell::present(const std::string& screenshotPath, std::string* error) {
  ImGui::Render();
  int fbw = 0, fbh = 0;
  glfwGetFramebufferSize(window_, &fbw, &fbh);
  glViewport(0, 0, fbw, fbh);
  const Rgba8 bg = windowBackground();
  glClearColor(bg.r / 255.0f, bg.g / 255.0f, bg.b / 255.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

  bool ok = true;
  if (!screenshotPath.empty()) {
    ScreenshotOptions so;
    so.width = fbw;
    so.height = fbh;
    ok = saveScreenshot(screenshotPath, so, error);
  }
  if (screenshotRequested_) {
    screenshotRequested_ = false;
    takeUserScreenshot();
  }
  platform::presentFrame(window_, continuous_);
  return ok;
}

void AppShell::setContinuous(bool on) {
  continuous_ = on;
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(on ? 0 : 1);
}

bool AppShell::renderUntilIdle(int minFrames, double timeoutSeconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  int idleFrames = 0;
  for (int i = 0;; ++i) {
    frame();
    if (!ctx_.status.busy && state_.requestedPanel < 0) ++idleFrames;
    else idleFrames = 0;
    if (i + 1 >= minFrames && idleFrames >= 2) return true;
    if (std::chrono::steady_clock::now() > end) return false;
    if (ctx_.status.busy) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Menu bar and shortcuts
// -----------------------------------------------------------------------------------------------

void AppShell::keyCallback(GLFWwindow* window, int key, int, int action, int mods) {
  if (action != GLFW_PRESS) return;
  if (auto* self = static_cast<AppShell*>(glfwGetWindowUserPointer(window))) self->keyPresses_.emplace_back(key, mods);
}

void AppShell::handleShortcuts() {
  const auto& table = panels();
  const bool typing = ImGui::GetIO().WantTextInput;
  if (escapeWhileTyping_ > 0) {
    if (!typing) {
      state_.message = "Escape discarded the typed value; Enter (or a click elsewhere) keeps one.";
      state_.messageUntil = ImGui::GetTime() + 6.0;
      escapeWhileTyping_ = 0;
    } else {
      --escapeWhileTyping_;
    }
  }
  const PanelDef* active = state_.activePanel >= 0 && state_.activePanel < static_cast<int>(table.size())
                               ? table[static_cast<std::size_t>(state_.activePanel)].def
                               : nullptr;
  for (const auto& [key, mods] : keyPresses_) {
    if (key == GLFW_KEY_F12) screenshotRequested_ = true;
    const bool presenting = presentedFigure() != 0, pageKey = key == GLFW_KEY_PAGE_UP || key == GLFW_KEY_PAGE_DOWN;
    if (key == GLFW_KEY_F11 || (presenting && key == GLFW_KEY_ESCAPE) || (presenting && pageKey && figuresShown().size() > 1)) {
      presentKey(key);
      continue;
    }
    // Escape in a text field (a slider's typed value too) restores the old value: said below once
    // the field has really let go (a tap too short for a frame reaches no field).
    if (key == GLFW_KEY_ESCAPE && typing) escapeWhileTyping_ = 3;
    // Learn's Next and Back: from the key queue, so a quick tap between two frames is not lost.
    if (active != nullptr && active->step != nullptr && mods == 0) {
      const bool free = !typing && !ImGui::IsAnyItemActive();
      if (key == GLFW_KEY_PAGE_DOWN || (free && key == GLFW_KEY_RIGHT)) active->step(state_, +1);
      if (key == GLFW_KEY_PAGE_UP || (free && key == GLFW_KEY_LEFT)) active->step(state_, -1);
    }
    if (!(mods & GLFW_MOD_CONTROL)) continue;
    if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9 && key - GLFW_KEY_1 < static_cast<int>(table.size()))
      state_.requestedPanel = key - GLFW_KEY_1;
    if (key == GLFW_KEY_Q) requestClose();
    if (key == GLFW_KEY_O && !typing && (mods & GLFW_MOD_SHIFT)) openTab("learned", &PanelDef::openFile);
    if (key == GLFW_KEY_O && !typing && !(mods & GLFW_MOD_SHIFT)) openConfigDialog();
    if (key == GLFW_KEY_EQUAL || key == GLFW_KEY_KP_ADD) {
      settings_.fontScale = std::min(3.0f, settings_.fontScale * 1.1f);
      fontsDirty_ = true;
    }
    if (key == GLFW_KEY_MINUS || key == GLFW_KEY_KP_SUBTRACT) {
      settings_.fontScale = std::max(0.5f, settings_.fontScale / 1.1f);
      fontsDirty_ = true;
    }
  }
  keyPresses_.clear();
}

void AppShell::drawMenuBar() {
  if (!ImGui::BeginMenuBar()) return;
  const auto& table = panels();
  if (ImGui::BeginMenu("File")) {
    if (ImGui::IsWindowAppearing()) menuExport_ = activeExports();
    if (ImGui::MenuItem("Open model config.json...", "Ctrl+O")) openConfigDialog();
    if (ImGui::BeginMenu("Open recent config", !settings_.recentConfigs.empty())) {
      for (const std::string& path : settings_.recentConfigs) {
        if (ImGui::MenuItem(displayText(path).c_str())) openConfigFile(path);
      }
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Open learned table (.npy)...", "Ctrl+Shift+O")) {
      if (platform::opensByPicker()) platform::pickFile({".npy"});
      else openTab("learned", &PanelDef::openFile);
    }
    if (ImGui::BeginMenu("Model presets")) {
      for (const std::string& name : cli::presetNames()) {
        if (!ImGui::MenuItem(name.c_str())) continue;
        try {
          applyConfig(cli::loadPreset(name));
        } catch (const std::exception& e) {
          state_.message = std::string("Preset ") + name + ": " + e.what();
          state_.messageUntil = ImGui::GetTime() + 8.0;
        }
      }
      ImGui::EndMenu();
    }
    ImGui::Separator();
    drawFigureMenu();
    drawExportMenu();
    drawSessionMenuItems();
    if (ImGui::MenuItem("Save screenshot", "F12")) screenshotRequested_ = true;
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) requestClose();
    ImGui::EndMenu();
  }
  const bool viewMenu = ImGui::BeginMenu("View");
  noteItem("menu-view");
  if (viewMenu) {
    for (std::size_t i = 0; i < table.size(); ++i) {
      const std::string shortcut = i < 9 ? "Ctrl+" + std::to_string(i + 1) : "";   // only 1..9 can be typed
      if (ImGui::MenuItem(table[i].title, shortcut.empty() ? nullptr : shortcut.c_str(), state_.activePanel == static_cast<int>(i)))
        state_.requestedPanel = static_cast<int>(i);
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Control help on screen", nullptr, settings_.inlineHelp)) settings_.inlineHelp = !settings_.inlineHelp;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Each control's first sentence of help under it; the (?) keeps the rest");
    if (ImGui::MenuItem("Larger text", "Ctrl+=")) {
      settings_.fontScale = std::min(3.0f, settings_.fontScale * 1.1f);
      fontsDirty_ = true;
    }
    if (ImGui::MenuItem("Smaller text", "Ctrl+-")) {
      settings_.fontScale = std::max(0.5f, settings_.fontScale / 1.1f);
      fontsDirty_ = true;
    }
    if (ImGui::MenuItem("Present a figure", "F11", presentedFigure() != 0, !figuresShown().empty())) presentKey(GLFW_KEY_F11);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("One figure over the whole window, large text, no controls; right-click a figure to choose it");
    if (ImGui::MenuItem("Light theme", nullptr, settings_.lightTheme)) {
      settings_.lightTheme = !settings_.lightTheme;
      fontsDirty_ = true;
    }
    noteItem("view-light-theme");
    if (ImGui::MenuItem("Show GPU notice", nullptr, state_.showGpuNotice, !ctx_.gpuNotice.empty()))
      state_.showGpuNotice = !state_.showGpuNotice;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Backend")) {
    const BackendChoice before = ctx_.backend;
    if (ImGui::MenuItem("Auto", nullptr, ctx_.backend == BackendChoice::Auto)) ctx_.backend = BackendChoice::Auto;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("GPU for large grids when compute shaders work, CPU otherwise");
    if (ImGui::MenuItem("CPU", nullptr, ctx_.backend == BackendChoice::Cpu)) ctx_.backend = BackendChoice::Cpu;
    if (ImGui::MenuItem("GPU", nullptr, ctx_.backend == BackendChoice::Gpu, ctx_.gpu != nullptr)) ctx_.backend = BackendChoice::Gpu;
    if (!ctx_.gpu && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", ctx_.gpuNotice.c_str());
    if (ctx_.backend != before) ctx_.backendEpoch++;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("Start here")) openStartHere();
    if (ImGui::MenuItem("Keyboard shortcuts")) state_.showShortcuts = true;
    if (ImGui::MenuItem("Glossary")) state_.showGlossary = true;
    ImGui::Separator();
    for (const PanelInfo& p : table) ImGui::BulletText("%s (--panel %s): %s", p.title, p.name, p.summary);
    ImGui::Separator();
    if (ImGui::MenuItem("About posviz")) state_.showAbout = true;
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Figures: File > Export figure, right-click menus, present mode
// -----------------------------------------------------------------------------------------------

void AppShell::drawFigureMenu() {
  const std::vector<FigureEntry>& figures = figuresShown();
  if (!ImGui::BeginMenu("Export figure", !figures.empty())) return;
  for (const FigureEntry& e : figures) {
    ImGui::PushID(static_cast<int>(e.id));
    if (ImGui::MenuItem(displayText(e.text.title).c_str())) openFigureExport(e);
    ImGui::PopID();
  }
  ImGui::EndMenu();
}

void AppShell::openFigureExport(const FigureEntry& e) {
  const ExportableView ex = activeExports();
  const std::string tabCaption = ex.call ? cli::callCaption(*ex.call) : std::string();
  openFigureDialog(figureDialog_, e, settings_.exportFolder, settings_.figureWidth, tabCaption);
}

void AppShell::handleFigureChoices() {
  if (const std::optional<FigureMenuChoice> c = takeFigureMenuChoice()) {
    if (c->present) setPresentedFigure(c->figure.id, presentFont_);
    else openFigureExport(c->figure);
  }
  // The presented figure went (another tab, a step without it): back to the controls.
  const std::vector<FigureEntry>& shown = figuresShown();
  if (presentedFigure() != 0 && ctx_.frame > 2 &&
      std::none_of(shown.begin(), shown.end(), [](const FigureEntry& e) { return e.id == presentedFigure(); }))
    setPresentedFigure(0, presentFont_);
}

// F11: present the figure under the mouse, else the largest on screen; again (or Escape) to leave.
// Page Down / Page Up: the tab's next or previous figure.
void AppShell::presentKey(int key) {
  const std::vector<FigureEntry>& shown = figuresShown();
  const ImGuiID now = presentedFigure();
  if (key == GLFW_KEY_ESCAPE || (key == GLFW_KEY_F11 && now != 0) || shown.empty()) {
    setPresentedFigure(0, presentFont_);
    return;
  }
  if (key == GLFW_KEY_F11) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    auto area = [](const FigureEntry& e) { return (e.max.x - e.min.x) * (e.max.y - e.min.y); };
    const auto hovered = std::find_if(shown.begin(), shown.end(), [&](const FigureEntry& e) {
      return m.x >= e.min.x && m.x < e.max.x && m.y >= e.min.y && m.y < e.max.y;
    });
    const auto largest = std::max_element(shown.begin(), shown.end(), [&](const FigureEntry& a, const FigureEntry& b) { return area(a) < area(b); });
    setPresentedFigure((hovered != shown.end() ? hovered : largest)->id, presentFont_);
    return;
  }
  const auto at = std::find_if(shown.begin(), shown.end(), [&](const FigureEntry& e) { return e.id == now; });
  const long n = static_cast<long>(shown.size());
  const long i = at == shown.end() ? 0 : (at - shown.begin() + (key == GLFW_KEY_PAGE_DOWN ? 1 : n - 1)) % n;
  setPresentedFigure(shown[static_cast<std::size_t>(i)].id, presentFont_);
}

// File > Export view: what the active tab offers (menuExport_, built when the File menu opened).
void AppShell::drawExportMenu() {
  const ExportableView& ex = menuExport_;
  const bool typed = ex.call.has_value();
  const bool hasGrid = typed;
  const cli::ViewDef* cliView = ex.call ? cli::findView(ex.call->view) : nullptr;
  const bool hasPng = hasGrid && (cliView == nullptr || cliView->png);
  const bool hasPlot = static_cast<bool>(ex.plotColumns);
  if (ImGui::BeginMenu("Export view", !ex.empty())) {
    auto item = [&](const char* label, ViewExportKind kind, bool enabled) {
      if (!ImGui::MenuItem(label, nullptr, false, enabled)) return;
      exportKind_ = kind;
      exportView_ = ex;
      exportOptions_ = ViewExportOptions{};
      exportOptions_.textScale = std::clamp(settings_.fontScale, cli::kMinTextScale, cli::kMaxTextScale);   // the window's text size
      exportOptions_.animation = defaultAnimation(ex);
      openSaveAs(exportFile_, settings_.exportFolder, defaultExportFileName(ex, kind));
      openExportPopup_ = true;
      exportResult_.clear();
    };
    item("Heatmap as PNG (colorbar, axes, caption)...", ViewExportKind::HeatmapPng, hasPng);
    item("Heatmap as SVG (vector text, for slides)...", ViewExportKind::HeatmapSvg, hasPng);
    item("Numbers as .npy...", ViewExportKind::HeatmapNpy, hasGrid);
    item("Numbers as .csv...", ViewExportKind::HeatmapCsv, hasGrid);
    item("Numbers as .json...", ViewExportKind::HeatmapJson, typed);
    item("Plot data as .csv...", ViewExportKind::PlotCsv, hasPlot);
    item(cli::videoAvailable() ? "Animation as GIF or video (sweep one number)..." : "Animation as GIF (sweep one number)...",
         ViewExportKind::AnimatedGif, hasPng && !sweepableParams(ex).empty());
    if (!cli::videoAvailable() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", cli::kVideoUnavailable);
    ImGui::EndMenu();
  }
}

// File > Save session, Open session, Copy session as text, Open session from clipboard.
void AppShell::drawSessionMenuItems() {
  for (const bool saving : {true, false}) {
    if (!ImGui::MenuItem(saving ? "Save session..." : "Open session...")) continue;
    sessionSaving_ = saving;
    openSessionPopup_ = true;
    sessionResult_.clear();
  }
  if (platform::hasAddress() && ImGui::MenuItem("Copy link")) copyLink();
  if (platform::hasAddress() && ImGui::IsItemHovered())
    ImGui::SetTooltip("The page's address with this session: whoever opens it sees every tab as it is now");
  if (ImGui::MenuItem("Copy session as text")) {
    ImGui::SetClipboardText(cli::sessionLine(captureSession(), defaultPanelParams()).c_str());
    state_.message = "Copied the session: paste it in a message; File > Open session from clipboard reopens it";
    state_.messageUntil = ImGui::GetTime() + 8.0;
  }
  if (ImGui::MenuItem("Open session from clipboard")) {
    const char* text = ImGui::GetClipboardText();
    std::string err;
    if (!openSessionText(text != nullptr ? text : "", &err)) state_.notice = err;
  }
}

void AppShell::applyConfig(const cli::ModelConfig& config) {
  showConfigNotes(config.name, applyModelConfig(state_, config));
  state_.requestedPanel = findPanel(cli::tabShowing(config.encoding));
  state_.message = "Loaded " + config.name + (config.description.empty() ? "" : ": " + config.description);
  state_.messageUntil = ImGui::GetTime() + 8.0;
}

void AppShell::showConfigNotes(const std::string& configName, const ConfigNotes& notes) {
  if (!notes.empty()) state_.notice = configNotesText(configName, notes);
}

void AppShell::openConfigDialog() {
  openConfigPopup_ = true;
  configError_.clear();
}

bool AppShell::openConfigFile(const std::string& path) {
  try {
    applyConfig(cli::loadModelConfig(path));
    configError_.clear();
  } catch (const std::exception& e) {
    configError_ = displayMessage(e.what());
    state_.message = "Config " + displayText(path) + ": " + configError_;
    return false;
  }
  std::vector<std::string>& recent = settings_.recentConfigs;
  const std::string abs = std::filesystem::absolute(path).lexically_normal().string();
  recent.erase(std::remove(recent.begin(), recent.end(), abs), recent.end());
  recent.insert(recent.begin(), abs);
  if (recent.size() > kRecentConfigs) recent.resize(kRecentConfigs);
  return true;
}

void AppShell::drawConfigPopup() {
  if (openConfigPopup_) {
    ImGui::OpenPopup("Open model config");
    openConfigPopup_ = false;
  }
  if (!ImGui::BeginPopupModal("Open model config", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  const float popupWidth = ImGui::GetFontSize() * 34.0f;
  ImGui::PushTextWrapPos(popupWidth);
  ImGui::TextWrapped("A Hugging Face style config.json (rope_theta, rope_scaling, head_dim, alibi, n_positions, ...).");
  if (platform::opensByPicker()) {   // the page: the browser's file chooser, or a file dropped on the page
    if (!configError_.empty()) ErrorText(configError_);
    if (ImGui::Button("Choose a config.json...")) platform::pickFile({".json"});
    ImGui::SameLine();
    if (ImGui::Button("Close")) ImGui::CloseCurrentPopup();
    ImGui::TextDisabled("or drop one on the page");
    ImGui::PopTextWrapPos();
    ImGui::EndPopup();
    return;
  }
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::SetNextItemWidth(popupWidth);
  const bool enter = ImGui::InputTextWithHint("##configpath", "path/to/config.json", configPath_, sizeof configPath_,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  if (!configError_.empty()) ErrorText(configError_);
  if (ImGui::Button("Open") || enter) {
    if (openConfigFile(configPath_)) ImGui::CloseCurrentPopup();
  }
  for (const std::string& path : settings_.recentConfigs) {  // a copy: opening one reorders the list
    if (ImGui::Selectable(displayText(path).c_str())) {
      std::snprintf(configPath_, sizeof configPath_, "%s", path.c_str());
      if (openConfigFile(path)) ImGui::CloseCurrentPopup();
      break;
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
  ImGui::PopTextWrapPos();
  ImGui::EndPopup();
}

void AppShell::drawExportPopup() {
  if (openExportPopup_) {
    ImGui::OpenPopup("Export");
    openExportPopup_ = false;
  }
  if (!ImGui::BeginPopupModal("Export", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  const float popupWidth = ImGui::GetFontSize() * 34.0f;
  ImGui::PushTextWrapPos(popupWidth);
  const char* what = exportKind_ == ViewExportKind::HeatmapPng    ? "the heatmap as a PNG, scaled to be readable, with colorbar, axis titles and caption"
                     : exportKind_ == ViewExportKind::HeatmapSvg  ? "the heatmap as SVG, with vector colorbar, axis titles and caption"
                     : exportKind_ == ViewExportKind::HeatmapNpy  ? "the numbers as float32 .npy (full resolution)"
                     : exportKind_ == ViewExportKind::HeatmapCsv  ? "the numbers as CSV"
                     : exportKind_ == ViewExportKind::HeatmapJson ? "the numbers as .json with their parameters"
                     : exportKind_ == ViewExportKind::AnimatedGif && !cli::videoAvailable() ? "the heatmap as a looping GIF, one frame per value of the number swept, every frame on one colour range (video needs libav, which the page does not have)"
                     : exportKind_ == ViewExportKind::AnimatedGif ? "the heatmap as a looping GIF (or a video: name the file .mp4 or .webm), one frame per value of the number swept, every frame on one colour range"
                                                                  : "the plot's data as CSV columns";
  ImGui::TextWrapped("Write %s of '%s'.", what, exportView_.name.c_str());
  const std::string caption = exportView_.call ? cli::callCaption(*exportView_.call) : exportView_.caption;
  if (!caption.empty()) ImGui::TextDisabled("%s", caption.c_str());
  if (exportKind_ == ViewExportKind::AnimatedGif) drawAnimationChoice();
  drawExportCommand();
  const bool enter = drawSaveAs(exportFile_, popupWidth);
  drawExportProgress();
  if (!exporting_ && (ImGui::Button("Save") || enter)) startExport();
  if (!exporting_) ImGui::SameLine();
  if (!exporting_ && ImGui::Button(exportResult_.empty() || exportFailed_ ? "Cancel" : "Close")) ImGui::CloseCurrentPopup();
  ImGui::PopTextWrapPos();
  ImGui::EndPopup();
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Sessions
// -----------------------------------------------------------------------------------------------

cli::Session AppShell::captureSession() const {
  return cli::Session{panels()[static_cast<std::size_t>(state_.activePanel)].name, savedPanels(state_), zoomedHeatmapViews()};
}

nlohmann::json AppShell::defaultPanelParams() const {
  return savedPanels(*std::make_unique<AppState>());   // every tab at its defaults
}

void AppShell::applySession(const cli::Session& s) {
  restoreHeatmapViews(s.views);
  loadPanels(defaultPanelParams());
  loadPanels(s.panels);
  if (const int index = findPanel(s.panel); index >= 0) selectPanel(index);
}

bool AppShell::openSessionFile(const std::string& path, std::string* error) {
  try {
    applySession(cli::readSessionFile(path));
    return true;
  } catch (const cli::SessionError& e) {
    if (error) *error = e.what();
    return false;
  }
}

bool AppShell::openSessionText(const std::string& text, std::string* error) {
  try {
    applySession(cli::parseSession(text, "the pasted session"));
    return true;
  } catch (const cli::SessionError& e) {
    if (error) *error = e.what();
    return false;
  }
}

void AppShell::drawSessionPopup() {
  if (openSessionPopup_) {
    ImGui::OpenPopup("Session");
    openSessionPopup_ = false;
  }
  if (!ImGui::BeginPopupModal("Session", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  const float width = ImGui::GetFontSize() * 34.0f;
  ImGui::PushTextWrapPos(width);
  ImGui::TextWrapped(sessionSaving_ ? "Save every tab's parameters and the tab shown as a .posviz file; File > Open session or "
                                      "posviz --session FILE reopens them."
                                    : "Open a .posviz session: every tab takes its parameters from it. A file that is not a "
                                      "session, or one saved by a newer posviz, is refused and nothing changes.");
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::SetNextItemWidth(width);
  const bool enter = ImGui::InputText("##sessionpath", sessionPath_, sizeof sessionPath_, ImGuiInputTextFlags_EnterReturnsTrue);
  if (!sessionResult_.empty()) ImGui::TextWrapped("%s", sessionResult_.c_str());
  if (ImGui::Button(sessionSaving_ ? "Save" : "Open") || enter) {
    std::string err;
    if (!sessionSaving_ && platform::opensByPicker()) {
      platform::pickFile({".posviz", ".json"});   // the file arrives through openFile()
      ImGui::CloseCurrentPopup();
    } else if (!sessionSaving_) {
      if (openSessionFile(sessionPath_, &err)) ImGui::CloseCurrentPopup();
      else sessionResult_ = err;
    } else {
      try {
        const auto t0 = std::chrono::steady_clock::now();
        const std::string path = platform::saveOffersFolders()
                                     ? std::string(sessionPath_)
                                     : platform::downloadFolder() + "/" + std::filesystem::path(sessionPath_).filename().string();
        cli::writeSessionFile(path, captureSession());
        sessionResult_ = exportDoneMessage(path, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        platform::fileSaved(path);   // the page: a download
      } catch (const std::exception& e) {
        sessionResult_ = std::string("cannot save the session: ") + e.what();
      }
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Close")) ImGui::CloseCurrentPopup();
  ImGui::PopTextWrapPos();
  ImGui::EndPopup();
}

// The same export from a shell, when the view is in the view table: copyable, so a picture made in
// the window can be remade (or scaled up) from a script.
void AppShell::drawExportCommand() {
  std::vector<std::string> args;
  try {
    args = exportArguments(exportView_, exportKind_, saveAsPath(exportFile_), exportOptions_);
  } catch (const std::invalid_argument&) {
    return;
  }
  if (args.empty()) return;
  const std::string command = cli::commandLine(args);
  ImGui::TextDisabled("Same as:");
  ImGui::TextWrapped("%s", command.c_str());
  if (ImGui::SmallButton("Copy command")) ImGui::SetClipboardText(command.c_str());
}

// Which number the GIF sweeps, over what range, in how many frames at what rate.
void AppShell::drawAnimationChoice() {
  const std::vector<SweepableParam> params = sweepableParams(exportView_);
  ViewAnimation& a = exportOptions_.animation;
  const auto current = std::find_if(params.begin(), params.end(), [&](const SweepableParam& p) { return p.flag == a.flag; });
  const float w = ImGui::GetFontSize() * 9.0f;
  ImGui::SetNextItemWidth(w * 1.5f);
  if (ImGui::BeginCombo("sweep", current != params.end() ? current->label.c_str() : "choose")) {
    for (const SweepableParam& p : params) {
      if (ImGui::Selectable(p.label.c_str(), p.flag == a.flag)) a = sweepOf(p, a.fps);
    }
    ImGui::EndCombo();
  }
  HelpMarker("One of the view's numbers, from its value now. Every frame is the picture File > Export > PNG would write at "
             "that value; all frames share one colour range.");
  ImGui::SetNextItemWidth(w);
  ImGui::InputDouble("from", &a.from, 0.0, 0.0, "%.6g");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w);
  ImGui::InputDouble("to", &a.to, 0.0, 0.0, "%.6g");
  ImGui::SetNextItemWidth(w);
  ImGui::SliderInt("frames", &a.frames, 2, cli::kMaxAnimationFrames, "%d", ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_Logarithmic);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w);
  static constexpr double kMinFps = 0.1, kMaxFps = 100.0;   // cli/animate's --fps range
  ImGui::SliderScalar("frames per second", ImGuiDataType_Double, &a.fps, &kMinFps, &kMaxFps, "%.3g", ImGuiSliderFlags_AlwaysClamp);
  cli::AnimationPlan plan;   // what the export will say it wrote: GIF delays in hundredths, a video's exact rate
  plan.frames = a.frames;
  plan.fps = a.fps;
  plan.output = exportFile_.name;
  ImGui::TextDisabled("%s", plan.summary().c_str());
}

// The export runs as a job: a recording of many frames shows its progress and can be cancelled
// (nothing is written then: every writer is atomic).
void AppShell::startExport() {
  exportResult_.clear();
  exportFailed_ = false;
  if (exportFile_.name.empty()) {
    exportResult_ = "export: type a file name";
    exportFailed_ = true;
    return;
  }
  ExportableView view = exportView_;
  if (view.plotColumns) {   // read from the tab's state here, on the window's thread, not in the job
    std::vector<std::vector<double>> columns = view.plotColumns();
    view.plotColumns = [columns] { return columns; };
  }
  exporting_ = true;
  exportJob_.request([view = std::move(view), kind = exportKind_, path = saveAsPath(exportFile_), options = exportOptions_](JobControl& jc) {
    const auto t0 = std::chrono::steady_clock::now();
    exportView(view, kind, path, options, [&jc](double f) {
      jc.setProgress(static_cast<float>(f));
      throwIfCancelled(jc);
    });
    return exportDoneMessage(path, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  });
}

void AppShell::pollExport() {
  if (!exporting_) return;
  if (exportJob_.poll()) {
    exportFailed_ = !exportJob_.error().empty();
    exportResult_ = exportFailed_ ? exportJob_.error() : *exportJob_.result();
    if (!exportFailed_) {
      settings_.exportFolder = exportFile_.folder;
      platform::fileSaved(saveAsPath(exportFile_));   // the page: a download
    }
  } else if (exportJob_.busy()) {
    return;
  } else {
    exportResult_ = "Cancelled; nothing was written";
    exportFailed_ = true;
  }
  exporting_ = false;
  state_.message = exportResult_;
  state_.messageUntil = ImGui::GetTime() + 8.0;
}

void AppShell::drawExportProgress() {
  if (exporting_) {
    const float p = exportJob_.progress();
    if (p >= 0.0f) ImGui::ProgressBar(p, ImVec2(ImGui::GetFontSize() * 20.0f, 0.0f));
    else BusySpinner("exporting", -1.0f);
    ImGui::SameLine();
    if (ImGui::Button("Cancel export")) exportJob_.cancelAll(/*keepFinished=*/true);   // a file written is said so
  } else if (!exportResult_.empty()) {
    if (exportFailed_) ErrorText(exportResult_);
    else ImGui::TextWrapped("%s", exportResult_.c_str());
  }
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Status bar
// -----------------------------------------------------------------------------------------------

void AppShell::drawStatusBar(float) {
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(ImGui::GetStyle().WindowPadding.x, ImGui::GetStyle().WindowPadding.y * 0.5f));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, themed(IM_COL32(28, 30, 36, 255)));
  ImGui::Begin("##status", nullptr, flags);
  const StatusInfo& st = ctx_.status;
  std::string backend = st.backend.empty() ? "CPU" : st.backend;
  ImGui::Text("Backend: %s", backend.c_str());
  if (!ctx_.gpuNotice.empty()) {
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, themed(IM_COL32(255, 196, 80, 255)));
    ImGui::TextUnformatted("(GPU unavailable)");
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ctx_.gpuNotice.c_str());
  }
  ImGui::SameLine(0, 24 * ctx_.uiScale);
  ImGui::Text("Grid: %s", st.gridSize.empty() ? "-" : st.gridSize.c_str());
  ImGui::SameLine(0, 24 * ctx_.uiScale);
  if (st.computeMs >= 100.0) ImGui::Text("Compute: %.0f ms", st.computeMs);
  else ImGui::Text("Compute: %s ms", formatShort(st.computeMs, 3).c_str());
  if (st.busy) {
    ImGui::SameLine(0, 24 * ctx_.uiScale);
    BusySpinner("busy", st.progress);
    ImGui::SameLine();
    if (st.progress >= 0.0f) ImGui::Text("computing %d%%", static_cast<int>(st.progress * 100.0f));
    else ImGui::TextUnformatted("computing...");
  }
  if (!state_.message.empty() && ImGui::GetTime() < state_.messageUntil) {
    ImGui::SameLine(0, 24 * ctx_.uiScale);
    ImGui::TextUnformatted(withoutCodeNames(state_.message).c_str());
  }
  const std::string hintText = "F12 screenshot  Ctrl+1..9 tabs";
  const char* hint = hintText.c_str();
  const float hintW = ImGui::CalcTextSize(hint).x;
  ImGui::SameLine();
  if (ImGui::GetCursorPosX() + hintW + 24 < ImGui::GetWindowWidth()) {
    ImGui::SameLine(ImGui::GetWindowWidth() - hintW - 16);
    ImGui::TextDisabled("%s", hint);
  } else {
    ImGui::NewLine();
  }
  ImGui::End();
  ImGui::PopStyleColor();
  ImGui::PopStyleVar();
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Screenshots
// -----------------------------------------------------------------------------------------------

void AppShell::takeUserScreenshot() {
  std::string path = options_.screenshotPath;
  if (path.empty()) {
    const char* name = panels()[static_cast<std::size_t>(state_.activePanel)].name;
    do {
      path = "posviz-" + std::string(name) + "-" + std::to_string(++screenshotCount_) + ".png";
    } while (std::filesystem::exists(path));
  }
  int fbw = 0, fbh = 0;
  glfwGetFramebufferSize(window_, &fbw, &fbh);
  ScreenshotOptions so;
  so.width = fbw;
  so.height = fbh;
  std::string err;
  state_.message = saveScreenshot(path, so, &err) ? "Saved screenshot " + path : err;
  state_.messageUntil = ImGui::GetTime() + 6.0;
  std::fprintf(stderr, "posviz: %s\n", state_.message.c_str());
}

int screenshotAllPanels(AppShell& app, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  int failures = 0;
  app.parkMouse();
  for (std::size_t i = 0; i < panels().size(); ++i) {
    app.selectPanel(static_cast<int>(i));
    if (!app.renderUntilIdle(4, 120.0)) std::fprintf(stderr, "posviz: %s still computing after 120 s\n", panels()[i].name);
    const std::string path = dir + "/" + panels()[i].name + ".png";
    std::string err;
    if (!app.frame(path, &err)) {
      std::fprintf(stderr, "posviz: %s\n", err.c_str());
      ++failures;
    } else {
      std::printf("%s\n", path.c_str());
    }
  }
  return failures;
}

}  // namespace posviz::app
