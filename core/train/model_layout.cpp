// The parameter layout of a model and its initialisation (model.hpp).
#include <algorithm>
#include <cmath>
#include <string>

#include "core/check.hpp"
#include "core/learned.hpp"
#include "core/random.hpp"
#include "core/train/model.hpp"
#include "core/train/model_detail.hpp"

namespace posviz::train {

namespace {

void add(std::vector<TensorInfo>& out, std::string name, std::vector<int> shape, bool decay = false) {
  TensorInfo t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.size = 1;
  for (int d : t.shape) t.size *= static_cast<std::size_t>(d);
  t.offset = out.empty() ? 0 : out.back().offset + out.back().size;
  t.decay = decay;
  out.push_back(std::move(t));
}

template <class T>
void fillNormal(T* p, std::size_t n, std::uint64_t seed, double stddev) {
  Rng rng(seed);
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<T>(rng.normal() * stddev);
}

template <class T>
void fillValue(T* p, std::size_t n, T v) {
  std::fill(p, p + n, v);
}

}  // namespace

std::vector<TensorInfo> modelTensors(const ModelConfig& c) {
  validateModelConfig("modelTensors", c);
  const int d = c.dModel, h = c.numHeads, f = c.hidden();
  const PositionScheme s = c.position.scheme;
  std::vector<TensorInfo> out;
  add(out, "tok_emb.weight", {c.vocabSize, d});
  if (s == PositionScheme::Learned) add(out, "pos_emb.weight", {c.maxPositions, d});
  if (s == PositionScheme::T5) add(out, "t5_bias.weight", {c.position.t5.numBuckets, h});
  for (int l = 0; l < c.numLayers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    add(out, p + "ln1.weight", {d});
    add(out, p + "ln1.bias", {d});
    for (const char* m : {"q", "k", "v", "o"}) add(out, p + "attn." + m + ".weight", {d, d}, true);
    if (c.mlp) {
      add(out, p + "ln2.weight", {d});
      add(out, p + "ln2.bias", {d});
      add(out, p + "mlp.fc1.weight", {d, f}, true);
      add(out, p + "mlp.fc1.bias", {f});
      add(out, p + "mlp.fc2.weight", {f, d}, true);
      add(out, p + "mlp.fc2.bias", {d});
    }
    if (s == PositionScheme::Fire) {
      for (const char* m : {"w1", "b1", "w2"}) add(out, p + "fire." + m, {h, c.position.fireHidden});
      add(out, p + "fire.b2", {h});
    }
    if (s == PositionScheme::Kerple) {
      add(out, p + "kerple.r1", {h});
      add(out, p + "kerple.r2", {h});
    }
  }
  add(out, "ln_f.weight", {d});
  add(out, "ln_f.bias", {d});
  add(out, "head.weight", {d, c.vocabSize}, true);
  return out;
}

ParamOffsets paramOffsets(const ModelConfig& c, const std::vector<TensorInfo>& tensors) {
  auto find = [&](const std::string& name) -> std::size_t {
    for (const TensorInfo& t : tensors)
      if (t.name == name) return t.offset;
    return kNoTensor;
  };
  ParamOffsets o;
  o.tokEmb = find("tok_emb.weight");
  o.posEmb = find("pos_emb.weight");
  o.t5 = find("t5_bias.weight");
  for (int l = 0; l < c.numLayers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    LayerOffsets lo;
    lo.ln1w = find(p + "ln1.weight");
    lo.ln1b = find(p + "ln1.bias");
    lo.wq = find(p + "attn.q.weight");
    lo.wk = find(p + "attn.k.weight");
    lo.wv = find(p + "attn.v.weight");
    lo.wo = find(p + "attn.o.weight");
    lo.ln2w = find(p + "ln2.weight");
    lo.ln2b = find(p + "ln2.bias");
    lo.fc1w = find(p + "mlp.fc1.weight");
    lo.fc1b = find(p + "mlp.fc1.bias");
    lo.fc2w = find(p + "mlp.fc2.weight");
    lo.fc2b = find(p + "mlp.fc2.bias");
    lo.fireW1 = find(p + "fire.w1");
    lo.fireB1 = find(p + "fire.b1");
    lo.fireW2 = find(p + "fire.w2");
    lo.fireB2 = find(p + "fire.b2");
    lo.kerR1 = find(p + "kerple.r1");
    lo.kerR2 = find(p + "kerple.r2");
    o.layers.push_back(lo);
  }
  o.lnfW = find("ln_f.weight");
  o.lnfB = find("ln_f.bias");
  o.head = find("head.weight");
  return o;
}

template <class T>
void initializeParameters(const ModelConfig& c, const std::vector<TensorInfo>& tensors, std::vector<T>& params, std::uint64_t seed) {
  const PositionConfig& pc = c.position;
  const double residualScale = 1.0 / std::sqrt(2.0 * c.numLayers);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo& t = tensors[i];
    T* p = params.data() + t.offset;
    const std::uint64_t s = deriveSeed(seed, 1000 + i);
    const std::string& n = t.name;
    auto endsWith = [&](const std::string& suffix) { return n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0; };
    if (n == "tok_emb.weight") {
      fillNormal(p, t.size, s, c.tokenInitStd);
    } else if (n == "pos_emb.weight") {
      const Grid g = learnedInit(c.maxPositions, c.dModel, s, pc.learnedInitStd);
      for (std::size_t k = 0; k < t.size; ++k) p[k] = static_cast<T>(g.values[k]);
    } else if (n == "t5_bias.weight") {
      const Grid g = t5BiasTable(pc.t5.numBuckets, c.numHeads, s, pc.t5InitStd);
      for (std::size_t k = 0; k < t.size; ++k) p[k] = static_cast<T>(g.values[k]);
    } else if (endsWith("ln1.weight") || endsWith("ln2.weight") || n == "ln_f.weight") {
      fillValue(p, t.size, T(1));
    } else if (t.decay) {
      const double fanIn = static_cast<double>(t.shape[0]);
      const bool residual = endsWith("attn.o.weight") || endsWith("fc2.weight");
      fillNormal(p, t.size, s, (residual ? residualScale : 1.0) / std::sqrt(fanIn));
    } else if (endsWith("kerple.r1")) {
      fillValue(p, t.size, static_cast<T>(pc.kerpleInitR1));
    } else if (endsWith("kerple.r2")) {
      fillValue(p, t.size, static_cast<T>(pc.kerpleInitR2));
    } else {
      fillValue(p, t.size, T(0));  // biases; fire's MLP is filled below
    }
  }
  initializeFire(c, tensors, params, seed);
}

