// The table of model types (assets/model_types.json, derived from transformers' modeling code by
// scripts/model_types/derive.py) and what the config reader does with it: the family decides, an
// unknown model_type is a labelled guess, keys a family never reads are reported, configs written
// from every configuration class's defaults are read or refused by name, and the published files
// of tests/data/published-configs/EXPECTED.json give the numbers their modeling code uses.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/model_config.hpp"
#include "app/cli/model_types.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"
#include "tests/support/cli_support.hpp"

namespace fs = std::filesystem;
using posviz::cli::LayerKind;
using posviz::cli::LayerScheme;
using posviz::cli::ModelConfig;
using posviz::cli::ModelEncoding;

namespace {

const std::string kData = POSVIZ_SOURCE_DIR "/tests/data/";

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* encodingScheme(ModelEncoding e) {
  switch (e) {
    case ModelEncoding::Rope: return "rope";
    case ModelEncoding::Alibi: return "alibi";
    case ModelEncoding::Learned: return "learned";
    case ModelEncoding::Sinusoidal: return "sinusoidal";
    case ModelEncoding::RelativeBuckets: return "relative-buckets";
    case ModelEncoding::RelativeKey: return "relative-key";
    case ModelEncoding::None: return "none";
  }
  return "?";
}

int attentionLayers(const ModelConfig& m) {
  int n = 0;
  for (const LayerKind& k : m.layerKinds) {
    if (k.scheme != LayerScheme::None) n += static_cast<int>(k.layers.size());
  }
  return n;
}

}  // namespace

TEST_CASE("model types: the table is the pinned transformers snapshot, and its rules match the modeling code") {
  const posviz::cli::ModelTypeTableInfo& info = posviz::cli::modelTypeTableInfo();
  CHECK(info.repository == "huggingface/transformers");
  CHECK(info.commit == "d6a6c82680cba9c51decdacac6dd6315ea4a766a");
  CHECK(info.count > 500);
  // Each RoPE family says how it pairs; every entry cites where its scheme comes from.
  for (const posviz::cli::ModelTypeEntry* e : posviz::cli::allModelTypes()) {
    CAPTURE(e->modelType);
    const bool text = e->stack == "decoder" || e->stack == "encoder" || e->stack == "encoder-decoder";
    if (e->scheme == "rope" && text) CHECK((e->layout == "half-split" || e->layout == "interleaved"));
    // Wrappers take their text model's scheme, whose entry cites the code.
    if (e->scheme != "none" && e->scheme != "other" && e->stack != "multimodal") CHECK(!e->evidence.empty());
  }
  // Facts read from the modeling files at that commit.
  struct Fact {
    const char* type;
    const char* scheme;
    const char* layout;
  };
  for (const Fact& f : {Fact{"llama", "rope", "half-split"},       // modeling_llama.py rotate_half over halves
                        Fact{"gpt_neox", "rope", "half-split"},    // modeling_gpt_neox.py rotate_half
                        Fact{"gptj", "rope", "interleaved"},       // modeling_gptj.py rotate_every_two
                        Fact{"codegen", "rope", "interleaved"},    // modeling_codegen.py rotate_every_two
                        Fact{"glm", "rope", "interleaved"},        // modeling_glm.py rotate_half over x[..., 0::2]
                        Fact{"llama4_text", "rope", "interleaved"},  // modeling_llama4.py view_as_complex
                        Fact{"cohere", "rope", "interleaved"},     // modeling_cohere.py rotate_half stacks x[..., ::2]
                        Fact{"bloom", "alibi", ""}, Fact{"gpt2", "learned", ""}, Fact{"t5", "relative-buckets", ""},
                        Fact{"marian", "sinusoidal", ""}, Fact{"mamba", "none", ""}}) {
    CAPTURE(f.type);
    const posviz::cli::ModelTypeEntry* e = posviz::cli::findModelType(f.type);
    REQUIRE(e != nullptr);
    CHECK(e->scheme == f.scheme);
    CHECK(e->layout == f.layout);
  }
  CHECK(posviz::cli::findModelType("opt")->learnedOffset == 2);               // OPTLearnedPositionalEmbedding offset 2
  CHECK(posviz::cli::findModelType("roberta")->learnedOffsetRule == "pad_token_id+1");
  CHECK(posviz::cli::findModelType("falcon")->schemeByKey.at("alibi").at("true") == "alibi");
  CHECK(posviz::cli::findModelType("qwen")->origin == "remote-code");
  CHECK(posviz::cli::findModelType("no_such_model_type") == nullptr);
}

