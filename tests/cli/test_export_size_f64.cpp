// `posviz export VIEW --size WxH --dtype f64`: the averaged picture's means are computed in double
// (core/exact_average.hpp, *ExactPicture) and written as float64, not the float32 picture widened.
// Each is checked against a brute-force mean of the view's own double-precision cells.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/area_average.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"
#include "tests/support/cli_support.hpp"

namespace fs = std::filesystem;

namespace {

using posviz::test::CliRun;
using posviz::test::runCli;

// Runs `posviz export ARGS --dtype f64 -o OUT.json` and returns the rows x cols values.
std::vector<std::vector<double>> exportF64(const std::string& name, std::vector<std::string> args) {
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "cli_size_f64";
  fs::create_directories(dir);
  const fs::path out = dir / (name + ".json");
  args.insert(args.begin(), "export");
  args.insert(args.end(), {"--dtype", "f64", "-o", out.string()});
  const CliRun run = runCli(args);
  REQUIRE_MESSAGE(run.code == 0, run.err);
  std::ifstream in(out);
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j.at("dtype") == "float64");
  return j.at("values").get<std::vector<std::vector<double>>>();
}

// Brute-force mean of cell(r, c) over display cell (i, j) of a rows x cols grid at H x W.
template <class Cell>
double bruteMean(long long rows, long long cols, int H, int W, int i, int j, Cell&& cell) {
  const long long r0 = posviz::areaCellBegin(rows, H, i), r1 = posviz::areaCellBegin(rows, H, i + 1);
  const long long c0 = posviz::areaCellBegin(cols, W, j), c1 = posviz::areaCellBegin(cols, W, j + 1);
  double s = 0.0;
  for (long long r = r0; r < r1; ++r)
    for (long long c = c0; c < c1; ++c) s += cell(r, c);
  return s / static_cast<double>((r1 - r0) * (c1 - c0));
}

// True when some value is not a float32 number: the values were not computed in float32.
bool holdsDoubles(const std::vector<std::vector<double>>& v) {
  for (const auto& row : v)
    for (double x : row)
      if (static_cast<double>(static_cast<float>(x)) != x) return true;
  return false;
}

}  // namespace

TEST_SUITE("cli") {

TEST_CASE("--size --dtype f64: sinusoidal means are double-precision means of the double cells") {
  const auto got = exportF64("sinusoidal", {"sinusoidal", "--d-model", "8", "--positions", "1000", "--size", "4x3"});
  REQUIRE(got.size() == 3);
  REQUIRE(got[0].size() == 4);
  posviz::SinusoidalParams p;
  p.dModel = 8;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      const double want = bruteMean(1000, 8, 3, 4, i, j, [&](long long r, long long c) {
        return posviz::sinusoidalVector(p, static_cast<double>(r))[static_cast<std::size_t>(c)];
      });
      CHECK(std::fabs(got[i][j] - want) <= 1e-12);
    }
  CHECK(holdsDoubles(got));
}

TEST_CASE("--size --dtype f64: RoPE score means match brute force to 1e-12") {
  const auto got = exportF64("scores", {"rope-scores", "--head-dim", "8", "--positions", "600", "--size", "5x5",
                                        "--q", "1,0.5,-0.25,2,0.75,-1,0.5,0.125"});
  REQUIRE(got.size() == 5);
  posviz::RopeParams p;
  p.headDim = 8;
  const std::vector<float> q = {1, 0.5f, -0.25f, 2, 0.75f, -1, 0.5f, 0.125f};
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      const double want = bruteMean(600, 600, 5, 5, i, j, [&](long long m, long long n) {
        return posviz::ropeScore(p, q, q, static_cast<double>(m), static_cast<double>(n));
      });
      CHECK(std::fabs(got[i][j] - want) <= 1e-12 * std::max(1.0, std::fabs(want)));
    }
  CHECK(holdsDoubles(got));
}

TEST_CASE("--size --dtype f64: ALiBi means are the exact rationals, for --slope and --head") {
  // Slope 0.5, 7 x 7 grid at 3 x 2: row blocks {0,1}, {2,3}, {4,5,6}; column blocks {0,1,2}, {3,4,5,6}.
  const auto got = exportF64("alibi", {"alibi-bias", "--slope", "0.5", "--positions", "7", "--size", "2x3"});
  REQUIRE(got.size() == 3);
  REQUIRE(got[0].size() == 2);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      const double want = bruteMean(7, 7, 3, 2, i, j, [](long long r, long long c) { return -0.5 * std::fabs(double(r - c)); });
      CHECK(got[i][j] == want);
    }
  // Block (0, 1): rows 0-1 x cols 3-6, |i - j| sums to (3+4+5+6) + (2+3+4+5) = 32 over 8 cells: bias -2.
  CHECK(got[0][1] == -2.0);
  // --slope 0.3 (no default head has it) and --head 3 of 8 (slope 2^-3, heads numbered from 1).
  CHECK(exportF64("alibi-slope", {"alibi-bias", "--slope", "0.3", "--positions", "7", "--size", "2x3"})[0][1] ==
        doctest::Approx(-1.2).epsilon(1e-15));
  CHECK(exportF64("alibi-head", {"alibi-bias", "--heads", "8", "--head", "3", "--positions", "7", "--size", "2x3"})[0][1] ==
        -0.5);
}

}  // TEST_SUITE
