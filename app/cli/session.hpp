// session.hpp: the parameters of every tab as a .posviz file or as one line of text
// (File > Save session, Open session, Copy session as text, Open session from clipboard;
// `posviz --session FILE`).
//
// FILE  JSON: {"format": "posviz-session", "version": 1, "panel": "<the tab shown>",
//              "panels": {"<tab>": {its parameters, as settings.json saves them}, ...},
//              "views": {"<figure key>": [row0, rows, col0, cols], ...}}  (zoomed figures; may be absent)
//       Every tab's every parameter, so a later posviz whose defaults differ reopens it as it was.
// TEXT  "posviz-session-1:" + base64url of the same JSON holding only the parameters that differ
//       from the defaults: a session that moved a few sliders is a short line to paste.
// Something that is not a session, a damaged one, or one from a newer posviz (version > 1) is
// refused with a SessionError naming it and what is wrong; the caller changes nothing then.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace posviz::cli {

inline constexpr int kSessionVersion = 1;
inline constexpr std::size_t kMaxSessionBytes = 4u << 20;   // a real session is a few KiB

// A zoomed figure's view: the logical window [row0, row0 + rows) x [col0, col0 + cols) it shows.
struct FigureView {
  double row0 = 0, rows = 0, col0 = 0, cols = 0;
  bool operator==(const FigureView&) const = default;
};

struct Session {
  std::string panel;                                    // the tab shown
  nlohmann::json panels = nlohmann::json::object();     // tab name -> its parameters
  std::map<std::string, FigureView> views;              // figure key -> its zoom ("views" in the file; only
                                                        // zoomed figures; the rest open unzoomed)
};

struct SessionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The file's JSON text.
std::string sessionFileText(const Session& s);
// The line to paste: only what differs from `defaults` (tab name -> parameters, as s.panels).
std::string sessionLine(const Session& s, const nlohmann::json& defaults);
// A file's text or a pasted line; `source` names it in errors ("session rope.posviz").
Session parseSession(const std::string& text, const std::string& source);
// readRegularFile + parseSession; writeFileAtomically of sessionFileText.
Session readSessionFile(const std::string& path);
void writeSessionFile(const std::string& path, const Session& s);

}  // namespace posviz::cli