TEST_CASE("model types: published files give the numbers their modeling code uses (EXPECTED.json)") {
  const nlohmann::json expected = nlohmann::json::parse(readText(kData + "published-configs/EXPECTED.json"));
  REQUIRE(expected.size() >= 5);
  for (auto it = expected.begin(); it != expected.end(); ++it) {
    const std::string file = it.key();
    const nlohmann::json& want = it.value();
    CAPTURE(file);
    const ModelConfig m = posviz::cli::loadModelConfig(kData + "published-configs/" + file);
    CHECK(m.guess.empty());
    CHECK(encodingScheme(m.encoding) == want.at("scheme").get<std::string>());
    CHECK(m.numLayers == want.at("num_layers").get<int>());
    CHECK(attentionLayers(m) == want.at("attention_layers").get<int>());
    CHECK(m.maxPositions == want.at("max_positions").get<long long>());
    if (want.at("scheme") == "rope") {
      CHECK(posviz::ropeLayoutName(m.rope.layout) == want.at("layout").get<std::string>());
      CHECK(m.rope.base == want.at("rope_theta").get<double>());
      CHECK(m.rope.headDim == want.at("head_dim").get<int>());
      CHECK(posviz::ropeRotaryDims(m.rope) == want.at("rotary_dims").get<int>());
    }
  }
}

TEST_CASE("model types: every configuration class's defaults are read as its family's scheme, or refused by name") {
  // Text stacks whose defaults alone cannot be read, each for a reason its message names: the
  // class's own defaults disagree (hidden_size not divisible by the heads), the text model lives in
  // a sub-config the defaults leave empty, or the scheme is one posviz does not draw.
  const std::set<std::string> refused = {
      "beit", "conditional_detr", "cpmant", "deberta", "deberta-v2", "detr", "edgetam_video", "flaubert", "funnel",
      "glm4_moe", "glm4v_moe", "glm4v_moe_text", "jetmoe", "lasr_ctc", "led", "maskformer", "moonshine", "prophetnet",
      "qwen3_omni_moe", "qwen3_omni_moe_text", "qwen3_omni_moe_thinker", "reformer", "sam", "sam2_video",
      "sam3_tracker_video", "sam_hq", "t5gemma", "t5gemma2", "table-transformer", "xlm", "xlnet"};
  int read = 0;
  std::set<std::string> refusedNow;
  for (const fs::directory_entry& f : fs::directory_iterator(kData + "class-default-configs")) {
    const nlohmann::json raw = nlohmann::json::parse(readText(f.path().string()));
    const std::string type = raw.at("model_type");
    const posviz::cli::ModelTypeEntry* e = posviz::cli::findModelType(type);
    REQUIRE(e != nullptr);
    const bool text = e->stack == "decoder" || e->stack == "encoder" || e->stack == "encoder-decoder" || e->stack == "multimodal";
    CAPTURE(type);
    try {
      const ModelConfig m = posviz::cli::loadModelConfig(f.path().string());
      ++read;
      CHECK(m.guess.empty());
      CHECK(!m.family.empty());
      const posviz::cli::ModelTypeEntry* scheme = e;
      if (e->stack == "multimodal" && !e->textConfig.empty() && posviz::cli::findModelType(e->textConfig) != nullptr) {
        scheme = posviz::cli::findModelType(e->textConfig);
      }
      if (text && scheme->schemeByKey.empty()) CHECK(encodingScheme(m.encoding) == scheme->scheme);
      if (m.encoding == ModelEncoding::Rope) CHECK(m.rope.layout == (scheme->layout == "interleaved" ? posviz::RopeLayout::Interleaved : posviz::RopeLayout::HalfSplit));
    } catch (const posviz::cli::ConfigError& err) {
      CHECK(contains(err.what(), "config " + f.path().filename().string() + ": "));
      if (text) refusedNow.insert(type);
    }
  }
  CHECK(read >= 300);
  CHECK(refusedNow == refused);
}

