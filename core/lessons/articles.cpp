#include "core/lessons/articles.hpp"

namespace posviz {

namespace {

const Article kArticles[] = {
    {"teaching", "Positional Encoding: Teaching Transformers to Count (Part 2 of 4), Vitor Sousa", "Teaching Transformers to Count"},
    {"section-8-5", "8.5 Positional Encoding: Adding Positional Information to Attention", "8.5 Positional Encoding"},
    {"understanding", "Understanding Positional Embeddings in Transformers (with Intuition and Examples)",
     "Understanding Positional Embeddings"},
    {"interview", "Positional Encoding (an LLM interview-guide chapter)", "The interview guide"},
    {"papers", "The papers and reference code of the schemes themselves", "The papers"},
};

}  // namespace

std::span<const Article> articles() { return kArticles; }

const Article* findArticle(std::string_view id) {
  for (const Article& a : kArticles)
    if (id == a.id) return &a;
  return nullptr;
}

}  // namespace posviz
