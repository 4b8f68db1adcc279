// weights.hpp: a trained run on disk: its weights as safetensors, its architecture as JSON.
//
// FILES (saveRun(dir, trainer) writes all four, each atomically; loadRun(dir) reads them back)
//   dir/model.safetensors  every tensor of model.hpp under its plain name (tok_emb.weight,
//                          layers.0.attn.q.weight, ...), float32, shapes as listed there (matrices
//                          [in, out]: y = x W)
//   dir/optimizer.safetensors  AdamW's moments, "adam.m.<tensor>" and "adam.v.<tensor>": with it a
//                          loaded run resumes exactly as if it had never stopped; without it (the
//                          file is optional) the moments start again from zero
//   dir/history.safetensors  the loss curve (optional, for display only): "loss", "learning_rate"
//                          and "grad_norm", one float32 per step, the steps first_step ..
//                          the run's step (first_step in "__metadata__"); a run saved without it
//                          loads with no curve
//   dir/config.json        {"format": "posviz-train", "version": 1, "architecture": {...},
//                          "task": {...}, "training": {...}, "tensors": [{"name", "shape"}...]}:
//                          everything needed to rebuild the model and regenerate its task
//
// SAFETENSORS (the Hugging Face format)
//   8 bytes: N, the header's length, unsigned 64-bit little-endian; N bytes: a JSON object
//   {"<name>": {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, ...,
//    "__metadata__": {"<key>": "<string>", ...}} padded with spaces to a multiple of 8; then the
//   data, each tensor's values little-endian from begin to end (relative to the data's start).
//   Tensors are written in model order, back to back.
//
// READING UNTRUSTED FILES
//   parseSafetensors checks before it allocates: the file holds 8 + N bytes at least, N is at
//   most 64 MiB, the header is an object (JSON limits of json.hpp), each tensor has dtype F32, a
//   shape of at most 8 dims whose element count times 4 equals end - begin without overflow, and
//   0 <= begin <= end <= the data's size; tensors may not overlap; values must be finite. Anything
//   else throws WeightsError naming the file and the problem; nothing is partly loaded.
//   loadRun also refuses a weights file whose tensor names or shapes differ from the config's
//   model (missing, extra, or reshaped tensors). Files larger than 1 GiB are refused unread.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/train/trainer.hpp"

namespace posviz::train {

class WeightsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NamedTensor {
  std::string name;
  std::vector<long long> shape;
  std::vector<float> values;
};

struct SafetensorsFile {
  std::vector<NamedTensor> tensors;             // in data order
  std::map<std::string, std::string> metadata;  // "__metadata__"
};

std::string serializeSafetensors(const SafetensorsFile& f);
// what names the input in messages (a path, "memory").
SafetensorsFile parseSafetensors(std::string_view bytes, const std::string& what = "safetensors");

// The model's tensors as NamedTensors (float32), and back: the tensors' names and shapes must be
// exactly the model's, in any order.
std::vector<NamedTensor> modelToTensors(const Model<float>& m);
void tensorsToModel(const std::vector<NamedTensor>& tensors, Model<float>& m, const std::string& what);

// config.json's text for a run at `step`, and the config (and step) read back.
std::string runConfigJson(const TrainConfig& c, long long step);
struct RunConfig {
  TrainConfig config;
  long long step = 0;
};
RunConfig parseRunConfigJson(std::string_view text, const std::string& what = "config.json");

inline constexpr const char* kWeightsFileName = "model.safetensors";
inline constexpr const char* kConfigFileName = "config.json";
inline constexpr const char* kOptimizerFileName = "optimizer.safetensors";
inline constexpr const char* kHistoryFileName = "history.safetensors";

// Writes dir/model.safetensors, dir/optimizer.safetensors and dir/config.json (dir must exist).
// Throws std::runtime_error naming the path when a file cannot be written.
void saveRun(const std::string& dir, const Trainer& t);
// A Trainer at the saved step with the saved weights (and moments, when optimizer.safetensors is
// there). Throws WeightsError naming the file for anything wrong with the files.
Trainer loadRun(const std::string& dir);

}  // namespace posviz::train
