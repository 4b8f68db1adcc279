// code_listings.cpp: the documents' modules at the level of shapes, and 001's test list per listing.
//
// [SECTION] PyTorch shape rules
// [SECTION] the listings
// [SECTION] 004's __main__ check
// [SECTION] 001's test list, run per listing
#include "core/lessons/code_listings.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/check.hpp"
#include "core/learned.hpp"
#include "core/lessons/document_code.hpp"
#include "core/lessons/topics.hpp"
#include "core/sinusoidal.hpp"

namespace posviz {

// ---------------------------------------------------------------------------------------------
// [SECTION] PyTorch shape rules
// ---------------------------------------------------------------------------------------------

const char* behaviourName(Behaviour b) {
  switch (b) {
    case Behaviour::Agrees: return "agrees";
    case Behaviour::Error: return "error";
    case Behaviour::WrongShape: return "wrong shape";
    case Behaviour::SilentTruncation: return "silent truncation";
    case Behaviour::Memory: return "memory";
    case Behaviour::WrongValues: return "wrong values";
    case Behaviour::CannotFail: return "cannot fail";
  }
  return "?";
}

Behaviour classifyRun(const ListingRun& run, const Shape& promised) {
  if (!run.error.empty()) return Behaviour::Error;
  if (run.shape != promised) {
    bool shorter = run.shape.size() == promised.size(), anyLess = false;
    for (std::size_t i = 0; shorter && i < promised.size(); ++i) {
      shorter = run.shape[i] <= promised[i];
      anyLess = anyLess || run.shape[i] < promised[i];
    }
    return shorter && anyLess ? Behaviour::SilentTruncation : Behaviour::WrongShape;
  }
  if (run.wrongValues) return Behaviour::WrongValues;
  return run.bufferBytes > kMemoryBudgetBytes ? Behaviour::Memory : Behaviour::Agrees;
}

std::string shapeText(const Shape& s) {
  std::string t = "(";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + ")";
}

Shape torchBroadcast(const Shape& a, const Shape& b) {
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n, 1);
  for (std::size_t k = 0; k < n; ++k) {
    const long long da = k < a.size() ? a[a.size() - 1 - k] : 1;
    const long long db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da != db && da != 1 && db != 1)
      throw std::runtime_error("RuntimeError: The size of tensor a (" + std::to_string(da) + ") must match the size of tensor b (" +
                               std::to_string(db) + ") at non-singleton dimension " + std::to_string(n - 1 - k));
    out[n - 1 - k] = da == 1 ? db : da;  // 1 stretches to the other, 0 included
  }
  return out;
}

long long sliceLength(long long size, long long start, long long stop) {
  return std::max(0LL, std::min(stop, size) - std::min(start, size));
}

