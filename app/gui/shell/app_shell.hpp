// app_shell.hpp: the window around the views: GL context, ImGui, fonts, menu bar, shortcuts,
// panel tabs, status bar, settings, screenshots. main() and tests/app both drive it.
//
// USAGE
//   auto app = AppShell::create({.startPanel = "rope"}, &error);   // nullptr + error on failure
//   while (!app->shouldClose()) app->frame();
//
// GL
//   Asks for a 4.3 core context (compute shaders) and falls back to 3.3 core; then, or when the
//   GPU backend cannot be created, AppContext::gpuNotice says why and every view runs on the CPU.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/gui/base/app_context.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/cli/model_config.hpp"
#include "app/cli/session.hpp"
#include "app/gui/base/config_notes.hpp"
#include "app/gui/shell/figure_dialog.hpp"
#include "app/gui/shell/settings.hpp"
#include "app/gui/shell/view_export.hpp"
#include "app/gui/widgets/worker.hpp"

struct GLFWwindow;
struct ImFont;

namespace posviz::app {

struct AppOptions {
  std::string startPanel;          // panel name; "" = the one saved in settings
  std::string screenshotPath;      // F12 writes here; "" = ./posviz-<panel>-<n>.png
  int width = 0, height = 0;       // window size; 0 = from settings
  bool useSettings = true;         // read and write settings.json and imgui.ini
  bool forceGl33 = false;          // test the fallback: a 3.3 context, no compute
  bool startHere = false;          // open on "Start here" unless settings record its dismissal; only the
                                   // interactive window asks (not with --screenshot-all, --screenshot-path,
                                   // --bench-frames; not in tests unless they ask)
};

// The links of the "Start here" window.
enum class StartHereLink {
  Learn,          // the Learn tab, where the student left it
  FirstExample,   // the Worked examples tab at the documents' first worked example, step 1
  Sinusoidal,     // the sinusoidal view
  ModelPreset,    // a shipped published config (kStartHerePreset) in the Model tab
};
inline constexpr const char* kStartHerePreset = "llama-3.1-8b";

class AppShell {
 public:
  static std::unique_ptr<AppShell> create(const AppOptions& options, std::string* error);
  ~AppShell();
  AppShell(const AppShell&) = delete;
  AppShell& operator=(const AppShell&) = delete;

  // One frame: events, views, render, swap. With screenshotPath, the frame is also saved as PNG
  // (read before the swap); false + *error when saving failed.
  bool frame(const std::string& screenshotPath = "", std::string* error = nullptr);
  // Frames until the active view reports no background work (at least minFrames; then one more
  // frame so the new result is drawn). False on timeout.
  bool renderUntilIdle(int minFrames = 3, double timeoutSeconds = 60.0);
  bool shouldClose() const;
  // Continuous: every frame polls and draws at once, never sleeping while idle and not waiting
  // for vsync (the frame benchmark measures the app, not the display).
  void setContinuous(bool on);
  void requestClose();

  AppState& state() { return state_; }
  AppContext& context() { return ctx_; }
  int activePanel() const { return state_.activePanel; }
  void selectPanel(int index);          // takes effect on the next frame
  void parkMouse();                     // moves the pointer off the window (no hover tooltips)
  // What the tabs could not show of a loaded config (applyModelConfig's notes), in the banner.
  void showConfigNotes(const std::string& configName, const ConfigNotes& notes);
  // "Start here": whether it is open; open it (Help > Start here); follow one of its links (the
  // tab switches on the next frame); dismiss it for good (saved to the settings file at once).
  bool startHereOpen() const { return startHereOpen_; }
  void openStartHere() { startHereOpen_ = true; }
  void followStartHereLink(StartHereLink link);
  // Sessions (app/cli/session.hpp): every tab's parameters and the tab shown; the defaults of every
  // tab (a fresh AppState's); applying one loads the defaults, then the session's parameters, and
  // shows its tab. openSession* leave everything as it was and set *error when refused.
  cli::Session captureSession() const;
  nlohmann::json defaultPanelParams() const;
  void applySession(const cli::Session& s);
  bool openSessionFile(const std::string& path, std::string* error);
  bool openSessionText(const std::string& text, std::string* error);
  // What File > Export offers for the active tab now (its PanelDef::exports, built from its state).
  ExportableView activeExports() const;
  // Opens tab `name`, first calling its entry's action (PanelDef::start, ::openFile) when it has one.
  void openTab(std::string_view name, void (*PanelDef::*action)(AppState&) = nullptr);
  void dismissStartHere();
  int framebufferWidth() const;
  int framebufferHeight() const;
  GLFWwindow* window() const { return window_; }

