// EventTimer times device work with a pair of CUDA events around a region of
// one stream (resolution about 0.5 µs). HostTimer times host-side cost (API
// calls, issue time) with std::chrono::steady_clock; host_issue_time times
// only the queueing of work. All return csg::Millis.
#pragma once

#include <chrono>

#include "measure/stats.hpp"
#include "cuda/stream.hpp"

namespace csg {

// The time from event `from` to event `to`, both recorded and complete
// (cudaEventElapsedTime: ~0.5 µs resolution; both need timing enabled).
inline Millis elapsed_between(const Event& from, const Event& to) {
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
  return Millis(static_cast<double>(ms));
}

class EventTimer {
 public:
  // Records the start event on `stream` (nullptr: the legacy default stream).
  void start(cudaStream_t stream) {
    stream_ = stream;
    start_.record(stream_);
  }
  // Records the stop event on the same stream, waits for it, returns the time between.
  Millis stop() {
    stop_.record(stream_);
    stop_.synchronize();
    return elapsed_between(start_, stop_);
  }

 private:
  Event start_;
  Event stop_;
  cudaStream_t stream_ = nullptr;
};

class HostTimer {
 public:
  HostTimer() : start_(std::chrono::steady_clock::now()) {}
  void restart() { start_ = std::chrono::steady_clock::now(); }
  Millis elapsed() const { return std::chrono::steady_clock::now() - start_; }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Host time of issuing `body` alone: `stream` is synchronised after the timer
// stops, so what is measured is the CPU cost of queueing the work, not of
// running it (stage 04: one cudaGraphLaunch against the same work on streams).
template <class Body>
Millis host_issue_time(cudaStream_t stream, Body&& body) {
  const HostTimer timer;
  body();
  const Millis issue = timer.elapsed();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return issue;
}

}  // namespace csg
