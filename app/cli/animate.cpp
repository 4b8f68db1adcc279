// animate.cpp: `posviz export VIEW --animate NAME=FROM:TO` (animate.hpp).
#include "app/cli/animate.hpp"

#include <gif_lib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "app/cli/args.hpp"
#include "app/cli/request.hpp"
#include "app/cli/video.hpp"
#include "app/cli/view_table.hpp"
#include "core/atomic_file.hpp"
#include "core/grid.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::cli {

namespace {

bool isAnimationFlag(const std::string& a) { return a == "--animate" || a == "--frames" || a == "--fps"; }

// "--animate position=0:64": the flag, FROM, TO, and whether both are whole numbers.
void readAnimateValue(const std::string& text, AnimationPlan& p) {
  const std::string allowed = "NAME=FROM:TO, NAME one of the view's numeric options without its dashes (position=0:64)";
  const auto eq = text.find('='), colon = text.find(':', eq == std::string::npos ? 0 : eq);
  if (eq == std::string::npos || eq == 0 || colon == std::string::npos) throw UsageError("--animate: got " + quotedText(text) + ", expected " + allowed);
  std::string name = text.substr(0, eq);
  if (name.rfind("--", 0) == 0) name = name.substr(2);
  if (name == "pos") name = "position";
  p.flag = "--" + name;
  const std::string from = text.substr(eq + 1, colon - eq - 1), to = text.substr(colon + 1);
  const RealRange any{-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
  p.from = parseRealOption("--animate", from, any);
  p.to = parseRealOption("--animate", to, any);
  if (p.from == p.to) throw UsageError("--animate: got " + quotedText(text) + " (FROM equals TO), expected two different values");
}

// How the values step: as the parameter table defines the option, else whole when FROM and TO are.
int stepOf(const ViewDef& view, const AnimationPlan& p) {
  if (const Param* param = viewParam(view, p.flag)) return param->kind == ParamKind::EvenInt ? 2 : param->isInteger() ? 1 : 0;
  return p.from == std::floor(p.from) && p.to == std::floor(p.to) ? 1 : 0;
}

// The view's own argument list with the animation's options taken out.
void splitArguments(const std::vector<std::string>& args, AnimationPlan& p, bool& framesGiven) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool takesValue = isAnimationFlag(a) || a == "-o" || a == "--output";
    if (!takesValue) {
      p.viewArgs.push_back(a);
      continue;
    }
    if (i + 1 >= args.size()) throw UsageError(a + ": needs a value");
    const std::string& v = args[++i];
    if (a == "--animate") readAnimateValue(v, p);
    else if (a == "--frames") p.frames = static_cast<int>(parseIntOption("--frames", v, 2, kMaxAnimationFrames)), framesGiven = true;
    else if (a == "--fps") p.fps = parseRealOption("--fps", v, RealRange{0.1, 100.0});
    else p.output = v;
  }
}

// The animated flag must not also be given as a plain option: which value would win?
void refuseRepeatedFlag(const AnimationPlan& p) {
  for (std::size_t i = 0; i < p.viewArgs.size(); ++i)
    if (p.viewArgs[i] == p.flag) throw UsageError(p.flag + ": cannot be given with --animate " + p.flag.substr(2) + "=... (the animation sets it)");
}

bool endsWith(const std::string& s, const std::string& tail) { return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0; }

std::string pngNameOf(const std::string& out) { return out.substr(0, out.rfind('.')) + ".png"; }

// One frame's picture is held while it is encoded (RGB, plus a padded copy and the GIF's palette
// indices): refuse what would not fit the memory budget, before any work.
void requireFrameFits(long long width, long long height) {
  const std::uint64_t each = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) * 7;   // 2 x RGB + index
  if (each > memoryBudgetBytes())
    throw UsageError("--animate: a frame of " + std::to_string(width) + " x " + std::to_string(height) + " pixels needs " +
                     formatBytes(each) + " while it is encoded, past the memory budget of " + formatBytes(memoryBudgetBytes()) +
                     " (--budget); use a smaller picture");
}

// img on a width x height canvas of its own background colour (its first pixel), top left.
RgbImage padded(const RgbImage& img, int width, int height) {
  RgbImage out{width, height, {}, img.heatmapX, img.heatmapY};
  out.rgb.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
  for (std::size_t i = 0; i < out.rgb.size(); ++i) out.rgb[i] = img.rgb[i % 3];
  for (int y = 0; y < img.height; ++y) std::memcpy(out.pixel(0, y), img.pixel(0, y), static_cast<std::size_t>(img.width) * 3);
  return out;
}

}  // namespace

