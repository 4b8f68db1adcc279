// train_citation.cpp: see train_citation.hpp.
#include "app/gui/panels/train_citation.hpp"

#include <imgui.h>

namespace posviz::app {

void drawTrainCitationCell(const TrainCitation& c, train::PositionScheme scheme) {
  const auto it = c.cells.find(scheme);
  if (it == c.cells.end()) {
    ImGui::TextDisabled("not trained");
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("%s", c.setup.empty() ? "Train it in the Train tab: its accuracy past the trained length appears here."
                                              : "The Train tab's run has no such scheme: tick it there and Start.");
    }
    return;
  }
  ImGui::TextWrapped("%s", it->second.c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Measured in the Train tab: %s. Accuracy at 1x, 2x and 4x L.", c.setup.c_str());
}

void drawTrainCitationTitle(const TrainCitation& c) {
  ImGui::TextWrapped("measured (Train tab)");
  if (!ImGui::IsItemHovered()) return;
  if (c.setup.empty()) {
    ImGui::SetTooltip("Nothing measured yet. Train the schemes in the Train tab: each one's accuracy at 1x, 2x and 4x "
                      "its trained length appears here, next to what the documents say.");
  } else {
    ImGui::SetTooltip("Measured in the Train tab: %s. Mean accuracy over the seeds at 1x, 2x and 4x the trained length L.",
                      c.setup.c_str());
  }
}

}  // namespace posviz::app
