// Tests for core/learned: seeded init, the max_len ceiling, slices, and the .npy form.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "core/learned.hpp"
#include "core/npy.hpp"
#include "core/random.hpp"

using namespace posviz;
namespace fs = std::filesystem;

namespace {
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) {
    path = fs::temp_directory_path() / ("posviz-test-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& n) const { return (path / n).string(); }
};
}  // namespace

TEST_CASE("learned: init is deterministic per seed and differs between seeds") {
  const Grid a = learnedInit(16, 8, 1234);
  const Grid b = learnedInit(16, 8, 1234);
  const Grid c = learnedInit(16, 8, 1235);
  CHECK(a.rows == 16);
  CHECK(a.cols == 8);
  CHECK(a.values == b.values);
  CHECK(a.values != c.values);
  // The draws are posviz::Rng normals times stddev, row-major.
  Rng r(1234);
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    CAPTURE(i);
    CHECK(a.values[i] == static_cast<float>(r.normal() * 0.02));
  }
  // A longer table with the same seed starts with the same rows.
  const Grid longer = learnedInit(32, 8, 1234);
  for (int pos = 0; pos < 16; ++pos)
    for (int dim = 0; dim < 8; ++dim) CHECK(longer.at(pos, dim) == a.at(pos, dim));
  // stddev 0 gives zeros.
  for (float v : learnedInit(4, 4, 1, 0.0).values) CHECK(v == 0.0f);
}

TEST_CASE("learned: a table large enough to be drawn on several threads has the one stream's bits") {
  // 1024 x 4096 float32 = 16 MiB: past the size learnedInit splits over threads.
  const Grid g = learnedInit(1024, 4096, 11, 0.5);
  Rng rng(11);
  std::size_t mismatches = 0;
  for (float v : g.values) mismatches += v == static_cast<float>(rng.normal() * 0.5) ? 0 : 1;
  CHECK(mismatches == 0);
}