double AnimationPlan::valueAt(int frame) const {
  const double t = frames > 1 ? static_cast<double>(frame) / (frames - 1) : 0.0;
  const double v = frame == frames - 1 ? to : from + (to - from) * t;
  if (step > 0) return std::round(v / step) * step;
  // Six significant digits, so a caption reads "base 15085" and the frame shows exactly that value.
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return frame == 0 || frame == frames - 1 ? v : std::strtod(text, nullptr);
}

std::string AnimationPlan::valueText(int frame) const {
  const double v = valueAt(frame);
  return step > 0 && std::fabs(v) < 9e15 ? std::to_string(static_cast<long long>(v)) : formatNumber(v);
}

std::vector<std::string> AnimationPlan::frameArgs(int frame) const {
  std::vector<std::string> out = viewArgs;
  out.push_back(flag);
  out.push_back(valueText(frame));
  out.push_back("-o");
  out.push_back(pngNameOf(output));
  return out;
}

int AnimationPlan::delayCentiseconds() const { return std::max(1, static_cast<int>(std::lround(100.0 / fps))); }

bool AnimationPlan::isGif() const { return endsWith(output, ".gif"); }

std::string AnimationPlan::summary() const {
  if (!isGif())
    return std::to_string(frames) + " frames at " + formatNumber(fps) + " frames per second, " +
           formatNumber(std::round(frames / fps * 1000.0) / 1000.0) + " s in all";
  const int delay = delayCentiseconds();
  return std::to_string(frames) + " frames, " + std::to_string(delay) + "/100 s each (" + formatNumber(std::round(1000.0 / delay) / 10.0) +
         " frames per second), " + formatNumber(frames * delay / 100.0) + " s in all";
}

bool wantsAnimation(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), isAnimationFlag);
}

AnimationPlan parseAnimation(const ViewDef& view, const std::vector<std::string>& args) {
  AnimationPlan p;
  bool framesGiven = false;
  splitArguments(args, p, framesGiven);
  if (p.flag.empty()) throw UsageError(std::string(framesGiven ? "--frames" : "--fps") + ": needs --animate NAME=FROM:TO (the option to sweep)");
  if (p.output.empty()) throw UsageError("-o: an animation needs an output file ending in .gif, .mp4 or .webm");
  if (!endsWith(p.output, ".gif") && !endsWith(p.output, ".mp4") && !endsWith(p.output, ".webm"))
    throw UsageError("-o: got " + quotedText(p.output) + ", expected a file name ending in .gif, .mp4 or .webm with --animate");
  if (!endsWith(p.output, ".gif") && !videoAvailable()) throw UsageError("-o: got " + quotedText(p.output) + ": " + kVideoUnavailable);
  if (!view.png) throw UsageError("--animate: view " + view.name + " has no picture to animate (its data are not a 2-D grid)");
  refuseRepeatedFlag(p);
  p.step = stepOf(view, p);
  if (!framesGiven && p.step > 0)
    p.frames = static_cast<int>(std::clamp<double>(std::floor(std::fabs(p.to - p.from) / p.step) + 1, 2, kMaxAnimationFrames));
  for (int frame : {0, p.frames - 1}) {
    try {
      const ParsedOptions o = parseOptions(p.frameArgs(frame), optionSpecs());
      const Request r = parseRequest(view, o);
      requireResultBudget(r);
    } catch (const UsageError& e) {
      throw UsageError("--animate " + displayText(p.flag.substr(2)) + "=" + p.valueText(0) + ":" + p.valueText(p.frames - 1) +
                       ", frame " + std::to_string(frame + 1) + " (" + displayText(p.flag) + " " + p.valueText(frame) + "): " + e.what());
    }
  }
  return p;
}

