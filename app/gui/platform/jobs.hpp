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

// Without threads: how long one frame gives to training before the page draws again.
inline constexpr double kSliceMillis = 25.0;

}  // namespace posviz::app::platform
