// `posviz export VIEW --animate NAME=FROM:TO` (app/cli/animate.hpp): the GIF read back with giflib
// (frames, delays, the loop, the pixels), one colour range over every frame, and every refusal
// with its message, exit 2 and no file.
#include <doctest/doctest.h>

#include <gif_lib.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/animate.hpp"
#include "tests/support/cli_support.hpp"

namespace fs = std::filesystem;
using posviz::test::CliRun;
using posviz::test::runCli;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "cli" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

struct GifCloser {
  void operator()(GifFileType* g) const {
    int e = 0;
    DGifCloseFile(g, &e);
  }
};

struct ReadGif {
  int width = 0, height = 0;
  bool loops = false;
  std::vector<int> delays;                               // hundredths of a second, per frame
  std::vector<std::vector<std::array<int, 3>>> frames;   // RGB per pixel, per frame
};

ReadGif readGif(const fs::path& path) {
  int error = 0;
  std::unique_ptr<GifFileType, GifCloser> g(DGifOpenFileName(path.c_str(), &error));
  REQUIRE(g);
  REQUIRE(DGifSlurp(g.get()) == GIF_OK);
  ReadGif out;
  out.width = g->SWidth;
  out.height = g->SHeight;
  for (int i = 0; i < g->ImageCount; ++i) {
    const SavedImage& im = g->SavedImages[i];
    GraphicsControlBlock gcb;
    REQUIRE(DGifSavedExtensionToGCB(g.get(), i, &gcb) == GIF_OK);
    out.delays.push_back(gcb.DelayTime);
    for (int e = 0; e < im.ExtensionBlockCount; ++e) {
      const ExtensionBlock& b = im.ExtensionBlocks[e];
      if (b.Function == APPLICATION_EXT_FUNC_CODE && b.ByteCount == 11 && std::string(reinterpret_cast<const char*>(b.Bytes), 11) == "NETSCAPE2.0")
        out.loops = true;
    }
    const ColorMapObject* map = im.ImageDesc.ColorMap ? im.ImageDesc.ColorMap : g->SColorMap;
    REQUIRE(map != nullptr);
    std::vector<std::array<int, 3>> px;
    for (int k = 0; k < im.ImageDesc.Width * im.ImageDesc.Height; ++k) {
      const GifColorType c = map->Colors[im.RasterBits[k]];
      px.push_back({c.Red, c.Green, c.Blue});
    }
    out.frames.push_back(std::move(px));
  }
  return out;
}

// exit 2, the message on stderr, and nothing written
void refused(std::vector<std::string> args, const std::string& message) {
  const fs::path dir = scratch("animate_refused");
  for (std::string& a : args)
    if (a == "OUT") a = (dir / "a.gif").string();
  args.insert(args.begin(), "export");
  const CliRun r = runCli(args);
  CAPTURE(r.err);
  CHECK(r.code == 2);
  CHECK(r.err == "posviz export: " + message + "\n");
  CHECK(fs::is_empty(dir));
}

}  // namespace

TEST_CASE("animate: frames are encoded one at a time, so the budget holds for the whole animation") {
  // 120 frames of 363 x 630 pixels hold 82 MiB at 3 bytes a pixel: past a 20 MiB budget if they
  // were held together, within it one frame at a time.
  const fs::path dir = scratch("animate_streamed");
  for (const char* name : {"a.gif", "a.webm"}) {
    const std::string out = (dir / name).string();
    const CliRun r = runCli({"export", "rope-cos", "--head-dim", "16", "--positions", "64", "--animate", "pos=0:119", "--frames", "120",
                             "--budget", "20M", "-o", out});
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    if (std::string(name) == "a.gif") {
      const ReadGif g = readGif(out);
      CHECK(g.frames.size() == 120);
      CHECK(g.width == 363);
      CHECK(g.height == 630);
    } else {
      CHECK(fs::file_size(out) > 1000);
    }
  }
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  CHECK(files == 2);   // no temporary file left beside them
}

TEST_CASE("animate: a swept name holding a line break is escaped in the message, which stays one line") {
  refused({"rope-cos", "--head-dim", "8", "--positions", "8", "--animate", "po\ns=0:7", "-o", "OUT"},
          "--animate po\\x0as=0:7, frame 1 (--po\\x0as 0): unknown option \"--po\\x0as\"");
}

