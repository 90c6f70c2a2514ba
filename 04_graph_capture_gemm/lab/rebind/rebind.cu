// The kernels of rebind_kernels.hpp and the host calls that launch or describe them.
#include "04_graph_capture_gemm/lab/rebind/rebind_kernels.hpp"

namespace csg::graphs {
namespace {

constexpr int kTile = 16;  // a block of 16 x 16 threads

__global__ void thin_gemm(const float* a, const float* b, float* c, int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int i = 0; i < k; ++i) sum += a[static_cast<long long>(row) * k + i] * b[static_cast<long long>(i) * n + col];
  c[static_cast<long long>(row) * n + col] = sum;
}

__global__ void rebind_nodes(const cudaGraphDeviceNode_t* nodes, const RebindTarget* targets, int count,
                             unsigned* failures) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const RebindTarget target = targets[i];
  if (cudaGraphKernelNodeSetParam(nodes[i], kThinGemmOffsetA, &target.a, sizeof(target.a)) != cudaSuccess ||
      cudaGraphKernelNodeSetParam(nodes[i], kThinGemmOffsetC, &target.c, sizeof(target.c)) != cudaSuccess) {
    atomicAdd(failures, 1u);
  }
}

__global__ void fill_small(float* a, std::size_t count, unsigned long long seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned long long x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;  // a splitmix64 step
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    a[i] = static_cast<float>((x ^ (x >> 31)) & 3u);
  }
}

__global__ void row_sums(const float* a, int rows, int columns, float* sums) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int i = 0; i < columns; ++i) sum += a[static_cast<long long>(row) * columns + i];
  sums[row] = sum;
}

dim3 grid_of(const ThinGemmParams& p) { return dim3((p.n + kTile - 1) / kTile, (p.m + kTile - 1) / kTile); }

}  // namespace

void launch_thin_gemm(const ThinGemmParams& p, cudaStream_t stream) {
  thin_gemm<<<grid_of(p), dim3(kTile, kTile), 0, stream>>>(p.a, p.b, p.c, p.m, p.n, p.k);
}

cudaKernelNodeParams thin_gemm_node(ThinGemmParams& p, void* (&arguments)[6]) {
  arguments[0] = &p.a;
  arguments[1] = &p.b;
  arguments[2] = &p.c;
  arguments[3] = &p.m;
  arguments[4] = &p.n;
  arguments[5] = &p.k;
  return {.func = reinterpret_cast<void*>(thin_gemm), .gridDim = grid_of(p), .blockDim = dim3(kTile, kTile),
          .sharedMemBytes = 0, .kernelParams = arguments, .extra = nullptr};
}

bool is_thin_gemm(const cudaKernelNodeParams& node_params) {
  return node_params.func == reinterpret_cast<void*>(thin_gemm);
}

void launch_rebind_nodes(const cudaGraphDeviceNode_t* nodes, const RebindTarget* targets, int count,
                         unsigned* failures, cudaStream_t stream) {
  constexpr int kThreads = 128;
  rebind_nodes<<<(count + kThreads - 1) / kThreads, kThreads, 0, stream>>>(nodes, targets, count, failures);
}

void launch_fill_small(float* a, std::size_t count, unsigned long long seed, cudaStream_t stream) {
  fill_small<<<1024, 256, 0, stream>>>(a, count, seed);
}

void launch_row_sums(const float* a, int rows, int columns, float* sums, cudaStream_t stream) {
  row_sums<<<(rows + 127) / 128, 128, 0, stream>>>(a, rows, columns, sums);
}

}  // namespace csg::graphs
