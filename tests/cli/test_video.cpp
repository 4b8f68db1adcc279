// app/cli/video.hpp's availability contract: what the GUI asks before it offers .mp4 / .webm, and
// what a build without libav (the browser's) says instead of encoding.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "app/cli/video.hpp"

using namespace posviz::cli;

TEST_CASE("video: the desktop build offers video, and encodes what it offers") {
  REQUIRE(videoAvailable());
  const RgbImage frame{4, 4, std::vector<std::uint8_t>(4 * 4 * 3, 128)};
  for (const VideoFormat f : {VideoFormat::Mp4, VideoFormat::WebM}) {
    CAPTURE(static_cast<int>(f));
    CHECK_FALSE(encodeVideo({frame, frame}, 10.0, f).empty());
  }
}

TEST_CASE("video: a build without video names the formats it lacks and the one to use instead") {
  const std::string message = kVideoUnavailable;
  CHECK(message.find(".mp4") != std::string::npos);
  CHECK(message.find(".webm") != std::string::npos);
  CHECK(message.find(".gif") != std::string::npos);
}
