// view_export.hpp: File > Export of the active view, written with the CLI library's writers.
#pragma once

#include <string>
#include <vector>

#include "app/cli/export.hpp"

namespace posviz::app {

struct ExportableView;  // app/gui/base/app_context.hpp

// File > Export for the active view (app/gui/base/app_context.hpp's ExportableView).
// A heatmap is written by the CLI's export from the view's typed call (cli::exportCall), so the
// file is the one `posviz export` writes; the plot's CSV from its columns.
enum class ViewExportKind {
  HeatmapPng,   // a PNG with the view's colormap, titles and caption
  HeatmapSvg,   // the same picture as SVG: vector text, axes and colorbar (slides, papers)
  HeatmapNpy,   // float32 .npy in the view's layout
  HeatmapCsv,   // a CSV grid
  HeatmapJson,  // .json with shape, parameters and values
  PlotCsv,      // plotColumnNames / plotColumns as a CSV table
  AnimatedGif,  // the heatmap picture at a sweep of one of its numbers, as a looping GIF (cli/animate.hpp)
};

// One of the view call's numbers swept from `from` to `to` in `frames` frames (AnimatedGif).
struct ViewAnimation {
  std::string flag;         // "--position"
  double from = 0.0, to = 0.0;
  int frames = 60;
  double fps = 30.0;
};
// A number of the view's call an animation can sweep, with its definition's range.
struct SweepableParam {
  std::string flag, label;
  double value = 0.0, min = 0.0, max = 0.0;
  int step = 0;   // 0: any real; 1: whole numbers; 2: even numbers (dimensions)
};
std::vector<SweepableParam> sweepableParams(const ExportableView& view);
// p swept from its value to 64 more (positions) or to twice it (half it at its maximum), at fps;
// whole (even) numbers and one frame per value (2..120) for an integer (a dimension).
ViewAnimation sweepOf(const SweepableParam& p, double fps);
// The number a slide most often moves (--position, --key-position, --base, --factor, --heads, else
// the call's first) from its value to 64 more (positions) or to twice it, as sweepOf.
ViewAnimation defaultAnimation(const ExportableView& view);
// The defaults are `posviz export`'s: the picture as the window draws it, scaled to be readable.
struct ViewExportOptions {
  int cellScale = 0;        // PNG/SVG pixels per cell side, >= 1; 0 = automatic (cli::autoCellScale)
  bool colorbar = true;     // PNG/SVG
  bool axisTitles = true;   // PNG/SVG
  bool caption = true;      // PNG/SVG: the view's parameter caption above the image
  float textScale = 1.0f;   // PNG/SVG/GIF: text size (the window's View > Larger / Smaller text)
  ViewAnimation animation;  // AnimatedGif
};
// Throws std::invalid_argument when the view has nothing of that kind (no heatmap, no plot) or a
// size is over the budget, std::runtime_error when the file cannot be written; the message is
// meant for the UI. Nothing is left behind on failure.
// progress: the fraction done; it may throw to stop the export (nothing is written then).
void exportView(const ExportableView& view, ViewExportKind kind, const std::string& path, const ViewExportOptions& options = {},
                const cli::ExportProgress& progress = {});
// The `posviz export` arguments that write this file (-o path included); empty when the view has no
// heatmap call or the kind is PlotCsv.
std::vector<std::string> exportArguments(const ExportableView& view, ViewExportKind kind, const std::string& path,
                                         const ViewExportOptions& options = {});
// "NAME.png", "NAME.npy", "NAME.csv", "NAME.json", "NAME-plot.csv", "NAME.gif" (NAME = view.name, or "posviz").
std::string defaultExportFileName(const ExportableView& view, ViewExportKind kind);

// What the window says after writing path: "Wrote /home/ann/slides/rope-scores.svg (8.2 KiB,
// 12 ms)". The whole path (a relative name says nothing of where the window was started) and
// the file's size as written.
std::string exportDoneMessage(const std::string& path, double milliseconds);

}  // namespace posviz::app
