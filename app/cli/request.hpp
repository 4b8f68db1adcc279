// request.hpp: what `posviz export` (and the window's File > Export, which builds the same
// arguments) turns a command line into, and what a view computes from it.
//
//   args --parseRequest--> Request --ViewDef::compute--> Dataset --writeDataset--> file
//
// Request holds every parameter a view can take, with the defaults the view table gives; Dataset
// holds the numbers, all from core, in the layout of each file format (app/cli/view_table.hpp's
// ViewDef::layout says which). Errors: UsageError (exit 2) for anything the user can fix,
// RuntimeFailure (exit 1) for I/O.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/args.hpp"
#include "app/cli/export.hpp"
#include "app/cli/limits.hpp"
#include "core/fire.hpp"
#include "app/cli/model_config.hpp"
#include "core/attn_temperature.hpp"
#include "core/attention.hpp"
#include "core/colormap.hpp"
#include "core/extrapolation.hpp"
#include "core/grid.hpp"
#include "core/axial_rope.hpp"
#include "core/mrope.hpp"
#include "core/xpos.hpp"
#include "core/npy.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

namespace posviz::cli {

struct ViewDef;  // app/cli/view_table.hpp

// Runtime failure (I/O): exit 1.
struct RuntimeFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Format { Png, Npy, Csv, Json, Svg };
// .png and .svg draw the heatmap (colormap, scale, colorbar, titles, caption); the others hold numbers.
inline bool isPicture(Format f) { return f == Format::Png || f == Format::Svg; }

constexpr long long kMaxInt = std::numeric_limits<int>::max();

struct Request {
  const ViewDef* view = nullptr;
  std::string output;
  Format format = Format::Npy;
  DType dtype = DType::F32;
  std::optional<ModelConfig> model;

  SinusoidalParams sin;
  int pixel = 0;                     // --pixel (sinusoidal, RoPE grids, alibi-bias): params::picture::kPixel's index (PixelChoice)
  RopeParams rope;
  int dModel = 0;
  int positions = 128;
  bool positionsGiven = false;
  long long firstPos = 0;
  double position = 0.0;       // rope-rotate M
  double keyPosition = 0.0;    // rope-rotate N
  int heads = 8;
  std::optional<int> head;     // alibi-bias: one head, 0-based (--head counts from 1)
  std::optional<double> slope; // alibi-bias --slope: one head with this slope
  std::vector<MropeSegment> mropeSegments;  // mrope-angles: text runs and image grids, in order
  std::vector<int> mropeSection;            // mrope-angles: pairs per (t, h, w) axis
  bool mropeInterleaved = false;            // mrope-angles: axes alternate pair by pair
  XposSide xposSide = XposSide::Query;      // xpos-scale: --side
  AxialRopeVariant axialVariant = AxialRopeVariant::RopeVit;  // axial-angles/-scores: --image-scheme
  MropeIndexOptions mropeIndex;             // mrope-angles: the get_rope_index rule and its inputs
  std::string mropeUnmodelled;              // mrope-angles: a model whose own rule posviz does not model
  // t5-buckets, xpos-scale, kerple-bias, fire-bias (app/cli/views/relative.cpp)
  int numBuckets = 32;           // T5 relative_attention_num_buckets
  int maxDistance = 128;         // T5 relative_attention_max_distance
  double scaleBase = 512.0;      // xPos scale_base
  bool kerplePower = false;      // KERPLE kernel: log (false) or power (true)
  double kerpleR1 = 1.0, kerpleR2 = 1.0;
  double fireC = FireParams{}.c, fireThreshold = FireParams{}.threshold;  // FIRE psi(x) = log(c x + 1), L in max(L, i)
  int fireHidden = kFireHidden;  // FIRE MLP hidden width
  // shaw-scores, txl-terms (app/cli/views/relative_scores.cpp)
  int shawClip = 4;                    // Shaw's k
  std::string shawVariant = "shaw";    // shaw | relative_key | relative_key_query | relative_key_clamped
  int shawLeftMax = 64, shawRightMax = 8;  // relative_key_clamped
  bool shawIndices = false;            // table rows instead of scores
  bool txlSum = false;                 // a + b + c + d instead of the four terms
  bool causal = false;
  std::uint64_t seed = 0;
  int maxLen = 1024;
  std::string tablePath;
  std::vector<double> q, k;
  std::string text = "dog bites man";
  PositionEncoding encoding = PositionEncoding::None;
  bool attentionOutput = false;

  // extrapolation (app/cli/views/extrapolation.cpp)
  std::vector<ExtrapolationEncoding> extrapolationEncodings;  // the runs at --positions, in order
  bool factorGiven = false;                                   // else each scaled run uses L / L0
  std::vector<double> multiples = {1, 2, 4, 8};               // the length sweep, times L0

