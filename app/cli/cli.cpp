// cli.cpp: `posviz --help | --version`, `posviz export VIEW [options] -o FILE`, and the hand-off
// to `posviz examples`.
// [SECTION] Help text
// [SECTION] export
// [SECTION] runCli
#include "core/untrusted_text.hpp"
#include "app/cli/cli.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "app/cli/animate.hpp"
#include "app/cli/args.hpp"
#include "app/cli/examples_command.hpp"
#include "app/cli/learn_command.hpp"
#include "app/cli/check_command.hpp"
#include "app/cli/model_command.hpp"
#include "app/cli/export.hpp"
#include "app/cli/model_config.hpp"
#include "app/cli/progress_bar.hpp"
#include "app/cli/request.hpp"
#include "app/cli/view_call.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/tabs.hpp"
#include "app/cli/train_command.hpp"
#include "app/cli/window_options.hpp"
#include "core/alibi.hpp"
#include "core/attention.hpp"
#include "core/colormap.hpp"
#include "core/grid.hpp"
#include "core/learned.hpp"
#include "core/npy.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

#ifndef POSVIZ_VERSION
#define POSVIZ_VERSION "0.1.0"
#endif

namespace posviz::cli {

namespace {

using nlohmann::json;

constexpr int kExitOk = 0;
constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;

// [SECTION] Help text

std::string formatOption(const OptionSpec& s) {
  std::string head = "  " + s.name + (s.takesValue ? " " + s.metavar : "");
  if (head.size() < 30) head.resize(30, ' ');
  else head += "\n" + std::string(30, ' ');
  return head + s.help + "\n";
}

std::string mainHelp() {
  std::ostringstream os;
  os << "posviz " << POSVIZ_VERSION << ": transformer positional encodings, visible and exact.\n\n"
     << "Usage:\n"
     << "  posviz                          open the app (window)\n"
     << "  posviz export VIEW [options] -o FILE\n"
     << "                                  write a view's numbers (.npy .csv .json) or heatmap (.png .svg)\n"
     << "  posviz export --help            every export option\n"
     << "  posviz export VIEW --help       one view's options and output layout\n"
     << "  posviz learn [--list | --glossary | STEP [--set KEY=VALUE ...]]\n"
     << "                                  the Learn path as text: chapters and steps, or one step's\n"
     << "                                  explanation, figure numbers and the article's claim\n"
     << "  posviz examples [NAME | --topic TOPIC | --tests]\n"
     << "                                  the documents' worked examples and code audits, recomputed and\n"
     << "                                  checked; --tests: the test list of Teaching Transformers to\n"
     << "                                  Count run against every listing\n"
     << "  posviz model --config FILE      a model's positional scheme layer by layer (--preset NAME, --json, --compare A B)\n"
     << "  posviz check --config FILE ...  your RoPE tensors (.npy) against the model's exact reference, mistakes named\n"
     << "  posviz train [--task copy --encodings nope,rope,alibi --steps N --seeds N -o results.json]\n"
     << "                                  train a small transformer with each scheme and report accuracy\n"
     << "                                  against length (posviz train --help: every option)\n"
     << "  posviz --help | -h | --version\n\n"
     << "Window options (posviz [options]):\n";
  for (const OptionSpec& s : windowOptionSpecs()) os << formatOption(s);
  os << "\nTabs of the window:\n";
  std::size_t tabWidth = 0;   // the longest name sets the column: resizing to a fixed one cut two names short
  for (const TabDef& t : tabs()) tabWidth = std::max(tabWidth, t.name.size());
  for (const TabDef& t : tabs()) {
    std::string n = "  " + t.name;
    n.resize(tabWidth + 4, ' ');
    os << n << t.summary << "\n";
  }
  os << "\nViews (posviz export VIEW):\n";
  std::size_t nameWidth = 0;
  for (const ViewDef& v : viewTable()) nameWidth = std::max(nameWidth, v.name.size());
  for (const ViewDef& v : viewTable()) {
    std::string n = "  " + v.name;
    n.resize(std::max<std::size_t>(18, nameWidth + 4), ' ');
    os << n << v.summary << "\n";
  }
  os << "\nPresets (--preset NAME):\n";
  try {
    for (const std::string& p : presetNames()) {
      std::string n = "  " + p;
      n.resize(24, ' ');
      std::string d;
      try {
        d = loadPreset(p).description;
      } catch (const ConfigError& e) {
        d = e.what();
      }
      os << n << d << "\n";
    }
  } catch (const std::exception& e) {
    os << "  (unavailable: " << e.what() << ")\n";
  }
  os << "\nExit codes: 0 ok; 1 runtime failure (cannot write the file, out of memory); 2 bad usage or input\n"
     << "(unknown view or option, a value out of range, an unreadable or malformed --config/--table file).\n"
     << "A failed export leaves no file behind: data go to a temporary file renamed into place at the end.\n\n"
     << "Examples:\n"
     << "  posviz export sinusoidal --d-model 128 --positions 512 -o pe.npy\n"
     << "  posviz export rope-freqs --preset llama-3.1-8b -o freqs.json\n"
     << "  posviz export alibi-bias --heads 8 --positions 16 --causal -o bias.npy\n"
     << "  posviz export sinusoidal --d-model 8 --positions 4 -o pe.png           # 512 px wide, colorbar, titles\n"
     << "  posviz export sinusoidal --d-model 8 --positions 4 --plain -o pe.png   # 8 x 4 pixels, one per cell\n"
     << "  posviz export rope-scores --preset llama-3.1-8b --positions 131072 --size 1024x1024 -o s.png\n";
  return os.str();
}

// A bare `posviz export`: what to type next, short enough to read at a glance (stderr, exit 2).
std::string exportUsage() {
  std::ostringstream os;
  os << "posviz export: a view is required\n"
     << "usage: posviz export VIEW [options] -o FILE   (.png .svg .npy .csv .json)\n"
     << "views:\n";
  std::string line = " ";
  for (const ViewDef& v : viewTable()) {
    if (line.size() + v.name.size() + 2 > 80) {
      os << line << "\n";
      line = " ";
    }
    line += " " + v.name;
  }
  os << line << "\n"
     << "example: posviz export sinusoidal --d-model 8 --positions 4 -o pe.png\n"
     << "posviz export VIEW --help lists a view's options\n"
     << "posviz export --help for all options\n";
  return os.str();
}

// What a picture holds unless told otherwise, for both help texts.
constexpr const char* kPictureDefaults =
    "Pictures (.png, .svg) are made to be read: the cells of a small grid are scaled up until the heatmap\n"
    "is 512 px along its longer side and 64 px along the shorter (no side past 2048 px; larger grids keep\n"
    "one pixel per cell), with a colorbar, axis titles and a caption giving the parameters.\n"
    "--scale N, --no-colorbar, --no-axis-titles, --no-caption and --caption TEXT change one of these;\n"
    "--plain writes one pixel per cell with no decorations (the raw grid).\n"
    "Animation: --animate NAME=FROM:TO [--frames N] [--fps F] -o FILE.gif|.mp4|.webm sweeps one of the\n"
    "view's numeric options (NAME without its dashes; pos = position) from FROM to TO in N frames (default:\n"
    "one per value an integer option takes, even ones for dimensions, else 60; at most 1000) and writes a\n"
    "looping GIF, or an H.264 .mp4 or VP9 .webm video, every frame on one colour range. GIF delays are whole\n"
    "hundredths of a second: --fps F (default 30) becomes round(100 / F) of them; a video keeps F exactly.\n"
    "  posviz export rope-cos --head-dim 16 --positions 64 --animate pos=0:63 --fps 15 -o turning.gif\n";

std::string exportHelp(const ViewDef* only) {
  std::ostringstream os;
  if (only == nullptr) {
    os << "Usage: posviz export VIEW [options] -o FILE\n\n"
       << "The format follows the file extension: .png (heatmap picture), .svg (the same picture with vector text\n"
       << "and colorbar), .npy (C order, numpy.load reads it), .csv (grids: one line per row after '#' comment\n"
       << "lines; tables: a header line), .json. Views: " << viewList() << ".\n"
       << kPictureDefaults
       << "Options that do not apply to the chosen view are refused. `posviz export VIEW --help` lists each\n"
       << "view's options and output layout.\n\nOptions:\n";
    for (const OptionSpec& s : optionSpecs()) os << formatOption(s);
  } else {
    os << "Usage: posviz export " << only->name << " [options] -o FILE\n\n"
       << only->summary << ".\n\nOutput: " << only->layout << ".\n"
       << (only->png ? kPictureDefaults : ".png and .svg are not available for this view (its data are not a 2-D grid).\n")
       << "\nOptions:\n";
    for (const std::string& name : only->options) {
      const OptionSpec& shared = specOf(name);
      const Param* p = viewParam(*only, name);
      os << formatOption(p ? optionSpec(*p, shared.metavar) : shared);
    }
    os << "\nCommon options:\n";
    for (const std::string& name : kCommonOptions) os << formatOption(specOf(name));
  }
  std::string inDouble, widened;
  for (const ViewDef& v : viewTable()) (v.exactDouble ? inDouble : widened) += (v.exactDouble ? inDouble : widened).empty() ? v.name : ", " + v.name;
  os << "\n--dtype f64 writes float64:\n"
     << "  computed in double precision: " << inDouble << "\n"
     << "  the float32 result widened:   " << widened << "\n"
     << "  (--size pictures' block means are computed in double for every grid view)\n"
     << "With --config FILE or --preset NAME the model's values are the defaults; flags given override them.\n"
     << "Sizes: a request whose result would exceed the memory budget (--budget, default 8G) is refused before\n"
     << "any work, with the size it would need; a .png counts its RGB pixels too. For a grid view, --size WxH\n"
     << "writes the exact area-averaged W x H picture of a grid too large for one pixel per cell.\n"
     << "A result that would hold NaN or infinity (a float32 overflow from extreme values) is refused with\n"
     << "exit 2 rather than written; masked ALiBi entries (-inf) are the exception.\n";
  return os.str();
}

}  // namespace

Dataset computeDataset(const Request& r, const ExportProgress& progress) {
  Dataset d = r.view->compute(r, progress);
  d.caption = d.document.contains("params") ? captionInWords(*r.view, d.document["params"]) : r.view->name;
  return d;
}

namespace {

// Keeps the memory budget an export sets with --budget to that export.
struct BudgetRestore {
  std::uint64_t value = memoryBudgetBytes();
  ~BudgetRestore() { setMemoryBudgetBytes(value); }
};

const ViewDef& viewOrThrow(const std::string& name) {
  const ViewDef* view = findView(name);
  if (view != nullptr) return *view;
  if (const TabDef* tab = findTab(name); tab != nullptr) {
    // Where its numbers are instead: a command of their own, or only the window.
    const std::string where = tab->name == "worked-examples" ? "posviz examples prints them"
                              : tab->name == "learn"          ? "posviz learn prints them"
                                                              : "it is shown in the window: posviz --panel " + tab->name;
    throw UsageError("the " + tab->name + " tab has no array of numbers to export (" + where + "); views: " + viewList());
  }
  if (!name.empty() && name[0] == '-') {
    throw UsageError("the view comes first, got option " + quotedText(name) + "; views: " + viewList());
  }
  throw UsageError("unknown view " + quotedText(name) + "; views: " + viewList());
}

UsageError unexpectedArgument(const ViewDef& view, const std::string& arg) {
  return UsageError("unexpected argument " + quotedText(arg) + " after view " + view.name + " (options start with -; see posviz export " +
                    view.name + " --help)");
}

int runExport(const std::vector<std::string>& args) {
  if (args.empty()) {  // a usage error: a short usage goes to stderr, the full help is --help
    std::cerr << exportUsage();
    return kExitUsage;
  }
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << exportHelp(nullptr);
    return kExitOk;
  }
  const ViewDef& view = viewOrThrow(args[0]);
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (wantsAnimation(rest) && !std::count(rest.begin(), rest.end(), "--help") && !std::count(rest.begin(), rest.end(), "-h")) {
    const BudgetRestore restore;
    const AnimationPlan plan = parseAnimation(view, rest);
    ProgressBar bar(false, "posviz export " + view.name + " (" + std::to_string(plan.frames) + " frames)");
    writeAnimation(view, plan, bar.stage(0, 1));
    bar.finish();
    std::cout << "wrote " << plan.output << ": " << plan.summary() << "\n";
    return kExitOk;
  }
  const ParsedOptions o = parseOptions(rest, optionSpecs());
  if (o.has("--help") || o.has("-h")) {
    std::cout << exportHelp(&view);
    return kExitOk;
  }
  if (!o.positional.empty()) throw unexpectedArgument(view, o.positional[0]);

