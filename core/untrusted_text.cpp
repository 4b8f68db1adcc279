#include "core/untrusted_text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace posviz {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
std::size_t utf8Length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = 0;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) n = 3;
  else if (c >= 0xf0 && c <= 0xf4) n = 4;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
  }
  if (n == 3 && c == 0xe0 && b(i + 1) < 0xa0) return 0;  // overlong
  if (n == 3 && c == 0xed && b(i + 1) >= 0xa0) return 0;  // surrogate
  if (n == 4 && c == 0xf0 && b(i + 1) < 0x90) return 0;  // overlong
  if (n == 4 && c == 0xf4 && b(i + 1) >= 0x90) return 0;  // past U+10FFFF
  return n;
}

std::string escapeByte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

}  // namespace

std::string displayText(std::string_view text, std::size_t maxBytes) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::string piece;
    std::size_t used = 1;
    if (c < 0x20 || c == 0x7f) {
      piece = escapeByte(c);
    } else if (c < 0x80) {
      piece.assign(1, static_cast<char>(c));
    } else if (const std::size_t n = utf8Length(text, i); n > 0) {
      piece.assign(text.substr(i, n));
      used = n;
    } else {
      piece = escapeByte(c);
    }
    if (out.size() + piece.size() > maxBytes) {
      return out + "... (" + std::to_string(text.size()) + " bytes)";
    }
    out += piece;
    i += used;
  }
  return out;
}

std::string displayMessage(std::string_view message, std::size_t maxBytes) {
  std::string out;
  std::size_t start = 0;
  while (start <= message.size()) {
    const std::size_t end = std::min(message.find('\n', start), message.size());
    if (!out.empty() || start > 0) out += '\n';
    const std::size_t room = maxBytes > out.size() ? maxBytes - out.size() : 0;
    const std::string line = displayText(message.substr(start, end - start), std::max<std::size_t>(room, 1));
    out += line;
    if (out.size() >= maxBytes) break;
    start = end + 1;
  }
  return out;
}

std::string quotedText(std::string_view text, std::size_t maxBytes) {
  std::string escaped;
  for (const char c : text.substr(0, std::min(text.size(), maxBytes * 4 + 8))) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  std::string shown = displayText(escaped, maxBytes);
  if (text.size() > maxBytes * 4 + 8 && shown.size() == escaped.size()) shown += "...";
  // The byte count after a cut is the input's, not the escaped copy's.
  const std::size_t cut = shown.rfind("... (");
  if (cut != std::string::npos && shown.back() == ')') shown = shown.substr(0, cut) + "... (" + std::to_string(text.size()) + " bytes)";
  return "\"" + shown + "\"";
}

std::optional<std::string> jsonNestingProblem(std::string_view text, int maxDepth) {
  int depth = 0;
  bool inString = false;
  std::size_t line = 1, column = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    }
    if (inString) {
      if (c == '\\') {
        ++i;
        ++column;
      } else if (c == '"') {
        inString = false;
      }
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth) {
        return "nests deeper than the " + std::to_string(maxDepth) + " levels allowed (line " + std::to_string(line) +
               ", column " + std::to_string(column) + ")";
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

std::string withoutCodeNames(std::string_view message) {
  std::string out;
  std::size_t i = 0;
  while (i < message.size()) {
    // A candidate starts a word: at the start or after a character that is not a letter or digit.
    const bool wordStart = i == 0 || !std::isalnum(static_cast<unsigned char>(message[i - 1]));
    std::size_t j = i;
    while (wordStart && j < message.size() && std::islower(static_cast<unsigned char>(message[j]))) ++j;
    if (wordStart && j - i >= 2 && j < message.size() && std::isupper(static_cast<unsigned char>(message[j]))) {
      std::size_t k = j;
      while (k < message.size() && std::isalnum(static_cast<unsigned char>(message[k]))) ++k;
      if (message.substr(k, 2) == ": ") {
        i = k + 2;   // drop "name: "
        continue;
      }
    }
    out += message[i++];
  }
  return out;
}

}  // namespace posviz
