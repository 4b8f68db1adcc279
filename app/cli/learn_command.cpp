#include "app/cli/learn_command.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "app/cli/args.hpp"
#include "app/cli/glossary.hpp"
#include "app/cli/model_config.hpp"
#include "app/cli/preset_schemes.hpp"
#include "app/cli/tabs.hpp"
#include "core/lessons/claims.hpp"
#include "core/lessons/learn.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::cli {

namespace {

using namespace posviz::learn;

void printUsage(std::FILE* to) {
  std::fputs("Usage:\n"
             "  posviz learn [--list]             the chapters and their steps\n"
             "  posviz learn --glossary           every symbol the steps use, one name per concept\n"
             "  posviz learn STEP [--set KEY=VALUE ...]\n"
             "                                    one step: why, what to notice, its figure's numbers, the\n"
             "                                    article's claim and verdict; --set changes a control\n"
             "  posviz --panel learn --step STEP  open the window on that step\n",
             to);
}

std::string listText() {
  std::ostringstream os;
  int n = 0;
  for (const Chapter& c : chapters()) {
    os << c.title << " (" << c.steps.size() << (c.steps.size() == 1 ? " step)\n" : " steps)\n");
    for (const learn::Step& s : c.steps) {
      std::string id = "  " + s.id;
      id.resize(std::max<std::size_t>(20, id.size() + 2), ' ');
      os << id << s.title << "\n";
      ++n;
    }
  }
  os << n << " steps in " << chapters().size() << " chapters\n";
  return os.str();
}

std::string valueText(const Control& c, double v) {
  if (c.kind == ControlKind::Switch) return v >= 0.5 ? "on" : "off";
  if (c.kind == ControlKind::Int) return formatInt(static_cast<long long>(std::llround(v)));
  return formatGeneral(v, 6);
}

void gridText(std::ostringstream& os, const CellGrid& g) {
  os << "  " << g.title << (g.rowTitle.empty() ? "" : " (rows: " + g.rowTitle + ")") << (g.colTitle.empty() ? "" : " (columns: " + g.colTitle + ")") << "\n";
  os << "        ";
  for (int c = 0; c < g.grid.cols; ++c) {
    std::string h = c < static_cast<int>(g.colLabels.size()) ? g.colLabels[static_cast<std::size_t>(c)] : std::to_string(c);
    h.resize(std::max<std::size_t>(9, h.size() + 1), ' ');
    os << h;
  }
  os << "\n";
  for (int r = 0; r < g.grid.rows; ++r) {
    std::string l = r < static_cast<int>(g.rowLabels.size()) ? g.rowLabels[static_cast<std::size_t>(r)] : std::to_string(r);
    l = (r == g.highlightRow ? "> " : "  ") + l;
    l.resize(std::max<std::size_t>(8, l.size() + 1), ' ');
    os << l;
    for (int c = 0; c < g.grid.cols; ++c) {
      const float v = g.grid.at(r, c);
      std::string cell = std::isnan(v) ? (g.noDataLabel.empty() ? "-" : g.noDataLabel) : std::isinf(v) ? "masked" : formatFixed(v, g.decimals);
      cell.resize(std::max<std::size_t>(9, cell.size() + 1), ' ');
      os << cell;
    }
    os << "\n";
  }
}

}  // namespace

learn::Inputs learnInputs() {
  learn::Inputs in;
  for (const std::string& name : presetNames()) {
    const ModelConfig m = loadPreset(name);
    learn::PublishedModel p;
    p.name = name;
    for (Scheme sc : modelSchemes(m).schemes) p.scheme += (p.scheme.empty() ? "" : " + ") + std::string(schemeTitle(sc));
    p.rope = m.encoding == ModelEncoding::Rope;
    p.params = m.rope;
    p.maxPositions = m.maxPositions;
    in.models.push_back(p);
  }
  return in;
}

