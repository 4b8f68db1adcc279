// worker.hpp: background computation for the views, so the window never freezes.
//
// USAGE
//   struct MyState { AsyncResult<HeatmapImage> image; ... };
//   if (s.dirty) { s.image.request([params](JobControl& jc) { return compute(params, jc); }); s.dirty = false; }
//   s.image.poll();                                   // once per frame, on the UI thread
//   if (const HeatmapImage* img = s.image.result()) drawHeatmap(..., *img);
//
// CONTRACT
//   Latest request wins without starving: request() replaces a job that has not started yet,
//   and a running job finishes and is shown, then the latest request runs. So while a slider is
//   dragged the picture follows at the speed of the computation (one frame for small grids),
//   instead of every new value cancelling the one before and nothing arriving until the drag
//   stops. cancelAll() asks the running job to stop (JobControl::cancelled() turns true; a
//   cancelled job's result is dropped). The last good result stays available through result()
//   until a newer one arrives, so the view keeps showing it with a progress indication (busy(),
//   progress()). An exception thrown by a job (e.g. the memory budget) becomes error(); the
//   last good result is kept.
//   Each AsyncResult owns one Worker (two threads, started on the first request and joined in
//   the destructor). A job starved of cores may be started a second time (see Worker), so a
//   job must only compute what it returns, from what it captured by value.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <thread>

#include "app/gui/platform/jobs.hpp"

namespace posviz::app {

// The steady clock in seconds: when inputs changed, for views that wait for them to rest.
inline double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Paces the jobs of a dragged slider. At a view's largest sizes a job for every change would keep
// a core busy beside the frames; instead a change waits for the job before it and then kPause
// times that job's time, so a drag's jobs take about a quarter of a core, and the change taken
// is the latest one (the ones between are dropped). Once no change has come for kQuietSeconds
// (the drag ended or paused) the waiting change starts at once, so the settle time does not grow.
//   if (s.dirty) { s.dirty = false; s.pacer.change(); }
//   if (s.pacer.pending && !s.job.busy() && s.pacer.ready()) { s.pacer.started(); request...; }
//   if (s.job.poll()) s.pacer.finished(s.job.millis());
struct DragPacer {
  static constexpr double kPause = 3.0;          // times the last job's time a change waits after it
  static constexpr double kQuietSeconds = 0.05;  // ... or until no change has come for this long
  bool pending = false;                          // a change seen whose job is not asked for yet
  double changedAt = -1e300;                     // steadySeconds() of the last change
  double freeAt = -1e300;                        // steadySeconds() from which a change may start a job

  void change() {
    pending = true;
    changedAt = steadySeconds();
  }
  // The pause after the last job is over, or the changes have stopped.
  bool ready() const {
    const double now = steadySeconds();
    return now >= freeAt || now - changedAt >= kQuietSeconds;
  }
  void started() { pending = false; }
  // A job that took `millis` is in; pause = false: the next change need not wait (a job that was
  // not a drag's, such as a view completed at rest).
  void finished(double millis, bool pause = true) { freeAt = pause ? steadySeconds() + kPause * millis / 1000.0 : -1e300; }
  double sinceChange() const { return steadySeconds() - changedAt; }
};

// Handed to a running job: check cancelled() between chunks, report progress in [0, 1].
class JobControl {
 public:
  bool cancelled() const { return cancel_.load(std::memory_order_relaxed); }
  void setProgress(float p) { progress_.store(p, std::memory_order_relaxed); }

 private:
  friend class Worker;
  std::atomic<bool> cancel_{false};
  std::atomic<float> progress_{-1.0f};
};

// Thrown by a job (or by throwIfCancelled) to stop early; never reported as an error.
struct JobCancelled {};
inline void throwIfCancelled(const JobControl& jc) {
  if (jc.cancelled()) throw JobCancelled{};
}

// Background threads running type-erased jobs, latest request wins.
//
// On Linux the jobs run in the idle scheduling class (SCHED_IDLE): a core goes to them only when
// nothing else wants it, and the frame loop and the GL driver's threads (a software rasterizer
// works on every core) take it back the moment they wake. So a picture computed during a drag
// hardly stretches the drag's frames; it arrives a little later instead. A machine kept busy by
// other programs would starve such a thread, so a second thread of ordinary priority (nice 10)
// watches: once the running job has waited for a core more than kStarvedShare of the time for
// kStarvedAfter, it is started again on the watching thread and the starved run is cancelled (its
// result is dropped); a job the idle thread has not picked up within kStarvedAfter goes there too;
// and the jobs of the next kStarvedFor follow. Where the idle class or the scheduler's statistics
// (/proc/self/task/TID/schedstat) are missing, the watching thread runs every job, at nice 10.
// The destructor waits for the threads' running jobs, a starved one included.
class Worker {
 public:
  using Job = std::function<void(JobControl&)>;
  static constexpr std::chrono::milliseconds kStarvedAfter{100}, kStarvedFor{2000};
  static constexpr double kStarvedShare = 0.75;
  // How long the thread with kernel id tid has waited for a core, in ns; < 0 when unknown. The
  // default reads the kernel's schedstat; tests pass their own to starve a thread on demand.
  using CoreWaitProbe = long long (*)(int tid);
  static long long kernelCoreWait(int tid);

  explicit Worker(CoreWaitProbe probe = kernelCoreWait) : probe_(probe) {}
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void submit(Job job);        // replaces the pending job; the running one finishes first
  void runHere();              // without threads (platform::kThreads): runs the pending job now
  bool busy() const;           // a job is pending or running
  float progress() const;      // of the running job; < 0 when unknown
  void cancelAll();            // drop the pending job and cancel the running one
  int rescued() const;         // times the idle thread was found starved (tests, diagnostics)
  bool idleClass() const;      // jobs start in the idle scheduling class

