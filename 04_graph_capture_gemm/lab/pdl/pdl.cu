#include "04_graph_capture_gemm/lab/pdl/pdl_kernels.hpp"

#include <string>

#include "check.hpp"

namespace csg::graphs {
namespace {

// Programmatic dependent launch exists from compute capability 9.0 on. Below,
// the calls compile to nothing: such a GPU never runs this code (require_pdl
// refuses it), and a plain launch orders the kernels fully anyway.

// Lets the next kernel of the stream start its blocks once every block of
// this one has called it (or finished).
__device__ __forceinline__ void let_next_kernel_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// Waits until the previous kernel of the stream has finished and its writes
// are visible; returns at once for a kernel launched without the attribute.
__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

__global__ void chain_gemm(const float* a, const float* b, const float* previous, float* c, int m, int n, int k) {
  let_next_kernel_start();
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const bool inside = row < m && col < n;
  float sum = 0.0f;
  if (inside) {
    for (int i = 0; i < k; ++i) sum += a[static_cast<long long>(row) * k + i] * b[static_cast<long long>(i) * n + col];
  }
  wait_for_previous_kernel();
  if (inside) {
    const long long at = static_cast<long long>(row) * n + col;
    if (previous != nullptr) sum += fmodf(previous[at], kPdlCarry);
    c[at] = sum;
  }
}

template <unsigned long long Parity>
__global__ void sequence_step(unsigned long long* sequence, unsigned long long* wrong) {
  let_next_kernel_start();
  wait_for_previous_kernel();
  const unsigned long long seen = *sequence;
  if ((seen & 1ULL) != Parity) *wrong += 1;
  *sequence = seen + 1;
}
constexpr auto ping = sequence_step<0ULL>;
constexpr auto pong = sequence_step<1ULL>;

// One launch of `kernel`: plain <<<>>>, or cudaLaunchKernelEx with
// programmatic stream serialization when `programmatic`.
template <class... Params, class... Args>
void launch_one(bool programmatic, void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream,
                const char* name, Args... args) {
  if (!programmatic) {
    kernel<<<grid, block, 0, stream>>>(args...);
    CUDA_CHECK_LAUNCH("a kernel of the chain");
    return;
  }
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{
      .gridDim = grid, .blockDim = block, .dynamicSmemBytes = 0, .stream = stream, .attrs = &attribute, .numAttrs = 1};
  const cudaError_t status = cudaLaunchKernelEx(&config, kernel, args...);
  if (status != cudaSuccess) {
    const std::string call = std::string("cudaLaunchKernelEx(") + name + ", programmatic stream serialization)";
    throw_cuda_error(status, call.c_str(), __FILE__, __LINE__);
  }
}

}  // namespace

void launch_chain_gemm(bool programmatic, dim3 grid, dim3 block, cudaStream_t stream, const float* a, const float* b,
                       const float* previous, float* c, int m, int n, int k) {
  launch_one(programmatic, chain_gemm, grid, block, stream, "chain_gemm", a, b, previous, c, m, n, k);
}

void launch_sequence_step(bool programmatic, bool even, cudaStream_t stream, unsigned long long* sequence,
                          unsigned long long* wrong) {
  launch_one(programmatic, even ? ping : pong, dim3(1), dim3(1), stream, even ? "ping" : "pong", sequence, wrong);
}

}  // namespace csg::graphs
