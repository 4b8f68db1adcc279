#include "app/cli/model_compare.hpp"

#include <algorithm>
#include <functional>
#include <sstream>

#include "app/cli/model_command.hpp"
#include "core/context_extension.hpp"

namespace posviz::cli {

namespace {

std::string num(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

// The RoPE kind a row describes: the full-attention layers', else the first RoPE kind.
const LayerKind* ropeKind(const ModelConfig& m, const std::string& attention) {
  for (const LayerKind& k : m.layerKinds) {
    if (k.scheme == LayerScheme::Rope && (attention.empty() || k.attention == attention)) return &k;
  }
  return nullptr;
}

std::string kindsText(const ModelConfig& m) {
  std::string t;
  for (const LayerKind& k : m.layerKinds) {
    t += (t.empty() ? "" : ", ") + std::to_string(k.layers.size()) + " " + k.attention + " " + layerSchemeName(k.scheme);
  }
  return t;
}

using Field = std::function<std::string(const ModelConfig&)>;

// A RoPE property of the full-attention (or first RoPE) layers, "-" for a model without RoPE.
Field ropeField(const std::function<std::string(const RopeParams&)>& f, const std::string& attention = "") {
  return [f, attention](const ModelConfig& m) {
    const LayerKind* k = ropeKind(m, attention);
    if (k == nullptr && attention.empty()) k = ropeKind(m, "");
    return k == nullptr ? std::string("-") : f(k->rope);
  };
}

std::string scalingOf(const RopeParams& p) {
  const RopeScaling& s = p.scaling;
  if (s.method == ScalingMethod::None) return "none";
  return scalingText(s);
}

std::vector<std::pair<std::string, Field>> fields() {
  auto full = [](const std::function<std::string(const RopeParams&)>& f) {
    return [f](const ModelConfig& m) {
      const LayerKind* k = findLayerKind(m, "full_attention");
      if (k == nullptr || k->scheme != LayerScheme::Rope) k = ropeKind(m, "");
      return k == nullptr ? std::string("-") : f(k->rope);
    };
  };
  return {
      {"model_type", [](const ModelConfig& m) { return m.modelType.empty() ? std::string("-") : m.modelType; }},
      {"layers", [](const ModelConfig& m) { return std::to_string(m.numLayers); }},
      {"layer kinds", kindsText},
      {"max positions", [](const ModelConfig& m) { return std::to_string(m.maxPositions); }},
      {"heads", [](const ModelConfig& m) { return std::to_string(m.numHeads); }},
      {"RoPE head_dim", full([](const RopeParams& p) { return std::to_string(p.headDim); })},
      {"rotary dims", full([](const RopeParams& p) { return std::to_string(ropeRotaryDims(p)); })},
      {"RoPE base", full([](const RopeParams& p) { return num(p.base); })},
      {"pairing", full([](const RopeParams& p) { return std::string(ropeLayoutName(p.layout)); })},
      {"scaling", full(scalingOf)},
      {"attention factor", full([](const RopeParams& p) { return num(ropeFrequencies(p).attentionFactor); })},
      {"sliding layers' base", ropeField([](const RopeParams& p) { return num(p.base); }, "sliding_attention")},
      {"sliding layers' scaling", ropeField(scalingOf, "sliding_attention")},
      {"sliding window",
       [](const ModelConfig& m) {
         for (const LayerKind& k : m.layerKinds) {
           if (k.slidingWindow > 0) return std::to_string(k.slidingWindow);
         }
         return std::string("-");
       }},
      {"M-RoPE sections",
       [](const ModelConfig& m) {
         std::string t;
         for (int s : m.mropeSection) t += (t.empty() ? "" : "/") + std::to_string(s);
         return t.empty() ? std::string("-") : t + (m.mropeInterleaved ? " interleaved" : "");
       }},
      {"position table", [](const ModelConfig& m) { const std::string t = tableText(m); return t.empty() ? std::string("-") : t; }},
      {"extras", [](const ModelConfig& m) { return m.extras.empty() ? std::string("-") : std::to_string(m.extras.size()) + ": " + m.extras.front(); }},
      {"read as", [](const ModelConfig& m) { return m.guess.empty() ? (m.family.empty() ? std::string("-") : m.family) : "GUESS"; }},
  };
}

}  // namespace

std::vector<CompareRow> compareModels(const std::vector<ModelConfig>& models) {
  std::vector<CompareRow> rows;
  for (const auto& [name, f] : fields()) {
    CompareRow row{name, {}, false};
    for (const ModelConfig& m : models) row.values.push_back(f(m));
    row.differs = std::adjacent_find(row.values.begin(), row.values.end(), std::not_equal_to<>()) != row.values.end();
    rows.push_back(std::move(row));
  }
  return rows;
}

void printComparison(std::ostream& out, const std::vector<ModelConfig>& models) {
  const std::vector<CompareRow> rows = compareModels(models);
  std::size_t w0 = 5;
  for (const CompareRow& r : rows) w0 = std::max(w0, r.field.size());
  std::vector<std::size_t> w(models.size(), 0);
  for (std::size_t i = 0; i < models.size(); ++i) {
    w[i] = models[i].name.size();
    for (const CompareRow& r : rows) w[i] = std::max(w[i], std::min<std::size_t>(r.values[i].size(), 48));
  }
  auto cell = [](const std::string& s, std::size_t width) {
    std::string t = s.size() > width ? s.substr(0, width - 3) + "..." : s;
    return t + std::string(width - t.size(), ' ');
  };
  auto endLine = [&out](std::string line) {
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << "\n";
  };
  std::string line = "  " + cell("", w0);
  for (std::size_t i = 0; i < models.size(); ++i) line += "  " + cell(models[i].name, w[i]);
  endLine(line);
  for (const CompareRow& r : rows) {
    line = (r.differs ? "* " : "  ") + cell(r.field, w0);
    for (std::size_t i = 0; i < r.values.size(); ++i) line += "  " + cell(r.values[i], w[i]);
    endLine(line);
  }
  out << "(* marks the rows that differ; the full-attention layers' RoPE unless the row names other layers)\n";
}

}  // namespace posviz::cli
