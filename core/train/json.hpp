// json.hpp: the small JSON reader and writer helpers behind weights.hpp's files (core stays free of
// third-party libraries).
//
// parseJson reads RFC 8259 JSON with limits fit for untrusted input: at most maxDepth nested
// arrays/objects, strings with \uXXXX escapes (surrogate pairs joined, lone surrogates refused),
// numbers by the JSON grammar (no NaN, no Infinity, no leading '+' or zeros), duplicate object
// keys refused, nothing but whitespace after the value. Errors throw JsonError with the byte
// offset: "JSON: expected ':' at byte 17".
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace posviz::train {

class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct JsonMember;

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0.0;
  std::string text;                                      // String
  std::vector<JsonValue> items;                          // Array
  std::vector<JsonMember> members;  // Object, in file order

  const JsonValue* find(std::string_view key) const;     // Object member or null
};

// An object's member. A struct of its own rather than std::pair: pair needs JsonValue complete
// where JsonValue is still being defined, which libstdc++ 12 under clang refuses.
struct JsonMember {
  std::string key;
  JsonValue value;
};

JsonValue parseJson(std::string_view text, int maxDepth = 64);

// Accessors that throw JsonError naming `what` when the value is missing or of another kind.
const JsonValue& jsonMember(const JsonValue& object, std::string_view key, const std::string& what);
double jsonNumber(const JsonValue& v, const std::string& what);
// An integral number within [lo, hi].
long long jsonInteger(const JsonValue& v, const std::string& what, long long lo, long long hi);
const std::string& jsonString(const JsonValue& v, const std::string& what);
bool jsonBool(const JsonValue& v, const std::string& what);

// "..." with JSON escapes; numbers in shortest round-trip form (finite only).
std::string jsonQuote(std::string_view s);
std::string jsonNumberText(double v);

}  // namespace posviz::train
