// view_call.hpp: one `posviz export VIEW` call, typed: the view and values of its parameters.
//
// The window's File > Export builds a ViewCall from a tab's state when the export dialog opens;
// the same call is written by the CLI's own export (so the file is the one the command writes) and
// printed as the command that remakes it. Values are set through the parameter table, so the
// window names no flag: a seed is set as the seed, never as the vectors it expands to.
//
//   ViewCall c{"rope-scores"};
//   c.set(params::rope::kHeadDim, 64).set(params::rope::kBase, 500000).set(params::rope::kSeed, 1);
//   exportCall(c, "scores.png", {});                      // writes the file
//   commandLine(exportCallArguments(c, "scores.png", {}))  // "posviz export rope-scores --head-dim 64 ..."
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/cli/params.hpp"
#include "core/colormap.hpp"

namespace posviz::cli {

struct ViewDef;

struct ViewCall {
  ViewCall() = default;
  explicit ViewCall(std::string viewName) : view(std::move(viewName)) {}

  std::string view;                                        // a view of the view table
  std::vector<std::pair<const Param*, double>> numbers;    // in the order set
  std::vector<std::pair<const Param*, std::string>> texts;
  std::vector<const Param*> switches;

  ViewCall& set(const Param& p, double value);             // Int, EvenInt, Real, Choice (the index)
  ViewCall& set(const Param& p, std::string text);         // Text
  ViewCall& on(const Param& p, bool enabled = true);       // Switch: given when enabled
};

// How a picture is drawn; the defaults are `posviz export`'s (a readable scale, all decorations).
struct PictureChoice {
  std::optional<Colormap> colormap;
  int cellScale = 0;         // pixels per cell side; 0 = automatic
  bool colorbar = true, axisTitles = true, caption = true;
  float textScale = 1.0f;    // --text-scale when not 1: the window passes its text size
};

// "VIEW --flag value ... [picture options] -o PATH": the arguments after `posviz export`.
// Throws std::logic_error when the view is not in the table or does not take one of the flags
// (a tab asking for an option its view lacks is a defect the tests catch).
std::vector<std::string> exportCallArguments(const ViewCall& c, const std::string& path, const PictureChoice& picture,
                                             bool isPicture);
// The caption in words: what the view shows (its summary up to the first aside), then the
// parameters its table lists, by their labels: "score grid s(m, n) = <R_m q, R_n k> for fixed q and
// k: head_dim 128, base 10000, pairing half-split, positions T 256". `params` as a document's
// "params"; a view without table parameters names its document's numbers.
std::string captionInWords(const ViewDef& v, const nlohmann::json& params);
// The same for a call (its numbers, texts and switches), without computing anything.
std::string callCaption(const ViewCall& c);

// Writes the file exactly as the command would (UsageError, RuntimeFailure as the CLI throws them).
void exportCall(const ViewCall& c, const std::string& path, const PictureChoice& picture, bool isPicture);

}  // namespace posviz::cli
