#include "app/cli/view_call.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "app/cli/cli.hpp"
#include "app/cli/export.hpp"
#include "app/cli/view_table.hpp"

namespace posviz::cli {

ViewCall& ViewCall::set(const Param& p, double value) {
  if (p.kind == ParamKind::Text || p.kind == ParamKind::Switch) throw std::logic_error(std::string(p.flag) + ": not a number");
  numbers.emplace_back(&p, value);
  return *this;
}

ViewCall& ViewCall::set(const Param& p, std::string text) {
  if (p.kind != ParamKind::Text) throw std::logic_error(std::string(p.flag) + ": not a text parameter");
  texts.emplace_back(&p, std::move(text));
  return *this;
}

ViewCall& ViewCall::on(const Param& p, bool enabled) {
  if (p.kind != ParamKind::Switch) throw std::logic_error(std::string(p.flag) + ": not a switch");
  if (enabled) switches.push_back(&p);
  return *this;
}

namespace {

std::string valueText(const Param& p, double v) {
  if (p.kind == ParamKind::Choice) return std::string(p.choiceName(static_cast<int>(v)));
  if (p.isInteger() || (v == std::floor(v) && std::abs(v) < 9.0e15)) return std::to_string(static_cast<long long>(v));
  return formatNumber(v);   // shortest text that reads back as the same double
}

void requireOption(const ViewDef& v, const Param& p) {
  const std::string flag(p.flag);
  if (flag.empty() || std::find(v.options.begin(), v.options.end(), flag) == v.options.end()) {
    throw std::logic_error("view " + v.name + " takes no option " + (flag.empty() ? std::string(p.key) : flag));
  }
}

}  // namespace

std::vector<std::string> exportCallArguments(const ViewCall& c, const std::string& path, const PictureChoice& picture,
                                             bool isPicture) {
  const ViewDef* v = findView(c.view);
  if (v == nullptr || v->name != c.view) throw std::logic_error("no view " + c.view + " in the view table");
  std::vector<std::string> args = {c.view};
  for (const auto& [p, value] : c.numbers) {
    requireOption(*v, *p);
    args.insert(args.end(), {std::string(p->flag), valueText(*p, value)});
  }
  for (const auto& [p, text] : c.texts) {
    requireOption(*v, *p);
    args.insert(args.end(), {std::string(p->flag), text});
  }
  for (const Param* p : c.switches) {
    requireOption(*v, *p);
    args.emplace_back(p->flag);
  }
  if (isPicture) {
    // Pictures are decorated and readably scaled by default; only departures are spelled out.
    if (picture.colormap) args.insert(args.end(), {"--colormap", colormapName(*picture.colormap)});
    if (picture.cellScale > 0) args.insert(args.end(), {"--scale", std::to_string(picture.cellScale)});
    if (!picture.colorbar) args.emplace_back("--no-colorbar");
    if (!picture.axisTitles) args.emplace_back("--no-axis-titles");
    if (!picture.caption) args.emplace_back("--no-caption");
  }
  args.insert(args.end(), {"-o", path});
  return args;
}

void exportCall(const ViewCall& c, const std::string& path, const PictureChoice& picture, bool isPicture) {
  exportWithArguments(exportCallArguments(c, path, picture, isPicture));
}

}  // namespace posviz::cli