TEST_CASE("model types: a model_type the table lacks is read by generic rules and labelled a guess") {
  const std::string text = R"({"model_type": "made_up_lm", "hidden_size": 512, "num_attention_heads": 8,
                               "num_hidden_layers": 4, "rope_theta": 50000, "max_position_embeddings": 4096})";
  const ModelConfig m = posviz::cli::parseModelConfig(text, "made-up.json");
  CHECK(m.encoding == ModelEncoding::Rope);
  CHECK(m.rope.base == 50000.0);
  CHECK(contains(m.guess, "model_type \"made_up_lm\" is not in posviz's table of model types"));
  CHECK(contains(m.guess, "because the file has rope_theta"));
  CHECK(contains(m.guess, "half-split pairs"));
  CHECK(m.family.empty());
  // The CLI says so on stderr and in --json.
  const fs::path dir = fs::temp_directory_path() / "posviz-test-model-types";
  fs::create_directories(dir);
  { std::ofstream(dir / "made-up.json") << text; }
  const posviz::test::CliRun human = posviz::test::runCli({"model", "--config", (dir / "made-up.json").string()});
  CHECK(human.code == 0);
  CHECK(contains(human.err, "posviz model: guess: model_type \"made_up_lm\""));
  CHECK(contains(human.out, "GUESS: "));
  const posviz::test::CliRun js = posviz::test::runCli({"model", "--config", (dir / "made-up.json").string(), "--json"});
  CHECK(nlohmann::json::parse(js.out).at("guess").get<std::string>() == m.guess);
  // A known family is no guess.
  const posviz::test::CliRun known = posviz::test::runCli({"model", "--preset", "llama-2-7b", "--json"});
  CHECK(nlohmann::json::parse(known.out).at("guess").is_null());
  CHECK(known.err.empty());
  fs::remove_all(dir);
}

TEST_CASE("model types: keys mean what the family's code makes them mean") {
  // GPT-2's code reads n_positions and never rope_theta: the table is learned, the key reported.
  const ModelConfig gpt2 = posviz::cli::parseModelConfig(
      R"({"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "n_positions": 128, "rope_theta": 10000})", "g.json");
  CHECK(gpt2.encoding == ModelEncoding::Learned);
  CHECK(gpt2.unreadKeys == std::vector<std::string>{"rope_theta"});
  // OPT's table has 2 offset rows (OPTLearnedPositionalEmbedding); RoBERTa's start at pad_token_id + 1.
  const ModelConfig opt = posviz::cli::parseModelConfig(R"({"model_type": "opt", "hidden_size": 768, "num_attention_heads": 12,
      "num_hidden_layers": 12, "max_position_embeddings": 2048})", "o.json");
  CHECK(opt.positionOffset == 2);
  const ModelConfig roberta = posviz::cli::parseModelConfig(R"({"model_type": "roberta", "hidden_size": 768,
      "num_attention_heads": 12, "num_hidden_layers": 12, "max_position_embeddings": 514, "pad_token_id": 1})", "r.json");
  CHECK(roberta.positionOffset == 2);
  CHECK(roberta.maxPositions == 514);
  // T5: an encoder and a decoder stack, each with its own layer count; buckets from the file.
  const ModelConfig t5 = posviz::cli::parseModelConfig(R"({"model_type": "t5", "d_model": 512, "num_heads": 8,
      "num_layers": 6, "num_decoder_layers": 4, "relative_attention_num_buckets": 33, "n_positions": 512})", "t.json");
  CHECK(t5.encoding == ModelEncoding::RelativeBuckets);
  REQUIRE(t5.layerKinds.size() == 2);
  CHECK(t5.layerKinds[0].attention == "encoder");
  CHECK(t5.layerKinds[0].layers.size() == 6);
  CHECK(t5.layerKinds[1].layers.size() == 4);
  CHECK(t5.relativeBuckets == 33);
  CHECK(t5.relativeMaxDistance == 128);  // T5Config default
  CHECK(t5.unreadKeys == std::vector<std::string>{"n_positions"});
  // Falcon's alibi key switches its scheme; its code reads it.
  const ModelConfig falcon = posviz::cli::parseModelConfig(R"({"model_type": "falcon", "hidden_size": 64,
      "num_attention_heads": 4, "num_hidden_layers": 2, "alibi": true})", "f.json");
  CHECK(falcon.encoding == ModelEncoding::Alibi);
  // Jamba: attention every attn_layer_period-th layer from attn_layer_offset, without positions.
  const ModelConfig jamba = posviz::cli::parseModelConfig(R"({"model_type": "jamba", "hidden_size": 64,
      "num_attention_heads": 4, "num_hidden_layers": 32, "attn_layer_period": 8, "attn_layer_offset": 4})", "j.json");
  CHECK(attentionLayers(jamba) == 4);
  const posviz::cli::LayerKind* att = posviz::cli::findLayerKind(jamba, "full_attention");
  REQUIRE(att != nullptr);
  CHECK(att->scheme == LayerScheme::NoPE);
  CHECK(att->layers == std::vector<int>{4, 12, 20, 28});
}

