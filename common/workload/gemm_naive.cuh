// The article's kernel, declared for the stages that launch it themselves
// with the article's <<<grid, block, 0, stream>>> (its body is in
// gemm_kernels.cu, unchanged from the article apart from const inputs and
// 64-bit row offsets). One thread per element of C: thread (x, y) computes
// C[y][x] as the dot product of row y of A and column x of B, 32×32 threads
// per block (kNaiveBlockDim), the grid rounded up to cover all of C.
#pragma once

#include <cuda_runtime.h>

#include "workload/gemm.hpp"

namespace csg {

__global__ void gemm_naive(const float* a, const float* b, float* c, int m, int n, int k);

// The article's launch shape for an m×n C: dim3 blocksize(32, 32) and
// gridsize((N + 31) / 32, (M + 31) / 32).
inline dim3 naive_block() { return dim3(kNaiveBlockDim, kNaiveBlockDim); }
inline dim3 naive_grid(GemmShape shape) {
  return dim3((shape.n + kNaiveBlockDim - 1) / kNaiveBlockDim, (shape.m + kNaiveBlockDim - 1) / kNaiveBlockDim);
}

}  // namespace csg
