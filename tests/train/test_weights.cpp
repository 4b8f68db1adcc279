// Tests for core/train/weights and json: the safetensors layout byte by byte, a saved run read back
// bit for bit, and hostile files (truncated, flipped, lying headers) refused with WeightsError.
#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "core/train/json.hpp"
#include "core/train/weights.hpp"

using namespace posviz;
using namespace posviz::train;

namespace {

std::string outDir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(POSVIZ_TEST_OUT) / "train" / name;
  std::filesystem::create_directories(dir);
  return dir.string();
}

TrainConfig tinyRun(PositionScheme s) {
  TrainConfig c;
  c.task.trainLength = 3;
  c.task.numSymbols = 4;
  c.model.dModel = 16;
  c.model.numHeads = 2;
  c.model.numLayers = 1;
  c.model.mlpHidden = 16;
  c.model.position.scheme = s;
  c.model.position.fireHidden = 4;
  c.batchSize = 4;
  c.steps = 6;
  c.seed = 0xfedcba9876543210ull;  // above 2^53: must survive JSON
  return c;
}

std::string header(std::string_view file) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(file[static_cast<std::size_t>(i)]);
  return std::string(file.substr(8, n));
}

// A file with one header and data (the header padded as written).
std::string withHeader(const std::string& json, const std::string& data) {
  std::string h = json;
  while (h.size() % 8) h += ' ';
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((h.size() >> (8 * i)) & 0xFF);
  return out + h + data;
}

std::string floats(std::initializer_list<float> v) {
  std::string out;
  for (float f : v) {
    const auto u = std::bit_cast<std::uint32_t>(f);
    for (int b = 0; b < 4; ++b) out += static_cast<char>((u >> (8 * b)) & 0xFF);
  }
  return out;
}

EvalOptions examples(int n) {
  EvalOptions o;
  o.examples = n;
  return o;
}

}  // namespace

TEST_CASE("weights: the safetensors layout, byte by byte") {
  SafetensorsFile f;
  f.tensors.push_back({"a.weight", {2}, {1.0f, -2.0f}});
  f.tensors.push_back({"b", {1, 1}, {0.5f}});
  f.metadata["format"] = "posviz-train";
  const std::string bytes = serializeSafetensors(f);
  const std::string h = header(bytes);
  CHECK(h.size() % 8 == 0);
  CHECK(h.find("{\"__metadata__\":{\"format\":\"posviz-train\"},"
               "\"a.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
               "\"b\":{\"dtype\":\"F32\",\"shape\":[1,1],\"data_offsets\":[8,12]}}") == 0);
  CHECK(bytes.size() == 8 + h.size() + 12);
  // 1.0f = 0x3f800000, little-endian.
  CHECK(bytes.substr(8 + h.size(), 4) == std::string("\x00\x00\x80\x3f", 4));
  const SafetensorsFile back = parseSafetensors(bytes);
  REQUIRE(back.tensors.size() == 2);
  CHECK(back.tensors[0].name == "a.weight");
  CHECK(back.tensors[0].values == std::vector<float>{1.0f, -2.0f});
  CHECK(back.tensors[1].shape == std::vector<long long>{1, 1});
  CHECK(back.metadata.at("format") == "posviz-train");
}

TEST_CASE("weights: a saved run loads back with the same bytes, config and results") {
  for (PositionScheme s : {PositionScheme::Learned, PositionScheme::T5, PositionScheme::Fire, PositionScheme::Kerple, PositionScheme::Rope}) {
    CAPTURE(positionSchemeName(s));
    TrainConfig c = tinyRun(s);
    if (s == PositionScheme::Rope) c.dropeAtStep = 4;
    Trainer t(c);
    t.train(c.steps);
    const std::string dir = outDir(positionSchemeName(s));
    saveRun(dir, t);
    Trainer back = loadRun(dir);
    CHECK(back.step() == 6);
    CHECK(back.config().seed == c.seed);
    CHECK(back.config().task.trainLength == 3);
    CHECK(back.model().config().position.scheme == s);
    CHECK(back.model().config().position.dropped == (s == PositionScheme::Rope));
    CHECK(back.model().parameters() == t.model().parameters());
    const auto a = t.evaluate({3, 6}, examples(8));
    const auto b = back.evaluate({3, 6}, examples(8));
    CHECK(a[0].loss == b[0].loss);
    CHECK(a[1].status == b[1].status);
    // The config is what it says: the tensors' names and shapes are listed too.
    std::ifstream in(dir + "/config.json");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text.find("\"seed\": \"18364758544493064720\"") != std::string::npos);
    CHECK(text.find("{\"name\": \"tok_emb.weight\", \"shape\": [7, 16]}") != std::string::npos);
  }
}

