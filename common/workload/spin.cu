#include "workload/spin.hpp"

#include <stdexcept>

#include "check.hpp"

namespace csg {
namespace {

constexpr int kSpinThreadsPerBlock = 32;  // one warp per block: enough to occupy each SM's scheduler

__device__ unsigned long long global_time_ns() {
  unsigned long long now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void spin_kernel(unsigned long long duration_ns) {
  const unsigned long long start = global_time_ns();
  // The volatile asm in the condition keeps the loop: it can't be optimised away.
  while (global_time_ns() - start < duration_ns) {
  }
}

}  // namespace

void launch_spin(std::chrono::nanoseconds duration, int blocks, cudaStream_t stream) {
  if (duration.count() <= 0 || blocks <= 0) throw std::invalid_argument("launch_spin: a duration and a block count of at least 1");
  spin_kernel<<<blocks, kSpinThreadsPerBlock, 0, stream>>>(static_cast<unsigned long long>(duration.count()));
  CUDA_CHECK_LAUNCH("spin_kernel");
}

}  // namespace csg
