#include "app/cli/tabs.hpp"

#include <algorithm>

namespace posviz::cli {

const std::vector<TabDef>& tabs() {
  static const std::vector<TabDef> kTabs = {
      {"learn", "Learn", "A guided path through the documents: why each scheme works, one live figure per step", "", {"start"}},
      {"sinusoidal", "Sinusoidal", "Fixed sin/cos encoding: heatmap, wavelengths, clocks, similarity, the offset matrix M_k",
       "sinusoidal", {}},
      {"learned", "Learned", "A learned position table (seeded or .npy) and the positions it has no row for", "learned", {}},
      {"rope", "RoPE", "Rotary embedding: rotating pairs, cos/sin/angle grids, the score grid s(m,n)", "rope-angles", {}},
      {"context-extension", "Context extension", "PI, NTK-aware, YaRN, Llama 3.1, LongRoPE on one frequency axis", "rope-freqs",
       {"context"}},
      {"image-rope", "Image RoPE", "2-D axial RoPE over image patches, and M-RoPE's (t, h, w) ids for text + image + text",
       "axial-scores", {"image", "axial", "mrope", "rope-2d"}},
      {"alibi", "ALiBi", "Per-head linear biases: slopes, bias grids, softmax of biased scores", "alibi-bias", {}},
      {"relative", "Relative", "T5 buckets, KERPLE, FIRE and ALiBi side by side, the decay xPos adds to RoPE", "t5-buckets", {}},
      {"worked-examples", "Worked examples", "The documents' worked examples, computed and checked", "", {"examples"}},
      {"compare", "Compare", "The documents' comparison table, every cell computed, and their decision chart", "compare", {}},
      {"where-position-enters", "Where position enters", "Add vs concatenate, RoPE on Q and K (and V), ALiBi on the scores", "",
       {"pipeline"}},
      {"word-order", "Word order", "Why attention without positions cannot see word order", "attention", {"order"}},
      {"extrapolation", "Extrapolation", "One sentence at the trained length and 2x/4x/8x past it: attention by distance, "
       "entropy, unseen RoPE angles, per encoding", "extrapolation", {"extrapolation-lab"}},
      {"train", "Train", "Train a small transformer with each encoding and watch it succeed or fail past its trained length", "", {}},
      {"model", "Model", "A model's positional scheme layer by layer, from its config.json", "", {}},
  };
  return kTabs;
}

const TabDef* findTab(std::string_view nameOrAlias) {
  for (const TabDef& t : tabs()) {
    if (t.name == nameOrAlias) return &t;
    if (std::find(t.aliases.begin(), t.aliases.end(), nameOrAlias) != t.aliases.end()) return &t;
  }
  return nullptr;
}

std::string tabList(const std::string& sep) {
  std::string s;
  for (const TabDef& t : tabs()) s += (s.empty() ? "" : sep) + t.name;
  return s;
}

const char* tabShowing(ModelEncoding encoding, bool scaledRope) {
  switch (encoding) {
    case ModelEncoding::Rope: return scaledRope ? "context-extension" : "rope";
    case ModelEncoding::Alibi: return "alibi";
    case ModelEncoding::Learned: return "learned";
    case ModelEncoding::Sinusoidal: return "sinusoidal";
    case ModelEncoding::RelativeBuckets:
    case ModelEncoding::RelativeKey: return "relative";
    case ModelEncoding::None: return "model";
  }
  return "rope";
}

}  // namespace posviz::cli
