// Event timing for the two multi-stream measurements of stage 02. Both start
// from one event on the first stream that the second stream waits for, so
// both streams' work is measured from the same instant on the GPU's clock.
//
// BidirectionalTimer: H2D on one stream and D2H on another at the same time;
//   the time from the common start until both have finished.
// OverlapTimeline: a busy kernel on one stream and a copy on another; when
//   each finished, measured from the common start.
#pragma once

#include "measure/stats.hpp"
#include "cuda/stream.hpp"
#include "measure/timers.hpp"

namespace csg {

class BidirectionalTimer {
 public:
  // Records the start on `h2d_stream`; `d2h_stream` waits for it.
  void start(cudaStream_t h2d_stream, cudaStream_t d2h_stream) {
    h2d_stream_ = h2d_stream;
    d2h_stream_ = d2h_stream;
    start_.record(h2d_stream_);
    CUDA_CHECK(cudaStreamWaitEvent(d2h_stream_, start_.get(), 0));
  }
  // Joins d2h_stream back into h2d_stream, records the stop there, waits.
  Millis stop() {
    d2h_done_.record(d2h_stream_);
    CUDA_CHECK(cudaStreamWaitEvent(h2d_stream_, d2h_done_.get(), 0));
    stop_.record(h2d_stream_);
    stop_.synchronize();
    return elapsed_between(start_, stop_);
  }

 private:
  Event start_;
  Event d2h_done_{cudaEventDisableTiming};
  Event stop_;
  cudaStream_t h2d_stream_ = nullptr;
  cudaStream_t d2h_stream_ = nullptr;
};

class OverlapTimeline {
 public:
  // Records the common start on `kernel_stream`; `copy_stream` waits for it
  // (an event that has already happened: no dependency on any kernel).
  void begin(cudaStream_t kernel_stream, cudaStream_t copy_stream) {
    kernel_stream_ = kernel_stream;
    copy_stream_ = copy_stream;
    start_.record(kernel_stream_);
    CUDA_CHECK(cudaStreamWaitEvent(copy_stream_, start_.get(), 0));
  }
  // Records the end of each stream's work and waits for both.
  void end() {
    kernel_end_.record(kernel_stream_);
    copy_end_.record(copy_stream_);
    kernel_end_.synchronize();
    copy_end_.synchronize();
  }
  Millis kernel_end() const { return elapsed_between(start_, kernel_end_); }
  Millis copy_end() const { return elapsed_between(start_, copy_end_); }

 private:
  Event start_;
  Event kernel_end_;
  Event copy_end_;
  cudaStream_t kernel_stream_ = nullptr;
  cudaStream_t copy_stream_ = nullptr;
};

}  // namespace csg
