// posviz export t5-buckets / xpos-scale / kerple-bias / fire-bias (app/cli/views/relative.cpp):
// the files hold the reference implementations' numbers, in the layout the view table documents,
// and bad values are refused naming the flag and its range.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/npy.hpp"
#include "tests/support/cli_support.hpp"
#include "tests/support/export_support.hpp"

namespace fs = std::filesystem;
using posviz::test::runCli;

namespace {

fs::path scratch(const std::string& name) { return posviz::test::exportScratch("relative_views_" + name); }

std::string readBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// An int32 .npy (readNpy reads floats only): the header's dtype and shape, then the values.
struct IntNpy {
  std::string header;
  std::vector<std::int32_t> values;
};

IntNpy readInt32Npy(const fs::path& p, std::size_t count) {
  const std::string bytes = readBytes(p);
  IntNpy a;
  REQUIRE(bytes.size() >= 10 + 4 * count);
  REQUIRE(bytes.compare(0, 6, "\x93NUMPY") == 0);
  const std::size_t headerLen = static_cast<unsigned char>(bytes[8]) | static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8;
  a.header = bytes.substr(10, headerLen);
  REQUIRE(bytes.size() == 10 + headerLen + 4 * count);
  a.values.resize(count);
  std::memcpy(a.values.data(), bytes.data() + 10 + headerLen, 4 * count);   // '<i4' on a little-endian host
  return a;
}

}  // namespace

TEST_SUITE("relative_views") {

// Expected grids: HF transformers src/transformers/models/t5/modeling_t5.py,
// T5Attention._relative_position_bucket(memory_position - context_position, bidirectional,
// num_buckets, max_distance), as compute_bias calls it, restated in torch 1.13 (the function's own
// lines, arange(12) for query and key positions). Each row i is bucket(j - i), so the first row
// (j - i >= 0) and the first column (j - i <= 0) determine the grid; both are checked whole.
TEST_CASE("relative_views: t5-buckets writes HF's bucket ids for relative_position = j - i, as int32") {
  const fs::path dir = scratch("t5");
  SUBCASE("bidirectional, 8 buckets, max_distance 20") {
    const auto run = runCli({"export", "t5-buckets", "--positions", "12", "--num-buckets", "8", "--max-distance", "20", "-o",
                             (dir / "b.npy").string()});
    REQUIRE(run.code == 0);
    const IntNpy a = readInt32Npy(dir / "b.npy", 144);
    CHECK(a.header.find("'descr': '<i4'") != std::string::npos);
    CHECK(a.header.find("'shape': (12, 12)") != std::string::npos);
    const std::vector<int> row0 = {0, 5, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7};   // j - i = 0 .. 11
    const std::vector<int> col0 = {0, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3};   // j - i = 0 .. -11
    for (int i = 0; i < 12; ++i) {
      for (int j = 0; j < 12; ++j) {
        CAPTURE(i);
        CAPTURE(j);
        const int expected = j >= i ? row0[static_cast<std::size_t>(j - i)] : col0[static_cast<std::size_t>(i - j)];
        CHECK(a.values[static_cast<std::size_t>(i * 12 + j)] == expected);
      }
    }
  }
  SUBCASE("causal, 7 buckets (odd is allowed), max_distance 10: the future is bucket 0") {
    const auto run = runCli({"export", "t5-buckets", "--positions", "12", "--num-buckets", "7", "--max-distance", "10",
                             "--causal", "-o", (dir / "c.npy").string()});
    REQUIRE(run.code == 0);
    const IntNpy a = readInt32Npy(dir / "c.npy", 144);
    const std::vector<int> col0 = {0, 1, 2, 3, 3, 4, 5, 5, 6, 6, 6, 6};   // j - i = 0 .. -11
    for (int i = 0; i < 12; ++i) {
      for (int j = 0; j < 12; ++j) {
        CAPTURE(i);
        CAPTURE(j);
        CHECK(a.values[static_cast<std::size_t>(i * 12 + j)] == (j >= i ? 0 : col0[static_cast<std::size_t>(i - j)]));
      }
    }
  }
}

TEST_CASE("relative_views: t5-buckets .csv and .json hold the same ids, .png and .svg draw them") {
  const fs::path dir = scratch("t5_formats");
  const std::vector<std::string> base = {"export", "t5-buckets", "--positions", "5", "--num-buckets", "4", "--max-distance", "8"};
  for (const char* ext : {"b.csv", "b.json", "b.png", "b.svg"}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"-o", (dir / ext).string()});
    CAPTURE(ext);
    CHECK(runCli(args).code == 0);
    CHECK(fs::file_size(dir / ext) > 0);
  }
  // 4 buckets bidirectional: 2 per side, exact range 1: offset 0 -> 0, past -> 1, future -> 3.
  const std::string csv = readBytes(dir / "b.csv");
  CHECK(csv.find("0,3,3,3,3\n1,0,3,3,3\n") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(readBytes(dir / "b.json"));
  CHECK(j["dtype"] == "int32");
  CHECK(j["shape"] == nlohmann::json::array({5, 5}));
  CHECK(j["values"][4] == nlohmann::json::array({1, 1, 1, 1, 0}));
  CHECK(j["params"]["num_buckets"] == 4);
  CHECK(j["params"]["bidirectional"] == true);
}

