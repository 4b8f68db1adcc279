// posviz export shaw-scores / txl-terms (app/cli/views/relative_scores.cpp): the files hold
// core's numbers in the documented layout (shaw: row = query i, col = key j; txl: (4, T, T) with
// term t at [t]), and bad values are refused naming the flag.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/npy.hpp"
#include "core/shaw_relative.hpp"
#include "core/txl_relative.hpp"
#include "tests/support/cli_support.hpp"
#include "tests/support/export_support.hpp"

namespace fs = std::filesystem;
using posviz::test::runCli;
using namespace posviz;

namespace {

fs::path scratch(const std::string& name) { return test::exportScratch("relative_scores_" + name); }

std::string readBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The int32 payload of a small .npy (readNpy reads floats only), after checking the header.
std::vector<std::int32_t> readInt32(const fs::path& p, std::size_t count, const std::string& shape) {
  const std::string bytes = readBytes(p);
  REQUIRE(bytes.size() >= 10 + 4 * count);
  const std::size_t headerLen = static_cast<unsigned char>(bytes[8]) | static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8;
  const std::string header = bytes.substr(10, headerLen);
  CHECK(header.find("'<i4'") != std::string::npos);
  CHECK(header.find("'shape': " + shape) != std::string::npos);
  REQUIRE(bytes.size() == 10 + headerLen + 4 * count);
  std::vector<std::int32_t> v(count);
  std::memcpy(v.data(), bytes.data() + 10 + headerLen, 4 * count);
  return v;
}

double dotRow(const std::vector<double>& a, int ra, const std::vector<double>& b, int rb, int d) {
  double s = 0.0;
  for (int c = 0; c < d; ++c) s += a[static_cast<std::size_t>(ra * d + c)] * b[static_cast<std::size_t>(rb * d + c)];
  return s;
}

}  // namespace

