#include "app/cli/preset_schemes.hpp"

#include <algorithm>

#include "app/cli/model_config.hpp"

namespace posviz::cli {

namespace {

void addOnce(std::vector<Scheme>& v, Scheme s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

}  // namespace

ModelSchemes modelSchemes(const ModelConfig& m) {
  ModelSchemes out;
  out.name = m.name;
  if (m.encoding == ModelEncoding::Sinusoidal) addOnce(out.schemes, Scheme::Sinusoidal);
  for (const LayerKind& k : m.layerKinds) {
    switch (k.scheme) {
      case LayerScheme::Rope: addOnce(out.schemes, Scheme::Rope); break;
      case LayerScheme::NoPE: addOnce(out.schemes, Scheme::NoPE); break;
      case LayerScheme::Alibi: addOnce(out.schemes, Scheme::Alibi); break;
      case LayerScheme::Learned: addOnce(out.schemes, Scheme::Learned); break;
      case LayerScheme::Sinusoidal: addOnce(out.schemes, Scheme::Sinusoidal); break;
      case LayerScheme::RelativeBuckets:
      case LayerScheme::RelativeKey:
      case LayerScheme::None: break;
    }
  }
  // A config without layer kinds still names its encoding.
  if (m.layerKinds.empty()) {
    switch (m.encoding) {
      case ModelEncoding::Rope: addOnce(out.schemes, Scheme::Rope); break;
      case ModelEncoding::Alibi: addOnce(out.schemes, Scheme::Alibi); break;
      case ModelEncoding::Learned: addOnce(out.schemes, Scheme::Learned); break;
      case ModelEncoding::Sinusoidal: addOnce(out.schemes, Scheme::Sinusoidal); break;
      case ModelEncoding::RelativeBuckets:
      case ModelEncoding::RelativeKey:
      case ModelEncoding::None: break;
    }
  }
  return out;
}

std::vector<ModelSchemes> presetSchemes() {
  std::vector<ModelSchemes> out;
  for (const std::string& name : presetNames()) out.push_back(modelSchemes(loadPreset(name)));
  return out;
}

}  // namespace posviz::cli
