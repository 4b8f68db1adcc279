// positions.hpp: the position-dependent numbers of a model, tabulated once per length from core.
//
// positionTables(config, length, scaling) fills, for positions 0 .. length-1, what the model's
// scheme needs, each from core's own function:
//   rotation   rope/xpos: per pair, cos and sin of pos * invFreq (core/rope.hpp ropeFrequencies,
//              after core/context_extension.hpp's scaling) times the attention factor (rope) or
//              xposQueryScale / xposKeyScale (core/xpos.hpp) for q and k
//   added      sinusoidal: PE(pos) (core/sinusoidal.hpp sinusoidalVector)
//   alibi      -m_h (i - j) (core/alibi.hpp alibiSlopes, alibiBias)
//   bucket     t5: t5RelativePositionBucket(j - i) (core/relative_bias.hpp)
//   fireInput  fire: fireInput(i, j) (core/fire.hpp)
// Entries with j > i (masked by causality) hold 0 / bucket -1. A table of length n serves every
// batch of at most n tokens: position p's entries do not depend on the length, except under
// dynamic NTK scaling, whose frequencies depend on the length the scaling names.
#pragma once

#include <vector>

#include "core/train/config.hpp"

namespace posviz::train {

template <class T>
struct PositionTables {
  int length = 0;
  int numPairs = 0;                   // rotation pairs per head (0: no rotation)
  std::vector<int> pairA, pairB;      // the two dims of pair i within a head
  std::vector<T> cosQ, sinQ;          // length x numPairs
  std::vector<T> cosK, sinK;          // length x numPairs
  std::vector<T> added;               // length x dModel (sinusoidal)
  std::vector<T> alibi;               // numHeads x length x length
  std::vector<int> bucket;            // length x length (t5)
  std::vector<T> fireInput;           // length x length (fire)
};

// scaling applies to rope models only (ignored otherwise); throws std::invalid_argument from core
// when it is invalid for the model's rotary width.
template <class T>
PositionTables<T> positionTables(const ModelConfig& c, int length, const RopeScaling& scaling = {});

}  // namespace posviz::train
