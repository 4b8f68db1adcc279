// panel_image.cpp: see panel_image.hpp.
#include "app/gui/panels/app_state.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/panel_image.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

#include <imgui.h>
#include <nlohmann/json.hpp>

#include "app/gui/base/read_setting.hpp"
#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/retained.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/angle.hpp"
#include "core/axial_rope.hpp"
#include "core/mrope.hpp"

namespace posviz::app {

namespace axial = cli::params::axial;
namespace mrope = cli::params::mrope;

namespace {

// Both head dims are kept to multiples of 4: the axial one splits its pairs in two halves (core
// refuses others), and M-RoPE's sections are whole pairs of each axis alike.
constexpr int kHeadDimStep = 4;
// The tab computes its grids whole at every change (up to 64 x 64 patches x head_dim/2 pairs): its
// head dims stop at 256, a config's larger rotary dims included (with a note).
constexpr int kImageMaxHeadDim = 256;
// The angle picture before its view has asked for a window: at most this many cells a side.
constexpr int kAnglePictureCells = 512;

AxialRopeParams axialParams(const ImagePanelState& s) { return {s.headDim, s.base, s.variant}; }

std::vector<float> ones(int n) { return std::vector<float>(static_cast<std::size_t>(n), 1.0f); }

// Score of the query patch against every key patch: the score depends on the offsets only, so
// key patch (r, c) reads the offset grid at (queryRow - r, queryCol - c).
Grid queryScoreGrid(const ImagePanelState& s) {
  Grid g(s.rows, s.cols);
  for (int r = 0; r < s.rows; ++r)
    for (int c = 0; c < s.cols; ++c) g.at(r, c) = s.offsetScores.at(s.queryRow - r + s.rows - 1, s.queryCol - c + s.cols - 1);
  return g;
}

std::vector<MropeSegment> mropeSegments(const ImagePanelState& s) {
  std::vector<MropeSegment> seg;
  if (s.textBefore > 0) seg.push_back(mropeText(s.textBefore));
  seg.push_back(mropeImage(1, s.imageH, s.imageW));
  if (s.videoGrids > 0) {
    if (s.indexRule != MropeIndexRule::Frames) seg.push_back(mropeText(2));  // vision end, vision start
    seg.push_back(mropeVideo(s.videoGrids, s.imageH, s.imageW, s.secondsPerGrid));
  }
  if (s.textAfter > 0) seg.push_back(mropeText(s.textAfter));
  return seg;
}

// The tab's grids are merged patches already (spatial merge 1).
MropeIndexOptions mropeOptions(const ImagePanelState& s) {
  return {.rule = s.indexRule, .spatialMerge = 1, .tokensPerSecond = s.tokensPerSecond, .timestampTokens = s.timestampTokens};
}

void recomputeMrope(ImagePanelState& s) {
  s.mropeError.clear();
  try {
    const MropePositions ids = mropePositionIds(mropeSegments(s), mropeOptions(s));
    const int tokens = static_cast<int>(ids.t.size());
    s.mropeIds = Grid(3, tokens);
    for (int i = 0; i < tokens; ++i) {
      const auto t = static_cast<std::size_t>(i);
      s.mropeIds.at(0, i) = static_cast<float>(ids.t[t]);
      s.mropeIds.at(1, i) = static_cast<float>(ids.h[t]);
      s.mropeIds.at(2, i) = static_cast<float>(ids.w[t]);
    }
    RopeParams p;
    p.headDim = s.mropeHeadDim;
    p.base = s.mropeBase;
    const std::vector<int> section = {s.sectionT, s.sectionH, s.sectionW};
    s.mropeAngles = mropeAngleGrid(p, section, s.mropeInterleaved, ids);
    s.pairAxis.clear();
    for (MropeAxis a : mropePairAxes(section, s.mropeInterleaved)) s.pairAxis.push_back(static_cast<int>(a));
  } catch (const std::invalid_argument& e) {
    s.mropeError = e.what();
    s.mropeAngles = Grid();
  }
}

HeatmapSpec scoreSpec(const Grid& g, const char* rowTitle, const char* colTitle) {
  HeatmapSpec spec;
  spec.logicalRows = g.rows;
  spec.logicalCols = g.cols;
  spec.rowAxis.title = rowTitle;
  spec.colAxis.title = colTitle;
  spec.valueName = "score";
  spec.colormap = Colormap::RdBu;
  spec.symmetricRange = true;
  return spec;
}

// The angle grids' colours: the cyclic map, one full turn.
HeatmapSpec angleColors() {
  HeatmapSpec spec;
  spec.colormap = Colormap::Twilight;
  spec.isAngle = true;
  return spec;
}

// The axial grids of one set of parameters, coloured where they are made (a worker in the window).
// The angle grid (up to 4096 patches x 128 pairs) is pictured at the window its view asked for,
// each pixel its block's mean as on the RoPE tab: a whole-grid texture would be averaged again
// by the GL at every new picture.
AxialComputed computeAxial(const AxialRopeParams& p, int rows, int cols, const HeatmapWindow& angleWindow) {
  AxialComputed out;
  const std::vector<float> v = ones(p.headDim);
  out.offsetScores = axialRopeOffsetScores(p, v, v, rows, cols);
  out.angles = axialRopeAngleGrid(p, rows, cols);
  out.offsetImage = wholeGridImage(out.offsetScores, 0);
  HeatmapState asked;
  asked.wanted = angleWindow;
  long long version = 0;
  refreshImage(out.angles, asked, out.angleImage, version, true, kAnglePictureCells);
  colorHeatmapImage(out.offsetImage, scoreSpec(out.offsetScores, "", ""));
  colorHeatmapImage(out.angleImage, angleColors());
  return out;
}

// The query's row of scores follows a click at once, from the offset grid on screen.
void refreshQuery(ImagePanelState& s) {
  if (s.offsetScores.rows != 2 * s.rows - 1 || s.offsetScores.cols != 2 * s.cols - 1) return;   // its grid is coming
  s.queryRow = std::clamp(s.queryRow, 0, s.rows - 1);
  s.queryCol = std::clamp(s.queryCol, 0, s.cols - 1);
  s.queryScores = queryScoreGrid(s);
  s.queryImage = wholeGridImage(s.queryScores, ++s.version);
}

void applyAxial(ImagePanelState& s, AxialComputed c) {
  s.offsetScores = std::move(c.offsetScores);
  s.angles = std::move(c.angles);
  s.offsetImage = std::move(c.offsetImage);
  s.angleImage = std::move(c.angleImage);
  s.offsetImage.version = ++s.version;
  s.angleImage.version = ++s.version;
  refreshQuery(s);
}

// What moved since the last recompute: the axial grids (on the worker when onWorker), the query
// row, M-RoPE. Each is redone only when its own inputs moved (a base drag leaves M-RoPE alone).
void recompute(ImagePanelState& s, bool onWorker) {
  const std::uint64_t axial = RetainedKey().add(s.headDim).add(s.base).add(static_cast<int>(s.variant)).add(s.rows).add(s.cols).value();
  const std::uint64_t query = RetainedKey().add(s.queryRow).add(s.queryCol).value();
  const std::uint64_t mrope = RetainedKey().add(s.textBefore).add(s.imageH).add(s.imageW).add(s.textAfter).add(s.mropeHeadDim)
                                  .add(s.mropeBase).add(s.sectionT).add(s.sectionH).add(s.sectionW).add(s.mropeInterleaved)
                                  .add(s.videoGrids).add(s.secondsPerGrid).add(static_cast<int>(s.indexRule))
                                  .add(s.tokensPerSecond).add(s.timestampTokens).value();
  if (axial != s.axialKey) {
    s.axialKey = axial;
    const AxialRopeParams p = axialParams(s);
    const int rows = s.rows, cols = s.cols;
    const HeatmapWindow asked = s.angleMap.wanted;
    if (onWorker) {
      s.axialJob.request([p, rows, cols, asked](JobControl&) { return computeAxial(p, rows, cols, asked); });
    } else {
      s.error.clear();
      try {
        applyAxial(s, computeAxial(p, rows, cols, asked));
      } catch (const std::invalid_argument& e) {
        s.error = e.what();
      }
    }
  } else if (query != s.queryKey) {
    refreshQuery(s);
  }
  s.queryKey = query;
  if (mrope != s.mropeKey) {
    s.mropeKey = mrope;
    recomputeMrope(s);
    s.idsImage = wholeGridImage(s.mropeIds, ++s.version);
    s.mropeImage = wholeGridImage(s.mropeAngles, ++s.version);
  }
}

// [controls] ----------------------------------------------------------------------------------

// A head dim slider for a Param of the table, kept to multiples of kHeadDimStep.
bool headDimSlider(const cli::Param& p, int& v, const char* teach) {
  if (!paramSlider(p, v, teach, SliderSpan{kHeadDimStep, kImageMaxHeadDim})) return false;
  v = std::max(kHeadDimStep, v - v % kHeadDimStep);
  return true;
}

bool drawAxialControls(ImagePanelState& s) {
  bool changed = false;
  ImGui::TextUnformatted("2-D RoPE (image patches)");
  ImGui::Separator();
  if (paramChoice(axial::kScheme, s.variant,
                  "rope-vit (compute_axial_cis): pairs 0..D/4-1 follow the column, D/4..D/2-1 the row, both halves\n"
                  "at f_j = base^(-4j/D), pair i = dims (2i, 2i+1); rope-vit's theta is 100.\n"
                  "pixtral (PixtralRotaryEmbedding): pairs 0..D/4-1 follow the row at base^(-4j/D), the rest the column\n"
                  "at base^(-(4j+2)/D), a little slower; pair i = dims (i, i + D/2); Pixtral's rope_theta is 10000.")) {
    s.base = s.variant == AxialRopeVariant::Pixtral ? 10000.0 : AxialRopeParams{}.base;
    changed = true;
  }
  changed |= headDimSlider(axial::kHeadDim, s.headDim,
                           "head_dim D: half the pairs rotate by the patch's column, half by its row.");
  changed |= paramSlider(axial::kBase, s.base, "theta: rope-vit uses 100 for images; language models use 10000 or more.");
  changed |= paramSlider(axial::kPatchRows, s.rows);
  changed |= paramSlider(axial::kPatchCols, s.cols);
  s.queryRow = std::clamp(s.queryRow, 0, s.rows - 1);
  s.queryCol = std::clamp(s.queryCol, 0, s.cols - 1);
  changed |= paramSlider(axial::kQueryRow, s.queryRow, nullptr, SliderSpan{0, static_cast<double>(s.rows - 1)});
  changed |= paramSlider(axial::kQueryCol, s.queryCol, "Click a patch in the first map to make it the query.",
                         SliderSpan{0, static_cast<double>(s.cols - 1)});
  return changed;
}

bool drawVideoControls(ImagePanelState& s) {
  bool changed = paramSlider(mrope::kVideoFrames, s.videoGrids,
                             "A video of that many temporal grids follows the image (2 frames per grid), each grid as\n"
                             "large as the image.");
  changed |= paramChoice(mrope::kIndexRule, s.indexRule,
                         "How the model's get_rope_index gives a video its time ids:\n"
                         "steps (Qwen2-VL): +1 per temporal grid.\n"
                         "seconds (Qwen2.5-VL): int(k * int(second_per_grid) * tokens_per_second); the integer cast of\n"
                         "  second_per_grid sends every grid of a video faster than 1 s per grid to time 0.\n"
                         "frames (Qwen3-VL, GLM-4V): every grid is its own frame, after a timestamp text, at time 0.");
  if (!s.ruleNote.empty()) ImGui::TextWrapped("%s", s.ruleNote.c_str());
  if (s.videoGrids == 0) return changed;
  if (s.indexRule == MropeIndexRule::Seconds) {
    changed |= paramSlider(mrope::kSecondsPerGrid, s.secondsPerGrid);
    changed |= paramSlider(mrope::kTokensPerSecond, s.tokensPerSecond);
  } else if (s.indexRule == MropeIndexRule::Frames) {
    changed |= paramSlider(mrope::kTimestampTokens, s.timestampTokens);
  }
  return changed;
}

bool drawMropeControls(ImagePanelState& s) {
  bool changed = false;
  ImGui::TextUnformatted("M-RoPE (text + image + video + text)");
  ImGui::Separator();
  const char* sequence = "get_rope_index: text tokens count up on all three axes; an image's merged patch (i, j)\n"
                         "gets (s, s + i, s + j) after s tokens; the next text starts at 1 + the largest id so far.";
  changed |= paramSlider(mrope::kTextBefore, s.textBefore);
  changed |= paramSlider(mrope::kImageRows, s.imageH);
  changed |= paramSlider(mrope::kImageCols, s.imageW);
  changed |= drawVideoControls(s);
  changed |= paramSlider(mrope::kTextAfter, s.textAfter, sequence);
  ImGui::PushID("mrope");   // the axial head dim above has the same label
  changed |= headDimSlider(mrope::kHeadDim, s.mropeHeadDim, "M-RoPE turns head_dim/2 pairs, split into the three sections below.");
  ImGui::PopID();
  const int pairs = s.mropeHeadDim / 2;
  const char* sections = "mrope_section: pairs [0, t) follow the time id, the next h the row id, the rest the column id.\n"
                         "Qwen2-VL: 16, 24, 24 of 64 pairs.";
  changed |= paramSlider(mrope::kSectionT, s.sectionT, nullptr, SliderSpan{0, static_cast<double>(pairs)});
  changed |= paramSlider(mrope::kSectionH, s.sectionH, sections, SliderSpan{0, static_cast<double>(pairs)});
  s.sectionW = std::max(0, pairs - s.sectionT - s.sectionH);
  ImGui::Text("pairs on w: %d (the rest); base %g", s.sectionW, s.mropeBase);
  changed |= ImGui::Checkbox("interleaved sections", &s.mropeInterleaved);
  HelpMarker("Qwen3-VL and Qwen3.5 (mrope_interleaved): the three axes take turns pair by pair (t, h, w, t, h, w, ...)\n"
             "instead of one block each.");
  if (ImGui::Button("Qwen2-VL defaults")) {
    s.mropeHeadDim = 128;
    s.mropeBase = 1.0e6;
    s.sectionT = 16;
    s.sectionH = 24;
    s.mropeInterleaved = false;
    changed = true;
  }
  return changed;
}

// [views] -------------------------------------------------------------------------------------

void drawQueryMap(ImagePanelState& s, float w, float h) {
  HeatmapSpec spec = scoreSpec(s.queryScores, "key patch row", "key patch column");
  const AxialRopeParams p = axialParams(s);
  const int qr = s.queryRow, qc = s.queryCol, d = s.headDim;
  spec.exactValue = [p, qr, qc, d](long long r, long long c) {
    const std::vector<float> v = ones(d);
    return axialRopeScore(p, v, v, static_cast<double>(qr - r), static_cast<double>(qc - c));
  };
  spec.formula = [qr, qc](long long r, long long c) {
    return "sum over pairs of 2 cos(offset * f): row offset " + std::to_string(qr - r) + " on the row half, column offset " +
           std::to_string(qc - c) + " on the column half";
  };
  int* row = &s.queryRow;
  int* col = &s.queryCol;
  bool* dirty = &s.dirty;
  spec.onClick = [row, col, dirty](long long r, long long c) {
    *row = static_cast<int>(r);
    *col = static_cast<int>(c);
    *dirty = true;
  };
  s.queryMap.highlightRow = s.queryRow;
  s.queryMap.highlightCol = s.queryCol;
  ImGui::Text("score of the query patch (%d, %d) with every key patch (q = k = all ones)", s.queryRow, s.queryCol);
  drawHeatmap("image-query", s.queryMap, spec, s.queryImage, w, h);
}

void drawOffsetMap(ImagePanelState& s, float w, float h) {
  HeatmapSpec spec = scoreSpec(s.offsetScores, "row offset (query - key)", "column offset (query - key)");
  spec.rowAxis.origin = -(s.rows - 1);
  spec.colAxis.origin = -(s.cols - 1);
  const AxialRopeParams p = axialParams(s);
  const int rows = s.rows, cols = s.cols, d = s.headDim;
  spec.exactValue = [p, rows, cols, d](long long r, long long c) {
    const std::vector<float> v = ones(d);
    return axialRopeScore(p, v, v, static_cast<double>(r - (rows - 1)), static_cast<double>(c - (cols - 1)));
  };
  ImGui::Text("score against the row and column offsets: only the offsets matter");
  drawHeatmap("image-offsets", s.offsetMap, spec, s.offsetImage, w, h);
}

void drawAngleMap(ImagePanelState& s, float w, float h) {
  HeatmapSpec spec;
  spec.logicalRows = s.angles.rows;
  spec.logicalCols = s.angles.cols;
  spec.rowAxis.title = "patch t = row * columns + column";
  spec.colAxis.title = s.variant == AxialRopeVariant::Pixtral ? "pair (left half: row, right half: column)"
                                                              : "pair (left half: column, right half: row)";
  spec.valueName = "angle (rad)";
  spec.colormap = Colormap::Twilight;
  spec.isAngle = true;
  const AxialRopeParams p = axialParams(s);
  const int cols = s.cols;
  spec.exactValue = [p, cols](long long t, long long i) {
    const double a = axialRopeAngle(p, static_cast<int>(i), static_cast<double>(t / cols), static_cast<double>(t % cols));
    return wrapAngle(a);
  };
  ImGui::Text("angle of every pair at every patch, mod 2 pi");
  if (drawHeatmap("image-angles", s.angleMap, spec, s.angleImage, w, h) && !s.angles.values.empty())
    refreshImage(s.angles, s.angleMap, s.angleImage, s.version, false, kAnglePictureCells);   // zoomed or resized
}

void drawMropeMaps(ImagePanelState& s, float w, float h) {
  if (!s.mropeError.empty()) {
    ErrorText(s.mropeError);
    return;
  }
  HeatmapSpec ids;
  ids.logicalRows = 3;
  ids.logicalCols = s.mropeIds.cols;
  ids.rowAxis.title = "axis (0 t, 1 h, 2 w)";
  ids.colAxis.title = "token";
  ids.valueName = "position id";
  ids.colormap = Colormap::Viridis;
  const Grid idGrid = s.mropeIds;
  ids.exactValue = [idGrid](long long r, long long c) { return static_cast<double>(idGrid.at(static_cast<int>(r), static_cast<int>(c))); };
  if (s.videoGrids > 0) {
    ImGui::Text("M-RoPE ids (t, h, w): %d text, %d x %d image, %d-grid video, %d text; %s rule",
                s.textBefore, s.imageH, s.imageW, s.videoGrids, s.textAfter, mropeIndexRuleName(s.indexRule));
  } else {
    ImGui::Text("M-RoPE position ids (t, h, w) per token: %d text, a %d x %d image, %d text", s.textBefore, s.imageH, s.imageW,
                s.textAfter);
  }
  drawHeatmap("mrope-ids", s.idsMap, ids, s.idsImage, w, h * 0.3f);
  HeatmapSpec ang;
  ang.logicalRows = s.mropeAngles.rows;
  ang.logicalCols = s.mropeAngles.cols;
  ang.rowAxis.title = "token";
  ang.colAxis.title = "pair (t, then h, then w sections)";
  ang.valueName = "angle (rad)";
  ang.colormap = Colormap::Twilight;
  ang.isAngle = true;
  ImGui::Text("angles: pair i turns by the id of its section's axis");
  drawHeatmap("mrope-angles", s.mropeMap, ang, s.mropeImage, w, h * 0.7f - ImGui::GetFrameHeightWithSpacing());
}

void publishStatus(const ImagePanelState& s, AppContext& ctx) {
  ctx.status.backend = "CPU";
  ctx.status.gridSize = formatGridSize(s.offsetScores.rows, s.offsetScores.cols);
  ctx.status.busy = s.axialJob.busy();
  ctx.status.computeMs = s.axialJob.millis();
}

// File > Export: the score against the row and column offsets, as a call of axial-scores (q = k =
// all ones, the view's own default).
ExportableView imageExports(const ImagePanelState& s) {
  ExportableView ex;
  ex.name = "axial-scores";
  ex.caption = std::string(axialRopeVariantName(s.variant)) + " head_dim=" + std::to_string(s.headDim) + " base=" + formatShort(s.base) + " grid=" + std::to_string(s.rows) +
               "x" + std::to_string(s.cols);
  ex.rowTitle = "row offset";
  ex.colTitle = "column offset";
  ex.valueName = "score";
  ex.colormap = Colormap::RdBu;
  ex.symmetricRange = true;
  cli::ViewCall call{"axial-scores"};
  call.set(axial::kHeadDim, s.headDim).set(axial::kBase, s.base);
  if (s.variant != AxialRopeVariant::RopeVit) call.set(axial::kScheme, static_cast<double>(s.variant));
  call.set(axial::kGrid, std::to_string(s.rows) + "x" + std::to_string(s.cols));
  ex.call = std::move(call);
  return ex;
}

}  // namespace

void updateImagePanel(ImagePanelState& s) {
  if (!s.dirty) return;
  s.dirty = false;
  recompute(s, false);
}

namespace {

// The window's path: the axial grids land from the worker; the last ones stay until then.
void requestImage(ImagePanelState& s) {
  if (s.dirty) {
    s.dirty = false;
    recompute(s, true);
  }
  if (s.axialJob.poll()) {
    if (AxialComputed* c = s.axialJob.result()) applyAxial(s, std::move(*c));
  }
  s.error = s.axialJob.error();
}

}  // namespace

void drawImagePanel(ImagePanelState& s, AppContext& ctx) {
  const float fh = ImGui::GetFontSize();
  ImGui::BeginChild("controls", ImVec2(std::min(fh * 22.0f, std::floor(ImGui::GetContentRegionAvail().x * 0.3f)), 0), true);
  ImGui::PushItemWidth(-fh * 8.5f);   // room for the labels and their (?) markers
  s.dirty |= drawAxialControls(s);
  s.dirty |= drawMropeControls(s);
  ImGui::PopItemWidth();
  ImGui::EndChild();
  requestImage(s);
  ImGui::SameLine();
  ImGui::BeginChild("views", ImVec2(0, 0), false);
  if (!s.error.empty()) ErrorText(s.error);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float colW = (avail.x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
  const float rowH = (avail.y - ImGui::GetStyle().ItemSpacing.y) * 0.5f - ImGui::GetFrameHeightWithSpacing();
  ImGui::BeginGroup();
  drawQueryMap(s, colW, rowH);
  drawOffsetMap(s, colW, rowH);
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginGroup();
  drawAngleMap(s, colW, rowH);
  drawMropeMaps(s, colW, rowH);
  ImGui::EndGroup();
  ImGui::EndChild();
  publishStatus(s, ctx);
}

// Every parameter the tab keeps with the member that holds it: save and load walk this one list.
template <class State, class Visit>
void eachImagePanelParam(State& s, Visit&& visit) {
  visit(axial::kBase, s.base);
  visit(axial::kPatchRows, s.rows);
  visit(axial::kPatchCols, s.cols);
  visit(axial::kScheme, s.variant);
  visit(mrope::kTextBefore, s.textBefore);
  visit(mrope::kImageRows, s.imageH);
  visit(mrope::kImageCols, s.imageW);
  visit(mrope::kTextAfter, s.textAfter);
  visit(mrope::kVideoFrames, s.videoGrids);
  visit(mrope::kSecondsPerGrid, s.secondsPerGrid);
  visit(mrope::kIndexRule, s.indexRule);
  visit(mrope::kTokensPerSecond, s.tokensPerSecond);
  visit(mrope::kTimestampTokens, s.timestampTokens);
}

void saveImagePanel(const ImagePanelState& s, nlohmann::json& j) {
  j = nlohmann::json::object();
  eachImagePanelParam(s, ParamSaver{j});
  cli::saveParam(j, axial::kHeadDim, s.headDim);
  cli::saveParam(j, axial::kQueryRow, s.queryRow);
  cli::saveParam(j, axial::kQueryCol, s.queryCol);
  cli::saveParam(j, mrope::kHeadDim, s.mropeHeadDim);
  cli::saveParam(j, mrope::kSectionT, s.sectionT);
  cli::saveParam(j, mrope::kSectionH, s.sectionH);
  j["mrope_interleaved"] = s.mropeInterleaved;
}

void loadImagePanel(ImagePanelState& s, const nlohmann::json& j) {
  eachImagePanelParam(s, ParamLoader{j});
  // Head dims that are not multiples of 4 are ignored.
  auto headDimFits = [](int d) { return d >= kHeadDimStep && d <= kImageMaxHeadDim && d % kHeadDimStep == 0; };
  if (int d = s.headDim; cli::loadParam(j, axial::kHeadDim, d) && headDimFits(d)) s.headDim = d;
  if (int r = s.queryRow; cli::loadParam(j, axial::kQueryRow, r) && r < s.rows) s.queryRow = r;
  if (int c = s.queryCol; cli::loadParam(j, axial::kQueryCol, c) && c < s.cols) s.queryCol = c;
  if (int d = s.mropeHeadDim; cli::loadParam(j, mrope::kHeadDim, d) && headDimFits(d)) s.mropeHeadDim = d;
  if (int t = s.sectionT; cli::loadParam(j, mrope::kSectionT, t) && t <= s.mropeHeadDim / 2) s.sectionT = t;
  if (int h = s.sectionH; cli::loadParam(j, mrope::kSectionH, h) && h <= s.mropeHeadDim / 2 - s.sectionT) s.sectionH = h;
  readSetting(j, "mrope_interleaved", s.mropeInterleaved);
  s.dirty = true;
}

namespace {

// The family's get_rope_index rule and tokens per second, as mrope-angles --config takes them.
void applyIndexRule(ImagePanelState& s, const cli::MropeReading& reading, const std::string& modelType) {
  s.ruleNote.clear();
  if (reading.rule) s.indexRule = *reading.rule;
  if (reading.unmodelledRule) {
    s.ruleNote = modelType + "'s own get_rope_index (audio positions or merged time steps) is not one posviz models; "
                 "the ids follow the rule chosen here.";
  }
  if (reading.tokensPerSecond > 0.0 && cli::fitsParam(mrope::kTokensPerSecond, reading.tokensPerSecond)) {
    s.tokensPerSecond = reading.tokensPerSecond;
  }
}

// A Pixtral vision tower: its scheme, head_dim and base, and as much of its patch grid as the tab shows.
void applyAxialConfig(ImagePanelState& s, const cli::ModelConfig& c, ConfigNotes& notes) {
  s.variant = AxialRopeVariant::Pixtral;
  const double d = fitConfigParam("Image RoPE", "head_dim", axial::kHeadDim, c.rope.headDim, notes);
  s.headDim = std::clamp(static_cast<int>(d) - static_cast<int>(d) % kHeadDimStep, kHeadDimStep, kImageMaxHeadDim);
  s.base = fitConfigParam("Image RoPE", "rope_theta", axial::kBase, c.rope.base, notes);
  s.rows = static_cast<int>(fitConfigValue("Image RoPE", "patch rows", "image_size / patch_size", c.patchGrid,
                                           static_cast<long long>(axial::kPatchRows.min), static_cast<long long>(axial::kPatchRows.max), notes));
  s.cols = s.rows;
  s.queryRow = s.rows / 2;
  s.queryCol = s.cols / 2;
  s.dirty = true;
}

}  // namespace

void applyImageConfig(ImagePanelState& s, const cli::ModelConfig& c, ConfigNotes& notes) {
  if (c.rope2d == "pixtral") applyAxialConfig(s, c, notes);
  const auto reading = cli::readMropeConfig(c);
  if (!reading) return;
  const std::vector<int>& section = reading->section;
  if (section.size() != 3) {
    notes.push_back("Image RoPE tab: mrope_section has " + std::to_string(section.size()) +
                    " counts, not one per axis t, h, w; the tab keeps its settings");
    return;
  }
  // M-RoPE turns the rotary dims only (Qwen3.5: 64 of head_dim 256, partial_rotary_factor 0.25).
  const double rotary = ropeRotaryDims(reading->rope);
  // What the parameter allows, then what this tab draws (see kImageMaxHeadDim), each with a note.
  double d = fitConfigParam("Image RoPE", "rotary dims", mrope::kHeadDim, rotary, notes);
  d = static_cast<double>(fitConfigValue("Image RoPE", "rotary dims", "M-RoPE head_dim", static_cast<long long>(d),
                                         kHeadDimStep, kImageMaxHeadDim, notes));
  s.mropeHeadDim = static_cast<int>(d) - static_cast<int>(d) % kHeadDimStep;
  if (s.mropeHeadDim != static_cast<int>(d)) {
    notes.push_back("Image RoPE tab: rotary dims " + noteNumber(rotary) + " is not a multiple of " + std::to_string(kHeadDimStep) +
                    ": shown at " + std::to_string(s.mropeHeadDim));
  }
  s.mropeBase = reading->rope.base;
  const int pairs = s.mropeHeadDim / 2;
  s.sectionT = std::clamp(section[0], 0, pairs);
  s.sectionH = std::clamp(section[1], 0, pairs - s.sectionT);
  s.sectionW = pairs - s.sectionT - s.sectionH;
  if (s.sectionT != section[0] || s.sectionH != section[1] || s.sectionW != section[2]) {
    notes.push_back("Image RoPE tab: mrope_section " + std::to_string(section[0]) + ", " + std::to_string(section[1]) +
                    ", " + std::to_string(section[2]) + " does not fit " + std::to_string(pairs) + " pairs: shown as " +
                    std::to_string(s.sectionT) + ", " + std::to_string(s.sectionH) + ", " + std::to_string(s.sectionW));
  }
  s.mropeInterleaved = reading->interleaved;
  applyIndexRule(s, *reading, c.modelType);
  s.dirty = true;
}


// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

void tweakImage(AppState& a) {
  a.image.base = a.image.base > 1000.0 ? 100.0 : 10000.0;
  a.image.dirty = true;
}

}  // namespace

const PanelDef kImagePanel{"image-rope", [](AppState& a, AppContext& c) { drawImagePanel(a.image, c); },
    [](AppState& a, const cli::ModelConfig& m, ConfigNotes& n) { applyImageConfig(a.image, m, n); },
    [](const AppState& a, nlohmann::json& j) { saveImagePanel(a.image, j); }, [](AppState& a, const nlohmann::json& j) { loadImagePanel(a.image, j); }, tweakImage,
    nullptr, nullptr, nullptr, nullptr, [](const AppState& a) { return imageExports(a.image); }};

}  // namespace posviz::app
