#include "core/train/weights.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <set>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/portable.hpp"
#include "core/train/json.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::train {

namespace {

constexpr std::uint64_t kMaxHeaderBytes = std::uint64_t{64} << 20;
constexpr std::size_t kMaxFileBytes = std::size_t{1} << 30;
constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;
constexpr int kMaxDims = 8;

void putU64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

std::uint64_t getU64(std::string_view s) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[static_cast<std::size_t>(i)]);
  return v;
}

std::string shapeText(const std::vector<long long>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

struct Entry {
  std::string name;
  std::vector<long long> shape;
  std::size_t begin = 0, end = 0;  // bytes into the data, at most its size
};

// One tensor's header entry, checked against the data's size before anything is allocated.
Entry readEntry(const std::string& name, const JsonValue& v, std::size_t dataSize, const std::string& what) {
  const std::string where = what + ": tensor " + quotedText(name);
  Entry e;
  e.name = name;
  const std::string& dtype = jsonString(jsonMember(v, "dtype", where), where + " dtype");
  if (dtype != "F32") throw WeightsError(where + " has dtype " + quotedText(dtype) + "; only F32 is read");
  const JsonValue& shape = jsonMember(v, "shape", where);
  if (shape.kind != JsonValue::Kind::Array || shape.items.size() > kMaxDims)
    throw WeightsError(where + " shape must be an array of at most " + std::to_string(kMaxDims) + " sizes");
  std::uint64_t count = 1;
  for (const JsonValue& d : shape.items) {
    const long long n = jsonInteger(d, where + " shape", 0, std::int64_t{1} << 31);
    e.shape.push_back(n);
    if (n != 0 && count > dataSize / static_cast<std::uint64_t>(n)) count = dataSize + 1;  // too large either way
    else count *= static_cast<std::uint64_t>(n);
  }
  const JsonValue& off = jsonMember(v, "data_offsets", where);
  if (off.kind != JsonValue::Kind::Array || off.items.size() != 2) throw WeightsError(where + " data_offsets must be [begin, end]");
  const auto limit = static_cast<long long>(std::min<std::uint64_t>(dataSize, std::uint64_t{1} << 52));
  e.begin = static_cast<std::size_t>(jsonInteger(off.items[0], where + " data_offsets", 0, limit));
  e.end = static_cast<std::size_t>(jsonInteger(off.items[1], where + " data_offsets", 0, limit));
  if (e.begin > e.end) throw WeightsError(where + " data_offsets begin after their end");
  if (count > dataSize || count * 4 != e.end - e.begin)
    throw WeightsError(where + " shape " + shapeText(e.shape) + " needs " + std::to_string(count) + " float32 values (" + std::to_string(count * 4) +
                       " bytes), data_offsets span " + std::to_string(e.end - e.begin) + " bytes");
  return e;
}

std::vector<float> readValues(std::string_view data, const Entry& e, const std::string& what) {
  std::vector<float> out((e.end - e.begin) / 4);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::uint32_t u = 0;
    for (int b = 3; b >= 0; --b) u = (u << 8) | static_cast<unsigned char>(data[e.begin + 4 * i + static_cast<std::size_t>(b)]);
    out[i] = bitCast<float>(u);
    if (!std::isfinite(out[i]))
      throw WeightsError(what + ": tensor \"" + e.name + "\" holds a non-finite value at index " + std::to_string(i));
  }
  return out;
}

}  // namespace

std::string serializeSafetensors(const SafetensorsFile& f) {
  std::string header = "{";
  if (!f.metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : f.metadata) {
      header += (first ? "" : ",") + jsonQuote(k) + ":" + jsonQuote(v);
      first = false;
    }
    header += "}";
  }
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < f.tensors.size(); ++i) {
    const NamedTensor& t = f.tensors[i];
    const std::uint64_t bytes = 4 * static_cast<std::uint64_t>(t.values.size());
    header += (i == 0 && f.metadata.empty() ? "" : ",") + jsonQuote(t.name) + ":{\"dtype\":\"F32\",\"shape\":[";
    for (std::size_t d = 0; d < t.shape.size(); ++d) header += (d ? "," : "") + std::to_string(t.shape[d]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + bytes) + "]}";
    offset += bytes;
  }
  header += "}";
  while (header.size() % 8 != 0) header += ' ';
  std::string out;
  out.reserve(static_cast<std::size_t>(8 + header.size() + offset));  // a hint only
  putU64(out, header.size());
  out += header;
  for (const NamedTensor& t : f.tensors) {
    for (float v : t.values) {
      const auto u = bitCast<std::uint32_t>(v);
      for (int b = 0; b < 4; ++b) out += static_cast<char>((u >> (8 * b)) & 0xFF);
    }
  }
  return out;
}