TEST_CASE("model types: files are read as the HF loader reads them (NaN and Infinity)") {
  const std::string ok = R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
                              "rope_theta": 10000, "layer_norm_eps": NaN, "clip": -Infinity, "note": "NaN in a string"})";
  CHECK(posviz::cli::parseModelConfig(ok, "n.json").rope.base == 10000.0);
  try {
    posviz::cli::parseModelConfig(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "rope_theta": Infinity})", "i.json");
    FAIL("Infinity as rope_theta was accepted");
  } catch (const posviz::cli::ConfigError& e) {
    CHECK(contains(e.what(), "rope_theta must be a number, got Infinity"));
  }
}

TEST_CASE("model --compare: models side by side, what differs marked") {
  const posviz::test::CliRun r = posviz::test::runCli({"model", "--compare", "llama-2-7b", "llama-3.1-8b"});
  CHECK(r.code == 0);
  std::istringstream lines(r.out);
  std::string line, base, layers;
  while (std::getline(lines, line)) {
    if (contains(line, "RoPE base")) base = line;
    if (line.find("  layers ") == 0 || line.find("* layers ") == 0) layers = line;
  }
  CHECK(base.rfind("* RoPE base", 0) == 0);
  CHECK(contains(base, "10000"));
  CHECK(contains(base, "500000"));
  CHECK(layers.rfind("  layers", 0) == 0);  // both have 32 layers: not marked
  const posviz::test::CliRun js = posviz::test::runCli({"model", "--compare", "llama-2-7b", "gpt2", "--json"});
  const nlohmann::json j = nlohmann::json::parse(js.out);
  CHECK(j.at("models") == nlohmann::json::array({"llama-2-7b", "gpt2"}));
  bool sawBase = false;
  for (const nlohmann::json& row : j.at("rows")) {
    if (row.at("field") != "RoPE base") continue;
    sawBase = true;
    CHECK(row.at("values") == nlohmann::json::array({"10000", "-"}));
    CHECK(row.at("differs") == true);
  }
  CHECK(sawBase);
  // Two M-RoPE models: Qwen2.5-VL's seconds rule against Qwen3-VL's frames, both merging 2 x 2.
  const posviz::test::CliRun vl = posviz::test::runCli(
      {"model", "--compare", "qwen2.5-vl-7b", POSVIZ_SOURCE_DIR "/tests/data/published-configs/Qwen3-VL-Embedding-8B.json", "--json"});
  REQUIRE(vl.code == 0);
  bool sawRule = false;
  const nlohmann::json vlj = nlohmann::json::parse(vl.out);
  for (const nlohmann::json& row : vlj.at("rows")) {
    if (row.at("field") != "M-RoPE position ids") continue;
    sawRule = true;
    CHECK(row.at("values") == nlohmann::json::array({"seconds rule, merge 2", "frames rule, merge 2"}));
  }
  CHECK(sawRule);
  // --json anywhere: before, inside or after the list, the same models and the same JSON.
  for (const std::vector<std::string>& order : {std::vector<std::string>{"model", "--json", "--compare", "llama-2-7b", "gpt2"},
                                                std::vector<std::string>{"model", "--compare", "llama-2-7b", "--json", "gpt2"}}) {
    const posviz::test::CliRun moved = posviz::test::runCli(order);
    CHECK(moved.code == 0);
    CHECK(moved.out == js.out);
  }
  const posviz::test::CliRun one = posviz::test::runCli({"model", "--compare", "llama-2-7b", "--json"});
  CHECK(one.code == 2);
  CHECK(contains(one.err, "--compare needs two or more models (preset names or config files), got 1"));
  const posviz::test::CliRun twice = posviz::test::runCli({"model", "--compare", "llama-2-7b", "--compare", "gpt2"});
  CHECK(twice.code == 2);
  CHECK(contains(twice.err, "--compare is given twice"));
  CHECK(posviz::test::runCli({"model", "--compare", "llama-2-7b"}).code == 2);
  CHECK(contains(posviz::test::runCli({"model", "--compare", "llama-2-7b", "no-such-preset"}).err, "unknown preset"));
  // An unknown rope_scaling key holding a line break is escaped: the message stays one line.
  {
    const fs::path file = fs::path(POSVIZ_TEST_OUT) / "model-newline-key" / "config.json";
    fs::create_directories(file.parent_path());
    std::ofstream(file) << R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "rope_theta": 10000,
      "rope_scaling": {"rope_type": "linear", "factor": 2, "bad\nkey": 1}})";
    const posviz::test::CliRun run = posviz::test::runCli({"model", "--config", file.string()});
    CHECK(run.code == 2);
    CHECK(contains(run.err, "rope_scaling.bad\\x0akey is not a field posviz understands"));
    CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
  }
  // A path that names no file is said to be missing, not taken for a preset's name.
  for (const char* missing : {"missing.json", "models/none/config.json"}) {
    CAPTURE(missing);
    const posviz::test::CliRun run = posviz::test::runCli({"model", "--compare", "llama-2-7b", missing});
    CHECK(run.code == 2);
    CHECK(contains(run.err, std::string("no config file \"") + missing + "\": there is no such file"));
    CHECK_FALSE(contains(run.err, "unknown preset"));
  }
}

