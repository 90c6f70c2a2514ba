// Checking CUDA calls: one macro turns a failed call into an exception that
// names the call as written, file:line, the error's name and its message.
//   CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
//   gemm_naive<<<grid, block, 0, stream>>>(...);
//   CUDA_CHECK_LAUNCH("gemm_naive");  // a bad launch shows up in cudaGetLastError
// Destructors can't throw: they use CUDA_CHECK_NOEXCEPT, which prints the same
// message to stderr and carries on. The stage's main turns the exception into
// exit code 1 and one line: "CUDA error: cudaMemcpy(...) failed at 03_stream_pool_gemm/main.cu:52: ...".
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "base/errors.hpp"  // the exit codes and the other exceptions

namespace csg {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& call, const char* file, int line);
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);
void print_cuda_error(cudaError_t code, const char* call, const char* file, int line) noexcept;

}  // namespace csg

// Evaluates `status` once; on failure hands it, `text` and the place to `handler`.
#define CSG_CUDA_ON_ERROR(status, text, handler)      \
  do {                                                \
    const cudaError_t csg_status_ = (status);         \
    if (csg_status_ != cudaSuccess) {                 \
      handler(csg_status_, text, __FILE__, __LINE__); \
    }                                                 \
  } while (0)

#define CUDA_CHECK(call) CSG_CUDA_ON_ERROR(call, #call, ::csg::throw_cuda_error)

#define CUDA_CHECK_NOEXCEPT(call) CSG_CUDA_ON_ERROR(call, #call, ::csg::print_cuda_error)

// After every kernel launch: a bad launch configuration is reported by
// cudaGetLastError, not by the <<<>>> expression itself.
#define CUDA_CHECK_LAUNCH(kernel_name) \
  CSG_CUDA_ON_ERROR(cudaGetLastError(), "launch of " kernel_name, ::csg::throw_cuda_error)