TEST_CASE("animate: a sweep of the first position writes a looping GIF, one frame per position") {
  const fs::path dir = scratch("animate_cos");
  const fs::path gif = dir / "turning.gif", png = dir / "still.png";
  const CliRun r = runCli({"export", "rope-cos", "--head-dim", "16", "--positions", "16", "--animate", "pos=0:15", "-o", gif.string()});
  REQUIRE(r.code == 0);
  CHECK(r.out == "wrote " + gif.string() + ": 16 frames, 3/100 s each (33.3 frames per second), 0.48 s in all\n");
  const ReadGif g = readGif(gif);
  CHECK(g.frames.size() == 16);
  CHECK(g.delays == std::vector<int>(16, 3));   // --fps 30: round(100 / 30) hundredths
  CHECK(g.loops);
  // Each frame is the picture a single export draws: the same size.
  REQUIRE(runCli({"export", "rope-cos", "--head-dim", "16", "--positions", "16", "--position", "7", "-o", png.string()}).code == 0);
  std::ifstream in(png, std::ios::binary);
  std::array<unsigned char, 24> head{};
  in.read(reinterpret_cast<char*>(head.data()), head.size());
  const int pw = head[16] << 24 | head[17] << 16 | head[18] << 8 | head[19], ph = head[20] << 24 | head[21] << 16 | head[22] << 8 | head[23];
  CHECK(g.width == pw);
  CHECK(g.height == ph);
  CHECK(g.frames.front() != g.frames.back());
  CHECK(fs::directory_iterator(dir) != fs::directory_iterator());
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 2);   // no stray frame files

  const CliRun slow = runCli({"export", "rope-cos", "--head-dim", "16", "--positions", "16", "--animate", "position=0:3", "--fps", "7",
                              "-o", gif.string()});
  REQUIRE(slow.code == 0);
  CHECK(readGif(gif).delays == std::vector<int>(4, 14));   // 100 / 7 = 14.3 hundredths
  CHECK(slow.out == "wrote " + gif.string() + ": 4 frames, 14/100 s each (7.1 frames per second), 0.56 s in all\n");

  // A dimension steps by 2 (8, 10, .., 16), a real option by the frames asked for.
  REQUIRE(runCli({"export", "rope-cos", "--positions", "16", "--animate", "head-dim=8:16", "-o", gif.string()}).code == 0);
  CHECK(readGif(gif).frames.size() == 5);
  REQUIRE(runCli({"export", "rope-cos", "--head-dim", "8", "--positions", "16", "--animate", "base=100:10000", "-o", gif.string()}).code == 0);
  CHECK(readGif(gif).frames.size() == 60);
}

TEST_CASE("animate: every frame is drawn on one colour range, so a colour is one value throughout") {
  const fs::path dir = scratch("animate_alibi");
  const fs::path gif = dir / "slopes.gif";
  // Plain pictures: one pixel per cell. bias(i, j) = -slope |i - j| over 8 positions.
  REQUIRE(runCli({"export", "alibi-bias", "--positions", "8", "--plain", "--animate", "slope=0.5:1", "--frames", "2", "-o", gif.string()})
              .code == 0);
  const ReadGif g = readGif(gif);
  REQUIRE(g.frames.size() == 2);
  REQUIRE(g.width == 8);
  REQUIRE(g.height == 8);
  auto at = [&](int frame, int i, int j) { return g.frames[static_cast<std::size_t>(frame)][static_cast<std::size_t>(i * 8 + j)]; };
  // -1 is distance 2 at slope 0.5 and distance 1 at slope 1: the same colour (a frame of its own
  // range would draw its own minimum, -3.5 and -7, alike instead).
  CHECK(at(0, 2, 0) == at(1, 1, 0));
  CHECK(at(0, 6, 0) == at(1, 3, 0));
  CHECK(at(0, 7, 0) != at(1, 7, 0));
  CHECK(at(0, 0, 0) == at(1, 0, 0));   // 0 on the diagonal in both
  // encodeGif on its own: a GIF89a stream.
  const posviz::cli::RgbImage one{1, 1, {10, 200, 30}, 0, 0};
  const std::vector<std::uint8_t> bytes = posviz::cli::encodeGif({one, one}, 5);
  CHECK(bytes.size() > 30);
  CHECK(std::string(bytes.begin(), bytes.begin() + 6) == "GIF89a");
}

namespace {

struct ReadVideo {
  std::string codec;
  int width = 0, height = 0, packets = 0, decoded = 0;
  double fps = 0.0, seconds = 0.0;
};

// The file as a player opens it: libavformat's demuxer, and every frame decoded.
ReadVideo readVideo(const fs::path& path) {
  ReadVideo out;
  AVFormatContext* fmt = nullptr;
  REQUIRE(avformat_open_input(&fmt, path.c_str(), nullptr, nullptr) == 0);
  REQUIRE(avformat_find_stream_info(fmt, nullptr) >= 0);
  REQUIRE(fmt->nb_streams == 1);
  const AVStream* st = fmt->streams[0];
  const AVCodec* codec = avcodec_find_decoder(st->codecpar->codec_id);
  REQUIRE(codec != nullptr);
  out.codec = codec->name;
  out.width = st->codecpar->width;
  out.height = st->codecpar->height;
  out.fps = av_q2d(st->avg_frame_rate);
  out.seconds = fmt->duration > 0 ? static_cast<double>(fmt->duration) / AV_TIME_BASE : 0.0;
  AVCodecContext* dec = avcodec_alloc_context3(codec);
  REQUIRE(avcodec_parameters_to_context(dec, st->codecpar) >= 0);
  REQUIRE(avcodec_open2(dec, codec, nullptr) == 0);
  AVPacket* pkt = av_packet_alloc();
  AVFrame* frame = av_frame_alloc();
  auto drain = [&] {
    while (avcodec_receive_frame(dec, frame) == 0) ++out.decoded;
  };
  while (av_read_frame(fmt, pkt) >= 0) {
    ++out.packets;
    avcodec_send_packet(dec, pkt);
    av_packet_unref(pkt);
    drain();
  }
  avcodec_send_packet(dec, nullptr);
  drain();
  av_frame_free(&frame);
  av_packet_free(&pkt);
  avcodec_free_context(&dec);
  avformat_close_input(&fmt);
  return out;
}

}  // namespace