TEST_CASE("weights: a run saved midway and loaded again finishes with the uninterrupted run's bytes") {
  TrainConfig c = tinyRun(PositionScheme::Kerple);
  c.steps = 10;
  Trainer whole(c);
  whole.train(10);
  Trainer first(c);
  first.train(4);
  const std::string dir = outDir("resume");
  saveRun(dir, first);
  Trainer resumed = loadRun(dir);
  CHECK(resumed.step() == 4);
  resumed.train(10);
  CHECK(resumed.model().parameters() == whole.model().parameters());
  // Without the optimiser file the weights still load, with the moments started again.
  std::filesystem::remove(dir + "/" + kOptimizerFileName);
  Trainer fresh = loadRun(dir);
  CHECK(fresh.model().parameters() == first.model().parameters());
  CHECK(fresh.optimizer().firstMoment() != first.optimizer().firstMoment());
  // An optimiser file for another model is refused.
  saveRun(outDir("resume-other"), Trainer(tinyRun(PositionScheme::Alibi)));
  std::filesystem::copy_file(outDir("resume-other") + "/" + kOptimizerFileName, dir + "/" + kOptimizerFileName);
  CHECK_THROWS_WITH_AS(loadRun(dir), doctest::Contains("adam.m.layers.0.kerple.r1"), WeightsError);
}

TEST_CASE("weights: the loss curve is saved with the run and read back; a history that disagrees is refused") {
  TrainConfig c = tinyRun(PositionScheme::Alibi);
  c.steps = 10;
  Trainer t(c);
  t.train(4);
  const std::string dir = outDir("history");
  saveRun(dir, t);
  Trainer back = loadRun(dir);
  REQUIRE(back.history().size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(back.history()[i].step == static_cast<long long>(i) + 1);
    CHECK(back.history()[i].loss == static_cast<double>(static_cast<float>(t.history()[i].loss)));
    CHECK(back.history()[i].learningRate == static_cast<double>(static_cast<float>(t.history()[i].learningRate)));
    CHECK(back.history()[i].gradNorm == static_cast<double>(static_cast<float>(t.history()[i].gradNorm)));
  }
  // Training on appends: the curve runs 1..10 as in a run never saved.
  back.train(10);
  REQUIRE(back.history().size() == 10);
  CHECK(back.history().back().step == 10);
  // Saved again, the whole curve comes back.
  saveRun(dir, back);
  CHECK(loadRun(dir).history().size() == 10);

  // A run saved before the file existed (or without it) loads with no curve.
  std::filesystem::remove(dir + "/" + kHistoryFileName);
  CHECK(loadRun(dir).history().empty());
  // A history of another run's length is refused by name.
  saveRun(outDir("history-short"), t);   // 4 steps
  std::filesystem::copy_file(outDir("history-short") + "/" + kHistoryFileName, dir + "/" + kHistoryFileName);
  CHECK_THROWS_WITH_AS(loadRun(dir), doctest::Contains("do not end at the run's step 10"), WeightsError);
  // A file with a tensor it does not know, or one missing, is refused.
  SafetensorsFile odd;
  odd.tensors = {NamedTensor{"loss", {1}, {1.0f}}, NamedTensor{"learning_rate", {1}, {1.0f}}, NamedTensor{"gradnorm", {1}, {1.0f}}};
  odd.metadata["first_step"] = "10";
  {
    std::ofstream out(dir + "/" + kHistoryFileName, std::ios::binary | std::ios::trunc);
    out << serializeSafetensors(odd);
  }
  CHECK_THROWS_WITH_AS(loadRun(dir), doctest::Contains("unknown tensor \"gradnorm\""), WeightsError);
}

