// panel_learned.cpp: the Learned view.
//
// [SECTION] Background jobs (table, image)
// [SECTION] Controls
// [SECTION] drawLearnedPanel
#include "app/gui/panels/app_state.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/panels/panels.hpp"
#include "app/gui/base/read_setting.hpp"
#include "app/gui/panels/panel_learned.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include "app/cli/learned_source.hpp"
#include "app/gui/widgets/param_widgets.hpp"
#include "app/gui/widgets/pixel_choice.hpp"
#include "app/gui/widgets/plot.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/learned.hpp"
#include "core/npy.hpp"
#include "core/pixel_stats.hpp"

namespace posviz::app {

long long learnedMaxCells() {
  const auto held = static_cast<long long>(memoryBudgetBytes() / (2 * sizeof(float)));
  return std::max(1LL << 20, std::min(kLearnedMaxCells, held));
}

namespace {

namespace table = cli::params::learned;

// The most rows (columns) a table of `other` columns (rows) may have in the window.
int cellBudget(int other) {
  return static_cast<int>(std::min(static_cast<long long>(table::kMaxLen.max), learnedMaxCells() / std::max(other, 1)));
}

std::string noRowReason(long long pos, int maxLen) {
  return "position " + formatCount(pos) + " has no row: max_len " + formatCount(maxLen) + " (rows 0.." +
         formatCount(maxLen - 1) + "); a learned table cannot encode it";
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Background jobs
// -----------------------------------------------------------------------------------------------

// The seeded table in pieces of rows, each from its place in the one stream (learnedInit's
// bits): a new seed or size cancels a build in progress within a piece, and the first half of
// the progress bar is the table (the row norms are the second).
Grid seededTable(const LearnedTableResult::Source& src, JobControl& jc) {
  requireBudget("learned table", static_cast<std::uint64_t>(src.maxLen) * static_cast<std::uint64_t>(src.dModel), sizeof(float),
                "a " + std::to_string(src.maxLen) + " x " + std::to_string(src.dModel) + " float32 table");
  Grid g(src.maxLen, src.dModel);
  constexpr int kPiece = 512;
  for (int r = 0; r < src.maxLen; r += kPiece) {
    throwIfCancelled(jc);
    const int end = std::min(src.maxLen, r + kPiece);
    learnedInitRowsInto(src.dModel, src.seed, src.stddev, r, end, g.row(r));
    jc.setProgress(0.5f * static_cast<float>(end) / static_cast<float>(src.maxLen));
  }
  return g;
}

void requestTable(LearnedPanelState& s, bool fromFile) {
  LearnedTableResult::Source src;
  src.fromFile = fromFile;
  src.path = s.path;
  src.maxLen = s.maxLen;
  src.dModel = s.dModel;
  src.seed = s.seed;
  src.stddev = s.stddev;
  s.tableJob.request([src](JobControl& jc) {
    LearnedTableResult r;
    r.source = src;
    Grid g = src.fromFile ? cli::loadLearnedSource(src.path) : seededTable(src, jc);
    throwIfCancelled(jc);
    r.range = finiteRange(g);
    r.rowNorm.resize(static_cast<std::size_t>(g.rows));
    for (int i = 0; i < g.rows; ++i) {
      r.rowNorm[static_cast<std::size_t>(i)] = learnedRowNorm(g, i);
      if ((i & 1023) == 0) {
        throwIfCancelled(jc);
        jc.setProgress((src.fromFile ? 0.0f : 0.5f) + (src.fromFile ? 1.0f : 0.5f) * static_cast<float>(i) / static_cast<float>(g.rows));
      }
    }
    if (src.fromFile) {
      r.name = cli::learnedSourceName(src.path, g);
    } else {
      r.name = "seeded: N(0, " + formatShort(src.stddev) + "^2), seed " + std::to_string(src.seed);
    }
    r.table = std::make_shared<const Grid>(std::move(g));
    return r;
  });
}

// While a seeded table is drawn (seconds for 131072 x 4096), a coarse picture of the new one at
// half the view's resolution each way: one cell of each 2 x 2 pixels' block (its first), drawn
// alone from its place in the stream, so the picture costs one draw every four pixels (a seed
// dragged every frame asks for one each frame). The exact picture replaces it when the table is done.
void requestPreview(LearnedPanelState& s) {
  HeatmapWindow w = s.map.wanted;
  if (s.fromFile || !windowInside(w, s.numPositions, s.dModel) || w.rows * w.cols <= 4LL * w.outRows * w.outCols) return;
  w.outRows = std::max(1, w.outRows / 2);
  w.outCols = std::max(1, w.outCols / 2);
  const int maxLen = s.maxLen, dModel = s.dModel;
  const std::uint64_t seed = s.seed;
  const double stddev = s.stddev;
  const long long version = ++s.version;
  s.image.request([w, maxLen, dModel, seed, stddev, version, rows = s.numPositions](JobControl& jc) {
    HeatmapImage img;
    img.window = w;
    img.version = version;
    img.logicalRows = rows;
    img.logicalCols = dModel;
    img.cells = Grid(w.outRows, w.outCols);
    for (int i = 0; i < w.outRows; ++i) {
      const long long r = w.row0 + areaCellBegin(w.rows, w.outRows, i);
      for (int j = 0; j < w.outCols; ++j) {
        const auto c = static_cast<int>(w.col0 + areaCellBegin(w.cols, w.outCols, j));
        img.cells.at(i, j) = r < maxLen ? learnedInitCell(dModel, seed, stddev, r, c) : std::numeric_limits<float>::quiet_NaN();
      }
      if ((i & 63) == 0) throwIfCancelled(jc);
    }
    img.range = finiteRange(img.cells);
    img.pixelStat = "one sampled cell";
    img.pixelNote = "coarse: one cell every 2 x 2 pixels while the table is drawn; the exact picture follows";
    return img;
  });
}

// The rows shown run a quarter past the table's last row, and the lookup reads the first missing
// one: a loaded table, small or large, opens with its end and what lies past it in view.
void showPastTheEnd(LearnedPanelState& s) {
  s.numPositions = std::min(static_cast<int>(table::kTabPositions.max), s.maxLen + std::max(1, s.maxLen / 4));
  s.lookupPos = std::min(static_cast<int>(table::kTabLookup.max), s.maxLen);
}

// Each pixel's block mean of the table, rows past its end masked (NaN).
HeatmapImage tableMeans(const Grid& table, const HeatmapWindow& w, ValueRange range, long long version, JobControl& jc) {
  HeatmapImage img;
  img.window = w;
  img.version = version;
  img.range = range;
  const std::size_t cols = static_cast<std::size_t>(table.cols);
  const bool done = areaAverageComputed(
      w, table.cols,
      [&](long long first, int n, float* dst) {
        for (int k = 0; k < n; ++k) {
          const long long r = first + k;
          float* out = dst + static_cast<std::size_t>(k) * cols;
          if (r < table.rows) std::copy(table.row(static_cast<int>(r)), table.row(static_cast<int>(r)) + cols, out);
          else std::fill(out, out + cols, std::numeric_limits<float>::quiet_NaN());   // no row: masked
        }
      },
      img.cells, [&] { return jc.cancelled(); }, [&](float f) { jc.setProgress(f); });
  if (!done) throw JobCancelled{};
  return img;
}

// The window's picture: block means streamed row by row (cancellable, with progress); where a
// pixel covers many cells and the choice asks (auto: the means flatten out), another stat of each
// block from core, over the table's cells (rows past max_len have none).
void requestImage(LearnedPanelState& s, const LearnedTableResult& t) {
  const HeatmapWindow w = s.map.wanted;
  const std::shared_ptr<const Grid> table = t.table;
  if (!table || !windowInside(w, s.numPositions, table->cols)) return;   // nothing asked for yet
  const ValueRange range = t.range;
  const long long version = ++s.version;
  const auto choice = static_cast<PixelChoice>(s.pixel);
  const long long shownRows = s.numPositions;
  s.image.request([table, w, range, version, choice, shownRows](JobControl& jc) {
    HeatmapImage img = tableMeans(*table, w, range, version, jc);
    if (w.rows <= w.outRows && w.cols <= w.outCols) return img;   // one cell a pixel: nothing to choose
    const double bound = std::max(std::fabs(static_cast<double>(range.min)), std::fabs(static_cast<double>(range.max)));
    const ChosenPicture chosen = choosePicture(choice, w, bound, [&](PixelStat st) {
      if (st != PixelStat::Mean) return gridStatPicture(*table, w, st, shownRows);
      ExactPicture mean{img.cells.rows, img.cells.cols, std::vector<double>(img.cells.values.begin(), img.cells.values.end())};
      return mean;
    });
    throwIfCancelled(jc);
    if (chosen.stat != PixelStat::Mean) showChosenPicture(img, chosen, "+-" + formatShort(bound, 3));
    else if (chosen.automatic) img.pixelNote.clear();
    return img;
  });
}

// -----------------------------------------------------------------------------------------------
// [SECTION] Controls
// -----------------------------------------------------------------------------------------------

void drawFileList(LearnedPanelState& s) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = s.path.empty() ? fs::current_path(ec) : fs::path(s.path);
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  if (dir.empty()) dir = fs::current_path(ec);
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".npy") files.push_back(it->path());
    if (files.size() >= 200) break;
  }
  std::sort(files.begin(), files.end());
  ImGui::TextDisabled(".npy files in %s:", dir.string().c_str());
  if (files.empty()) ImGui::TextDisabled("  (none)");
  for (const fs::path& f : files) {
    if (ImGui::Selectable(f.filename().string().c_str(), f.string() == s.path)) {
      s.path = f.string();
      s.fromFile = true;
      requestTable(s, true);
    }
  }
}