void writeAnimation(const ViewDef& view, const AnimationPlan& plan, const ExportProgress& progress) {
  checkOutputPath(plan.output);
  auto report = [&](int pass, int frame) {
    if (progress) progress((pass * plan.frames + frame) / (2.0 * plan.frames));
  };
  const Param* swept = viewParam(view, plan.flag);
  const std::string sweptLabel = swept != nullptr ? std::string(swept->label) : plan.flag.substr(2);
  // Frame f's request, dataset and picture options (its colour scale set by the caller).
  auto frameOf = [&](int f, Request* r, Dataset* d) {
    *r = parseRequest(view, parseOptions(plan.frameArgs(f), optionSpecs()));
    *d = computeDataset(*r, [](double) {});
    PngOptions o = pictureOptions(*r, *d);
    // Each frame says the value it shows, also where the view's caption leaves that option out.
    if (!o.caption.empty() && o.caption.find(sweptLabel + " ") == std::string::npos) o.caption += "; " + sweptLabel + " " + plan.valueText(f);
    return o;
  };
  // Pass 1: one colour range over every frame; then the largest frame's size (a caption that
  // wraps differently makes a frame taller), measured without drawing. Only one frame's data is
  // held at a time, in either pass, and pass 2 encodes each frame into the file as it is drawn.
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  std::vector<PngOptions> options;
  std::vector<std::pair<int, int>> dims;
  std::vector<bool> angles;
  std::vector<decltype(Request{}.colormap)> maps;
  for (int f = 0; f < plan.frames; ++f) {
    report(0, f);
    Request r;
    Dataset d;
    options.push_back(frameOf(f, &r, &d));
    dims.emplace_back(d.grid.rows, d.grid.cols);
    angles.push_back(d.isAngle);
    maps.push_back(r.colormap);
    const ValueRange range = finiteRange(d.grid);
    if (f == 0) {   // refused before the other frames' work when one frame alone would not fit
      PngOptions first = options.back();
      first.scale = colorScaleFor(range.min, range.max, r.colormap ? &*r.colormap : nullptr, d.isAngle);
      const auto [w, h] = heatmapImageSize(d.grid.rows, d.grid.cols, first);
      requireFrameFits(w, h);
    }
    lo = std::min(lo, range.min);
    hi = std::max(hi, range.max);
  }
  long long width = 0, height = 0;
  for (std::size_t f = 0; f < options.size(); ++f) {
    options[f].scale = colorScaleFor(lo, hi, maps[f] ? &*maps[f] : nullptr, angles[f]);
    const auto [w, h] = heatmapImageSize(dims[f].first, dims[f].second, options[f]);
    width = std::max(width, w);
    height = std::max(height, h);
  }
  requireFrameFits(width, height);
  writeFileAtomically(plan.output, [&](std::ostream& os) {
    std::unique_ptr<FrameWriter> out =
        plan.isGif() ? gifWriter(os, static_cast<int>(width), static_cast<int>(height), plan.delayCentiseconds())
                     : videoWriter(os, static_cast<int>(width), static_cast<int>(height), plan.fps,
                                   endsWith(plan.output, ".mp4") ? VideoFormat::Mp4 : VideoFormat::WebM);
    for (int f = 0; f < plan.frames; ++f) {
      report(1, f);
      Request r;
      Dataset d;
      PngOptions o = frameOf(f, &r, &d);
      o.scale = colorScaleFor(lo, hi, r.colormap ? &*r.colormap : nullptr, d.isAngle);
      RgbImage img = renderHeatmapImage(d.grid, o);
      d = Dataset{};   // the grid is drawn: only the picture is held while it is encoded
      out->add(img.width == width && img.height == height ? img : padded(img, static_cast<int>(width), static_cast<int>(height)));
    }
    out->finish();
  });
  if (progress) progress(1.0);
}

// [SECTION] GIF encoding (giflib)

