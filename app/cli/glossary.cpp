#include "app/cli/glossary.hpp"

namespace posviz::cli {

const std::vector<GlossaryEntry>& glossary() {
  static const std::vector<GlossaryEntry> kEntries = {
      {"pos", "position", "A token's index in the sequence, counted from 0.", ""},
      {"q, k, v", "query, key, value",
       "The three vectors attention computes from each token: a query asks, keys are matched against it, values are what gets mixed.", ""},
      {"score", "attention score", "q . k for one query and one key, before the softmax turns a row of scores into weights.", "logit"},
      {"d_model", "model width", "The number of dimensions of each token vector; sinusoidal and learned encodings have this width.",
       "hidden_size, embed_dim"},
      {"head_dim", "head width", "The number of dimensions of one attention head's query and key; RoPE turns pairs of them.", "d_k, head_size"},
      {"H", "heads", "The number of attention heads in a layer.", "n_heads, num_attention_heads"},
      {"i", "pair index", "Which pair of dimensions: (2i, 2i + 1) when neighbours pair, (i, i + head_dim/2) when the halves pair.", ""},
      {"theta_i", "speed of pair i",
       "How far pair i turns per position, in radians: base^(-2i/d). The sinusoidal articles write omega_i for the same number.", "omega_i, inv_freq"},
      {"base", "base", "The 10000 in base^(-2i/d): the larger it is, the slower the slowest pair.", "rope_theta"},
      {"lambda_i", "wavelength", "The positions pair i needs for one full turn: 2 pi / theta_i.", ""},
      {"PE(pos)", "positional encoding", "The vector added to the token at pos (sinusoidal or learned).", ""},
      {"k (offset)", "offset", "A distance between two positions; M_k is the rotation that carries PE(pos) to PE(pos + k).", ""},
      {"m, n", "query and key positions", "In RoPE and ALiBi, the query sits at m (or i) and the key at n (or j); scores depend on m - n.", "i, j"},
      {"R(m)", "rotation to position m", "The block-diagonal matrix that turns every pair i by m theta_i.", ""},
      {"L0", "trained length", "The most positions the model saw in training; a learned table has exactly L0 rows.",
       "T_max, max_len, L_max, max_position_embeddings, original_max_position_embeddings"},
      {"L", "length run now", "The length of the sequence the model is run on, which may be longer than L0.", "seq_len"},
      {"m_h", "ALiBi slope", "How much head h subtracts from a score per step of distance.", "slope"},
      {"s", "scaling factor", "L / L0: how far a RoPE model is stretched past its trained length (PI, NTK-aware, YaRN).", "factor"},
      {"attention factor", "YaRN's temperature", "0.1 ln s + 1: multiplies cos and sin, so scores grow by its square and stay sharp.",
       "mscale"},
      {"entropy / ln L", "attention spread", "0 when a query puts all its weight on one key, 1 when it spreads it evenly over all L keys.", ""},
  };
  return kEntries;
}

std::string glossaryText() {
  std::string out;
  for (const GlossaryEntry& e : glossary()) {
    out += e.symbol + " (" + e.name + "): " + e.meaning;
    if (!e.also.empty()) out += " Also: " + e.also + ".";
    out += "\n";
  }
  return out;
}

}  // namespace posviz::cli
