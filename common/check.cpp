#include "check.hpp"

#include <cstdio>
#include <string_view>

namespace csg {
namespace {

// __FILE__ is absolute under CMake; show paths relative to the project root.
std::string_view project_relative(const char* file) {
  std::string_view path{file};
  constexpr std::string_view root{CSG_SOURCE_DIR "/"};
  if (path.substr(0, root.size()) == root) path.remove_prefix(root.size());
  return path;
}

// "<call> failed at <file>:<line>: <cudaErrorName> (<message>)", the file relative to the project.
std::string describe_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  return std::string(call) + " failed at " + std::string(project_relative(file)) + ':' + std::to_string(line) +
         ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ')';
}

}  // namespace

CudaError::CudaError(cudaError_t code, const std::string& call, const char* file, int line)
    : std::runtime_error(describe_cuda_error(code, call.c_str(), file, line)), code_(code) {}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  // The runtime also keeps a failed call's error as its "last error" until
  // someone reads it. This one is reported by the exception: clear it, so the
  // next CUDA_CHECK_LAUNCH does not blame a later kernel launch for it.
  // (Sticky errors, such as an illegal address, stay whatever is done here.)
  static_cast<void>(cudaGetLastError());
  throw CudaError(code, call, file, line);
}

void print_cuda_error(cudaError_t code, const char* call, const char* file, int line) noexcept {
  static_cast<void>(cudaGetLastError());  // reported here; see throw_cuda_error
  try {
    std::fprintf(stderr, "warning: %s\n", describe_cuda_error(code, call, file, line).c_str());
  } catch (...) {
    std::fprintf(stderr, "warning: %s failed: %s\n", call, cudaGetErrorName(code));
  }
}

}  // namespace csg