SafetensorsFile parseSafetensors(std::string_view bytes, const std::string& what) {
  if (bytes.size() < 8) throw WeightsError(what + ": " + std::to_string(bytes.size()) + " bytes, too short for a safetensors file");
  const std::uint64_t headerBytes = getU64(bytes);
  if (headerBytes > kMaxHeaderBytes || headerBytes > bytes.size() - 8)
    throw WeightsError(what + ": header length " + std::to_string(headerBytes) + " does not fit the file of " + std::to_string(bytes.size()) +
                       " bytes");
  const auto n = static_cast<std::size_t>(headerBytes);  // at most the file's size
  const std::string_view data = bytes.substr(8 + n);
  JsonValue header;
  try {
    header = parseJson(bytes.substr(8, n));
  } catch (const JsonError& e) {
    throw WeightsError(what + ": header: " + e.what());
  }
  if (header.kind != JsonValue::Kind::Object) throw WeightsError(what + ": the header must be a JSON object");
  SafetensorsFile f;
  std::vector<Entry> entries;
  try {
    for (const auto& [name, v] : header.members) {
      if (name == "__metadata__") {
        if (v.kind != JsonValue::Kind::Object) throw WeightsError(what + ": __metadata__ must be an object");
        for (const auto& [k, s] : v.members) f.metadata[k] = jsonString(s, what + ": __metadata__ " + k);
        continue;
      }
      entries.push_back(readEntry(name, v, data.size(), what));
    }
  } catch (const JsonError& e) {
    throw WeightsError(e.what());
  }
  std::vector<const Entry*> byBegin;
  for (const Entry& e : entries) byBegin.push_back(&e);
  std::sort(byBegin.begin(), byBegin.end(), [](const Entry* a, const Entry* b) { return a->begin < b->begin; });
  for (std::size_t i = 1; i < byBegin.size(); ++i)
    if (byBegin[i]->begin < byBegin[i - 1]->end)
      throw WeightsError(what + ": tensors \"" + byBegin[i - 1]->name + "\" and \"" + byBegin[i]->name + "\" overlap");
  // As the format's own validation: the tensors' data lie back to back from the start of the data
  // and cover it exactly; bytes no tensor claims are refused, not carried along unread.
  std::size_t covered = 0;
  for (const Entry* e : byBegin) {
    if (e->begin != covered)
      throw WeightsError(what + ": data bytes " + std::to_string(covered) + ".." + std::to_string(e->begin) +
                         " belong to no tensor (the next is \"" + e->name + "\")");
    covered = e->end;
  }
  if (covered != data.size())
    throw WeightsError(what + ": " + std::to_string(data.size() - covered) + " bytes after the last tensor's data belong to no tensor");
  for (const Entry* e : byBegin) f.tensors.push_back(NamedTensor{e->name, e->shape, readValues(data, *e, what)});
  return f;
}

std::vector<NamedTensor> modelToTensors(const Model<float>& m) {
  std::vector<NamedTensor> out;
  for (const TensorInfo& t : m.tensors()) {
    NamedTensor n;
    n.name = t.name;
    n.shape.assign(t.shape.begin(), t.shape.end());
    const auto first = m.parameters().begin() + static_cast<std::ptrdiff_t>(t.offset);
    n.values.assign(first, first + static_cast<std::ptrdiff_t>(t.size));
    out.push_back(std::move(n));
  }
  return out;
}

