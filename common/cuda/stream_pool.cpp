#include "cuda/stream_pool.hpp"

#include <stdexcept>

namespace csg {

StreamPool::StreamPool(int size, unsigned stream_flags, int priority) {
  if (size < 1) throw std::invalid_argument("StreamPool needs at least one stream");
  streams_.reserve(static_cast<std::size_t>(size));
  join_events_.reserve(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) {
    streams_.emplace_back(stream_flags, priority);
    join_events_.emplace_back(cudaEventDisableTiming);
  }
}

void fork(const StreamPool& pool) {
  CUDA_CHECK(cudaEventRecord(pool.fork_event(), pool[0]));
  for (int s = 1; s < pool.size(); ++s) CUDA_CHECK(cudaStreamWaitEvent(pool[s], pool.fork_event(), 0));
}

void join(const StreamPool& pool) {
  for (int s = 1; s < pool.size(); ++s) {
    CUDA_CHECK(cudaEventRecord(pool.join_event(s), pool[s]));
    CUDA_CHECK(cudaStreamWaitEvent(pool[0], pool.join_event(s), 0));
  }
}

}  // namespace csg