TEST_CASE("relative_views: t5-buckets refuses bad values naming the flag and the allowed range") {
  const fs::path dir = scratch("t5_errors");
  const std::string out = (dir / "b.npy").string();
  auto err = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"export", "t5-buckets"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"-o", out});
    const auto run = runCli(args);
    CHECK(run.code == 2);
    return run.err;
  };
  CHECK(err({"--num-buckets", "3"}).find("numBuckets 3 leaves no exact bucket per direction") != std::string::npos);
  CHECK(err({"--num-buckets", "1"}).find("--num-buckets") != std::string::npos);
  CHECK(err({"--num-buckets", "70000"}).find("65536") != std::string::npos);
  // 32 buckets bidirectional: 16 per side, exact range 8, so max_distance must be at least 9.
  CHECK(err({"--max-distance", "8"}).find("--max-distance") != std::string::npos);
  CHECK(err({"--max-distance", "8"}).find("[9, 2147483647]") != std::string::npos);
  CHECK(err({"--num-buckets", "1024"}).find("--max-distance: the default 128 is within the exact range 256") != std::string::npos);
  CHECK(err({"--dtype", "f64"}).find("--dtype") != std::string::npos);
  CHECK(err({"--scale-base", "3"}).find("--scale-base: does not apply to view t5-buckets") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

// Expected scales: microsoft/torchscale, torchscale/component/xpos_relative_position.py, class XPOS:
// scale = (arange(0, head_dim, 2) + 0.4 * head_dim) / (1.4 * head_dim), raised to
// arange(...).div(scale_base)[:, None], here with positions 0 .. T-1 (the paper's n; XPOS.forward
// uses min_pos = -(length + offset) // 2 .. instead, which multiplies every query row and divides
// every key row by the same zeta^(min_pos / scale_base), so a q.k product is unchanged). Derived
// with torch 1.13: float64 for the small case, float32 (as XPOS runs) for head_dim 128.
TEST_CASE("relative_views: xpos-scale writes zeta_i^(n / scale_base), torchscale's XPOS scale before centring") {
  const fs::path dir = scratch("xpos");
  SUBCASE("head_dim 8, scale_base 4, float64") {
    REQUIRE(runCli({"export", "xpos-scale", "--head-dim", "8", "--positions", "6", "--scale-base", "4", "--dtype", "f64", "-o",
                    (dir / "s.npy").string()}).code == 0);
    const posviz::NpyArray a = posviz::readNpy((dir / "s.npy").string());
    CHECK(a.sourceType == posviz::DType::F64);
    REQUIRE(a.shape == std::vector<std::int64_t>{6, 4});
    const double row1[4] = {0.7311104457090247, 0.8254605646966104, 0.8954237688029468, 0.9520120625154734};
    const double row5[4] = {0.2088886987740071, 0.3832495478948549, 0.5756295656590373, 0.7820099084948532};
    for (int i = 0; i < 4; ++i) {
      CAPTURE(i);
      CHECK(a.data[static_cast<std::size_t>(i)] == 1.0f);   // n = 0: no scaling
      CHECK(a.data[static_cast<std::size_t>(4 + i)] == doctest::Approx(row1[i]).epsilon(1e-7));   // readNpy rounds to float
      CHECK(a.data[static_cast<std::size_t>(20 + i)] == doctest::Approx(row5[i]).epsilon(1e-7));
    }
    // Centring (torchscale's min_pos = -3 for 6 positions) keeps ratios between positions: row 5 / row 1
    // of pair 0 is zeta_0^(4/4) = 2/7 either way.
    CHECK(a.data[20] / a.data[4] == doctest::Approx(2.0 / 7.0).epsilon(1e-6));
  }
  SUBCASE("the key side and torchscale's centred positions") {
    // XPOS.forward(k, downscale=True) for 6 tokens: rows n = -(6) // 2 = -3 .. 2, each 1 / zeta^(n/4).
    REQUIRE(runCli({"export", "xpos-scale", "--head-dim", "8", "--positions", "6", "--scale-base", "4", "--side", "key",
                    "--torchscale-positions", "--dtype", "f64", "-o", (dir / "k.json").string()}).code == 0);
    std::ifstream in(dir / "k.json");
    std::stringstream ss;
    ss << in.rdbuf();
    const nlohmann::json k = nlohmann::json::parse(ss.str());
    CHECK(k["params"]["first_position"] == -3);
    CHECK(k["params"]["side"] == "key");
    // Pair 0, zeta_0 = 2/7: n = -3 gives (2/7)^(3/4), n = 2 gives (2/7)^(-1/2); n = 0 (row 3) gives 1.
    CHECK(k["values"][0][0].get<double>() == doctest::Approx(std::pow(2.0 / 7.0, 0.75)).epsilon(1e-12));
    CHECK(k["values"][5][0].get<double>() == doctest::Approx(std::pow(2.0 / 7.0, -0.5)).epsilon(1e-12));
    CHECK(k["values"][3][2].get<double>() == 1.0);
    // The query side of the same call times the key side of another row is zeta^((n - m)/4):
    REQUIRE(runCli({"export", "xpos-scale", "--head-dim", "8", "--positions", "6", "--scale-base", "4",
                    "--torchscale-positions", "--dtype", "f64", "-o", (dir / "q.json").string()}).code == 0);
    std::ifstream qin(dir / "q.json");
    std::stringstream qs;
    qs << qin.rdbuf();
    const nlohmann::json q = nlohmann::json::parse(qs.str());
    CHECK(q["values"][5][1].get<double>() * k["values"][1][1].get<double>() ==
          doctest::Approx(std::pow((2.0 + 3.2) / 11.2, 4.0 / 4.0)).epsilon(1e-12));
    const auto both = runCli({"export", "xpos-scale", "--torchscale-positions", "--position", "3", "-o", (dir / "x.npy").string()});
    CHECK(both.code == 2);
    CHECK(both.err.find("give it or --position, not both") != std::string::npos);
  }
  SUBCASE("head_dim 128, scale_base 512 (the default), 1024 positions, float32") {
    REQUIRE(runCli({"export", "xpos-scale", "--head-dim", "128", "--positions", "1024", "-o", (dir / "d.npy").string()}).code == 0);
    const posviz::NpyArray a = posviz::readNpy((dir / "d.npy").string());
    REQUIRE(a.shape == std::vector<std::int64_t>{1024, 64});
    CHECK(a.data[1023 * 64 + 0] == doctest::Approx(0.0818326473236084).epsilon(2e-6));
    CHECK(a.data[1023 * 64 + 63] == doctest::Approx(0.9778245091438293).epsilon(2e-6));
    CHECK(a.data[100 * 64 + 10] == doctest::Approx(0.835040271282196).epsilon(2e-6));
  }
  SUBCASE("--position shifts n; .json and .png write") {
    REQUIRE(runCli({"export", "xpos-scale", "--head-dim", "8", "--positions", "2", "--position", "5", "--scale-base", "4", "-o",
                    (dir / "s.json").string()}).code == 0);
    const nlohmann::json j = nlohmann::json::parse(readBytes(dir / "s.json"));
    CHECK(j["shape"] == nlohmann::json::array({2, 4}));
    CHECK(j["values"][0][0].get<double>() == doctest::Approx(0.2088886987740071).epsilon(1e-6));   // n = 5
    CHECK(j["params"]["scale_base"] == 4.0);
    CHECK(runCli({"export", "xpos-scale", "--head-dim", "16", "--positions", "32", "-o", (dir / "s.png").string()}).code == 0);
  }
}

TEST_CASE("relative_views: xpos-scale refuses bad values naming the flag and the allowed range") {
  const fs::path dir = scratch("xpos_errors");
  const std::string out = (dir / "s.npy").string();
  auto err = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"export", "xpos-scale"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"-o", out});
    const auto run = runCli(args);
    CHECK(run.code == 2);
    return run.err;
  };
  CHECK(err({"--head-dim", "7"}).find("--head-dim: got \"7\", expected an even integer in [2, 1048576]") != std::string::npos);
  CHECK(err({"--scale-base", "0"}).find("--scale-base") != std::string::npos);
  CHECK(err({"--scale-base", "-5"}).find("--scale-base") != std::string::npos);
  CHECK(err({"--num-buckets", "8"}).find("--num-buckets: does not apply to view xpos-scale") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

// KERPLE: chijames/KERPLE, megatron/mpu/layers.py, ParallelKerpleLog.forward (-bias_p*log(1 + bias_a*diff))
// and ParallelKerplePower.forward (-bias_a*diff^bias_p), diff = tril(i - j), torch 1.13 float32.
TEST_CASE("relative_views: kerple-bias writes the reference's causal bias, -inf above the diagonal") {
  const fs::path dir = scratch("kerple");
  REQUIRE(runCli({"export", "kerple-bias", "--positions", "5", "--r1", "1.3", "--r2", "0.7", "--causal", "-o",
                  (dir / "log.npy").string()}).code == 0);
  REQUIRE(runCli({"export", "kerple-bias", "--positions", "5", "--kernel", "power", "--r1", "0.25", "--r2", "1.5", "--causal",
                  "-o", (dir / "pow.npy").string()}).code == 0);
  const posviz::NpyArray lg = posviz::readNpy((dir / "log.npy").string());
  const posviz::NpyArray pw = posviz::readNpy((dir / "pow.npy").string());
  REQUIRE(lg.shape == std::vector<std::int64_t>{5, 5});
  const double logRow[5] = {-1.7355014085769653, -1.4708226919174194, -1.1381093263626099, -0.6898167133331299, 0.0};
  const double powRow[5] = {-2.0, -1.299038052558899, -0.7071067690849304, -0.25, 0.0};
  for (int j = 0; j < 5; ++j) {
    CAPTURE(j);
    CHECK(lg.data[static_cast<std::size_t>(20 + j)] == doctest::Approx(logRow[j]).epsilon(1e-6));
    CHECK(pw.data[static_cast<std::size_t>(20 + j)] == doctest::Approx(powRow[j]).epsilon(1e-6));
  }
  CHECK(lg.data[1] == -std::numeric_limits<float>::infinity());   // (0, 1): masked
  // Symmetric (no --causal): |i - j| on both sides.
  REQUIRE(runCli({"export", "kerple-bias", "--positions", "5", "--r1", "1.3", "--r2", "0.7", "-o", (dir / "sym.csv").string()}).code == 0);
  const std::string csv = readBytes(dir / "sym.csv");
  CHECK(csv.find("0,-0.68981") != std::string::npos);   // row 0 starts 0, -1.3 log 1.7
  CHECK(runCli({"export", "kerple-bias", "--positions", "8", "--causal", "-o", (dir / "k.png").string()}).code == 0);
}

TEST_CASE("relative_views: fire-bias is the formula applied with the MLP weights its .json records") {
  const fs::path dir = scratch("fire");
  REQUIRE(runCli({"export", "fire-bias", "--positions", "12", "--fire-c", "0.5", "--fire-threshold", "4", "--fire-hidden", "8",
                  "--seed", "11", "-o", (dir / "f.json").string()}).code == 0);
  REQUIRE(runCli({"export", "fire-bias", "--positions", "12", "--fire-c", "0.5", "--fire-threshold", "4", "--fire-hidden", "8",
                  "--seed", "11", "-o", (dir / "f.npy").string()}).code == 0);
  const nlohmann::json j = nlohmann::json::parse(readBytes(dir / "f.json"));
  const auto w1 = j["mlp"]["w1"].get<std::vector<double>>(), b1 = j["mlp"]["b1"].get<std::vector<double>>(),
             w2 = j["mlp"]["w2"].get<std::vector<double>>();
  const double b2 = j["mlp"]["b2"].get<double>();
  REQUIRE(w1.size() == 8);
  const posviz::NpyArray a = posviz::readNpy((dir / "f.npy").string());
  REQUIRE(a.shape == std::vector<std::int64_t>{12, 12});
  for (int i = 0; i < 12; ++i) {
    for (int k = 0; k < 12; ++k) {
      CAPTURE(i);
      CAPTURE(k);
      const float v = a.data[static_cast<std::size_t>(i * 12 + k)];
      if (k > i) {
        CHECK(v == -std::numeric_limits<float>::infinity());
        CHECK(j["values"][static_cast<std::size_t>(i)][static_cast<std::size_t>(k)].is_null());
        continue;
      }
      // Li et al. 2023 eq. (2)-(4) as their FIRE module computes it: x = log(c (i - j) + 1) /
      // (log(c max(L, i) + 1) + 1e-6), then the MLP.
      const double x = std::log(0.5 * (i - k) + 1.0) / (std::log(0.5 * std::max(4.0, static_cast<double>(i)) + 1.0) + 1e-6);
      double y = b2;
      for (std::size_t u = 0; u < 8; ++u) y += w2[u] * std::max(0.0, w1[u] * x + b1[u]);
      CHECK(v == doctest::Approx(y).epsilon(1e-6));
    }
  }
  // The defaults are the reference module's: c 0.1, L 512, 32 hidden units.
  REQUIRE(runCli({"export", "fire-bias", "--positions", "4", "-o", (dir / "d.json").string()}).code == 0);
  const nlohmann::json d = nlohmann::json::parse(readBytes(dir / "d.json"));
  CHECK(d["params"]["c"] == 0.1);
  CHECK(d["params"]["threshold"] == 512.0);
  CHECK(d["params"]["hidden"] == 32);
  // Another seed, other weights, another grid.
  REQUIRE(runCli({"export", "fire-bias", "--positions", "12", "--seed", "12", "-o", (dir / "g.npy").string()}).code == 0);
  CHECK(posviz::readNpy((dir / "g.npy").string()).data != a.data);
  CHECK(runCli({"export", "fire-bias", "--positions", "32", "-o", (dir / "f.png").string()}).code == 0);
}

TEST_CASE("relative_views: kerple-bias and fire-bias refuse bad values naming the flag and the allowed range") {
  const fs::path dir = scratch("bias_errors");
  const std::string out = (dir / "b.npy").string();
  auto err = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "export");
    args.insert(args.end(), {"-o", out});
    const auto run = runCli(args);
    CHECK(run.code == 2);
    return run.err;
  };
  CHECK(err({"kerple-bias", "--kernel", "cubic"}).find("--kernel") != std::string::npos);
  CHECK(err({"kerple-bias", "--r1", "0"}).find("--r1") != std::string::npos);
  CHECK(err({"kerple-bias", "--kernel", "power", "--r2", "2.5"}).find("--r2: got \"2.5\", expected a number in (0, 2] for --kernel power") !=
        std::string::npos);
  CHECK(err({"kerple-bias", "--r2", "-1"}).find("--r2: got \"-1\", expected a number in (0, 1e6]") != std::string::npos);
  CHECK(err({"fire-bias", "--fire-c", "0"}).find("--fire-c") != std::string::npos);
  CHECK(err({"fire-bias", "--fire-threshold", "0.5"}).find("--fire-threshold") != std::string::npos);
  CHECK(err({"fire-bias", "--fire-hidden", "0"}).find("--fire-hidden") != std::string::npos);
  CHECK(err({"fire-bias", "--causal"}).find("--causal: does not apply to view fire-bias") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

}  // TEST_SUITE
