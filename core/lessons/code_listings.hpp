// code_listings.hpp: the documents' PyTorch modules run at their edges, shape by shape.
//
// WHAT
//   Each runXxx function restates one module of the articles' code listings (constructor + forward) at the level
//   of tensor shapes, with PyTorch's rules: slicing a[s:e] clamps to the tensor (a slice past the
//   end is short or empty, never an error), elementwise ops broadcast (a 1 stretches, a 0 wins over
//   a 1, any other mismatch raises), nn.Embedding raises on an index >= num_embeddings. A run
//   returns the result's shape, or the error PyTorch raises, in PyTorch's words (checked against
//   torch 1.13 with /usr/bin/python3), and the float32 bytes of the buffers the module holds.
//   The values these modules compute are in core/lessons/document_code.hpp.
//
// BEHAVIOUR (what an edge case did, against the shape the listing's docstring promises)
//   error              it raised
//   wrong shape        it returned a shape other than the promised one
//   silent truncation  it returned fewer rows than asked for, without an error
//   memory             it returned the right shape but holds more than kMemoryBudgetBytes
//   wrong values       it returned the right shape with values a correct implementation does not give
//   cannot fail        a check that passes whatever the code under test computes
//   agrees             none of these
//
// TEST GRID
//   documentTestGrid() runs 001's "Test Coverage" list against every listing it applies to
//   (Pass / Fail computed from the runs and document_code.hpp values; NotApplicable where the
//   test is about another kind of module).
//
// ERRORS
//   The run functions never throw for a listing's own failure (that is the result); they throw
//   std::invalid_argument for arguments no listing could be called with (a dimension < 0).
#pragma once

#include <string>
#include <vector>

namespace posviz {

using Shape = std::vector<long long>;

inline constexpr double kMemoryBudgetBytes = 1024.0 * 1024.0 * 1024.0;  // 1 GiB: a buffer beyond it is flagged

struct ListingRun {
  Shape shape;               // the result's shape; empty when it raised
  std::string error;         // "RuntimeError: ..." as PyTorch words it; "" when it returned
  double bufferBytes = 0.0;  // float32 buffers registered by the module (register_buffer)
  long long parameters = 0;  // trainable parameters (nn.Parameter / nn.Embedding weights)
  long long rotationRows = -1;  // RoPE: rows of cos/sin the keys were multiplied by (1 stretches over all keys)
  bool wrongValues = false;  // broadcasting stretched one row of angles over rows that need their own
};

enum class Behaviour { Agrees, Error, WrongShape, SilentTruncation, Memory, WrongValues, CannotFail };
const char* behaviourName(Behaviour b);  // "agrees", "error", "wrong shape", ...
// error > silent truncation (same rank, no dim larger, one smaller) > wrong shape > memory > agrees.
Behaviour classifyRun(const ListingRun& run, const Shape& promised);

// "(2, 4, 0, 8)"
std::string shapeText(const Shape& s);
// PyTorch broadcasting; throws std::runtime_error with PyTorch's message when it fails.
Shape torchBroadcast(const Shape& a, const Shape& b);
// len(range(size)[start:stop]) for 0 <= start <= stop.
long long sliceLength(long long size, long long start, long long stop);

// 001 SinusoidalPositionalEncoding(d_model, max_len).forward(x), x = (B, T, d_model).
ListingRun run001Sinusoidal(long long dModel, long long maxLen, const Shape& x);
// 001 LearnedPositionalEmbedding(max_len, d_model).forward(x).
ListingRun run001Learned(long long maxLen, long long dModel, const Shape& x);
// 001 RotaryPositionalEmbedding(d_model, max_len).forward(q, k, offset), q = k = (B, H, T, d_k).
ListingRun run001Rope(long long dModelArg, long long maxLen, const Shape& q, long long offset);
// 001 ALiBi(n_heads, max_len).forward(T).
ListingRun run001Alibi(long long numHeads, long long maxLen, long long seqLen);
// 001's usage: scores (B, H, T, T) + alibi.forward(T).
ListingRun run001AlibiScores(long long batch, long long numHeads, long long maxLen, long long seqLen);
// 001's MultiHeadAttention snippet: split heads, self.rope(Q, K, offset), Q K^T; query (B, T_q, d_model),
// key (B, T_k, d_model); the rope module built with ropeArg (its constructor's d_model). Result: scores.
ListingRun run001MhaRope(long long batch, long long numHeads, long long dModel, long long tq, long long tk,
                         long long ropeArg, long long maxLen, long long offset);
// 002 SinusoidalPositionalEncoding(embed_dim, max_len).forward(x) and LearnablePositionalEmbedding.
ListingRun run002Sinusoidal(long long embedDim, long long maxLen, const Shape& x);
ListingRun run002Learnable(long long embedDim, long long maxLen, const Shape& x);
// 003 ApplyRoPE(head_dim, context_length).forward(x), x = (B, H, T, head_dim).
ListingRun run003ApplyRope(long long headDim, long long contextLength, const Shape& x);
// 004 SinusoidalPE(d_model, max_len), LearnedPE(d_model, max_len), RotaryPE(d_k, max_len), ALiBiBias(n_heads).
ListingRun run004Sinusoidal(long long dModel, long long maxLen, const Shape& x);
ListingRun run004Learned(long long dModel, long long maxLen, const Shape& x);
ListingRun run004Rotary(long long dk, long long maxLen, const Shape& q);
ListingRun run004Alibi(long long numHeads, long long seqLen);

// 004's __main__ check: its module and its "manual" row are built by the same div_term
// expression, so a fault in that expression reaches both. fault: 0 none, 1 base 1000 instead of
// 10000, 2 sin and cos swapped, 3 positions off by one. Returns the check's max_err (what it
// prints) and, beside it, the row's distance from core's sinusoidal reference.
struct MainCheckResult {
  double printedMaxErr = 0.0;   // |module row - manual row|, what the listing prints
  double referenceErr = 0.0;    // |module row - core sinusoidalVector|
};
MainCheckResult run004MainCheck(int fault);

// [SECTION] 001's test list, run per listing
enum class TestCell { Pass, Fail, NotApplicable };
const char* testCellName(TestCell c);  // "pass", "FAIL", "n/a"
struct TestGrid {
  std::vector<std::string> tests;     // rows: 001's "Test Coverage" items
  std::vector<std::string> listings;  // columns: "Teaching: sinusoidal", ... (article short name: module)
  std::vector<TestCell> cells;        // row-major: cells[test * listings.size() + listing]
  std::vector<std::string> notes;     // same layout: what was run and observed
  TestCell at(std::size_t test, std::size_t listing) const { return cells[test * listings.size() + listing]; }
};
TestGrid documentTestGrid();

}  // namespace posviz
