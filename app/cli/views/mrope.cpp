// mrope.cpp: the mrope-angles view. Qwen2-VL-style models give every token three position ids
// (t, h, w) by their own get_rope_index (core/mrope.hpp); each rotary pair turns by one of them.
#include <cmath>
#include <cstdio>
#include <string>

#include "app/cli/config_readings.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/cli/views/rope_view.hpp"
#include "app/cli/views/view_support.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::cli {

namespace {

using nlohmann::json;

namespace mp = params::mrope;

void mropeModel(Request& r, const ModelConfig& m, const std::string& source) {
  ropeModel(r, m, source);
  const auto mrope = readMropeConfig(m);  // none: a 1-D RoPE model, refused below for want of sections
  if (!mrope) return;
  r.mropeSection = mrope->section;
  r.mropeInterleaved = mrope->interleaved;
  if (mrope->unmodelledRule) r.mropeUnmodelled = m.modelType;
  if (mrope->rule) r.mropeIndex.rule = *mrope->rule;
  if (mrope->spatialMerge > 0) r.mropeIndex.spatialMerge = mrope->spatialMerge;
  if (mrope->tokensPerSecond > 0.0) r.mropeIndex.tokensPerSecond = mrope->tokensPerSecond;
}

// "N" text tokens, "TxHxW" an image grid, "vTxHxW" or "vTxHxW@S" a video grid at S seconds per grid.
MropeSegment parseSegment(const std::string& entry) {
  const bool video = !entry.empty() && entry[0] == 'v';
  const std::string body = video ? entry.substr(1) : entry;
  int t = 0, h = 0, w = 0, used = 0;
  if (std::sscanf(body.c_str(), "%dx%dx%d%n", &t, &h, &w, &used) == 3 && t >= 1 && h >= 1 && w >= 1 && t <= 4096 &&
      h <= 4096 && w <= 4096) {
    const std::string tail = body.substr(static_cast<std::size_t>(used));
    if (!video && tail.empty()) return mropeImage(t, h, w);
    if (video && tail.empty()) return mropeVideo(t, h, w);
    if (video && tail[0] == '@') {
      try {
        return mropeVideo(t, h, w, parseRealOption("--sequence", tail.substr(1), RealRange{0.0, 3600.0}));
      } catch (const UsageError&) {
        throw UsageError("--sequence: got " + quotedText(entry) + ", expected seconds per grid after @, a number in [0, 3600]");
      }
    }
  }
  if (video || entry.find('x') != std::string::npos) {
    throw UsageError("--sequence: got " + quotedText(entry) + ", expected an image TxHxW or a video vTxHxW[@SECONDS] with each "
                     "side in [1, 4096] and seconds per grid in [0, 3600]");
  }
  return mropeText(static_cast<int>(parseIntOption("--sequence", entry, 1, 1 << 20)));
}

void parseSequence(Request& r, const ParsedOptions& o) {
  const std::string sequence = o.value("--sequence").value_or("4,1x4x6,3");
  std::size_t start = 0;
  while (start <= sequence.size()) {
    const std::size_t comma = sequence.find(',', start);
    const std::string entry = sequence.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (entry.empty()) throw UsageError("--sequence: got " + quotedText(sequence) + ", expected entries N, TxHxW or vTxHxW[@S] separated by commas");
    r.mropeSegments.push_back(parseSegment(entry));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

void parseSections(Request& r, const ParsedOptions& o) {
  if (auto sec = o.value("--section")) {
    r.mropeSection.clear();
    for (double x : parseRealListOption("--section", *sec, RealRange{0.0, 1 << 20})) {
      if (x != std::floor(x)) throw UsageError("--section: got " + quotedText(*sec) + ", expected whole pair counts");
      r.mropeSection.push_back(static_cast<int>(x));
    }
  }
  if (o.has("--interleaved-sections")) r.mropeInterleaved = true;
  const int pairs = ropeNumPairs(r.rope);
  if (r.mropeSection.empty()) {
    throw UsageError("--section: none given and the model has no mrope_section; give three pair counts summing to " +
                     std::to_string(pairs) + " (e.g. a Qwen2.5-VL preset has 16,24,24)");
  }
  int sum = 0;
  for (int x : r.mropeSection) sum += x;
  if (r.mropeSection.size() != 3 || sum != pairs) {
    throw UsageError("--section: " + std::to_string(r.mropeSection.size()) + " counts summing to " + std::to_string(sum) +
                     ", expected 3 (t, h, w) summing to the " + std::to_string(pairs) + " rotary pairs");
  }
}

void parseIndexRule(Request& r, const ParsedOptions& o) {
  MropeIndexOptions& x = r.mropeIndex;
  const bool ruleGiven = readParam(o, mp::kIndexRule, x.rule);
  if (!ruleGiven && !r.mropeUnmodelled.empty()) {
    throw UsageError("--index-rule: " + quotedText(r.mropeUnmodelled) + "'s own get_rope_index (audio positions or merged time "
                     "steps) is not one posviz models; give --index-rule steps|seconds|frames to draw one that is");
  }
  readParam(o, mp::kSpatialMerge, x.spatialMerge);
  readParam(o, mp::kTokensPerSecond, x.tokensPerSecond);
  readParam(o, mp::kTimestampTokens, x.timestampTokens);
  try {
    (void)mropeTokenCount(r.mropeSegments, x);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--sequence: " + std::string(e.what()));
  }
}

void mropeParse(Request& r, const ParsedOptions& o) {
  ropeParse(r, o);
  parseSequence(r, o);
  parseSections(r, o);
  parseIndexRule(r, o);
}

std::uint64_t mropeElements(const Request& r) {
  return checkedProduct({static_cast<std::uint64_t>(mropeTokenCount(r.mropeSegments, r.mropeIndex)),
                         static_cast<std::uint64_t>(ropeNumPairs(r.rope))});
}

Dataset computeMropeAngles(const Request& r, const ExportProgress& progress) {
  Dataset d;
  const MropePositions ids = mropePositionIds(r.mropeSegments, r.mropeIndex);
  d.grid = mropeAngleGrid(r.rope, r.mropeSection, r.mropeInterleaved, ids);
  d.shape = {d.grid.rows, d.grid.cols};
  json axes = json::array();
  for (MropeAxis a : mropePairAxes(r.mropeSection, r.mropeInterleaved)) axes.push_back(a == MropeAxis::T ? "t" : a == MropeAxis::H ? "h" : "w");
  d.document["params"] = ropeParamsJson(r.rope);
  d.document["params"]["section"] = r.mropeSection;
  d.document["params"]["interleaved_sections"] = r.mropeInterleaved;
  d.document["params"]["index_rule"] = mropeIndexRuleName(r.mropeIndex.rule);
  d.document["params"]["spatial_merge"] = r.mropeIndex.spatialMerge;
  d.document["params"]["tokens_per_second"] = r.mropeIndex.tokensPerSecond;
  d.document["params"]["timestamp_tokens"] = r.mropeIndex.timestampTokens;
  d.document["position_ids"] = {{"t", ids.t}, {"h", ids.h}, {"w", ids.w}};
  d.document["pair_axes"] = axes;
  d.rowTitle = "token";
  d.colTitle = "pair i";
  d.valueName = "angle (rad)";
  d.isAngle = true;
  d.csvComments = {"m-rope angles id_axis(i) * theta_i mod 2pi: rows = tokens, cols = pairs; position ids by the " +
                   std::string(mropeIndexRuleName(r.mropeIndex.rule)) + " rule"};
  progress(1.0);
  return d;
}

}  // namespace

ViewDef mropeAnglesView() {
  ViewDef v = ropeView("mrope-angles",
                       "M-RoPE angles for a sequence of text, images and videos, position ids (t, h, w) by the model's own "
                       "get_rope_index (Qwen2-VL steps, Qwen2.5-VL seconds, Qwen3-VL / GLM-4V frames)",
                       ".npy/.csv: (tokens, pairs) angles mod 2*pi, row = token, col = pair; .json: also the t, h, w "
                       "position ids per token and the axis each pair follows; .png: heatmap",
                       {"--sequence", "--section", "--interleaved-sections", "--index-rule", "--spatial-merge",
                        "--tokens-per-second", "--timestamp-tokens"});
  v.params.insert(v.params.end(), {&mp::kIndexRule, &mp::kSpatialMerge, &mp::kTokensPerSecond, &mp::kTimestampTokens});
  v.png = true;
  v.applyModel = mropeModel;
  v.parse = mropeParse;
  v.elements = mropeElements;
  v.compute = computeMropeAngles;
  return v;
}

}  // namespace posviz::cli