 private:
  using Clock = std::chrono::steady_clock;
  struct Run {                 // a job running on one of the threads
    std::shared_ptr<const Job> job;
    std::shared_ptr<JobControl> control;
    Clock::time_point start;
    long long waitedNs = 0;    // the thread's time waiting for a core when the job started
    bool abandoned = false;    // starved, cancelled and started again on the watcher
  };
  void runIdle();
  void runWatcher();
  bool takeable(bool watcher, Clock::time_point now);   // may this thread take pending_? (lock held)
  void endStarvationIfDue(Clock::time_point now);       // (lock held)
  void execute(std::unique_lock<std::mutex>& lock, std::optional<Run>& slot, std::shared_ptr<const Job> job,
               long long waitedNs);
  bool starving(const Run& run, Clock::time_point now) const;

  CoreWaitProbe probe_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::thread idle_, watcher_;
  int idleTid_ = 0;            // the idle thread's kernel id; 0 until it runs (or without an idle class)
  bool idleClass_ = false;     // the idle thread got SCHED_IDLE and its scheduler statistics can be read
  std::optional<Job> pending_;
  Clock::time_point pendingSince_;               // when pending_ last went from empty to a job
  DragPacer pacer_;                              // platform::kPacedJobs: submits are changes, runs its jobs
  bool paced() const;                            // a pending job waits for the pause (lock held)
  std::optional<Run> idleRun_, watcherRun_;
  std::optional<Clock::time_point> starvedAt_;   // the watcher takes the jobs while set
  int rescued_ = 0;
  bool stop_ = false;
};

template <class T>
class AsyncResult {
 public:
  using Compute = std::function<T(JobControl&)>;

  AsyncResult() = default;
  explicit AsyncResult(Worker::CoreWaitProbe probe) : worker_(std::make_unique<Worker>(probe)) {}

  // Starts fn on the worker thread; supersedes any earlier request.
  void request(Compute fn) {
    const long long id = ++requested_;
    auto slot = slot_;
    worker_->submit([fn = std::move(fn), id, slot](JobControl& jc) {
      const auto t0 = std::chrono::steady_clock::now();
      try {
        T value = fn(jc);
        if (jc.cancelled()) return;
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::lock_guard lock(slot->mutex);
        if (id <= slot->readyId) return;   // a newer result is in, or cancelAll voided this one
        slot->ready = std::move(value);
        slot->readyId = id;
        slot->readyMs = ms;
        slot->readyError.clear();
      } catch (const JobCancelled&) {
      } catch (const std::bad_alloc&) {
        if (jc.cancelled()) return;
        std::lock_guard lock(slot->mutex);
        if (id <= slot->readyId) return;
        slot->readyId = id;
        slot->readyError = "out of memory: this needs more memory than is free here; choose a smaller size";
        slot->errorPending = true;
      } catch (const std::exception& e) {
        if (jc.cancelled()) return;
        std::lock_guard lock(slot->mutex);
        if (id <= slot->readyId) return;   // a newer result is in, or cancelAll voided this one
        slot->readyId = id;
        slot->readyError = e.what();
        slot->errorPending = true;
      }
    });
  }

  // Takes a finished result (UI thread). True when result() or error() changed. Without threads,
  // the latest request is computed here first.
  bool poll() {
    if constexpr (!platform::kThreads) worker_->runHere();
    std::lock_guard lock(slot_->mutex);
    bool changed = false;
    if (slot_->ready) {
      current_ = std::move(slot_->ready);
      slot_->ready.reset();
      millis_ = slot_->readyMs;
      error_.clear();
      changed = true;
    }
    if (slot_->errorPending) {
      error_ = slot_->readyError;
      slot_->errorPending = false;
      changed = true;
    }
    done_ = slot_->readyId;
    return changed;
  }

  const T* result() const { return current_ ? &*current_ : nullptr; }   // last good result
  T* result() { return current_ ? &*current_ : nullptr; }
  bool busy() const { return worker_->busy() || done_ < requested_; }
  float progress() const { return worker_->progress(); }
  double millis() const { return millis_; }                              // wall time of result()
  const std::string& error() const { return error_; }                    // last request's failure
  // Drops the waiting request and stops the running one; the last good result stays. A result
  // that finished but was not taken yet answers the same old inputs, and is dropped as well,
  // unless keepFinished (a job whose work is done once it finished, such as a written file, whose
  // message must still be told).
  void cancelAll(bool keepFinished = false) {
    worker_->cancelAll();
    std::lock_guard lock(slot_->mutex);
    slot_->readyId = std::max(slot_->readyId, requested_);
    if (keepFinished) return;
    slot_->ready.reset();
    slot_->errorPending = false;
  }
  void clearError() { error_.clear(); }
  const Worker& worker() const { return *worker_; }

  // Blocks until the latest request has finished (tests, screenshots); false on timeout.
  bool waitIdle(double timeoutSeconds = 30.0) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    while (std::chrono::steady_clock::now() < end) {
      poll();
      if (!busy()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
  }

 private:
  struct Slot {
    std::mutex mutex;
    std::optional<T> ready;
    long long readyId = 0;
    double readyMs = 0.0;
    std::string readyError;
    bool errorPending = false;
  };
  std::shared_ptr<Slot> slot_ = std::make_shared<Slot>();
  std::unique_ptr<Worker> worker_ = std::make_unique<Worker>();
  std::optional<T> current_;
  long long requested_ = 0;
  long long done_ = 0;
  double millis_ = 0.0;
  std::string error_;
};

}  // namespace posviz::app