TEST_SUITE("relative_scores") {

TEST_CASE("shaw-scores --indices: Shaw's clip(j - i, k) + k and BERT's i - j + T - 1, as int32") {
  const fs::path dir = scratch("indices");
  REQUIRE(runCli({"export", "shaw-scores", "--positions", "5", "--clip", "1", "--indices", "-o", (dir / "s.npy").string()}).code == 0);
  const std::vector<std::int32_t> s = readInt32(dir / "s.npy", 25, "(5, 5)");
  // Row 2: keys 0..4 are j - i = -2, -1, 0, 1, 2 -> clipped to -1, -1, 0, 1, 1 -> rows 0, 0, 1, 2, 2.
  CHECK(std::vector<std::int32_t>(s.begin() + 10, s.begin() + 15) == std::vector<std::int32_t>{0, 0, 1, 2, 2});
  REQUIRE(runCli({"export", "shaw-scores", "--positions", "3", "--variant", "relative_key_query", "--indices", "-o",
                  (dir / "b.npy").string()}).code == 0);
  // BERT: distance = position_ids_l - position_ids_r = i - j, plus max_position_embeddings - 1 = 2.
  CHECK(readInt32(dir / "b.npy", 9, "(3, 3)") == std::vector<std::int32_t>{2, 1, 0, 3, 2, 1, 4, 3, 2});
}

TEST_CASE("shaw-scores: the seeded q.k + q.a^K (Shaw) and q.k + q.E + k.E (relative_key_query), row = query i") {
  const fs::path dir = scratch("scores");
  const int t = 6, d = 4, k = 2;
  const std::uint64_t seed = 5;
  REQUIRE(runCli({"export", "shaw-scores", "--positions", "6", "--head-dim", "4", "--clip", "2", "--seed", "5", "-o",
                  (dir / "s.npy").string()}).code == 0);
  REQUIRE(runCli({"export", "shaw-scores", "--positions", "6", "--head-dim", "4", "--seed", "5", "--variant",
                  "relative_key_query", "-o", (dir / "b.npy").string()}).code == 0);
  const NpyArray s = readNpy((dir / "s.npy").string());
  const NpyArray b = readNpy((dir / "b.npy").string());
  REQUIRE(s.shape == std::vector<std::int64_t>{6, 6});
  REQUIRE(b.shape == std::vector<std::int64_t>{6, 6});
  // The documented seeds: q from seed, k from seed + 1, the table from seed + 2.
  const std::vector<double> q = shawSeededTable(t, d, seed), kk = shawSeededTable(t, d, seed + 1);
  const std::vector<double> aK = shawSeededTable(2 * k + 1, d, seed + 2), e = shawSeededTable(2 * t - 1, d, seed + 2);
  for (int i = 0; i < t; ++i) {
    for (int j = 0; j < t; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      const int clipped = std::max(-k, std::min(k, j - i));
      const double shaw = dotRow(q, i, kk, j, d) + dotRow(q, i, aK, clipped + k, d);
      const int row = i - j + t - 1;
      const double bert = dotRow(q, i, kk, j, d) + dotRow(q, i, e, row, d) + dotRow(kk, j, e, row, d);
      CHECK(s.data[static_cast<std::size_t>(i * t + j)] == doctest::Approx(shaw).epsilon(1e-5));
      CHECK(b.data[static_cast<std::size_t>(i * t + j)] == doctest::Approx(bert).epsilon(1e-5));
    }
  }
  REQUIRE(runCli({"export", "shaw-scores", "--positions", "4", "--clip", "3", "-o", (dir / "s.json").string()}).code == 0);
  const nlohmann::json j = nlohmann::json::parse(readBytes(dir / "s.json"));
  CHECK(j["params"]["clip"] == 3);
  CHECK(j["params"]["table_rows"] == 7);
  CHECK(j["params"]["variant"] == "shaw");
}

TEST_CASE("shaw-scores relative_key_clamped: Wav2Vec2-BERT's clamp(j - i, -left, right) + left, and a wav2vec2-bert config") {
  // modeling_wav2vec2_bert.py Wav2Vec2BertSelfAttention.forward: distance = position_ids_r -
  // position_ids_l = j - i, clamped to [-left_max, right_max], row distance + left_max of a
  // (left + right + 1)-row table; scores += q . E[row] (then / sqrt(head_size), as q.k is).
  const fs::path dir = scratch("clamped");
  REQUIRE(runCli({"export", "shaw-scores", "--variant", "relative_key_clamped", "--left-max", "2", "--right-max", "1", "--positions",
                  "5", "--indices", "-o", (dir / "i.npy").string()}).code == 0);
  const std::vector<std::int32_t> idx = readInt32(dir / "i.npy", 25, "(5, 5)");
  // Query 0: j - i = 0..4 -> 0, 1, 1, 1, 1 -> rows 2, 3, 3, 3, 3. Query 4: -4..0 -> -2, -2, -2, -1, 0 -> 0, 0, 0, 1, 2.
  CHECK(std::vector<std::int32_t>(idx.begin(), idx.begin() + 5) == std::vector<std::int32_t>{2, 3, 3, 3, 3});
  CHECK(std::vector<std::int32_t>(idx.begin() + 20, idx.end()) == std::vector<std::int32_t>{0, 0, 0, 1, 2});
  const int t = 5, d = 4;
  REQUIRE(runCli({"export", "shaw-scores", "--variant", "relative_key_clamped", "--left-max", "2", "--right-max", "1", "--positions",
                  "5", "--head-dim", "4", "--seed", "3", "-o", (dir / "s.npy").string()}).code == 0);
  const NpyArray s = readNpy((dir / "s.npy").string());
  const std::vector<double> q = shawSeededTable(t, d, 3), kk = shawSeededTable(t, d, 4), e = shawSeededTable(4, d, 5);
  for (int i = 0; i < t; ++i) {
    for (int j = 0; j < t; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      const int row = std::max(-2, std::min(1, j - i)) + 2;
      CHECK(s.data[static_cast<std::size_t>(i * t + j)] == doctest::Approx(dotRow(q, i, kk, j, d) + dotRow(q, i, e, row, d)).epsilon(1e-5));
    }
  }
  // The class defaults of Wav2Vec2BertConfig: left 64, right 8, head size 1024 / 16 = 64.
  REQUIRE(runCli({"export", "shaw-scores", "--config", POSVIZ_SOURCE_DIR "/tests/data/class-default-configs/wav2vec2-bert.json",
                  "--positions", "4", "-o", (dir / "c.json").string()}).code == 0);
  const nlohmann::json c = nlohmann::json::parse(readBytes(dir / "c.json"));
  CHECK(c["params"]["variant"] == "relative_key_clamped");
  CHECK(c["params"]["left_max"] == 64);
  CHECK(c["params"]["right_max"] == 8);
  CHECK(c["params"]["table_rows"] == 73);
  CHECK(c["params"]["head_dim"] == 64);
  const auto model = runCli({"model", "--config", POSVIZ_SOURCE_DIR "/tests/data/class-default-configs/wav2vec2-bert.json", "--json"});
  REQUIRE(model.code == 0);
  const nlohmann::json m = nlohmann::json::parse(model.out);
  CHECK(m["relative_key"]["table_rows"] == 73);
  CHECK(m["layer_kinds"][0]["scheme"] == "relative-key");
  const auto mixed = runCli({"export", "shaw-scores", "--left-max", "3", "-o", (dir / "x.npy").string()});
  CHECK(mixed.code == 2);
  CHECK(mixed.err.find("apply to --variant relative_key_clamped only") != std::string::npos);
}

TEST_CASE("txl-terms: (4, T, T) of the terms a, b, c, d; --sum their sum") {
  const fs::path dir = scratch("txl");
  REQUIRE(runCli({"export", "txl-terms", "--positions", "5", "--d-model", "8", "--head-dim", "4", "--seed", "3", "-o",
                  (dir / "t.npy").string()}).code == 0);
  REQUIRE(runCli({"export", "txl-terms", "--positions", "5", "--d-model", "8", "--head-dim", "4", "--seed", "3", "--sum", "-o",
                  (dir / "s.npy").string()}).code == 0);
  const NpyArray terms = readNpy((dir / "t.npy").string());
  const NpyArray sum = readNpy((dir / "s.npy").string());
  REQUIRE(terms.shape == std::vector<std::int64_t>{4, 5, 5});
  REQUIRE(sum.shape == std::vector<std::int64_t>{5, 5});
  // The documented seeds: weights from seed, embeddings from seed + 1.
  const TxlWeights w = txlSeededWeights(8, 4, 3);
  const std::vector<double> e = txlSeededEmbeddings(5, 8, 4);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) {
      const TxlTerms t = txlTerms(w, e, i, j);
      double total = 0.0;
      for (int k = 0; k < 4; ++k) {
        CAPTURE(k);
        CHECK(terms.data[static_cast<std::size_t>((k * 5 + i) * 5 + j)] == doctest::Approx(t[static_cast<std::size_t>(k)]).epsilon(1e-5));
        total += t[static_cast<std::size_t>(k)];
      }
      CHECK(sum.data[static_cast<std::size_t>(i * 5 + j)] == doctest::Approx(total).epsilon(1e-5));
    }
  }
  // (c) = u.Wk,E E_j does not depend on the query: every row of slice 2 is the same.
  for (int i = 1; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) CHECK(terms.data[static_cast<std::size_t>((10 + i) * 5 + j)] == terms.data[static_cast<std::size_t>(10 * 5 + j)]);
  }
  REQUIRE(runCli({"export", "txl-terms", "--positions", "3", "-o", (dir / "t.json").string()}).code == 0);
  const nlohmann::json j = nlohmann::json::parse(readBytes(dir / "t.json"));
  CHECK(j["shape"] == nlohmann::json::array({4, 3, 3}));
  CHECK(j["terms"].size() == 4);
  CHECK(j["u"].size() == 8);
}

