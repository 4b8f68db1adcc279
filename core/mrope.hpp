// mrope.hpp: multimodal RoPE (M-RoPE), Qwen2-VL (Wang et al. 2024, arXiv:2409.12191, section 2.1).
//
// POSITION IDS (HF transformers d6a6c826, each family's get_rope_index)
//   Every token has three position ids (t, h, w). A text token has t = h = w = the running index.
//   A vision segment (an image or a video) starts at s = 1 + the largest id used so far; its grid
//   is given as the processor's image_grid_thw / video_grid_thw (raw patches), and the language
//   model sees T x (H / m) x (W / m) merged patches, m = vision_config.spatial_merge_size. Merged
//   patch (k, i, j) gets (s + t_k, s + i, s + j), with t_k by the family's rule:
//     Steps   (qwen2_vl, paddleocr_vl): t_k = k, for images and videos alike.
//     Seconds (qwen2_5_vl): t_k = int(k * int(second_per_grid) * tokens_per_second) for a video:
//             the pinned code casts second_per_grid to the integer dtype of arange first, so a
//             video sampled faster than one grid per second (0.5 s per grid) gets t_k = 0 for
//             every k; an image has second_per_grid 0, so t_k = 0.
//     Frames  (qwen3_vl, qwen3_vl_moe, glm4v, glm4v_moe, glm46v): a video of T grids becomes T
//             frames of one grid each (video_grid_thw repeated T times with t = 1): the
//             processor writes "<x.x seconds>" (timestampTokens text tokens), vision start, the
//             frame's patches (t_k = 0) and vision end for every frame; text ids run on between.
//   Text runs count every text token the processor leaves, including the vision start and end
//   tokens around an image (and, except under Frames, around a video).
//
// SECTIONS (modeling_qwen2_vl.py apply_multimodal_rotary_pos_emb; Qwen3-VL / Qwen3.5
// apply_interleaved_mrope)
//   mrope_section = {sT, sH, sW} pair counts summing to the rotary pairs. Contiguous: pairs
//   [0, sT) follow t, [sT, sT + sH) follow h, the rest follow w. Interleaved: pair i follows h
//   when i % 3 == 1 and i < 3 sH, w when i % 3 == 2 and i < 3 sW, else t.
//   The angle of pair i for a token is id_axis(i) * theta'_i (theta' after scaling, rope.hpp).
//   For text tokens all three ids agree, so the grid equals ropeAngleGrid.
//
// UNITS / LAYOUT
//   Ids are token indices; angles radians mod 2pi in [0, 2pi); grid rows = tokens, cols = pairs
//   (row-major, values[token * pairs + pair]).
//
// ERRORS
//   std::invalid_argument naming function, parameter and value: a section that does not sum to
//   the rotary pairs or has a negative entry, a segment with a count < 1, a grid side that is not a
//   multiple of the spatial merge size, seconds per grid or tokens per second negative or not
//   finite, more tokens (or ids) than fit an int.
#pragma once

#include <vector>

#include "core/grid.hpp"
#include "core/rope.hpp"

namespace posviz {

enum class MropeSegmentKind { Text, Image, Video };

struct MropeSegment {
  MropeSegmentKind kind = MropeSegmentKind::Text;
  int numTokens = 0;            // text: >= 1
  int gridT = 1;                // image / video grid_thw: time, height, width, each >= 1; H and W
  int gridH = 1;                //   multiples of the spatial merge size
  int gridW = 1;
  double secondsPerGrid = 1.0;  // video: second_per_grid_ts (Seconds rule; HF's default 1.0)
  bool vision() const { return kind != MropeSegmentKind::Text; }
};
inline MropeSegment mropeText(int tokens) { return {.kind = MropeSegmentKind::Text, .numTokens = tokens}; }
inline MropeSegment mropeImage(int t, int h, int w) { return {.kind = MropeSegmentKind::Image, .gridT = t, .gridH = h, .gridW = w}; }
inline MropeSegment mropeVideo(int t, int h, int w, double secondsPerGrid = 1.0) {
  return {.kind = MropeSegmentKind::Video, .gridT = t, .gridH = h, .gridW = w, .secondsPerGrid = secondsPerGrid};
}

enum class MropeIndexRule { Steps, Seconds, Frames };
const char* mropeIndexRuleName(MropeIndexRule r);  // "steps", "seconds", "frames"

struct MropeIndexOptions {
  MropeIndexRule rule = MropeIndexRule::Steps;
  int spatialMerge = 1;          // vision_config.spatial_merge_size, >= 1
  double tokensPerSecond = 1.0;  // vision_config.tokens_per_second (Seconds), finite, >= 0
  int timestampTokens = 6;       // Frames: text tokens of one "<x.x seconds>", >= 0
};

struct MropePositions {
  std::vector<long long> t, h, w;  // one id per token on each axis
};

enum class MropeAxis { T = 0, H = 1, W = 2 };

MropePositions mropePositionIds(const std::vector<MropeSegment>& segments, const MropeIndexOptions& options = {});
// The number of tokens mropePositionIds gives (throws as it does).
long long mropeTokenCount(const std::vector<MropeSegment>& segments, const MropeIndexOptions& options = {});

// The axis each of the sum(section) pairs follows.
std::vector<MropeAxis> mropePairAxes(const std::vector<int>& section, bool interleaved);

// rows = tokens of ids, cols = rotary pairs of p; section must sum to ropeNumPairs(p).
Grid mropeAngleGrid(const RopeParams& p, const std::vector<int>& section, bool interleaved, const MropePositions& ids);

}  // namespace posviz
