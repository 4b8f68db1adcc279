// model_compare.hpp: two or more models side by side, one row per property that decides what
// the model does with positions. `posviz model --compare A B` prints it; the Model tab shows the
// same rows under its overlay.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "app/cli/model_config.hpp"

namespace posviz::cli {

struct CompareRow {
  std::string field;                // "RoPE base", "rotary dims", ...
  std::vector<std::string> values;  // one per model, "-" where the model has no such property
  bool differs = false;             // not every value is the same
};

std::vector<CompareRow> compareModels(const std::vector<ModelConfig>& models);

// The rows as an aligned text table; differing rows are marked with '*'.
void printComparison(std::ostream& out, const std::vector<ModelConfig>& models);

}  // namespace posviz::cli
