// panel_relative.cpp: the "Relative & more" view.
//
// [SECTION] Update: parameters -> T5 grids, the three bias grids, the xPos curves
// [SECTION] Drawing: parameters
// [SECTION] Drawing: heatmaps and the score plot
// [SECTION] Settings
#include "app/gui/panels/app_state.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/panel_relative.hpp"

#include "app/cli/config_readings.hpp"

#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <optional>

#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/retained.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/alibi.hpp"
#include "core/kerple.hpp"
#include "core/relative_bias.hpp"
#include "core/rope.hpp"
#include "core/txl_relative.hpp"
#include "core/xpos.hpp"

namespace posviz::app {

//-----------------------------------------------------------------------------
// [SECTION] Update: parameters -> T5 grids, the three bias grids, the xPos curves
//-----------------------------------------------------------------------------

namespace {

namespace params = cli::params;

T5BucketParams t5Params(const RelativePanelState& s) { return {s.numBuckets, s.maxDistance, !s.t5Causal}; }
KerpleParams kerpleParams(const RelativePanelState& s) {
  return {s.kerplePower ? KerpleKernel::Power : KerpleKernel::Log, s.kerpleR1, s.kerpleR2};
}
FireParams fireParams(const RelativePanelState& s) { return {s.fireC, s.fireThreshold}; }
XposParams xposParams(const RelativePanelState& s) { return {s.headDim, s.ropeBase, s.scaleBase}; }

// The power kernel is conditionally positive definite only for r2 <= 2 (Chi et al. 2022).
constexpr double kPowerMaxR2 = 2.0;

// The sliders cannot express every constraint: bidirectional buckets need 2 exact ones a side
// (an odd count is split as HF splits it, num_buckets // 2), and max_distance must lie above the
// exact range.
void clampParameters(RelativePanelState& s) {
  if (!s.t5Causal) s.numBuckets = std::max(s.numBuckets, 4);
  const int exact = (s.t5Causal ? s.numBuckets : s.numBuckets / 2) / 2;
  s.maxDistance = std::max(s.maxDistance, exact + 1);
  s.t5Head = std::clamp(s.t5Head, 0, s.t5Heads - 1);
  if (s.kerplePower) s.kerpleR2 = std::min(s.kerpleR2, kPowerMaxR2);
  s.txlQuery = std::clamp(s.txlQuery, 0, s.numPositions - 1);
  s.txlDModel -= s.txlDModel % 2;
}

void computeT5(RelativePanelState& s) {
  const T5BucketParams p = t5Params(s);
  s.buckets = t5BucketGrid(p, s.numPositions);
  s.biasTable = t5BiasTable(s.numBuckets, s.t5Heads, static_cast<std::uint64_t>(s.t5Seed));
  s.t5Bias = t5BiasGrid(p, s.biasTable, s.t5Head, s.numPositions);
}

void computeBiases(RelativePanelState& s) {
  s.kerple = kerpleBiasGrid(kerpleParams(s), s.numPositions, true);
  s.alibi = alibiBiasGrid(s.alibiSlope, s.numPositions, true);
}

// One colour scale over KERPLE, FIRE and ALiBi (FIRE's grid may still be the last one while
// its next is made: the scale follows when it lands).
void updateBiasRange(RelativePanelState& s) {
  s.biasRange = finiteRange(s.kerple);
  for (const Grid* g : {&s.fire, &s.alibi}) {
    if (g->values.empty()) continue;
    const ValueRange r = finiteRange(*g);
    s.biasRange.min = std::min(s.biasRange.min, r.min);
    s.biasRange.max = std::max(s.biasRange.max, r.max);
  }
}

void applyFire(RelativePanelState& s, Grid fire) {
  s.fire = std::move(fire);
  updateBiasRange(s);
  refreshImage(s.fire, s.fireMap, s.fireImage, s.version, true, 256);
}

// q = k = all ones, as the RoPE tab's decay curve: every pair contributes 2 cos(d theta_i), and
// xPos multiplies pair i by zeta_i^(d / scale_base).
void computeXpos(RelativePanelState& s) {
  const XposParams xp = xposParams(s);
  const std::vector<double> ones(static_cast<std::size_t>(s.headDim), 1.0);
  s.xposScore = xposScoreByOffset(xp, ones, ones, s.maxOffset);
  RopeParams rp;
  rp.headDim = s.headDim;
  rp.base = s.ropeBase;
  rp.layout = RopeLayout::Interleaved;   // xPos's (torchscale's) pairing
  const std::vector<float> onesF(static_cast<std::size_t>(s.headDim), 1.0f);
  const std::vector<double> both = ropeScoreByOffset(rp, onesF, onesF, s.maxOffset + 1);
  s.ropeScore.assign(both.begin() + s.maxOffset, both.end());   // r = 0 .. maxOffset
  s.offsets.resize(s.xposScore.size());
  for (std::size_t d = 0; d < s.offsets.size(); ++d) s.offsets[d] = static_cast<double>(d);
  const int length = s.maxOffset + 1;
  const long long first = xposTorchscaleFirstPosition(length);
  const int last = s.headDim / 2 - 1;   // only pair 0 and the last pair are drawn: no whole scale grid
  s.xposPositions.resize(static_cast<std::size_t>(length));
  s.xposQueryFirst.resize(s.xposPositions.size());
  s.xposKeyFirst.resize(s.xposPositions.size());
  s.xposQueryLast.resize(s.xposPositions.size());
  s.xposKeyLast.resize(s.xposPositions.size());
  for (int n = 0; n < length; ++n) {
    const auto i = static_cast<std::size_t>(n);
    const double pos = static_cast<double>(first + n);
    s.xposPositions[i] = pos;
    s.xposQueryFirst[i] = static_cast<float>(xposQueryScale(xp, 0, pos));   // float32, as xposScaleGrid's cells
    s.xposKeyFirst[i] = static_cast<float>(xposKeyScale(xp, 0, pos));
    s.xposQueryLast[i] = static_cast<float>(xposQueryScale(xp, last, pos));
    s.xposKeyLast[i] = static_cast<float>(xposKeyScale(xp, last, pos));
  }
}

// Transformer-XL's (a) .. (d) for the query row txlQuery against every key j, from core.
void computeTxl(RelativePanelState& s) {
  const int t = s.numPositions;
  const TxlWeights w = txlSeededWeights(s.txlDModel, s.txlDHead, static_cast<std::uint64_t>(s.txlSeed));
  const std::vector<double> emb = txlSeededEmbeddings(t, s.txlDModel, static_cast<std::uint64_t>(s.txlSeed) + 1);
  s.txlKeys.assign(static_cast<std::size_t>(t), 0.0);
  for (auto& v : s.txlTerm) v.assign(static_cast<std::size_t>(t), 0.0);
  s.txlTotal.assign(static_cast<std::size_t>(t), 0.0);
  for (int j = 0; j < t; ++j) {
    const auto jj = static_cast<std::size_t>(j);
    const TxlTerms terms = txlTerms(w, emb, s.txlQuery, j);
    s.txlKeys[jj] = j;
    for (std::size_t k = 0; k < 4; ++k) {
      s.txlTerm[k][jj] = terms[k];
      s.txlTotal[jj] += terms[k];
    }
  }
}

void resetViews(RelativePanelState& s) {
  for (HeatmapState* hs : {&s.bucketMap, &s.tableMap, &s.t5BiasMap, &s.kerpleMap, &s.fireMap, &s.alibiMap}) {
    hs->resetView();
    hs->wanted = {};
  }
}

// onWorker: FIRE's grid is asked of s.fireJob (the window); else made at once (tests).
void update(RelativePanelState& s, bool onWorker) {
  if (!s.dirty) return;
  s.dirty = false;
  s.error.clear();
  const auto t0 = std::chrono::steady_clock::now();
  clampParameters(s);
  if (s.viewPositions != s.numPositions) {
    s.viewPositions = s.numPositions;
    resetViews(s);
  }
  const std::uint64_t t5 = RetainedKey().add(s.numPositions).add(s.numBuckets).add(s.maxDistance).add(s.t5Causal)
                               .add(s.t5Heads).add(s.t5Seed).add(s.t5Head).value();
  const std::uint64_t bias = RetainedKey().add(s.numPositions).add(s.alibiSlope).add(s.kerplePower).add(s.kerpleR1)
                                 .add(s.kerpleR2).value();
  const std::uint64_t fire = RetainedKey().add(s.numPositions).add(s.fireC).add(s.fireThreshold).add(s.fireHidden)
                                 .add(s.fireSeed).value();
  const std::uint64_t xpos = RetainedKey().add(s.headDim).add(s.ropeBase).add(s.scaleBase).add(s.maxOffset).value();
  const std::uint64_t txl = RetainedKey().add(s.numPositions).add(s.txlQuery).add(s.txlDModel).add(s.txlDHead)
                                .add(s.txlSeed).value();
  const bool doT5 = t5 != s.t5Key, doBias = bias != s.biasKey, doFire = fire != s.fireKey;
  try {
    if (doT5) computeT5(s);
    if (doBias) computeBiases(s);
    if (doFire) {
      s.fireMlp = fireSeededMlp(s.fireHidden, static_cast<std::uint64_t>(s.fireSeed));
      const FireParams fp = fireParams(s);
      const int t = s.numPositions;
      if (onWorker) s.fireJob.request([fp, mlp = s.fireMlp, t](JobControl&) { return fireBiasGrid(fp, mlp, t); });
      else s.fire = fireBiasGrid(fp, s.fireMlp, t);
    }
    if (xpos != s.xposKey) computeXpos(s);
    if (txl != s.txlKey) computeTxl(s);
  } catch (const std::exception& e) {
    s.error = e.what();
    s.t5Key = s.biasKey = s.fireKey = s.xposKey = s.txlKey = 0;   // recompute everything once the input is fixed
    return;
  }
  s.t5Key = t5;
  s.biasKey = bias;
  s.fireKey = fire;
  s.xposKey = xpos;
  s.txlKey = txl;
  if (doT5) {
    s.tableMap.resetView();   // the table's shape follows num_buckets and heads
    s.tableMap.wanted = {};
    refreshImage(s.buckets, s.bucketMap, s.bucketImage, s.version, true, 256);
    refreshImage(s.biasTable, s.tableMap, s.tableImage, s.version, true, 256);
    refreshImage(s.t5Bias, s.t5BiasMap, s.t5BiasImage, s.version, true, 256);
  }
  if (doBias || doFire) updateBiasRange(s);
  if (doBias) {
    refreshImage(s.kerple, s.kerpleMap, s.kerpleImage, s.version, true, 256);
    refreshImage(s.alibi, s.alibiMap, s.alibiImage, s.version, true, 256);
  }
  if (doFire && !onWorker) refreshImage(s.fire, s.fireMap, s.fireImage, s.version, true, 256);
  s.computeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The window's path: what moved at once but FIRE, whose grid lands from the worker.
void requestRelative(RelativePanelState& s) {
  update(s, true);
  if (s.fireJob.poll()) {
    if (Grid* g = s.fireJob.result()) applyFire(s, std::move(*g));   // of an earlier T too, while T is dragged
    s.computeMs = s.fireJob.millis();
  }
  if (!s.fireJob.error().empty()) s.error = s.fireJob.error();
}

}  // namespace

void updateRelativePanel(RelativePanelState& s) { update(s, false); }

//-----------------------------------------------------------------------------
// [SECTION] Drawing: parameters
//-----------------------------------------------------------------------------

namespace {

bool markDirty(bool moved, RelativePanelState& s) {
  if (moved) s.dirty = true;
  return moved;
}

void drawT5Parameters(RelativePanelState& s) {
  ImGui::TextUnformatted("T5 relative buckets");
  markDirty(paramSlider(params::relative::kTabPositions, s.numPositions, "Query positions i and key positions j = 0 .. T-1 of every grid on this tab."), s);
  markDirty(paramSlider(params::t5::kNumBuckets, s.numBuckets,
                      "relative_attention_num_buckets N. Bidirectional: N/2 per direction (even N); of each side's N',\n"
                      "distances below N'/2 get a bucket each, the rest log-spaced up to max_distance."), s);
  markDirty(paramSlider(params::t5::kMaxDistance, s.maxDistance,
                      "relative_attention_max_distance D: every distance >= D shares the last bucket of its side.\n"
                      "bucket = N'/2 + trunc(log(a / (N'/2)) / log(D / (N'/2)) * (N' - N'/2)), capped at N' - 1."), s);
  if (ImGui::Checkbox("causal (decoder)", &s.t5Causal)) s.dirty = true;
  HelpMarker("Decoder self-attention: only the past counts (a = max(i - j, 0)), all N buckets on one side;\n"
             "keys after the query share bucket 0.");
  markDirty(paramSlider(params::t5::kHeads, s.t5Heads, "Columns of the bias table: T5 learns one scalar per (bucket, head), added to q.k before softmax."), s);
  int head = s.t5Head + 1;
  if (markDirty(paramSlider(params::t5::kHead, head, "The head whose bias grid table[bucket(j - i)][head] is shown. Click a table column too.",
                          SliderSpan{1, static_cast<double>(s.t5Heads)}), s)) {
    s.t5Head = head - 1;
  }
  markDirty(paramSlider(params::t5::kSeed, s.t5Seed, "The table is random normal numbers from the seed, standing in for trained weights."), s);
}

void drawKerpleParameters(RelativePanelState& s) {
  int kernel = s.kerplePower ? 1 : 0;
  ImGui::TextUnformatted("KERPLE");
  ImGui::SameLine();
  if (markDirty(paramChoiceIndex(params::kerple::kKernel, kernel,
                               "KERPLE (Chi et al. 2022): log -r1 log(1 + r2 |i - j|); power -r1 |i - j|^r2 with 0 < r2 <= 2.\n"
                               "Power with r2 = 1 is ALiBi with slope r1."), s)) {
    s.kerplePower = kernel == 1;
  }
  markDirty(paramSlider(params::kerple::kR1, s.kerpleR1, "KERPLE's scale r1 > 0 (learned per head)."), s);
  const std::optional<SliderSpan> r2Span =
      s.kerplePower ? std::optional<SliderSpan>(SliderSpan{params::kerple::kR2.min, kPowerMaxR2}) : std::nullopt;
  markDirty(paramSlider(params::kerple::kR2, s.kerpleR2, "KERPLE's r2 > 0: inside the log, or the power's exponent (<= 2).", r2Span), s);
}

void drawBiasParameters(RelativePanelState& s) {
  ImGui::TextUnformatted("Bias grids (causal)");
  markDirty(paramSlider(params::alibi::kRelativeTabSlope, s.alibiSlope, "ALiBi: B(i, j) = -m (i - j). Press et al. 2022."), s);
  ImGui::Checkbox("one colour scale", &s.sharedScale);
  HelpMarker("On: KERPLE, FIRE and ALiBi share one range, so their strengths compare as they act.\n"
             "Off: each grid its own range, to see the shape of each.");
  drawKerpleParameters(s);
  markDirty(paramSlider(params::fire::kC, s.fireC,
                      "FIRE (Li et al. 2023): b(i, j) = f(psi(i - j) / (psi(max(L, i)) + 1e-6)), psi(x) = log(c x + 1)."), s);
  markDirty(paramSlider(params::fire::kThreshold, s.fireThreshold,
                      "The threshold L: queries before L are normalised by psi(L), later ones by their own psi(i)."), s);
  markDirty(paramSlider(params::fire::kHidden, s.fireHidden, "Hidden units of f: 1 -> hidden (ReLU) -> 1."), s);
  markDirty(paramSlider(params::fire::kSeed, s.fireSeed, "f's weights are seeded as nn.Linear initialises them (no trained FIRE weights are published)."), s);
}

void drawXposParameters(RelativePanelState& s) {
  ImGui::TextUnformatted("xPos on RoPE");
  markDirty(paramSlider(params::rope::kHeadDim, s.headDim, "d: pairs i = 0 .. d/2 - 1, zeta_i = (2i/d + 0.4) / 1.4."), s);
  markDirty(paramSlider(params::rope::kBase, s.ropeBase, "theta_i = base^(-2i/d)."), s);
  markDirty(paramSlider(params::xpos::kScaleBase, s.scaleBase,
                      "xPos: query n scaled by zeta_i^(n / scale_base), key m by zeta_i^(-m / scale_base), so pair i of\n"
                      "q.k carries zeta_i^((n - m) / scale_base). Sun et al. 2022."), s);
  markDirty(paramSlider(params::xpos::kMaxOffset, s.maxOffset, "Distances n - m = 0 .. this on the plot's x axis."), s);
  ImGui::Checkbox("query and key scales", &s.xposShowSides);
  HelpMarker("The plot shows each side's factor instead of the decay: torchscale's XPOS numbers a call of L tokens\n"
             "n = -(L // 2) .. (L - 1) // 2 for the scales (downscale=True gives the key 1 / zeta^(n/scale_base)),\n"
             "so both factors stay near 1 and only their product zeta^((n - m)/scale_base) reaches q.k.");
}

void drawTxlParameters(RelativePanelState& s) {
  ImGui::TextUnformatted("Transformer-XL terms");
  markDirty(paramSlider(params::txl::kQuery, s.txlQuery, "The query row whose four score terms are plotted against every key j.",
                      SliderSpan{0, static_cast<double>(s.numPositions - 1)}), s);
  markDirty(paramSlider(params::txl::kDModel, s.txlDModel,
                      "Width of the token embeddings E_x and of the relative sinusoid R_{i-j}\n"
                      "(cat(sin(p inv_freq), cos(p inv_freq)), inv_freq = 1/10000^(2k/d), as mem_transformer.py)."), s);
  markDirty(paramSlider(params::txl::kDHead, s.txlDHead, "Rows of Wq, Wk,E, Wk,R and the length of u and v."), s);
  markDirty(paramSlider(params::txl::kSeed, s.txlSeed,
                      "Weights and embeddings are random numbers from the seed: (a) content, (b) content-position,\n"
                      "(c) global content bias u, (d) global position bias v (Dai et al. 2019, section 3.3)."), s);
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Drawing: heatmaps and the score plot
//-----------------------------------------------------------------------------

namespace {

HeatmapSpec squareSpec(int t, const char* value) {
  HeatmapSpec spec;
  spec.logicalRows = t;
  spec.logicalCols = t;
  spec.rowAxis = {"query i", 0.0, 1.0};
  spec.colAxis = {"key j", 0.0, 1.0};
  spec.valueName = value;
  spec.maskedReason = "masked (causal): key j comes after query i, so the bias is -inf and the softmax weight is 0";
  return spec;
}

HeatmapSpec bucketSpec(const RelativePanelState& s) {
  HeatmapSpec spec = squareSpec(s.numPositions, "bucket");
  const T5BucketParams p = t5Params(s);
  spec.exactValue = [p](long long r, long long c) { return static_cast<double>(t5RelativePositionBucket(p, c - r)); };
  spec.formula = [p](long long r, long long c) {
    return "bucket(j - i = " + std::to_string(c - r) + ") = " + std::to_string(t5RelativePositionBucket(p, c - r));
  };
  return spec;
}

HeatmapSpec tableSpec(RelativePanelState& s) {
  HeatmapSpec spec;
  spec.logicalRows = s.biasTable.rows;
  spec.logicalCols = s.biasTable.cols;
  spec.rowAxis = {"bucket", 0.0, 1.0};
  spec.colAxis = {"head", 1.0, 1.0};
  spec.valueName = "bias";
  spec.colormap = Colormap::RdBu;
  spec.symmetricRange = true;
  const Grid* table = &s.biasTable;
  spec.exactValue = [table](long long r, long long c) { return static_cast<double>(table->at(static_cast<int>(r), static_cast<int>(c))); };
  spec.onClick = [&s](long long, long long c) {
    s.t5Head = static_cast<int>(c);
    s.dirty = true;
  };
  return spec;
}

HeatmapSpec t5BiasSpec(const RelativePanelState& s) {
  HeatmapSpec spec = squareSpec(s.numPositions, "bias");
  spec.colormap = Colormap::RdBu;
  spec.symmetricRange = true;
  const T5BucketParams p = t5Params(s);
  const Grid* table = &s.biasTable;
  const int head = s.t5Head;
  spec.exactValue = [p, table, head](long long r, long long c) {
    return static_cast<double>(table->at(t5RelativePositionBucket(p, c - r), head));
  };
  spec.formula = [p, head](long long r, long long c) {
    return "table[bucket(" + std::to_string(c - r) + ") = " + std::to_string(t5RelativePositionBucket(p, c - r)) + "][head " +
           std::to_string(head + 1) + "]";
  };
  return spec;
}

// KERPLE, FIRE, ALiBi: the same axes and one fixed colour scale.
HeatmapSpec sharedBiasSpec(const RelativePanelState& s, std::function<double(long long, long long)> exact) {
  HeatmapSpec spec = squareSpec(s.numPositions, "bias");
  spec.exactValue = std::move(exact);
  spec.fixedRange = s.sharedScale;
  spec.rangeMin = s.biasRange.min;
  spec.rangeMax = s.biasRange.max;
  return spec;
}

void drawMap(const char* id, const char* title, HeatmapState& hs, const HeatmapSpec& spec, const Grid& g, HeatmapImage& img,
             long long& version, float w, float h) {
  ImGui::BeginGroup();
  ImGui::TextUnformatted(title);
  HeatmapSpec titled = spec;
  titled.title = title;
  if (drawHeatmap(id, hs, titled, img, w, h)) refreshImage(g, hs, img, version, false, 256);
  ImGui::EndGroup();
}

void drawT5Row(RelativePanelState& s, float width, float height) {
  const float w = (width - 2.0f * ImGui::GetStyle().ItemSpacing.x) / 3.0f;
  const float h = height - ImGui::GetTextLineHeightWithSpacing();
  drawMap("t5-buckets", "T5 bucket of j - i", s.bucketMap, bucketSpec(s), s.buckets, s.bucketImage, s.version, w, h);
  ImGui::SameLine();
  drawMap("t5-table", "bias table (seeded): bucket x head", s.tableMap, tableSpec(s), s.biasTable, s.tableImage, s.version, w, h);
  ImGui::SameLine();
  const std::string title = "head " + std::to_string(s.t5Head + 1) + ": table[bucket(j - i)]";
  drawMap("t5-bias", title.c_str(), s.t5BiasMap, t5BiasSpec(s), s.t5Bias, s.t5BiasImage, s.version, w, h);
}

void drawBiasRow(RelativePanelState& s, float width, float height) {
  const float w = (width - 2.0f * ImGui::GetStyle().ItemSpacing.x) / 3.0f;
  const float h = height - ImGui::GetTextLineHeightWithSpacing();
  const KerpleParams kp = kerpleParams(s);
  const FireParams fp = fireParams(s);
  const FireMlp* mlp = &s.fireMlp;
  const double m = s.alibiSlope;
  const std::string kTitle = std::string("KERPLE ") + kerpleKernelName(kp.kernel) + " (r1 " + formatShort(kp.r1, 3) + ", r2 " +
                             formatShort(kp.r2, 3) + ")";
  s.kerpleMap.showColorbar = s.fireMap.showColorbar = !s.sharedScale;
  drawMap("kerple", kTitle.c_str(), s.kerpleMap, sharedBiasSpec(s, [kp](long long r, long long c) { return kerpleBias(kp, r, c, true); }),
          s.kerple, s.kerpleImage, s.version, w, h);
  ImGui::SameLine();
  const std::string fTitle = "FIRE (c " + formatShort(fp.c, 3) + ", L " + formatShort(fp.threshold, 3) + ")";
  drawMap("fire", fTitle.c_str(), s.fireMap, sharedBiasSpec(s, [fp, mlp](long long r, long long c) { return fireBias(fp, *mlp, r, c); }),
          s.fire, s.fireImage, s.version, w, h);
  ImGui::SameLine();
  const std::string aTitle = "ALiBi (m " + formatShort(m, 3) + ")";
  drawMap("alibi", aTitle.c_str(), s.alibiMap, sharedBiasSpec(s, [m](long long r, long long c) { return alibiBias(m, r, c, true); }),
          s.alibi, s.alibiImage, s.version, w, h);
}

// The four terms of one query row and their sum, by key j.
void drawTxlPlot(const RelativePanelState& s, float width, float height) {
  static const char* const kLabels[4] = {"(a) content", "(b) content-position", "(c) global content u", "(d) global position v"};
  PlotSpec ps;
  ps.title = "Transformer-XL score of query " + std::to_string(s.txlQuery) + " split into its four terms";
  ps.xTitle = "key j";
  ps.yTitle = "term";
  for (int k = 0; k < 4; ++k) {
    PlotSeries term;
    term.label = kLabels[k];
    term.color = plotColor(k + 2);
    term.thickness = 1.5f;
    term.x = s.txlKeys;
    term.y = s.txlTerm[k];
    ps.series.push_back(std::move(term));
  }
  PlotSeries total;
  total.label = "sum (a + b + c + d)";
  total.color = 0xFFE6E6E6u;   // near white: the sum stands apart from the four terms
  total.thickness = 2.5f;
  total.x = s.txlKeys;
  total.y = s.txlTotal;
  ps.series.push_back(std::move(total));
  drawPlot("txl-terms", ps, width, height);
}

void drawXposSidesPlot(const RelativePanelState& s, float width, float height) {
  PlotSpec ps;
  ps.title = "xPos factors of pair 0 and pair " + std::to_string(s.headDim / 2 - 1) + " at torchscale's positions (" +
             std::to_string(s.maxOffset + 1) + " tokens)";
  ps.xTitle = "position n (centred)";
  ps.yTitle = "scale";
  auto series = [&](const char* label, int color, const std::vector<double>& y, bool dashed) {
    PlotSeries p;
    p.label = label;
    p.color = plotColor(color);
    p.thickness = dashed ? 1.5f : 2.0f;
    p.x = s.xposPositions;
    p.y = y;
    return p;
  };
  ps.series = {series("query, pair 0: zeta_0^(n/scale_base)", 0, s.xposQueryFirst, false),
               series("key, pair 0: zeta_0^(-n/scale_base)", 1, s.xposKeyFirst, false),
               series("query, last pair", 2, s.xposQueryLast, true), series("key, last pair", 3, s.xposKeyLast, true)};
  drawPlot("xpos-sides", ps, width, height);
}

void drawXposPlot(const RelativePanelState& s, float width, float height) {
  if (s.xposShowSides) {
    drawXposSidesPlot(s, width, height);
    return;
  }
  PlotSpec ps;
  ps.title = "q.k with q = k = 1 by distance n - m: RoPE alone and with xPos (scale_base " + formatShort(s.scaleBase, 4) + ")";
  ps.xTitle = "distance n - m (tokens)";
  ps.yTitle = "score";
  PlotSeries rope, xpos;
  rope.label = "RoPE: sum 2 cos(d theta_i)";
  xpos.label = "xPos: sum 2 zeta_i^(d/scale_base) cos(d theta_i)";
  rope.color = plotColor(0);
  xpos.color = plotColor(1);
  rope.thickness = 1.5f;
  rope.x = xpos.x = s.offsets;
  rope.y = s.ropeScore;
  xpos.y = s.xposScore;
  ps.series = {std::move(rope), std::move(xpos)};
  drawPlot("xpos-decay", ps, width, height);
}

// The export choice as a combo (seven views do not fit a line of radio buttons).
void drawExportChoice(RelativePanelState& s) {
  const cli::Param& p = params::relative::kTabExport;
  const std::string current(p.choiceName(s.exportGrid));
  if (ImGui::BeginCombo(std::string(p.label).c_str(), current.c_str())) {
    for (int i = 0; i < p.choiceCount(); ++i) {
      if (ImGui::Selectable(std::string(p.choiceName(i)).c_str(), i == s.exportGrid)) s.exportGrid = i;
    }
    ImGui::EndCombo();
  }
  HelpMarker(paramHelpText(p, "File > Export writes this grid of the tab, through the view of that name.").c_str());
}

// params::relative::kTabExport's choices, in its order.
enum class RelativeGrid { T5Buckets, T5Table, T5Bias, Kerple, Fire, Alibi, Txl };

void addT5Buckets(cli::ViewCall& c, const RelativePanelState& s) {
  c.set(params::relative::kPositions, s.numPositions).set(params::t5::kNumBuckets, s.numBuckets);
  c.set(params::t5::kMaxDistance, s.maxDistance).on(params::t5::kCausal, s.t5Causal);
}

// The call of the chosen grid's view with the tab's parameters: KERPLE, FIRE and ALiBi are causal
// on the tab, T5's direction is its own switch.
cli::ViewCall relativeCall(const RelativePanelState& s, RelativeGrid grid) {
  cli::ViewCall c{std::string(params::relative::kTabExport.choiceName(static_cast<int>(grid)))};
  switch (grid) {
    case RelativeGrid::T5Buckets: addT5Buckets(c, s); break;
    case RelativeGrid::T5Table:
      c.set(params::t5::kNumBuckets, s.numBuckets).set(params::t5::kHeads, s.t5Heads).set(params::t5::kSeed, s.t5Seed);
      break;
    case RelativeGrid::T5Bias:
      addT5Buckets(c, s);
      c.set(params::t5::kHeads, s.t5Heads).set(params::t5::kHead, s.t5Head + 1).set(params::t5::kSeed, s.t5Seed);
      break;
    case RelativeGrid::Kerple:
      c.set(params::relative::kPositions, s.numPositions).set(params::kerple::kKernel, s.kerplePower ? 1 : 0);
      c.set(params::kerple::kR1, s.kerpleR1).set(params::kerple::kR2, s.kerpleR2).on(params::alibi::kCausal);
      break;
    case RelativeGrid::Fire:
      c.set(params::relative::kPositions, s.numPositions).set(params::fire::kC, s.fireC);
      c.set(params::fire::kThreshold, s.fireThreshold).set(params::fire::kHidden, s.fireHidden).set(params::fire::kSeed, s.fireSeed);
      break;
    case RelativeGrid::Alibi:
      c.set(params::alibi::kSlope, s.alibiSlope).set(params::alibi::kPositions, s.numPositions).on(params::alibi::kCausal);
      break;
    case RelativeGrid::Txl:
      c.set(params::relative::kPositions, s.numPositions).set(params::txl::kDModel, s.txlDModel);
      c.set(params::txl::kDHead, s.txlDHead).set(params::txl::kSeed, s.txlSeed);
      break;
  }
  return c;
}

// File > Export: the chosen grid as its view writes it; the plot beside it as CSV (the TXL terms of
// the query row when TXL is chosen, else the xPos curves).
ExportableView relativeExports(const RelativePanelState& s) {
  ExportableView ex;
  if (s.buckets.values.empty() || !s.error.empty()) return ex;
  const auto grid = static_cast<RelativeGrid>(std::clamp(s.exportGrid, 0, params::relative::kTabExport.choiceCount() - 1));
  ex.call = relativeCall(s, grid);
  ex.name = ex.call->view;
  const bool table = grid == RelativeGrid::T5Table;
  ex.rowTitle = table ? "bucket" : "query i";
  ex.colTitle = table ? "head" : "key j";
  ex.valueName = grid == RelativeGrid::T5Buckets ? "bucket" : "bias";
  // As the tab draws them: T5's learned scalars diverge around 0, the rest on one sequential scale.
  ex.symmetricRange = table || grid == RelativeGrid::T5Bias || grid == RelativeGrid::Txl;
  ex.colormap = ex.symmetricRange ? Colormap::RdBu : Colormap::Viridis;
  if (grid == RelativeGrid::Txl) {
    ex.plotColumnNames = {"key_j", "a_content", "b_content_position", "c_global_content", "d_global_position", "sum"};
    ex.plotColumns = [cols = std::vector<std::vector<double>>{s.txlKeys, s.txlTerm[0], s.txlTerm[1], s.txlTerm[2], s.txlTerm[3],
                                                              s.txlTotal}] { return cols; };
    return ex;
  }
  ex.plotColumnNames = {"distance", "rope_score", "xpos_score"};
  ex.plotColumns = [cols = std::vector<std::vector<double>>{s.offsets, s.ropeScore, s.xposScore}] { return cols; };
  return ex;
}

}  // namespace

void drawRelativePanel(RelativePanelState& s, AppContext& ctx) {
  const float scale = ctx.uiScale;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float leftW = std::min(360.0f * scale, avail.x * 0.3f);
  ImGui::BeginChild("relative-params", ImVec2(leftW, avail.y), true);
  ImGui::PushItemWidth(170.0f * scale);
  drawT5Parameters(s);
  ImGui::Separator();
  drawBiasParameters(s);
  ImGui::Separator();
  drawXposParameters(s);
  ImGui::Separator();
  drawTxlParameters(s);
  ImGui::Separator();
  drawExportChoice(s);
  ImGui::PopItemWidth();
  requestRelative(s);
  if (!s.error.empty()) ErrorText(s.error);
  ImGui::EndChild();
  ImGui::SameLine();

  ImGui::BeginChild("relative-views", ImVec2(0, avail.y), false);
  const ImVec2 va = ImGui::GetContentRegionAvail();
  const float rowH = std::max(140.0f * scale, va.y * 0.34f);
  if (s.error.empty()) {
    drawT5Row(s, va.x, rowH);
    if (s.sharedScale) {
      ImGui::Text("KERPLE, FIRE and ALiBi on one colour scale, %s (dark) to %s (yellow); grey = masked (causal)",
                  formatShort(s.biasRange.min, 4).c_str(), formatShort(s.biasRange.max, 4).c_str());
    } else {
      ImGui::TextUnformatted("KERPLE, FIRE and ALiBi, each on its own colour scale; grey = masked (causal)");
    }
    drawBiasRow(s, va.x, rowH - ImGui::GetTextLineHeightWithSpacing());
    const float plotH = std::max(120.0f * scale, ImGui::GetContentRegionAvail().y);
    const float plotW = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
    drawXposPlot(s, plotW, plotH);
    ImGui::SameLine();
    drawTxlPlot(s, plotW, plotH);
  }
  ImGui::EndChild();

  ctx.status.backend = "CPU";
  ctx.status.gridSize = formatGridSize(s.numPositions, s.numPositions);
  ctx.status.computeMs = s.computeMs;
  ctx.status.busy = s.fireJob.busy();
  ctx.status.progress = -1.0f;
}

//-----------------------------------------------------------------------------
// [SECTION] Settings
//-----------------------------------------------------------------------------

namespace {

// The tab's files name RoPE's base "rope_base" (beside xPos's scale_base), not the table's "base".
const cli::Param kRopeBase = cli::params::storedAs(cli::params::rope::kBase, "rope_base");

}  // namespace

// Every parameter the tab keeps with the member that holds it: save and load walk this one list.
template <class State, class Visit>
void eachRelativePanelParam(State& s, Visit&& visit) {
  visit(params::relative::kTabPositions, s.numPositions);
  visit(params::t5::kNumBuckets, s.numBuckets);
  visit(params::t5::kMaxDistance, s.maxDistance);
  visit(params::t5::kHeads, s.t5Heads);
  visit(params::t5::kSeed, s.t5Seed);
  visit(params::alibi::kRelativeTabSlope, s.alibiSlope);
  visit(params::kerple::kR1, s.kerpleR1);
  visit(params::kerple::kR2, s.kerpleR2);
  visit(params::fire::kC, s.fireC);
  visit(params::fire::kThreshold, s.fireThreshold);
  visit(params::fire::kHidden, s.fireHidden);
  visit(params::fire::kSeed, s.fireSeed);
  visit(params::rope::kHeadDim, s.headDim);
  visit(kRopeBase, s.ropeBase);
  visit(params::xpos::kScaleBase, s.scaleBase);
  visit(params::xpos::kMaxOffset, s.maxOffset);
  visit(params::txl::kQuery, s.txlQuery);
  visit(params::txl::kDModel, s.txlDModel);
  visit(params::txl::kDHead, s.txlDHead);
  visit(params::txl::kSeed, s.txlSeed);
  visit(params::relative::kTabExport, s.exportGrid);
}

void saveRelativePanel(const RelativePanelState& s, nlohmann::json& j) {
  eachRelativePanelParam(s, ParamSaver{j});
  j["t5_causal"] = s.t5Causal;
  cli::saveParam(j, params::t5::kHead, s.t5Head + 1);
  j["shared_scale"] = s.sharedScale;
  j["xpos_show_sides"] = s.xposShowSides;
  cli::saveParam(j, params::kerple::kKernel, s.kerplePower ? 1 : 0);
}

void loadRelativePanel(RelativePanelState& s, const nlohmann::json& j) {
  eachRelativePanelParam(s, ParamLoader{j});
  readSetting(j, "t5_causal", s.t5Causal);
  if (int head = s.t5Head + 1; cli::loadParam(j, params::t5::kHead, head) && head <= s.t5Heads) s.t5Head = head - 1;
  readSetting(j, "shared_scale", s.sharedScale);
  readSetting(j, "xpos_show_sides", s.xposShowSides);
  if (int kernel = 0; cli::loadParam(j, params::kerple::kKernel, kernel)) s.kerplePower = kernel == 1;
  s.dirty = true;
}


// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

void applyRelativePanelConfig(RelativePanelState& s, const cli::ModelConfig& c, ConfigNotes& notes) {
  const auto t5 = cli::readT5Config(c);
  if (!t5) return;
  const char* tab = "Relative";
  if (t5->numBuckets) s.numBuckets = static_cast<int>(fitConfigParam(tab, "relative_attention_num_buckets", cli::params::t5::kNumBuckets, *t5->numBuckets, notes));
  if (t5->maxDistance) s.maxDistance = static_cast<int>(fitConfigParam(tab, "relative_attention_max_distance", cli::params::t5::kMaxDistance, *t5->maxDistance, notes));
  if (t5->heads) s.t5Heads = static_cast<int>(fitConfigParam(tab, "num_heads", cli::params::t5::kHeads, *t5->heads, notes));
  s.t5Head = std::min(s.t5Head, s.t5Heads - 1);
  s.t5Causal = false;  // the encoder's buckets; the decoder's are the causal switch
  s.dirty = true;
}

const PanelDef kRelativePanel{"relative", [](AppState& a, AppContext& c) { drawRelativePanel(a.relative, c); },
    [](AppState& a, const cli::ModelConfig& m, ConfigNotes& n) { applyRelativePanelConfig(a.relative, m, n); },
    [](const AppState& a, nlohmann::json& j) { saveRelativePanel(a.relative, j); }, [](AppState& a, const nlohmann::json& j) { loadRelativePanel(a.relative, j); }, [](AppState& a) { a.relative.t5Causal = !a.relative.t5Causal; a.relative.dirty = true; },
    nullptr, nullptr, nullptr, nullptr, [](const AppState& a) { return relativeExports(a.relative); }};

}  // namespace posviz::app
