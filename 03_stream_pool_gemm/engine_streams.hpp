// One stream per engine (issue 9): the pipeline for the PCIe-bound regime.
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

#include "workload/batch_buffers.hpp"
#include "workload/gemm_backend.hpp"
#include "cuda/stream.hpp"
#include "workload/stream_pool.hpp"

namespace csg {

class EngineStreams {
 public:
  // `device_slots`: the slots of the buffers this will run on (BatchBuffers::device_slots).
  explicit EngineStreams(int device_slots);

  // The stream a timer starts and stops on: the others fork from it and join into it.
  cudaStream_t origin() const { return streams_[0]; }
  cudaStream_t h2d_stream() const { return streams_[0]; }
  cudaStream_t compute_stream() const { return streams_[1]; }
  cudaStream_t d2h_stream() const { return streams_[2]; }

  // Queues every batch of `buffers` (fork from origin(), the three streams,
  // join into origin()) and returns without waiting. Throws std::invalid_argument
  // if the buffers have a different slot count than this was made for.
  void issue(const Gemm& gemm, BatchBuffers& buffers) const;

 private:
  int slots_;
  StreamPool streams_{3};
  std::vector<Event> h2d_done_;
  std::vector<Event> kernel_done_;
  std::vector<Event> d2h_done_;
};

}  // namespace csg
