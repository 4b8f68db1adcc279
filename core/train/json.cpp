#include "core/train/json.hpp"

#include <cmath>
#include <cstdio>
#include <system_error>

#include "core/portable.hpp"

namespace posviz::train {

namespace {

class Parser {
 public:
  Parser(std::string_view text, int maxDepth) : s_(text), maxDepth_(maxDepth) {}

  JsonValue document() {
    JsonValue v = value(0);
    skipSpace();
    if (i_ != s_.size()) fail("unexpected text after the value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw JsonError("JSON: " + what + " at byte " + std::to_string(i_)); }

  void skipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }

  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  JsonValue value(int depth) {
    skipSpace();
    if (i_ >= s_.size()) fail("unexpected end");
    JsonValue v;
    const char c = s_[i_];
    if (c == '{' || c == '[') {
      if (depth >= maxDepth_) fail("nesting deeper than " + std::to_string(maxDepth_));
      return c == '{' ? object(depth + 1) : array(depth + 1);
    }
    if (c == '"') {
      v.kind = JsonValue::Kind::String;
      v.text = string();
    } else if (literal("true") || literal("false")) {
      v.kind = JsonValue::Kind::Bool;
      v.boolean = c == 't';
    } else if (literal("null")) {
      v.kind = JsonValue::Kind::Null;
    } else {
      v.kind = JsonValue::Kind::Number;
      v.number = number();
    }
    return v;
  }

  JsonValue object(int depth) {
    JsonValue v;
    v.kind = JsonValue::Kind::Object;
    ++i_;
    skipSpace();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return v;
    }
    for (;;) {
      skipSpace();
      if (i_ >= s_.size() || s_[i_] != '"') fail("expected a key");
      std::string key = string();
      if (v.find(key)) fail("duplicate key \"" + key + "\"");
      skipSpace();
      if (i_ >= s_.size() || s_[i_] != ':') fail("expected ':'");
      ++i_;
      v.members.push_back(JsonMember{std::move(key), value(depth)});
      skipSpace();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '}') break;
      fail("expected ',' or '}'");
    }
    ++i_;
    return v;
  }

  JsonValue array(int depth) {
    JsonValue v;
    v.kind = JsonValue::Kind::Array;
    ++i_;
    skipSpace();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      return v;
    }
    for (;;) {
      v.items.push_back(value(depth));
      skipSpace();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == ']') break;
      fail("expected ',' or ']'");
    }
    ++i_;
    return v;
  }

  unsigned hex4() {
    if (s_.size() - i_ < 4) fail("short \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k, ++i_) {
      const char c = s_[i_];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) fail("bad \\u escape");
      v = v * 16 + static_cast<unsigned>(d);
    }
    return v;
  }

  static void appendUtf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  unsigned escapedCodePoint() {
    unsigned cp = hex4();
    if (cp >= 0xDC00 && cp <= 0xDFFF) fail("lone low surrogate");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (!literal("\\u")) fail("lone high surrogate");
      const unsigned lo = hex4();
      if (lo < 0xDC00 || lo > 0xDFFF) fail("bad surrogate pair");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    return cp;
  }

  std::string string() {
    ++i_;  // the opening quote
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': appendUtf8(out, escapedCodePoint()); break;
        default: fail("bad escape");
      }
    }
  }

  double number() {
    const std::size_t start = i_;
    auto digits = [&] {
      const std::size_t from = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      return i_ - from;
    };
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0') {
      ++i_;
    } else if (digits() == 0) {
      fail("expected a value");
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (digits() == 0) fail("expected digits after '.'");
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (digits() == 0) fail("expected exponent digits");
    }
    double v = 0.0;
    const auto r = fromCharsReal(s_.data() + start, s_.data() + i_, v);
    if (r.ec != std::errc() || !std::isfinite(v)) fail("number out of range");
    return v;
  }

  std::string_view s_;
  int maxDepth_;
  std::size_t i_ = 0;
};

const char* kindName(JsonValue::Kind k) {
  switch (k) {
    case JsonValue::Kind::Null: return "null";
    case JsonValue::Kind::Bool: return "a boolean";
    case JsonValue::Kind::Number: return "a number";
    case JsonValue::Kind::String: return "a string";
    case JsonValue::Kind::Array: return "an array";
    case JsonValue::Kind::Object: return "an object";
  }
  return "?";
}

void requireKind(const JsonValue& v, JsonValue::Kind k, const std::string& what) {
  if (v.kind != k) throw JsonError(what + " must be " + kindName(k) + ", got " + kindName(v.kind));
}

}  // namespace

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& m : members)
    if (m.key == key) return &m.value;
  return nullptr;
}

JsonValue parseJson(std::string_view text, int maxDepth) { return Parser(text, maxDepth).document(); }

const JsonValue& jsonMember(const JsonValue& object, std::string_view key, const std::string& what) {
  requireKind(object, JsonValue::Kind::Object, what);
  const JsonValue* v = object.find(key);
  if (!v) throw JsonError(what + " has no \"" + std::string(key) + "\"");
  return *v;
}

double jsonNumber(const JsonValue& v, const std::string& what) {
  requireKind(v, JsonValue::Kind::Number, what);
  return v.number;
}

long long jsonInteger(const JsonValue& v, const std::string& what, long long lo, long long hi) {
  const double x = jsonNumber(v, what);
  if (x != std::floor(x) || x < static_cast<double>(lo) || x > static_cast<double>(hi))
    throw JsonError(what + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + jsonNumberText(x));
  return static_cast<long long>(x);
}

const std::string& jsonString(const JsonValue& v, const std::string& what) {
  requireKind(v, JsonValue::Kind::String, what);
  return v.text;
}

bool jsonBool(const JsonValue& v, const std::string& what) {
  requireKind(v, JsonValue::Kind::Bool, what);
  return v.boolean;
}

std::string jsonQuote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string jsonNumberText(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  const auto r = toCharsShortest(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace posviz::train