void drawControls(LearnedPanelState& s, AppContext&) {
  const float w = ImGui::GetContentRegionAvail().x;
  ImGui::PushItemWidth(w * 0.55f);
  ImGui::TextUnformatted("Table  x_i = Embed(w_i) + P[i]");
  ImGui::Separator();
  int src = s.fromFile ? 1 : 0;
  if (ImGui::RadioButton("seeded", &src, 0) && s.fromFile) {
    s.fromFile = false;
    s.tableDirty = true;
  }
  ImGui::SameLine();
  if (ImGui::RadioButton("file or trained run", &src, 1) && !s.fromFile) {
    s.fromFile = true;
    if (!s.path.empty()) requestTable(s, true);
  }
  HelpMarker("A learned table P has one row per position 0 .. max_len-1 (GPT-2: 1024 x 768, BERT: 512 x 768), "
             "trained with the model. seeded: N(0, std^2) from posviz's own generator (same table on every "
             "machine). file: a 2-D float32/float64 .npy (max_len x d_model), or the folder of a trained "
             "learned run (the Train tab's Save, posviz train --save-weights): its table after training.");

  if (!s.fromFile) {
    bool changed = false;
    // The window builds at most learnedMaxCells() values: each size's slider stops where the other allows.
    changed |= paramSlider(table::kMaxLen, s.maxLen, "Rows of the table: positions 0 .. max_len-1 exist, position max_len does not.",
                           SliderSpan{table::kMaxLen.min, static_cast<double>(cellBudget(s.dModel))});
    changed |= paramSlider(table::kDModel, s.dModel, "Columns: the model width.",
                           SliderSpan{table::kDModel.min, static_cast<double>(cellBudget(s.maxLen))});
    long long seed = static_cast<long long>(s.seed);
    if (paramSlider(table::kSeed, seed, "The seed of the random numbers the table starts from (normal values, the same on every machine).")) {
      s.seed = static_cast<std::uint64_t>(seed);
      changed = true;
    }
    changed |= paramSlider(table::kStd, s.stddev, "P[i][j] ~ N(0, std^2).");
    if (changed) s.tableDirty = true;
  } else {
    if (s.openRequested) {
      ImGui::SetKeyboardFocusHere();
      s.openRequested = false;
    }
    const bool enter = PathAsked::No != pathField({"##path", "table.npy or runs/learned/seed-1", {".npy"}, false, w}, s.path, s.pathPick);
    if (ImGui::Button("Load") || enter) requestTable(s, true);
    ImGui::SameLine();
    ImGui::TextDisabled("Enter or Load");
    ImGui::BeginChild("files", ImVec2(0, ImGui::GetFontSize() * 8), true);
    drawFileList(s);
    ImGui::EndChild();
  }
  if (!s.loadError.empty()) ErrorText(s.loadError + (s.table ? "\nThe last good table is still shown." : ""));

  ImGui::Spacing();
  ImGui::TextUnformatted("Positions");
  ImGui::Separator();
  if (paramSlider(table::kTabPositions, s.numPositions, "Rows shown: 0 .. positions-1. It may exceed max_len: those positions have no row and are drawn hatched.")) {
    s.map.resetView();
    s.dirty = true;
  }
  paramSlider(table::kTabLookup, s.lookupPos,
              "Position pos reads row pos of the table; past the last row (pos >= L0) there is nothing to read. "
              "Click a heatmap row to pick it.");
  if (ImGui::BeginCombo("colormap", colormapName(s.colormap))) {
    for (Colormap c : allColormaps())
      if (ImGui::Selectable(colormapName(c), c == s.colormap)) s.colormap = c;
    ImGui::EndCombo();
  }
  HelpMarker("Table values are signed: a diverging map (rdbu) puts white at 0.");
  if (pixelChoiceControl(s.pixel, "A seeded table's cells are independent, so its block means are all near 0 and auto shows "
                                  "their RMS (about std); a trained table's structure shows in the mean."))
    s.dirty = true;
  ImGui::PopItemWidth();

  ImGui::Spacing();
  ImGui::TextUnformatted("Lookup");
  ImGui::Separator();
  if (s.table) {
    try {
      const std::vector<float> row = learnedLookup(*s.table, s.lookupPos);
      ImGui::Text("P[%d] exists: %d values, |P[%d]| = %s", s.lookupPos, static_cast<int>(row.size()), s.lookupPos,
                  formatShort(learnedRowNorm(*s.table, s.lookupPos), 5).c_str());
      ImGui::Text("P[%d][0..2] = %s, %s, %s", s.lookupPos, formatShort(row[0], 5).c_str(),
                  row.size() > 1 ? formatShort(row[1], 5).c_str() : "-", row.size() > 2 ? formatShort(row[2], 5).c_str() : "-");
    } catch (const std::exception& e) {
      NoticeText(e.what());
    }
  }
}

}  // namespace

