// articles.hpp: the articles posviz was built from, and the papers beyond them, in reading order.
// Each is cited by the title it gives itself; `id` is what lesson data and the Learn path name it
// by. The app never names a document by a file.
#pragma once

#include <span>
#include <string_view>

namespace posviz {

struct Article {
  const char* id;      // "teaching": lesson data's "article"
  const char* title;   // "Positional Encoding: Teaching Transformers to Count (Part 2 of 4), Vitor Sousa"
  const char* short_;  // "Teaching Transformers to Count": list headings and short citations
};

// The four articles in the order a reader meets them, then "papers" (the papers and reference
// code of schemes beyond the articles).
std::span<const Article> articles();
// nullptr when no article has that id.
const Article* findArticle(std::string_view id);

}  // namespace posviz
