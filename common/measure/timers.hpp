// The suite's timers. One event timer for device work, on one stream or on
// several at once; one host timer for the CPU's side (API calls, issue time).
// All return csg::Millis.
//
//   csg::EventTimer timer;
//   timer.start(stream);                        // one stream
//   ... queue work on stream ...
//   const csg::Millis ms = timer.stop();        // waits for it
//
//   timer.start(h2d_stream, {d2h_stream});      // two streams from one instant
//   ... queue copies on both ...
//   timer.stop();                               // until both have finished
//   timer.end_of(1);                            // when d2h_stream's work ended
#pragma once

#include <chrono>
#include <initializer_list>
#include <vector>

#include "cuda/stream.hpp"
#include "measure/stats.hpp"

namespace csg {

// The time from event `from` to event `to`, both recorded and complete
// (cudaEventElapsedTime: ~0.5 µs resolution; both need timing enabled).
Millis elapsed_between(cudaEvent_t from, cudaEvent_t to);

// CUDA events around a region of device work (resolution about 0.5 µs).
// With other streams, start() records one event on the first stream that
// every other stream waits for, so all of them are timed from the same
// instant on the GPU's clock; stop() records where each stream's work ends,
// makes the first stream wait for all, and records the stop there. Events
// are created once and reused: none is created inside a timed region after
// the first run with that many streams (a warm-up round).
class EventTimer {
 public:
  // Records the start on `first` (nullptr: the legacy default stream); each of
  // `others` waits for it.
  void start(cudaStream_t first, std::initializer_list<cudaStream_t> others = {});
  void start(cudaStream_t first, const std::vector<cudaStream_t>& others);
  // Records the end of every stream's work, joins them into the first, records
  // the stop there, waits for it and returns start -> stop.
  Millis stop();
  // After stop(): start -> the end of the work queued on stream `index` (0: the
  // first stream, before it waited for the others; 1..: `others` in order).
  Millis end_of(std::size_t index) const;

 private:
  void ensure_events(std::size_t streams);
  Event start_;
  Event stop_;
  std::vector<Event> ends_;  // one per stream timed; only with others
  std::vector<cudaStream_t> streams_;
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

// Host time of `body` followed by a synchronise of `stream`, both inside the
// timer: "launch and wait until done".
template <class Body>
Millis host_synchronised(cudaStream_t stream, Body&& body) {
  const HostTimer timer;
  body();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return timer.elapsed();
}

}  // namespace csg
