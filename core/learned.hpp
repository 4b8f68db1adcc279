// learned.hpp: learned absolute position tables (GPT-2, BERT) and their .npy form.
//
//   x_i = Embed(w_i) + P[i],  P in R^{maxLen x dModel}
//   A learned table has a row for positions 0 .. maxLen-1 and nothing past it: the documents'
//   hard ceiling (train with T_max = 512, feed 1024 tokens, and row 512 does not exist).
//
// INIT
//   learnedInit draws N(0, std^2) (std = 0.02 as GPT-2's initializer) from posviz's own
//   seeded generator (core/random.hpp), so a seed gives the same table on every platform.
//
// LAYOUT
//   maxLen x dModel, row-major float32, row = position.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/grid.hpp"

namespace posviz {

constexpr double kGpt2InitStd = 0.02;

Grid learnedInit(int maxLen, int dModel, std::uint64_t seed, double stddev = kGpt2InitStd);

// Rows [rowBegin, rowEnd) of learnedInit(maxLen, dModel, seed, stddev) for any maxLen >= rowEnd,
// written row-major to out ((rowEnd - rowBegin) * dModel floats), the same bits: the draws start
// at their place in the one stream (Rng::discard), so a picture can sample rows of a huge table,
// or build it piece by piece, without drawing the rows before them.
void learnedInitRowsInto(int dModel, std::uint64_t seed, double stddev, long long rowBegin, long long rowEnd, float* out);
// One cell of the same table, in O(1): a picture's coarse first pass samples one cell a pixel.
float learnedInitCell(int dModel, std::uint64_t seed, double stddev, long long row, int col);

// The row for pos. Throws std::out_of_range when pos >= table.rows:
// "learnedLookup: pos 1024 has no row: the table has max_len 512 (rows 0..511)";
// std::invalid_argument for pos < 0 or a table whose values do not hold rows * cols.
std::vector<float> learnedLookup(const Grid& table, long long pos);

// |P[pos]| = sqrt(sum_dim P[pos][dim]^2), the Euclidean length of row pos, summed in float64.
// Throws like learnedLookup when the row does not exist.
double learnedRowNorm(const Grid& table, long long pos);

// How alike every two positions' rows are: S[a][b] = cos(P[a], P[b]) = <P[a], P[b]> / (|P[a]| |P[b]|),
// rows x rows, symmetric, 1 on the diagonal; 0 where either row is all zeros. Sums in float64.
// A trained table shows its structure here (neighbouring positions alike); a random one is a
// bright diagonal on noise. std::invalid_argument when rows x rows floats pass the memory budget.
Grid learnedSimilarity(const Grid& table);

// Rows firstPos .. firstPos+numPositions-1 into a new grid; std::out_of_range naming the first
// missing row when they do not all exist.
Grid learnedSlice(const Grid& table, long long firstPos, int numPositions);

// Load a 2-D .npy (float32 or float64, C order) with at least one row and column as a table;
// throws NpyError (core/npy.hpp) naming the file, and naming the row and column of the first
// NaN or infinity when the table holds one.
Grid loadLearnedTable(const std::string& path);
// Save as float32 .npy, atomically (temp file, then rename).
void saveLearnedTable(const std::string& path, const Grid& table);

}  // namespace posviz
