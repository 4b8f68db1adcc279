// progress_bar.hpp: the progress bar the CLI's long commands draw on stderr (`posviz export`,
// `posviz train`): shown when stderr is a terminal and the work takes more than half a second,
// or always when forced (--progress); redrawn at most every 100 ms, one line, '\r'-updated.
//   ProgressBar bar(forced, "posviz export sinusoidal");
//   bar.update(stage, stages, fraction);     // or pass bar.stage(s, n) as an ExportProgress
//   bar.finish();                            // 100 % and a newline (the destructor does it too)
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>

#include <unistd.h>

#include "app/cli/export.hpp"

namespace posviz::cli {

class ProgressBar {
 public:
  ProgressBar(bool forced, std::string label)
      : enabled_(forced || ::isatty(STDERR_FILENO) == 1), forced_(forced), label_(std::move(label)),
        start_(std::chrono::steady_clock::now()) {}
  ~ProgressBar() { finish(); }

  // Stage s of n stages is at fraction f.
  void update(int stage, int stages, double f) {
    if (!enabled_ || done_) return;
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (!forced_ && elapsed < 0.5) return;  // short exports stay quiet on a terminal
    if (shown_ && now - last_ < std::chrono::milliseconds(100) && f < 1.0) return;
    last_ = now;
    shown_ = true;
    const double total = std::clamp((stage + std::clamp(f, 0.0, 1.0)) / stages, 0.0, 1.0);
    const int percent = static_cast<int>(total * 100.0);
    if (percent == lastPercent_) return;
    lastPercent_ = percent;
    const int width = 30;
    const int filled = static_cast<int>(total * width);
    std::fprintf(stderr, "\r%s [%s%s] %3d%%", label_.c_str(), std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), '.').c_str(), percent);
    std::fflush(stderr);
  }
  ExportProgress stage(int s, int n) {
    return [this, s, n](double f) { update(s, n, f); };
  }
  void finish() {
    if (done_) return;
    if (forced_ && !shown_) {
      shown_ = true;
      forcedComplete();
    } else if (shown_) {
      update(1, 1, 1.0);
    }
    done_ = true;
    if (shown_) std::fputc('\n', stderr);
  }

 private:
  void forcedComplete() {
    last_ = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    update(1, 1, 1.0);
  }
  bool enabled_, forced_;
  std::string label_;
  std::chrono::steady_clock::time_point start_, last_{};
  bool shown_ = false, done_ = false;
  int lastPercent_ = -1;
};

}  // namespace posviz::cli
