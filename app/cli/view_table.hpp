// view_table.hpp: the one definition of every exportable view. `posviz export VIEW`, its help
// text, the window's File > Export (which hands the same arguments to the same code) and the
// tab vocabulary (app/cli/tabs.hpp) all read this table.
//
// A VIEW is: a name and the spellings it also answers to, the window tab that draws it, a
// summary, the layout of each file format, its options (with ranges and help in optionSpecs()),
// its defaults, how a model config fills them, how big its result is (checked before any work),
// and how core computes it. Adding a view = one ViewDef in one of app/cli/views/*.cpp and one
// line in view_table.cpp.
//
// NAMES
//   findView accepts a view's name, one of its aliases, or a tab's name or alias (meaning the
//   tab's main view): `posviz export rope` writes what the RoPE tab shows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/params.hpp"
#include "app/cli/request.hpp"

namespace posviz::cli {

struct ViewCall;   // app/cli/view_call.hpp

struct ViewDef {
  std::string name;                   // "rope-scores": posviz export NAME
  std::vector<std::string> aliases;   // other accepted spellings ("rope-score")
  std::string tab;                    // the window tab that draws it (app/cli/tabs.hpp)
  std::string summary;                // one line
  std::string layout;                 // what each file format holds
  bool png = false;                   // a 2-D heatmap exists
  bool exactDouble = false;           // --dtype f64 computes in double (else the float32 grid widened)
  bool buildsDocument = false;        // the .json is built whole in memory (budget counts it)
  bool realPositions = false;         // --position/--key-position are real numbers (rope-rotate)
  long long maxDModel = kMaxWidth;    // --d-model's upper bound
  std::vector<std::string> options;   // view-specific options, in help order
  // The view's parameters from the table (app/cli/scheme_params.hpp): a flag listed here is read,
  // checked and described by its Param (range, default, help) instead of the shared option row.
  std::vector<const Param*> params;

  void (*setDefaults)(Request&) = nullptr;                   // before config and flags
  void (*applyModel)(Request&, const ModelConfig&, const std::string& source) = nullptr;
  void (*parse)(Request&, const ParsedOptions&) = nullptr;    // the view's own options and checks
  std::uint64_t (*elements)(const Request&) = nullptr;        // result size; 0 = checked by a reader
  Dataset (*compute)(const Request&, const ExportProgress&) = nullptr;

  // Grid views: --size WxH writes the W x H picture of the whole grid, each
  // value the exact mean of its block of cells (core/exact_average.hpp); nullptr for other views.
  Dataset (*computeAveraged)(const Request&, int width, int height, const ExportProgress&) = nullptr;
  // Elements held for that picture (the picture, plus a table that must be held whole); throws
  // UsageError when width or height exceeds the grid's columns or rows.
  std::uint64_t (*averagedElements)(const Request&, int width, int height) = nullptr;
  // The view's own compute, once attachAveragedViews has made `compute` choose by --size.
  Dataset (*computeWhole)(const Request&, const ExportProgress&) = nullptr;
};

// --size WxH as given in r.sizeText: {width, height}, each 1..kMaxExportSize; nullopt without
// --size. Throws UsageError naming --size for malformed text, and for a view with no averaged
// picture.
struct ExportSize {
  int width = 0, height = 0;
};
constexpr int kMaxExportSize = 16384;
std::optional<ExportSize> parseExportSize(const Request& r);
// Makes `compute` of every view with a computeAveraged choose by --size (app/cli/views/averaged.cpp).
void attachAveragedViews(std::vector<ViewDef>& views);

const std::vector<ViewDef>& viewTable();
// The view's Param for a flag, or nullptr when the view reads that flag through the shared row.
const Param* viewParam(const ViewDef& v, std::string_view flag);
// By name, alias, or tab name/alias (its main view); nullptr when none.
const ViewDef* findView(std::string_view name);
std::string viewList();   // "sinusoidal, learned, ..."

// Sets p on a call of a RoPE view (head_dim, base, layout; the rotary fraction when not 1; the
// scaling and its parameters when it scales), so that the view computes with exactly p.
ViewCall& addRopeParams(ViewCall& call, const RopeParams& p);

// The families' definitions (app/cli/views/*.cpp).
std::vector<ViewDef> sinusoidalViews();
std::vector<ViewDef> learnedViews();
std::vector<ViewDef> ropeViews();
std::vector<ViewDef> alibiViews();
std::vector<ViewDef> attentionViews();
std::vector<ViewDef> axialViews();
std::vector<ViewDef> compareViews();
std::vector<ViewDef> extrapolationViews();
std::vector<ViewDef> relativeViews();   // t5-buckets, xpos-scale, kerple-bias, fire-bias
std::vector<ViewDef> relativeScoreViews();   // shaw-scores, txl-terms
std::vector<ViewDef> exampleViews();         // example: a worked example's step
std::vector<ViewDef> orderViews();           // order-attention, nope-counting

}  // namespace posviz::cli
