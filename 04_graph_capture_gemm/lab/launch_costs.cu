#include "04_graph_capture_gemm/lab/launch_costs_kernels.hpp"

#include "check.hpp"

namespace csg::graphs {
namespace {

__global__ void empty_kernel() {}

__global__ void count_launch(unsigned long long* counter) { *counter += 1; }

__device__ unsigned long long global_ns() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void latch(const volatile int* release, volatile int* timed_out, unsigned long long timeout_ns) {
  const unsigned long long start = global_ns();
  while (*release == 0) {
    if (global_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}

}  // namespace

void issue_chain(int ops, cudaStream_t stream) {
  for (int i = 0; i < ops; ++i) {
    empty_kernel<<<1, 1, 0, stream>>>();
    CUDA_CHECK_LAUNCH("empty_kernel");
  }
}

void issue_counting_chain(unsigned long long* counter, int ops, cudaStream_t stream) {
  for (int i = 0; i < ops; ++i) {
    count_launch<<<1, 1, 0, stream>>>(counter);
    CUDA_CHECK_LAUNCH("count_launch");
  }
}

void launch_latch(const volatile int* release, volatile int* timed_out, unsigned long long timeout_ns,
                  cudaStream_t stream) {
  latch<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns);
  CUDA_CHECK_LAUNCH("latch");
}

}  // namespace csg::graphs
