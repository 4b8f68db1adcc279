// request.cpp: `posviz export VIEW [options]` -> Request: every option checked against the view's
// list and its range, a model config's values as defaults, then the view's own options.
#include "core/untrusted_text.hpp"
#include "app/cli/request.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include <unistd.h>

#include "app/cli/params/learned.hpp"
#include "app/cli/params/lessons.hpp"
#include "app/cli/params/order.hpp"
#include "app/cli/params/relative.hpp"
#include "app/cli/params/rope.hpp"
#include "app/cli/params/sinusoidal.hpp"
#include "app/cli/params/toy.hpp"
#include "app/cli/view_table.hpp"

namespace posviz::cli {

using nlohmann::json;

// Options every view takes.
extern const std::vector<std::string> kCommonOptions;
const std::vector<std::string> kCommonOptions = {"-o", "--output", "--dtype", "--colormap", "--scale", "--text-scale", "--colorbar",
                                                 "--no-colorbar", "--axis-titles", "--no-axis-titles", "--caption",
                                                 "--no-caption", "--plain", "--budget", "--progress", "--help", "-h", "--size"};

namespace {

// The Relative tab's views' options, in --help order after the image views'.
std::vector<OptionSpec> relativeOptionSpecs() {
  return {
      // t5-buckets, xpos-scale, kerple-bias, fire-bias (app/cli/views/relative.cpp)
      {"--num-buckets", true, "N", "t5-buckets: relative_attention_num_buckets, 2..65536, even unless --causal (default 32)"},
      {"--max-distance", true, "N", "t5-buckets: relative_attention_max_distance, above the exact range, ..2147483647 (default 128)"},
      {"--scale-base", true, "X", "xpos-scale: scale_base in (0, 1e9] (default 512, torchscale's)"},
      optionSpec(params::xpos::kSide, "NAME"),
      optionSpec(params::xpos::kTorchscalePositions, ""),
      {"--kernel", true, "NAME", "kerple-bias: log (-r1*log(1 + r2*|i-j|)) or power (-r1*|i-j|^r2) (default log)"},
      {"--r1", true, "X", "kerple-bias: r1 in (0, 1e6] (default 1)"},
      {"--r2", true, "X", "kerple-bias: r2 in (0, 1e6], power kernel (0, 2] (default 1)"},
      {"--fire-c", true, "X", "fire-bias: c in psi(x) = log(c*x + 1), (0, 1e6] (default 0.1, the reference's init_c)"},
      {"--fire-threshold", true, "X", "fire-bias: L in psi(max(L, i)), [1, 1e9] (default 512, the reference's init_L)"},
      {"--fire-hidden", true, "N", "fire-bias: hidden units of the MLP f_theta, 1..4096 (default 32)"},
      // shaw-scores, txl-terms (app/cli/views/relative_scores.cpp)
      {"--clip", true, "N", "shaw-scores: Shaw's clipping distance k (table of 2k + 1 rows), 1..65536 (default 4)"},
      {"--variant", true, "NAME", "shaw-scores: shaw|relative_key|relative_key_query (HF BERT position_embedding_type)|"
                                  "relative_key_clamped (Wav2Vec2-BERT) (default shaw)"},
      optionSpec(params::shaw::kLeftMax, "N"),
      optionSpec(params::shaw::kRightMax, "N"),
      {"--indices", false, "", "shaw-scores: write the table row each (i, j) reads (int32) instead of the scores"},
      {"--sum", false, "", "txl-terms: write the sum a + b + c + d (positions, positions) instead of the four terms"},
  };
}

// Every option, in --help order; the Relative tab's views' come after the image views'.
std::vector<OptionSpec> allOptionSpecs() {
  std::vector<OptionSpec> specs = {
      {"-o", true, "FILE", "output file; the format follows the extension: .png .svg .npy .csv .json"},
      {"--output", true, "FILE", "same as -o"},
      {"--d-model", true, "N", "model width d_model, even, 2..1048576, attention 2..4096 (sinusoidal 128, learned 768, attention 8)"},
      {"--head-dim", true, "N", "RoPE head dimension, even, 2..1048576 (default 128, or the length of --q)"},
      {"--base", true, "X", "frequency base (RoPE theta, sinusoidal 10000, t2t max timescale), > 1 (default 10000)"},
      {"--positions", true, "N", "number of positions (rows), 1..2147483647; rope-decay: distances 0..N-1"},
      {"--position", true, "P", "first position (grid views, default 0); rope-rotate: position M of q"},
      {"--key-position", true, "N", "rope-rotate: position of k (default: --position)"},
      {"--heads", true, "N", "ALiBi head count, 1..65536 (default 8)"},
      {"--head", true, "H", "alibi-bias: export only head H, numbered from 1 as in the paper (1..heads)"},
      {"--slope", true, "X", "alibi-bias: one head with slope X in (0, 1e6] (the documents' m = 0.5), instead of --heads"},
      {"--layout", true, "NAME", "sinusoidal: interleaved|t2t (also tensor2tensor)|halves; RoPE: half-split|interleaved (default half-split)"},
      optionSpec(params::picture::kPixel, "NAME"),
      {"--scaling", true, "NAME", "RoPE context extension: none|linear|ntk|dynamic|yarn|llama3|longrope"},
      {"--factor", true, "X", "scaling factor (target / trained length), >= 1"},
      {"--original-max-positions", true, "N", "trained context L0, 1..2147483647 (default 4096)"},
      {"--seq-len", true, "N", "current sequence length (dynamic, longrope), >= 1 (default L0)"},
      {"--beta-fast", true, "X", "yarn: fast boundary in rotations, >= beta-slow (default 32)"},
      {"--beta-slow", true, "X", "yarn: slow boundary in rotations, > 0 (default 1)"},
      {"--low-freq-factor", true, "X", "llama3: low frequency factor, > 0 (default 1)"},
      {"--high-freq-factor", true, "X", "llama3: high frequency factor, > low (default 4)"},
      {"--mscale", true, "X", "yarn (DeepSeek variant): mscale, > 0"},
      {"--mscale-all-dim", true, "X", "yarn (DeepSeek variant): mscale_all_dim, > 0"},
      {"--short-factor", true, "LIST", "longrope: comma list, one factor > 0 per rotary pair"},
      {"--long-factor", true, "LIST", "longrope: comma list, one factor > 0 per rotary pair"},
      {"--attention-factor", true, "X", "yarn/longrope: attention factor override, in (0, 1000000]"},
      {"--rotary-fraction", true, "X", "partial rotary fraction in (0, 1] (default 1)"},
      optionSpec(params::scaling::kNoTruncate, ""),
      {"--causal", false, "", "causal mask: masked entries are -inf (alibi-bias, attention)"},
      {"--seed", true, "N", "random seed, 0..9223372036854775807 (default 0)"},
      {"--max-len", true, "N", "learned: table length max_len (default 1024, or the preset's)"},
      {"--table", true, "FILE.npy", "learned: load a 2-D float32/float64 table instead of initializing one"},
      optionSpec(params::learned::kStd, "X"),
      {"--q", true, "LIST", "query vector, comma list of head_dim finite numbers (default all ones)"},
      {"--k", true, "LIST", "key vector, comma list of head_dim finite numbers (default: --q)"},
      {"--text", true, "TEXT", "attention: the sentence, split on whitespace (default \"dog bites man\")"},
      {"--encoding", true, "NAME", "attention: none|sinusoidal|learned|rope|alibi (default none)"},
      {"--array", true, "NAME", "attention: weights|output for .npy/.csv/.png (default weights)"},
      optionSpec(params::order::kShuffled, "TEXT"),
      optionSpec(params::order::kMatrix, "NAME"),
      optionSpec(params::order::kToyHead, ""),
      optionSpec(params::toy::kRotateValues, ""),
      // extrapolation (app/cli/views/extrapolation.cpp); it also takes --encoding, --scaling, --factor,
      // --original-max-positions, --head-dim, --base, --positions, --seed, --text, --slope
      {"--multiples", true, "LIST", "extrapolation: the length sweep as multiples of L0, each > 0, at most 32 (default 1,2,4,8)"},
      {"--config", true, "FILE", "Hugging Face style config.json supplying the model's parameters"},
      {"--preset", true, "NAME", "a shipped model preset (see posviz --help); flags given override it"},
      {"--dtype", true, "f32|f64", ".npy/.csv/.json number type (default f32)"},
      {"--colormap", true, "NAME", "png/svg: viridis|magma|gray|rdbu|coolwarm|twilight|blues (default: by data)"},
      {"--scale", true, "N", "png/svg: pixels per cell side, 1..4096 (default: enough for a heatmap of 512 x 64 px or more, at most 2048 px a side)"},
      {"--colorbar", false, "", "png/svg: draw a colorbar with min/centre/max labels (default)"},
      {"--no-colorbar", false, "", "png/svg: no colorbar"},
      {"--axis-titles", false, "", "png/svg: draw axis titles with the first and last index (default)"},
      {"--no-axis-titles", false, "", "png/svg: no axis titles"},
      {"--caption", true, "TEXT", "png/svg: the caption line above the image, at most 300 bytes of printable text (default \"auto\" = the view and its parameters)"},
      // Picture defaults made for people, and the way back to raw pixels.
      {"--no-caption", false, "", "png/svg: no caption"},
      {"--text-scale", true, "X", "png/svg: text size against 15 px, 0.5..4 (the window's text size; default 1)"},
      {"--plain", false, "", "png/svg: one pixel per cell, no colorbar, axis titles or caption (raw pixels)"},
      {"--budget", true, "BYTES", "memory budget for one result (default 8G); larger requests are refused"},
      {"--sequence", true, "LIST", "mrope-angles: text runs (N tokens), images (TxHxW, the processor's grid_thw) and videos "
                                   "(vTxHxW or vTxHxW@SECONDS_PER_GRID), e.g. 4,1x8x12,3,v4x8x8@1,2"},
      {"--section", true, "LIST", "mrope-angles: rotary pairs per t,h,w axis, summing to the pairs (default: the model's)"},
      {"--interleaved-sections", false, "", "mrope-angles: axes alternate pair by pair (Qwen3-VL/3.5) instead of in blocks"},
      optionSpec(params::mrope::kIndexRule, "NAME"),
      optionSpec(params::mrope::kSpatialMerge, "N"),
      optionSpec(params::mrope::kTokensPerSecond, "X"),
      optionSpec(params::mrope::kTimestampTokens, "N"),
      {"--grid", true, "RxC", "axial-angles/axial-scores: the image's patch grid, rows x columns, each 1..4096 (default 16x16)"},
      optionSpec(params::axial::kScheme, "NAME"),
      {"--floor-scale", true, "X", "nope-temperature: Llama 4's floor_scale, > 0 (default 8192)"},
      {"--attn-scale", true, "X", "nope-temperature: Llama 4's attn_scale, > 0 (default 0.1)"},
  };
  const std::vector<OptionSpec> relative = relativeOptionSpecs();
  specs.insert(specs.end(), relative.begin(), relative.end());
  const std::vector<OptionSpec> tail = {
      optionSpec(params::example::kName, "NAME"),
      optionSpec(params::example::kStep, "N"),
      {"--size", true, "WxH", "grid views: write the W x H picture of the whole grid, each pixel the exact mean of its cells"},
      {"--layer-type", true, "KIND", "RoPE views with --config/--preset: the layers to show, full|sliding|chunked (default full)"},
      {"--progress", false, "", "show a progress bar on stderr (shown anyway when stderr is a terminal)"},
      {"--help", false, "", "this help"},
      {"-h", false, "", "this help"},
  };
  specs.insert(specs.end(), tail.begin(), tail.end());
  return specs;
}

}  // namespace

const std::vector<OptionSpec>& optionSpecs() {
  static const std::vector<OptionSpec> kSpecs = allOptionSpecs();
  return kSpecs;
}

const OptionSpec& specOf(const std::string& name) {
  for (const OptionSpec& s : optionSpecs()) {
    if (s.name == name) return s;
  }
  throw std::logic_error("no spec for " + name);
}

namespace {

Format formatOf(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError("-o: " + path + " is a directory, expected a file name");
  const std::string ext = [&] {
    std::string e = std::filesystem::path(path).extension().string();
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return e;
  }();
  if (ext == ".png") return Format::Png;
  if (ext == ".npy") return Format::Npy;
  if (ext == ".csv") return Format::Csv;
  if (ext == ".json") return Format::Json;
  if (ext == ".svg") return Format::Svg;
  throw UsageError("-o: got " + quotedText(path) + ", expected a file name ending in .png, .svg, .npy, .csv or .json");
}

const char* formatName(Format f) {
  switch (f) {
    case Format::Png: return ".png";
    case Format::Npy: return ".npy";
    case Format::Csv: return ".csv";
    case Format::Json: return ".json";
    case Format::Svg: return ".svg";
  }
  return "?";
}

// Options the view does not take are refused by name.
void requireOptionsApply(const ViewDef& info, const ParsedOptions& o) {
  for (const auto& [name, value] : o.values) {
    const bool common = std::find(kCommonOptions.begin(), kCommonOptions.end(), name) != kCommonOptions.end();
    const bool own = std::find(info.options.begin(), info.options.end(), name) != info.options.end();
    if (!common && !own) {
      throw UsageError(name + ": does not apply to view " + info.name + " (see posviz export " + info.name + " --help)");
    }
  }
}

// Output file, format, dtype, budget, progress.
void parseOutput(Request& r, const ViewDef& info, const ParsedOptions& o) {
  auto get = [&](const std::string& n) { return o.value(n); };

  // Output and format.
  if (o.has("-o") && o.has("--output")) throw UsageError("-o: given together with --output; give one");
  const std::optional<std::string> out = o.has("-o") ? get("-o") : get("--output");
  if (!out || out->empty()) throw UsageError("-o: an output file is required (posviz export " + info.name + " ... -o FILE)");
  r.output = *out;
  r.format = formatOf(r.output);
  if (isPicture(r.format) && !info.png) {
    throw UsageError("-o: " + std::string(formatName(r.format)) + " is not available for view " + info.name +
                     " (1-D data); use .npy, .csv or .json");
  }
  const bool png = isPicture(r.format);
  for (const char* pngOnly : {"--colormap", "--scale", "--text-scale", "--colorbar", "--no-colorbar", "--axis-titles", "--no-axis-titles", "--caption",
                              "--no-caption", "--plain"}) {
    if (o.has(pngOnly) && !png) throw UsageError(std::string(pngOnly) + ": applies to .png and .svg output only, not " + formatName(r.format));
  }
  if (auto d = get("--dtype")) {
    if (png) throw UsageError(std::string("--dtype: applies to .npy, .csv and .json output, not ") + formatName(r.format));
    r.dtype = parseChoiceOption("--dtype", *d, {"f32", "f64"}) == "f64" ? DType::F64 : DType::F32;
  }
  if (auto b = get("--budget")) setMemoryBudgetBytes(parseByteSizeOption("--budget", *b));
  r.progress = o.has("--progress");
  r.sizeText = o.value("--size");
  parseExportSize(r);  // refuses malformed sizes and views without an averaged picture, naming --size
  r.layerType = o.value("--layer-type");
  for (const auto& [name, value] : o.values) {
    const std::string& meta = specOf(name).metavar;
    if (meta == "X") r.numberOptions += (r.numberOptions.empty() ? "" : " ") + name + " " + value;
    if (meta == "LIST") r.numberOptions += (r.numberOptions.empty() ? "" : " ") + name;
  }
}

// Pictures are decorated by default; an option and its opposite, or --plain with a decoration or a
// scale, contradict each other and are refused rather than one silently winning.
void requirePictureOptionsAgree(const ParsedOptions& o) {
  const std::pair<const char*, const char*> opposites[] = {
      {"--colorbar", "--no-colorbar"}, {"--axis-titles", "--no-axis-titles"}, {"--caption", "--no-caption"}};
  for (const auto& [on, off] : opposites) {
    if (o.has(on) && o.has(off)) throw UsageError(std::string(on) + ": given together with " + off + "; give one");
  }
  if (!o.has("--plain")) return;
  for (const char* decoration : {"--colorbar", "--axis-titles", "--caption"}) {
    if (o.has(decoration)) {
      throw UsageError(std::string("--plain: one pixel per cell without decorations, but ") + decoration +
                       " asks for one; drop --plain (pictures are decorated by default) or " + decoration);
    }
  }
  if (o.has("--scale")) {
    throw UsageError("--plain: one pixel per cell, but --scale " + *o.value("--scale") +
                     " asks for more; for scaled cells without decorations give --scale N --no-colorbar --no-axis-titles --no-caption");
  }
}

// Options of .png and .svg output.
void parsePngOptions(Request& r, const ParsedOptions& o) {
  auto get = [&](const std::string& n) { return o.value(n); };
  if (auto c = get("--colormap")) {
    r.colormap = parseColormapName(*c);
    if (!r.colormap) {
      std::string names;
      for (Colormap m : allColormaps()) {
        if (!names.empty()) names += '|';
        names += colormapName(m);
      }
      throw UsageError("--colormap: got " + quotedText(*c) + ", expected one of " + names);
    }
  }
  requirePictureOptionsAgree(o);
  r.plain = o.has("--plain");
  if (auto s = get("--scale")) r.scale = static_cast<int>(parseIntOption("--scale", *s, 1, 4096));
  if (r.plain) r.scale = 1;
  if (auto t = get("--text-scale"))
    r.textScale = static_cast<float>(parseRealOption("--text-scale", *t, RealRange{kMinTextScale, kMaxTextScale}));
  r.colorbar = !r.plain && !o.has("--no-colorbar");
  r.axisTitles = !r.plain && !o.has("--no-axis-titles");
  r.caption = r.plain || o.has("--no-caption") ? "" : "auto";
  if (auto c = get("--caption")) {
    if (c->empty()) throw UsageError("--caption: got \"\", expected a caption or \"auto\" (--no-caption for none)");
    // One line above the picture: its width grows with the text, so the text is budgeted like a size.
    if (c->size() > kMaxCaptionBytes) {
      throw UsageError("--caption: got " + quotedText(*c) + ", expected one line of at most " + std::to_string(kMaxCaptionBytes) +
                       " bytes");
    }
    for (std::size_t i = 0; i < c->size(); ++i) {
      const auto u = static_cast<unsigned char>((*c)[i]);
      if (u < 0x20 || u == 0x7f) {
        throw UsageError("--caption: got " + quotedText(*c) + ", which has a control character at byte " + std::to_string(i) +
                         "; expected one line of printable text");
      }
    }
    r.caption = *c;
  }
}

// --config FILE or --preset NAME: the model's values become the view's defaults.
void applyModelOptions(Request& r, const ViewDef& info, const ParsedOptions& o) {
  auto get = [&](const std::string& n) { return o.value(n); };
  if (o.has("--config") && o.has("--preset")) throw UsageError("--config: given together with --preset; give one");
  if (auto c = get("--config")) {
    try {
      r.model = loadModelConfig(*c);
    } catch (const ConfigError& e) {
      throw UsageError(std::string("--config: ") + e.what());
    }
    if (info.applyModel) info.applyModel(r, *r.model, "--config " + *c);
  }
  if (auto p = get("--preset")) {
    try {
      r.model = loadPreset(*p);
    } catch (const ConfigError& e) {
      throw UsageError(std::string("--preset: ") + e.what());
    }
    if (info.applyModel) info.applyModel(r, *r.model, "--preset " + *p);
  }
}

// Options several views share: sizes, positions, seed, base.
void parseSharedOptions(Request& r, const ViewDef& info, const ParsedOptions& o) {
  auto get = [&](const std::string& n) { return o.value(n); };
  if (const Param* p = viewParam(info, "--d-model")) {
    readParam(o, *p, r.dModel);
  } else if (auto d = get("--d-model")) {
    r.dModel = evenDim("--d-model", *d, info.maxDModel);
  }
  if (const Param* p = viewParam(info, "--positions")) {
    r.positionsGiven = readParam(o, *p, r.positions);
  } else if (auto n = get("--positions")) {
    r.positions = static_cast<int>(parseIntOption("--positions", *n, 1, kMaxInt));
    r.positionsGiven = true;
  }
  if (const Param* p = viewParam(info, "--heads")) {
    readParam(o, *p, r.heads);
  } else if (auto h = get("--heads")) {
    r.heads = static_cast<int>(parseIntOption("--heads", *h, 1, kMaxHeads));
  }
  r.causal = o.has("--causal");
  if (auto s = get("--seed")) r.seed = static_cast<std::uint64_t>(parseIntOption("--seed", *s, 0, std::numeric_limits<long long>::max()));
  if (auto p = get("--position")) {
    if (info.realPositions) {
      r.position = parseRealOption("--position", *p, RealRange{0.0, 1.0e15});
    } else {
      r.firstPos = parseIntOption("--position", *p, 0, 1'000'000'000'000'000LL);
    }
  }
  r.keyPosition = r.position;
  if (auto p = get("--key-position")) r.keyPosition = parseRealOption("--key-position", *p, RealRange{0.0, 1.0e15});
  if (const Param* p = viewParam(info, "--base")) {
    double base = 0.0;
    if (readParam(o, *p, base)) r.sin.base = r.rope.base = base;
  } else if (auto b = get("--base")) {
    const double base = parseRealOption("--base", *b, RealRange{1.0, kMaxBase, true, false});
    r.sin.base = base;
    r.rope.base = base;
  }
}

}  // namespace

int evenDim(const std::string& flag, const std::string& text, long long max) {
  const long long v = parseIntOption(flag, text, 2, max);
  if (v % 2 != 0) {
    throw UsageError(flag + ": got " + quotedText(text) + ", expected an even integer in [2, " + std::to_string(max) +
                     "] (dims come in pairs)");
  }
  return static_cast<int>(v);
}

Request parseRequest(const ViewDef& info, const ParsedOptions& o) {
  Request r;
  r.view = &info;
  requireOptionsApply(info, o);
  parseOutput(r, info, o);
  parsePngOptions(r, o);
  if (info.setDefaults) info.setDefaults(r);
  applyModelOptions(r, info, o);
  parseSharedOptions(r, info, o);
  if (info.parse) info.parse(r, o);
  return r;
}

// Refuses a missing directory, an unwritable one, or a directory as the output, before any work.
void checkOutputPath(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UsageError("-o: " + path + " is a directory, expected a file name");
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) throw RuntimeFailure("cannot write " + path + ": directory " + dir.string() + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0) {
    throw RuntimeFailure("cannot write " + path + ": directory " + dir.string() + " is not writable");
  }
}

json ropeParamsJson(const RopeParams& p) {
  json j = {{"head_dim", p.headDim}, {"base", p.base}, {"rotary_fraction", p.rotaryFraction},
            {"rotary_dims", ropeRotaryDims(p)}, {"layout", ropeLayoutName(p.layout)}};
  const RopeScaling& s = p.scaling;
  json sj = {{"method", scalingName(s.method)}};
  if (s.method != ScalingMethod::None) {
    sj["factor"] = s.factor;
    sj["original_max_positions"] = s.originalMaxPositions;
    if (s.seqLen > 0) sj["seq_len"] = s.seqLen;
  }
  if (s.method == ScalingMethod::Yarn) {
    sj["beta_fast"] = s.betaFast;
    sj["beta_slow"] = s.betaSlow;
    if (s.mscale > 0) sj["mscale"] = s.mscale;
    if (s.mscaleAllDim > 0) sj["mscale_all_dim"] = s.mscaleAllDim;
  }
  if (s.method == ScalingMethod::Llama3) {
    sj["low_freq_factor"] = s.lowFreqFactor;
    sj["high_freq_factor"] = s.highFreqFactor;
  }
  if (s.method == ScalingMethod::LongRope) {
    sj["short_factor"] = s.shortFactor;
    sj["long_factor"] = s.longFactor;
  }
  if (s.attentionFactor) sj["attention_factor"] = *s.attentionFactor;
  j["scaling"] = sj;
  return j;
}

std::uint64_t checkedProduct(std::initializer_list<std::uint64_t> factors) {
  std::uint64_t p = 1;
  for (std::uint64_t f : factors) {
    if (f != 0 && p > std::numeric_limits<std::uint64_t>::max() / f) return std::numeric_limits<std::uint64_t>::max();
    p *= f;
  }
  return p;
}

json gridRowsJson(const Grid& g) {
  json out = json::array();
  for (int i = 0; i < g.rows; ++i) out.push_back(std::vector<float>(g.row(i), g.row(i) + g.cols));
  return out;
}

void modelMismatch(const Request& r, const ModelConfig& m, const std::string& source, const char* needs) {
  const char* has = m.encoding == ModelEncoding::Rope      ? "RoPE"
                    : m.encoding == ModelEncoding::Alibi   ? "ALiBi"
                    : m.encoding == ModelEncoding::Learned ? "learned positions"
                                                                : "sinusoidal positions";
  throw UsageError(source + ": the model uses " + std::string(has) + ", but view " + r.view->name + " needs " + needs);
}

// A number held in a nlohmann document (the views whose .json is built whole, whatever the
// format): the value, its float32 copy and its text.
constexpr std::uint64_t kDocumentNumberBytes = 64;

// Refuses, before any work, a request whose result and the writer's buffers would not fit the
// memory budget: the values (float32, or float64 with --dtype f64), a built JSON document, and
// for .png the RGB pixels next to the float32 grid.
// With --size the result is the W x H picture (and what the view must hold to average it).
void requireResultBudget(const Request& r) {
  const std::optional<ExportSize> size = parseExportSize(r);
  const std::uint64_t elements = size    ? r.view->averagedElements(r, size->width, size->height)
                                 : r.view->elements ? r.view->elements(r)
                                                    : 0;
  if (elements == 0) return;  // a loaded --table: the reader checks the file's size
  const std::string fn = r.view->name;
  std::uint64_t bytesPer = r.dtype == DType::F64 ? 8 : 4;
  std::string what = "the result";
  if (r.view->buildsDocument) {
    bytesPer = kDocumentNumberBytes;
    what = "the result and its JSON document";
  }
  if (!isPicture(r.format)) {
    requireBudget(fn.c_str(), elements, bytesPer, what);
    return;
  }
  // The picture's RGB pixels next to the values (an SVG over 65536 cells embeds the same pixels):
  // the scaled cells, at most kMaxAutoScaledPixels or one per cell with the automatic scale.
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const std::string scaleText = r.scale > 0                                   ? "--scale " + std::to_string(r.scale)
                                : elements >= kMaxAutoScaledPixels ? std::string("one per cell")
                                                                        : std::string("scaled to be readable");
  what = "the result with its picture's pixels (" + scaleText + ")";
  try {
    if (r.scale > 0) {
      const std::uint64_t rgb = checkedProduct({static_cast<std::uint64_t>(r.scale), static_cast<std::uint64_t>(r.scale), 3});
      requireBudget(fn.c_str(), elements, rgb > kMax - bytesPer ? kMax : bytesPer + rgb, what);
    } else if (elements >= kMaxAutoScaledPixels) {
      requireBudget(fn.c_str(), elements, bytesPer + 3, what);  // one pixel per cell
    } else {
      requireBudget(fn.c_str(), elements * bytesPer + kMaxAutoScaledPixels * 3, 1, what);
    }
  } catch (const std::invalid_argument& e) {
    if (size || !r.view->computeAveraged) throw;
    throw std::invalid_argument(std::string(e.what()) + "; --size WxH (e.g. --size 1024x1024) writes the exact area-averaged picture of the whole grid");
  }
}

}  // namespace posviz::cli
