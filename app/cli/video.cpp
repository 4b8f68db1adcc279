// video.cpp: encodeVideo (video.hpp) with libavcodec, libavformat and libswscale.
//
// The four libraries are opened on the first video export (dlopen), not linked: they bring about
// 120 shared libraries with them, whose loading was nearly all of a `posviz export` call's start
// (33 ms of 36 on a 2-core machine), paid by every command and every window that never encodes a
// frame. Their sonames come from the headers compiled against, so the ABI is the one built for.
#include "app/cli/video.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>
#include <stdexcept>

// The browser build has no libav (nor system libraries to dlopen): no video, said at once. This is
// the one place that knows; the animation writer and the GUI ask videoAvailable().
#if defined(__EMSCRIPTEN__)

namespace posviz::cli {

bool videoAvailable() { return false; }

std::vector<std::uint8_t> encodeVideo(const std::vector<RgbImage>&, double, VideoFormat) {
  throw std::runtime_error(kVideoUnavailable);
}
std::unique_ptr<FrameWriter> videoWriter(std::ostream&, int, int, double, VideoFormat) { throw std::runtime_error(kVideoUnavailable); }

}  // namespace posviz::cli

#else

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>

namespace posviz::cli {

namespace {

// Every libav function encodeVideo calls, with the library that defines it.
#define POSVIZ_AV_FUNCTIONS(X)                                                                                      \
  X(avutil, av_strerror) X(avutil, av_malloc) X(avutil, av_free) X(avutil, av_freep) X(avutil, av_log_set_level)    \
  X(avutil, av_d2q) X(avutil, av_opt_set) X(avutil, av_frame_alloc) X(avutil, av_frame_free)                       \
  X(avutil, av_frame_get_buffer) X(avutil, av_frame_make_writable)                                                  \
  X(avcodec, avcodec_find_encoder_by_name) X(avcodec, avcodec_alloc_context3) X(avcodec, avcodec_open2)             \
  X(avcodec, avcodec_free_context) X(avcodec, avcodec_send_frame) X(avcodec, avcodec_receive_packet)                \
  X(avcodec, avcodec_parameters_from_context) X(avcodec, av_packet_alloc) X(avcodec, av_packet_free)                \
  X(avcodec, av_packet_rescale_ts)                                                                                  \
  X(avformat, avformat_alloc_output_context2) X(avformat, avformat_new_stream) X(avformat, avformat_free_context)   \
  X(avformat, avformat_write_header) X(avformat, av_write_trailer) X(avformat, av_interleaved_write_frame)           \
  X(avformat, avio_alloc_context) X(avformat, avio_context_free) X(avformat, avio_flush)                            \
  X(swscale, sws_getContext) X(swscale, sws_scale) X(swscale, sws_freeContext)

struct Av {
#define POSVIZ_AV_POINTER(lib, f) decltype(&::f) f = nullptr;
  POSVIZ_AV_FUNCTIONS(POSVIZ_AV_POINTER)
#undef POSVIZ_AV_POINTER
};

// Opens one library by the soname its headers were built for; the handle stays open.
void* openLibrary(const std::string& name, int major, const char* package) {
  const std::string soname = "lib" + name + ".so." + std::to_string(major);
  if (void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  const char* why = dlerror();
  throw std::runtime_error("video export needs " + soname + " (Debian package " + package + std::to_string(major) +
                           "), which could not be opened: " + (why != nullptr ? why : "unknown reason"));
}

Av loadAv() {
  void* avutil = openLibrary("avutil", LIBAVUTIL_VERSION_MAJOR, "libavutil");
  void* avcodec = openLibrary("avcodec", LIBAVCODEC_VERSION_MAJOR, "libavcodec");
  void* avformat = openLibrary("avformat", LIBAVFORMAT_VERSION_MAJOR, "libavformat");
  void* swscale = openLibrary("swscale", LIBSWSCALE_VERSION_MAJOR, "libswscale");
  Av av;
#define POSVIZ_AV_LOAD(lib, f)                                                                                 \
  av.f = reinterpret_cast<decltype(&::f)>(dlsym(lib, #f));                                                     \
  if (av.f == nullptr) throw std::runtime_error("video export: lib" #lib " has no function " #f);
  POSVIZ_AV_FUNCTIONS(POSVIZ_AV_LOAD)
#undef POSVIZ_AV_LOAD
  return av;
}

// The libraries, opened on first use (again after a failure, e.g. once a package is installed).
const Av& av() {
  static std::mutex mutex;
  static std::unique_ptr<const Av> loaded;
  std::lock_guard lock(mutex);
  if (!loaded) loaded = std::make_unique<const Av>(loadAv());
  return *loaded;
}

[[noreturn]] void fail(const std::string& what, int error) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av().av_strerror(error, text, sizeof text);
  throw std::runtime_error("video encoding failed (" + what + "): " + text);
}

// The muxer's output: a seekable stream (MP4 goes back to write sizes), its size kept here.
struct Output {
  std::ostream* out = nullptr;
  std::int64_t pos = 0, size = 0;
};

int writeBytes(void* opaque, std::uint8_t* data, int size) {
  auto* o = static_cast<Output*>(opaque);
  o->out->write(reinterpret_cast<const char*>(data), size);
  if (!*o->out) return AVERROR(EIO);
  o->pos += size;
  o->size = std::max(o->size, o->pos);
  return size;
}

std::int64_t seekBytes(void* opaque, std::int64_t offset, int whence) {
  auto* o = static_cast<Output*>(opaque);
  std::int64_t to = 0;
  switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return o->size;
    case SEEK_SET: to = offset; break;
    case SEEK_CUR: to = o->pos + offset; break;
    case SEEK_END: to = o->size + offset; break;
    default: return -1;
  }
  if (to < 0) to = 0;
  o->out->seekp(static_cast<std::streamoff>(to));
  if (!*o->out) return AVERROR(EIO);
  o->pos = to;
  return to;
}

struct Encoder {
  Output output;
  AVFormatContext* format = nullptr;
  AVIOContext* io = nullptr;
  AVCodecContext* codec = nullptr;
  AVStream* stream = nullptr;
  SwsContext* sws = nullptr;
  AVFrame* frame = nullptr;
  AVPacket* packet = nullptr;

  ~Encoder() {
    av().av_packet_free(&packet);
    av().av_frame_free(&frame);
    av().sws_freeContext(sws);
    av().avcodec_free_context(&codec);
    if (io != nullptr) av().av_freep(&io->buffer);
    av().avio_context_free(&io);
    av().avformat_free_context(format);
  }

  // Sends one frame (null: the end) and writes every packet the encoder has ready.
  void send(const AVFrame* f) {
    if (const int e = av().avcodec_send_frame(codec, f); e < 0) fail("send a frame", e);
    for (;;) {
      const int e = av().avcodec_receive_packet(codec, packet);
      if (e == AVERROR(EAGAIN) || e == AVERROR_EOF) return;
      if (e < 0) fail("receive a packet", e);
      av().av_packet_rescale_ts(packet, codec->time_base, stream->time_base);
      packet->stream_index = stream->index;
      if (const int w = av().av_interleaved_write_frame(format, packet); w < 0) fail("write a packet", w);
    }
  }
};

void openCodec(Encoder& enc, VideoFormat f, int width, int height, double fps) {
  const char* name = f == VideoFormat::Mp4 ? "libx264" : "libvpx-vp9";
  const AVCodec* codec = av().avcodec_find_encoder_by_name(name);
  if (codec == nullptr) throw std::runtime_error(std::string("video encoding failed: this libavcodec has no ") + name + " encoder");
  enc.codec = av().avcodec_alloc_context3(codec);
  if (enc.codec == nullptr) throw std::runtime_error("video encoding failed: out of memory");
  const AVRational rate = av().av_d2q(fps, 100000);
  enc.codec->width = width;
  enc.codec->height = height;
  enc.codec->pix_fmt = AV_PIX_FMT_YUV420P;
  enc.codec->time_base = av_inv_q(rate);
  enc.codec->framerate = rate;
  enc.codec->gop_size = std::max(1, static_cast<int>(fps * 2.0));
  enc.codec->thread_count = 1;
  if (enc.format->oformat->flags & AVFMT_GLOBALHEADER) enc.codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if (f == VideoFormat::Mp4) {
    av().av_opt_set(enc.codec->priv_data, "preset", "medium", 0);
    av().av_opt_set(enc.codec->priv_data, "crf", "16", 0);
  } else {
    enc.codec->bit_rate = 0;
    av().av_opt_set(enc.codec->priv_data, "crf", "24", 0);
    av().av_opt_set(enc.codec->priv_data, "deadline", "good", 0);
    av().av_opt_set(enc.codec->priv_data, "cpu-used", "4", 0);
  }
  if (const int e = av().avcodec_open2(enc.codec, codec, nullptr); e < 0) fail(std::string("open ") + name, e);
  enc.stream = av().avformat_new_stream(enc.format, nullptr);
  if (enc.stream == nullptr) throw std::runtime_error("video encoding failed: out of memory");
  enc.stream->time_base = enc.codec->time_base;
  enc.stream->avg_frame_rate = rate;
  if (const int e = av().avcodec_parameters_from_context(enc.stream->codecpar, enc.codec); e < 0) fail("stream parameters", e);
}

class VideoWriter final : public FrameWriter {
 public:
  VideoWriter(std::ostream& out, int width, int height, double fps, VideoFormat f)
      : w_(width), h_(height), ew_(width + (width & 1)), eh_(height + (height & 1)) {   // 4:2:0 needs even sides
    if (w_ < 1 || h_ < 1 || !(fps > 0.0)) throw std::invalid_argument("encodeVideo: frames must have pixels and fps must be > 0");
    av().av_log_set_level(AV_LOG_QUIET);   // failures come back as error codes, said in the exception
    enc_.output.out = &out;
    if (const int e = av().avformat_alloc_output_context2(&enc_.format, nullptr, f == VideoFormat::Mp4 ? "mp4" : "webm", nullptr); e < 0)
      fail("muxer", e);
    constexpr int kBuffer = 1 << 16;
    auto* buffer = static_cast<unsigned char*>(av().av_malloc(kBuffer));
    enc_.io = av().avio_alloc_context(buffer, kBuffer, 1, &enc_.output, nullptr, writeBytes, seekBytes);
    if (enc_.io == nullptr) {
      av().av_free(buffer);
      throw std::runtime_error("video encoding failed: out of memory");
    }
    enc_.format->pb = enc_.io;
    enc_.format->flags |= AVFMT_FLAG_CUSTOM_IO;
    openCodec(enc_, f, ew_, eh_, fps);
    if (const int e = av().avformat_write_header(enc_.format, nullptr); e < 0) fail("header", e);
    enc_.sws = av().sws_getContext(ew_, eh_, AV_PIX_FMT_RGB24, ew_, eh_, AV_PIX_FMT_YUV420P, SWS_BICUBIC, nullptr, nullptr, nullptr);
    enc_.frame = av().av_frame_alloc();
    enc_.packet = av().av_packet_alloc();
    if (enc_.sws == nullptr || enc_.frame == nullptr || enc_.packet == nullptr) throw std::runtime_error("video encoding failed: out of memory");
    enc_.frame->format = AV_PIX_FMT_YUV420P;
    enc_.frame->width = ew_;
    enc_.frame->height = eh_;
    if (const int e = av().av_frame_get_buffer(enc_.frame, 0); e < 0) fail("frame buffer", e);
    // libswscale's vector loads may read a little past the last row: the buffer has room for them.
    rgb_.resize(static_cast<std::size_t>(ew_) * static_cast<std::size_t>(eh_) * 3 + 64);
  }

  void add(const RgbImage& img) override {
    if (img.width != w_ || img.height != h_ || img.rgb.size() != static_cast<std::size_t>(w_) * static_cast<std::size_t>(h_) * 3)
      throw std::invalid_argument("encodeVideo: every frame must be " + std::to_string(w_) + " x " + std::to_string(h_) + " RGB pixels");
    for (int y = 0; y < eh_; ++y) {   // the last row and column repeated into the padding
      const std::uint8_t* src = img.pixel(0, std::min(y, h_ - 1));
      std::uint8_t* dst = rgb_.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(ew_) * 3;
      std::memcpy(dst, src, static_cast<std::size_t>(w_) * 3);
      if (ew_ > w_) std::memcpy(dst + static_cast<std::size_t>(w_) * 3, src + static_cast<std::size_t>(w_ - 1) * 3, 3);
    }
    if (const int e = av().av_frame_make_writable(enc_.frame); e < 0) fail("frame buffer", e);
    const std::uint8_t* planes[1] = {rgb_.data()};
    const int strides[1] = {ew_ * 3};
    av().sws_scale(enc_.sws, planes, strides, 0, eh_, enc_.frame->data, enc_.frame->linesize);
    enc_.frame->pts = next_++;
    enc_.send(enc_.frame);
  }

  void finish() override {
    enc_.send(nullptr);
    if (const int e = av().av_write_trailer(enc_.format); e < 0) fail("trailer", e);
    av().avio_flush(enc_.io);
    if (enc_.io->error < 0) fail("flush", enc_.io->error);
  }

 private:
  int w_, h_, ew_, eh_;
  std::int64_t next_ = 0;
  Encoder enc_;
  std::vector<std::uint8_t> rgb_;
};

}  // namespace

bool videoAvailable() { return true; }

std::unique_ptr<FrameWriter> videoWriter(std::ostream& out, int width, int height, double fps, VideoFormat f) {
  return std::make_unique<VideoWriter>(out, width, height, fps, f);
}

std::vector<std::uint8_t> encodeVideo(const std::vector<RgbImage>& frames, double fps, VideoFormat f) {
  if (frames.empty()) throw std::invalid_argument("encodeVideo: no frames");
  std::stringstream out(std::ios::in | std::ios::out | std::ios::binary);
  const std::unique_ptr<FrameWriter> video = videoWriter(out, frames.front().width, frames.front().height, fps, f);
  for (const RgbImage& img : frames) video->add(img);
  video->finish();
  const std::string bytes = std::move(out).str();
  return {bytes.begin(), bytes.end()};
}

}  // namespace posviz::cli

#endif  // __EMSCRIPTEN__
