// panel_relative.hpp: the "Relative & more" view. State is a plain struct owned by AppState.
//
// T5's relative buckets (the bucket grid of j - i, a seeded per-head bias table and the bias it
// gives one head), KERPLE, FIRE and ALiBi bias grids side by side on one colour scale, and the
// decay xPos adds to RoPE's score curve. Every number comes from core (relative_bias, kerple,
// fire, alibi, rope, xpos, txl_relative), and Transformer-XL's four score terms along one query
// row beside the xPos curves. The panel recomputes when a widget changes, never every frame.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/gui/base/panel_def.hpp"
#include "app/gui/base/app_context.hpp"
#include "app/gui/widgets/heatmap.hpp"
#include "core/fire.hpp"

namespace posviz::app {

constexpr double kFireMinC = 0.01, kFireMaxC = 100.0;     // the FIRE c slider
constexpr double kFireMinL = 1.0, kFireMaxL = 65536.0;     // the FIRE L slider (the reference starts at 512)

constexpr int kRelativeMaxPositions = 256;
constexpr int kRelativeMaxHeads = 32;

struct RelativePanelState {
  bool dirty = true;                 // recompute on the next frame

  // T5 buckets
  int numPositions = 48;             // T of every grid, 2 .. kRelativeMaxPositions
  int numBuckets = 32;               // 2 .. 256, even when bidirectional
  int maxDistance = 128;             // > the exact range
  bool t5Causal = false;             // decoder buckets (only the past counts)
  int t5Heads = 8;                   // columns of the bias table
  int t5Seed = 0;
  int t5Head = 0;                    // 0-based, the head whose bias grid is shown

  // Bias comparison (causal, as the three papers use them)
  float alibiSlope = 0.0625f;        // ALiBi m
  bool sharedScale = true;           // the three grids on one colour scale (else each its own)
  bool kerplePower = false;          // log or power kernel
  float kerpleR1 = 1.0f, kerpleR2 = 1.0f;
  double fireC = FireParams{}.c, fireThreshold = FireParams{}.threshold;
  int fireHidden = kFireHidden;
  int fireSeed = 0;
  FireMlp fireMlp;                   // fireSeededMlp(fireHidden, fireSeed)

  // xPos on RoPE
  int headDim = 64;                  // even
  float ropeBase = 10000.0f;
  float scaleBase = 512.0f;
  int maxOffset = 2048;              // distances 0 .. maxOffset

  // Transformer-XL: the four terms of one query row (seeded weights and embeddings)
  int txlQuery = 24;                 // query i, 0 .. numPositions - 1
  int txlDModel = 32;                // even
  int txlDHead = 16;
  int txlSeed = 0;

  // Derived
  Grid buckets, biasTable, t5Bias;
  Grid kerple, fire, alibi;
  ValueRange biasRange;              // one colour scale over KERPLE, FIRE and ALiBi
  std::vector<double> offsets, ropeScore, xposScore, xposEnvelope;
  std::vector<double> txlKeys;                   // j = 0 .. numPositions - 1
  std::vector<double> txlTerm[4], txlTotal;      // (a), (b), (c), (d) and their sum at (txlQuery, j)
  HeatmapState bucketMap, tableMap, t5BiasMap, kerpleMap, fireMap, alibiMap;
  HeatmapImage bucketImage, tableImage, t5BiasImage, kerpleImage, fireImage, alibiImage;
  long long version = 0;
  int viewPositions = 0;             // grid size the heatmap views were set up for
  std::string error;
  double computeMs = 0.0;
};

void drawRelativePanel(RelativePanelState& s, AppContext& ctx);

// Recomputes when dirty. Exposed for tests.
void updateRelativePanel(RelativePanelState& s);

// Settings kept between runs (unknown or out-of-range values are ignored). For the panels table.
void saveRelativePanel(const RelativePanelState& s, nlohmann::json& j);
void loadRelativePanel(RelativePanelState& s, const nlohmann::json& j);

// The tab's entry in the panel list (app/gui/panels/panels.cpp).
extern const PanelDef kRelativePanel;

}  // namespace posviz::app
