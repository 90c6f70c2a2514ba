// CaptureGuard: makes sure a stream capture on a StreamPool never outlives an
// exception. Create it right after cudaStreamBeginCapture on a pool stream;
// if the scope is left by a throw (a failed capture-time call, or
// cudaStreamEndCapture refusing the graph), its destructor ends any capture
// still open on the pool's streams and discards the partial graph, so the
// streams can be used, and captured, again. On the normal path it does nothing
// (no extra API calls inside a timed capture).
#pragma once

#include <exception>

#include "experiment/lab.hpp"

namespace csg::graphs {

// True if any stream of the pool takes part in a capture (active or
// invalidated): after a capture has ended, successfully or not, this must be false.
bool any_capturing(const StreamPool& pool);

// Ends every capture still open on the pool's streams (stream 0 first: ending
// the origin takes every stream that joined its capture out of capture mode),
// destroys whatever graph that returns, and clears the runtime's last error.
void abandon_capture(const StreamPool& pool) noexcept;

// One stream's capture of what `issue` queues on it (ThreadLocal mode: other
// threads' CUDA calls can't invalidate it), as a graph. A throw inside
// `issue` ends the capture and drops its partial graph before it leaves.
template <class Issue>
Graph capture_on(cudaStream_t stream, Issue&& issue) {
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    issue();
  } catch (...) {
    cudaGraph_t dropped = nullptr;
    static_cast<void>(cudaStreamEndCapture(stream, &dropped));
    if (dropped != nullptr) static_cast<void>(cudaGraphDestroy(dropped));
    throw;
  }
  return end_capture(stream);
}

class CaptureGuard {
 public:
  explicit CaptureGuard(const StreamPool& pool) noexcept
      : pool_(pool), exceptions_at_start_(std::uncaught_exceptions()) {}
  ~CaptureGuard() {
    if (std::uncaught_exceptions() > exceptions_at_start_) abandon_capture(pool_);
  }
  CaptureGuard(const CaptureGuard&) = delete;
  CaptureGuard& operator=(const CaptureGuard&) = delete;

 private:
  const StreamPool& pool_;
  int exceptions_at_start_;
};

}  // namespace csg::graphs
