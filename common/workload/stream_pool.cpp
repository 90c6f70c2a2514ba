#include "workload/stream_pool.hpp"

#include <stdexcept>

#include "timeline/op_scope.hpp"


namespace csg {

std::string_view to_string(IssueOrder order) {
  return order == IssueOrder::depth_first ? "depth_first" : "breadth_first";
}

StreamPool::StreamPool(int size, unsigned stream_flags) {
  if (size < 1) throw std::invalid_argument("StreamPool needs at least one stream");
  streams_.reserve(static_cast<std::size_t>(size));
  join_events_.reserve(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) {
    streams_.emplace_back(stream_flags);
    join_events_.emplace_back(cudaEventDisableTiming);
  }
}

void StreamPool::fork_from(cudaStream_t origin) const {
  fork_event_.record(origin);
  for (const Stream& stream : streams_) {
    if (stream.get() != origin) CUDA_CHECK(cudaStreamWaitEvent(stream.get(), fork_event_.get(), 0));
  }
}

void StreamPool::join_into(cudaStream_t origin) const {
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    if (streams_[i].get() == origin) continue;
    join_events_[i].record(streams_[i].get());
    CUDA_CHECK(cudaStreamWaitEvent(origin, join_events_[i].get(), 0));
  }
}

// Each call is one OpScope: an NVTX range named by the op with the batch as
// payload, and a pair of events when a timeline is recorded with event pairs.
void enqueue_h2d(BatchBuffers& buffers, int batch, cudaStream_t stream) {
  const OpScope scope(OpKind::h2d, batch, stream, static_cast<double>(buffers.work().a_bytes()));
  CUDA_CHECK(cudaMemcpyAsync(buffers.device_a(batch), buffers.host_a(batch), buffers.work().a_bytes(),
                             cudaMemcpyHostToDevice, stream));
}

void enqueue_gemm(const Gemm& gemm, BatchBuffers& buffers, int batch, cudaStream_t stream) {
  const OpScope scope(OpKind::kernel, batch, stream);
  gemm.run(buffers.device_a(batch), buffers.device_b(), buffers.device_c(batch), buffers.work().shape, stream);
}

void enqueue_d2h(BatchBuffers& buffers, int batch, cudaStream_t stream) {
  const OpScope scope(OpKind::d2h, batch, stream, static_cast<double>(buffers.work().c_bytes()));
  CUDA_CHECK(cudaMemcpyAsync(buffers.host_c(batch), buffers.device_c(batch), buffers.work().c_bytes(),
                             cudaMemcpyDeviceToHost, stream));
}

}  // namespace csg
