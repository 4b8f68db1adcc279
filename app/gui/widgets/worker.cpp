#include "app/gui/widgets/worker.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "core/parallel.hpp"

namespace posviz::app {

namespace {

// What both threads share: one core fewer than the machine has for the jobs' own threads, so
// that the frame loop and the GL driver keep one.
void capJobThreads() { threadCapOfThisThread() = std::max(1, hardwareThreads() - 1); }

// Linux's thread names, idle class and priorities. A page's worker threads have none of them:
// there the jobs simply run at the page's priority (and the watcher, finding no idle class, takes
// every job, as on a Linux without one).
#if defined(__linux__)
int threadId() { return static_cast<int>(gettid()); }
void nameThread(const char* name) { pthread_setname_np(pthread_self(), name); }
bool enterIdleClass() {
  sched_param none{};
  return sched_setscheduler(0, SCHED_IDLE, &none) == 0;
}
void lowerPriority(int tid) { setpriority(PRIO_PROCESS, static_cast<id_t>(tid), 10); }
#else
int threadId() { return 0; }
void nameThread(const char*) {}
bool enterIdleClass() { return false; }
void lowerPriority(int) {}
#endif

}  // namespace

// The second field of the thread's schedstat; -1 when the kernel does not say.
long long Worker::kernelCoreWait(int tid) {
  std::ifstream f("/proc/self/task/" + std::to_string(tid) + "/schedstat");
  long long onCpu = 0, waited = -1;
  if (!(f >> onCpu >> waited)) return -1;
  return waited;
}

Worker::~Worker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    pending_.reset();
    for (std::optional<Run>* r : {&idleRun_, &watcherRun_})
      if (*r) (*r)->control->cancel_.store(true);
  }
  cv_.notify_all();
  if (idle_.joinable()) idle_.join();
  if (watcher_.joinable()) watcher_.join();
}

void Worker::submit(Job job) {
  {
    std::lock_guard lock(mutex_);
    if (!pending_) pendingSince_ = Clock::now();
    pacer_.change();
    pending_ = std::move(job);
    if (!platform::kThreads) return;   // runHere() takes it
    if (!idle_.joinable()) {
      idle_ = std::thread([this] { runIdle(); });
      watcher_ = std::thread([this] { runWatcher(); });
    }
  }
  cv_.notify_all();
}

void Worker::runHere() {
  std::unique_lock lock(mutex_);
  if (platform::kThreads || !pending_ || watcherRun_ || paced()) return;
  auto job = std::make_shared<const Job>(std::move(*pending_));
  pending_.reset();
  execute(lock, watcherRun_, std::move(job), -1);
}

bool Worker::busy() const {
  std::lock_guard lock(mutex_);
  // A starved run that was started again on the watcher no longer counts.
  return pending_.has_value() || (idleRun_ && !idleRun_->abandoned) || watcherRun_.has_value();
}

float Worker::progress() const {
  std::lock_guard lock(mutex_);
  if (watcherRun_) return watcherRun_->control->progress_.load();
  return idleRun_ ? idleRun_->control->progress_.load() : -1.0f;
}

void Worker::cancelAll() {
  std::lock_guard lock(mutex_);
  pending_.reset();
  for (std::optional<Run>* r : {&idleRun_, &watcherRun_})
    if (*r) (*r)->control->cancel_.store(true);
}

int Worker::rescued() const {
  std::lock_guard lock(mutex_);
  return rescued_;
}

bool Worker::idleClass() const {
  std::lock_guard lock(mutex_);
  return idleClass_;
}

// The watcher takes the jobs while the idle thread is starved and for kStarvedFor after; then,
// once the idle thread is free, it is told to take them back, and a job already waiting gets a
// fresh kStarvedAfter to be picked up.
void Worker::endStarvationIfDue(Clock::time_point now) {
  if (!starvedAt_ || now - *starvedAt_ <= kStarvedFor || idleRun_) return;
  starvedAt_.reset();
  pendingSince_ = now;
  cv_.notify_all();
}

