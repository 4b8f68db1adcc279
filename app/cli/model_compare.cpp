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

std::string kindsText(const ModelConfig& m) {
  std::string t;
  for (const LayerKind& k : m.layerKinds) {
    t += (t.empty() ? "" : ", ") + std::to_string(k.layers.size()) + " " + k.attention + " " + layerSchemeName(k.scheme);
  }
  return t;
}

using Field = std::function<std::string(const ModelConfig&)>;

using RopeText = std::function<std::string(const RopeParams&)>;

// A RoPE property of the model's main RoPE (mainRopeKind), "-" for a model without RoPE.
Field mainRope(const RopeText& f) {
  return [f](const ModelConfig& m) {
    const LayerKind* k = mainRopeKind(m);
    return k == nullptr ? std::string("-") : f(k->rope);
  };
}

// The same of the rotating layers of one attention kind ("sliding_attention"), "-" when none rotate.
Field kindRope(const RopeText& f, const std::string& attention) {
  return [f, attention](const ModelConfig& m) {
    for (const LayerKind& k : m.layerKinds) {
      if (k.scheme == LayerScheme::Rope && k.attention == attention) return f(k.rope);
    }
    return std::string("-");
  };
}

std::string scalingOf(const RopeParams& p) {
  const RopeScaling& s = p.scaling;
  if (s.method == ScalingMethod::None) return "none";
  return scalingText(s);
}

std::vector<std::pair<std::string, Field>> fields() {
  return {
      {"model_type", [](const ModelConfig& m) { return m.modelType.empty() ? std::string("-") : m.modelType; }},
      {"layers", [](const ModelConfig& m) { return std::to_string(m.numLayers); }},
      {"layer kinds", kindsText},
      {"max positions", [](const ModelConfig& m) { return std::to_string(m.maxPositions); }},
      {"heads", [](const ModelConfig& m) { return std::to_string(m.numHeads); }},
      {"RoPE head_dim", mainRope([](const RopeParams& p) { return std::to_string(p.headDim); })},
      {"rotary dims", mainRope([](const RopeParams& p) { return std::to_string(ropeRotaryDims(p)); })},
      {"RoPE base", mainRope([](const RopeParams& p) { return num(p.base); })},
      {"pairing", mainRope([](const RopeParams& p) { return std::string(ropeLayoutName(p.layout)); })},
      {"scaling", mainRope(scalingOf)},
      {"attention factor", mainRope([](const RopeParams& p) { return num(ropeFrequencies(p).attentionFactor); })},
      {"sliding layers' base", kindRope([](const RopeParams& p) { return num(p.base); }, "sliding_attention")},
      {"sliding layers' scaling", kindRope(scalingOf, "sliding_attention")},
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
      {"M-RoPE position ids",
       [](const ModelConfig& m) {
         if (m.mropeSection.empty() || m.mropeIndexRule.empty()) return std::string("-");
         return m.mropeIndexRule + " rule" + (m.spatialMerge > 0 ? ", merge " + std::to_string(m.spatialMerge) : std::string());
       }},
      {"2-D RoPE", [](const ModelConfig& m) {
         return m.rope2d.empty() ? std::string("-") : m.rope2d + " " + std::to_string(m.patchGrid) + "x" + std::to_string(m.patchGrid);
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