TEST_CASE("weights: lying or broken safetensors headers are refused, never trusted") {
  const std::string two = floats({1.0f, 2.0f});
  auto refused = [](const std::string& bytes, const std::string& needle) {
    CAPTURE(needle);
    try {
      parseSafetensors(bytes, "w");
      FAIL("accepted");
    } catch (const WeightsError& e) {
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
      CHECK(std::string(e.what()).find('\n') == std::string::npos);   // what the file holds is quoted, escaped
    }
  };
  refused("1234", "too short");
  refused(std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8) + "{}", "does not fit");
  refused(withHeader("[1, 2]", ""), "must be a JSON object");
  refused(withHeader("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]", two), "header");
  refused(withHeader("{\"a\": {\"dtype\": \"F16\", \"shape\": [2], \"data_offsets\": [0, 4]}}", two), "only F32");
  refused(withHeader("{\"a\": {\"dtype\": \"F32\", \"shape\": [3], \"data_offsets\": [0, 8]}}", two), "needs 3 float32");
  refused(withHeader("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 16]}}", two), "data_offsets");
  refused(withHeader("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [8, 0]}}", two), "data_offsets");
  refused(withHeader("{\"a\": {\"dtype\": \"F32\", \"shape\": [-2], \"data_offsets\": [0, 8]}}", two), "shape");
  refused(withHeader("{\"a\": {\"dtype\": \"F32\", \"shape\": [2147483648, 2147483648, 4], \"data_offsets\": [0, 8]}}", two), "needs");
  refused(withHeader("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
                     " \"b\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}", two),
          "overlap");
  refused(withHeader("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
                     " \"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}}", two),
          "duplicate key");
  refused(withHeader("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}}", floats({1.0f, std::numeric_limits<float>::quiet_NaN()})), "non-finite");
  refused(withHeader(std::string(200, '[') + std::string(200, ']'), ""), "nesting");
  refused(withHeader("{\"__metadata__\": {\"k\": 1}}", ""), "must be a string");
  // Data no tensor claims: after the last tensor, between two, before the first, or with no tensor.
  refused(withHeader("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}}", two + "junk"),
          "4 bytes after the last tensor's data belong to no tensor");
  refused(withHeader("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]},"
                     " \"b\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [8, 12]}}", two + floats({3.0f})),
          "data bytes 4..8 belong to no tensor (the next is \"b\")");
  refused(withHeader("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}", two), "data bytes 0..4");
  refused(withHeader("{}", two), "8 bytes after the last tensor's data");
  // A dtype or a tensor name holding a line break is quoted, the break escaped.
  refused(withHeader("{\"a\": {\"dtype\": \"F\\n16\", \"shape\": [2], \"data_offsets\": [0, 8]}}", two), "has dtype \"F\\x0a16\"");
  refused(withHeader("{\"a\\nb\": {\"dtype\": \"F16\", \"shape\": [2], \"data_offsets\": [0, 8]}}", two), "tensor \"a\\x0ab\"");
}

TEST_CASE("weights: every truncation and many byte flips of a real file fail cleanly") {
  TrainConfig c = tinyRun(PositionScheme::Alibi);
  Trainer t(c);
  SafetensorsFile f;
  f.tensors = modelToTensors(t.model());
  const std::string bytes = serializeSafetensors(f);
  const std::size_t headerEnd = 8 + header(bytes).size();
  int refusedCount = 0;
  for (std::size_t n = 0; n < bytes.size(); n += (n < headerEnd + 16 ? 1 : 97)) {
    try {
      parseSafetensors(std::string_view(bytes).substr(0, n));
    } catch (const WeightsError&) {
      ++refusedCount;
    }
  }
  CHECK(refusedCount > static_cast<int>(headerEnd));  // every cut refused (none parses as whole)
  Rng rng(5);
  int parsed = 0, refused = 0;
  for (int k = 0; k < 400; ++k) {
    std::string bad = bytes;
    const auto at = static_cast<std::size_t>(rng.uniform() * static_cast<double>(headerEnd));
    bad[at] = static_cast<char>(rng.nextU64() & 0xFF);
    try {
      const SafetensorsFile g = parseSafetensors(bad);
      Model<float> m(t.model());
      tensorsToModel(g.tensors, m, "flipped");  // a flip that still parses must still fit the model
      ++parsed;
    } catch (const WeightsError&) {
      ++refused;
    }
  }
  CHECK(parsed + refused == 400);
  CHECK(refused > 100);
}