TEST_CASE("animate: .mp4 and .webm play the same frames at the rate asked for") {
  const fs::path dir = scratch("animate_video");
  for (const char* ext : {".mp4", ".webm"}) {
    CAPTURE(ext);
    const fs::path out = dir / (std::string("turning") + ext);
    const CliRun r = runCli({"export", "rope-cos", "--head-dim", "16", "--positions", "16", "--animate", "pos=0:23", "--fps", "12", "-o", out.string()});
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());   // the codecs' own logging stays quiet
    CHECK(r.out == "wrote " + out.string() + ": 24 frames at 12 frames per second, 2 s in all\n");
    const ReadVideo v = readVideo(out);
    CHECK(v.codec == (std::string(ext) == ".mp4" ? "h264" : "vp9"));
    CHECK(v.decoded == 24);
    CHECK(v.fps == doctest::Approx(12.0));
    CHECK(v.seconds == doctest::Approx(2.0).epsilon(0.05));
    CHECK(v.width % 2 == 0);
    CHECK(v.height % 2 == 0);
  }
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 2);
}

TEST_CASE("animate: refusals name what is wrong, exit 2, and write nothing") {
  refused({"rope-cos", "--frames", "10", "-o", "OUT"}, "--frames: needs --animate NAME=FROM:TO (the option to sweep)");
  refused({"rope-cos", "--fps", "10", "-o", "OUT"}, "--fps: needs --animate NAME=FROM:TO (the option to sweep)");
  refused({"rope-cos", "--animate", "position", "-o", "OUT"},
          "--animate: got \"position\", expected NAME=FROM:TO, NAME one of the view's numeric options without its dashes (position=0:64)");
  refused({"rope-cos", "--animate", "pos=3:3", "-o", "OUT"}, "--animate: got \"pos=3:3\" (FROM equals TO), expected two different values");
  refused({"rope-cos", "--animate", "pos=0:x", "-o", "OUT"}, "--animate: got \"x\" (not a number), expected a finite number");
  refused({"rope-cos", "--animate", "pos=0:4", "-o", "x.png"}, "-o: got \"x.png\", expected a file name ending in .gif, .mp4 or .webm with --animate");
  refused({"rope-cos", "--animate", "pos=0:4"}, "-o: an animation needs an output file ending in .gif, .mp4 or .webm");
  refused({"rope-cos", "--animate", "pos=0:4", "--frames", "1", "-o", "OUT"}, "--frames: got \"1\" (out of range), expected an integer in [2, 1000]");
  refused({"rope-cos", "--animate", "pos=0:4", "--fps", "0", "-o", "OUT"}, "--fps: got \"0\" (out of range), expected a number in [0.1, 100]");
  refused({"rope-cos", "--animate", "pos=0:4", "--position", "2", "-o", "OUT"},
          "--position: cannot be given with --animate position=... (the animation sets it)");
  refused({"rope-rotate", "--animate", "pos=0:4", "-o", "OUT"}, "--animate: view rope-rotate has no picture to animate (its data are not a 2-D grid)");
  refused({"alibi-bias", "--animate", "heads=0:4", "-o", "OUT"},
          "--animate heads=0:4, frame 1 (--heads 0): --heads: got \"0\" (out of range), expected an integer in [1, 65536]");
  refused({"alibi-bias", "--animate", "wibble=0:4", "-o", "OUT"},
          "--animate wibble=0:4, frame 1 (--wibble 0): unknown option \"--wibble\" (did you mean --table?)");
  // A frame that alone passes the budget is refused by the export's own check, before any frame.
  refused({"rope-cos", "--head-dim", "16", "--positions", "64", "--animate", "pos=0:999", "--budget", "1M", "-o", "OUT"},
          "rope-cos: the result with its picture's pixels (scaled to be readable) needs 12.0 MiB, over the memory budget of 1.0 MiB (--budget); "
          "--size WxH (e.g. --size 1024x1024) writes the exact area-averaged picture of the whole grid");
  CHECK_THROWS_AS(posviz::cli::encodeGif({posviz::cli::RgbImage{1, 1, {0, 0, 0}, 0, 0}, posviz::cli::RgbImage{2, 1, {0, 0, 0, 0, 0, 0}, 0, 0}}, 3),
                  std::invalid_argument);
}
