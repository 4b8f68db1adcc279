// parallel.hpp: split a range of rows over a few std::threads, and nothing more.
//
// USAGE
//   parallelFor(numRows, numThreads, grain, [&](long long begin, long long end) { ... });
//   Calls fn on disjoint, contiguous blocks that cover [0, numRows) exactly once. Block
//   boundaries are multiples of grain (except the last end), so a kernel that restarts some
//   state every grain rows gives the same bits whatever the thread count. The calling thread
//   runs the first block; the others run on fresh std::threads that are joined before return.
//   No pool and no spinning: starting a thread costs tens of microseconds, which only matters
//   for outputs far below the sizes worth splitting (see kDefaultParallelMinBytes).
//
//   parallelTasks(count, numThreads, [&](long long task) { ... });
//   Runs fn once for every task 0 .. count-1, the threads taking the next task as they finish
//   one (for tasks of unequal size). Each task runs with the thread cap 1, so what it calls
//   stays on its thread instead of splitting again. After a task throws, no new task starts.
//
// ERRORS
//   An exception thrown by fn on any thread is rethrown on the calling thread after every
//   thread has been joined (the first one caught wins).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace posviz {

// Outputs smaller than this stay on the calling thread: the split only pays off once the work
// is well past thread start-up and past what one core's share of the caches holds.
constexpr std::size_t kDefaultParallelMinBytes = std::size_t{32} << 20;

// The most threads hardwareThreads() answers on the calling thread; 0 = no cap. Per thread: a
// GUI's worker caps itself so that its pictures leave a core to the frame loop.
inline int& threadCapOfThisThread() {
  thread_local int cap = 0;
  return cap;
}

// std::thread::hardware_concurrency(), at least 1, at most the calling thread's cap.
inline int hardwareThreads() {
  const unsigned n = std::thread::hardware_concurrency();
  const int threads = n == 0 ? 1 : static_cast<int>(n);
  const int cap = threadCapOfThisThread();
  return cap > 0 ? std::min(threads, cap) : threads;
}

// How many threads a job of outputBytes gets: 1 below minBytes, else maxThreads
// (0 = hardwareThreads()).
inline int threadsForBytes(std::size_t outputBytes, int maxThreads, std::size_t minBytes = kDefaultParallelMinBytes) {
  if (outputBytes < minBytes) return 1;
  return maxThreads <= 0 ? hardwareThreads() : maxThreads;
}

template <class Fn>
void parallelFor(long long numRows, int numThreads, long long grain, Fn&& fn) {
  if (numRows <= 0) return;
  grain = std::max(grain, 1LL);
  const long long numGrains = (numRows + grain - 1) / grain;
  const long long threads = std::clamp<long long>(numThreads, 1, numGrains);
  if (threads == 1) {
    fn(0LL, numRows);
    return;
  }
  std::exception_ptr error;
  std::mutex errorMutex;
  auto runBlock = [&](long long t) {
    const long long begin = std::min(numRows, numGrains * t / threads * grain);
    const long long end = std::min(numRows, numGrains * (t + 1) / threads * grain);
    try {
      if (begin < end) fn(begin, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(errorMutex);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(static_cast<std::size_t>(threads - 1));
  long long t = 1;
  try {
    for (; t < threads; ++t) workers.emplace_back(runBlock, t);
  } catch (const std::system_error&) {
    for (; t < threads; ++t) runBlock(t);  // no thread to be had: do its block here
  }
  runBlock(0);
  for (auto& w : workers) w.join();
  if (error) std::rethrow_exception(error);
}

template <class Fn>
void parallelTasks(long long count, int numThreads, Fn&& fn) {
  if (count <= 0) return;
  std::atomic<long long> next{0};
  std::atomic<bool> failed{false};
  parallelFor(std::min<long long>(count, std::max(numThreads, 1)), numThreads, 1, [&](long long, long long) {
    struct CapOne {   // the thread's cap is 1 while it runs tasks, and back as it was after, however it leaves
      int saved = threadCapOfThisThread();
      CapOne() { threadCapOfThisThread() = 1; }
      ~CapOne() { threadCapOfThisThread() = saved; }
    } cap;
    try {
      for (long long task = next++; task < count && !failed; task = next++) fn(task);
    } catch (...) {
      failed = true;
      throw;
    }
  });
}

}  // namespace posviz
