#include "app/gui/widgets/worker.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include "core/parallel.hpp"

namespace posviz::app {

Worker::~Worker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    pending_.reset();
    if (running_) running_->cancel_.store(true);
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Worker::submit(Job job) {
  {
    std::lock_guard lock(mutex_);
    pending_ = std::move(job);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  cv_.notify_all();
}

bool Worker::busy() const {
  std::lock_guard lock(mutex_);
  return pending_.has_value() || running_ != nullptr;
}

float Worker::progress() const {
  std::lock_guard lock(mutex_);
  return running_ ? running_->progress_.load() : -1.0f;
}

void Worker::cancelAll() {
  std::lock_guard lock(mutex_);
  pending_.reset();
  if (running_) running_->cancel_.store(true);
}

void Worker::run() {
  // Below the UI thread in the scheduler: on a machine with few cores a long computation takes
  // the time the frame does not need, instead of stretching frames (Linux: per-thread nice).
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
  // And one core fewer than the machine has for the jobs' own threads: the frame loop and the
  // GL driver (a software rasterizer works on every core) keep one, so a picture that takes all
  // cores cannot stretch the frames of a drag.
  threadCapOfThisThread() = std::max(1, hardwareThreads() - 1);
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || pending_.has_value(); });
    if (stop_) return;
    Job job = std::move(*pending_);
    pending_.reset();
    auto control = std::make_shared<JobControl>();
    running_ = control;
    lock.unlock();
    try {
      job(*control);
    } catch (...) {
      // Jobs report their own errors (AsyncResult catches); nothing may escape the thread.
    }
    lock.lock();
    running_.reset();
  }
}

}  // namespace posviz::app