void requestLearnedTable(LearnedPanelState& s) { requestTable(s, s.fromFile); }

void openLearnedSource(LearnedPanelState& s, const std::string& path) {
  s.path = path;
  s.fromFile = true;
  s.loadError.clear();
  requestTable(s, true);
}

// -----------------------------------------------------------------------------------------------
// [SECTION] drawLearnedPanel
// -----------------------------------------------------------------------------------------------

void applyLearnedConfig(LearnedPanelState& s, const cli::ModelConfig& c, ConfigNotes& notes) {
  const auto reading = cli::readLearnedConfig(c);
  if (!reading) return;
  if (reading->maxPositions) {
    s.maxLen = static_cast<int>(fitConfigParam("Learned", "max_position_embeddings", table::kMaxLen,
                                               static_cast<double>(*reading->maxPositions), notes));
  }
  if (reading->dModel) {
    s.dModel = static_cast<int>(fitConfigParam("Learned", "hidden_size", table::kDModel, *reading->dModel, notes));
  }
  if (const int rows = cellBudget(s.dModel); s.maxLen > rows) {
    notes.push_back("Learned tab: a table of max_len " + std::to_string(s.maxLen) + " x d_model " + std::to_string(s.dModel) +
                    " is more than the window builds (" + std::to_string(learnedMaxCells()) + " values): max_len shown at " +
                    std::to_string(rows));
    s.maxLen = rows;
  }
  s.offsetRows = reading->offsetRows;
  s.offsetRowsAdded = reading->offsetRowsAdded;
  showPastTheEnd(s);
  s.fromFile = false;
  s.tableDirty = true;
}

