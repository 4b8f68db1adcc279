#include "core/angle.hpp"
#include "core/mrope.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include "core/context_extension.hpp"

namespace posviz {

namespace {

constexpr long long kMaxTokens = std::numeric_limits<int>::max();

void requirePositive(const char* fn, const std::string& what, int v) {
  if (v < 1) throw std::invalid_argument(std::string(fn) + ": " + what + " must be >= 1, got " + std::to_string(v));
}

}  // namespace

MropePositions mropePositionIds(const std::vector<MropeSegment>& segments) {
  const char* fn = "mropePositionIds";
  MropePositions ids;
  long long next = 0;  // the id the next segment starts at
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const MropeSegment& g = segments[s];
    const std::string where = "segments[" + std::to_string(s) + "].";
    long long count = 0;
    if (!g.image) {
      requirePositive(fn, where + "numTokens", g.numTokens);
      count = g.numTokens;
    } else {
      requirePositive(fn, where + "gridT", g.gridT);
      requirePositive(fn, where + "gridH", g.gridH);
      requirePositive(fn, where + "gridW", g.gridW);
      count = static_cast<long long>(g.gridT) * g.gridH * g.gridW;
    }
    if (static_cast<long long>(ids.t.size()) + count > kMaxTokens) {
      throw std::invalid_argument(std::string(fn) + ": segments: more than " + std::to_string(kMaxTokens) + " tokens");
    }
    if (!g.image) {
      for (long long i = 0; i < count; ++i) {
        ids.t.push_back(next + i);
        ids.h.push_back(next + i);
        ids.w.push_back(next + i);
      }
      next += count;
      continue;
    }
    // get_rope_index: t_index, h_index, w_index over the merged grid, + st_idx, in (t, h, w) order.
    for (int k = 0; k < g.gridT; ++k) {
      for (int i = 0; i < g.gridH; ++i) {
        for (int j = 0; j < g.gridW; ++j) {
          ids.t.push_back(next + k);
          ids.h.push_back(next + i);
          ids.w.push_back(next + j);
        }
      }
    }
    next += std::max({g.gridT, g.gridH, g.gridW});
  }
  return ids;
}

std::vector<MropeAxis> mropePairAxes(const std::vector<int>& section, bool interleaved) {
  const char* fn = "mropePairAxes";
  if (section.size() != 3) {
    throw std::invalid_argument(std::string(fn) + ": section must have 3 entries (t, h, w), got " + std::to_string(section.size()));
  }
  for (std::size_t a = 0; a < 3; ++a) {
    if (section[a] < 0) {
      throw std::invalid_argument(std::string(fn) + ": section[" + std::to_string(a) + "] must be >= 0, got " + std::to_string(section[a]));
    }
  }
  const int pairs = section[0] + section[1] + section[2];
  std::vector<MropeAxis> axes(static_cast<std::size_t>(pairs), MropeAxis::T);
  for (int i = 0; i < pairs; ++i) {
    if (interleaved) {
      if (i % 3 == 1 && i < 3 * section[1]) axes[static_cast<std::size_t>(i)] = MropeAxis::H;
      if (i % 3 == 2 && i < 3 * section[2]) axes[static_cast<std::size_t>(i)] = MropeAxis::W;
    } else if (i >= section[0]) {
      axes[static_cast<std::size_t>(i)] = i < section[0] + section[1] ? MropeAxis::H : MropeAxis::W;
    }
  }
  return axes;
}

Grid mropeAngleGrid(const RopeParams& p, const std::vector<int>& section, bool interleaved, const MropePositions& ids) {
  const char* fn = "mropeAngleGrid";
  validateRope(fn, p);
  const std::vector<MropeAxis> axes = mropePairAxes(section, interleaved);
  const int pairs = ropeNumPairs(p);
  if (static_cast<int>(axes.size()) != pairs) {
    throw std::invalid_argument(std::string(fn) + ": section sums to " + std::to_string(axes.size()) + " pairs, expected " +
                                std::to_string(pairs) + " (rotary dims / 2)");
  }
  if (ids.h.size() != ids.t.size() || ids.w.size() != ids.t.size() || ids.t.size() > static_cast<std::size_t>(kMaxTokens)) {
    throw std::invalid_argument(std::string(fn) + ": ids: t, h and w must have the same length (<= 2^31 - 1)");
  }
  const std::vector<double> invFreq = ropeFrequencies(p).invFreq;
  const int tokens = static_cast<int>(ids.t.size());
  Grid g(tokens, pairs);
  for (int r = 0; r < tokens; ++r) {
    const std::size_t row = static_cast<std::size_t>(r);
    const long long byAxis[3] = {ids.t[row], ids.h[row], ids.w[row]};
    for (int i = 0; i < pairs; ++i) {
      const double pos = static_cast<double>(byAxis[static_cast<int>(axes[static_cast<std::size_t>(i)])]);
      const double a = wrapAngle(pos * invFreq[static_cast<std::size_t>(i)]);
      g.values[row * static_cast<std::size_t>(pairs) + static_cast<std::size_t>(i)] = static_cast<float>(a);
    }
  }
  return g;
}

}  // namespace posviz