void tensorsToModel(const std::vector<NamedTensor>& tensors, Model<float>& m, const std::string& what) {
  for (const TensorInfo& t : m.tensors()) {
    const auto it = std::find_if(tensors.begin(), tensors.end(), [&](const NamedTensor& n) { return n.name == t.name; });
    if (it == tensors.end()) throw WeightsError(what + ": no tensor \"" + t.name + "\", which the model needs");
    const std::vector<long long> want(t.shape.begin(), t.shape.end());
    if (it->shape != want)
      throw WeightsError(what + ": tensor \"" + t.name + "\" has shape " + shapeText(it->shape) + ", the model needs " + shapeText(want));
  }
  for (const NamedTensor& n : tensors) {
    const auto& ts = m.tensors();
    if (std::none_of(ts.begin(), ts.end(), [&](const TensorInfo& t) { return t.name == n.name; }))
      throw WeightsError(what + ": tensor \"" + n.name + "\" is not part of this model");
  }
  for (const NamedTensor& n : tensors) std::copy(n.values.begin(), n.values.end(), m.parameters().begin() + static_cast<std::ptrdiff_t>(m.tensor(n.name).offset));
}

namespace {

// AdamW's moments under "adam.m.<tensor>" and "adam.v.<tensor>", in model order.
std::vector<NamedTensor> optimizerTensors(const Trainer& t) {
  std::vector<NamedTensor> out;
  for (const char* which : {"m", "v"}) {
    const std::vector<float>& moment = which[0] == 'm' ? t.optimizer().firstMoment() : t.optimizer().secondMoment();
    for (const TensorInfo& ti : t.model().tensors()) {
      NamedTensor n;
      n.name = std::string("adam.") + which + "." + ti.name;
      n.shape.assign(ti.shape.begin(), ti.shape.end());
      n.values.assign(moment.begin() + static_cast<std::ptrdiff_t>(ti.offset), moment.begin() + static_cast<std::ptrdiff_t>(ti.offset + ti.size));
      out.push_back(std::move(n));
    }
  }
  return out;
}

void restoreOptimizer(const std::vector<NamedTensor>& tensors, Trainer& t, const std::string& what) {
  std::vector<float> m(t.model().parameters().size()), v(m.size());
  std::size_t found = 0;
  for (const TensorInfo& ti : t.model().tensors()) {
    for (const char* which : {"m", "v"}) {
      const std::string name = std::string("adam.") + which + "." + ti.name;
      const auto it = std::find_if(tensors.begin(), tensors.end(), [&](const NamedTensor& n) { return n.name == name; });
      if (it == tensors.end() || it->values.size() != ti.size) throw WeightsError(what + ": no tensor \"" + name + "\" of " + std::to_string(ti.size) + " values");
      std::copy(it->values.begin(), it->values.end(), (which[0] == 'm' ? m : v).begin() + static_cast<std::ptrdiff_t>(ti.offset));
      ++found;
    }
  }
  if (found != tensors.size()) throw WeightsError(what + ": tensors the model does not have");
  for (float x : v)
    if (x < 0.0f) throw WeightsError(what + ": a negative second moment");
  t.optimizer().setMoments(std::move(m), std::move(v));
}

SafetensorsFile historyFile(const Trainer& t) {
  SafetensorsFile f;
  const std::vector<StepReport>& h = t.history();
  const auto n = static_cast<long long>(h.size());
  NamedTensor loss{"loss", {n}, {}}, rate{"learning_rate", {n}, {}}, norm{"grad_norm", {n}, {}};
  for (const StepReport& r : h) {
    loss.values.push_back(static_cast<float>(r.loss));
    rate.values.push_back(static_cast<float>(r.learningRate));
    norm.values.push_back(static_cast<float>(r.gradNorm));
  }
  f.tensors = {std::move(loss), std::move(rate), std::move(norm)};
  f.metadata["format"] = "posviz-train-history";
  f.metadata["first_step"] = std::to_string(h.empty() ? t.step() + 1 : h.front().step);
  return f;
}

// The steps of a history file, checked against the run's step; WeightsError naming the file.
std::vector<StepReport> readHistory(const SafetensorsFile& f, long long step, const std::string& what) {
  const NamedTensor *loss = nullptr, *rate = nullptr, *norm = nullptr;
  for (const NamedTensor& t : f.tensors) {
    if (t.name == "loss") loss = &t;
    else if (t.name == "learning_rate") rate = &t;
    else if (t.name == "grad_norm") norm = &t;
    else throw WeightsError(what + ": unknown tensor \"" + t.name + "\" (expected loss, learning_rate, grad_norm)");
  }
  if (!loss || !rate || !norm) throw WeightsError(what + ": needs the tensors loss, learning_rate and grad_norm");
  const std::size_t n = loss->values.size();
  if (loss->shape.size() != 1 || rate->values.size() != n || norm->values.size() != n || rate->shape.size() != 1 ||
      norm->shape.size() != 1)
    throw WeightsError(what + ": loss, learning_rate and grad_norm must be 1-D tensors of one length");
  const auto it = f.metadata.find("first_step");
  long long first = 0;
  try {
    first = it == f.metadata.end() ? -1 : std::stoll(it->second);
  } catch (const std::exception&) {
    first = -1;
  }
  if (first < 1 || static_cast<long long>(n) != step - first + 1)
    throw WeightsError(what + ": its " + std::to_string(n) + " steps from first_step " +
                       (it == f.metadata.end() ? std::string("(missing)") : it->second) + " do not end at the run's step " +
                       std::to_string(step));
  std::vector<StepReport> h(n);
  for (std::size_t i = 0; i < n; ++i) {
    h[i].step = first + static_cast<long long>(i);
    h[i].loss = loss->values[i];
    h[i].learningRate = rate->values[i];
    h[i].gradNorm = norm->values[i];
  }
  return h;
}

void writeBytes(const std::string& path, const std::string& bytes) {
  writeFileAtomically(path, [&](std::ostream& o) { o.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

}  // namespace

void saveRun(const std::string& dir, const Trainer& t) {
  SafetensorsFile f;
  f.tensors = modelToTensors(t.model());
  f.metadata["format"] = "posviz-train";
  f.metadata["scheme"] = positionSchemeName(t.model().config().position.scheme);
  f.metadata["task"] = taskName(t.config().task.kind);
  writeBytes(dir + "/" + kWeightsFileName, serializeSafetensors(f));
  SafetensorsFile adam;
  adam.tensors = optimizerTensors(t);
  adam.metadata["format"] = "posviz-train-optimizer";
  writeBytes(dir + "/" + kOptimizerFileName, serializeSafetensors(adam));
  writeBytes(dir + "/" + kHistoryFileName, serializeSafetensors(historyFile(t)));
  writeBytes(dir + "/" + kConfigFileName, runConfigJson(t.config(), t.step()));
}

Trainer loadRun(const std::string& dir) {
  const std::string configPath = dir + "/" + kConfigFileName, weightsPath = dir + "/" + kWeightsFileName;
  std::string configText, weightsBytes;
  try {
    configText = readRegularFile(configPath, kMaxConfigBytes, "config");
    weightsBytes = readRegularFile(weightsPath, kMaxFileBytes, "weights");
  } catch (const WeightsError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw WeightsError(e.what());
  }
  RunConfig rc = parseRunConfigJson(configText, configPath);
  try {
    const TrainConfig c = resolvedConfig(rc.config);
    Model<float> m(c.model, c.sequencesPerChunk);
    tensorsToModel(parseSafetensors(weightsBytes, weightsPath).tensors, m, weightsPath);
    Trainer t(c, m, rc.step);
    const std::string adamPath = dir + "/" + kOptimizerFileName;
    if (std::filesystem::exists(adamPath)) {
      std::string adamBytes;
      try {
        adamBytes = readRegularFile(adamPath, kMaxFileBytes, "optimizer state");
      } catch (const std::runtime_error& e) {
        throw WeightsError(e.what());
      }
      restoreOptimizer(parseSafetensors(adamBytes, adamPath).tensors, t, adamPath);
    }
    const std::string historyPath = dir + "/" + kHistoryFileName;
    if (std::filesystem::exists(historyPath)) {
      std::string bytes;
      try {
        bytes = readRegularFile(historyPath, kMaxFileBytes, "history");
      } catch (const std::runtime_error& e) {
        throw WeightsError(e.what());
      }
      t.restoreHistory(readHistory(parseSafetensors(bytes, historyPath), t.step(), historyPath));
    }
    return t;
  } catch (const std::invalid_argument& e) {
    throw WeightsError(configPath + ": " + e.what());
  }
}

}  // namespace posviz::train
