#include "app/cli/view_table.hpp"

#include <algorithm>

#include "app/cli/tabs.hpp"

namespace posviz::cli {

const std::vector<ViewDef>& viewTable() {
  static const std::vector<ViewDef> kViews = [] {
    std::vector<ViewDef> all;
    for (auto family : {sinusoidalViews, learnedViews, ropeViews, axialViews, alibiViews, attentionViews, compareViews,
                        extrapolationViews}) {
      std::vector<ViewDef> v = family();
      all.insert(all.end(), v.begin(), v.end());
    }
    for (ViewDef& v : relativeViews()) all.push_back(std::move(v));
    for (ViewDef& v : relativeScoreViews()) all.push_back(std::move(v));
    for (ViewDef& v : exampleViews()) all.push_back(std::move(v));
    for (ViewDef& v : orderViews()) all.push_back(std::move(v));
    attachAveragedViews(all);
    return all;
  }();
  return kViews;
}

const Param* viewParam(const ViewDef& v, std::string_view flag) {
  for (const Param* p : v.params) {
    if (p->flag == flag) return p;
  }
  return nullptr;
}

const ViewDef* findView(std::string_view name) {
  for (const ViewDef& v : viewTable()) {
    if (v.name == name || std::find(v.aliases.begin(), v.aliases.end(), name) != v.aliases.end()) return &v;
  }
  if (const TabDef* tab = findTab(name); tab != nullptr && !tab->mainView.empty()) {
    for (const ViewDef& v : viewTable())
      if (v.name == tab->mainView) return &v;
  }
  return nullptr;
}

std::string viewList() {
  std::string s;
  for (const ViewDef& v : viewTable()) s += (s.empty() ? "" : ", ") + v.name;
  return s;
}

}  // namespace posviz::cli
