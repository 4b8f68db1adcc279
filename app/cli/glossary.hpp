// glossary.hpp: every symbol and term the app's texts use, one name per concept. Read by
// Help > Glossary in the window and `posviz learn --glossary`; the Learn path and the tabs use
// these names (the articles' other names for the same thing are listed under "also").
#pragma once

#include <string>
#include <vector>

namespace posviz::cli {

struct GlossaryEntry {
  std::string symbol;    // "L0"
  std::string name;      // "trained length"
  std::string meaning;   // one or two sentences
  std::string also;      // other names for it in the articles and in config files ("" none)
};

// In the order a reader meets them on the Learn path.
const std::vector<GlossaryEntry>& glossary();

// The glossary as text, one entry per paragraph (for the CLI).
std::string glossaryText();

}  // namespace posviz::cli
