// platform.hpp: everything the desktop window and the page do differently, and nothing else.
// The shell, the widgets and the panels are one program; they ask here.
//
// [SECTION] Render     GL context, GLSL, readbacks (desktop: GL 4.x core with compute; the page:
//                      WebGL 2 = OpenGL ES 3.0, no compute, no glGetTexImage)
// [SECTION] Loop       the frame loop (a while on the desktop, the browser's animation frames)
// [SECTION] Files      saving (a file at the path chosen; the page: a download) and opening
//                      (a typed path; the page: a file picker or a file dropped on the page)
// [SECTION] Settings   where settings.json lives (the page: browser storage, IndexedDB)
// [SECTION] Address    the page's address fragment (#...), which holds a session as a link
// [SECTION] Clipboard
// Background jobs: jobs.hpp (threads, or slices between frames).
//
// The desktop implementation is desktop.cpp; the page's is web/web.cpp with web/posviz_page.js
// (its JavaScript half) and web/index.html.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

struct GLFWwindow;

namespace posviz::app::platform {

// -----------------------------------------------------------------------------------------------
// [SECTION] Render
// -----------------------------------------------------------------------------------------------

struct GlRequest {
  int major = 3, minor = 3;
};
// The contexts to try, best first: {4.3, 3.3} on the desktop ({3.3} with forceGl33), {3.0 ES} in
// the page. Sets GLFW's hints for one of them.
std::vector<GlRequest> contextRequests(bool forceGl33);
void applyContextHints(const GlRequest& r, bool debug);
// What ImGui's OpenGL 3 backend compiles its shaders with: "#version 330 core" / "#version 300 es".
const char* glslVersion();
// The context's version as major * 10 + minor (43, 33; 30 for WebGL 2).
int glVersion();
const char* glName();                    // "OpenGL" / "WebGL 2"
bool hasGpuBackend();                    // compute shaders can exist (desktop); never in WebGL 2
// The most one piece of work may hold (core's memory budget), where the platform has less memory
// than core's default: the page's wasm32 heap is 4 GiB at most, shared by everything, so the page
// says 1 GiB and a larger table is refused by name instead of failing to allocate. 0: core's default.
std::uint64_t memoryBudgetCap();
// Routes GL debug messages to stderr where the context has them (debug builds, GL 4.3).
void installGlDebugOutput();
// The pixel scale of the screen the window is on (2 on a "Retina" screen).
float contentScale(GLFWwindow* window);
// The texels of a 2-D RGBA8 texture, rows top-down as uploaded; false when it cannot be read.
// The page reads it through a framebuffer, so it must know the size: textures made with
// noteTextureSize() (heatmaps) and ImGui's font atlas can be read.
bool readTexture(unsigned int texture, int* width, int* height, std::vector<unsigned char>* rgba);
void noteTextureSize(unsigned int texture, int width, int height);   // after glTexImage2D
void forgetTexture(unsigned int texture);                            // before glDeleteTextures

// -----------------------------------------------------------------------------------------------
// [SECTION] Loop
// -----------------------------------------------------------------------------------------------

// Calls frame() until it returns false. The desktop returns then; the page never returns (the
// browser calls frame once per animation frame and the runtime stays alive after main()).
void runFrames(const std::function<bool()>& frame);
// Shows the frame drawn: the desktop swaps buffers. The page's browser shows it when the frame
// returns; where frames follow one another without returning (continuous: the frame benchmark),
// the page waits for the GL to finish, so that a frame's time includes its drawing as on the desktop.
void presentFrame(GLFWwindow* window, bool continuous);
// The page follows the size of the browser window; the desktop's window is sized by the user.
// Called at the start of each frame.
void followPageSize(GLFWwindow* window);

// -----------------------------------------------------------------------------------------------
// [SECTION] Files
// -----------------------------------------------------------------------------------------------

// Whether the save dialog offers folders. The page has none to offer: what is saved is written to
// downloadFolder() and handed to the browser as a download.
bool saveOffersFolders();
std::string downloadFolder();
// A file the user asked for was written at `path` (complete, closed). The page: downloads it under
// its file name, then removes it from the page's memory. The desktop: nothing.
void fileSaved(const std::string& path);
// Whether a file is opened by typing its path (desktop) or by the browser's file picker (page).
bool opensByPicker();
// The page: shows the browser's file chooser for files ending in one of `extensions` (".json");
// what the user picks arrives as a file through the open-file handler (Page, below).
void pickFile(const std::vector<std::string>& extensions);
// The page: the same chooser for one field of a tab (a path it would otherwise type). The file is
// copied into the page's memory and `picked` receives its path there, once, from the browser's
// event (between frames). folder = true chooses a folder, copied whole; `picked` gets its path.
// The desktop: nothing (its fields are typed).
void pickPath(const std::vector<std::string>& extensions, bool folder, std::function<void(const std::string&)> picked);
// A folder the user asked to save was written at `path`. The page: downloads it as one file,
// NAME.tar, and keeps the folder in the page's memory (so that typed paths still find it).
void folderSaved(const std::string& path);
// Where a field's pick button was drawn this frame (the page's tests click it); the desktop: nothing.
void noteButton(const std::string& id, float x, float y, float w, float h);

// -----------------------------------------------------------------------------------------------
// [SECTION] Settings
// -----------------------------------------------------------------------------------------------

// The folder that holds settings.json and imgui.ini; "" when there is none.
std::string configDir();
// After settings.json (or imgui.ini) was written: the page copies the folder to browser storage.
void settingsSaved();
// "" or why settings are not kept (the page without browser storage, say).
std::string settingsNotice();

// -----------------------------------------------------------------------------------------------
// [SECTION] Address
// -----------------------------------------------------------------------------------------------

bool hasAddress();                       // the page has one; the desktop has none
std::string address();                   // the whole address, fragment included ("" on the desktop)
std::string addressFragment();           // what follows '#', decoded ("" when none)
// Replaces the fragment. push = true makes a new history entry (the browser's Back returns to the
// previous one); false replaces the current entry.
void setAddressFragment(const std::string& fragment, bool push);

// -----------------------------------------------------------------------------------------------
// [SECTION] Clipboard
// -----------------------------------------------------------------------------------------------

// After ImGui's GLFW backend is set up: the page routes ImGui's copy to the browser's clipboard
// and its paste to what the page last pasted (a paste event); the desktop keeps GLFW's.
void installClipboard();

// -----------------------------------------------------------------------------------------------
// The page's calls into the window: what the browser reports (a file opened or dropped, the
// address changed by Back or by a typed link, the page being hidden) reaches the window through
// these, which the window sets once it runs. Unused on the desktop, whose window polls GLFW.
// -----------------------------------------------------------------------------------------------
struct Page {
  std::function<void(const std::string& path)> openFile;        // a picked or dropped file, in the page's memory
  std::function<void()> addressChanged;                         // Back, Forward, a pasted link
  std::function<void()> storeSettings;                          // the page is hidden or closed
  std::function<std::string()> state;                           // JSON for tests: title, tab, step
  std::function<bool(const std::string& panel)> selectPanel;    // tests: open a tab by name
};
void connectPage(Page page);

}  // namespace posviz::app::platform
