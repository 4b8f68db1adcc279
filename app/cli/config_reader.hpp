// config_reader.hpp: reading a config.json's fields with errors that name the field (used by
// model_config.cpp and model_stacks.cpp; not an interface of the CLI).
//
// Python's json module, which the Hugging Face loader uses, accepts NaN, Infinity and -Infinity;
// nlohmann's parser does not. withNonFiniteMarkers turns those literals (outside strings) into marker
// strings first, so such a file is read as HF reads it, and a field that holds one is refused by
// name ("must be a number, got NaN") only when posviz needs that field.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/model_config.hpp"
#include "core/check.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::cli {

// The text with NaN, Infinity and -Infinity outside strings replaced by marker strings.
std::string withNonFiniteMarkers(const std::string& jsonText);
// "NaN", "Infinity" or "-Infinity" for a marker string, "" for anything else.
std::string nonFiniteMarkerName(const nlohmann::json& v);

// The value as a message quotes it: its type and its first characters, escaped. The file's
// nesting was capped before parsing (jsonNestingProblem), so dump() cannot recurse deeply; an
// object or array is shown by its size unless it is small.
inline std::string describeJson(const nlohmann::json& v) {
  using nlohmann::json;
  if (const std::string n = nonFiniteMarkerName(v); !n.empty()) return n;
  if ((v.is_object() || v.is_array()) && v.size() > 8) {
    return std::string(v.type_name()) + " of " + std::to_string(v.size()) + (v.is_object() ? " keys" : " elements");
  }
  return std::string(v.type_name()) + " " + displayText(v.dump(-1, ' ', false, json::error_handler_t::replace));
}

class Reader {
  using json = nlohmann::json;

 public:
  // prefix: where root sits in the file ("text_config." for a nested language model), so
  // errors name the field as the file spells it.
  Reader(const json& root, std::string name, std::string prefix = "")
      : root_(root), name_(std::move(name)), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw ConfigError("config " + name_ + ": " + prefix_ + field + " " + message);
  }

  // nullptr when absent or null.
  const json* find(const json& obj, const std::string& key) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
  }

  std::optional<double> number(const json& obj, const std::string& key, const std::string& path) const {
    const json* v = find(obj, key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number()) fail(path, "must be a number, got " + describeJson(*v));
    const double d = v->get<double>();
    if (!std::isfinite(d)) fail(path, "must be finite, got " + describeJson(*v));
    return d;
  }

  std::optional<double> positiveNumber(const json& obj, const std::string& key, const std::string& path) const {
    std::optional<double> d = number(obj, key, path);
    if (d && !(*d > 0.0)) fail(path, "must be > 0, got " + formatValue(*d));
    return d;
  }

  std::optional<long long> integer(const json& obj, const std::string& key, const std::string& path, long long min,
                                   long long max) const {
    const json* v = find(obj, key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number()) fail(path, "must be an integer, got " + describeJson(*v));
    const double d = v->get<double>();
    if (!std::isfinite(d) || d != std::floor(d)) fail(path, "must be an integer, got " + describeJson(*v));
    if (d < static_cast<double>(min) || d > static_cast<double>(max)) {
      fail(path, "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " + describeJson(*v));
    }
    return v->is_number_integer() ? v->get<long long>() : static_cast<long long>(d);
  }

  std::optional<bool> boolean(const json& obj, const std::string& key, const std::string& path) const {
    const json* v = find(obj, key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_boolean()) fail(path, "must be true or false, got " + describeJson(*v));
    return v->get<bool>();
  }

  std::optional<std::string> string(const json& obj, const std::string& key, const std::string& path) const {
    const json* v = find(obj, key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) fail(path, "must be a string, got " + describeJson(*v));
    return v->get<std::string>();
  }

  std::vector<double> numberList(const json& obj, const std::string& key, const std::string& path) const {
    const json* v = find(obj, key);
    if (v == nullptr) fail(path, "is missing");
    if (!v->is_array()) fail(path, "must be a list of numbers, got " + describeJson(*v));
    std::vector<double> out;
    for (std::size_t i = 0; i < v->size(); ++i) {
      const json& e = (*v)[i];
      const std::string where = path + "[" + std::to_string(i) + "]";
      if (!e.is_number()) fail(where, "must be a number, got " + describeJson(e));
      const double d = e.get<double>();
      if (!std::isfinite(d) || !(d > 0.0)) fail(where, "must be a finite number > 0, got " + describeJson(e));
      out.push_back(d);
    }
    return out;
  }

  // The first of keys present (non-null), for fields with several spellings.
  template <typename F>
  auto firstOf(const std::vector<std::string>& keys, F get) const -> decltype(get(std::string())) {
    for (const std::string& k : keys) {
      if (find(root_, k) != nullptr) return get(k);
    }
    return std::nullopt;
  }

  const json& root() const { return root_; }

 private:
  const json& root_;
  std::string name_;
  std::string prefix_;
};


struct ModelTypeEntry;

// model_stacks.cpp: what the table says beyond RoPE and ALiBi.
// Learned and sinusoidal tables' offset rows and layout, T5's buckets; c.encoding is set.
void readTableDetails(const Reader& r, const ModelTypeEntry* e, ModelConfig& c);
// Encoder-decoder models (T5, BART, Marian, Whisper): an encoder and a decoder kind of layer, each
// with its own layer count; false when the model is not one (the caller builds decoder layers).
bool readEncoderDecoder(const Reader& r, const ModelTypeEntry* e, ModelConfig& c);
// The family line (where the reading comes from) and the positional keys the family never reads.
void noteFamily(const Reader& r, const ModelTypeEntry* e, const std::string& alias, ModelConfig& c);

}  // namespace posviz::cli
