// view_export.cpp: File > Export of the active view.
#include "app/gui/shell/view_export.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "app/cli/cli.hpp"
#include "app/gui/base/app_context.hpp"
#include "core/npy.hpp"

namespace posviz::app {

std::vector<std::string> exportArguments(const ExportableView& view, ViewExportKind kind, const std::string& path,
                                         const ViewExportOptions& options) {
  if (kind == ViewExportKind::PlotCsv) return {};
  const bool picture = kind == ViewExportKind::HeatmapPng || kind == ViewExportKind::HeatmapSvg;
  const cli::PictureChoice choice{view.colormap, options.cellScale, options.colorbar, options.axisTitles, options.caption};
  if (view.call) return cli::exportCallArguments(*view.call, path, choice, picture);
  if (view.cliArgs.empty()) return {};
  std::vector<std::string> args = cli::exportCallArguments(cli::ViewCall{view.cliArgs[0]}, path, choice, picture);
  args.insert(args.begin() + 1, view.cliArgs.begin() + 1, view.cliArgs.end());
  return args;
}

void exportView(const ExportableView& view, ViewExportKind kind, const std::string& path, const ViewExportOptions& options) {
  if (const std::vector<std::string> args = exportArguments(view, kind, path, options); !args.empty()) {
    cli::exportWithArguments(args);
    return;
  }
  if (kind == ViewExportKind::HeatmapJson) throw std::invalid_argument("export: the view " + view.name + " has no JSON export");
  if (kind == ViewExportKind::PlotCsv) {
    const std::vector<std::vector<double>> columns = view.plotColumns ? view.plotColumns() : std::vector<std::vector<double>>{};
    if (columns.empty()) throw std::invalid_argument("export: the view " + view.name + " has no plot data");
    std::vector<std::string> names = view.plotColumnNames;
    for (std::size_t i = names.size(); i < columns.size(); ++i) names.push_back("column" + std::to_string(i));
    names.resize(columns.size());
    cli::writeCsvColumns(path, names, columns);
    return;
  }
  if (!view.computeFull) throw std::invalid_argument("export: the view " + view.name + " has no heatmap");
  const Grid g = view.computeFull();
  switch (kind) {
    case ViewExportKind::HeatmapPng:
    case ViewExportKind::HeatmapSvg: {
      cli::PngOptions o;
      o.scale = cli::autoColorScale(g, &view.colormap, colormapKind(view.colormap) == ColormapKind::Cyclic);
      if (view.symmetricRange) {
        const float a = std::max(std::fabs(o.scale.min), std::fabs(o.scale.max));
        o.scale.min = -a;
        o.scale.max = a;
      }
      o.cellScale = options.cellScale > 0 ? options.cellScale : cli::autoCellScale(g.rows, g.cols);
      o.colorbar = options.colorbar;
      o.axisTitles = options.axisTitles;
      o.rowTitle = view.rowTitle.empty() ? "row" : view.rowTitle;
      o.colTitle = view.colTitle.empty() ? "col" : view.colTitle;
      o.valueName = view.valueName;
      if (options.caption) o.caption = view.caption;
      if (kind == ViewExportKind::HeatmapSvg) cli::writeSvg(path, g, o);
      else cli::writePng(path, g, o);
      break;
    }
    case ViewExportKind::HeatmapNpy:
      writeNpy(path, {g.rows, g.cols}, g.values.data(), DType::F32);
      break;
    case ViewExportKind::HeatmapCsv:
      cli::writeCsvGrid(path, g,
                   {view.name + ": rows = " + (view.rowTitle.empty() ? "row" : view.rowTitle) + ", cols = " +
                    (view.colTitle.empty() ? "col" : view.colTitle) + (view.caption.empty() ? "" : "; " + view.caption)});
      break;
    case ViewExportKind::HeatmapJson:
    case ViewExportKind::PlotCsv:
      break;
  }
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

}  // namespace posviz::app
