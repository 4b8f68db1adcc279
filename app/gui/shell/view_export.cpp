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

std::vector<std::string> exportArguments(const ExportableView& view, ViewExportKind kind, const std::string& path,
                                         const ViewExportOptions& options) {
  if (kind == ViewExportKind::PlotCsv) return {};
  const bool picture = kind == ViewExportKind::HeatmapPng || kind == ViewExportKind::HeatmapSvg;
  const cli::PictureChoice choice{view.colormap, options.cellScale, options.colorbar, options.axisTitles, options.caption};
  if (!view.call) return {};
  return cli::exportCallArguments(*view.call, path, choice, picture);
}

void exportView(const ExportableView& view, ViewExportKind kind, const std::string& path, const ViewExportOptions& options) {
  if (const std::vector<std::string> args = exportArguments(view, kind, path, options); !args.empty()) {
    cli::exportWithArguments(args);
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
