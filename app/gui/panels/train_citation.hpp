// train_citation.hpp: what the Train tab measured, cited on the tabs that state the documents'
// claims about training (Extrapolation, Compare), whatever those tabs show themselves.
//
// The Train tab's finished runs are summarised once per change (a run finishing, a new Start or
// Load), not every frame: refreshTrainCitation (panel_train.hpp) compares the session and its
// count of finished runs with what the citation was built from.
#pragma once

#include <map>
#include <string>

#include "core/train/config.hpp"

namespace posviz::app {

struct TrainCitation {
  const void* session = nullptr;  // the Train tab's session it summarises
  int finished = -1;              // that session's finished runs when summarised
  // "copy, trained at L = 16, 3 seeds x 2000 steps"; "" while no run has finished.
  std::string setup;
  // Mean accuracy over the finished seeds: "1x 1.00, 2x 0.71, 4x 0.12" ("no row" past a learned
  // table). Only the schemes that were trained.
  std::map<train::PositionScheme, std::string> cells;
};

// One table cell: the scheme's measured accuracies with the setup in its tooltip; "not trained"
// (with how to train it) when the run has no such scheme or nothing has finished.
void drawTrainCitationCell(const TrainCitation& c, train::PositionScheme scheme);

// The title of the cells' row or column ("measured (Train tab)"), with what they are, or how to
// get them, in its tooltip.
void drawTrainCitationTitle(const TrainCitation& c);

}  // namespace posviz::app