template <class T>
void initializeFire(const ModelConfig& c, const std::vector<TensorInfo>& tensors, std::vector<T>& params, std::uint64_t seed) {
  if (c.position.scheme != PositionScheme::Fire) return;
  const ParamOffsets o = paramOffsets(c, tensors);
  const auto hidden = static_cast<std::size_t>(c.position.fireHidden);
  for (int l = 0; l < c.numLayers; ++l) {
    const LayerOffsets& lo = o.layers[static_cast<std::size_t>(l)];
    for (int h = 0; h < c.numHeads; ++h) {
      const FireMlp f = fireSeededMlp(c.position.fireHidden, deriveSeed(seed, 5000 + static_cast<std::uint64_t>(l * 64 + h)));
      const std::size_t row = static_cast<std::size_t>(h) * hidden;
      for (std::size_t k = 0; k < hidden; ++k) {
        params[lo.fireW1 + row + k] = static_cast<T>(f.w1[k]);
        params[lo.fireB1 + row + k] = static_cast<T>(f.b1[k]);
        params[lo.fireW2 + row + k] = static_cast<T>(f.w2[k]);
      }
      params[lo.fireB2 + static_cast<std::size_t>(h)] = static_cast<T>(f.b2);
    }
  }
}

template <class T>
void clampKerple(const ModelConfig& c, const ParamOffsets& o, std::vector<T>& params) {
  if (c.position.scheme != PositionScheme::Kerple) return;
  const bool power = c.position.kerpleKernel == KerpleKernel::Power;
  for (const LayerOffsets& lo : o.layers) {
    for (int h = 0; h < c.numHeads; ++h) {
      T& r1 = params[lo.kerR1 + static_cast<std::size_t>(h)];
      T& r2 = params[lo.kerR2 + static_cast<std::size_t>(h)];
      r1 = std::max(r1, static_cast<T>(kKerpleMin));
      r2 = std::max(r2, static_cast<T>(kKerpleMin));
      if (power) r2 = std::min(r2, T(2));
    }
  }
}

template void initializeParameters<float>(const ModelConfig&, const std::vector<TensorInfo>&, std::vector<float>&, std::uint64_t);
template void initializeParameters<double>(const ModelConfig&, const std::vector<TensorInfo>&, std::vector<double>&, std::uint64_t);
template void initializeFire<float>(const ModelConfig&, const std::vector<TensorInfo>&, std::vector<float>&, std::uint64_t);
template void initializeFire<double>(const ModelConfig&, const std::vector<TensorInfo>&, std::vector<double>&, std::uint64_t);
template void clampKerple<float>(const ModelConfig&, const ParamOffsets&, std::vector<float>&);
template void clampKerple<double>(const ModelConfig&, const ParamOffsets&, std::vector<double>&);

}  // namespace posviz::train
