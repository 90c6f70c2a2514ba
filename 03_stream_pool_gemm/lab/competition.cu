// The kernels of competition_kernels.hpp and the host functions that launch them.
#include "03_stream_pool_gemm/lab/competition_kernels.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace csg::pool {
namespace {

// A holding warp sleeps this long between reads of the clock: it keeps its
// slot without taking issue cycles from a short kernel's warps on the same SM.
constexpr unsigned kHoldNapNs = 200;

__device__ unsigned long long global_time_ns() {
  unsigned long long now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// Every thread holds its slot until `end_ns` on the GPU's nanosecond clock:
// the block's time is set, whatever the SM clock.
__device__ void hold_until(unsigned long long end_ns) {
  while (global_time_ns() < end_ns) __nanosleep(kHoldNapNs);
}

// A flood block holds its slot for `hold_ns`, unless the stop flag was set
// before it started: the flood ends as soon as the short kernels are done,
// instead of after everything queued for the worst case.
__global__ void flood_kernel(unsigned long long hold_ns, const volatile int* stop, FloodCounters* counters) {
  __shared__ int stopped;
  const unsigned long long start = global_time_ns();
  if (threadIdx.x == 0) stopped = *stop;
  __syncthreads();
  if (!stopped) hold_until(start + hold_ns);
  if (threadIdx.x == 0) {
    atomicAdd(stopped ? &counters->skipped : &counters->full, 1ull);
    atomicAdd(&counters->index_sum, blockIdx.x + 1ull);
  }
}

__global__ void stop_flood(int* stop) {
  volatile int* flag = stop;
  *flag = 1;
  __threadfence();
}

static_assert(kFloodThreads % 32 == 0, "flood blocks are whole warps");

// The golden-ratio and MurmurHash3 multipliers spread the indices over 32 bits.
__host__ __device__ std::uint32_t start_of(std::uint32_t sample, std::uint32_t thread, std::uint32_t seed) {
  return (sample * 0x9E3779B9u) ^ (thread * 0x85EBCA6Bu) ^ seed;
}

__global__ void short_kernel(std::uint32_t* out, std::uint32_t sample, int steps, std::uint32_t seed) {
  const std::uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
  std::uint32_t x = start_of(sample, thread, seed);
  // Not unrolled: unrolled, the compiler folds k steps into one multiply-add
  // (the same affine trick as the host's check), and the work would shrink k-fold.
#pragma unroll 1
  for (int i = 0; i < steps; ++i) x = x * kLcgMultiplier + kLcgIncrement;
  out[thread] = x;
}

// A contention block: fills its dynamic shared memory (so the memory is
// really used), holds its SM for `hold_ns`, and writes block index + 1, read
// back through the last word of shared memory where it has any.
__global__ void hold_kernel(unsigned long long hold_ns, std::uint32_t* markers, int shared_words) {
  extern __shared__ std::uint32_t scratch[];
  const unsigned long long start = global_time_ns();
  for (int i = threadIdx.x; i < shared_words; i += blockDim.x) scratch[i] = blockIdx.x + 1u + std::uint32_t(i);
  __syncthreads();
  hold_until(start + hold_ns);
  if (threadIdx.x == 0) {
    markers[blockIdx.x] =
        shared_words > 0 ? scratch[shared_words - 1] - std::uint32_t(shared_words - 1) : blockIdx.x + 1u;
  }
}

}  // namespace

void launch_flood(int blocks, cudaStream_t stream, unsigned long long hold_ns, const int* stop,
                  FloodCounters* counters) {
  flood_kernel<<<blocks, kFloodThreads, 0, stream>>>(hold_ns, stop, counters);
}

void launch_stop_flood(cudaStream_t stream, int* stop) { stop_flood<<<1, 1, 0, stream>>>(stop); }

void launch_short(int blocks, int threads, cudaStream_t stream, std::uint32_t* out, std::uint32_t sample, int steps,
                  std::uint32_t seed) {
  short_kernel<<<blocks, threads, 0, stream>>>(out, sample, steps, seed);
}

void launch_hold(int blocks, int threads, int shared_bytes, cudaStream_t stream, unsigned long long hold_ns,
                 std::uint32_t* markers) {
  hold_kernel<<<blocks, threads, static_cast<std::size_t>(shared_bytes), stream>>>(
      hold_ns, markers, shared_bytes / int(sizeof(std::uint32_t)));
}

std::uint32_t short_start(std::uint32_t sample, std::uint32_t thread, std::uint32_t seed) {
  return start_of(sample, thread, seed);
}

cudaError_t flood_blocks_per_sm(int* blocks) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, flood_kernel, kFloodThreads, 0);
}

cudaError_t hold_blocks_per_sm(int* blocks, int threads, int shared_bytes) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, hold_kernel, threads,
                                                       static_cast<std::size_t>(shared_bytes));
}

cudaError_t allow_hold_shared(int shared_bytes) {
  return cudaFuncSetAttribute(hold_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
}

}  // namespace csg::pool
