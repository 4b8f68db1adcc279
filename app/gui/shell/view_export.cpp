// view_export.cpp: File > Export of the active view.
#include "app/gui/shell/view_export.hpp"

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "app/cli/cli.hpp"
#include "app/gui/base/app_context.hpp"
#include "core/grid.hpp"
#include "core/npy.hpp"

namespace posviz::app {

std::vector<SweepableParam> sweepableParams(const ExportableView& view) {
  std::vector<SweepableParam> out;
  if (!view.call) return out;
  for (const auto& [p, value] : view.call->numbers) {
    if (p->kind == cli::ParamKind::Choice || p->flag.empty()) continue;
    out.push_back({std::string(p->flag), std::string(p->label), value, p->min, p->max, p->kind == cli::ParamKind::EvenInt ? 2 : p->isInteger() ? 1 : 0});
  }
  return out;
}

ViewAnimation sweepOf(const SweepableParam& p, double fps) {
  ViewAnimation a;
  a.flag = p.flag;
  a.fps = fps;
  a.from = p.value;
  const bool position = p.flag.find("position") != std::string::npos;
  a.to = std::min(p.max, position ? p.value + 64.0 : p.value != 0.0 ? 2.0 * p.value : 1.0);
  if (a.to == a.from) a.to = std::max(p.min, a.from / 2.0);
  if (p.step > 0) {
    a.from = std::round(a.from / p.step) * p.step;
    a.to = std::round(a.to / p.step) * p.step;
    a.frames = static_cast<int>(std::clamp(std::fabs(a.to - a.from) / p.step + 1.0, 2.0, 120.0));
  }
  return a;
}

ViewAnimation defaultAnimation(const ExportableView& view) {
  const std::vector<SweepableParam> params = sweepableParams(view);
  if (params.empty()) return {};
  // What a slide most often moves: a position, then the base, the scaling factor, the head count.
  for (const char* flag : {"--position", "--key-position", "--base", "--factor", "--heads"})
    for (const SweepableParam& p : params)
      if (p.flag == flag) return sweepOf(p, ViewAnimation{}.fps);
  return sweepOf(params.front(), ViewAnimation{}.fps);
}

std::vector<std::string> exportArguments(const ExportableView& view, ViewExportKind kind, const std::string& path,
                                         const ViewExportOptions& options) {
  if (kind == ViewExportKind::PlotCsv) return {};
  const bool gif = kind == ViewExportKind::AnimatedGif;
  const bool picture = gif || kind == ViewExportKind::HeatmapPng || kind == ViewExportKind::HeatmapSvg;
  const cli::PictureChoice choice{view.colormap, options.cellScale, options.colorbar, options.axisTitles, options.caption, options.textScale};
  if (!view.call) return {};
  std::vector<std::string> args = cli::exportCallArguments(*view.call, path, choice, picture);
  if (!gif) return args;
  const ViewAnimation& a = options.animation;
  if (a.flag.size() < 3) throw std::invalid_argument("export: choose the number to animate");
  const auto at = std::find(args.begin(), args.end(), a.flag);
  if (at != args.end()) args.erase(at, at + 2);   // the flag and its value: the animation sets it
  auto number = [](double v) { return v == std::floor(v) && std::fabs(v) < 9e15 ? std::to_string(static_cast<long long>(v)) : cli::formatNumber(v); };
  const std::vector<std::string> sweep = {"--animate", a.flag.substr(2) + "=" + number(a.from) + ":" + number(a.to), "--frames",
                                          std::to_string(a.frames), "--fps", cli::formatNumber(a.fps)};
  args.insert(args.end() - 2, sweep.begin(), sweep.end());   // before -o PATH
  return args;
}

void exportView(const ExportableView& view, ViewExportKind kind, const std::string& path, const ViewExportOptions& options,
                const cli::ExportProgress& progress) {
  if (const std::vector<std::string> args = exportArguments(view, kind, path, options); !args.empty()) {
    cli::exportWithArguments(args, progress);
    return;
  }
  if (kind == ViewExportKind::PlotCsv) {
    const std::vector<std::vector<double>> columns = view.plotColumns ? view.plotColumns() : std::vector<std::vector<double>>{};
    if (columns.empty()) throw std::invalid_argument("export: the view " + view.name + " has no plot data");
    std::vector<std::string> names = view.plotColumnNames;
    for (std::size_t i = names.size(); i < columns.size(); ++i) names.push_back("column" + std::to_string(i));
    names.resize(columns.size());
    cli::writeCsvColumns(path, names, columns);
    return;
  }
  throw std::invalid_argument("export: the view " + view.name + " has no heatmap");
}

std::string defaultExportFileName(const ExportableView& view, ViewExportKind kind) {
  const std::string stem = view.name.empty() ? "posviz" : view.name;
  switch (kind) {
    case ViewExportKind::HeatmapPng: return stem + ".png";
    case ViewExportKind::HeatmapSvg: return stem + ".svg";
    case ViewExportKind::HeatmapNpy: return stem + ".npy";
    case ViewExportKind::HeatmapCsv: return stem + ".csv";
    case ViewExportKind::HeatmapJson: return stem + ".json";
    case ViewExportKind::PlotCsv: return stem + "-plot.csv";
    case ViewExportKind::AnimatedGif: return stem + ".gif";
  }
  return stem;
}

std::string exportDoneMessage(const std::string& path, double milliseconds) {
  std::error_code ec;
  const std::filesystem::path where = std::filesystem::absolute(path, ec);
  const std::string shown = ec ? path : where.lexically_normal().string();
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.3g ms", milliseconds);
  return "Wrote " + shown + " (" + (ec ? std::string() : formatBytes(bytes) + ", ") + ms + ")";
}

}  // namespace posviz::app