TEST_CASE("shaw-scores and txl-terms refuse bad values naming the flag") {
  const fs::path dir = scratch("errors");
  const std::string out = (dir / "x.npy").string();
  auto err = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "export");
    args.insert(args.end(), {"-o", out});
    const auto run = runCli(args);
    CHECK(run.code == 2);
    CHECK_FALSE(fs::exists(out));
    return run.err;
  };
  CHECK(err({"shaw-scores", "--clip", "0"}).find("--clip") != std::string::npos);
  CHECK(err({"shaw-scores", "--variant", "relative"}).find("--variant: got \"relative\", expected one of shaw|relative_key|relative_key_query") !=
        std::string::npos);
  CHECK(err({"shaw-scores", "--variant", "relative_key", "--clip", "3"}).find("--clip: applies to --variant shaw only") != std::string::npos);
  CHECK(err({"shaw-scores", "--positions", "4097"}).find("--positions: got 4097, expected an integer in [1, 4096]") != std::string::npos);
  CHECK(err({"shaw-scores", "--indices", "--dtype", "f64"}).find("--dtype") != std::string::npos);
  CHECK(err({"txl-terms", "--d-model", "5"}).find("--d-model: got \"5\", expected an even integer in [2, 4096]") != std::string::npos);
  CHECK(err({"txl-terms", "--head-dim", "3"}).find("--head-dim") != std::string::npos);
  CHECK(err({"txl-terms", "--clip", "2"}).find("--clip") != std::string::npos);   // not a txl-terms option
}

}  // TEST_SUITE
