// rope_view.hpp: the parts of the RoPE views (views/rope.cpp) that views built on RoPE share:
// mrope-angles (views/mrope.cpp) reads a RoPE model and RoPE flags the same way.
#pragma once

#include <string>
#include <vector>

#include "app/cli/view_table.hpp"

namespace posviz::cli {

// A RoPE view with the RoPE options and parameters, plus `extra` options.
ViewDef ropeView(std::string name, std::string summary, std::string layout, std::vector<std::string> extra);
void ropeModel(Request& r, const ModelConfig& m, const std::string& source);
void ropeParse(Request& r, const ParsedOptions& o);

ViewDef mropeAnglesView();  // views/mrope.cpp

}  // namespace posviz::cli
