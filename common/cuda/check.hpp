// One way to check a CUDA call: CUDA_CHECK(call) throws csg::CudaError naming
// the call as written, file:line, the error name and its message.
//   CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
//   gemm<<<grid, block, 0, stream>>>(...); CUDA_CHECK_LAUNCH("gemm_naive");
// Destructors can't throw: they use CUDA_CHECK_NOEXCEPT, which prints the same
// message to stderr and carries on.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace csg {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& call, const char* file, int line);
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

// Formats "<call> failed at <file>:<line>: <cudaErrorName> (<message>)".
std::string describe_cuda_error(cudaError_t code, const char* call, const char* file, int line);

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);
void print_cuda_error(cudaError_t code, const char* call, const char* file, int line) noexcept;

}  // namespace csg

#define CUDA_CHECK(call)                                                  \
  do {                                                                    \
    const cudaError_t csg_status_ = (call);                               \
    if (csg_status_ != cudaSuccess) {                                     \
      ::csg::throw_cuda_error(csg_status_, #call, __FILE__, __LINE__);    \
    }                                                                     \
  } while (0)

#define CUDA_CHECK_NOEXCEPT(call)                                         \
  do {                                                                    \
    const cudaError_t csg_status_ = (call);                               \
    if (csg_status_ != cudaSuccess) {                                     \
      ::csg::print_cuda_error(csg_status_, #call, __FILE__, __LINE__);    \
    }                                                                     \
  } while (0)

// After every kernel launch: a bad launch configuration is reported by
// cudaGetLastError, not by the <<<>>> expression itself.
#define CUDA_CHECK_LAUNCH(kernel_name)                                    \
  do {                                                                    \
    const cudaError_t csg_status_ = cudaGetLastError();                   \
    if (csg_status_ != cudaSuccess) {                                     \
      ::csg::throw_cuda_error(csg_status_, "launch of " kernel_name,      \
                              __FILE__, __LINE__);                        \
    }                                                                     \
  } while (0)