std::string learnStepText(const std::string& id, const std::vector<double>& values) {
  const auto ref = findStep(id);
  if (!ref) return "";
  const learn::Step& s = ref->get();
  const std::vector<double> v = clampValues(s, values);
  std::ostringstream os;
  os << chapters()[static_cast<std::size_t>(ref->chapter)].title << ", step " << ref->step + 1 << " of "
     << chapters()[static_cast<std::size_t>(ref->chapter)].steps.size() << ": " << s.title << "\n\n";
  os << s.why << "\n\n";
  if (!s.controls.empty()) {
    os << "Controls (--set KEY=VALUE):\n";
    for (std::size_t i = 0; i < s.controls.size(); ++i) {
      const Control& c = s.controls[i];
      os << "  " << c.key << " = " << valueText(c, v[i]) << "   " << c.label;
      if (c.kind != ControlKind::Switch) os << ", " << valueText(c, c.min) << " .. " << valueText(c, c.max);
      if (!c.help.empty()) os << ": " << c.help;
      os << "\n";
    }
    os << "\n";
  }
  const Figure f = stepFigure(s, v, s.figureWith != nullptr ? learnInputs() : learn::Inputs{});
  os << "Figure:\n";
  for (const CellGrid& g : f.grids) gridText(os, g);
  for (const Dial& d : f.dials)
    for (const ClockHand& h : d.hands) os << "  " << d.label << ": hand at " << formatFixed(h.angle, 4) << " rad\n";
  if (f.plane)
    for (const Arrow& a : f.plane->arrows) os << "  " << a.label << ": (" << formatFixed(a.x, 6) << ", " << formatFixed(a.y, 6) << ")\n";
  if (f.plane && !f.plane->arcLabel.empty()) os << "  " << f.plane->arcLabel << "\n";
  if (f.bars)
    for (std::size_t i = 0; i < f.bars->values.size(); ++i) os << "  " << f.bars->labels[i] << ": " << formatGeneral(f.bars->values[i], 6) << "\n";
  if (f.table) {
    os << "  " << f.table->title << "\n";
    std::string h;
    for (const std::string& c : f.table->header) h += (h.empty() ? "" : " | ") + c;
    os << "  " << h << "\n";
    for (const auto& row : f.table->rows) {
      std::string r;
      for (const std::string& c : row) r += (r.empty() ? "" : " | ") + c;
      os << "  " << r << "\n";
    }
  }
  if (f.lines) {
    os << "  " << f.lines->title << ": " << f.lines->xTitle << " against " << f.lines->yTitle << "\n";
    for (const MiniSeries& series : f.lines->series) {
      os << "    " << series.label << ":";
      const std::size_t stride = std::max<std::size_t>(1, series.y.size() / 8);
      for (std::size_t i = 0; i < series.y.size(); i += stride) os << " (" << formatGeneral(series.x[i], 4) << ", " << formatGeneral(series.y[i], 4) << ")";
      os << "\n";
    }
  }
  for (const std::string& r : f.readout) os << "  " << r << "\n";
  os << "\nWhat to notice: " << s.notice << "\n";
  if (s.claim) {
    os << "\nThe article: " << s.claim->article << ", \"" << s.claim->section << "\"\n";
    os << "  says: \"" << s.claim->quote << "\"\n";
    os << "  verdict (" << severityName(s.claim->severity) << "): " << claimVerdict(*s.claim) << "\n";
  }
  if (s.predict) os << "\nPredict: " << s.predict->question << "  (answer: " << formatFixed(s.predict->answer(), s.predict->decimals) << ")\n";
  os << "\nTry this: " << s.tryThis << "\n";
  const TabDef* tab = findTab(s.openTab);
  os << "Deeper: the " << (tab != nullptr ? tab->title : s.openTab) << " tab (posviz --panel " << s.openTab << ")\n";
  return os.str();
}

int runLearnCommand(const std::vector<std::string>& args) {
  if (args.empty() || (args.size() == 1 && args[0] == "--list")) {
    std::fputs(listText().c_str(), stdout);
    return 0;
  }
  if (args.size() == 1 && args[0] == "--glossary") {
    std::fputs(glossaryText().c_str(), stdout);
    return 0;
  }
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    printUsage(stdout);
    return 0;
  }
  if (args[0].starts_with("-")) {
    std::fprintf(stderr, "posviz learn: unknown option %s; options: --list, --glossary, --help, or a STEP id (posviz learn --list)\n", quotedText(args[0]).c_str());
    return 2;
  }
  const auto ref = findStep(args[0]);
  if (!ref) {
    std::fprintf(stderr, "posviz learn: no step named %s; posviz learn --list shows the %d steps\n", quotedText(args[0]).c_str(), stepCount());
    return 2;
  }
  const learn::Step& s = ref->get();
  std::vector<double> values = defaultValues(s);
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] != "--set" || i + 1 >= args.size()) {
      std::fprintf(stderr, "posviz learn: expected --set KEY=VALUE after the step, got %s\n", quotedText(args[i]).c_str());
      return 2;
    }
    const std::string kv = args[++i];
    const std::size_t eq = kv.find('=');
    const std::string key = kv.substr(0, eq);
    std::string keys;
    int index = -1;
    for (std::size_t c = 0; c < s.controls.size(); ++c) {
      keys += (keys.empty() ? "" : ", ") + s.controls[c].key;
      if (s.controls[c].key == key) index = static_cast<int>(c);
    }
    if (eq == std::string::npos || index < 0) {
      std::fprintf(stderr, "posviz learn: step %s has no control %s; its controls: %s\n", s.id.c_str(), quotedText(key).c_str(),
                   keys.empty() ? "none" : keys.c_str());
      return 2;
    }
    const Control& c = s.controls[static_cast<std::size_t>(index)];
    const std::string text = kv.substr(eq + 1);
    double value = 0.0;
    try {   // the same parsers, and so the same messages, as every other flag
      const std::string flag = "--set " + key;
      if (c.kind == ControlKind::Switch)
        value = parseChoiceOption(flag, text, {"on", "off"}) == "on" ? 1.0 : 0.0;
      else if (c.kind == ControlKind::Int)
        value = static_cast<double>(parseIntOption(flag, text, static_cast<long long>(c.min), static_cast<long long>(c.max)));
      else
        value = parseRealOption(flag, text, RealRange{c.min, c.max});
    } catch (const UsageError& e) {
      std::fprintf(stderr, "posviz learn: %s\n", displayMessage(e.what()).c_str());
      return 2;
    }
    values[static_cast<std::size_t>(index)] = value;
  }
  std::fputs(learnStepText(s.id, values).c_str(), stdout);
  return 0;
}

}  // namespace posviz::cli
