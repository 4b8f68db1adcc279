// panel_rope.cpp: the RoPE view.
//
// [SECTION] Helpers shared with other views (number lists, string input)
// [SECTION] Update: parameters -> core results
// [SECTION] Drawing: the dim-pairing diagram
// [SECTION] Drawing: pairs as rotating vectors
// [SECTION] Drawing: the panel
// [SECTION] Settings
#include "app/gui/panels/app_state.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/widgets/figure_export.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/panel_rope.hpp"

#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <numbers>
#include <span>

#include "app/gui/base/read_setting.hpp"
#include "app/cli/export.hpp"
#include "app/cli/view_table.hpp"
#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/pixel_choice.hpp"
#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/retained.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/angle.hpp"
#include "core/gpu/backend.hpp"
#include "core/area_average.hpp"
#include "core/exact_average.hpp"
#include "core/random.hpp"

namespace posviz::app {

namespace table = cli::params::rope;

namespace {

constexpr ImU32 kQColor = IM_COL32(86, 180, 233, 255);   // sky blue (Okabe-Ito)
constexpr ImU32 kKColor = IM_COL32(230, 159, 0, 255);    // orange (Okabe-Ito)

ImU32 pairHue(int pair, int numPairs) {
  const float h = 0.85f * static_cast<float>(pair) / static_cast<float>(std::max(1, numPairs));
  return ImColor::HSV(h, 0.6f, 0.95f);
}

// "500000" rather than "5.000e+05" for the usual integral bases.
std::string formatBase(double base) {
  if (base == std::floor(base) && base < 1e15) return std::to_string(static_cast<long long>(base));
  return formatShort(base, 8);
}

const char* gridKindName(RopeGridKind k) {
  switch (k) {
    case RopeGridKind::Score: return "score";
    case RopeGridKind::Angle: return "angle";
    case RopeGridKind::Cos: return "cos";
    case RopeGridKind::Sin: return "sin";
  }
  return "score";
}

}  // namespace


//-----------------------------------------------------------------------------
// [SECTION] Update: parameters -> core results
//-----------------------------------------------------------------------------

namespace {

// From this many query rows per pixel on, the score picture is the closed-form block mean
// (core/exact_average.hpp).
constexpr long long kExactRowsPerPixel = 4;

HeatmapWindow windowFor(const HeatmapState& hs, long long rows, long long cols) {
  if (windowInside(hs.wanted, rows, cols)) return hs.wanted;
  return fullWindow(rows, cols, 512, 512);
}

// A curve of samples at x = x0, x0 + 1, ... reduced to what a plot can show (core lineExtremes).
std::shared_ptr<const RopeScoreResult::Curve> drawnCurve(const std::vector<double>& y, long long x0) {
  auto c = std::make_shared<RopeScoreResult::Curve>();
  for (std::size_t i : lineExtremes(y, 4096)) {
    c->x.push_back(static_cast<double>(x0 + static_cast<long long>(i)));
    c->y.push_back(y[i]);
  }
  return c;
}

// Whether this request computes the curves: always below kRopeLiveCurvePositions, else once the
// inputs have rested.
bool curvesDue(const RopePanelState& s) {
  return s.numPositions <= kRopeLiveCurvePositions || steadySeconds() - s.inputChangedAt >= kRopeCurveRestSeconds;
}

// The score heatmap's colours: drawScoreMap's spec and the worker that colours its pictures.
void setScoreColors(HeatmapSpec& spec) {
  spec.colormap = Colormap::RdBu;
  spec.symmetricRange = true;
}

// The score picture of window w: the mean in closed form (many rows a pixel) or from s by offset;
// a stat (core/pixel_stats.hpp) from s at the window's offsets, the curves' when at hand.
void drawScorePicture(RopeScoreResult& out, const RopeParams& p, const std::vector<float>& q, const std::vector<float>& k,
                      int T, const HeatmapWindow& w, bool closedForm, PixelChoice choice, long long version, JobControl& jc) {
  const bool haveOffsets = out.curvesVersion == version && out.byOffset;
  auto statPicture = [&](PixelStat st) {
    if (st == PixelStat::Mean && closedForm) return ropeScoreExactPicture(p, q, k, w);
    if (haveOffsets) return diagonalStatPicture(*out.byOffset, -(T - 1), w, st);
    return ropeScoreStatPicture(p, q, k, w, st);
  };
  if (!closedForm && statOfChoice(choice) == PixelStat::Mean) {
    // s(m, n) = byOffset[m - n + T - 1]: constant along diagonals (core/area_average.hpp).
    if (!areaAverageDiagonals(*out.byOffset, T - 1, w, out.image.cells, [&jc] { return jc.cancelled(); }))
      throw JobCancelled{};
    out.image.pixelStat = "mean";
    out.image.pixelNote.clear();
    return;
  }
  const double bound = ropeScoreBound(p, q, k);
  showChosenPicture(out.image, choosePicture(choice, w, bound, statPicture), "+-" + formatShort(bound, 3));
  throwIfCancelled(jc);
}

void requestScore(RopePanelState& s) {
  const int T = s.numPositions;
  const HeatmapWindow w = windowFor(s.scoreHeatmap, T, T);
  const bool wantImage = s.gridKind == RopeGridKind::Score;
  const bool withCurves = curvesDue(s);
  if (s.requestedVersion == s.inputVersion && (!wantImage || (s.requestedWindow == w && s.requestedPixel == s.pixel)) &&
      (s.requestedCurves || !withCurves))
    return;
  // At large T a drag would keep the worker busy every frame with pictures for values already
  // passed. One picture at a time: the next request, for the latest value, waits for this one;
  // curves still being computed for a value left behind are dropped instead.
  if (T > kRopeLiveCurvePositions) {
    s.score.poll();
    if (s.score.busy()) {
      if (!(s.requestedCurves && s.requestedVersion != s.inputVersion)) return;
      s.score.cancelAll();
    }
  }

  // The last curves go along: reused when they are for these inputs, shown (marked as waiting)
  // while a drag at large T has not rested yet.
  RopeScoreResult carried;
  if (const RopeScoreResult* r = s.score.result()) {
    carried.curvesVersion = r->curvesVersion;
    carried.byOffset = r->byOffset;
    carried.decayBound = r->decayBound;
    carried.offsetCurve = r->offsetCurve;
    carried.boundCurve = r->boundCurve;
  }
  s.requestedVersion = s.inputVersion;
  s.requestedWindow = wantImage ? w : HeatmapWindow{};
  s.requestedCurves = withCurves;
  s.requestedPixel = s.pixel;
  const auto choice = static_cast<PixelChoice>(s.pixel);
  const long long version = s.inputVersion;
  const long long imageVersion = ++s.imageVersion;
  const bool closedForm = T > kRopeLiveCurvePositions || w.rows >= kExactRowsPerPixel * w.outRows;
  s.score.request([p = s.params, q = s.q, k = s.k, T, w, wantImage, withCurves, closedForm, version, imageVersion,
                   carried, choice](JobControl& jc) {
    RopeScoreResult out = carried;
    out.inputVersion = version;
    if (withCurves && carried.curvesVersion != version) {
      out.byOffset = std::make_shared<const std::vector<double>>(ropeScoreByOffset(p, q, k, T));
      throwIfCancelled(jc);
      out.decayBound = std::make_shared<const std::vector<double>>(ropeDecayBound(p, T - 1));
      throwIfCancelled(jc);
      out.offsetCurve = drawnCurve(*out.byOffset, -(T - 1));
      out.boundCurve = drawnCurve(*out.decayBound, 0);
      out.curvesVersion = version;
    }
    if (wantImage) {
      // Many rows a pixel (or a T whose curves wait): the closed form (a product of two
      // geometric-series means per pair) costs O(pairs) a pixel whatever T; otherwise the
      // diagonal prefix sums over s by offset are cheaper.
      drawScorePicture(out, p, q, k, T, w, closedForm, choice, version, jc);
      out.image.window = w;
      // The colours span the whole grid's range when s by offset is at hand, else the picture's.
      out.image.range = out.curvesVersion == version ? finiteRange(*out.byOffset) : finiteRange(out.image.cells);
      out.image.version = imageVersion;
      HeatmapSpec colors;
      setScoreColors(colors);
      colorHeatmapImage(out.image, colors);
    }
    return out;
  });
}

// The pair grid's picture of window w: its cells 1:1, else each pixel its block's chosen stat
// (core gridStatPicture over the grid held whole; the angle grid has no RMS, so it keeps the mean).
void drawPairPicture(RopePanelState& s, const HeatmapWindow& w) {
  if (w.rows <= w.outRows && w.cols <= w.outCols) {
    areaAverageWindow(s.pairGrid, w, s.pairImage.cells);
    s.pairImage.pixelStat = "mean";
    s.pairImage.pixelNote.clear();
    return;
  }
  auto choice = static_cast<PixelChoice>(s.pixel);
  const bool angle = s.gridKind == RopeGridKind::Angle;
  if (angle && choice == PixelChoice::Rms) choice = PixelChoice::Mean;
  const double bound = angle ? 0.0 : s.freqs.attentionFactor;   // cos and sin swing within +-f
  showChosenPicture(s.pairImage, choosePicture(choice, w, bound, [&](PixelStat st) { return gridStatPicture(s.pairGrid, w, st); }),
                    "+-" + formatShort(bound, 3));
  if (angle && s.pixel == static_cast<int>(PixelChoice::Rms)) s.pairImage.pixelNote = "angles wrap at 2 pi: no RMS, the mean instead";
}

void updatePairGrid(RopePanelState& s, AppContext& ctx) {
  if (s.gridKind == RopeGridKind::Score || !s.error.empty()) return;
  const int T = s.numPositions;
  const bool stale = s.pairGridVersion != s.inputVersion || s.pairGridKind != s.gridKind;
  if (stale) {
    try {
      gpu::Computed c;
      const gpu::Backend b = ctx.backend;
      if (s.gridKind == RopeGridKind::Angle) c = gpu::computeRopeAngleGrid(ctx.gpu, b, s.params, T);
      else if (s.gridKind == RopeGridKind::Cos) c = gpu::computeRopeCosGrid(ctx.gpu, b, s.params, T);
      else c = gpu::computeRopeSinGrid(ctx.gpu, b, s.params, T);
      s.pairGrid = std::move(c.grid);
      s.pairGridOnGpu = c.onGpu;
      s.pairGridNotice = c.notice;
      s.pairGridMs = c.millis;
    } catch (const std::exception& e) {
      s.error = e.what();
      return;
    }
    s.pairGridVersion = s.inputVersion;
    s.pairGridKind = s.gridKind;
  }
  const HeatmapWindow w = windowFor(s.pairHeatmap, s.pairGrid.rows, s.pairGrid.cols);
  if (!windowInside(w, s.pairGrid.rows, s.pairGrid.cols)) return;   // an empty grid has no picture
  if (stale || !(s.pairImage.window == w) || s.pairImagePixel != s.pixel) {
    drawPairPicture(s, w);
    s.pairImagePixel = s.pixel;
    s.pairImage.window = w;
    s.pairImage.range = finiteRange(s.pairGrid);
    s.pairImage.version = ++s.imageVersion;
  }
}

}  // namespace

void applyRopeConfig(RopePanelState& s, const cli::ModelConfig& c, ConfigNotes& notes) {
  const auto rope = readTabRope("RoPE", c, notes);
  if (!rope) return;
  s.params = *rope;
  s.params.headDim = static_cast<int>(fitConfigParam("RoPE", "head_dim", table::kHeadDim, rope->headDim, notes));
  s.params.base = fitConfigParam("RoPE", "rope_theta", table::kBase, rope->base, notes);
  s.params.rotaryFraction = fitConfigParam("RoPE", "partial_rotary_factor", table::kRotaryFraction, rope->rotaryFraction, notes);
  if (s.typedVectors && static_cast<int>(s.q.size()) != s.params.headDim) s.typedVectors = false;
  s.dirty = true;
}

void updateRopePanel(RopePanelState& s, AppContext& ctx) {
  if (s.backendEpoch != ctx.backendEpoch) {
    s.backendEpoch = ctx.backendEpoch;
    s.pairGridVersion = -1;  // the positions x pairs grid again, on the newly chosen backend
  }
  if (s.dirty) {
    s.dirty = false;
    ++s.inputVersion;
    s.inputChangedAt = steadySeconds();
    if (s.numPositions != s.viewPositions) {  // a view zoomed into the old size would be stale
      s.viewPositions = s.numPositions;
      s.scoreHeatmap.resetView();
      s.pairHeatmap.resetView();
      s.scoreHeatmap.wanted = {};
      s.pairHeatmap.wanted = {};
    }
    s.error.clear();
    if (s.typedVectors) {
      std::vector<double> qv, kv;
      const bool qOk = parseNumberList(s.qText, qv, &s.qError);
      const bool kOk = parseNumberList(s.kText, kv, &s.kError);
      if (qOk && kOk) {
        if (qv.size() != kv.size()) {
          s.kError = "k has " + std::to_string(kv.size()) + " values, q has " + std::to_string(qv.size()) +
                     ": they must have the same length";
        } else if (qv.size() % 2 != 0 || qv.size() > 256) {
          s.qError = "q and k need an even number of values (2 .. 256), got " + std::to_string(qv.size());
        } else {
          s.q.assign(qv.begin(), qv.end());
          s.k.assign(kv.begin(), kv.end());
          s.params.headDim = static_cast<int>(qv.size());
        }
      }
    } else {
      s.qError.clear();
      s.kError.clear();
    }
    try {
      s.freqs = ropeFrequencies(s.params);
      s.shown = s.params;
      if (!s.typedVectors || static_cast<int>(s.q.size()) != s.params.headDim) {
        s.q = randomNormalVector(s.params.headDim, static_cast<std::uint64_t>(s.seed));
        s.k = randomNormalVector(s.params.headDim, static_cast<std::uint64_t>(s.seed) + 1);
      }
      if (static_cast<int>(s.freqs.invFreq.size()) != s.viewPairs) {
        s.viewPairs = static_cast<int>(s.freqs.invFreq.size());
        s.pairHeatmap.resetView();
        s.pairHeatmap.wanted = {};
      }
    } catch (const std::exception& e) {
      s.error = e.what();
    }
    s.posDirty = true;
  }
  if (s.posDirty && s.error.empty()) {
    s.posDirty = false;
    s.posM = std::clamp(s.posM, 0, s.numPositions - 1);
    s.posN = std::clamp(s.posN, 0, s.numPositions - 1);
    try {
      s.qRot = ropeRotate(s.params, std::span<const float>(s.q), static_cast<double>(s.posM));
      s.kRot = ropeRotate(s.params, std::span<const float>(s.k), static_cast<double>(s.posN));
    } catch (const std::exception& e) {
      s.error = e.what();
    }
  }
  if (s.error.empty()) {
    requestScore(s);
    updatePairGrid(s, ctx);
  }
  s.score.poll();
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: the dim-pairing diagram
//-----------------------------------------------------------------------------

namespace {

// The pairing diagram's geometry and the pair of every dim in both layouts.
struct LayoutDiagram {
  RopeParams half, inter;                  // the shown parameters in each layout
  int d = 0, rot = 0, numPairs = 0;
  std::vector<int> perm;                   // interleaved dim k holds half-split dim perm[k]
  std::vector<int> pairHalf, pairInter;    // pair of each dim (-1: pass-through)
  ImVec2 origin;
  float width = 0, box = 0, arcH = 0, boxH = 0, height = 0;
  float yHalf = 0, yInter = 0;             // tops of the half-split and interleaved rows

  float cx(int dim) const { return origin.x + 4.0f + (static_cast<float>(dim) + 0.5f) * box; }
};

bool layoutDiagram(const RopeParams& p, float width, float scale, LayoutDiagram& g) {
  try {
    g.rot = ropeRotaryDims(p);
    g.perm = ropeLayoutPermutation(g.rot);
  } catch (const std::exception&) {
    return false;
  }
  g.d = p.headDim;
  g.numPairs = g.rot / 2;
  g.half = g.inter = p;
  g.half.layout = RopeLayout::HalfSplit;
  g.inter.layout = RopeLayout::Interleaved;
  g.pairHalf.assign(static_cast<std::size_t>(g.d), -1);
  g.pairInter.assign(static_cast<std::size_t>(g.d), -1);
  for (int i = 0; i < g.numPairs; ++i) {
    const DimPair a = ropePairDims(g.half, i), b = ropePairDims(g.inter, i);
    g.pairHalf[static_cast<std::size_t>(a.a)] = g.pairHalf[static_cast<std::size_t>(a.b)] = i;
    g.pairInter[static_cast<std::size_t>(b.a)] = g.pairInter[static_cast<std::size_t>(b.b)] = i;
  }
  g.width = width;
  g.box = std::min(22.0f * scale, (width - 8.0f) / static_cast<float>(g.d));
  g.arcH = 26.0f * scale;
  g.boxH = std::max(6.0f, std::min(g.box, 16.0f * scale));
  const float textH = ImGui::GetTextLineHeight(), rowGap = 44.0f * scale;
  g.height = textH + g.arcH + g.boxH + rowGap + g.boxH + g.arcH + textH;
  g.origin = ImGui::GetCursorScreenPos();
  g.yHalf = g.origin.y + textH + g.arcH;
  g.yInter = g.yHalf + g.boxH + rowGap;
  return true;
}

// Arcs above the half-split row and below the interleaved row join the dims of each pair.
void drawPairArcs(ImDrawList* dl, const LayoutDiagram& g) {
  const float thick = std::max(1.0f, std::min(2.0f, g.box * 0.15f));
  for (int i = 0; i < g.numPairs; ++i) {
    const DimPair a = ropePairDims(g.half, i), b = ropePairDims(g.inter, i);
    const ImU32 col = pairHue(i, g.numPairs);
    const float ha = std::min(g.arcH, g.arcH * (0.35f + std::fabs(static_cast<float>(a.b - a.a)) / static_cast<float>(g.d)));
    dl->AddBezierCubic(ImVec2(g.cx(a.a), g.yHalf), ImVec2(g.cx(a.a), g.yHalf - ha), ImVec2(g.cx(a.b), g.yHalf - ha),
                       ImVec2(g.cx(a.b), g.yHalf), col, thick);
    const float hb = g.arcH * 0.6f, y = g.yInter + g.boxH;
    dl->AddBezierCubic(ImVec2(g.cx(b.a), y), ImVec2(g.cx(b.a), y + hb), ImVec2(g.cx(b.b), y + hb), ImVec2(g.cx(b.b), y),
                       col, thick);
  }
}

// The whole picture: titles, arcs, the permutation's lines, and the dim boxes.
void drawLayoutPicture(ImDrawList* dl, const LayoutDiagram& g, const RopeParams& p) {
  const ImU32 grey = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const bool halfSel = p.layout == RopeLayout::HalfSplit;
  dl->AddText(g.origin, halfSel ? text : grey, halfSel ? "half-split (i, i + d/2)  [selected]" : "half-split (i, i + d/2)");
  dl->AddText(ImVec2(g.origin.x, g.yInter + g.boxH + g.arcH), !halfSel ? text : grey,
              !halfSel ? "interleaved (2i, 2i + 1)  [selected]" : "interleaved (2i, 2i + 1)");
  drawPairArcs(dl, g);
  for (int kk = 0; kk < g.rot; ++kk) {
    const int pair = g.pairInter[static_cast<std::size_t>(kk)];
    dl->AddLine(ImVec2(g.cx(g.perm[static_cast<std::size_t>(kk)]), g.yHalf + g.boxH), ImVec2(g.cx(kk), g.yInter),
                (pair >= 0 ? pairHue(pair, g.numPairs) : grey) & themed(IM_COL32(255, 255, 255, 150)), 1.0f);
  }
  const bool labels = g.box >= ImGui::CalcTextSize("00").x + 2.0f;
  for (int dim = 0; dim < g.d; ++dim) {
    const float x0 = g.origin.x + 4.0f + static_cast<float>(dim) * g.box;
    for (int row = 0; row < 2; ++row) {
      const float y0 = row == 0 ? g.yHalf : g.yInter;
      const int pr = (row == 0 ? g.pairHalf : g.pairInter)[static_cast<std::size_t>(dim)];
      dl->AddRectFilled(ImVec2(x0 + 0.5f, y0), ImVec2(x0 + g.box - 0.5f, y0 + g.boxH),
                        pr >= 0 ? pairHue(pr, g.numPairs) : themed(IM_COL32(90, 90, 90, 255)));
      if (!labels) continue;
      const std::string t = std::to_string(dim);
      const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
      dl->AddText(ImVec2(x0 + (g.box - ts.x) * 0.5f, y0 + (g.boxH - ts.y) * 0.5f), themed(IM_COL32(20, 20, 20, 255)), t.c_str());
    }
  }
}

void layoutDiagramTooltip(const LayoutDiagram& g) {
  const int dim = static_cast<int>(std::floor((ImGui::GetIO().MousePos.x - g.origin.x - 4.0f) / g.box));
  if (dim < 0 || dim >= g.d) return;
  ImGui::BeginTooltip();
  if (dim >= g.rot) {
    ImGui::Text("dim %d: pass-through (partial rotary: only dims 0..%d rotate)", dim, g.rot - 1);
  } else {
    const int ph = g.pairHalf[static_cast<std::size_t>(dim)], pi = g.pairInter[static_cast<std::size_t>(dim)];
    const DimPair a = ropePairDims(g.half, ph), b = ropePairDims(g.inter, pi);
    ImGui::Text("dim %d\nhalf-split: pair %d = dims (%d, %d)\ninterleaved: pair %d = dims (%d, %d)", dim, ph, a.a, a.b,
                pi, b.a, b.b);
    ImGui::Text("interleaved dim %d holds half-split dim %d", dim, g.perm[static_cast<std::size_t>(dim)]);
  }
  ImGui::EndTooltip();
}

// Two rows of dim boxes (half-split above, interleaved below), arcs joining the dims of each
// pair, and lines from halfSplit[perm[k]] to interleaved[k]: the permutation between them. The
// picture changes only with head_dim, the rotary fraction, the layout and the width, so a drag
// of anything else shows it from a texture.
void drawLayoutDiagram(const RopeParams& p, float width, float scale) {
  LayoutDiagram g;
  if (!layoutDiagram(p, width, scale, g)) return;
  ImGui::Dummy(ImVec2(width, g.height));
  RetainedKey key;
  key.add(p.headDim).add(g.rot).add(p.layout).add(width).add(scale);
  drawRetained("layout-diagram", g.origin, ImVec2(width, g.height), key.value(),
               [&](ImDrawList* dl) { drawLayoutPicture(dl, g, p); });
  if (ImGui::IsItemHovered()) layoutDiagramTooltip(g);
}

// perm written out (first entries) so the numbers behind the lines can be read.
void drawPermutationText(const RopeParams& p) {
  try {
    const int rot = ropeRotaryDims(p);
    const std::vector<int> perm = ropeLayoutPermutation(rot);
    std::string t = "perm = [";
    const int shown = std::min(rot, 12);
    for (int i = 0; i < shown; ++i) t += (i ? ", " : "") + std::to_string(perm[static_cast<std::size_t>(i)]);
    t += shown < rot ? ", ...]" : "]";
    ImGui::TextDisabled("%s", t.c_str());
    HelpMarker("interleaved dim k = half-split dim perm[k]: apply perm to q, k (and the rows of W_q, W_k) to move a\n"
               "checkpoint from one convention to the other with identical scores.");
  } catch (const std::exception&) {
  }
}

// q and k by dim, so typed or seeded inputs can be seen.
void drawVectors(const RopePanelState& s) {
  if (s.q.empty() || s.q.size() != s.k.size()) return;
  ImGui::Separator();
  PlotSpec ps;
  ps.title = "q and k by dim";
  ps.xTitle = "dimension of q and k";
  ps.xTip = "dim = 0 .. head_dim - 1; the pairs that rotate are (i, i + d_rot/2) half-split or (2i, 2i+1) interleaved.";
  ps.yTitle = "value";
  ps.yTip = "q[dim] and k[dim] before rotation (typed or seeded).";
  PlotSeries q, k;
  q.label = "q";
  k.label = "k";
  q.color = themed(kQColor);
  k.color = themed(kKColor);
  q.scatter = k.scatter = s.q.size() <= 64;
  q.thickness = k.thickness = 1.5f;
  for (std::size_t i = 0; i < s.q.size(); ++i) {
    q.x.push_back(static_cast<double>(i));
    k.x.push_back(static_cast<double>(i));
    q.y.push_back(static_cast<double>(s.q[i]));
    k.y.push_back(static_cast<double>(s.k[i]));
  }
  ps.series.push_back(std::move(q));
  ps.series.push_back(std::move(k));
  drawPlot("rope-qk", ps, 0.0f, std::max(140.0f, ImGui::GetContentRegionAvail().y - 4.0f));
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: pairs as rotating vectors
//-----------------------------------------------------------------------------

void drawArrow(ImDrawList* dl, ImVec2 c, float dx, float dy, ImU32 col, float thick) {
  const ImVec2 tip(c.x + dx, c.y - dy);  // screen y grows downwards
  dl->AddLine(c, tip, col, thick);
  const float len = std::sqrt(dx * dx + dy * dy);
  if (len < 4.0f) return;
  const float ux = dx / len, uy = -dy / len, hs = std::min(7.0f, len * 0.35f);
  dl->AddTriangleFilled(tip, ImVec2(tip.x - ux * hs - uy * hs * 0.5f, tip.y - uy * hs + ux * hs * 0.5f),
                        ImVec2(tip.x - ux * hs + uy * hs * 0.5f, tip.y - uy * hs - ux * hs * 0.5f), col);
}

void drawPairCircles(const RopePanelState& s, float scale) {
  const int numPairs = static_cast<int>(s.freqs.invFreq.size());
  if (!s.error.empty() || numPairs == 0 || s.qRot.size() != s.q.size() || s.kRot.size() != s.k.size()) return;
  // Both vectors share one scale so their lengths compare: the circle is the largest pair norm.
  float maxNorm = 1e-12f;
  for (int i = 0; i < numPairs; ++i) {
    const DimPair d = ropePairDims(s.shown, i);
    maxNorm = std::max({maxNorm, std::hypot(s.qRot[d.a], s.qRot[d.b]), std::hypot(s.kRot[d.a], s.kRot[d.b])});
  }
  const float cell = 132.0f * scale;
  const float radius = 40.0f * scale;
  // Within 0.35 px of round (24 segments at r = 40): the circles are redrawn every frame, and a
  // software rasterizer pays for every vertex.
  const int segments = std::clamp(static_cast<int>(radius * 0.6f), 16, 64);
  const float avail = ImGui::GetContentRegionAvail().x;
  const int perRow = std::max(1, static_cast<int>(avail / cell));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float lineH = ImGui::GetTextLineHeight();
  for (int i = 0; i < numPairs; ++i) {
    if (i % perRow != 0) ImGui::SameLine(0.0f, 0.0f);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(cell, cell + 2.0f * lineH));
    if (!ImGui::IsItemVisible()) continue;
    const DimPair d = ropePairDims(s.shown, i);
    const ImVec2 c(o.x + cell * 0.5f, o.y + lineH + 4.0f + radius + 2.0f);
    dl->AddCircle(c, radius, ImGui::GetColorU32(ImGuiCol_TextDisabled), segments, 1.0f);
    dl->AddLine(ImVec2(c.x - radius, c.y), ImVec2(c.x + radius, c.y), themed(IM_COL32(128, 128, 128, 60)));
    dl->AddLine(ImVec2(c.x, c.y - radius), ImVec2(c.x, c.y + radius), themed(IM_COL32(128, 128, 128, 60)));
    const float k = radius / maxNorm;
    drawArrow(dl, c, s.qRot[d.a] * k, s.qRot[d.b] * k, themed(kQColor), 2.0f);
    drawArrow(dl, c, s.kRot[d.a] * k, s.kRot[d.b] * k, themed(kKColor), 2.0f);
    char buf[96];
    std::snprintf(buf, sizeof buf, "pair %d (%d,%d)", i, d.a, d.b);
    dl->AddText(ImVec2(o.x + 4.0f, o.y), ImGui::GetColorU32(ImGuiCol_Text), buf);
    const double am = ropeAngle(s.shown, s.posM, i), an = ropeAngle(s.shown, s.posN, i);
    std::snprintf(buf, sizeof buf, "m\xCE\xB8 %.0f\xC2\xB0", wrapAngle(am) * 180.0 / std::numbers::pi);
    dl->AddText(ImVec2(o.x + 4.0f, c.y + radius + 4.0f), themed(kQColor), buf);
    std::snprintf(buf, sizeof buf, "n\xCE\xB8 %.0f\xC2\xB0", wrapAngle(an) * 180.0 / std::numbers::pi);
    dl->AddText(ImVec2(o.x + cell * 0.5f + 2.0f, c.y + radius + 4.0f), themed(kKColor), buf);
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::Text("pair %d = dims (%d, %d) [%s]", i, d.a, d.b, ropeLayoutName(s.shown.layout));
      ImGui::Text("theta_%d = %s rad/position (wavelength %s positions)", i,
                  formatShort(s.freqs.invFreq[static_cast<std::size_t>(i)], 6).c_str(),
                  formatShort(2.0 * std::numbers::pi / s.freqs.invFreq[static_cast<std::size_t>(i)], 5).c_str());
      ImGui::TextColored(ImColor(themed(kQColor)), "R_m q: m*theta = %d * theta_%d = %s rad (%s deg mod 360), (%s, %s)", s.posM,
                         i, formatShort(am, 6).c_str(), formatShort(wrapAngle(am) * 180.0 / std::numbers::pi, 4).c_str(),
                         formatShort(s.qRot[d.a]).c_str(), formatShort(s.qRot[d.b]).c_str());
      ImGui::TextColored(ImColor(themed(kKColor)), "R_n k: n*theta = %d * theta_%d = %s rad (%s deg mod 360), (%s, %s)", s.posN,
                         i, formatShort(an, 6).c_str(), formatShort(wrapAngle(an) * 180.0 / std::numbers::pi, 4).c_str(),
                         formatShort(s.kRot[d.a]).c_str(), formatShort(s.kRot[d.b]).c_str());
      ImGui::TextDisabled("the angle between them is (m - n) * theta_%d: only the offset matters", i);
      ImGui::EndTooltip();
    }
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing: the panel
//-----------------------------------------------------------------------------

// head_dim, base, rotary fraction and the pair layout: the parameters of theta_i.
void drawFrequencyParameters(RopePanelState& s) {
  if (s.typedVectors) {
    ImGui::Text("head_dim = %d (from the typed vectors)", s.params.headDim);
  } else if (paramSlider(table::kHeadDim, s.params.headDim,
                         "d: dims of q and k. Pairs i = 0 .. d_rot/2 - 1 rotate by pos * theta_i,\n"
                         "theta_i = base^(-2i / d_rot), d_rot = rotary dims.")) {
    s.dirty = true;
  }
  if (paramSlider(table::kBase, s.params.base,
                  "theta_i = base^(-2i / d_rot). Larger base: slower rotations, longer wavelengths\n"
                  "2*pi*base^(2i/d_rot) (10000 in RoFormer, 500000 in Llama 3).")) {
    s.dirty = true;
  }
  // At least one pair must rotate: d_rot = 2 * floor(fraction * d / 2) >= 2.
  const double minFraction = std::min(2.0 / static_cast<double>(s.params.headDim), 1.0);
  if (paramSlider(table::kRotaryFraction, s.params.rotaryFraction,
                  "Partial rotary: d_rot = 2 * floor(fraction * d / 2) dims rotate, the rest pass through\n"
                  "unchanged (GPT-NeoX rotary_pct, HF partial_rotary_factor). Frequencies use d_rot.",
                  SliderSpan{minFraction, 1.0})) {
    s.dirty = true;
  }
  try {
    const int rot = ropeRotaryDims(s.params);
    if (rot < s.params.headDim)
      ImGui::TextDisabled("d_rot = %d of %d dims rotate; dims %d..%d pass through", rot, s.params.headDim, rot,
                          s.params.headDim - 1);
    else
      ImGui::TextDisabled("d_rot = %d: every dim rotates", rot);
  } catch (const std::exception&) {
  }

  if (paramChoice(table::kLayout, s.params.layout,
                  "Which dims form pair i. half-split: (i, i + d_rot/2), GPT-NeoX and Hugging Face LLaMA\n"
                  "(rotate_half). interleaved: (2i, 2i + 1), RoFormer and Meta's LLaMA. The same weights\n"
                  "give identical scores once q, k (and W_q, W_k rows) are permuted, as drawn below.")) {
    s.dirty = true;
  }
}

void drawPositionParameters(RopePanelState& s) {
  // The pair grids are computed whole, the score picture in closed form: each has its own cap.
  const int maxT = s.gridKind == RopeGridKind::Score ? kRopeMaxPositions : kRopePairGridMaxPositions;
  if (paramSlider(table::kPositions, s.numPositions,
                  "Positions 0 .. T-1 on both axes of s(m, n) and the rows of the angle / cos / sin grids.\n"
                  "Large T is area-averaged on screen; hover shows the exact value.",
                  SliderSpan{1, static_cast<double>(maxT)})) {
    s.dirty = true;
  }
  const SliderSpan inT{0, static_cast<double>(s.numPositions - 1)};
  if (paramSlider(table::kQueryPosition, s.posM, "q is rotated to position m: each pair turns by m * theta_i.", inT)) s.posDirty = true;
  if (paramSlider(table::kKeyPosition, s.posN, "k is rotated to position n. s(m, n) = <R_m q, R_n k> depends only on m - n.", inT))
    s.posDirty = true;
}

// q and k: seeded, or typed as comma lists.
void drawVectorSource(RopePanelState& s) {
  int source = s.typedVectors ? 1 : 0;
  bool srcChanged = ImGui::RadioButton("seeded q, k", &source, 0);
  ImGui::SameLine();
  srcChanged |= ImGui::RadioButton("typed q, k", &source, 1);
  if (srcChanged) {
    s.typedVectors = source == 1;
    if (s.typedVectors && s.qText.empty()) {
      s.qText = formatNumberList(std::vector<double>(s.q.begin(), s.q.end()));
      s.kText = formatNumberList(std::vector<double>(s.k.begin(), s.k.end()));
    }
    s.dirty = true;
  }
  HelpMarker("seeded: q = N(0,1)^d from seed, k from seed + 1 (identical on\n"
             "every platform). typed: comma-separated values; their count sets head_dim.");
  if (!s.typedVectors) {
    if (paramSlider(table::kSeed, s.seed)) s.dirty = true;
    return;
  }
  ImGui::PushItemWidth(-1.0f);
  ImGui::TextUnformatted("q");
  if (inputTextString("##q", s.qText)) s.dirty = true;
  if (!s.qError.empty()) ErrorText("q: " + s.qError + " (keeping the last good q)");
  ImGui::TextUnformatted("k");
  if (inputTextString("##k", s.kText)) s.dirty = true;
  if (!s.kError.empty()) ErrorText("k: " + s.kError + " (keeping the last good k)");
  ImGui::PopItemWidth();
}

// Which grid the heatmap shows, and the scaling a config brought in.
void drawGridChoice(RopePanelState& s) {
  int kind = static_cast<int>(s.gridKind);
  bool kindChanged = ImGui::RadioButton("s(m,n)", &kind, 0);
  ImGui::SameLine();
  kindChanged |= ImGui::RadioButton("angle", &kind, 1);
  ImGui::SameLine();
  kindChanged |= ImGui::RadioButton("cos", &kind, 2);
  ImGui::SameLine();
  kindChanged |= ImGui::RadioButton("sin", &kind, 3);
  if (kindChanged) {
    s.gridKind = static_cast<RopeGridKind>(kind);
    // The pair grids are computed whole: keep them to the size they can be drawn from live.
    if (s.gridKind != RopeGridKind::Score && s.numPositions > kRopePairGridMaxPositions) {
      s.numPositions = kRopePairGridMaxPositions;
      s.dirty = true;
    }
  }
  HelpMarker("s(m,n) = <R_m q, R_n k> (positions x positions).\n"
             "angle = pos * theta_i mod 2*pi, cos / sin of it times the attention factor (positions x pairs).");
  pixelChoiceControl(s.pixel,
                     "s(m, n): from s at each distance m - n of the window. Far apart, the score's mean over a block is "
                     "near 0 while it still swings: the envelope shows how far. cos / sin: the envelope is the attention "
                     "factor once a block spans a turn. The angle grid has no RMS.");

  if (s.params.scaling.method == ScalingMethod::None) return;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("scaling: %s x%s (from a config; compare methods in Context extension)",
                      scalingName(s.params.scaling.method), formatShort(s.params.scaling.factor).c_str());
  ImGui::PopTextWrapPos();
  if (ImGui::SmallButton("plain RoPE")) {
    s.params.scaling = RopeScaling{};
    s.dirty = true;
  }
}

void drawParameters(RopePanelState& s, float scale) {
  ImGui::TextUnformatted("RoPE: rotate each pair of q and k by position x theta_i");
  ImGui::Separator();
  ImGui::PushItemWidth(200.0f * scale);
  drawFrequencyParameters(s);
  drawPositionParameters(s);
  ImGui::Separator();
  drawVectorSource(s);
  ImGui::Separator();
  drawGridChoice(s);
  ImGui::PopItemWidth();
}

// Left column: parameters, then the pairing diagram and q, k.
void drawLeftColumn(RopePanelState& s, AppContext& ctx, float width, float height) {
  const float scale = ctx.uiScale;
  ImGui::BeginChild("rope-params", ImVec2(width, height), true);
  drawParameters(s, scale);
  updateRopePanel(s, ctx);
  if (!s.error.empty()) ErrorText(s.error);
  ImGui::Separator();
  ImGui::TextUnformatted("Dim pairing and the layout permutation");
  HelpMarker("Boxes are dims 0..d-1, coloured by pair. Arcs join the two dims of a pair. Lines map\n"
             "half-split dim perm[k] to interleaved dim k. Grey = pass-through.");
  drawFigure("pairing", {"Which dimensions RoPE rotates together", ""}, ImVec2(ImGui::GetContentRegionAvail().x, 0.0f),
             [&](ImVec2 size) { drawLayoutDiagram(s.shown, size.x, scale); });
  drawPermutationText(s.shown);
  drawVectors(s);
  ImGui::EndChild();
}

// The hover's four numbers of a score block: from s by offset when the curves are for these inputs,
// else from s at the block's own offsets (up to kHoverOffsets of them), else the mean alone.
constexpr long long kHoverOffsets = 1 << 18;
std::function<std::string(long long, long long, long long, long long)> scoreBlockStats(const RopePanelState& s,
                                                                                        const RopeScoreResult* res) {
  std::shared_ptr<const std::vector<double>> byOffset;
  if (res && res->curvesVersion == s.inputVersion) byOffset = res->byOffset;
  return [p = s.shown, q = s.q, k = s.k, T = s.numPositions, byOffset](long long m0, long long m1, long long n0, long long n1) {
    if (byOffset && static_cast<long long>(byOffset->size()) == 2LL * T - 1)
      return blockStatsText(diagonalBlockStats(*byOffset, -(T - 1), m0, m1, n0, n1));
    const long long first = m0 - n1 + 1, count = m1 - m0 + n1 - n0 - 1;
    if (count <= kHoverOffsets) return blockStatsText(diagonalBlockStats(ropeScoreAtOffsets(p, q, k, first, count), first, m0, m1, n0, n1));
    return "mean " + formatShort(ropeScoreBlockMean(p, q, k, m0, m1, n0, n1), 4) + " (least, greatest, RMS: once s by offset is computed)";
  };
}

// s(m, n) over positions x positions; a click picks m and n.
void drawScoreMap(RopePanelState& s, const RopeScoreResult* res) {
  const RopeParams p = s.shown;
  const std::vector<float> q = s.q, k = s.k;
  const int T = s.numPositions;
  ImGui::Text("score s(m, n) = <R_m q, R_n k>, T = %d", T);
  if (s.score.busy()) {
    ImGui::SameLine();
    BusySpinner("rope-busy", s.score.progress());
  }
  HeatmapSpec spec;
  spec.logicalRows = T;
  spec.logicalCols = T;
  spec.rowAxis = {"position of the query", 0.0, 1.0};
  spec.colAxis = {"position of the key", 0.0, 1.0};
  spec.rowTip = "m: q is rotated by R_m (each pair i by m * theta_i).";
  spec.colTip = "n: k is rotated by R_n. Cell (m, n) = s(m, n) = <R_m q, R_n k>, which depends only on m - n.";
  spec.valueName = "s(m,n)";
  setScoreColors(spec);
  spec.exactValue = [p, q, k](long long r, long long c) {
    return ropeScore(p, q, k, static_cast<double>(r), static_cast<double>(c));
  };
  spec.formula = [p, q, k](long long r, long long c) {
    const double v = ropeScore(p, q, k, static_cast<double>(r), static_cast<double>(c));
    return "<R_" + std::to_string(r) + " q, R_" + std::to_string(c) + " k> = s(m - n = " + std::to_string(r - c) +
           ") = " + formatShort(v, 6) + "\nthe same on the whole diagonal m - n = " + std::to_string(r - c);
  };
  spec.onClick = [&s](long long r, long long c) {
    s.posM = static_cast<int>(r);
    s.posN = static_cast<int>(c);
    s.posDirty = true;
  };
  spec.blockStats = scoreBlockStats(s, res);
  s.scoreHeatmap.highlightRow = s.posM;
  s.scoreHeatmap.highlightCol = s.posN;
  if (!s.error.empty()) {  // the picture is the last good one; p would not describe it
    spec.exactValue = nullptr;
    spec.formula = nullptr;
    spec.blockStats = nullptr;
  }
  const HeatmapImage empty;
  if (drawHeatmap("rope-score", s.scoreHeatmap, spec, res ? res->image : empty)) requestScore(s);
}

// The angle, cos or sin grid over positions x pairs.
void drawPairMap(RopePanelState& s, AppContext& ctx) {
  const RopeParams p = s.shown;
  const RopeGridKind kind = s.gridKind;
  ImGui::Text("%s grid, positions x pairs, T = %d", gridKindName(kind), s.numPositions);
  HeatmapSpec spec;
  spec.logicalRows = s.pairGrid.rows;
  spec.logicalCols = s.pairGrid.cols;
  spec.rowAxis = {"token position", 0.0, 1.0};
  spec.colAxis = {"rotating pair (slow to the right)", 0.0, 1.0};
  spec.rowTip = "pos = 0 .. T - 1.";
  spec.colTip = "pair i = 0 .. d_rot/2 - 1, turning by theta_i = base^(-2i/d_rot) radians per position "
                "(after the chosen context-extension scaling).";
  spec.valueName = kind == RopeGridKind::Angle ? "angle (rad)" : kind == RopeGridKind::Cos ? "cos" : "sin";
  spec.colormap = kind == RopeGridKind::Angle ? Colormap::Twilight : Colormap::RdBu;
  spec.isAngle = kind == RopeGridKind::Angle;
  spec.symmetricRange = kind != RopeGridKind::Angle;
  spec.exactValue = [p, kind](long long r, long long c) {
    const Grid g = kind == RopeGridKind::Angle ? ropeAngleGrid(p, 1, r) : kind == RopeGridKind::Cos ? ropeCosGrid(p, 1, r)
                                                                                                    : ropeSinGrid(p, 1, r);
    return static_cast<double>(g.at(0, static_cast<int>(c)));
  };
  const RopeFrequencies f = s.freqs;
  spec.formula = [p, kind, f](long long r, long long c) {
    const double a = ropeAngle(p, static_cast<double>(r), static_cast<int>(c));
    const std::string th = formatShort(f.invFreq[static_cast<std::size_t>(c)], 6);
    const std::string ang = std::to_string(r) + " * " + th + " = " + formatShort(a, 6) + " rad";
    const Grid g = kind == RopeGridKind::Angle ? ropeAngleGrid(p, 1, r) : kind == RopeGridKind::Cos ? ropeCosGrid(p, 1, r)
                                                                                                    : ropeSinGrid(p, 1, r);
    const std::string v = formatShort(g.at(0, static_cast<int>(c)), 6);
    const std::string af = f.attentionFactor != 1.0 ? formatShort(f.attentionFactor) + " * " : "";
    if (kind == RopeGridKind::Angle) return "pos * theta_i = " + ang + " -> mod 2pi = " + v;
    return af + (kind == RopeGridKind::Cos ? "cos(" : "sin(") + ang + ") = " + v;
  };
  const RopePairValue value = kind == RopeGridKind::Angle ? RopePairValue::Angle : kind == RopeGridKind::Cos ? RopePairValue::Cos
                                                                                                               : RopePairValue::Sin;
  spec.blockStats = [p, value](long long r0, long long r1, long long c0, long long c1) {
    return blockStatsText(ropePairBlockStats(p, value, r0, r1, static_cast<int>(c0), static_cast<int>(c1)));
  };
  if (!s.error.empty() || static_cast<int>(f.invFreq.size()) != s.pairGrid.cols) {
    spec.exactValue = nullptr;  // the picture is the last good one; p would not describe it
    spec.formula = nullptr;
    spec.blockStats = nullptr;
  }
  if (drawHeatmap("rope-pairs", s.pairHeatmap, spec, s.pairImage)) updatePairGrid(s, ctx);
}

// Score against m - n, and the decay bound.
void drawPlots(const RopePanelState& s, const RopeScoreResult* res) {
  const float plotH = (ImGui::GetContentRegionAvail().y - ImGui::GetStyle().ItemSpacing.y) * 0.5f;
  if (!(res && res->offsetCurve && res->boundCurve)) {
    if (s.score.busy()) ImGui::TextDisabled("computing s by offset...");
    return;
  }
  // At large T a drag shows the curves of the value before it until the input rests (O(T) each).
  // The note is drawn live, so a plot showing the curves of a passed value stays retained.
  const char* stale = res->curvesVersion != s.inputVersion ? "[previous value]" : "";
  const char* slot = s.numPositions > kRopeLiveCurvePositions ? "[previous value]" : "";
  PlotSpec ps;
  ps.title = "s against m - n";
  ps.note = stale;
  ps.noteSlot = slot;
  ps.xTitle = "how far the query is after the key";
  ps.xTip = "m - n, in positions (negative: the key comes after the query).";
  ps.yTitle = "attention score";
  ps.yTip = "s = <R_m q, R_n k> = sum_i Re[(q_i conj k_i) e^{i (m - n) theta_i}], the same for every m, n with that m - n.";
  PlotSeries ser;
  ser.label = "s(m - n)";
  ser.x = res->offsetCurve->x;
  ser.y = res->offsetCurve->y;
  ser.thickness = 1.5f;
  ps.series.push_back(std::move(ser));
  ps.markers.push_back({static_cast<double>(s.posM - s.posN), "m - n = " + std::to_string(s.posM - s.posN), 0});
  drawPlot("rope-offset", ps, 0.0f, plotH);

  PlotSpec pb;
  pb.title = "RoFormer long-term decay bound";
  pb.note = stale;
  pb.noteSlot = slot;
  pb.xTitle = "distance between query and key";
  pb.xTip = "r = |m - n|, in positions.";
  pb.yTitle = "ceiling on the score (relative)";
  pb.yTip = "RoFormer section 3.4.3: |s| <= max_i |h_{i+1} - h_i| * (1/(d/2)) sum_j |S_j|, S_j = sum_{k<j} e^{i r theta_k}. "
            "Drawn: (1/(d/2)) sum_j |S_j|, which shrinks as r grows (long-term decay).";
  PlotSeries b;
  b.label = "bound / max|h_{i+1} - h_i|";
  b.x = res->boundCurve->x;
  b.y = res->boundCurve->y;
  b.color = plotColor(2);
  pb.series.push_back(std::move(b));
  drawPlot("rope-decay", pb, ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 2.0f, plotH);
  HelpMarker("RoFormer 3.4.3: |s(r)| <= (max_i |h_{i+1} - h_i|) * sum_j |S_j|, h_i = q_i conj(k_i),\n"
             "S_j = sum_{k<j} e^{i r theta_k}. The plot shows the distance term divided by d/2; it\n"
             "decays as r grows, so distant tokens can score less.\n"
             "Both curves cost O(T): above T = 65,536 they are recomputed once a dragged value rests\n"
             "(\"[previous value]\" until then), while the score picture follows every change.");
}

// Right column: the heatmap and the plots side by side, the pair circles below.
void drawViews(RopePanelState& s, AppContext& ctx, float height) {
  const float scale = ctx.uiScale;
  ImGui::BeginChild("rope-views", ImVec2(0, height), false);
  const ImVec2 va = ImGui::GetContentRegionAvail();
  const float topH = std::max(200.0f * scale, va.y * 0.6f);
  const float mapW = std::min(va.x * 0.55f, topH + 120.0f * scale);
  const RopeScoreResult* res = s.score.result();

  ImGui::BeginChild("rope-map", ImVec2(mapW, topH), false);
  if (s.gridKind == RopeGridKind::Score) drawScoreMap(s, res);
  else if (!s.pairGrid.values.empty()) drawPairMap(s, ctx);
  ImGui::EndChild();
  ImGui::SameLine();

  ImGui::BeginChild("rope-plots", ImVec2(0, topH), false);
  drawPlots(s, res);
  ImGui::EndChild();

  ImGui::TextColored(ImColor(themed(kQColor)), "R_m q");
  ImGui::SameLine();
  ImGui::TextColored(ImColor(themed(kKColor)), "R_n k");
  ImGui::SameLine();
  ImGui::Text("per pair at m = %d, n = %d (circle = the largest pair norm)", s.posM, s.posN);
  HelpMarker("Each circle is one pair i: q's pair rotated by m * theta_i and k's by n * theta_i.\n"
             "Their dot product, summed over pairs, is s(m, n). Hover a circle for the numbers.");
  ImGui::BeginChild("rope-circles", ImVec2(0, 0), true);
  drawFigure("pair-clocks", {"Each pair of q rotated by its angle at position m", ""}, ImVec2(ImGui::GetContentRegionAvail().x, 0.0f),
             [&](ImVec2) { drawPairCircles(s, scale); });
  ImGui::EndChild();
  ImGui::EndChild();
}

void publishStatus(const RopePanelState& s, AppContext& ctx) {
  StatusInfo& st = ctx.status;
  const int T = s.numPositions;
  if (s.gridKind == RopeGridKind::Score) {
    st.backend = "CPU (background job)";
    st.gridSize = formatGridSize(T, T);
    st.gridSize += pixelStatusText(s.scoreHeatmap.wanted, s.score.result() ? &s.score.result()->image : nullptr);
    st.computeMs = s.score.millis();
  } else {
    st.backend = s.pairGridOnGpu ? "GPU" : (s.pairGridNotice.empty() ? "CPU" : "CPU (" + s.pairGridNotice + ")");
    st.gridSize = formatGridSize(s.pairGrid.rows, s.pairGrid.cols);
    st.gridSize += pixelStatusText(s.pairHeatmap.wanted, &s.pairImage);
    st.computeMs = s.pairGridMs;
  }
  // Curves left out of the last request (the inputs had not rested) keep frames coming, so that
  // their request is made. Once asked for, the worker's own busy covers them, failure included.
  st.busy = s.score.busy() || (s.error.empty() && !s.requestedCurves);
  st.progress = s.score.busy() ? s.score.progress() : -1.0f;
}

// File > Export: the grid shown as a call of its view, and s by offset.
std::string numberList(const std::vector<float>& v) {
  std::string out;
  for (float x : v) out += (out.empty() ? "" : ",") + cli::formatNumber(x);
  return out;
}

const char* gridView(RopeGridKind k) {
  switch (k) {
    case RopeGridKind::Score: return "rope-scores";
    case RopeGridKind::Angle: return "rope-angles";
    case RopeGridKind::Cos: return "rope-cos";
    case RopeGridKind::Sin: return "rope-sin";
  }
  return "rope-scores";
}

// The view's call: the parameters shown, T, and for s(m, n) q and k as the seed that draws them
// or, typed, as the numbers.
cli::ViewCall ropeCall(const RopePanelState& s) {
  cli::ViewCall call{gridView(s.gridKind)};
  cli::addRopeParams(call, s.shown).set(table::kPositions, s.numPositions);
  if (s.gridKind != RopeGridKind::Score) return call;
  if (s.typedVectors) call.set(table::kQ, numberList(s.q)).set(table::kK, numberList(s.k));
  else call.set(table::kSeed, s.seed);
  return call;
}

void setGridTitles(ExportableView& ex, RopeGridKind kind) {
  if (kind == RopeGridKind::Score) {
    ex.rowTitle = "query position m";
    ex.colTitle = "key position n";
    ex.valueName = "s(m,n)";
    ex.colormap = Colormap::RdBu;
    ex.symmetricRange = true;
    return;
  }
  ex.rowTitle = "position";
  ex.colTitle = "pair";
  ex.valueName = gridKindName(kind);
  ex.colormap = kind == RopeGridKind::Angle ? Colormap::Twilight : Colormap::RdBu;
  ex.symmetricRange = kind != RopeGridKind::Angle;
}

ExportableView ropeExports(const RopePanelState& s) {
  ExportableView ex;
  if (!s.error.empty()) return ex;   // the parameters were rejected: nothing shown describes them
  const RopeParams& p = s.shown;
  ex.name = std::string("rope-") + gridKindName(s.gridKind);
  ex.caption = "head_dim=" + std::to_string(p.headDim) + " base=" + formatBase(p.base) + " rotary=" +
               formatShort(p.rotaryFraction) + " layout=" + ropeLayoutName(p.layout) + " T=" + std::to_string(s.numPositions) +
               (p.scaling.method != ScalingMethod::None ? std::string(" scaling=") + scalingName(p.scaling.method) +
                                                              " x" + formatShort(p.scaling.factor)
                                                        : std::string());
  setGridTitles(ex, s.gridKind);
  ex.call = ropeCall(s);
  const RopeScoreResult* res = s.score.result();
  if (res && res->byOffset && res->curvesVersion == s.inputVersion) {
    ex.plotColumnNames = {"m_minus_n", "score"};
    ex.plotColumns = [byOffset = res->byOffset] {
      const auto count = static_cast<long long>(byOffset->size());
      std::vector<double> x(static_cast<std::size_t>(count));
      for (long long i = 0; i < count; ++i) x[static_cast<std::size_t>(i)] = static_cast<double>(i - (count - 1) / 2);
      return std::vector<std::vector<double>>{std::move(x), *byOffset};
    };
  }
  return ex;
}

}  // namespace

void drawRopePanel(RopePanelState& s, AppContext& ctx) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float leftW = std::min(390.0f * ctx.uiScale, avail.x * 0.34f);
  drawLeftColumn(s, ctx, leftW, avail.y);
  ImGui::SameLine();
  drawViews(s, ctx, avail.y);
  publishStatus(s, ctx);
}

//-----------------------------------------------------------------------------
// [SECTION] Settings
//-----------------------------------------------------------------------------

// Every parameter the tab keeps with the member that holds it: save and load walk this one list.
template <class State, class Visit>
void eachRopePanelParam(State& s, Visit&& visit) {
  visit(table::kHeadDim, s.params.headDim);
  visit(table::kBase, s.params.base);
  visit(table::kLayout, s.params.layout);
  visit(table::kSeed, s.seed);
  visit(table::kPixel, s.pixel);
}

void saveRopePanel(const RopePanelState& s, nlohmann::json& j) {
  eachRopePanelParam(s, ParamSaver{j});
  cli::saveParam(j, table::kRotaryFraction, s.params.rotaryFraction);
  cli::saveParam(j, table::kPositions, s.numPositions);
  cli::saveParam(j, table::kQueryPosition, s.posM);
  cli::saveParam(j, table::kKeyPosition, s.posN);
  j["typed"] = s.typedVectors;
  j["q"] = s.qText;
  j["k"] = s.kText;
  j["grid"] = gridKindName(s.gridKind);
}

void loadRopePanel(RopePanelState& s, const nlohmann::json& j) {
  eachRopePanelParam(s, ParamLoader{j});
  // A fraction that leaves no rotating pair of this head_dim is ignored.
  if (double f = s.params.rotaryFraction; cli::loadParam(j, table::kRotaryFraction, f) && f * s.params.headDim >= 2.0)
    s.params.rotaryFraction = f;
  if (int t = s.numPositions; cli::loadParam(j, table::kPositions, t) && t >= 1 && t <= kRopeMaxPositions) s.numPositions = t;
  if (int m = s.posM; cli::loadParam(j, table::kQueryPosition, m) && m < s.numPositions) s.posM = m;
  if (int n = s.posN; cli::loadParam(j, table::kKeyPosition, n) && n < s.numPositions) s.posN = n;
  readSetting(j, "typed", s.typedVectors);
  readSetting(j, "q", s.qText);
  readSetting(j, "k", s.kText);
  std::string text;
  readSetting(j, "grid", text);
  for (RopeGridKind k : {RopeGridKind::Score, RopeGridKind::Angle, RopeGridKind::Cos, RopeGridKind::Sin})
    if (text == gridKindName(k)) s.gridKind = k;
  if (s.gridKind != RopeGridKind::Score) {
    s.numPositions = std::min(s.numPositions, kRopePairGridMaxPositions);
    s.posM = std::min(s.posM, s.numPositions - 1);
    s.posN = std::min(s.posN, s.numPositions - 1);
  }
  s.dirty = true;
}


// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

// One visible change per view, for tests (the picture must differ afterwards).
void tweakRope(AppState& a) {
  a.rope.params.base = a.rope.params.base > 1000.0 ? 100.0 : 10000.0;
  a.rope.dirty = true;
}

}  // namespace

const PanelDef kRopePanel{"rope", [](AppState& a, AppContext& c) { drawRopePanel(a.rope, c); },
    [](AppState& a, const cli::ModelConfig& m, ConfigNotes& n) { applyRopeConfig(a.rope, m, n); },
    [](const AppState& a, nlohmann::json& j) { saveRopePanel(a.rope, j); }, [](AppState& a, const nlohmann::json& j) { loadRopePanel(a.rope, j); }, tweakRope,
    nullptr, nullptr, nullptr, nullptr, [](const AppState& a) { return ropeExports(a.rope); }};

}  // namespace posviz::app
