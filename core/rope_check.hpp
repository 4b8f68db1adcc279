// rope_check.hpp: compare a user's RoPE tensors with the exact reference for a model, and name
// the mistake when they differ.
//
// WHAT IS CHECKED (any of, for one RopeParams)
//   InvFreq  the inverse frequencies, one per rotary pair (HF: rotary_emb.inv_freq)
//   CosSin   cos and sin caches, positions x rotary dims, as HF's rotary embedding returns them:
//            half-split models repeat the pair angles as [f_0..f_{n-1}, f_0..f_{n-1}]
//            (torch.cat((freqs, freqs))), interleaved models as [f_0, f_0, f_1, f_1, ...]
//            (repeat_interleave), both times the attention factor
//   Rotated  vectors q (rows of head_dim) and the user's rotation of them, one position per row
//
// HOW A MISTAKE IS NAMED
//   The reference is built in float64 from core (computeRopeFrequencies). When the user's values
//   differ by more than rounding, each known mistake is rebuilt as a variant of the reference
//   and the first variant the values match names the mistake:
//     pairing layout swapped (half-split <-> interleaved; repeat <-> repeat_interleave),
//     the context-extension scaling missing, the per-pair scaling applied twice,
//     partial rotary over the wrong width (the whole head rotated, or the exponent taken over
//     head_dim instead of the rotary dims), the attention factor missing, applied twice or to
//     cos only, a position offset (-8..8), a wrong base (estimated from the values).
//   Nothing matching: "differs from the reference in a way not recognised", with the largest
//   difference and where it is.
//
// ROUNDING
//   float32 values match when every difference is within 8 ulp of float32 at the value's scale
//   (angles: 8 * 2^-24 * max(1, |angle|), since the angle pos * theta is itself rounded);
//   float64 values within 1e-9 of that scale. A match says which, with the largest difference
//   and the bound it was held to.
#pragma once

#include <string>
#include <vector>

#include "core/rope.hpp"

namespace posviz {

enum class RopeCheckKind { InvFreq, CosSin, Rotated };

struct RopeCheckInput {
  RopeCheckKind kind = RopeCheckKind::InvFreq;
  RopeParams params;              // the model's reference
  bool float32 = true;            // the user's values were float32
  std::vector<double> invFreq;    // InvFreq: the user's values
  std::vector<double> positions;  // CosSin, Rotated: one per row
  std::vector<double> cos, sin;   // CosSin: positions.size() rows of cols
  int cols = 0;                   // CosSin: columns per row; Rotated: head_dim
  std::vector<double> q, rotated; // Rotated: positions.size() rows of cols
};

struct RopeCheckResult {
  bool match = false;             // the reference, up to rounding
  std::string mistake;            // "" on a match, else an id: "layout-swapped", "wrong-base", ...
  std::string verdict;            // one or two sentences for a person
  double maxError = 0.0;          // against the reference (a match) or the named variant
  double tolerance = 0.0;         // the bound the values were held to
};

// Throws std::invalid_argument naming what is wrong with the input (sizes, non-finite values).
RopeCheckResult checkRope(const RopeCheckInput& in);

}  // namespace posviz
