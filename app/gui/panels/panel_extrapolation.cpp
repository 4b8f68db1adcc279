// panel_extrapolation.cpp: the Extrapolation lab view.
//
// [SECTION] Update: inputs -> the length shown, then the others at rest
// [SECTION] Plots: built once per result or display change, never per frame
// [SECTION] Drawing: controls
// [SECTION] Drawing: plots, table, export
// [SECTION] Settings
#include "app/gui/panels/app_state.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/widgets/figure_export.hpp"
#include "app/gui/panels/panel_train.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/panel_extrapolation.hpp"

#include "app/cli/lab_model.hpp"

#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <optional>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "app/cli/export.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/ui_common.hpp"

namespace posviz::app {

namespace table = cli::params::extrapolation;

//-----------------------------------------------------------------------------
// [SECTION] Update: inputs -> the length shown, then the others at rest
//-----------------------------------------------------------------------------

namespace {

const std::vector<ExtrapolationEncoding>& encodings() { return allExtrapolationEncodings(); }

// What seed 001's comparison table says about each encoding's extrapolation (its words).
const char* documentClaim(ExtrapolationEncoding e) {
  switch (e) {
    case ExtrapolationEncoding::Sinusoidal: return "weak in practice";
    case ExtrapolationEncoding::Learned: return "none";
    case ExtrapolationEncoding::Alibi: return "best out-of-box";
    default: return "good (with NTK-aware scaling)";
  }
}

// The lab's inputs as a core setup; nullopt (and the reason in inputError) for a bad sentence.
std::optional<ExtrapolationSetup> labSetup(ExtrapolationPanelState& s) {
  ExtrapolationSetup setup;
  if (!sentenceTokens(s.sentence, 0, setup.sentence, &s.inputError)) return std::nullopt;
  s.inputError.clear();
  setup.model = ToyModel{s.headDim, static_cast<std::uint64_t>(s.seed), false};
  setup.trainedLength = s.trainedLength;
  setup.base = s.base;
  setup.factor = s.autoFactor ? 0.0 : static_cast<double>(s.factor);
  setup.alibiSlope = s.alibiSlope;
  setup.scaling = s.scaling;
  if (s.learnedTable && s.learnedTable->cols == setup.model.dModel && s.learnedSeed == setup.model.seed &&
      s.learnedTable->rows >= setup.trainedLength)
    setup.learnedTable = s.learnedTable;
  return setup;
}

// The learned run's table, drawn with room: L0 up to the next power of two (the slider's end at
// most) reuses it, while that stays below 16 M cells; the table's rows do not depend on how many
// are drawn.
std::shared_ptr<const Grid> roomyLearnedTable(const ExtrapolationSetup& run) {
  int rows = run.trainedLength;
  const int roomy = std::min(kLabMaxTrainedLength, static_cast<int>(std::bit_ceil(static_cast<unsigned>(rows))));
  if (static_cast<long long>(roomy) * run.model.dModel <= (16LL << 20)) rows = roomy;
  return extrapolationLearnedTable(run, rows);
}

// The bins of L keys weighted alike, 1/L each: a bin's share is its width / L.
std::vector<DistanceBin> uniformBins(int l) {
  std::vector<DistanceBin> u = logDistanceBins(std::vector<double>(static_cast<std::size_t>(l), 0.0));
  for (DistanceBin& b : u) b.sum = static_cast<double>(b.count()) / l;
  return u;
}

// The attention plot's bins of every row computed (core's logDistanceBins), on the job's thread:
// a frame that takes a result only draws them.
void binRows(ExtrapolationLabResult& r) {
  r.bins.assign(r.runs.size(), {});
  r.uniform.assign(r.runs.size(), {});
  for (std::size_t m = 0; m < r.runs.size(); ++m) {
    if (r.runs[m].empty()) continue;
    for (const ExtrapolationRun& run : r.runs[m]) r.bins[m].push_back(logDistanceBins(run.weights));   // empty on error
    r.uniform[m] = uniformBins(r.runs[m].front().length);
  }
}

// One job over the lengths whose row is empty in `known` and wanted (every one, or the one shown
// alone); the rows already in `known` (computed for the same inputs) are handed back as they are.
void requestLab(ExtrapolationPanelState& s, const ExtrapolationSetup& setup, std::vector<std::vector<ExtrapolationRun>> known,
                std::optional<int> only) {
  known.resize(kExtrapolationMultiples.size());
  s.lab.request([asked = setup, known = std::move(known), only, id = ++s.requests, version = s.inputVersion](JobControl& jc) {
    ExtrapolationSetup run = asked;   // the job may run twice (worker.hpp): it changes only its own copy
    ExtrapolationLabResult r;
    r.id = id;
    r.inputVersion = version;
    r.trainedLength = run.trainedLength;
    if (!run.learnedTable) run.learnedTable = roomyLearnedTable(run);
    r.learnedTable = run.learnedTable;
    r.learnedSeed = run.model.seed;
    r.runs = known;
    std::vector<int> lengths, rows;
    for (int m = 0; m < static_cast<int>(kExtrapolationMultiples.size()); ++m) {
      if (!r.runs[static_cast<std::size_t>(m)].empty() || (only && *only != m)) continue;
      lengths.push_back(kExtrapolationMultiples[static_cast<std::size_t>(m)] * run.trainedLength);
      rows.push_back(m);
    }
    throwIfCancelled(jc);
    std::vector<std::vector<ExtrapolationRun>> fresh = runExtrapolationGrid(run, encodings(), lengths, [&jc](int done, int total) {
      jc.setProgress(static_cast<float>(done) / static_cast<float>(total));
      throwIfCancelled(jc);
    });
    for (std::size_t i = 0; i < rows.size(); ++i) r.runs[static_cast<std::size_t>(rows[i])] = std::move(fresh[i]);
    binRows(r);
    return r;
  });
}

// The job running (or waiting) is the one that asked for the other lengths: the latest request.
bool restRunning(const ExtrapolationPanelState& s) { return s.lab.busy() && s.restRequest == s.requests; }

// Whether a change may start its job now: paced as DragPacer says. A job computing the other
// lengths gives way at once.
bool labFree(const ExtrapolationPanelState& s) {
  if (s.lab.busy()) return restRunning(s);
  return s.pacer.ready();
}

// A job is in: a shown length's pauses the next change's job (see labFree); every length's does not.
void pauseAfter(ExtrapolationPanelState& s) {
  const ExtrapolationLabResult* r = s.lab.result();
  const bool shownAlone = r != nullptr && !r->complete();
  s.pacer.finished(s.lab.millis(), shownAlone);
}

// The result answers the latest inputs but holds the length shown alone, and no request for the
// other lengths has followed it: they are due.
bool restOwed(const ExtrapolationPanelState& s) {
  const ExtrapolationLabResult* r = s.lab.result();
  return r != nullptr && r->inputVersion == s.inputVersion && s.restRequest < r->id && !r->complete();
}

// An input changed: the length shown first, alone, so that a drag's picture follows the slider.
// A job still computing the other lengths for earlier inputs is stopped: it is not a picture.
void takeInputChange(ExtrapolationPanelState& s) {
  s.pacer.started();
  ++s.inputVersion;
  const std::optional<ExtrapolationSetup> setup = labSetup(s);
  if (!setup) return;
  if (restRunning(s)) s.lab.cancelAll();
  requestLab(s, *setup, {}, s.multiple);
}

// The length shown is in and the inputs have rested: the other lengths, the shown one kept.
void completeAfterRest(ExtrapolationPanelState& s) {
  if (s.pacer.pending || !restOwed(s) || s.lab.busy() || s.pacer.sinceChange() < kExtrapolationRestSeconds) return;
  const std::optional<ExtrapolationSetup> setup = labSetup(s);
  if (!setup) return;
  requestLab(s, *setup, s.lab.result()->runs, std::nullopt);
  s.restRequest = s.requests;
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Plots: built once per result or display change, never per frame
//-----------------------------------------------------------------------------

namespace {

unsigned int encodingColor(std::size_t e) { return plotColor(static_cast<int>(e)); }
constexpr unsigned int kUniformColor = 0xff707070u;   // every key weighted alike: the reference lines

// The attention plot's x axis: log-distance bin k at x = k, its edges at k -/+ 0.5. A distance d
// that is a bin's first lies on the bin's left edge; one inside it, that far across.
double binEdgeX(int d) {
  const int k = logDistanceBin(d);
  const int first = k == 0 ? 0 : 1 << (k - 1);
  const int width = k == 0 ? 1 : first;
  return k - 0.5 + static_cast<double>(d - first) / width;
}

std::string binName(const DistanceBin& b) {
  return b.first == b.last ? "distance " + std::to_string(b.first)
                           : "distances " + std::to_string(b.first) + "-" + std::to_string(b.last);
}

// What every attention plot shares: the binned x axis (ticks on the edges 0, 1, 2, 4, ..., L),
// the weight axis, the trained distances shaded and L0 marked.
PlotSpec binnedAxes(const ExtrapolationPanelState& s, const std::vector<DistanceBin>& bins, int l, int l0, double yMax) {
  PlotSpec p;
  p.logY = s.logWeights;
  p.fixedY = true;
  p.yMin = s.logWeights ? 1e-8 : 0.0;
  p.yMax = s.logWeights ? 1.0 : yMax * 1.06;
  p.fixedX = true;
  p.xMin = -0.5;
  p.xMax = static_cast<double>(bins.size()) - 0.5;
  for (std::size_t k = 0; k <= bins.size(); ++k) {
    const int edge = k == bins.size() ? l : bins[k].first;
    p.xTicks.push_back({static_cast<double>(k) - 0.5, std::to_string(edge)});
  }
  p.xReadout = [bins](double x) {
    const long long k = std::llround(x);
    return k >= 0 && k < static_cast<long long>(bins.size()) ? binName(bins[static_cast<std::size_t>(k)]) : std::string("-");
  };
  p.bands.push_back({-0.5, std::min(binEdgeX(l0), p.xMax), "", 0x3322c55eu});
  if (l0 < l) p.markers.push_back({binEdgeX(l0), "L0", 0});
  return p;
}

// One point per bin: its keys' weights summed (bin k's share of the attention), or their mean.
PlotSeries binnedSeries(const char* label, const std::vector<DistanceBin>& bins, bool mean, unsigned int color, float thickness) {
  PlotSeries line{label, {}, {}, color, false, thickness};
  for (std::size_t k = 0; k < bins.size(); ++k) {
    line.x.push_back(static_cast<double>(k));
    line.y.push_back(mean ? bins[k].mean() : bins[k].sum);
  }
  return line;
}

constexpr const char* kWeightsYTitle = "share of attention in the bin (sum of its keys' weights)";
constexpr const char* kWeightsMeanYTitle = "weight of one key in the bin (mean of its keys' weights)";
constexpr const char* kWeightsXTitle = "distance to the key (tokens), in bins 0 | 1 | 2-3 | 4-7 | 8-15 | ...";
constexpr const char* kWeightsYTip =
    "Each point is one bin of distances: the sum of the attention weights w_r of the keys at those\n"
    "distances. The bins of one encoding add up to 1. Grey: every key weighted alike (1/L each),\n"
    "whose share grows with the bin's width. Hover a point for its distances and value.";
constexpr const char* kWeightsMeanYTip =
    "Each point is one bin of distances: the mean attention weight w_r of the keys at those\n"
    "distances, the weight of a typical key there. Grey: every key weighted alike, 1/L.\n"
    "Hover a point for its distances and value.";
constexpr const char* kWeightsXTip =
    "The key at position j is at distance r = L-1-j from the query (the last token). Bins double in\n"
    "width: [0], [1], [2,3], [4,7], ..., the last cut at L-1; the grid lines are their edges.\n"
    "Green: distances the model saw in training (< L0).";

void weightsPlots(ExtrapolationPanelState& s, const ExtrapolationLabResult& r) {
  const auto m = static_cast<std::size_t>(s.multiple);
  const std::vector<ExtrapolationRun>& runs = r.runs[m];
  const std::vector<std::vector<DistanceBin>>& bins = r.bins[m];
  const std::vector<DistanceBin>& uniform = r.uniform[m];
  const int l = runs.front().length, l0 = r.trainedLength;
  const int multiple = kExtrapolationMultiples[m];
  const bool mean = s.binMean;
  double yMax = 0.0;
  for (std::size_t e = 0; e < runs.size(); ++e)
    if (s.show[e])
      for (const DistanceBin& b : bins[e]) yMax = std::max(yMax, mean ? b.mean() : b.sum);
  for (const DistanceBin& b : uniform) yMax = std::max(yMax, mean ? b.mean() : b.sum);

  PlotSpec& p = s.weightsPlot;
  p = binnedAxes(s, uniform, l, l0, yMax);
  p.title = "Last query's attention against distance, L = " + formatCount(l) + " (" + std::to_string(multiple) + "x L0)";
  p.xTitle = kWeightsXTitle;
  p.yTitle = mean ? kWeightsMeanYTitle : kWeightsYTitle;
  p.xTip = kWeightsXTip;
  p.yTip = mean ? kWeightsMeanYTip : kWeightsYTip;
  p.legendOutside = true;
  p.bands.front().label = "trained (< L0)";
  p.series.push_back(binnedSeries("uniform (1/L each)", uniform, mean, kUniformColor, 1.0f));
  s.weightsSmall.clear();
  for (std::size_t e = 0; e < runs.size(); ++e) {
    if (!s.show[e] || !runs[e].error.empty()) continue;
    const char* title = extrapolationEncodingTitle(runs[e].encoding);
    p.series.push_back(binnedSeries(title, bins[e], mean, encodingColor(e), 2.0f));
    p.series.back().dots = true;
    PlotSpec small = binnedAxes(s, uniform, l, l0, yMax);
    small.title = title;
    small.hideLegend = true;
    small.series.push_back(binnedSeries("uniform (1/L each)", uniform, mean, kUniformColor, 1.0f));
    small.series.push_back(p.series.back());
    s.weightsSmall.push_back(std::move(small));
  }
}

constexpr const char* kEntropyTitle = "Attention entropy of the last query against length";

// One point per length computed (a drag's result has the shown one alone).
PlotSpec entropyPlot(const ExtrapolationPanelState& s, const ExtrapolationLabResult& r) {
  PlotSpec p;
  p.title = kEntropyTitle;
  p.xTitle = "length L (tokens)";
  p.yTitle = "entropy (nats)";
  p.logX = true;
  std::vector<const std::vector<ExtrapolationRun>*> rows;
  for (const std::vector<ExtrapolationRun>& row : r.runs)
    if (!row.empty()) rows.push_back(&row);
  PlotSeries uniform{"ln L (uniform)", {}, {}, kUniformColor, false, 1.0f};
  for (const std::vector<ExtrapolationRun>* row : rows) {
    uniform.x.push_back(row->front().length);
    uniform.y.push_back(row->front().maxEntropy);
  }
  p.series.push_back(uniform);
  for (std::size_t e = 0; e < encodings().size(); ++e) {
    if (!s.show[e]) continue;
    PlotSeries line{extrapolationEncodingTitle(encodings()[e]), uniform.x, {}, encodingColor(e), false, 2.0f};
    for (const std::vector<ExtrapolationRun>* row : rows) line.y.push_back((*row)[e].entropy);  // NaN: no row
    p.series.push_back(line);
  }
  p.markers.push_back({static_cast<double>(r.trainedLength), "L0 (trained)", 0});
  p.legendAbove = true;
  return p;
}

PlotSpec unseenPlot(const ExtrapolationPanelState& s, const std::vector<ExtrapolationRun>& runs) {
  PlotSpec p;
  p.title = "Share of positions whose rotation angle was never seen, per pair";
  p.xTitle = "pair i (fast -> slow)";
  p.yTitle = "unseen share";
  p.fixedY = true;
  p.yMin = 0.0;
  p.yMax = 1.0;
  int wrapped = 0;
  for (std::size_t e = 0; e < runs.size(); ++e) {
    if (!isRotary(runs[e].encoding)) continue;
    wrapped = 0;
    for (double span : runs[e].trainedSpan) wrapped += span >= 2.0 * std::numbers::pi ? 1 : 0;
    if (!s.show[e]) continue;
    std::vector<double> x(runs[e].unseenShare.size());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i);
    p.series.push_back({extrapolationEncodingTitle(runs[e].encoding), x, runs[e].unseenShare, encodingColor(e), false, 2.0f});
  }
  if (wrapped > 0) p.bands.push_back({0.0, wrapped - 1.0, "whole circle seen in training", 0x3322c55eu});
  p.legendAbove = true;
  return p;
}

// A result whose row for the length shown is missing (chosen during a drag) keeps the plots as
// they are until the other lengths arrive. The entropy plot keeps the last complete result's
// points, marked as updating, while a drag's result has the shown length alone.
void rebuildPlots(ExtrapolationPanelState& s) {
  s.plotsDirty = false;
  const ExtrapolationLabResult* r = s.lab.result();
  if (r == nullptr || r->runs.empty()) return;
  s.multiple = std::clamp(s.multiple, 0, static_cast<int>(r->runs.size()) - 1);
  const std::vector<ExtrapolationRun>& runs = r->runs[static_cast<std::size_t>(s.multiple)];
  if (runs.empty()) return;
  s.plottedId = r->id;
  weightsPlots(s, *r);
  if (r->complete() || s.entropyPlot.series.empty()) s.entropyPlot = entropyPlot(s, *r);
  else s.entropyPlot.title = "Attention entropy against length (updating: drawn for the previous inputs)";
  s.unseenPlot = unseenPlot(s, runs);
}

}  // namespace

void updateExtrapolationPanel(ExtrapolationPanelState& s) {
  if (s.dirty) {   // a change seen: its job starts now or when the lab is free (labFree)
    s.dirty = false;
    s.pacer.change();
  }
  if (s.pacer.pending && labFree(s)) takeInputChange(s);
  if (s.lab.poll()) pauseAfter(s);
  completeAfterRest(s);
  const ExtrapolationLabResult* r = s.lab.result();
  if (r != nullptr && r->learnedTable) {
    s.learnedTable = r->learnedTable;
    s.learnedSeed = r->learnedSeed;
  }
  if (r != nullptr && r->id != s.plottedId) s.plotsDirty = true;   // a new result, however it was polled
  if (s.plotsDirty) rebuildPlots(s);
}

bool extrapolationBusy(const ExtrapolationPanelState& s) { return s.dirty || s.pacer.pending || s.lab.busy() || restOwed(s); }

//-----------------------------------------------------------------------------
// [SECTION] Drawing: controls
//-----------------------------------------------------------------------------

namespace {

void llamaTwo(ExtrapolationPanelState& s) {
  s.headDim = 128;
  s.base = 10000.0;
  s.trainedLength = 4096;
  s.dirty = true;
}

void drawModelControls(ExtrapolationPanelState& s) {
  ImGui::TextUnformatted("Toy model and sentence");
  HelpMarker("The Word order and ALiBi views' toy model: each word a seeded embedding, W_q and W_k seeded\n"
             "d x d normals / sqrt(d). The sentence is tiled to L tokens; the last token is the query.");
  ImGui::PushItemWidth(-1.0f);
  if (ImGui::InputText("##sentence", s.sentence, sizeof s.sentence)) s.dirty = true;
  ImGui::PopItemWidth();
  if (!s.inputError.empty()) ErrorText(s.inputError);
  if (paramSlider(table::kTrainedLength, s.trainedLength,
                  "The length the model was trained at: positions 0..L0-1, distances 0..L0-1.",
                  SliderSpan{table::kTrainedLength.min, kLabMaxTrainedLength}))
    s.dirty = true;
  if (paramSlider(table::kHeadDim, s.headDim, "Toy d_model = the one head's width; RoPE rotates head_dim/2 pairs.",
                  SliderSpan{kLabMinHeadDim, table::kHeadDim.max}))
    s.dirty = true;
  if (paramSlider(cli::params::rope::kBase, s.base, "theta_i = base^(-2i/d): pair i turns by theta_i per position.")) s.dirty = true;
  if (paramSlider(table::kSeed, s.seed)) s.dirty = true;
  if (ImGui::Button("Llama-2 sizes (d 128, base 10000, L0 4096)")) llamaTwo(s);
}

void drawScalingControls(ExtrapolationPanelState& s) {
  ImGui::Separator();
  ImGui::TextUnformatted("Past L0");
  const char* labels[] = {"1x", "2x", "4x", "8x"};
  for (int i = 0; i < static_cast<int>(kExtrapolationMultiples.size()); ++i) {
    if (i > 0) ImGui::SameLine();
    if (ImGui::RadioButton(labels[i], s.multiple == i)) {
      s.multiple = i;
      s.plotsDirty = true;
    }
  }
  ImGui::SameLine();
  ImGui::TextUnformatted("L0");
  HelpMarker("The length L of the curves: L0 times this. Every length is computed; switching only redraws.");
  if (ImGui::Checkbox("scaling factor = L / L0", &s.autoFactor)) s.dirty = true;
  HelpMarker("PI, NTK, YaRN and Llama 3.1 are configured for each length (factor L / L0).\n"
             "Off: one factor for every length, as a model ships with one.");
  if (!s.autoFactor && paramSlider(cli::params::scaling::kFactor, s.factor)) s.dirty = true;
  if (paramSlider(table::kSlope, s.alibiSlope, "bias = -m * distance. 0.5 is the toy model's (the steepest of 8 heads).")) s.dirty = true;
}

void drawShowControls(ExtrapolationPanelState& s) {
  ImGui::Separator();
  ImGui::TextUnformatted("Encodings shown");
  for (std::size_t e = 0; e < encodings().size(); ++e) {
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(encodingColor(e));
    ImGui::PushStyleColor(ImGuiCol_CheckMark, c);
    ImGui::PushStyleColor(ImGuiCol_Text, c);
    bool v = s.show[e];
    if (ImGui::Checkbox(extrapolationEncodingTitle(encodings()[e]), &v)) {
      s.show[e] = v;
      s.plotsDirty = true;
    }
    ImGui::PopStyleColor(2);
  }
  if (ImGui::Checkbox("log weight axis", &s.logWeights)) s.plotsDirty = true;
  ImGui::TextUnformatted("distance bins:");
  ImGui::SameLine();
  if (ImGui::RadioButton("sum", !s.binMean)) {
    s.binMean = false;
    s.plotsDirty = true;
  }
  ImGui::SameLine();
  if (ImGui::RadioButton("mean", s.binMean)) {
    s.binMean = true;
    s.plotsDirty = true;
  }
  HelpMarker("Distances are binned [0], [1], [2,3], [4,7], ...: each point is one bin.\n"
             "sum: the share of the attention its keys get (the bins add up to 1).\n"
             "mean: the weight of one key there (uniform attention: 1/L everywhere).");
  if (ImGui::Checkbox("one small plot per encoding", &s.smallMultiples)) s.plotsDirty = true;
  HelpMarker("The attention plot split into one small plot per encoding, on the same axes.");
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Drawing: plots, table, export
//-----------------------------------------------------------------------------

namespace {

std::string share(double v) { return formatShort(100.0 * v, 3) + " %"; }

// An error in one table row: as much as fits, "...", the whole message when hovered. Rows of one
// line keep the table's height known, so it fits under the plots without scrolling.
void oneLineError(const std::string& message) {
  const float room = ImGui::GetContentRegionAvail().x;
  std::string shown = message;
  if (ImGui::CalcTextSize(message.c_str()).x > room) {
    const char* rest = message.c_str();
    ImGui::GetFont()->CalcTextSizeA(ImGui::GetFontSize(), std::max(0.0f, room - ImGui::CalcTextSize("...").x), 0.0f,
                                    message.c_str(), message.c_str() + message.size(), &rest);
    shown = std::string(message.c_str(), rest) + "...";
  }
  ImGui::PushStyleColor(ImGuiCol_Text, themed(IM_COL32(255, 110, 100, 255)));
  ImGui::TextUnformatted(shown.c_str());
  ImGui::PopStyleColor();
  if (shown != message && ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36.0f);
    ImGui::TextUnformatted(message.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

// The Train tab's scheme that an encoding of the lab is; none for RoPE with a scaling method
// (the Train tab's RoPE runs are cited on the RoPE row).
std::optional<train::PositionScheme> trainedScheme(ExtrapolationEncoding e) {
  switch (e) {
    case ExtrapolationEncoding::Sinusoidal: return train::PositionScheme::Sinusoidal;
    case ExtrapolationEncoding::Learned: return train::PositionScheme::Learned;
    case ExtrapolationEncoding::Rope: return train::PositionScheme::Rope;
    case ExtrapolationEncoding::Alibi: return train::PositionScheme::Alibi;
    default: return std::nullopt;
  }
}

void drawTableRow(const ExtrapolationRun& run, const TrainCitation& measured) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(extrapolationEncodingTitle(run.encoding));
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(run.error.empty() ? formatShort(run.entropy, 4).c_str() : "-");
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(run.error.empty() ? formatShort(run.entropyRatio, 3).c_str() : "-");
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(isRotary(run.encoding) ? (share(run.unseenShareMean) + " (" + std::to_string(run.pairsWithUnseen) + " pairs)").c_str() : "-");
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(documentClaim(run.encoding));
  ImGui::TableNextColumn();
  if (const auto scheme = trainedScheme(run.encoding)) drawTrainCitationCell(measured, *scheme);
  else ImGui::TextDisabled("-");
  ImGui::TableNextColumn();
  if (run.error.empty()) ImGui::TextUnformatted("ok");
  else oneLineError(run.error);
}

void drawTable(const ExtrapolationPanelState& s, const std::vector<ExtrapolationRun>& runs) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("extrapolation-table", 7, flags)) return;
  ImGui::TableSetupColumn("encoding", ImGuiTableColumnFlags_WidthStretch, 1.1f);
  ImGui::TableSetupColumn("entropy (nats)", ImGuiTableColumnFlags_WidthStretch, 0.8f);
  ImGui::TableSetupColumn("H / ln L", ImGuiTableColumnFlags_WidthStretch, 0.6f);
  ImGui::TableSetupColumn("unseen angles", ImGuiTableColumnFlags_WidthStretch, 1.1f);
  ImGui::TableSetupColumn("the article says", ImGuiTableColumnFlags_WidthStretch, 1.6f);
  ImGui::TableSetupColumn("measured (Train tab)", ImGuiTableColumnFlags_WidthStretch, 1.6f);
  ImGui::TableSetupColumn("status", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  for (int c = 0; c < 7; ++c) {
    ImGui::TableSetColumnIndex(c);
    if (c == 5) drawTrainCitationTitle(s.measured);
    else ImGui::TableHeader(ImGui::TableGetColumnName(c));
  }
  for (std::size_t e = 0; e < runs.size(); ++e)
    if (s.show[e]) drawTableRow(runs[e], s.measured);
  ImGui::EndTable();
}

// The runs at the length shown (nullptr before the first result).
const std::vector<ExtrapolationRun>* shownRuns(const ExtrapolationPanelState& s) {
  const ExtrapolationLabResult* r = s.lab.result();
  if (r == nullptr || r->runs.empty()) return nullptr;
  const std::vector<ExtrapolationRun>& row = r->runs[static_cast<std::size_t>(std::clamp(s.multiple, 0, static_cast<int>(r->runs.size()) - 1))];
  return row.empty() ? nullptr : &row;   // a length a drag left out: it follows at rest
}

// The lab's inputs as a call of the extrapolation view: every encoding at L = the length shown; a
// loaded model's scaling parameters where they differ from the defaults.
cli::ViewCall labCall(const ExtrapolationPanelState& s) {
  namespace scaling = cli::params::scaling;
  const int l = kExtrapolationMultiples[static_cast<std::size_t>(s.multiple)] * s.trainedLength;
  cli::ViewCall call{"extrapolation"};
  call.set(table::kHeadDim, s.headDim).set(table::kTrainedLength, s.trainedLength).set(table::kLength, l);
  call.set(cli::params::rope::kBase, s.base).set(table::kSeed, s.seed).set(table::kSlope, s.alibiSlope);
  call.set(table::kText, std::string(s.sentence));
  if (!s.autoFactor) call.set(scaling::kFactor, s.factor);
  const RopeScaling plain;
  const RopeScaling& sc = s.scaling;
  if (sc.betaFast != plain.betaFast || sc.betaSlow != plain.betaSlow) call.set(scaling::kBetaFast, sc.betaFast).set(scaling::kBetaSlow, sc.betaSlow);
  if (sc.lowFreqFactor != plain.lowFreqFactor || sc.highFreqFactor != plain.highFreqFactor)
    call.set(scaling::kLowFreqFactor, sc.lowFreqFactor).set(scaling::kHighFreqFactor, sc.highFreqFactor);
  if (sc.mscale > 0) call.set(scaling::kMscale, sc.mscale);
  if (sc.mscaleAllDim > 0) call.set(scaling::kMscaleAllDim, sc.mscaleAllDim);
  if (sc.attentionFactor) call.set(scaling::kAttentionFactor, *sc.attentionFactor);
  return call.on(scaling::kNoTruncate, !sc.truncate);
}

// File > Export: the lab as a call of its view, and the attention by distance shown as plot data.
ExportableView extrapolationExports(const ExtrapolationPanelState& s) {
  ExportableView ex;
  ex.name = "extrapolation";
  const int l = kExtrapolationMultiples[static_cast<std::size_t>(s.multiple)] * s.trainedLength;
  ex.caption = "head_dim=" + std::to_string(s.headDim) + " L0=" + std::to_string(s.trainedLength) + " L=" + std::to_string(l);
  if (s.inputError.empty()) ex.call = labCall(s);
  const std::vector<ExtrapolationRun>* runs = shownRuns(s);
  if (runs == nullptr) return ex;
  const auto length = static_cast<std::size_t>(runs->front().length);
  ex.plotColumnNames = {"distance"};
  std::vector<std::vector<double>> cols{std::vector<double>(length)};
  for (std::size_t r = 0; r < length; ++r) cols[0][r] = static_cast<double>(r);
  for (std::size_t e = 0; e < runs->size(); ++e) {
    if (!s.show[e]) continue;
    const ExtrapolationRun& run = (*runs)[e];
    ex.plotColumnNames.push_back(std::string("weight_") + extrapolationEncodingName(run.encoding));
    cols.push_back(run.error.empty() ? run.weights : std::vector<double>(length, std::numeric_limits<double>::quiet_NaN()));
  }
  ex.plotColumns = [cols = std::move(cols)] { return cols; };
  return ex;
}

// One small attention plot per encoding, four to a row, in height h.
void drawSmallMultiples(const ExtrapolationPanelState& s, float h) {
  if (s.weightsSmall.empty()) return;
  const int n = static_cast<int>(s.weightsSmall.size());
  const int cols = std::min(n, 4), rows = (n + cols - 1) / cols;
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float w = (ImGui::GetContentRegionAvail().x - gap * static_cast<float>(cols - 1)) / static_cast<float>(cols);
  const float cellH = (h - ImGui::GetStyle().ItemSpacing.y * static_cast<float>(rows - 1)) / static_cast<float>(rows);
  for (int i = 0; i < n; ++i) {
    if (i % cols != 0) ImGui::SameLine();
    drawPlot(("extrap-weights-" + std::to_string(i)).c_str(), s.weightsSmall[static_cast<std::size_t>(i)], w, cellH);
  }
}

void drawResults(ExtrapolationPanelState& s) {
  if (!s.lab.error().empty()) ErrorText(s.lab.error());
  const std::vector<ExtrapolationRun>* shown = shownRuns(s);
  if (shown == nullptr) {
    ImGui::TextDisabled(extrapolationBusy(s) ? "computing every encoding at 1x, 2x, 4x and 8x L0..." : "no result yet");
    return;
  }
  const std::vector<ExtrapolationRun>& runs = *shown;
  // The table's rows are one line each (oneLineError): its height is known, and the two rows of
  // plots share what is left, so the table is never scrolled out of view.
  const float avail = ImGui::GetContentRegionAvail().y;
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const ImGuiStyle& style = ImGui::GetStyle();
  const float rowH = ImGui::GetTextLineHeight() + 2.0f * style.CellPadding.y;
  const float tableH = rowH * (1.0f + static_cast<float>(std::count(s.show.begin(), s.show.end(), true))) + style.ItemSpacing.y;
  const float plotH = std::max(160.0f, (avail - tableH - 2.0f * style.ItemSpacing.y) * 0.5f);
  if (s.smallMultiples) {
    ImGui::TextDisabled("Last query's attention, L = %s: %s by distance bin 0 | 1 | 2-3 | 4-7 | ...; grey: uniform; green: trained",
                        formatCount(runs.front().length).c_str(), s.binMean ? "mean weight of a key" : "share of attention (sum of weights)");
    drawSmallMultiples(s, plotH - line);
  }
  else drawPlot("extrap-weights", s.weightsPlot, 0.0f, plotH);
  const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
  drawPlot("extrap-entropy", s.entropyPlot, half, plotH);
  ImGui::SameLine();
  drawPlot("extrap-unseen", s.unseenPlot, half, plotH);
  drawFigure("extrap-table", {"Attention entropy and unseen angles per encoding", ""}, ImVec2(ImGui::GetContentRegionAvail().x, 0.0f),
             [&](ImVec2) { drawTable(s, runs); });
}

}  // namespace

void drawExtrapolationPanel(ExtrapolationPanelState& s, AppContext& ctx) {
  updateExtrapolationPanel(s);
  const float scale = ctx.uiScale;
  ImGui::BeginChild("extrap-controls", ImVec2(330.0f * scale, 0.0f), true);
  ImGui::PushItemWidth(150.0f * scale);
  drawModelControls(s);
  drawScalingControls(s);
  drawShowControls(s);
  ImGui::PopItemWidth();
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("extrap-results", ImVec2(0.0f, 0.0f), false);
  drawResults(s);
  ImGui::EndChild();
  ctx.status.busy = extrapolationBusy(s);
  ctx.status.progress = s.lab.busy() ? s.lab.progress() : -1.0f;
  ctx.status.computeMs = s.lab.millis();
}

//-----------------------------------------------------------------------------
// [SECTION] Settings
//-----------------------------------------------------------------------------

// Every parameter the tab keeps with the member that holds it: save and load walk this one list.
template <class State, class Visit>
void eachExtrapolationPanelParam(State& s, Visit&& visit) {
  visit(cli::params::rope::kBase, s.base);
  visit(cli::params::scaling::kFactor, s.factor);
  visit(table::kSlope, s.alibiSlope);
  visit(table::kSeed, s.seed);
}

void saveExtrapolationPanel(const ExtrapolationPanelState& s, nlohmann::json& j) {
  eachExtrapolationPanelParam(s, ParamSaver{j});
  cli::saveParam(j, table::kTrainedLength, s.trainedLength);
  cli::saveParam(j, table::kHeadDim, s.headDim);
  j["auto_factor"] = s.autoFactor;
  j["sentence"] = std::string(s.sentence);
  j["multiple"] = s.multiple;
  j["show"] = s.show;
  j["log_weights"] = s.logWeights;
  j["small_multiples"] = s.smallMultiples;
  j["bin_mean"] = s.binMean;
}

void loadExtrapolationPanel(ExtrapolationPanelState& s, const nlohmann::json& j) {
  eachExtrapolationPanelParam(s, ParamLoader{j});
  if (int l0 = s.trainedLength; cli::loadParam(j, table::kTrainedLength, l0) && l0 <= kLabMaxTrainedLength) s.trainedLength = l0;
  if (int d = s.headDim; cli::loadParam(j, table::kHeadDim, d) && d >= kLabMinHeadDim) s.headDim = d;
  readSetting(j, "auto_factor", s.autoFactor);
  if (std::string text; readSetting(j, "sentence", text) && text.size() < sizeof s.sentence) {
    std::memcpy(s.sentence, text.c_str(), text.size() + 1);
  }
  readSetting(j, "multiple", s.multiple, 0, static_cast<int>(kExtrapolationMultiples.size()) - 1);
  if (const auto it = j.find("show"); it != j.end() && it->is_array() && it->size() == s.show.size()) {
    for (std::size_t e = 0; e < s.show.size(); ++e)
      if ((*it)[e].is_boolean()) s.show[e] = (*it)[e].get<bool>();
  }
  readSetting(j, "log_weights", s.logWeights);
  readSetting(j, "small_multiples", s.smallMultiples);
  readSetting(j, "bin_mean", s.binMean);
  s.dirty = true;
  s.plotsDirty = true;
}

void applyExtrapolationConfig(ExtrapolationPanelState& s, const cli::ModelConfig& c, ConfigNotes& notes) {
  if (c.encoding == cli::ModelEncoding::Sinusoidal) return;  // the sinusoidal run has no parameter of a model
  if (!c.rope2d.empty()) return;  // a vision tower's patch grid has no trained length to extrapolate from
  cli::LabModel lab;
  try {
    lab = cli::labModelOf(c);
  } catch (const std::invalid_argument& e) {
    notes.push_back(std::string("Extrapolation tab: ") + e.what() + "; the tab keeps its settings");
    return;
  }
  const char* tab = "Extrapolation";
  const auto& all = encodings();
  for (std::size_t e = 0; e < all.size(); ++e) s.show[e] = all[e] == lab.encoding;
  const bool learned = c.encoding == cli::ModelEncoding::Learned;
  if (lab.encoding == ExtrapolationEncoding::Alibi) {
    s.alibiSlope = static_cast<float>(fitConfigParam(tab, "steepest ALiBi slope", table::kSlope, lab.alibiSlope, notes));
  } else {
    // What the parameter allows, then what the tab runs (L0 x 8 must be a run core takes; rope-ntk
    // needs two pairs), each with a note.
    // A learned model's own numbers (labModelOf fits them to the toy model without a word).
    const char* l0Field = learned ? "max_position_embeddings" : "trained length L0";
    const double l0 = fitConfigParam(tab, l0Field, table::kTrainedLength,
                                     learned ? static_cast<double>(c.maxPositions) : lab.trainedLength, notes);
    s.trainedLength = static_cast<int>(fitConfigValue(tab, l0Field, "trained length L0", static_cast<long long>(l0),
                                                      static_cast<long long>(table::kTrainedLength.min), kLabMaxTrainedLength, notes));
    const char* dField = learned ? "hidden_size" : "head_dim";
    const double d = fitConfigParam(tab, dField, table::kHeadDim, learned ? c.hiddenSize : lab.headDim, notes);
    s.headDim = static_cast<int>(fitConfigValue(tab, dField, "head_dim", static_cast<long long>(d), kLabMinHeadDim,
                                                static_cast<long long>(table::kHeadDim.max), notes));
  }
  if (isRotary(lab.encoding)) {
    s.base = fitConfigParam(tab, "rope_theta", cli::params::rope::kBase, lab.rope.base, notes);
    s.scaling = lab.rope.scaling;
    s.autoFactor = !lab.factorGiven;
    if (lab.factorGiven) {
      s.factor = static_cast<float>(fitConfigParam(tab, "rope_scaling.factor", cli::params::scaling::kFactor, lab.rope.scaling.factor, notes));
    }
  }
  s.dirty = true;
  s.plotsDirty = true;
}


// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

void tweakExtrapolation(AppState& a) {
  a.extrapolation.multiple = a.extrapolation.multiple == 0 ? 3 : 0;
  a.extrapolation.plotsDirty = true;
}

}  // namespace

const PanelDef kExtrapolationPanel{"extrapolation", [](AppState& a, AppContext& c) {
      refreshTrainCitation(a.extrapolation.measured, a.train.session.get());
      drawExtrapolationPanel(a.extrapolation, c);
    },
    [](AppState& a, const cli::ModelConfig& m, ConfigNotes& n) { applyExtrapolationConfig(a.extrapolation, m, n); },
    [](const AppState& a, nlohmann::json& j) { saveExtrapolationPanel(a.extrapolation, j); }, [](AppState& a, const nlohmann::json& j) { loadExtrapolationPanel(a.extrapolation, j); }, tweakExtrapolation,
    nullptr, nullptr, nullptr, nullptr, [](const AppState& a) { return extrapolationExports(a.extrapolation); }};

}  // namespace posviz::app
