// The article's naive GEMM and its launch helper. One thread per element of C:
// thread (x, y) computes C[y][x] as the dot product of row y of A and column x
// of B. 32×32 = 1024 threads per block, as in the article.
#pragma once

#include <cuda_runtime.h>

#include "workload.hpp"

namespace csg {

inline constexpr int kNaiveBlockDim = 32;
static_assert(kNaiveBlockDim * kNaiveBlockDim <= 1024, "a block holds at most 1024 threads");

// gridDim.y is limited to 65535 blocks, so the naive kernel covers at most this
// many rows of C; option validation refuses larger --m before any CUDA call.
inline constexpr long long kMaxNaiveRows = 65535LL * kNaiveBlockDim;

// C = A · B for one batch, queued on `stream` (nullptr: the legacy default
// stream). Correct for every m, n, k ≥ 1; the launch is checked.
void launch_gemm_naive(const float* a, const float* b, float* c, GemmShape shape, cudaStream_t stream);

// Fills `count` floats at `device_ptr` with NaN (all bits set), queued on `stream`.
void poison_device(float* device_ptr, std::size_t count, cudaStream_t stream);

}  // namespace csg