namespace {

// From this many cells (~50 ms to draw) a seeded table waits until its inputs have held still
// for kLearnedSettle; smaller ones are drawn at once.
constexpr long long kLearnedSettleCells = 1LL << 23;
constexpr std::chrono::milliseconds kLearnedSettle{120};

// Takes finished jobs and starts the table job when its inputs changed (a large one once they settle).
void pollJobs(LearnedPanelState& s) {
  if (s.tableJob.poll()) {
    if (!s.tableJob.error().empty()) {
      s.loadError = s.tableJob.error();
    } else if (const LearnedTableResult* r = s.tableJob.result()) {
      s.loadError.clear();
      s.table = r->table;
      s.tableName = r->name;
      if (r->source.fromFile) {
        s.maxLen = s.table->rows;
        s.dModel = s.table->cols;
        showPastTheEnd(s);
      }
      s.map.resetView();
      s.dirty = true;
    }
  }
  // The seeded table is also the first table when the view opens on "File > Open": something to
  // look at until a file loads.
  if (s.tableDirty && (!s.fromFile || (!s.table && !s.tableJob.busy()))) {
    s.tableDirty = false;
    requestPreview(s);
    s.tablePending = true;
    s.tableChangedAt = std::chrono::steady_clock::now();
  }
  const bool large = static_cast<long long>(s.maxLen) * s.dModel >= kLearnedSettleCells;
  if (s.tablePending && (!large || std::chrono::steady_clock::now() - s.tableChangedAt >= kLearnedSettle)) {
    s.tablePending = false;
    requestTable(s, false);
  }
  s.image.poll();
}

// What every picture of a table of rows x cols says: axes, tips, colours, the rows past max_len.
HeatmapSpec tableSpec(const LearnedPanelState& s, int rows, int cols) {
  HeatmapSpec spec;
  spec.logicalRows = s.numPositions;
  spec.logicalCols = cols;
  spec.rowAxis.title = "token position";
  spec.colAxis.title = "dimension of the learned vector";
  spec.rowTip = "pos: row P[pos] of the table is added to the embedding of the token at that place; rows exist "
                "only for pos < max_len.";
  spec.colTip = "dim = 0 .. d_model - 1 of row P[pos] (a trained, or here N(0, std^2) seeded, number).";
  spec.valueName = "P[pos][dim]";
  spec.colormap = s.colormap;
  spec.symmetricRange = true;
  spec.noDataRowsFrom = rows < s.numPositions ? rows : -1;
  spec.noDataLabel = "no row: max_len " + formatCount(rows) + " (positions " + formatCount(rows) + "+ do not exist)";
  spec.maskedReason = "The table has rows 0.." + formatCount(rows - 1) + " only.";
  return spec;
}

// The table as a heatmap; positions past max_len are hatched.
void drawTableMap(LearnedPanelState& s, const LearnedTableResult& t, float heatW, float heatH) {
  const std::shared_ptr<const Grid> table = s.table;
  HeatmapSpec spec = tableSpec(s, table->rows, table->cols);
  spec.exactValue = [table](long long r, long long c) {
    return r < table->rows ? static_cast<double>(table->at(static_cast<int>(r), static_cast<int>(c)))
                           : std::numeric_limits<double>::quiet_NaN();
  };
  spec.formula = [table](long long r, long long) {
    if (r >= table->rows) return noRowReason(r, table->rows);
    return std::string("a learned parameter: row ") + std::to_string(r) + " of the table, no formula";
  };
  spec.blockStats = [table](long long r0, long long r1, long long c0, long long c1) {
    return blockStatsText(gridBlockStats(*table, r0, r1, c0, c1));
  };
  int* lookup = &s.lookupPos;
  spec.onClick = [lookup](long long r, long long) { *lookup = static_cast<int>(r); };
  s.map.highlightRow = -1;
  const HeatmapImage empty;
  const HeatmapImage* img = s.image.result();
  ImGui::BeginGroup();
  if (!s.image.error().empty()) ErrorText(s.image.error());
  const bool changed = drawHeatmap("learned", s.map, spec, img ? *img : empty, heatW, heatH);
  ImGui::EndGroup();
  if (changed || s.dirty) {
    requestImage(s, t);
    s.dirty = false;
  }
}

PlotSpec normPlot(const LearnedPanelState& s, const LearnedTableResult& t) {
  const int rows = s.table->rows;
  PlotSpec norms;
  norms.title = "Row norm |P[pos]| against position";
  norms.xTitle = "token position";
  norms.xTip = "pos = 0 .. positions - 1; past max_len the table has no row.";
  norms.yTitle = "length of the position's vector";
  norms.yTip = "|P[pos]| = sqrt(sum_dim P[pos][dim]^2), the Euclidean norm of row pos.";
  PlotSeries& ns = norms.series.emplace_back(PlotSeries{"|P[pos]|", {}, {}, plotColor(0), false, 1.5f});
  const int shown = std::min(s.numPositions, rows);
  ns.x.reserve(static_cast<std::size_t>(shown) + 1);
  ns.y.reserve(static_cast<std::size_t>(shown) + 1);
  for (int i = 0; i < shown; ++i) {
    ns.x.push_back(i);
    ns.y.push_back(t.rowNorm[static_cast<std::size_t>(i)]);
  }
  if (s.numPositions > rows) {
    norms.bands.push_back({static_cast<double>(rows), static_cast<double>(s.numPositions - 1), "no row", themed(IM_COL32(255, 196, 80, 40))});
    norms.markers.push_back({static_cast<double>(rows), "max_len " + formatCount(rows), themed(IM_COL32(255, 196, 80, 220))});
    norms.series[0].x.push_back(static_cast<double>(s.numPositions - 1));
    norms.series[0].y.push_back(std::numeric_limits<double>::quiet_NaN());
  }
  return norms;
}

void drawNormPlot(LearnedPanelState& s, const LearnedTableResult& t, float width, float height) {
  if (s.normPlotTable.lock() != s.table || s.normPlotPositions != s.numPositions || s.normPlotLight != lightTheme()) {
    s.normPlot = normPlot(s, t);
    s.normPlotTable = s.table;
    s.normPlotPositions = s.numPositions;
    s.normPlotLight = lightTheme();
  }
  drawPlot("norms", s.normPlot, width, height);
}

// The looked-up row across dimensions, or a hatched box saying why there is none.
void drawLookupRow(const LearnedPanelState& s, float width, float height) {
  const Grid& table = *s.table;
  const int rows = table.rows;
  PlotSpec rowPlot;
  rowPlot.title = "P[" + formatCount(s.lookupPos) + "] across dimensions";
  rowPlot.xTitle = "dimension of the learned vector";
  rowPlot.xTip = "dim = 0 .. d_model - 1 of row P[lookup pos].";
  rowPlot.yTitle = "value";
  rowPlot.yTip = "P[pos][dim], the table entry.";
  if (s.lookupPos < rows) {
    PlotSeries rs{"P[pos][dim]", {}, {}, plotColor(1), table.cols > 256 ? false : true, 1.5f};
    const float* r = table.row(s.lookupPos);
    for (int c = 0; c < table.cols; ++c) {
      rs.x.push_back(c);
      rs.y.push_back(r[c]);
    }
    rowPlot.series = {rs};
    drawPlot("row", rowPlot, width, height);
    return;
  }
  const float fh = ImGui::GetFontSize();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(width, height));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p0, ImVec2(p0.x + width, p0.y + height), themed(IM_COL32(45, 45, 45, 255)));
  for (float x = p0.x - height; x < p0.x + width; x += fh * 0.8f)
    dl->AddLine(ImVec2(std::max(x, p0.x), x < p0.x ? p0.y + (p0.x - x) : p0.y + 0.0f),
                ImVec2(std::min(x + height, p0.x + width), x + height > p0.x + width ? p0.y + (p0.x + width - x) : p0.y + height),
                themed(IM_COL32(90, 90, 90, 255)));
  const std::string msg = noRowReason(s.lookupPos, rows);
  ImGui::SetCursorScreenPos(ImVec2(p0.x + fh, p0.y + fh));
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width - 2.0f * fh);
  ImGui::PushStyleColor(ImGuiCol_Text, themed(IM_COL32(255, 210, 120, 255)));
  ImGui::TextWrapped("P[%d]: %s", s.lookupPos, msg.c_str());
  ImGui::PopStyleColor();
  ImGui::PopTextWrapPos();
  ImGui::SetCursorScreenPos(ImVec2(p0.x, p0.y + height));
  ImGui::Dummy(ImVec2(0, 0));
}

