#include "workload/gemm.hpp"

#include <cublas_v2.h>

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "check.hpp"
#include "base/errors.hpp"
#include "owners.hpp"

namespace csg {
namespace {

// A failed cuBLAS call, reported like a failed CUDA call: the call as
// written, file:line, the status's name and description.
void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                           cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")");
}

}  // namespace
}  // namespace csg

#define CUBLAS_CHECK(call) ::csg::check_cublas((call), #call, __FILE__, __LINE__)

namespace csg {

struct Gemm::StreamHandle {
  cublasHandle_t handle = nullptr;
  DeviceBuffer<std::byte> workspace;

  StreamHandle(cudaStream_t stream, bool tf32) : workspace(kCublasWorkspaceBytes) {
    CUBLAS_CHECK(cublasCreate(&handle));
    try {
      // SetStream first: it puts the handle back on cuBLAS's own workspace pool.
      CUBLAS_CHECK(cublasSetStream(handle, stream));
      CUBLAS_CHECK(cublasSetWorkspace(handle, workspace.data(), workspace.bytes()));
      // FP32 unless asked: cuBLAS's default math mode never uses TF32.
      CUBLAS_CHECK(cublasSetMathMode(handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
    } catch (...) {
      cublasDestroy(handle);
      throw;
    }
  }
  ~StreamHandle() {
    const cublasStatus_t status = cublasDestroy(handle);
    if (status != CUBLAS_STATUS_SUCCESS) {
      std::fprintf(stderr, "cublasDestroy failed: %s\n", cublasGetStatusName(status));
    }
  }
  StreamHandle(const StreamHandle&) = delete;
  StreamHandle& operator=(const StreamHandle&) = delete;
};

Gemm::Gemm(GemmChoice choice) : choice_(choice) {}
Gemm::~Gemm() = default;

void Gemm::prepare(cudaStream_t stream) const {
  if (choice_.kernel != GemmKernel::cublas || handles_.contains(stream)) return;
  handles_.emplace(stream, std::make_unique<StreamHandle>(stream, choice_.tf32));
}

void Gemm::run(const float* a, const float* b, float* c, GemmShape shape, cudaStream_t stream) const {
  switch (choice_.kernel) {
    case GemmKernel::naive:
      launch_gemm_naive(a, b, c, shape, stream);
      return;
    case GemmKernel::tiled:
      launch_gemm_tiled(a, b, c, shape, stream);
      return;
    case GemmKernel::cublas:
      break;
  }
  auto found = handles_.find(stream);
  if (found == handles_.end()) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
    if (capture != cudaStreamCaptureStatusNone) {
      throw std::logic_error("Gemm::run: cuBLAS needs Gemm::prepare(stream) before a capture on that stream "
                             "(creating a handle allocates its workspace, which a capture forbids)");
    }
    prepare(stream);
    found = handles_.find(stream);
  }
  // Row-major C (m×n) = A (m×k) · B (k×n) is column-major Cᵀ (n×m) = Bᵀ (n×k) · Aᵀ (k×m):
  // the same bytes, read with leading dimensions n, k and n.
  const float alpha = 1.0f;
  const float beta = 0.0f;
  CUBLAS_CHECK(cublasSgemm(found->second->handle, CUBLAS_OP_N, CUBLAS_OP_N, shape.n, shape.m, shape.k, &alpha, b,
                           shape.n, a, shape.k, &beta, c, shape.n));
}

std::uint64_t gemm_device_bytes(const GemmChoice& choice, int streams) {
  return choice.kernel == GemmKernel::cublas ? kCublasWorkspaceBytes * std::uint64_t(streams) : 0;
}

// ---- which kernel ----------------------------------------------------------
std::string_view to_string(GemmKernel kernel) {
  switch (kernel) {
    case GemmKernel::naive:
      return "naive";
    case GemmKernel::tiled:
      return "tiled";
    case GemmKernel::cublas:
      return "cublas";
  }
  return "unknown";
}

std::string gemm_name(const GemmChoice& choice) {
  std::string name(to_string(choice.kernel));
  if (choice.tf32) name += "+tf32";
  return name;
}

GemmChoice parse_gemm_choice(const std::string& kernel, bool tf32) {
  GemmChoice choice;
  if (kernel == "naive") {
    choice.kernel = GemmKernel::naive;
  } else if (kernel == "tiled") {
    choice.kernel = GemmKernel::tiled;
  } else if (kernel == "cublas") {
    choice.kernel = GemmKernel::cublas;
  } else {
    throw UsageError("--kernel takes one of naive|tiled|cublas, got '" + kernel + "'");
  }
  if (tf32 && choice.kernel != GemmKernel::cublas) {
    throw UsageError("--tf32 needs --kernel cublas: TF32 is cuBLAS's tensor-core path; the " + kernel +
                     " kernel computes in FP32");
  }
  choice.tf32 = tf32;
  return choice;
}

long long max_gemm_rows(GemmKernel kernel) {
  switch (kernel) {
    case GemmKernel::naive:
      return kMaxGridY * kNaiveBlockDim;
    case GemmKernel::tiled:
      return kMaxGridY * kTiledTileM;
    case GemmKernel::cublas:
      return 0;
  }
  return 0;
}


}  // namespace csg
