// One stream per engine: the pipeline for the PCIe-bound regime.
//
// The article's pool gives each BATCH a stream; here each ENGINE gets one:
// every H2D copy goes on the H2D stream, every GEMM on the compute stream,
// every D2H copy on the D2H stream, and events carry each batch from one to
// the next. With a fast GEMM (cuBLAS) the D2H copies are the bottleneck
// (100 × 4 MiB at ~55 GB/s ≈ 7.8 ms), and measured on an H200 the pool loses
// time between them: consecutive D2H copies come from different streams, and
// the copy engine pauses a few µs each time it moves to another (~3 µs × 100
// ≈ 0.3 ms, 3% of the run). On one D2H stream the copies run back to back,
// as in the bound's both-ways measurement. With the naive kernel the kernels
// are the bottleneck, and one compute stream gives up what the pool gains by
// letting kernels of different streams fill each other's last partial wave.
//
// Device slots are reused as in the pool (batch b in slot b % slots), so the
// events also keep a slot from being overwritten while it is still read:
//   H2D(b)    waits for kernel(b - slots)  (it read A from this slot)
//   kernel(b) waits for H2D(b)             (its A has arrived)
//             and for D2H(b - slots)       (it read C from this slot)
//   D2H(b)    waits for kernel(b)          (its C is complete)
// One event per slot and kind is enough: cudaStreamWaitEvent waits for the
// event's most recent record at the time of the call, and the host issues
// batch b's waits before it re-records the slot's events for batch b.
#pragma once

#include <vector>

#include "cuda/stream_pool.hpp"
#include "measure/stage_sums.hpp"
#include "measure/timers.hpp"

namespace csg::pool {

class EngineStreams {
 public:
  // `device_slots`: the slots of the buffers the ops run on (BatchBuffers::device_slots).
  explicit EngineStreams(int device_slots);

  // The three streams: H2D (also where a run is timed from), compute, D2H.
  const StreamPool& streams() const { return streams_; }
  cudaStream_t h2d_stream() const { return streams_[0]; }
  cudaStream_t compute_stream() const { return streams_[1]; }
  cudaStream_t d2h_stream() const { return streams_[2]; }

  // Every batch 0 .. batches-1 through `ops` (the stage's own three calls),
  // each on its engine's stream, timed with `timer` from the H2D stream (the
  // timer's start is the fork, its stop the join); waits and returns the time.
  // `issued`, if given, gets the host's time to issue the run.
  Millis run(const BatchOps& ops, int batches, EventTimer& timer, Millis* issued = nullptr) const;

 private:
  int slots_;
  StreamPool streams_{3};
  std::vector<Event> h2d_done_;
  std::vector<Event> kernel_done_;
  std::vector<Event> d2h_done_;
};

}  // namespace csg::pool