// The heatmap on the left, the row-norm and looked-up-row plots on the right.
void drawViews(LearnedPanelState& s, const LearnedTableResult& t, const ImVec2& avail) {
  const float fh = ImGui::GetFontSize();
  const int rows = s.table->rows;
  ImGui::Text("P: %s, max_len %s, d_model %s", s.tableName.c_str(), formatCount(rows).c_str(),
              formatCount(s.table->cols).c_str());
  if (s.numPositions > rows) {
    NoticeText("positions " + formatCount(rows) + " .. " + formatCount(s.numPositions - 1) + " have no row (hatched)");
  }
  if (s.offsetRows > 0 && !s.fromFile) {
    ImGui::TextWrapped("The model's own table has %d rows before position 0: position p reads row p + %d, so its table has "
                       "%s rows for %s positions (%s). Rows here are numbered by position.",
                       s.offsetRows, s.offsetRows,
                       formatCount(s.offsetRowsAdded ? s.maxLen + s.offsetRows : s.maxLen).c_str(),
                       formatCount(s.offsetRowsAdded ? s.maxLen : s.maxLen - s.offsetRows).c_str(),
                       s.offsetRowsAdded ? "max_position_embeddings + offset, as BART and OPT build it"
                                         : "max_position_embeddings including them, as RoBERTa builds it");
  }
  const float heatW = std::floor(avail.x * 0.58f);
  const float heatH = std::max(ImGui::GetContentRegionAvail().y, fh * 12.0f);
  drawTableMap(s, t, heatW, heatH);

  ImGui::SameLine();
  ImGui::BeginGroup();
  const float rightW = ImGui::GetContentRegionAvail().x;
  const float plotH = std::floor((heatH - ImGui::GetStyle().ItemSpacing.y) * 0.5f);
  drawNormPlot(s, t, rightW, plotH);
  drawLookupRow(s, rightW, plotH);
  ImGui::EndGroup();
}

