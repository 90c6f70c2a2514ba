#include "workload/gemm_kernels.hpp"

#include "cuda/check.hpp"

namespace csg {
namespace {

// The article's kernel, kept as written apart from const-correct inputs and
// 64-bit row offsets (row * k overflows int beyond 2^31 elements).
__global__ void gemm_naive(const float* a, const float* b, float* c, int m, int n, int k) {
  const int col = threadIdx.x + blockDim.x * blockIdx.x;
  const int row = threadIdx.y + blockDim.y * blockIdx.y;
  if (row < m && col < n) {
    const float* a_row = a + static_cast<long long>(row) * k;
    float sum = 0.0f;
    for (int i = 0; i < k; ++i) {
      sum += a_row[i] * b[static_cast<long long>(i) * n + col];
    }
    c[static_cast<long long>(row) * n + col] = sum;
  }
}

}  // namespace

void launch_gemm_naive(const float* a, const float* b, float* c, GemmShape shape, cudaStream_t stream) {
  const dim3 block(kNaiveBlockDim, kNaiveBlockDim);
  // Round up, so sizes that are not multiples of 32 get their last partial tile.
  const dim3 grid((shape.n + kNaiveBlockDim - 1) / kNaiveBlockDim,
                  (shape.m + kNaiveBlockDim - 1) / kNaiveBlockDim);
  gemm_naive<<<grid, block, 0, stream>>>(a, b, c, shape.m, shape.n, shape.k);
  CUDA_CHECK_LAUNCH("gemm_naive");
}

void poison_device(float* device_ptr, std::size_t count, cudaStream_t stream) {
  // 0xFFFFFFFF is a NaN bit pattern, so a byte memset poisons floats.
  CUDA_CHECK(cudaMemsetAsync(device_ptr, 0xFF, count * sizeof(float), stream));
}

}  // namespace csg