TEST_CASE("model types: a T5 config reaches the T5 views; odd bucket counts split as HF splits them") {
  const fs::path dir = fs::temp_directory_path() / "posviz-test-t5-views";
  fs::create_directories(dir);
  const std::string out = (dir / "b.json").string();
  const posviz::test::CliRun r = posviz::test::runCli(
      {"export", "t5-bias-table", "--config", kData + "published-configs/t5-base.json", "-o", out});
  CHECK(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(readText(out));
  CHECK(j.at("params").at("num_buckets") == 32);  // t5-base: relative_attention_num_buckets 32, num_heads 12
  CHECK(j.at("params").at("heads") == 12);
  CHECK(j.at("shape") == nlohmann::json::array({32, 12}));
  // A flag still overrides the config; 33 bidirectional buckets are 16 a side, as num_buckets // 2.
  CHECK(posviz::test::runCli({"export", "t5-buckets", "--config", kData + "published-configs/t5-base.json", "--num-buckets", "33",
                              "--positions", "8", "-o", out}).code == 0);
  const nlohmann::json b = nlohmann::json::parse(readText(out));
  CHECK(b.at("params").at("num_buckets") == 33);
  // A model without T5 buckets is refused by name.
  const posviz::test::CliRun gpt2 = posviz::test::runCli({"export", "t5-buckets", "--preset", "gpt2", "-o", out});
  CHECK(gpt2.code == 2);
  CHECK(contains(gpt2.err, "a T5-bucket model"));
  fs::remove_all(dir);
}

TEST_CASE("model types: sinusoidal families in their own layout and offset rows") {
  // Marian: the paper's frequencies, sines then cosines (MarianSinusoidalPositionalEmbedding);
  // M2M100: fairseq's get_embedding, log step over half_dim - 1, 2 offset rows on top.
  const ModelConfig marian = posviz::cli::loadModelConfig(kData + "published-configs/opus-mt-zh-en.json");
  REQUIRE(marian.sinusoidalCoreLayout.has_value());
  CHECK(*marian.sinusoidalCoreLayout == posviz::SinusoidalLayout::Halves);
  const ModelConfig m2m = posviz::cli::loadModelConfig(kData + "class-default-configs/m2m_100.json");
  REQUIRE(m2m.sinusoidalCoreLayout.has_value());
  CHECK(*m2m.sinusoidalCoreLayout == posviz::SinusoidalLayout::Tensor2Tensor);
  CHECK(m2m.positionOffset == 2);
  CHECK(m2m.offsetRowsAdded);
  const fs::path dir = fs::temp_directory_path() / "posviz-test-sin-config";
  fs::create_directories(dir);
  const std::string out = (dir / "s.json").string();
  REQUIRE(posviz::test::runCli({"export", "sinusoidal", "--config", kData + "published-configs/opus-mt-zh-en.json", "--positions", "4",
                                "-o", out}).code == 0);
  const nlohmann::json j = nlohmann::json::parse(readText(out));
  CHECK(j.at("params").at("layout") == "halves");
  CHECK(j.at("params").at("d_model") == 512);
  // BART's table: max_position_embeddings + 2 rows (BartLearnedPositionalEmbedding); RoBERTa's:
  // max_position_embeddings rows, positions from pad_token_id + 1.
  const posviz::test::CliRun bart = posviz::test::runCli({"model", "--config", kData + "published-configs/bart-base.json", "--json"});
  const nlohmann::json bt = nlohmann::json::parse(bart.out).at("table");
  CHECK(bt.at("rows") == 1026);
  CHECK(bt.at("positions") == 1024);
  const posviz::test::CliRun rob = posviz::test::runCli({"model", "--config", kData + "published-configs/distilroberta-base.json", "--json"});
  const nlohmann::json rt = nlohmann::json::parse(rob.out).at("table");
  CHECK(rt.at("rows") == 514);
  CHECK(rt.at("positions") == 512);
  fs::remove_all(dir);
}

TEST_CASE("model types: Whisper's encoder is sinusoidal, its decoder learned") {
  // modeling_whisper.py: WhisperEncoder's nn.Embedding(max_source_positions) is filled from
  // sinusoids() and frozen; WhisperDecoder uses WhisperPositionalEmbedding(max_target_positions).
  const ModelConfig w = posviz::cli::loadModelConfig(kData + "published-configs/whisper-medium.json");
  CHECK(w.encoding == ModelEncoding::Learned);
  CHECK(w.maxPositions == 448);
  const posviz::cli::LayerKind* enc = posviz::cli::findLayerKind(w, "encoder");
  const posviz::cli::LayerKind* dec = posviz::cli::findLayerKind(w, "decoder");
  REQUIRE(enc != nullptr);
  REQUIRE(dec != nullptr);
  CHECK(enc->scheme == LayerScheme::Sinusoidal);
  CHECK(dec->scheme == LayerScheme::Learned);
  bool said = false;
  for (const std::string& e : w.extras) said = said || contains(e, "frozen sinusoidal table of 1500 rows (max_source_positions)");
  CHECK(said);
}

TEST_CASE("model types: Llama 4's NoPE-layer temperature read from --config") {
  // modeling_llama4.py Llama4TextAttention: attn_scales = log(floor((pos + 1) / floor_scale) + 1)
  // * attn_scale + 1. With floor_scale 4096 and attn_scale 0.2, position 4095 is the first step:
  // 1 + 0.2 ln 2 = 1.13862943611...; the class defaults (8192, 0.1) step at 8191 to 1 + 0.1 ln 2.
  const fs::path dir = fs::temp_directory_path() / "posviz-test-nope-temperature";
  fs::create_directories(dir);
  { std::ofstream(dir / "l4.json") << R"({"model_type": "llama4_text", "floor_scale": 4096, "attn_scale": 0.2, "hidden_size": 5120,
                                         "num_attention_heads": 40, "num_hidden_layers": 48})"; }
  const std::string out = (dir / "t.json").string();
  REQUIRE(posviz::test::runCli({"export", "nope-temperature", "--config", (dir / "l4.json").string(), "--positions", "3",
                                "--position", "4094", "-o", out}).code == 0);
  const nlohmann::json j = nlohmann::json::parse(readText(out));
  CHECK(j.at("scale")[0] == 1.0);
  CHECK(j.at("scale")[1].get<double>() == doctest::Approx(1.0 + 0.2 * std::log(2.0)).epsilon(1e-14));
  REQUIRE(posviz::test::runCli({"export", "nope-temperature", "--config", kData + "class-default-configs/llama4_text.json",
                                "--positions", "2", "--position", "8190", "-o", out}).code == 0);
  const nlohmann::json d = nlohmann::json::parse(readText(out));
  CHECK(d.at("params").at("floor_scale") == 8192.0);
  CHECK(d.at("scale")[1].get<double>() == doctest::Approx(1.0 + 0.1 * std::log(2.0)).epsilon(1e-14));
  const posviz::test::CliRun llama2 = posviz::test::runCli({"export", "nope-temperature", "--preset", "llama-2-7b", "-o", out});
  CHECK(llama2.code == 2);
  CHECK(contains(llama2.err, "needs a model with Llama 4's NoPE-layer attention temperature"));
  fs::remove_all(dir);
}