  // Pictures (.png, .svg) are decorated by default: cells scaled up to a readable size
  // (autoCellScale), colorbar, axis titles and the "auto" caption. --plain turns all of it off.
  std::optional<Colormap> colormap;
  int scale = 0;               // --scale: pixels per cell side; 0 = automatic (autoCellScale)
  float textScale = 1.0f;      // --text-scale: text size against 15 px
  bool plain = false;          // --plain: one pixel per cell, no decorations
  bool colorbar = true;
  bool axisTitles = true;
  std::string caption = "auto";  // "" = none; "auto" = the view and its parameters
  bool progress = false;
  std::string numberOptions;   // the real-valued options given ("--factor 2 --q"), for error messages
  std::optional<std::string> sizeText;   // --size WxH as given (the averaged picture's size), unparsed
  std::optional<std::string> layerType;  // --layer-type KIND as given, unparsed
  // axial-angles, axial-scores (--grid) and nope-temperature (app/cli/views/axial.cpp)
  int gridRows = 16, gridCols = 16;
  AttnTemperatureParams temperature;
  double learnedStd = 0.0;      // learned --std: the seeded table's N(0, std^2)
  // order-attention, nope-counting (app/cli/views/order.cpp), rope-outputs (app/cli/views/attention.cpp)
  std::string shuffledText;
  int orderMatrix = 0;          // params::order::kMatrix's index
  bool toyHead = false;         // nope-counting --toy-head
  bool rotateValues = false;    // rope-outputs --rotate-v
  // example (app/cli/views/example.cpp): a worked example's step picture
  std::string exampleName;
  int exampleStep = 1;   // from 1
};

struct Dataset {
  std::vector<std::int64_t> shape;  // of the .npy array
  Grid grid;                        // float32 values, rows x cols (3-D data as (d0*d1) x d2)
  std::vector<double> exact;        // float64 values when computed in double (same order); else empty
  nlohmann::json document;          // .json: complete when jsonComplete, else values are added from the data
  bool jsonComplete = false;
  std::vector<std::string> columnNames;    // .csv as a table with a header ...
  std::vector<std::vector<double>> columns;  // ... of these columns, written as they are
  std::vector<std::string> csvComments;  // .csv as a matrix: '#' lines
  std::string rowTitle = "row", colTitle = "col", valueName;
  // Pictures: the grid indices at the ends of each axis when they are not 0 .. rows - 1 (a
  // --position offset, a --size picture of a larger grid); empty: the picture's own.
  std::string rowFirst, rowLast, colFirst, colLast;
  bool isAngle = false;
  std::string caption;              // the parameters, for --caption auto
  bool allowNegativeInfinity = false;  // masked cells (-inf) are data, not an overflow
  bool skipFiniteCheck = false;        // a loaded table is exported as it is
  bool int32Values = false;            // ids (t5-buckets): .npy '<i4' and .json dtype "int32"; grid holds them exactly
  // Pictures: the colour scale's ends when not the values' own: a min, max or RMS picture is
  // coloured over its grid's range, so an envelope of all 1 reads as the top of [-1, 1].
  std::optional<ValueRange> colorRange;
};

// The export options every view takes, then each view's own (app/cli/view_table.hpp).
const std::vector<OptionSpec>& optionSpecs();
const OptionSpec& specOf(const std::string& name);
extern const std::vector<std::string> kCommonOptions;

// args: after "export VIEW". Checks every option against the view's list and range; reads
// --config/--preset; the result is ready to compute. Throws UsageError.
Request parseRequest(const ViewDef& view, const ParsedOptions& o);
// Throws UsageError / std::invalid_argument when the result would not fit the memory budget.
void requireResultBudget(const Request& r);
// Refuses a missing or unwritable directory, or a directory as the output (RuntimeFailure/UsageError).
void checkOutputPath(const std::string& path);
// Writes d to r.output in r.format. Refuses non-finite results (UsageError) before writing.
void writeDataset(const Request& r, const Dataset& d, const ExportProgress& progress);
// The view's numbers with its caption in words, ready for writeDataset (app/cli/cli.cpp).
Dataset computeDataset(const Request& r, const ExportProgress& progress);
// How a .png or .svg draws d: colour scale over d's values, cell scale, titles, caption.
PngOptions pictureOptions(const Request& r, const Dataset& d);

// Helpers the view definitions share.
int evenDim(const std::string& flag, const std::string& text, long long max = kMaxHeadDim);
std::uint64_t checkedProduct(std::initializer_list<std::uint64_t> factors);
nlohmann::json ropeParamsJson(const RopeParams& p);
// A view's rows of a grid as nested JSON arrays.
nlohmann::json gridRowsJson(const Grid& g);
// "the model uses RoPE, but view alibi-bias needs an ALiBi model".
[[noreturn]] void modelMismatch(const Request& r, const ModelConfig& m, const std::string& source, const char* needs);

}  // namespace posviz::cli