namespace {

void requireShape(const char* fn, const Shape& s, std::size_t rank) {
  if (s.size() != rank) failArgument(fn, "expected a shape of rank " + std::to_string(rank) + ", got " + shapeText(s));
  for (long long d : s) requireNonNegativeInt(fn, "dimension", d);
}

// Runs body; a std::runtime_error is the listing's own error, kept as the result.
template <class F>
ListingRun runListing(ListingRun r, F&& body) {
  try {
    r.shape = body();
  } catch (const std::runtime_error& ex) {
    r.shape.clear();
    r.error = ex.what();
  }
  return r;
}

[[noreturn]] void raise(const std::string& what) { throw std::runtime_error(what); }

double f32Bytes(double elements) { return 4.0 * elements; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] the listings
// ---------------------------------------------------------------------------------------------

ListingRun run001Sinusoidal(long long dModel, long long maxLen, const Shape& x) {
  requireShape("run001Sinusoidal", x, 3);
  ListingRun r;
  r.bufferBytes = f32Bytes(static_cast<double>(maxLen) * static_cast<double>(dModel));
  return runListing(r, [&] {
    if (dModel % 2 != 0) raise("AssertionError: d_model must be even for sin/cos pairs");
    return torchBroadcast(x, {1, sliceLength(maxLen, 0, x[1]), dModel});  // x + self.pe[:, :x.size(1), :]
  });
}

ListingRun run001Learned(long long maxLen, long long dModel, const Shape& x) {
  requireShape("run001Learned", x, 3);
  ListingRun r;
  r.parameters = maxLen * dModel;
  return runListing(r, [&] {
    if (x[1] > maxLen) raise("IndexError: index out of range in self");  // embedding(arange(T))
    return torchBroadcast(x, {x[1], dModel});
  });
}

ListingRun run001Rope(long long dModelArg, long long maxLen, const Shape& q, long long offset) {
  requireShape("run001Rope", q, 4);
  requireNonNegativeInt("run001Rope", "offset", offset);
  ListingRun r;
  r.bufferBytes = f32Bytes(2.0 * static_cast<double>(maxLen) * static_cast<double>(dModelArg) + static_cast<double>(dModelArg / 2));
  return runListing(r, [&] {
    if (dModelArg % 2 != 0) raise("AssertionError: d_model must be even for RoPE pairs");
    const Shape cos = {1, 1, sliceLength(maxLen, offset, offset + q[2]), dModelArg};  // cos_cached[:, :, offset:offset+T, :]
    return torchBroadcast(q, cos);  // q * cos (rotate_half(q) * sin has the same shapes)
  });
}

ListingRun run001Alibi(long long numHeads, long long maxLen, long long seqLen) {
  ListingRun r;
  r.bufferBytes = f32Bytes(static_cast<double>(numHeads) * static_cast<double>(maxLen) * static_cast<double>(maxLen));
  const long long t = sliceLength(maxLen, 0, seqLen);
  r.shape = {1, numHeads, t, t};  // self.bias[:, :, :T, :T]
  return r;
}

ListingRun run001AlibiScores(long long batch, long long numHeads, long long maxLen, long long seqLen) {
  ListingRun r = run001Alibi(numHeads, maxLen, seqLen);
  const Shape bias = r.shape;
  return runListing(r, [&] { return torchBroadcast({batch, numHeads, seqLen, seqLen}, bias); });
}

ListingRun run001MhaRope(long long batch, long long numHeads, long long dModel, long long tq, long long tk,
                         long long ropeArg, long long maxLen, long long offset) {
  ListingRun r;
  r.bufferBytes = run001Rope(ropeArg, maxLen, {batch, numHeads, tq, dModel / numHeads}, offset).bufferBytes;
  r.rotationRows = sliceLength(maxLen, offset, offset + tq);
  r.wrongValues = r.rotationRows == 1 && tk > 1;  // one angle row broadcast over every key
  return runListing(r, [&] {
    const long long dk = dModel / numHeads;  // _split_heads: (B, T, d_model) -> (B, H, T, d_k)
    const Shape qs = {batch, numHeads, tq, dk}, ks = {batch, numHeads, tk, dk};
    // rope.forward(Q, K): T = q.size(2) for both; cos (1, 1, T_q', ropeArg)
    const Shape cos = {1, 1, sliceLength(maxLen, offset, offset + tq), ropeArg};
    if (ropeArg % 2 != 0) raise("AssertionError: d_model must be even for RoPE pairs");
    const Shape qr = torchBroadcast(qs, cos);
    const Shape kr = torchBroadcast(ks, cos);
    return Shape{qr[0], qr[1], qr[2], kr[2]};  // Q K^T: (B, H, T_q, T_k)
  });
}

ListingRun run002Sinusoidal(long long embedDim, long long maxLen, const Shape& x) {
  requireShape("run002Sinusoidal", x, 3);
  ListingRun r;
  r.bufferBytes = f32Bytes(static_cast<double>(maxLen) * static_cast<double>(embedDim));
  return runListing(r, [&] {
    if (x[1] > maxLen) raise("AssertionError: Sequence length " + std::to_string(x[1]) + " exceeds " + std::to_string(maxLen) + ".");
    return torchBroadcast(x, {1, x[1], embedDim});  // div_term[: pe[:, 1::2].size(1)] fits any embed_dim
  });
}

ListingRun run002Learnable(long long embedDim, long long maxLen, const Shape& x) {
  requireShape("run002Learnable", x, 3);
  ListingRun r;
  r.parameters = maxLen * embedDim;
  return runListing(r, [&] {
    if (x[1] > maxLen) raise("AssertionError: Sequence length " + std::to_string(x[1]) + " exceeds " + std::to_string(maxLen) + ".");
    return torchBroadcast(x, {1, x[1], embedDim});
  });
}

ListingRun run003ApplyRope(long long headDim, long long contextLength, const Shape& x) {
  requireShape("run003ApplyRope", x, 4);
  ListingRun r;
  const long long half = (headDim + 1) / 2;  // len(arange(0, head_dim, 2))
  r.bufferBytes = f32Bytes(static_cast<double>(contextLength) * static_cast<double>(half));
  return runListing(r, [&] {
    const Shape x1 = {x[0], x[1], x[2], (x[3] + 1) / 2}, x2 = {x[0], x[1], x[2], x[3] / 2};  // 0::2, 1::2
    const Shape cs = {sliceLength(contextLength, 0, x[2]), half};                          // angles[:seq_len, :]
    const Shape a = torchBroadcast(x1, cs);
    const Shape b = torchBroadcast(x2, cs);
    if (a != b) raise("RuntimeError: stack expects each tensor to be equal size, but got " + shapeText(a) + " at entry 0 and " + shapeText(b) + " at entry 1");
    return Shape{a[0], a[1], a[2], 2 * a[3]};  // stack(-1).flatten(-2)
  });
}

ListingRun run004Sinusoidal(long long dModel, long long maxLen, const Shape& x) {
  requireShape("run004Sinusoidal", x, 3);
  ListingRun r;
  r.bufferBytes = f32Bytes(static_cast<double>(maxLen) * static_cast<double>(dModel));
  return runListing(r, [&] {
    const long long cols = (dModel + 1) / 2, odd = dModel / 2;  // cos(position * div_term) into pe[:, 1::2]
    if (cols != odd)
      raise("RuntimeError: The expanded size of the tensor (" + std::to_string(odd) + ") must match the existing size (" +
            std::to_string(cols) + ") at non-singleton dimension 1.  Target sizes: [" + std::to_string(maxLen) + ", " +
            std::to_string(odd) + "].  Tensor sizes: [" + std::to_string(maxLen) + ", " + std::to_string(cols) + "]");
    return torchBroadcast(x, {1, sliceLength(maxLen, 0, x[1]), dModel});
  });
}

ListingRun run004Learned(long long dModel, long long maxLen, const Shape& x) { return run001Learned(maxLen, dModel, x); }

ListingRun run004Rotary(long long dk, long long maxLen, const Shape& q) {
  requireShape("run004Rotary", q, 4);
  ListingRun r;
  r.bufferBytes = f32Bytes(2.0 * static_cast<double>(maxLen) * static_cast<double>(dk / 2));
  return runListing(r, [&] {
    if (dk % 2 != 0) raise("ValueError: RoPE expects even d_k");
    const Shape cos = {1, 1, sliceLength(maxLen, 0, q[2]), 2 * (dk / 2)};  // [:, :, :seq, :].repeat(1, 1, 1, 2)
    return torchBroadcast(q, cos);
  });
}

ListingRun run004Alibi(long long numHeads, long long seqLen) {
  ListingRun r;
  r.shape = {1, numHeads, seqLen, seqLen};  // computed per call: no buffer but slopes
  r.bufferBytes = f32Bytes(static_cast<double>(numHeads));
  return r;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] 004's __main__ check
// ---------------------------------------------------------------------------------------------

MainCheckResult run004MainCheck(int fault) {
  if (fault < 0 || fault > 3) failArgument("run004MainCheck", "fault must be 0..3, got " + std::to_string(fault));
  const int d8 = 8;
  const double pos = 3.0;
  const double base = fault == 1 ? 1000.0 : 10000.0;
  // The one expression both sides evaluate (with the fault, if any, written into it).
  const auto div = [&](int i) { return std::exp(2.0 * i * (-std::log(base) / d8)); };
  const auto fill = [&](double p) {
    std::vector<double> v(d8);
    for (int i = 0; i < d8 / 2; ++i) {
      v[2 * i] = fault == 2 ? std::cos(p * div(i)) : std::sin(p * div(i));
      v[2 * i + 1] = fault == 2 ? std::sin(p * div(i)) : std::cos(p * div(i));
    }
    return v;
  };
  const std::vector<double> row = fill(fault == 3 ? pos + 1.0 : pos);  // pe8.pe[0, 3] (fault 3: table rows shifted)
  const std::vector<double> manual = fill(pos);                         // manual[0::2], manual[1::2]
  SinusoidalParams sp;
  sp.dModel = d8;
  return {maxAbsDiff(row, manual), maxAbsDiff(row, sinusoidalVector(sp, pos))};
}

// ---------------------------------------------------------------------------------------------
// [SECTION] 001's test list, run per listing
// ---------------------------------------------------------------------------------------------

const char* testCellName(TestCell c) { return c == TestCell::Pass ? "pass" : c == TestCell::Fail ? "FAIL" : "n/a"; }

namespace {

enum class Kind { Sinusoidal, Learned, Rope, Alibi };
using RowFn = std::vector<double> (*)(double pos, int d);
using RopeFn = std::vector<double> (*)(const std::vector<double>& x, double pos, double base);

struct Listing {
  const char* name;
  Kind kind;
  RowFn row = nullptr;    // sinusoidal values
  RopeFn rope = nullptr;  // RoPE values
  bool hasOffset = false; // RoPE forward takes a KV-cache offset
  // Run at T tokens (B = 2, H = 8, d_model = 512, d_k = 64; max_len the listing's default).
  ListingRun (*run)(long long t, long long offset) = nullptr;
  long long maxLen = 0;
  Shape (*promised)(long long t) = nullptr;
  // Inside 001's MultiHeadAttention as the listing documents its construction; null: run(t, 0).
  ListingRun (*mha)(long long t) = nullptr;
};

Shape embedShape(long long t) { return {2, t, 512}; }
Shape headShape(long long t) { return {2, 8, t, 64}; }
Shape biasShape(long long t) { return {2, 8, t, t}; }

std::vector<double> seededRope(RopeFn f, const std::vector<double>& x, double pos) { return f(x, pos, 10000.0); }

const Listing kListings[] = {
    {"Teaching: sinusoidal", Kind::Sinusoidal, doc001SinusoidalRow, nullptr, false,
     [](long long t, long long) { return run001Sinusoidal(512, 8192, embedShape(t)); }, 8192, embedShape},
    {"Teaching: learned", Kind::Learned, nullptr, nullptr, false,
     [](long long t, long long) { return run001Learned(8192, 512, embedShape(t)); }, 8192, embedShape},
    // Built with d_k (the only size that broadcasts) for the length tests; with d_model, as its
    // docstring says, inside MultiHeadAttention.
    {"Teaching: RoPE", Kind::Rope, nullptr, doc001RotaryPe, true,
     [](long long t, long long off) { return run001Rope(64, 8192, headShape(t), off); }, 8192, headShape,
     [](long long t) { return run001MhaRope(2, 8, 512, t, t, 512, 8192, 0); }},
    {"Teaching: ALiBi", Kind::Alibi, nullptr, nullptr, false,
     [](long long t, long long) { return run001AlibiScores(2, 8, 8192, t); }, 8192, biasShape},
    {"8.5: sinusoidal", Kind::Sinusoidal, doc002SinusoidalRow, nullptr, false,
     [](long long t, long long) { return run002Sinusoidal(512, 5000, embedShape(t)); }, 5000, embedShape},
    {"8.5: learnable", Kind::Learned, nullptr, nullptr, false,
     [](long long t, long long) { return run002Learnable(512, 5000, embedShape(t)); }, 5000, embedShape},
    {"Understanding: ApplyRoPE", Kind::Rope, nullptr, doc003ApplyRope, false,
     [](long long t, long long) { return run003ApplyRope(64, 8192, headShape(t)); }, 8192, headShape},
    {"Interview: SinusoidalPE", Kind::Sinusoidal, doc001SinusoidalRow, nullptr, false,
     [](long long t, long long) { return run004Sinusoidal(512, 5000, embedShape(t)); }, 5000, embedShape},
    {"Interview: LearnedPE", Kind::Learned, nullptr, nullptr, false,
     [](long long t, long long) { return run004Learned(512, 512, embedShape(t)); }, 512, embedShape},
    {"Interview: RotaryPE", Kind::Rope, nullptr, doc004RotaryPe, false,
     [](long long t, long long) { return run004Rotary(64, 8192, headShape(t)); }, 8192, headShape},
    {"Interview: ALiBiBias", Kind::Alibi, nullptr, nullptr, false,
     [](long long t, long long) {
       ListingRun r = run004Alibi(8, t);
       return runListing(r, [&] { return torchBroadcast(biasShape(t), r.shape); });
     },
     0, biasShape},
};

struct Cell {
  TestCell cell = TestCell::NotApplicable;
  std::string note;
};

Cell verdict(bool ok, std::string note) { return {ok ? TestCell::Pass : TestCell::Fail, std::move(note)}; }

// Smallest distance between the encodings of positions 0..63 (d = 8): > 0 when all differ.
double minPairDistance(const std::vector<std::vector<double>>& rows) {
  double m = INFINITY;
  for (std::size_t a = 0; a < rows.size(); ++a)
    for (std::size_t b = a + 1; b < rows.size(); ++b) {
      double s = 0.0;
      for (std::size_t c = 0; c < rows[a].size(); ++c) s += (rows[a][c] - rows[b][c]) * (rows[a][c] - rows[b][c]);
      m = std::min(m, std::sqrt(s));
    }
  return m;
}

Cell distinctEncodings(const Listing& l) {
  std::vector<std::vector<double>> rows;
  const std::vector<double> x = randomVector(8, 11);
  const Grid table = learnedInit(64, 8, 7);
  for (int pos = 0; pos < 64; ++pos) {
    if (l.kind == Kind::Sinusoidal) rows.push_back(l.row(pos, 8));
    else if (l.kind == Kind::Rope) rows.push_back(seededRope(l.rope, x, pos));
    else if (l.kind == Kind::Learned) rows.push_back(toDouble(learnedLookup(table, pos)));
    else return {};
  }
  const double m = minPairDistance(rows);
  return verdict(m > 1e-9, "positions 0..63, d 8: smallest distance between two encodings " + formatGeneral(m, 4));
}

Cell learnedGradients(const Listing& l) {
  if (l.kind != Kind::Learned) return {};
  const ListingRun r = l.run(16, 0);
  // out = x + E[pos]: d out[3][0] / d E[3][0] by a difference through core's lookup.
  Grid table = learnedInit(16, 8, 7);
  const double x = 0.5, h = 1.0 / 64.0;  // h a power of two: the float difference is exact
  const double before = x + learnedLookup(table, 3)[0];
  table.at(3, 0) += static_cast<float>(h);
  const double grad = (x + learnedLookup(table, 3)[0] - before) / h;
  return verdict(r.parameters == l.maxLen * 512 && std::fabs(grad - 1.0) < 1e-6,
                 "nn.Embedding weight: " + formatInt(r.parameters) + " trainable parameters, d out / d E[pos] = " + formatGeneral(grad, 6));
}

Cell relativeProperty(const Listing& l) {
  if (l.kind == Kind::Rope) {
    const std::vector<double> q = randomVector(8, 21), k = randomVector(8, 22);
    std::vector<double> scores;
    for (double m : {5.0, 13.0, 103.0}) scores.push_back(dot(seededRope(l.rope, q, m), seededRope(l.rope, k, m - 3.0)));
    const double spread = *std::max_element(scores.begin(), scores.end()) - *std::min_element(scores.begin(), scores.end());
    return verdict(spread < 1e-9, "q_m.k_(m-3) at m = 5, 13, 103 (d 8): spread " + formatGeneral(spread, 4));
  }
  if (l.kind == Kind::Alibi) {
    const std::vector<double> slopes = l.maxLen > 0 ? doc001AlibiSlopes(8) : doc004AlibiSlopes(8);  // 004's has no max_len
    double spread = 0.0;
    for (double s : slopes)
      for (int i = 0; i < 32; ++i)
        for (int j = 0; j < 32; ++j) spread = std::max(spread, std::fabs(-s * std::fabs(i - j) - (-s * std::fabs((i + 7) - (j + 7)))));
    return verdict(spread < 1e-12, "bias(i, j) against bias(i + 7, j + 7), 8 heads: max difference " + formatGeneral(spread, 4));
  }
  return {};
}

Cell normPreserved(const Listing& l) {
  if (l.kind != Kind::Rope) return {};
  const std::vector<double> x = randomVector(8, 31);
  double worst = 0.0;
  for (int pos = 0; pos <= 100; ++pos) worst = std::max(worst, std::fabs(norm(seededRope(l.rope, x, pos)) - norm(x)));
  return verdict(worst < 1e-9, "| |R(pos) x| - |x| | over pos 0..100: max " + formatGeneral(worst, 4));
}

Cell validBeyondLength(const Listing& l) {
  if (l.kind == Kind::Learned) return {};
  const long long t = (l.maxLen > 0 ? l.maxLen : 8192) + 1;
  const ListingRun r = l.run(t, 0);
  const Behaviour b = classifyRun(r, l.promised(t));
  return verdict(b == Behaviour::Agrees || b == Behaviour::Memory,
                 "T = " + formatInt(t) + ": " + (r.error.empty() ? shapeText(r.shape) : r.error));
}

Cell learnedErrorBeyond(const Listing& l) {
  if (l.kind != Kind::Learned) return {};
  const ListingRun r = l.run(l.maxLen + 1, 0);
  return verdict(!r.error.empty(), "T = " + formatInt(l.maxLen + 1) + ": " + (r.error.empty() ? "no error" : r.error));
}

Cell kvCacheOffset(const Listing& l) {
  if (l.kind != Kind::Rope) return {};
  // Token 5 decoded alone after a 5-token prefill: the listing's call rotates it by offset (001)
  // or by its index in the call, 0 (003, 004); the full 6-token pass rotates it by 5.
  const std::vector<double> x = randomVector(8, 41);
  const double decodedPos = l.hasOffset ? 5.0 : 0.0;
  const double diff = maxAbsDiff(seededRope(l.rope, x, decodedPos), seededRope(l.rope, x, 5.0));
  return verdict(diff < 1e-12, std::string(l.hasOffset ? "forward(q, k, offset=5)" : "forward has no offset: rotated as position 0") +
                                   "; max |decoded - full pass| = " + formatGeneral(diff, 4));
}

Cell mhaShapes(const Listing& l) {
  const ListingRun r = l.mha ? l.mha(16) : l.run(16, 0);
  const Behaviour b = classifyRun(r, l.mha ? Shape{2, 8, 16, 16} : l.promised(16));
  const std::string memory = b == Behaviour::Memory ? " (and a " + formatGeneral(r.bufferBytes / 1073741824.0, 4) + " GiB buffer)" : "";
  return verdict(b == Behaviour::Agrees || b == Behaviour::Memory,
                 "B 2, H 8, d_model 512, T 16: " + (r.error.empty() ? shapeText(r.shape) : r.error) + memory);
}

}  // namespace

TestGrid documentTestGrid() {
  TestGrid g;
  using TestFn = Cell (*)(const Listing&);
  const std::pair<const char*, TestFn> tests[] = {
      {"distinct encodings", distinctEncodings},
      {"learned: gradients flow (trainable table)", learnedGradients},
      {"relative position: q_m.k_n depends on m - n", relativeProperty},
      {"rotation preserves the norm", normPreserved},
      {"valid output beyond max_len", validBeyondLength},
      {"learned: error beyond max_len", learnedErrorBeyond},
      {"KV-cache offset", kvCacheOffset},
      {"MultiHeadAttention shapes", mhaShapes},
  };
  for (const Listing& l : kListings) g.listings.push_back(l.name);
  for (const auto& [name, fn] : tests) {
    g.tests.push_back(name);
    for (const Listing& l : kListings) {
      Cell c = fn(l);
      g.cells.push_back(c.cell);
      g.notes.push_back(c.cell == TestCell::NotApplicable ? std::string("does not apply to this kind of module") : c.note);
    }
  }
  return g;
}

}  // namespace posviz
