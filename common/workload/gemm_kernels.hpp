// The suite's own GEMM kernels and their launch helpers (gemm_backend.cuh
// picks one, or cuBLAS, per run).
//   naive: the article's kernel. One thread per element of C: thread (x, y)
//          computes C[y][x] as the dot product of row y of A and column x of B.
//          32×32 = 1024 threads per block, as in the article.
//   tiled: shared-memory tiles, a 4×4 block of C per thread (gemm_tiles.hpp).
// Both add the k products of each element in the same order with fused
// multiply-adds, so on any data they give the same bits.
#pragma once

#include <cuda_runtime.h>

#include "workload/gemm_tiles.hpp"
#include "workload/workload.hpp"

namespace csg {

// C = A · B for one batch, queued on `stream` (nullptr: the legacy default
// stream). Correct for every m, n, k ≥ 1; the launch is checked.
void launch_gemm_naive(const float* a, const float* b, float* c, GemmShape shape, cudaStream_t stream);
void launch_gemm_tiled(const float* a, const float* b, float* c, GemmShape shape, cudaStream_t stream);

// Fills `count` floats at `device_ptr` with NaN (all bits set), queued on `stream`.
void poison_device(float* device_ptr, std::size_t count, cudaStream_t stream);

}  // namespace csg
