// video.hpp: frames of one size as an MP4 (H.264, libx264) or a WebM (VP9, libvpx) video,
// encoded with Debian's libavcodec and muxed with libavformat into memory, for an atomic write.
//
//   std::vector<std::uint8_t> mp4 = encodeVideo(frames, 30.0, VideoFormat::Mp4);
//
// The frames' RGB becomes YUV 4:2:0 (BT.601, as libswscale converts by default); a frame of odd
// width or height is padded by one pixel of its own edge, since 4:2:0 needs even sides. Quality
// is set for sharp heatmaps and text (x264 CRF 16, VP9 CRF 24), one encoder thread, so the same
// frames give the same bytes. Throws std::invalid_argument on no frames or frames of unequal
// size, std::runtime_error when the codec is missing or encoding fails.
//
// The browser build has no libav: there videoAvailable() is false and encodeVideo throws
// std::runtime_error(kVideoUnavailable) at once, before looking at the frames.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/export.hpp"

namespace posviz::cli {

enum class VideoFormat { Mp4, WebM };

// What encodeVideo says where this build has no video encoder.
inline constexpr char kVideoUnavailable[] =
    "video export (.mp4, .webm) needs the libav libraries, which the browser build does not have: export a .gif instead";

// Whether this build encodes video: false in the browser build. On the desktop true; the libav
// libraries are opened at the first video export, and encodeVideo says so if one is missing.
bool videoAvailable();

std::vector<std::uint8_t> encodeVideo(const std::vector<RgbImage>& frames, double fps, VideoFormat format);
// The same, frame by frame into `out`, which must be seekable (an MP4's index is written last).
std::unique_ptr<FrameWriter> videoWriter(std::ostream& out, int width, int height, double fps, VideoFormat format);

}  // namespace posviz::cli