TEST_CASE("learned: any rows of the seeded table can be drawn alone, with the whole table's bits") {
  for (int d : {6, 7}) {   // 7: rows start in the middle of a normal pair every other row
    CAPTURE(d);
    const Grid whole = learnedInit(40, d, 5, 0.3);
    for (const auto& [b, e] : {std::pair{0LL, 40LL}, std::pair{3LL, 4LL}, std::pair{17LL, 29LL}, std::pair{39LL, 40LL}}) {
      std::vector<float> rows(static_cast<std::size_t>((e - b) * d));
      learnedInitRowsInto(d, 5, 0.3, b, e, rows.data());
      for (long long r = b; r < e; ++r)
        for (int c = 0; c < d; ++c)
          CHECK(rows[static_cast<std::size_t>((r - b) * d + c)] == whole.at(static_cast<int>(r), c));
    }
  }
  const Grid seven = learnedInit(40, 7, 5, 0.3);
  for (int r : {0, 1, 20, 39})
    for (int c : {0, 3, 6}) CHECK(learnedInitCell(7, 5, 0.3, r, c) == seven.at(r, c));
  CHECK_THROWS_WITH_AS(learnedInitCell(7, 5, 0.3, 0, 7), doctest::Contains("col"), std::invalid_argument);
  float one = 0.0f;
  CHECK_THROWS_WITH_AS(learnedInitRowsInto(4, 0, 0.02, 5, 4, &one), doctest::Contains("rowEnd"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(learnedInitRowsInto(0, 0, 0.02, 0, 1, &one), doctest::Contains("dModel"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(learnedInitRowsInto(4, 0, 0.02, 0, 1, nullptr), doctest::Contains("out"), std::invalid_argument);
}

TEST_CASE("learned: std is about 0.02 (GPT-2's initializer) over a big table") {
  const Grid g = learnedInit(1024, 256, 7);
  double sum = 0, sumSq = 0;
  for (float v : g.values) {
    sum += v;
    sumSq += static_cast<double>(v) * v;
  }
  const double n = static_cast<double>(g.values.size());
  const double mean = sum / n;
  const double sd = std::sqrt(sumSq / n - mean * mean);
  // 262144 draws: standard error of the sd is 0.02/sqrt(2n) = 2.8e-5; bounds are ~10 sigma.
  CHECK(std::fabs(sd - 0.02) < 3e-4);
  CHECK(std::fabs(mean) < 4e-4);
}

TEST_CASE("learned: lookup returns the row and fails at or past max_len") {
  const Grid t = learnedInit(512, 4, 3);
  const std::vector<float> r = learnedLookup(t, 511);
  REQUIRE(r.size() == 4);
  for (int dim = 0; dim < 4; ++dim) CHECK(r[static_cast<std::size_t>(dim)] == t.at(511, dim));
  CHECK_THROWS_WITH_AS(learnedLookup(t, 1024), "learnedLookup: pos 1024 has no row: the table has max_len 512 (rows 0..511)",
                       std::out_of_range);
  CHECK_THROWS_WITH_AS(learnedLookup(t, 512), "learnedLookup: pos 512 has no row: the table has max_len 512 (rows 0..511)",
                       std::out_of_range);
  CHECK_THROWS_WITH_AS(learnedLookup(t, -1), "learnedLookup: pos must be >= 0, got -1", std::invalid_argument);
}

TEST_CASE("learned: slices copy rows and respect the ceiling") {
  const Grid t = learnedInit(10, 3, 5);
  const Grid s = learnedSlice(t, 7, 3);
  CHECK(s.rows == 3);
  CHECK(s.cols == 3);
  for (int pos = 0; pos < 3; ++pos)
    for (int dim = 0; dim < 3; ++dim) CHECK(s.at(pos, dim) == t.at(7 + pos, dim));
  CHECK_THROWS_WITH_AS(learnedSlice(t, 8, 3), "learnedSlice: pos 10 has no row: the table has max_len 10 (rows 0..9)", std::out_of_range);
  CHECK_THROWS_WITH_AS(learnedSlice(t, 10, 1), "learnedSlice: pos 10 has no row: the table has max_len 10 (rows 0..9)", std::out_of_range);
  CHECK_THROWS_WITH_AS(learnedSlice(t, 0, 0), "learnedSlice: numPositions must be > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(learnedSlice(t, -2, 1), "learnedSlice: firstPos must be >= 0, got -2", std::invalid_argument);
}

TEST_CASE("learned: save and load as .npy round-trip, float32 and float64") {
  TempDir dir("learned");
  const Grid t = learnedInit(20, 6, 11);
  saveLearnedTable(dir.file("t.npy"), t);
  const Grid back = loadLearnedTable(dir.file("t.npy"));
  CHECK(back.rows == 20);
  CHECK(back.cols == 6);
  CHECK(back.values == t.values);
  CHECK(readNpy(dir.file("t.npy")).sourceType == DType::F32);

  std::vector<double> d(12);
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = 0.1 * static_cast<double>(i) - 0.35;
  writeNpy(dir.file("d.npy"), {3, 4}, d.data());
  const Grid g = loadLearnedTable(dir.file("d.npy"));
  CHECK(g.rows == 3);
  CHECK(g.cols == 4);
  for (std::size_t i = 0; i < d.size(); ++i) CHECK(g.values[i] == static_cast<float>(d[i]));
}

TEST_CASE("learned: loading rejects non-tables with messages") {
  TempDir dir("learned-bad");
  const float f[6] = {1, 2, 3, 4, 5, 6};
  writeNpy(dir.file("v.npy"), {6}, f);
  CHECK_THROWS_WITH_AS(loadLearnedTable(dir.file("v.npy")),
                       (dir.file("v.npy") + ": a learned table must be 2-D (max_len x d_model), got shape (6,)").c_str(), NpyError);
  writeNpy(dir.file("z.npy"), {0, 6}, f);
  CHECK_THROWS_WITH_AS(loadLearnedTable(dir.file("z.npy")),
                       (dir.file("z.npy") + ": a learned table needs at least one row and one column, got shape (0, 6)").c_str(), NpyError);
  CHECK_THROWS_WITH_AS(loadLearnedTable(dir.file("missing.npy")),
                       (dir.file("missing.npy") + ": cannot open: No such file or directory").c_str(), NpyError);
}

TEST_CASE("learned: bad arguments") {
  CHECK_THROWS_WITH_AS(learnedInit(0, 4, 1), "learnedInit: maxLen must be > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(learnedInit(4, -1, 1), "learnedInit: dModel must be > 0, got -1", std::invalid_argument);
  CHECK_THROWS_WITH_AS(learnedInit(4, 4, 1, std::nan("")), "learnedInit: stddev must be a finite number >= 0, got nan", std::invalid_argument);
  CHECK_THROWS_WITH_AS(learnedInit(4, 4, 1, -0.5), "learnedInit: stddev must be a finite number >= 0, got -0.5", std::invalid_argument);
  Grid broken(2, 2);
  broken.values.pop_back();
  CHECK_THROWS_WITH_AS(learnedLookup(broken, 0), "learnedLookup: table.values must hold rows * cols = 4 values, got 3", std::invalid_argument);
  CHECK_THROWS_WITH_AS(learnedLookup(Grid{}, 0), "learnedLookup: table.rows must be > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(saveLearnedTable("/tmp/never.npy", Grid{}), "saveLearnedTable: table.rows must be > 0, got 0", std::invalid_argument);
  const std::uint64_t saved = memoryBudgetBytes();
  setMemoryBudgetBytes(1024);
  CHECK_THROWS_WITH_AS(learnedInit(512, 4, 1), "learnedInit: a grid of 512 x 4 x float32 needs 8.0 KiB, over the memory budget of 1.0 KiB",
                       std::invalid_argument);
  setMemoryBudgetBytes(saved);
}

TEST_CASE("learned: similarity is the cosine of every two rows, against a direct sum") {
  // Hand values: rows (1, 0), (0, 1), (1, 1), (0, 0).
  Grid hand(4, 2);
  hand.at(0, 0) = 1.0f;
  hand.at(1, 1) = 1.0f;
  hand.at(2, 0) = 1.0f;
  hand.at(2, 1) = 1.0f;
  const Grid s = learnedSimilarity(hand);
  REQUIRE(s.rows == 4);
  REQUIRE(s.cols == 4);
  CHECK(s.at(0, 0) == 1.0f);
  CHECK(s.at(0, 1) == 0.0f);
  CHECK(s.at(0, 2) == doctest::Approx(1.0 / std::sqrt(2.0)));
  CHECK(s.at(2, 1) == doctest::Approx(1.0 / std::sqrt(2.0)));
  CHECK(s.at(3, 3) == 0.0f);  // a zero row is like nothing
  CHECK(s.at(3, 0) == 0.0f);

  // A seeded table: each entry against a long double sum written out here.
  const Grid t = learnedInit(37, 9, 5, 0.5);
  const Grid sim = learnedSimilarity(t);
  for (int a = 0; a < t.rows; ++a) {
    for (int b = 0; b < t.rows; ++b) {
      long double dot = 0, na = 0, nb = 0;
      for (int c = 0; c < t.cols; ++c) {
        dot += static_cast<long double>(t.at(a, c)) * t.at(b, c);
        na += static_cast<long double>(t.at(a, c)) * t.at(a, c);
        nb += static_cast<long double>(t.at(b, c)) * t.at(b, c);
      }
      const double want = static_cast<double>(dot / std::sqrt(na * nb));
      CHECK(sim.at(a, b) == doctest::Approx(want).epsilon(1e-6));
    }
  }
  CHECK_THROWS_AS(learnedSimilarity(Grid(0, 3)), std::invalid_argument);
}
