#include "cuda/stream_pool.hpp"

namespace csg {

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
