// jobs.hpp: where background work runs, the one difference of the platforms' job models.
//
//   The desktop, and a page that is cross-origin isolated (the threaded browser build), run each
//   view's jobs on worker threads (app/gui/widgets/worker.hpp) and training on its own pool.
//   A page without isolation has no threads at all: there submit() only keeps the latest job, and
//   the UI thread runs it between two frames (AsyncResult::poll); training advances in slices of
//   kSliceMillis per frame (TrainSession::runSlice), so Stop and the loss curve stay live.
#pragma once

namespace posviz::app::platform {

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
inline constexpr bool kThreads = false;
#else
inline constexpr bool kThreads = true;
#endif

// The page's threads (and its frames) have no priorities: a view's jobs would take a core from
// the browser's GPU process as readily as from an idle machine, where the desktop runs them in
// the idle scheduling class. So in the page each Worker paces its jobs as a DragPacer does
// (app/gui/widgets/worker.hpp): a job starts after a pause of DragPacer::kPause times the last
// one's time, or once no new job has been asked for within DragPacer::kQuietSeconds.
#if defined(__EMSCRIPTEN__)
inline constexpr bool kPacedJobs = true;
#else
inline constexpr bool kPacedJobs = false;
#endif

// Without threads: how long one frame gives to training before the page draws again.
inline constexpr double kSliceMillis = 25.0;

}  // namespace posviz::app::platform
