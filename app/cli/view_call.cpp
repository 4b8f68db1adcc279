#include "app/cli/view_call.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

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

namespace {

// A parameter's value as a caption says it: "10000", "half-split", "0.5".
std::string captionValue(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "on" : "off";
  if (v.is_number_float()) return formatNumber(v.get<double>());
  return v.dump();
}

// The caption in words: what the view shows (its summary up to the first aside), then the
// parameters its table lists, by their labels, as the document states them:
// "score grid s(m, n) = <R_m q, R_n k> for fixed q and k: head_dim 128, base 10000, pairing
// half-split, positions T 256". A view without table parameters names its document's numbers.
}  // namespace

std::string captionInWords(const ViewDef& v, const nlohmann::json& params) {
  std::string what = v.summary;
  for (const char* aside : {" (", ". ", "; ", ": "}) {
    const std::size_t at = what.find(aside);
    if (at != std::string::npos && at > 0) what.resize(at);
  }
  if (!what.empty() && what.back() == '.') what.pop_back();
  std::string values;
  const auto add = [&values](const std::string& text) { values += (values.empty() ? "" : ", ") + text; };
  for (const Param* p : v.params) {
    std::string key(p->key);
    if (!params.contains(key) && p->flag.size() > 2) {   // the document's name of it: --d-model -> d_model
      key = std::string(p->flag.substr(2));
      std::replace(key.begin(), key.end(), '-', '_');
    }
    const auto it = params.find(key);
    if (it == params.end() || it->is_object() || it->is_array() || it->is_null()) continue;
    if (p->kind == ParamKind::Switch) {
      if (it->is_boolean() && it->get<bool>()) add(std::string(p->label));
      continue;
    }
    add(std::string(p->label) + " " + captionValue(*it));
  }
  if (values.empty()) {
    for (const auto& [key, value] : params.items()) {
      if (!value.is_object() && !value.is_array() && !value.is_null()) add(key + " " + captionValue(value));
    }
  }
  if (what.empty()) what = v.name;
  return values.empty() ? what : what + ": " + values;
}


std::string callCaption(const ViewCall& c) {
  const ViewDef* v = findView(c.view);
  if (v == nullptr) return c.view;
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [p, value] : c.numbers) {
    if (p->kind == ParamKind::Choice) params[std::string(p->key)] = std::string(p->choiceName(static_cast<int>(value)));
    else if (p->isInteger()) params[std::string(p->key)] = static_cast<long long>(value);
    else params[std::string(p->key)] = value;
  }
  for (const auto& [p, text] : c.texts) params[std::string(p->key)] = text;
  for (const Param* p : c.switches) params[std::string(p->key)] = true;
  return captionInWords(*v, params);
}

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
    if (picture.textScale != 1.0f) args.insert(args.end(), {"--text-scale", formatNumber(static_cast<double>(picture.textScale))});
  }
  args.insert(args.end(), {"-o", path});
  return args;
}

void exportCall(const ViewCall& c, const std::string& path, const PictureChoice& picture, bool isPicture) {
  exportWithArguments(exportCallArguments(c, path, picture, isPicture));
}

}  // namespace posviz::cli
