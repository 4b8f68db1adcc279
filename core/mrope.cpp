#include "core/angle.hpp"
#include "core/mrope.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include "core/check.hpp"
#include "core/context_extension.hpp"

namespace posviz {

namespace {

constexpr long long kMaxTokens = std::numeric_limits<int>::max();

void requireAtLeastOne(const char* fn, const std::string& what, int v) {
  if (v < 1) throw std::invalid_argument(std::string(fn) + ": " + what + " must be >= 1, got " + std::to_string(v));
}

struct MergedGrid {
  int t = 1, h = 1, w = 1;
  long long patches() const { return static_cast<long long>(t) * h * w; }
};

void validateOptions(const char* fn, const MropeIndexOptions& o) {
  requireAtLeastOne(fn, "options.spatialMerge", o.spatialMerge);
  requireAtLeast(fn, "options.tokensPerSecond", o.tokensPerSecond, 0.0);
  requireNonNegativeInt(fn, "options.timestampTokens", o.timestampTokens);
}

// get_rope_index's llm_grid_t, llm_grid_h, llm_grid_w: the processor's grid over the merge size.
MergedGrid mergedGrid(const char* fn, const std::string& where, const MropeSegment& g, int merge) {
  requireAtLeastOne(fn, where + "gridT", g.gridT);
  requireAtLeastOne(fn, where + "gridH", g.gridH);
  requireAtLeastOne(fn, where + "gridW", g.gridW);
  for (const auto& [name, side] : {std::pair<const char*, int>{"gridH", g.gridH}, {"gridW", g.gridW}}) {
    if (side % merge != 0) {
      throw std::invalid_argument(std::string(fn) + ": " + where + name + " " + std::to_string(side) +
                                  " is not a multiple of the spatial merge size " + std::to_string(merge) +
                                  " (a processor's grids always are)");
    }
  }
  if (g.kind == MropeSegmentKind::Video) requireAtLeast(fn, (where + "secondsPerGrid").c_str(), g.secondsPerGrid, 0.0);
  return {g.gridT, g.gridH / merge, g.gridW / merge};
}

// Tokens a segment adds: Frames writes a timestamp, vision start and vision end around each frame.
long long segmentTokens(const MropeSegment& g, const MergedGrid& m, const MropeIndexOptions& o) {
  if (g.kind == MropeSegmentKind::Text) return g.numTokens;
  if (g.kind == MropeSegmentKind::Video && o.rule == MropeIndexRule::Frames) {
    return static_cast<long long>(m.t) * (static_cast<long long>(m.h) * m.w + o.timestampTokens + 2);
  }
  return m.patches();
}

// t_k of merged grid step k (see the header).
long long timeStep(const MropeSegment& g, int k, const MropeIndexOptions& o) {
  if (o.rule != MropeIndexRule::Seconds) return k;
  if (g.kind != MropeSegmentKind::Video) return 0;  // second_per_grid_t = 0 for images
  const double t = static_cast<double>(k) * std::trunc(g.secondsPerGrid) * o.tokensPerSecond;
  if (t > static_cast<double>(kMaxTokens)) {
    throw std::invalid_argument("mropePositionIds: a video's time id " + std::to_string(t) + " is over 2^31 - 1");
  }
  return static_cast<long long>(t);  // .long() truncates
}

struct IdWriter {
  MropePositions ids;
  long long next = 0;  // 1 + the largest id so far: where the next block starts
  void text(long long count) {
    for (long long i = 0; i < count; ++i) {
      ids.t.push_back(next + i);
      ids.h.push_back(next + i);
      ids.w.push_back(next + i);
    }
    next += count;
  }
  // One get_rope_index vision block of frames [k0, k0 + frames) at start id s = next.
  void grid(const MropeSegment& g, const MergedGrid& m, int k0, int frames, const MropeIndexOptions& o) {
    const long long s = next;
    long long top = s + std::max(m.h, m.w) - 1;
    for (int k = k0; k < k0 + frames; ++k) {
      const long long tk = o.rule == MropeIndexRule::Frames && g.kind == MropeSegmentKind::Video ? 0 : timeStep(g, k, o);
      top = std::max(top, s + tk);
      for (int i = 0; i < m.h; ++i) {
        for (int j = 0; j < m.w; ++j) {
          ids.t.push_back(s + tk);
          ids.h.push_back(s + i);
          ids.w.push_back(s + j);
        }
      }
    }
    next = top + 1;
  }
};

}  // namespace

const char* mropeIndexRuleName(MropeIndexRule r) {
  switch (r) {
    case MropeIndexRule::Steps: return "steps";
    case MropeIndexRule::Seconds: return "seconds";
    case MropeIndexRule::Frames: return "frames";
  }
  return "steps";
}

long long mropeTokenCount(const std::vector<MropeSegment>& segments, const MropeIndexOptions& options) {
  const char* fn = "mropePositionIds";
  validateOptions(fn, options);
  long long total = 0;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const MropeSegment& g = segments[s];
    const std::string where = "segments[" + std::to_string(s) + "].";
    if (g.kind == MropeSegmentKind::Text) requireAtLeastOne(fn, where + "numTokens", g.numTokens);
    const MergedGrid m = g.vision() ? mergedGrid(fn, where, g, options.spatialMerge) : MergedGrid{};
    total += segmentTokens(g, m, options);
    if (total > kMaxTokens) throw std::invalid_argument(std::string(fn) + ": segments: more than " + std::to_string(kMaxTokens) + " tokens");
  }
  return total;
}

MropePositions mropePositionIds(const std::vector<MropeSegment>& segments, const MropeIndexOptions& options) {
  const std::size_t tokens = static_cast<std::size_t>(mropeTokenCount(segments, options));
  IdWriter out;
  out.ids.t.reserve(tokens);
  out.ids.h.reserve(tokens);
  out.ids.w.reserve(tokens);
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const MropeSegment& g = segments[s];
    if (!g.vision()) {
      out.text(g.numTokens);
      continue;
    }
    const MergedGrid m = mergedGrid("mropePositionIds", "segments[" + std::to_string(s) + "].", g, options.spatialMerge);
    if (g.kind == MropeSegmentKind::Video && options.rule == MropeIndexRule::Frames) {
      for (int k = 0; k < m.t; ++k) {
        out.text(options.timestampTokens + 1);  // "<x.x seconds>" and vision start
        out.grid(g, m, k, 1, options);
        out.text(1);                            // vision end
      }
    } else {
      out.grid(g, m, 0, m.t, options);
    }
  }
  return out.ids;
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
