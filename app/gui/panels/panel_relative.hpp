// panel_relative.hpp: the "Relative & more" view. State is a plain struct owned by AppState.
//
// T5's relative buckets (the bucket grid of j - i, a seeded per-head bias table and the bias it
// gives one head), KERPLE, FIRE and ALiBi bias grids side by side on one colour scale, and the
// decay xPos adds to RoPE's score curve. Every number comes from core (relative_bias, kerple,
// fire, alibi, rope, xpos, txl_relative), and Transformer-XL's four score terms along one query
// row beside the xPos curves. The panel recomputes when a widget changes, never every frame.
#pragma once

#include "app/gui/base/config_notes.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/gui/base/panel_def.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/cli/scheme_params.hpp"
#include "app/gui/widgets/heatmap.hpp"
#include "app/gui/widgets/worker.hpp"
#include "core/fire.hpp"

namespace posviz::app {

// Defaults and ranges of every parameter: cli::params::relative, t5, alibi, kerple, fire, rope,
// xpos and txl (app/cli/params/relative.hpp).
inline int relativeDefault(const cli::Param& p) { return static_cast<int>(p.defaultInt()); }

struct RelativePanelState {
  bool dirty = true;                 // recompute on the next frame

  // T5 buckets
  int numPositions = relativeDefault(cli::params::relative::kTabPositions);   // T of every grid
  int numBuckets = relativeDefault(cli::params::t5::kNumBuckets);             // odd: split as HF does (N // 2 a side)
  int maxDistance = relativeDefault(cli::params::t5::kMaxDistance);           // > the exact range
  bool t5Causal = false;             // decoder buckets (only the past counts)
  int t5Heads = relativeDefault(cli::params::t5::kHeads);                     // columns of the bias table
  int t5Seed = relativeDefault(cli::params::t5::kSeed);
  int t5Head = relativeDefault(cli::params::t5::kHead) - 1;                   // 0-based, the head shown

  // Bias comparison (causal, as the three papers use them)
  double alibiSlope = cli::params::alibi::kRelativeTabSlope.def;   // ALiBi m
  bool sharedScale = true;           // the three grids on one colour scale (else each its own)
  bool kerplePower = false;          // log or power kernel
  double kerpleR1 = KerpleParams{}.r1, kerpleR2 = KerpleParams{}.r2;
  double fireC = FireParams{}.c, fireThreshold = FireParams{}.threshold;
  int fireHidden = kFireHidden;
  int fireSeed = relativeDefault(cli::params::fire::kSeed);
  FireMlp fireMlp;                   // fireSeededMlp(fireHidden, fireSeed)

  // xPos on RoPE
  int headDim = relativeDefault(cli::params::rope::kHeadDim);   // even
  double ropeBase = RopeParams{}.base;
  double scaleBase = XposParams{}.scaleBase;
  int maxOffset = relativeDefault(cli::params::xpos::kMaxOffset);   // distances 0 .. maxOffset

  // Transformer-XL: the four terms of one query row (seeded weights and embeddings)
  int txlQuery = relativeDefault(cli::params::txl::kQuery);     // query i, 0 .. numPositions - 1
  int txlDModel = relativeDefault(cli::params::txl::kDModel);   // even
  int txlDHead = relativeDefault(cli::params::txl::kDHead);
  int txlSeed = relativeDefault(cli::params::txl::kSeed);

  // Which grid File > Export writes (cli::params::relative::kTabExport: each choice is a view's name)
  int exportGrid = relativeDefault(cli::params::relative::kTabExport);

  // Derived
  Grid buckets, biasTable, t5Bias;
  Grid kerple, fire, alibi;
  ValueRange biasRange;              // one colour scale over KERPLE, FIRE and ALiBi
  std::vector<double> offsets, ropeScore, xposScore, xposEnvelope;
  // xPos per side over a torchscale call of maxOffset + 1 tokens: positions n and the query and
  // key scales of pair 0 (the strongest decay) and the last pair (the weakest).
  bool xposShowSides = false;
  std::vector<double> xposPositions, xposQueryFirst, xposKeyFirst, xposQueryLast, xposKeyLast;
  std::vector<double> txlKeys;                   // j = 0 .. numPositions - 1
  std::vector<double> txlTerm[4], txlTotal;      // (a), (b), (c), (d) and their sum at (txlQuery, j)
  HeatmapState bucketMap, tableMap, t5BiasMap, kerpleMap, fireMap, alibiMap;
  HeatmapImage bucketImage, tableImage, t5BiasImage, kerpleImage, fireImage, alibiImage;
  long long version = 0;
  int viewPositions = 0;             // grid size the heatmap views were set up for
  // What each section was last computed from (a hash of its inputs): a drag recomputes only the
  // section whose inputs moved (a FIRE c drag leaves T5, xPos and Transformer-XL alone).
  // FIRE's grid (an MLP a cell: ~10 ms at T = 256) has its own key and, in the window, its own
  // worker: a drag of c keeps the last FIRE picture on screen until the next is ready.
  std::uint64_t t5Key = 0, biasKey = 0, fireKey = 0, xposKey = 0, txlKey = 0;
  AsyncResult<Grid> fireJob;
  std::string error;
  double computeMs = 0.0;
};

void drawRelativePanel(RelativePanelState& s, AppContext& ctx);
// A T5 config (File > Open config, the Model tab's Open): its buckets, max distance and heads.
void applyRelativePanelConfig(RelativePanelState& s, const cli::ModelConfig& c, ConfigNotes& notes);

// Recomputes when dirty. Exposed for tests.
// Recomputes what moved, at once (tests). The window's path makes FIRE's grid on a worker.
void updateRelativePanel(RelativePanelState& s);

// Settings kept between runs (unknown or out-of-range values are ignored). For the panels table.
void saveRelativePanel(const RelativePanelState& s, nlohmann::json& j);
void loadRelativePanel(RelativePanelState& s, const nlohmann::json& j);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kRelativePanel;

}  // namespace posviz::app
