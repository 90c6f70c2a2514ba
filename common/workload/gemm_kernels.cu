// The suite's own GEMM kernels (shapes and napkin math in gemm.hpp): the
// article's, launched for the laboratory, and the tiled one.
#include "common.cuh"
#include "workload/gemm.hpp"

namespace csg {

void launch_gemm_naive(const float* a, const float* b, float* c, GemmShape shape, cudaStream_t stream) {
  gemm_naive<<<naive_grid(shape), naive_block(), 0, stream>>>(a, b, c, shape.m, shape.n, shape.k);
  CUDA_CHECK_LAUNCH("gemm_naive");
}

// The tiled GEMM: the naive kernel's arithmetic, with every input element read
// from global memory 64× fewer times (the tiles and napkin math: gemm.hpp).
//
// Why it gives the same bits as the naive kernel: each element of C is still
// sum += A[row][i] * B[i][col] for i = 0, 1, ..., k-1, one fused multiply-add
// at a time, in that order. Past the matrix edges the slices are padded with
// zeros, and adding 0 × 0 leaves a sum unchanged.
namespace {

// A's slice is stored transposed (k-major), so a thread's 4 rows of A for one
// k are 4 adjacent floats: one float4 read. The padding keeps rows 16-byte
// aligned for those reads and spreads the transposing stores over more banks.
constexpr int kTiledPadM = 4;
constexpr int kThreadsAlongN = kTiledTileN / kTiledThreadN;  // 16
constexpr int kALoadsPerThread = kTiledTileM * kTiledTileK / kTiledThreads;  // 4
constexpr int kBLoadsPerThread = kTiledTileK * kTiledTileN / kTiledThreads;  // 4
static_assert(((kTiledTileM + kTiledPadM) * sizeof(float)) % 16 == 0, "float4 reads need 16-byte aligned rows");

// Element (row, col) of a row-major rows×cols matrix, or 0 past its edges:
// the padding of a partial slice, which leaves every sum unchanged.
__device__ __forceinline__ float element_or_zero(const float* __restrict__ matrix, int rows, int cols, int row,
                                                 int col) {
  return (row < rows && col < cols) ? matrix[static_cast<long long>(row) * cols + col] : 0.0f;
}

__global__ void __launch_bounds__(kTiledThreads)
    gemm_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n, int k) {
  __shared__ __align__(16) float a_slice[kTiledTileK][kTiledTileM + kTiledPadM];  // a_slice[i][row]
  __shared__ __align__(16) float b_slice[kTiledTileK][kTiledTileN];               // b_slice[i][col]

  const int thread = threadIdx.x;
  const int first_row = blockIdx.y * kTiledTileM;  // of this block's tile of C
  const int first_col = blockIdx.x * kTiledTileN;
  const int my_row = (thread / kThreadsAlongN) * kTiledThreadM;  // within the tile
  const int my_col = (thread % kThreadsAlongN) * kTiledThreadN;

  float sum[kTiledThreadM][kTiledThreadN] = {};
  for (int k0 = 0; k0 < k; k0 += kTiledTileK) {
    // Stage the slices. Consecutive threads read consecutive addresses of a
    // row (16 floats of A's row, 64 of B's): coalesced.
    for (int load = 0; load < kALoadsPerThread; ++load) {
      const int element = thread + load * kTiledThreads;
      const int row = element / kTiledTileK;
      const int i = element % kTiledTileK;
      a_slice[i][row] = element_or_zero(a, m, k, first_row + row, k0 + i);
    }
    for (int load = 0; load < kBLoadsPerThread; ++load) {
      const int element = thread + load * kTiledThreads;
      const int i = element / kTiledTileN;
      const int col = element % kTiledTileN;
      b_slice[i][col] = element_or_zero(b, k, n, k0 + i, first_col + col);
    }
    __syncthreads();  // the slices are complete before anyone reads them

#pragma unroll
    for (int i = 0; i < kTiledTileK; ++i) {
      const float4 a4 = *reinterpret_cast<const float4*>(&a_slice[i][my_row]);
      const float4 b4 = *reinterpret_cast<const float4*>(&b_slice[i][my_col]);
      const float a_col[kTiledThreadM] = {a4.x, a4.y, a4.z, a4.w};
      const float b_row[kTiledThreadN] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
      for (int r = 0; r < kTiledThreadM; ++r) {
#pragma unroll
        for (int s = 0; s < kTiledThreadN; ++s) sum[r][s] = fmaf(a_col[r], b_row[s], sum[r][s]);
      }
    }
    __syncthreads();  // everyone is done with the slices before they are overwritten
  }

  for (int r = 0; r < kTiledThreadM; ++r) {
    const int row = first_row + my_row + r;
    if (row >= m) break;
    for (int s = 0; s < kTiledThreadN; ++s) {
      const int col = first_col + my_col + s;
      if (col < n) c[static_cast<long long>(row) * n + col] = sum[r][s];
    }
  }
}

}  // namespace

void launch_gemm_tiled(const float* a, const float* b, float* c, GemmShape shape, cudaStream_t stream) {
  // Round up: the last tile in each direction may be partial (the loads pad
  // it with zeros and the stores skip what lies outside C).
  const dim3 grid((shape.n + kTiledTileN - 1) / kTiledTileN, (shape.m + kTiledTileM - 1) / kTiledTileM);
  gemm_tiled<<<grid, kTiledThreads, 0, stream>>>(a, b, c, shape.m, shape.n, shape.k);
  CUDA_CHECK_LAUNCH("gemm_tiled");
}

}  // namespace csg
