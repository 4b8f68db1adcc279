// export_check.hpp: File > Export checked against its own printed command: the window writes a
// file, the command it shows runs through the CLI, and the two files must be the same bytes.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "app/cli/cli.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/shell/view_export.hpp"
#include "tests/gui/test_shell.hpp"
#include "tests/support/export_support.hpp"

namespace posviz::test {

using posviz::app::ExportableView;
using posviz::app::ViewExportKind;
namespace fs = std::filesystem;

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The words of a command as a POSIX shell reads them: blanks split, '...' quotes (commandLine's
// quoting: ' is written '\'').
inline std::vector<std::string> shellWords(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false, quoted = false;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quoted) {
      if (c == '\'') quoted = false;
      else word += c;
    } else if (c == '\'') {
      quoted = inWord = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      word += command[++i];
      inWord = true;
    } else if (c == ' ') {
      if (inWord) words.push_back(word);
      word.clear();
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push_back(word);
  return words;
}

inline int runCommand(const std::string& command) {
  std::vector<std::string> words = shellWords(command);
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  return posviz::cli::runCli(static_cast<int>(argv.size()), argv.data()).value_or(-1);
}

// Writes `kind` from the window and runs the command File > Export prints for it; the two files
// must be the same bytes. Returns the command.
inline std::string sameAsCommand(const ExportableView& v, ViewExportKind kind, const fs::path& dir, const std::string& stem) {
  const std::string ext = fs::path(posviz::app::defaultExportFileName(v, kind)).extension().string();
  const fs::path window = dir / (stem + "-window" + ext), cli = dir / (stem + "-cli" + ext);
  posviz::app::exportView(v, kind, window.string());
  const std::string command = posviz::cli::commandLine(posviz::app::exportArguments(v, kind, cli.string()));
  CAPTURE(command);
  REQUIRE(runCommand(command) == 0);
  const std::string bytes = posviz::test::readText(window);
  CHECK_FALSE(bytes.empty());
  CHECK(bytes == posviz::test::readText(cli));
  return command;
}

// What File > Export offers on tab `tab`, once the tab has been drawn until idle.
inline ExportableView exportsOf(posviz::app::AppShell& app, const char* tab) {
  const int index = posviz::app::findPanel(tab);
  REQUIRE(index >= 0);
  app.selectPanel(index);
  REQUIRE(app.renderUntilIdle(4, 120.0));
  REQUIRE(app.activePanel() == index);
  return app.activeExports();
}

}  // namespace posviz::test
