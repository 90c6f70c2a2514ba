// The kernels of the priorities and contention experiments (competition.cu),
// behind host functions that launch them: competition.cpp, which times them,
// is plain C++, and competition.cu holds only device code.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace csg::pool {

// Threads per flood block: 256 divides every GPU's threads per SM, so a
// full SM of flood blocks has no thread slot left for a short kernel's block.
inline constexpr int kFloodThreads = 256;

// The short kernels' work: a 32-bit linear congruential sequence (Numerical
// Recipes' constants), one dependent multiply-add per step (~4 cycles: 1024
// steps ~ 2 us at 1.98 GHz). n steps are one affine map, so the host checks
// every thread's result in O(1).
inline constexpr std::uint32_t kLcgMultiplier = 1664525u;
inline constexpr std::uint32_t kLcgIncrement = 1013904223u;

// What the flood blocks of one stream add up: the host knows how many blocks
// it launched there, so a missing, doubled or never-run block shows.
struct FloodCounters {
  unsigned long long full = 0;       // blocks that held their slot for the whole time
  unsigned long long skipped = 0;    // blocks that found the stop flag set and ended at once
  unsigned long long index_sum = 0;  // sum of (block index + 1) over both
};

// Each launch_* enqueues its kernel and nothing else: the caller checks the launch.
// A flood kernel of `blocks` blocks of kFloodThreads, each holding its slot for `hold_ns`.
void launch_flood(int blocks, cudaStream_t stream, unsigned long long hold_ns, const int* stop,
                  FloodCounters* counters);
// One thread sets the flood's stop flag.
void launch_stop_flood(cudaStream_t stream, int* stop);
// A short kernel: `steps` steps of the sequence per thread, from short_start.
void launch_short(int blocks, int threads, cudaStream_t stream, std::uint32_t* out, std::uint32_t sample, int steps,
                  std::uint32_t seed);
// A contention kernel: each block holds its SM for `hold_ns` with `shared_bytes` of shared memory.
void launch_hold(int blocks, int threads, int shared_bytes, cudaStream_t stream, unsigned long long hold_ns,
                 std::uint32_t* markers);
// Where thread `thread` of short kernel `sample` starts its sequence (the kernel's own function).
std::uint32_t short_start(std::uint32_t sample, std::uint32_t thread, std::uint32_t seed);

// cudaOccupancyMaxActiveBlocksPerMultiprocessor of either kernel.
cudaError_t flood_blocks_per_sm(int* blocks);
cudaError_t hold_blocks_per_sm(int* blocks, int threads, int shared_bytes);
// cudaFuncSetAttribute: the hold kernel's opt-in to `shared_bytes` of dynamic shared memory.
cudaError_t allow_hold_shared(int shared_bytes);

}  // namespace csg::pool