TEST_CASE("weights: a weights file that does not fit the config is refused") {
  TrainConfig c = tinyRun(PositionScheme::Learned);
  Trainer t(c);
  std::vector<NamedTensor> tensors = modelToTensors(t.model());
  Model<float> m(t.model());
  auto refused = [&](const std::vector<NamedTensor>& ts, const std::string& needle) {
    try {
      tensorsToModel(ts, m, "w");
      FAIL("accepted");
    } catch (const WeightsError& e) {
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
    }
  };
  std::vector<NamedTensor> missing(tensors.begin() + 1, tensors.end());
  refused(missing, "no tensor \"tok_emb.weight\"");
  std::vector<NamedTensor> extra = tensors;
  extra.push_back({"t5_bias.weight", {1}, {0.0f}});
  refused(extra, "not part of this model");
  std::vector<NamedTensor> reshaped = tensors;
  reshaped[1].shape = {reshaped[1].shape[1], reshaped[1].shape[0]};
  refused(reshaped, "has shape");
  // A config that lies: a missing folder, a scheme posviz does not know, a mismatched vocabulary.
  CHECK_THROWS_AS(loadRun(outDir("nothing-here") + "/missing"), WeightsError);
  const std::string dir = outDir("lying-config");
  saveRun(dir, t);
  std::string text = runConfigJson(t.config(), 6);
  const std::string learned = "\"scheme\": \"learned\"";
  text.replace(text.find(learned), learned.size(), "\"scheme\": \"nonsense\"");
  CHECK_THROWS_WITH_AS(parseRunConfigJson(text, "cfg"), doctest::Contains("nonsense"), WeightsError);
  // A scheme holding a line break is quoted with the break escaped: one line on a terminal.
  std::string broken = runConfigJson(t.config(), 6);
  broken.replace(broken.find(learned), learned.size(), "\"scheme\": \"lear\\nned\"");
  try {
    parseRunConfigJson(broken, "cfg");
    FAIL("accepted");
  } catch (const WeightsError& e) {
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
    CHECK(std::string(e.what()).find("\"lear\\x0aned\"") != std::string::npos);
  }
  std::string vocab = runConfigJson(t.config(), 6);
  vocab.replace(vocab.find("\"vocab_size\": 7"), 15, "\"vocab_size\": 9");
  {
    std::ofstream out(dir + "/config.json", std::ios::trunc);
    out << vocab;
  }
  CHECK_THROWS_WITH_AS(loadRun(dir), doctest::Contains("vocabSize 9"), WeightsError);
}

TEST_CASE("json: the reader's grammar and limits") {
  const JsonValue v = parseJson(R"({"a": [1, -2.5e3, true, null], "s": "x\"\u00e9\ud83d\ude00"})");
  CHECK(v.find("a")->items[1].number == -2500.0);
  CHECK(v.find("a")->items[2].boolean);
  CHECK(v.find("s")->text == "x\"\xc3\xa9\xf0\x9f\x98\x80");
  for (const char* bad : {"", "{", "[1,]", "01", "+1", "1.", "NaN", "\"\\ud800\"", "\"a\x01\"", "{\"a\" 1}", "[1] 2", "1e999", "tru"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parseJson(bad), JsonError);
  }
  CHECK(jsonQuote("a\"b\n\x01") == "\"a\\\"b\\n\\u0001\"");
  CHECK(jsonNumberText(0.1) == "0.1");
  CHECK_THROWS_WITH_AS(jsonInteger(parseJson("2.5"), "n", 0, 9), doctest::Contains("must be an integer"), JsonError);
}
