// learn_command.hpp: `posviz learn`, the Learn path as text.
//
//   posviz learn                 the chapters and their steps (the same as --list)
//   posviz learn --list          one line per step: its id and title, under its chapter
//   posviz learn --glossary      every symbol and term, one name per concept (app/cli/glossary.hpp)
//   posviz learn STEP [--set KEY=VALUE ...]
//                                one step in full: why, what to notice, the figure's numbers at
//                                these control values, the article's claim and its verdict
//
// Errors name the unknown step or key and list what is allowed; exit 2.
#pragma once

#include <string>
#include <vector>

#include "core/lessons/learn.hpp"

namespace posviz::cli {

// args: the arguments after "learn". Returns the process exit code (0 ok, 2 usage).
int runLearnCommand(const std::vector<std::string>& args);

// The text `posviz learn STEP` prints for a step at these values (also used by tests).
std::string learnStepText(const std::string& id, const std::vector<double>& values);

// What Learn's steps read besides their controls: every shipped preset (a published config.json),
// parsed, with the scheme its layers use and its RoPE. The window and the CLI read the same.
learn::Inputs learnInputs();

}  // namespace posviz::cli
