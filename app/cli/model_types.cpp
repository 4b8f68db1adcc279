#include "app/cli/model_types.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/embedded.hpp"

namespace posviz::cli {

namespace {

using nlohmann::json;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int integer(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number_integer() ? it->get<int>() : 0;
}

// o[key] when it is an object, else nullptr.
const json* object(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_object() ? &*it : nullptr;
}

// The string values of obj (others skipped) into out.
void readStrings(const json* obj, std::map<std::string, std::string>& out) {
  if (obj == nullptr) return;
  for (const auto& [key, v] : obj->items()) {
    if (v.is_string()) out[key] = v.get<std::string>();
  }
}

void readSchemeParts(const json& e, ModelTypeEntry& m) {
  if (const json* byKey = object(e, "scheme_by_key")) {
    for (const auto& [key, values] : byKey->items()) {
      if (values.is_object()) readStrings(&values, m.schemeByKey[key]);
    }
  }
  // Remote code whose size picks the file that runs (Baichuan: 4096 wide is RoPE, 5120 ALiBi)
  // reads like a key that switches the scheme.
  if (const json* size = object(e, "size_rule")) {
    if (const json* values = object(*size, "values"); values != nullptr && !str(*size, "key").empty()) {
      readStrings(values, m.schemeByKey[str(*size, "key")]);
    }
  }
  if (const json* l = object(e, "learned")) {
    m.learnedRowsKey = str(*l, "rows_key");
    m.learnedOffset = integer(*l, "offset");
    m.learnedOffsetRule = str(*l, "offset_rule");
    m.learnedOffsetRowsAdded = l->value("offset_rows_added", false);
  }
  if (const json* sn = object(e, "sinusoidal")) {
    m.sinusoidalRowsKey = str(*sn, "rows_key");
    m.sinusoidalLayout = str(*sn, "layout");
    m.sinusoidalOffset = integer(*sn, "offset");
    m.sinusoidalSpacing = str(*sn, "spacing");
    m.sinusoidalOffsetRowsAdded = sn->value("offset_rows_added", false);
  }
  if (const json* enc = object(e, "encoder")) {
    m.encoderScheme = str(*enc, "scheme");
    m.encoderRowsKey = str(*enc, "rows_key");
    m.encoderLayout = str(*enc, "layout");
    m.encoderSpacing = str(*enc, "spacing");
  }
  if (const json* rel = object(e, "relative")) {
    m.bucketsKey = str(*rel, "buckets_key");
    m.maxDistanceKey = str(*rel, "max_distance_key");
  }
  if (const json* lk = object(e, "layer_kinds")) {
    m.layerKindsKey = str(*lk, "key");
    m.layerKindsRule = str(*lk, "rule");
    readStrings(object(*lk, "values"), m.layerKindValues);
  }
}

ModelTypeEntry readEntry(const std::string& type, const json& e) {
  ModelTypeEntry m;
  m.modelType = type;
  m.origin = str(e, "origin");
  m.config = str(e, "config");
  m.modeling = str(e, "modeling");
  m.stack = str(e, "stack");
  m.textConfig = str(e, "text_config");
  m.scheme = str(e, "scheme");
  m.layout = str(e, "layout");
  m.ropeInit = str(e, "rope_init");
  m.note = str(e, "note");
  m.mropeIndex = str(e, "mrope_index");
  m.rope2d = str(e, "rope_2d");
  m.defaultRopeIgnoresPrf = e.value("default_rope_ignores_prf", false);
  if (const json* vd = object(e, "vision_defaults")) {
    m.visionSpatialMerge = integer(*vd, "spatial_merge_size");
    if (auto it = vd->find("tokens_per_second"); it != vd->end() && it->is_number()) m.visionTokensPerSecond = it->get<double>();
  }
  readSchemeParts(e, m);
  if (const json* d = object(e, "defaults")) {
    for (const auto& [key, v] : d->items()) {  // numbers, and one level of nesting (Gemma 3's {"global", "local"} theta)
      if (v.is_number()) m.defaultNumbers[key] = v.get<double>();
      if (!v.is_object()) continue;
      for (const auto& [sub, w] : v.items()) {
        if (w.is_number()) m.defaultNumbers[key + "." + sub] = w.get<double>();
      }
    }
  }
  if (auto it = e.find("reads"); it != e.end() && it->is_array()) {
    for (const json& k : *it) {
      if (k.is_string()) m.reads.push_back(k.get<std::string>());
    }
    std::sort(m.reads.begin(), m.reads.end());
  }
  if (auto it = e.find("evidence"); it != e.end() && it->is_array()) {
    for (const json& v : *it) {
      if (v.is_object()) m.evidence.push_back({str(v, "rule"), str(v, "file"), str(v, "function"), integer(v, "line")});
    }
  }
  return m;
}

struct Table {
  ModelTypeTableInfo info;
  std::map<std::string, ModelTypeEntry> types;  // key lowercased
};

// assets/model_types.json, compiled in. A table that does not parse is a build defect; the
// suite's test_model_types reads it, so this never throws in a shipped binary.
Table loadTable() {
  Table t;
  const embedded::File* f = embedded::model_types.find("model_types.json");
  if (f == nullptr) throw std::logic_error("model_types.json is not compiled in");
  const json root = json::parse(f->text());
  const json& src = root.at("source");
  t.info = {str(src, "repository"), str(src, "commit"), str(src, "date"), str(src, "version"), 0};
  for (const auto& [type, e] : root.at("types").items()) t.types.emplace(lower(type), readEntry(type, e));
  t.info.count = t.types.size();
  return t;
}

const Table& table() {
  static const Table t = loadTable();
  return t;
}

}  // namespace

std::optional<double> ModelTypeEntry::defaultNumber(const std::string& key) const {
  auto it = defaultNumbers.find(key);
  return it == defaultNumbers.end() ? std::nullopt : std::optional<double>(it->second);
}

bool ModelTypeEntry::readsKey(const std::string& key) const { return std::binary_search(reads.begin(), reads.end(), key); }

const ModelTypeEntry* findModelType(std::string_view modelType) {
  const Table& t = table();
  auto it = t.types.find(lower(modelType));
  return it == t.types.end() ? nullptr : &it->second;
}

const ModelTypeTableInfo& modelTypeTableInfo() { return table().info; }

std::vector<const ModelTypeEntry*> allModelTypes() {
  std::vector<const ModelTypeEntry*> out;
  for (const auto& [key, e] : table().types) out.push_back(&e);
  return out;
}

std::string modelTypeTableSource() {
  const ModelTypeTableInfo& i = modelTypeTableInfo();
  return "transformers " + i.version + " (" + i.commit.substr(0, 8) + ")";
}

const std::vector<std::string>& positionalKeys() {
  static const std::vector<std::string> keys = {
      "alibi", "attn_layer_offset", "attn_layer_period", "layer_types", "max_position_embeddings", "n_positions",
      "no_rope_layer_interval", "no_rope_layers", "partial_rotary_factor", "position_embedding_type",
      "relative_attention_max_distance", "relative_attention_num_buckets", "rope_local_base_freq", "rope_parameters",
      "rope_pct", "rope_ratio", "rope_scaling", "rope_theta", "rotary_dim", "rotary_emb_base", "rotary_pct",
      "sliding_window", "sliding_window_pattern", "use_sliding_window"};
  return keys;
}

}  // namespace posviz::cli
