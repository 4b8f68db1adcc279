// Tests for app/cli/glossary: one entry per symbol, each with a name and a meaning, the trained
// length under one name with the articles' and config files' other names listed, and the CLI
// printing every entry.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "app/cli/glossary.hpp"

using posviz::cli::glossary;

TEST_CASE("glossary: unique symbols, every entry named and explained") {
  std::set<std::string> symbols;
  for (const auto& e : glossary()) {
    INFO(e.symbol);
    CHECK(symbols.insert(e.symbol).second);
    CHECK_FALSE(e.name.empty());
    CHECK(e.meaning.size() > 20);
  }
  for (const char* s : {"d_model", "head_dim", "L0", "theta_i", "m, n", "s", "base", "m_h"}) CHECK_MESSAGE(symbols.contains(s), s);
}

TEST_CASE("glossary: the trained length has one name, and its other names point to it") {
  const posviz::cli::GlossaryEntry* l0 = nullptr;
  for (const auto& e : glossary())
    if (e.symbol == "L0") l0 = &e;
  REQUIRE(l0 != nullptr);
  for (const char* other : {"T_max", "max_len", "max_position_embeddings", "original_max_position_embeddings"})
    CHECK_MESSAGE(l0->also.find(other) != std::string::npos, other);
  const std::string text = posviz::cli::glossaryText();
  for (const auto& e : glossary()) CHECK(text.find(e.symbol + " (" + e.name + "): ") != std::string::npos);
}