bool Worker::takeable(bool watcher, Clock::time_point now) {
  if (!pending_) return false;
  endStarvationIfDue(now);
  const bool toWatcher = !idleClass_ || starvedAt_.has_value();
  if (watcher && toWatcher && paced()) return false;
  return watcher ? toWatcher && !watcherRun_ : !toWatcher;
}

bool Worker::paced() const { return platform::kPacedJobs && !pacer_.ready(); }

// Runs job on this thread as `slot`'s run, with the lock released while it runs.
void Worker::execute(std::unique_lock<std::mutex>& lock, std::optional<Run>& slot, std::shared_ptr<const Job> job,
                     long long waitedNs) {
  auto control = std::make_shared<JobControl>();
  slot = Run{job, control, Clock::now(), waitedNs, false};
  cv_.notify_all();   // the watcher starts watching
  lock.unlock();
  try {
    (*job)(*control);
  } catch (...) {
    // Jobs report their own errors (AsyncResult catches); nothing may escape the thread.
  }
  lock.lock();
  if (platform::kPacedJobs) pacer_.finished(std::chrono::duration<double, std::milli>(Clock::now() - slot->start).count());
  slot.reset();
  cv_.notify_all();
}

bool Worker::starving(const Run& run, Clock::time_point now) const {
  const auto wall = std::chrono::duration_cast<std::chrono::nanoseconds>(now - run.start).count();
  if (now - run.start < kStarvedAfter || run.waitedNs < 0) return false;
  const long long waited = probe_(idleTid_);
  return waited >= 0 && static_cast<double>(waited - run.waitedNs) > kStarvedShare * static_cast<double>(wall);
}

void Worker::runIdle() {
  nameThread("posviz-jobs");   // for top, perf and debuggers
  const int tid = threadId();
  const bool idleClass = enterIdleClass() && probe_(tid) >= 0;
  if (!idleClass) lowerPriority(tid);
  capJobThreads();
  std::unique_lock lock(mutex_);
  idleTid_ = tid;
  idleClass_ = idleClass;
  cv_.notify_all();   // the watcher may now take jobs in its place
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || takeable(false, Clock::now()); });
    if (stop_) return;
    auto job = std::make_shared<const Job>(std::move(*pending_));
    pending_.reset();
    execute(lock, idleRun_, std::move(job), probe_(tid));
  }
}

void Worker::runWatcher() {
  // Below the UI thread in the scheduler, but in the ordinary class: it gets a share of a busy
  // machine, where the idle thread would get none.
  nameThread("posviz-watch");
  lowerPriority(threadId());
  capJobThreads();
  std::unique_lock lock(mutex_);
  for (;;) {
    // While a job waits or runs on the idle thread, look at it every 20 ms; else sleep until told.
    auto idleLive = [this] { return idleRun_.has_value() && !idleRun_->abandoned; };
    if (pending_ || idleLive()) cv_.wait_for(lock, std::chrono::milliseconds(20));
    else cv_.wait(lock, [&] { return stop_ || pending_.has_value() || idleLive(); });
    if (stop_) return;
    const Clock::time_point now = Clock::now();
    endStarvationIfDue(now);
    if (idleLive() && !watcherRun_ && starving(*idleRun_, now)) {
      // Start the starved job again here; its first run's result is dropped.
      idleRun_->control->cancel_.store(true);
      idleRun_->abandoned = true;
      starvedAt_ = now;
      ++rescued_;
      execute(lock, watcherRun_, idleRun_->job, -1);
      continue;
    }
    // A free idle thread that has not even woken to take a job is starved as well.
    if (pending_ && idleClass_ && !idleRun_ && !starvedAt_ && now - pendingSince_ > kStarvedAfter) {
      starvedAt_ = now;
      ++rescued_;
    }
    if (takeable(true, now)) {
      auto job = std::make_shared<const Job>(std::move(*pending_));
      pending_.reset();
      execute(lock, watcherRun_, std::move(job), -1);
    }
  }
}

}  // namespace posviz::app
