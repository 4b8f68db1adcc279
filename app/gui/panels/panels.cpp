// panels.cpp: the panel list. Each tab's entry (draw, apply a config, save, load) is defined in
// its panel file; this file only lists them.
#include "app/gui/panels/panels.hpp"

#include <mutex>
#include <stdexcept>
#include <string>

#include "app/cli/tabs.hpp"

namespace posviz::app {

namespace {

// The tabs, one entry each; their order, names and titles are the vocabulary's (app/cli/tabs.hpp).
const PanelDef* const kPanelList[] = {&kLearnPanel,    &kSinusoidalPanel,       &kLearnedPanel,       &kRopePanel,
                                      &kContextExtensionPanel, &kImagePanel,    &kAlibiPanel,         &kRelativePanel,
                                      &kExamplesPanel, &kComparePanel,          &kPipelinePanel,      &kOrderPanel,
                                      &kExtrapolationPanel,    &kModelPanel, &kTrainPanel};

std::vector<PanelInfo> buildPanels() {
  std::vector<PanelInfo> out;
  for (const cli::TabDef& tab : cli::tabs()) {
    const PanelDef* def = nullptr;
    for (const PanelDef* candidate : kPanelList)
      if (tab.name == candidate->name) def = candidate;
    if (def == nullptr) throw std::logic_error("panels: tab \"" + tab.name + "\" has no entry in the panel list");
    out.push_back({tab.name.c_str(), tab.title.c_str(), tab.summary.c_str(), def});
  }
  return out;
}

}  // namespace

ConfigNotes applyModelConfig(AppState& a, const cli::ModelConfig& config) {
  ConfigNotes notes;
  for (const PanelInfo& p : panels())
    if (p.def->applyConfig != nullptr) p.def->applyConfig(a, config, notes);
  return notes;
}

const std::vector<PanelInfo>& panels() {
  static const std::vector<PanelInfo> kPanels = buildPanels();
  return kPanels;
}

int findPanel(std::string_view name) {
  const cli::TabDef* tab = cli::findTab(name);
  if (tab == nullptr) return -1;
  const auto& t = panels();
  for (std::size_t i = 0; i < t.size(); ++i)
    if (tab->name == t[i].name) return static_cast<int>(i);
  return -1;
}

void openLearnedTableFile(AppState& a, const std::string& path) {
  openLearnedSource(a.learned, path);
  a.requestedPanel = findPanel("learned");
}

TrainProgress trainProgress(const AppState& a) {
  TrainProgress p;
  const TrainSession* t = a.train.session.get();
  if (!t) return p;
  for (const auto& job : t->jobs()) {
    std::lock_guard lock(job->mutex);
    p.finished += job->status == TrainJobStatus::Done;
  }
  p.runs = static_cast<int>(t->jobs().size());
  p.progress = t->progress();
  return p;
}

}  // namespace posviz::app
