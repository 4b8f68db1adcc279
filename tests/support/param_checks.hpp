// param_checks.hpp: what the parameter-table suites share: the checks every Param passes, and a
// view's Request parsed from arguments as `posviz export VIEW ARGS -o out.npy` would parse them.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "app/cli/params.hpp"
#include "app/cli/request.hpp"
#include "app/cli/view_table.hpp"

namespace posviz::test {

// A definition a reader can trust: its default allowed and inside its slider span, help and a
// label to show, and its flag (if any) an option `posviz export` takes.
inline void checkParamDefinition(const cli::Param& p) {
  CAPTURE(p.key);
  CHECK(cli::fitsParam(p, p.def));
  CHECK(p.spanMin() >= p.min);
  CHECK(p.spanMax() <= p.max);
  CHECK_FALSE(p.help.empty());
  CHECK_FALSE(p.label.empty());
  if (!p.flag.empty()) CHECK_NOTHROW(cli::specOf(std::string(p.flag)));
}

inline cli::Request viewRequest(const std::string& view, std::vector<std::string> args) {
  const cli::ViewDef* v = cli::findView(view);
  REQUIRE(v != nullptr);
  args.insert(args.end(), {"-o", "out.npy"});
  return cli::parseRequest(*v, cli::parseOptions(args, cli::optionSpecs()));
}

// The UsageError's message that parsing gives, "" when it parses.
inline std::string viewUsageError(const std::string& view, const std::vector<std::string>& args) {
  try {
    viewRequest(view, args);
  } catch (const cli::UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace posviz::test
