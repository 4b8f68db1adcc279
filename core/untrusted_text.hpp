// untrusted_text.hpp: text that came from input (a file, an argument), made safe to show.
//
// displayText: what a message quotes from input. Control characters and bytes that are not
// UTF-8 are written as escapes ("\x0a", "\x1b"), so a name cannot repaint the terminal or break a
// line of a log, and text longer than maxBytes is cut at a character boundary and ends with
// "... (N bytes)", so a 10 MB name gives a short message. Every message that quotes input uses it.
//
// jsonNestingProblem: JSON nested deeper than maxDepth, found by a scan of the text (brackets
// outside strings) before any parser or printer recurses into it; the answer names the line and
// column where the limit is passed. Every reader of JSON from outside (configs, settings,
// sessions) calls it before parsing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace posviz {

inline constexpr std::size_t kDisplayTextBytes = 80;
inline constexpr int kMaxJsonDepth = 64;

std::string displayText(std::string_view text, std::size_t maxBytes = kDisplayTextBytes);

// A whole message as printed on a terminal: every line through displayText (so only the
// message's own line breaks remain), the whole cut at maxBytes. The CLI's error printers use it as
// the last line of defence for text a message took from input without quoting it.
std::string displayMessage(std::string_view message, std::size_t maxBytes = 4096);

// A message for a person: without the code's function names that prefix core's errors
// ("learnedLookup: pos 600 has no row" -> "pos 600 has no row"). A name is a word of at least two
// lower-case letters and then an upper-case one, followed by ": " ("xPos: " and "posviz: " stay).
std::string withoutCodeNames(std::string_view message);

// displayText in double quotes, with '"' and '\\' escaped as well: "got \"12x\"".
std::string quotedText(std::string_view text, std::size_t maxBytes = kDisplayTextBytes);

std::optional<std::string> jsonNestingProblem(std::string_view text, int maxDepth = kMaxJsonDepth);

}  // namespace posviz
