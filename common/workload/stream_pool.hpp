// The article's stream pool and the per-batch work queued on it.
//
// StreamPool owns `size` streams and the events that fork work from an origin
// stream onto all of them and join it back: the pattern stage 03 times and
// stage 04 captures. Batch i runs on stream i % size, so the batches sharing a
// stream run in order and may share one device slot (BatchBuffers).
//
// enqueue_h2d / enqueue_gemm / enqueue_d2h are the three calls of the
// article's loop body for one batch, queued on a stream and checked; the
// stages write the loop itself, since the order of those calls is the lesson.
#pragma once

#include <string_view>
#include <vector>

#include "workload/batch_buffers.hpp"
#include "workload/gemm_backend.hpp"
#include "cuda/stream.hpp"

namespace csg {

// How the loop over batches issues the work onto the pool:
//   depth_first:   batch 0: H2D K D2H, batch 1: H2D K D2H, ...  (the article's loop)
//   breadth_first: in waves of one batch per stream: the wave's H2Ds, then
//                  its kernels, then its D2Hs
// Both give each stream the same sequence of operations (H2D K D2H per batch,
// so streams may reuse device slots); they differ in the order the host
// queues them, which matters when streams alias onto fewer hardware queues
// (CUDA_DEVICE_MAX_CONNECTIONS) than there are streams. Issuing ALL H2Ds
// first would not do: a stream would copy batch i+pool into a slot before
// batch i's kernel had read it.
enum class IssueOrder { depth_first, breadth_first };

std::string_view to_string(IssueOrder order);

class StreamPool {
 public:
  // The article's cudaStreamCreate gives blocking streams (cudaStreamDefault).
  explicit StreamPool(int size, unsigned stream_flags = cudaStreamDefault);

  int size() const noexcept { return static_cast<int>(streams_.size()); }
  cudaStream_t operator[](int index) const { return streams_.at(static_cast<std::size_t>(index)).get(); }
  // The stream the article gives batch `batch`.
  cudaStream_t for_batch(int batch) const { return (*this)[batch % size()]; }

  // fork: record one event on `origin`; every pool stream other than `origin`
  // waits on it, so the work queued next starts after what `origin` already holds.
  void fork_from(cudaStream_t origin) const;
  // join: every pool stream other than `origin` records its event; `origin`
  // waits on all of them, so what `origin` queues next runs after all the work.
  void join_into(cudaStream_t origin) const;

 private:
  std::vector<Stream> streams_;
  // Events that only order work (never timed), as the article's fork/join needs.
  Event fork_event_{cudaEventDisableTiming};
  std::vector<Event> join_events_;
};

// The article's loop body for one batch, queued on `stream`:
//   H2D:    cudaMemcpyAsync(d_A[slot], h_A[batch], a_bytes, HostToDevice, stream)
//   kernel: C_slot = A_slot · B with the run's GEMM (`gemm`: the article's naive kernel by default) on `stream`
//   D2H:    cudaMemcpyAsync(h_C[batch], d_C[slot], c_bytes, DeviceToHost, stream)
void enqueue_h2d(BatchBuffers& buffers, int batch, cudaStream_t stream);
void enqueue_gemm(const Gemm& gemm, BatchBuffers& buffers, int batch, cudaStream_t stream);
void enqueue_d2h(BatchBuffers& buffers, int batch, cudaStream_t stream);

}  // namespace csg
