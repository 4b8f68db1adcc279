// The session format (app/cli/session.hpp) and `posviz --session FILE`: the file and the pasted
// line read back the same; what is refused, by name.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/cli/args.hpp"
#include "app/cli/session.hpp"
#include "app/cli/window_options.hpp"

namespace fs = std::filesystem;
using namespace posviz::cli;

namespace {

fs::path scratch() {
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "cli" / "session_format";
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

Session example() {
  Session s;
  s.panel = "alibi";
  s.panels["alibi"] = {{"heads", 12}, {"positions", 16}, {"causal", true}};
  s.panels["rope"] = {{"base", 500000.0}, {"head_dim", 128}};
  s.views["1a2b3c4d"] = FigureView{20, 32, 8.5, 16};
  return s;
}

}  // namespace

TEST_CASE("session format: the file and the pasted line read back what was saved") {
  const fs::path dir = scratch();
  const Session s = example();
  writeSessionFile((dir / "a.posviz").string(), s);
  const Session f = readSessionFile((dir / "a.posviz").string());
  CHECK(f.panel == "alibi");
  CHECK(f.panels == s.panels);
  CHECK(f.views == s.views);
  CHECK(sessionFileText(s).find("\"format\": \"posviz-session\"") != std::string::npos);
  CHECK(readSessionFile((dir / "a.posviz").string()).views.at("1a2b3c4d") == FigureView{20, 32, 8.5, 16});

  // The line keeps only what differs from the defaults.
  const nlohmann::json defaults = {{"alibi", {{"heads", 8}, {"positions", 16}, {"causal", false}}}, {"rope", {{"base", 10000.0}, {"head_dim", 128}}}};
  const std::string line = sessionLine(s, defaults);
  CHECK(line.rfind("posviz-session-1:", 0) == 0);
  const Session l = parseSession("  " + line + "\n", "the pasted session");
  CHECK(l.panel == "alibi");
  CHECK(l.panels == nlohmann::json{{"alibi", {{"heads", 12}, {"causal", true}}}, {"rope", {{"base", 500000.0}}}});
  CHECK(l.views == s.views);   // a zoom is kept in the line too
  CHECK(line.size() < sessionFileText(s).size());
}

TEST_CASE("session format: refusals name the source and what is wrong") {
  auto refused = [](const std::string& text) {
    try {
      parseSession(text, "session x.posviz");
    } catch (const SessionError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refused("") == "session x.posviz: empty; nothing was changed");
  CHECK(refused("hello") == "session x.posviz: not JSON and not a session line; nothing was changed");
  CHECK(refused("{}") == "session x.posviz: not a posviz session (no \"format\": \"posviz-session\"); nothing was changed");
  CHECK(refused(R"({"format": "posviz-session"})") == "session x.posviz: no session version; nothing was changed");
  CHECK(refused(R"({"format": "posviz-session", "version": 3})") ==
        "session x.posviz: version 3 was saved by a newer posviz; this one reads version 1; nothing was changed");
  CHECK(refused(R"({"format": "posviz-session", "version": 1, "panels": {"rope": 5}})") ==
        "session x.posviz: the parameters of tab rope are not an object; nothing was changed");
  CHECK(refused("posviz-session-1:%%") ==
        "session x.posviz: a damaged session line (expected posviz-session-1: and base64url text); nothing was changed");
  CHECK(refused("posviz-session-1:aGVsbG8") == "session x.posviz: a damaged session line (its text is not JSON); nothing was changed");
  CHECK(refused(std::string(100, '[')).find("nests deeper than the 64 levels allowed") != std::string::npos);
  const std::string head = R"({"format": "posviz-session", "version": 1, "views": )";
  CHECK(refused(head + "[1]}") == "session x.posviz: \"views\" is not an object; nothing was changed");
  CHECK(refused(head + R"({"ab": [1, 2, 3]}})") == "session x.posviz: the view of figure ab is not [row0, rows, col0, cols]; nothing was changed");
  CHECK(refused(head + R"({"ab": [1, 2, "x", 4]}})") ==
        "session x.posviz: the view of figure ab holds a value that is not a finite number; nothing was changed");
  CHECK(refused(head + R"({"ab": [1, 0, 3, 4]}})") == "session x.posviz: the view of figure ab needs row0, col0 >= 0 and rows, cols > 0; nothing was changed");
  CHECK(refused(head + R"({"ab": [-1, 2, 3, 4]}})") == "session x.posviz: the view of figure ab needs row0, col0 >= 0 and rows, cols > 0; nothing was changed");
  CHECK(refused(head + "{\"" + std::string(65, 'a') + R"(": [1, 2, 3, 4]}})") == "session x.posviz: a figure key must be 1 to 64 characters; nothing was changed");
}

TEST_CASE("session format: posviz --session reads and checks the file before a window opens") {
  const fs::path dir = scratch();
  writeSessionFile((dir / "ok.posviz").string(), example());
  const WindowOptions w = parseWindowOptions({"--session", (dir / "ok.posviz").string()});
  REQUIRE(w.session);
  CHECK(w.session->panel == "alibi");
  std::ofstream(dir / "new.posviz") << R"({"format": "posviz-session", "version": 2})";
  CHECK_THROWS_WITH_AS(parseWindowOptions({"--session", (dir / "new.posviz").string()}),
                       ("--session: session " + (dir / "new.posviz").string() +
                        ": version 2 was saved by a newer posviz; this one reads version 1; nothing was changed")
                           .c_str(),
                       UsageError);
  CHECK_THROWS_AS(parseWindowOptions({"--session", (dir / "none.posviz").string()}), UsageError);
}