void publishStatus(const LearnedPanelState& s, AppContext& ctx) {
  const std::shared_ptr<const Grid> table = s.table;
  const int rows = table->rows;
  const bool tableBusy = s.tableJob.busy();
  ctx.status.backend = "CPU (worker thread)";
  ctx.status.gridSize = formatGridSize(s.numPositions, table->cols) + (s.numPositions > rows ? ", table " + formatGridSize(rows, table->cols) : "");
  ctx.status.gridSize += pixelStatusText(s.map.wanted, s.image.result());
  ctx.status.computeMs = s.image.millis();
  ctx.status.busy = tableBusy || s.tablePending || s.image.busy();
  ctx.status.progress = tableBusy ? s.tableJob.progress() : s.image.progress();
}

// File > Export: the table shown (max_len rows; positions past it have no numbers to write), as
// the learned view makes it: seeded by its seed and std, or read from its file.
ExportableView learnedExports(const LearnedPanelState& s) {
  ExportableView ex;
  const LearnedTableResult* t = s.tableJob.result();
  if (!s.table || t == nullptr) return ex;
  const LearnedTableResult::Source& src = t->source;
  cli::ViewCall call{"learned"};
  if (src.fromFile) {
    call.set(table::kTable, src.path);
  } else {
    call.set(table::kDModel, src.dModel).set(table::kMaxLen, src.maxLen);
    call.set(table::kSeed, static_cast<double>(src.seed)).set(table::kStd, src.stddev);
  }
  ex.call = std::move(call);
  ex.name = "learned-table";
  ex.caption = t->name;
  ex.rowTitle = "position";
  ex.colTitle = "dimension";
  ex.valueName = "P[pos][dim]";
  ex.colormap = s.colormap;
  ex.symmetricRange = true;
  ex.plotColumnNames = {"position", "row_norm"};
  ex.plotColumns = [norms = t->rowNorm] {
    std::vector<double> pos(norms.size());
    for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = static_cast<double>(i);
    return std::vector<std::vector<double>>{std::move(pos), norms};
  };
  return ex;
}

}  // namespace