  const BudgetRestore restore;
  const Request r = parseRequest(view, o);
  requireResultBudget(r);  // refuse what would not fit before any work
  checkOutputPath(r.output);

  ProgressBar bar(r.progress, "posviz export " + view.name);
  const Dataset d = computeDataset(r, bar.stage(0, 2));
  writeDataset(r, d, bar.stage(1, 2));
  bar.finish();
  return kExitOk;
}

}  // namespace

// [SECTION] runCli

std::string checkExportArguments(const std::vector<std::string>& args) {
  const BudgetRestore restore;
  try {
    if (args.empty()) return "a view is required";
    if (args[0] == "--help" || args[0] == "-h") return "";
    const ViewDef& view = viewOrThrow(args[0]);
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (wantsAnimation(rest)) {
      parseAnimation(view, rest);
      return "";
    }
    const ParsedOptions o = parseOptions(rest, optionSpecs());
    if (o.has("--help") || o.has("-h")) return "";
    if (!o.positional.empty()) throw unexpectedArgument(view, o.positional[0]);
    const Request r = parseRequest(view, o);
    requireResultBudget(r);
    return "";
  } catch (const UsageError& e) {
    return e.what();
  } catch (const ConfigError& e) {
    return e.what();
  } catch (const std::invalid_argument& e) {
    return e.what();
  } catch (const std::out_of_range& e) {
    return e.what();
  }
}