 private:
  AppShell() = default;
  bool openWindow();                    // GL 4.3 core, else 3.3 core; false when neither opens
  void startGpuBackend();
  void initImGui();
  void loadPanelSettings();
  void loadPanels(const nlohmann::json& params);   // tab name (or an alias) -> its parameters
  static nlohmann::json savedPanels(const AppState& state);   // every tab's parameters
  void waitForEvents(bool screenshotWanted);
  void drawPanelTabs();
  void drawHelpWindows();
  void drawGlossary();
  void drawStartHere();
  bool present(const std::string& screenshotPath, std::string* error);
  void rebuildFonts();
  void drawMenuBar();
  void drawStatusBar(float height);
  void handleShortcuts();
  void takeUserScreenshot();
  void storeSettings();
  void drawExportPopup();
  void drawConfigPopup();
  void startExport();               // File > Export view's job, with progress and Cancel
  void pollExport();
  void drawExportProgress();
  void drawExportCommand();
  void drawAnimationChoice();
  void drawExportMenu();          // File > Export view
  void drawSessionMenuItems();    // File > Save / Open / Copy session
  void drawFigureMenu();          // File > Export figure: each figure on screen
  void handleFigureChoices();     // a figure's right-click menu; present mode leaving the screen
  void presentKey(int key);       // F11, Escape, Page Up / Page Down
  void openFigureExport(const FigureEntry& e);
  void applyConfig(const cli::ModelConfig& config);

  GLFWwindow* window_ = nullptr;
  AppOptions options_;
  AppState state_;
  AppContext ctx_;
  Settings settings_;
  std::unique_ptr<gpu::GpuCompute> gpu_;
  std::string settingsPath_;
  std::string iniPath_;
  float contentScale_ = 1.0f;
  bool fontsDirty_ = true;
  bool imguiReady_ = false;
  bool screenshotRequested_ = false;
  bool continuous_ = false;
  bool startHereOpen_ = false;
  std::string windowTitle_;           // what the window's title bar shows now
  int escapeWhileTyping_ = 0;         // frames left to see a text field let go after Escape
  std::string startHereExample_;      // "title (name)" of the first worked example, computed once
  int screenshotCount_ = 0;
  int glMajor_ = 0, glMinor_ = 0;
  // Key presses seen by GLFW since the last frame (key, mods): a press and release within one
  // frame still counts, which ImGui 1.86's polled key state would miss.
  std::vector<std::pair<int, int>> keyPresses_;
  static void keyCallback(GLFWwindow* window, int key, int scancode, int action, int mods);

  // File > Export: the active view's data, written on the next frame (after "exporting..." shows).
  ViewExportKind exportKind_ = ViewExportKind::HeatmapPng;
  ExportableView exportView_;
  ExportableView menuExport_;         // what the File menu offers, built when it opened
  SaveAsState exportFile_;            // where it goes: the folder shown and remembered (settings)
  ViewExportOptions exportOptions_;   // the animation's sweep (File > Export view > Animation as GIF)
  bool openExportPopup_ = false;
  AsyncResult<std::string> exportJob_;   // the running export: "Wrote ..." when done
  bool exporting_ = false;
  std::string exportResult_;
  bool exportFailed_ = false;
  // File > Open config.json (Ctrl+O), and File > Open recent config.
  void openConfigDialog();
  bool openConfigFile(const std::string& path);  // false: the error is in configError_ and the status line
  bool openConfigPopup_ = false;
  // File > Save session / Open session: the path typed, and which of the two the popup does.
  void drawSessionPopup();
  bool openSessionPopup_ = false;
  bool sessionSaving_ = true;
  char sessionPath_[1024] = "posviz-session.posviz";
  std::string sessionResult_;
  char configPath_[1024] = {};
  std::string configError_;
  // File > Export figure, a figure's right-click menu; present mode's large font.
  FigureDialog figureDialog_;
  ImFont* presentFont_ = nullptr;

  // Files opened from outside (dropped on the window, the page's file picker) and the page's
  // address (page_link.cpp). A session's line in the address (#posviz-session-1:...) is a link
  // to it: File > Copy link writes it, and on Learn a new step writes a new history entry so that
  // the browser's Back returns to the step before.
  static void dropCallback(GLFWwindow* window, int count, const char** paths);
  void connectPage();
  void followAddress();
  void copyLink();
  std::string pageState() const;
  std::string addressShown_;          // the fragment the window last wrote or applied
  std::string addressStep_;           // the Learn step it held
  bool addressFollowed_ = false;      // the first Learn step has its entry

 public:
  // Opens a file by what it holds: a session, a model config.json, a learned table (.npy).
  bool openFile(const std::string& path, std::string* error);
  // Applies the session in the page's address, if any; false + *error (the notice to show;
  // nothing changed) when the address holds something else, a damaged or a newer session.
  bool applyAddress(std::string* error);
};

// Renders every panel for a few frames and saves DIR/<name>.png. Returns the number of failures
// (0 = all saved); each failure is printed to stderr.
int screenshotAllPanels(AppShell& app, const std::string& dir);

}  // namespace posviz::app