namespace {

// Before the first seeded table is done: its picture from sampled cells (requestPreview), with
// every hovered value exact from its place in the stream, so a huge table is not a blank tab.
void drawFirstLook(LearnedPanelState& s, ImVec2 avail) {
  HeatmapSpec spec = tableSpec(s, s.maxLen, s.dModel);
  spec.exactValue = [d = s.dModel, seed = s.seed, sd = s.stddev, maxLen = s.maxLen](long long r, long long c) {
    return r < maxLen ? static_cast<double>(learnedInitCell(d, seed, sd, r, static_cast<int>(c)))
                      : std::numeric_limits<double>::quiet_NaN();
  };
  const HeatmapImage empty;
  const HeatmapImage* img = s.image.result();
  if (drawHeatmap("learned", s.map, spec, img ? *img : empty, std::floor(avail.x * 0.6f), avail.y - ImGui::GetFontSize() * 2.0f))
    requestPreview(s);
}

}  // namespace

void drawLearnedPanel(LearnedPanelState& s, AppContext& ctx) {
  pollJobs(s);

  const float fh = ImGui::GetFontSize();
  ImGui::BeginChild("controls", ImVec2(std::min(fh * 22.0f, std::floor(ImGui::GetContentRegionAvail().x * 0.4f)), 0), true);
  drawControls(s, ctx);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("views", ImVec2(0, 0), false);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const LearnedTableResult* t = s.tableJob.result();
  if (!s.table || !t) {
    ImGui::TextDisabled(s.tableJob.busy() || s.tablePending ? "building the table..." : "no table yet");
    if (!s.fromFile) drawFirstLook(s, ImGui::GetContentRegionAvail());
    ImGui::EndChild();
    ctx.status.backend = "CPU (worker thread)";
    ctx.status.busy = s.tableJob.busy() || s.tablePending;
    ctx.status.progress = s.tableJob.progress();
    return;
  }
  drawViews(s, *t, avail);
  ImGui::EndChild();

  publishStatus(s, ctx);
}