void exportWithArguments(const std::vector<std::string>& args, const ExportProgress& progress) {
  if (args.empty()) throw UsageError("a view is required; views: " + viewList());
  const ViewDef& view = viewOrThrow(args[0]);
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  const BudgetRestore restore;
  if (wantsAnimation(rest)) return writeAnimation(view, parseAnimation(view, rest), progress);
  const ParsedOptions o = parseOptions(rest, optionSpecs());
  if (!o.positional.empty()) throw unexpectedArgument(view, o.positional[0]);
  const Request r = parseRequest(view, o);
  requireResultBudget(r);
  checkOutputPath(r.output);
  const Dataset d = computeDataset(r, [&](double f) { if (progress) progress(0.5 * f); });
  writeDataset(r, d, [&](double f) { if (progress) progress(0.5 + 0.5 * f); });
}

std::string commandLine(const std::vector<std::string>& args) {
  std::string out = "posviz export";
  for (const std::string& a : args) {
    const bool plain = !a.empty() && a.find_first_of(" \t\"'\\$`*?;&|<>()#!~") == std::string::npos;
    if (plain) {
      out += " " + a;
    } else {
      std::string quoted = "'";
      for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += " " + quoted + "'";
    }
  }
  return out;
}

std::optional<int> runCli(int argc, char** argv) {
  if (argc < 2 || argv[1] == nullptr) return std::nullopt;
  const std::string command = argv[1];
  if (command != "export" && command != "examples" && command != "learn" && command != "model" && command != "check" && command != "train" && command != "--help" && command != "-h" && command != "--version") {
    return std::nullopt;
  }
  std::vector<std::string> args;
  for (int i = 2; i < argc; ++i) args.emplace_back(argv[i] != nullptr ? argv[i] : "");
  if (command == "--help" || command == "-h") {
    std::cout << mainHelp();
    return kExitOk;
  }
  if (command == "--version") {
    std::cout << "posviz " << POSVIZ_VERSION << "\n";
    return kExitOk;
  }
  if (command == "examples") {
    return runExamplesCommand(args);
  }
  if (command == "learn") {
    return runLearnCommand(args);
  }
  if (command == "model") {
    return runModelCommand(args);
  }
  if (command == "check") {
    return runCheckCommand(args);
  }
  if (command == "train") {
    return runTrainCommand(args);
  }
  const std::string prefix = "posviz export: ";
  try {
    return runExport(args);
  } catch (const UsageError& e) {
    std::cerr << prefix << displayMessage(e.what()) << "\n";
    return kExitUsage;
  } catch (const ConfigError& e) {
    std::cerr << prefix << displayMessage(e.what()) << "\n";
    return kExitUsage;
  } catch (const std::invalid_argument& e) {  // core refused a parameter combination or a size
    // Core names the function that refused ("renderHeatmapImage: ..."), which says nothing here.
    // A size over the budget says which option sets it, after the budget's size ("1.0 MiB").
    std::string message = withoutCodeNames(e.what());
    const std::string over = "over the memory budget of ";
    if (std::size_t at = message.find(over); at != std::string::npos) {
      at += over.size();
      at = message.find(' ', at);                                      // after the number
      if (at != std::string::npos) at = message.find_first_not_of("KMGTPEiB", at + 1);   // after the unit
      message.insert(std::min(at, message.size()), " (--budget)");
    }
    std::cerr << prefix << displayMessage(message) << "\n";
    return kExitUsage;
  } catch (const std::out_of_range& e) {
    std::cerr << prefix << displayMessage(e.what()) << "\n";
    return kExitUsage;
  } catch (const RuntimeFailure& e) {
    std::cerr << prefix << displayMessage(e.what()) << "\n";
    return kExitRuntime;
  } catch (const std::bad_alloc&) {
    std::cerr << prefix << "out of memory\n";
    return kExitRuntime;
  } catch (const std::exception& e) {  // I/O: writeFileAtomically, writeNpy
    std::cerr << prefix << displayMessage(e.what()) << "\n";
    return kExitRuntime;
  }
}

}  // namespace posviz::cli
