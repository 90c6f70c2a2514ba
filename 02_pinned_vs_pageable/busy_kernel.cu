#include "busy_kernel.hpp"

#include <stdexcept>

#include "check.hpp"

namespace csg::copies {
namespace {

constexpr int kBusyThreadsPerBlock = 32;  // one warp per block: enough to occupy each SM's scheduler

__device__ unsigned long long global_time_ns() {
  unsigned long long now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void busy_kernel(unsigned long long duration_ns) {
  const unsigned long long start = global_time_ns();
  // The volatile asm in the condition keeps the loop: it can't be optimised away.
  while (global_time_ns() - start < duration_ns) {
  }
}

}  // namespace

void launch_busy_kernel(std::chrono::nanoseconds duration, int blocks, cudaStream_t stream) {
  if (duration.count() <= 0 || blocks <= 0) throw std::invalid_argument("launch_busy_kernel: bad duration or block count");
  busy_kernel<<<blocks, kBusyThreadsPerBlock, 0, stream>>>(static_cast<unsigned long long>(duration.count()));
  CUDA_CHECK_LAUNCH("busy_kernel");
}

}  // namespace csg::copies