// -----------------------------------------------------------------------------------------------
// [SECTION] The tab's entry in the panel list
// -----------------------------------------------------------------------------------------------

namespace {

// Every parameter the tab keeps with the member that holds it: save and load walk this one list.
template <class State, class Visit>
void eachLearnedParam(State& s, Visit&& visit) {
  visit(table::kSeed, s.seed);
  visit(table::kStd, s.stddev);
  visit(table::kTabPositions, s.numPositions);
  visit(table::kTabLookup, s.lookupPos);
  visit(table::kPixel, s.pixel);
}

void saveLearned(const AppState& a, nlohmann::json& j) {
  eachLearnedParam(a.learned, ParamSaver{j});
  const LearnedPanelState& s = a.learned;
  cli::saveParam(j, table::kMaxLen, s.maxLen);
  cli::saveParam(j, table::kDModel, s.dModel);
  j["path"] = s.path;
  j["colormap"] = colormapName(s.colormap);
}

void loadLearned(AppState& a, const nlohmann::json& j) {
  eachLearnedParam(a.learned, ParamLoader{j});
  LearnedPanelState& s = a.learned;
  // A table larger than the window builds is not taken: both sizes stay as they were.
  int maxLen = s.maxLen, dModel = s.dModel;
  cli::loadParam(j, table::kMaxLen, maxLen);
  cli::loadParam(j, table::kDModel, dModel);
  if (maxLen <= cellBudget(dModel)) {
    s.maxLen = maxLen;
    s.dModel = dModel;
  }
  readSetting(j, "path", s.path);
  readSetting(j, "colormap", s.colormap);
  s.tableDirty = true;
  s.dirty = true;
}

void tweakLearned(AppState& a) {
  a.learned.seed += 1;
  a.learned.tableDirty = true;
  a.learned.dirty = true;
}

}  // namespace

const PanelDef kLearnedPanel{"learned", [](AppState& a, AppContext& c) { drawLearnedPanel(a.learned, c); },
    [](AppState& a, const cli::ModelConfig& m, ConfigNotes& n) { applyLearnedConfig(a.learned, m, n); },
    saveLearned, loadLearned, tweakLearned, nullptr, nullptr, nullptr,
    [](AppState& a) {
      a.learned.openRequested = true;
      a.learned.fromFile = true;
    },
    [](const AppState& a) { return learnedExports(a.learned); }};

}  // namespace posviz::app
