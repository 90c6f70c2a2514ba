// The common header of every lesson: what the article's programs share, and
// what the suite adds so that every run is checked, verified and timed.
//   check.hpp    CUDA_CHECK, CUDA_CHECK_LAUNCH: a failed call names itself, its file and line
//   owners.hpp   buffers, streams, events that free themselves; the event and host timers
//   batches.hpp  the article's workload, its data (init_data), the check of every batch,
//                and all of a run's buffers (h_A, h_B, h_C, d_A, d_B, d_C)
// and below, the article's kernel. Read this file, then those three.
#pragma once

#include <cuda_runtime.h>

#include "batches.hpp"
#include "check.hpp"
#include "owners.hpp"

namespace csg {

// The article's gemm_naive, as written there apart from const inputs and
// 64-bit row offsets (row * k overflows int past 2^31 elements): thread
// (x, y) computes C[y][x] as the dot product of row y of A and column x of B.
// Launch it as the article does, with naive_grid(shape) and naive_block().
// (static: each file that includes this header gets its own copy of the
// kernel, so that several files of one program can launch it.)
static __global__ void gemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  const int idx = threadIdx.x + blockDim.x * blockIdx.x;  // column of C
  const int idy = threadIdx.y + blockDim.y * blockIdx.y;  // row of C
  if (idy < M && idx < N) {
    float temp = 0;
    for (int k = 0; k < K; k++) {
      // the core: row idy of A times column idx of B
      temp += A[static_cast<long long>(idy) * K + k] * B[static_cast<long long>(k) * N + idx];
    }
    C[static_cast<long long>(idy) * N + idx] = temp;
  }
}

}  // namespace csg
