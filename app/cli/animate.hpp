// animate.hpp: `posviz export VIEW --animate NAME=FROM:TO [--frames N] [--fps F] -o FILE.gif|.mp4|.webm`.
//
// The view is computed at N values of one of its own numeric options (--position, --base,
// --factor, --heads, ...), FROM to TO evenly spaced (rounded to whole numbers for an integer
// option, to even ones for a dimension, and for an option outside the parameter table when FROM
// and TO are whole),
// each frame drawn as the view's .png picture is, all frames on one colour range so that a colour
// means the same value throughout, and written as a looping GIF with giflib (each frame's own
// palette: its 256 most frequent colours exactly, the rarest mapped to the nearest of them), or
// as a video (video.hpp: .mp4 H.264, .webm VP9) for slides that play video.
//
//   posviz export rope-scores --animate position=0:64 --frames 65 --fps 10 -o slide.gif
//   posviz export alibi-bias --animate heads=1:16 --frames 16 --fps 4 -o heads.gif
//
// NAME is the option without its dashes ("pos" is short for position). Every frame's options
// are checked as a single export's would be, before any work: a frame that would be refused
// names its value. The GIF's delay is a whole number of hundredths of a second (the format's
// unit): --fps 30 gives 3/100 s per frame, and the help and the closing message say so; a video
// keeps the rate exactly.
// Errors: UsageError (exit 2) for the options, RuntimeFailure (exit 1) for I/O.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/export.hpp"

namespace posviz::cli {

struct ViewDef;

constexpr int kMaxAnimationFrames = 1000;

struct AnimationPlan {
  std::string flag;                   // "--position"
  double from = 0.0, to = 0.0;
  int step = 0;                       // 0: any real; 1: whole numbers; 2: even numbers (dimensions)
  int frames = 60;
  double fps = 30.0;
  std::string output;                 // the .gif, .mp4 or .webm
  std::vector<std::string> viewArgs;  // the view's other options (no -o, --animate, --frames, --fps, flag)

  double valueAt(int frame) const;
  std::string valueText(int frame) const;                 // as it is passed to the flag
  std::vector<std::string> frameArgs(int frame) const;    // viewArgs + flag value + -o <output>.png
  int delayCentiseconds() const;                          // round(100 / fps), at least 1
  bool isGif() const;
  // "16 frames, 3/100 s each (33.3 frames per second), 0.48 s in all" (a GIF);
  // "16 frames at 30 frames per second, 0.533 s in all" (a video).
  std::string summary() const;
};

// True when args (after the view name) ask for an animation: --animate, --frames or --fps.
bool wantsAnimation(const std::vector<std::string>& args);
// Reads --animate, --frames, --fps and -o from args (after the view name); checks the first and
// last frames' options as exports. Throws UsageError.
AnimationPlan parseAnimation(const ViewDef& view, const std::vector<std::string>& args);
// Computes every frame and writes the GIF atomically; progress over both passes.
void writeAnimation(const ViewDef& view, const AnimationPlan& plan, const ExportProgress& progress = {});

// Frames of one size (width x height) as a looping GIF89a, each with its own 256-colour palette
// (a frame of at most 256 colours is kept exactly).
// Throws std::runtime_error when giflib fails, std::invalid_argument on frames of unequal size.
std::vector<std::uint8_t> encodeGif(const std::vector<RgbImage>& frames, int delayCentiseconds);
// The same, frame by frame into `out` (writeAnimation's way: one frame held at a time).
std::unique_ptr<FrameWriter> gifWriter(std::ostream& out, int width, int height, int delayCentiseconds);

}  // namespace posviz::cli
