#include "app/gui/base/read_setting.hpp"

#include <optional>

namespace posviz::app {

bool readSetting(const nlohmann::json& j, const char* key, bool& value) {
  if (!j.contains(key) || !j[key].is_boolean()) return false;
  value = j[key].get<bool>();
  return true;
}

bool readSetting(const nlohmann::json& j, const char* key, std::string& value) {
  if (!j.contains(key) || !j[key].is_string()) return false;
  value = j[key].get<std::string>();
  return true;
}

bool readSetting(const nlohmann::json& j, const char* key, Colormap& value) {
  std::string name;
  if (!readSetting(j, key, name)) return false;
  const std::optional<Colormap> c = parseColormapName(name);
  if (!c) return false;
  value = *c;
  return true;
}

}  // namespace posviz::app