namespace {

int writeBytes(GifFileType* gif, const GifByteType* data, int length) {
  auto* out = static_cast<std::ostream*>(gif->UserData);
  out->write(reinterpret_cast<const char*>(data), length);
  return *out ? length : 0;
}

[[noreturn]] void gifFailure(const char* what, int error) {
  throw std::runtime_error(std::string("GIF encoding failed (") + what + "): " + (GifErrorString(error) ? GifErrorString(error) : "unknown error"));
}

struct GifCloser {
  void operator()(GifFileType* g) const {
    int e = 0;
    if (g != nullptr) EGifCloseFile(g, &e);
  }
};

// Loop forever: the NETSCAPE2.0 application extension, count 0.
void putLoopExtension(GifFileType* gif) {
  static const GifByteType app[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
  static const GifByteType loop[] = {1, 0, 0};
  if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR || EGifPutExtensionBlock(gif, sizeof app, app) == GIF_ERROR ||
      EGifPutExtensionBlock(gif, sizeof loop, loop) == GIF_ERROR || EGifPutExtensionTrailer(gif) == GIF_ERROR)
    gifFailure("loop extension", gif->Error);
}

// The frame's palette: its 256 most frequent colours, kept exactly (a heatmap's cells and
// colorbar come from a 256-entry colormap table, so they are among them); any rarer colour (the
// anti-aliased edges of text) becomes the nearest of those. giflib's own quantizer keeps only 5
// bits a channel, which bands a smooth colormap.
void framePalette(const RgbImage& img, GifColorType* colors, std::vector<GifByteType>& index) {
  auto keyOf = [&](std::size_t i) {
    const std::uint8_t* p = img.rgb.data() + 3 * i;
    return static_cast<std::uint32_t>(p[0]) << 16 | static_cast<std::uint32_t>(p[1]) << 8 | p[2];
  };
  std::unordered_map<std::uint32_t, std::size_t> count;
  for (std::size_t i = 0; i < index.size(); ++i) ++count[keyOf(i)];
  std::vector<std::pair<std::size_t, std::uint32_t>> byCount;
  for (const auto& [key, n] : count) byCount.emplace_back(n, key);
  std::sort(byCount.begin(), byCount.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  const std::size_t used = std::min<std::size_t>(256, byCount.size());
  std::unordered_map<std::uint32_t, int> slot;
  for (std::size_t c = 0; c < 256; ++c) {
    const std::uint32_t key = c < used ? byCount[c].second : 0;
    colors[c] = GifColorType{static_cast<GifByteType>(key >> 16), static_cast<GifByteType>(key >> 8 & 255), static_cast<GifByteType>(key & 255)};
    if (c < used) slot.emplace(key, static_cast<int>(c));
  }
  auto nearest = [&](std::uint32_t key) {
    const int r = static_cast<int>(key >> 16), g = static_cast<int>(key >> 8 & 255), b = static_cast<int>(key & 255);
    int best = 0;
    long bestDistance = std::numeric_limits<long>::max();
    for (std::size_t c = 0; c < used; ++c) {
      const long dr = r - colors[c].Red, dg = g - colors[c].Green, db = b - colors[c].Blue;
      const long d = dr * dr + dg * dg + db * db;
      if (d < bestDistance) bestDistance = d, best = static_cast<int>(c);
    }
    return best;
  };
  for (std::size_t i = 0; i < index.size(); ++i) {
    const std::uint32_t key = keyOf(i);
    auto it = slot.find(key);
    if (it == slot.end()) it = slot.emplace(key, nearest(key)).first;
    index[i] = static_cast<GifByteType>(it->second);
  }
}

void putFrame(GifFileType* gif, const RgbImage& img, int delay) {
  std::vector<GifByteType> index(static_cast<std::size_t>(img.width) * static_cast<std::size_t>(img.height));
  std::unique_ptr<ColorMapObject, void (*)(ColorMapObject*)> map(GifMakeMapObject(256, nullptr), GifFreeMapObject);
  if (!map) throw std::runtime_error("GIF encoding failed: out of memory for a palette");
  framePalette(img, map->Colors, index);
  GraphicsControlBlock gcb{DISPOSE_DO_NOT, false, delay, NO_TRANSPARENT_COLOR};
  GifByteType ext[4];
  EGifGCBToExtension(&gcb, ext);
  if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, ext) == GIF_ERROR) gifFailure("frame delay", gif->Error);
  if (EGifPutImageDesc(gif, 0, 0, img.width, img.height, false, map.get()) == GIF_ERROR) gifFailure("frame header", gif->Error);
  for (int y = 0; y < img.height; ++y)
    if (EGifPutLine(gif, index.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(img.width), img.width) == GIF_ERROR)
      gifFailure("frame pixels", gif->Error);
}


class GifWriter final : public FrameWriter {
 public:
  GifWriter(std::ostream& out, int width, int height, int delay) : w_(width), h_(height), delay_(delay) {
    if (w_ < 1 || h_ < 1 || w_ > 65535 || h_ > 65535) throw std::invalid_argument("encodeGif: a frame must be 1..65535 pixels on each side");
    int error = 0;
    gif_.reset(EGifOpen(&out, writeBytes, &error));
    if (!gif_) gifFailure("open", error);
    EGifSetGifVersion(gif_.get(), true);
    if (EGifPutScreenDesc(gif_.get(), w_, h_, 8, 0, nullptr) == GIF_ERROR) gifFailure("screen", gif_->Error);
    putLoopExtension(gif_.get());
  }
  void add(const RgbImage& f) override {
    if (f.width != w_ || f.height != h_ || f.rgb.size() != static_cast<std::size_t>(w_) * static_cast<std::size_t>(h_) * 3)
      throw std::invalid_argument("encodeGif: every frame must be " + std::to_string(w_) + " x " + std::to_string(h_) + " RGB pixels");
    putFrame(gif_.get(), f, delay_);
  }
  void finish() override {
    int error = 0;
    if (EGifCloseFile(gif_.release(), &error) == GIF_ERROR) gifFailure("close", error);
  }

 private:
  int w_, h_, delay_;
  std::unique_ptr<GifFileType, GifCloser> gif_;
};

}  // namespace

std::unique_ptr<FrameWriter> gifWriter(std::ostream& out, int width, int height, int delayCentiseconds) {
  return std::make_unique<GifWriter>(out, width, height, delayCentiseconds);
}

std::vector<std::uint8_t> encodeGif(const std::vector<RgbImage>& frames, int delayCentiseconds) {
  if (frames.empty()) throw std::invalid_argument("encodeGif: no frames");
  std::ostringstream out;
  const std::unique_ptr<FrameWriter> gif = gifWriter(out, frames.front().width, frames.front().height, delayCentiseconds);
  for (const RgbImage& f : frames) gif->add(f);
  gif->finish();
  const std::string bytes = std::move(out).str();
  return {bytes.begin(), bytes.end()};
}

}  // namespace posviz::cli
