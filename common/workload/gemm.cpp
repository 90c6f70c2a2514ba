#include "workload/gemm.hpp"

#include <cublas_v2.h>
#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "check.hpp"
#include "base/enum_names.hpp"
#include "base/errors.hpp"
#include "owners.hpp"

namespace csg {
namespace {

// cuBLAS, loaded when a GEMM first needs it rather than when the process
// starts: loading libcublas and the half-gigabyte libcublasLt it needs takes
// 80-100 ms, which every stage and test binary linking it paid at start,
// though only --kernel cublas calls it. The entry points the suite calls,
// typed by cublas_v2.h's own declarations (cublasCreate is cublasCreate_v2).
struct Cublas {
  decltype(&cublasCreate) create = nullptr;
  decltype(&cublasDestroy) destroy = nullptr;
  decltype(&cublasSetStream) set_stream = nullptr;
  decltype(&cublasSetWorkspace) set_workspace = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasSgemm) sgemm = nullptr;
  decltype(&cublasGetStatusName) status_name = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
};

template <class Function>
void find(void* library, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  if (function == nullptr) throw std::runtime_error(std::string("cuBLAS has no ") + name + ": " + dlerror());
}

Cublas load_cublas() {
  // By its name first (LD_LIBRARY_PATH, the binary's run path, the system's
  // libraries), then where the build found it. Never closed: handles may be
  // destroyed as late as the process's exit.
  const std::string name = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) library = dlopen(CSG_CUBLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    throw std::runtime_error("--kernel cublas: could not load " + name + " (" + dlerror() + ")");
  }
  Cublas cublas;
  find(library, "cublasCreate_v2", cublas.create);
  find(library, "cublasDestroy_v2", cublas.destroy);
  find(library, "cublasSetStream_v2", cublas.set_stream);
  find(library, "cublasSetWorkspace_v2", cublas.set_workspace);
  find(library, "cublasSetMathMode", cublas.set_math_mode);
  find(library, "cublasSgemm_v2", cublas.sgemm);
  find(library, "cublasGetStatusName", cublas.status_name);
  find(library, "cublasGetStatusString", cublas.status_string);
  return cublas;
}

// Loaded on the first call (once, whichever thread asks first).
const Cublas& cublas_library() {
  static const Cublas cublas = load_cublas();
  return cublas;
}

// A failed cuBLAS call, reported like a failed CUDA call: the call as
// written, file:line, the status's name and description.
void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const Cublas& cublas = cublas_library();
  throw std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                           cublas.status_name(status) + " (" + cublas.status_string(status) + ")");
}

}  // namespace
}  // namespace csg

#define CUBLAS_CHECK(call) ::csg::check_cublas((call), #call, __FILE__, __LINE__)

namespace csg {

struct Gemm::StreamHandle {
  cublasHandle_t handle = nullptr;
  DeviceBuffer<std::byte> workspace;

  StreamHandle(cudaStream_t stream, bool tf32) : workspace(kCublasWorkspaceBytes) {
    const Cublas& cublas = cublas_library();
    CUBLAS_CHECK(cublas.create(&handle));
    try {
      // SetStream first: it puts the handle back on cuBLAS's own workspace pool.
      CUBLAS_CHECK(cublas.set_stream(handle, stream));
      CUBLAS_CHECK(cublas.set_workspace(handle, workspace.data(), workspace.bytes()));
      // FP32 unless asked: cuBLAS's default math mode never uses TF32.
      CUBLAS_CHECK(cublas.set_math_mode(handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
    } catch (...) {
      cublas.destroy(handle);
      throw;
    }
  }
  ~StreamHandle() {
    const Cublas& cublas = cublas_library();
    const cublasStatus_t status = cublas.destroy(handle);
    if (status != CUBLAS_STATUS_SUCCESS) {
      std::fprintf(stderr, "cublasDestroy failed: %s\n", cublas.status_name(status));
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
  if (choice_.kernel == GemmKernel::naive) return launch_gemm_naive(a, b, c, shape, stream);
  if (choice_.kernel == GemmKernel::tiled) return launch_gemm_tiled(a, b, c, shape, stream);
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
  CUBLAS_CHECK(cublas_library().sgemm(found->second->handle, CUBLAS_OP_N, CUBLAS_OP_N, shape.n, shape.m, shape.k,
                                      &alpha, b, shape.n, a, shape.k, &beta, c, shape.n));
}

std::uint64_t gemm_device_bytes(const GemmChoice& choice, int streams) {
  return choice.kernel == GemmKernel::cublas ? kCublasWorkspaceBytes * std::uint64_t(streams) : 0;
}

std::string_view to_string(GemmKernel kernel) { return name_of(kernel, {"naive", "tiled", "cublas"}); }

std::string gemm_name(const GemmChoice& choice) {
  std::string name(to_string(choice.kernel));
  if (choice.tf32) name += "+tf32";
  return name;
}

GemmChoice parse_gemm_choice(const std::string& kernel, bool tf32) {
  for (GemmKernel named : {GemmKernel::naive, GemmKernel::tiled, GemmKernel::cublas}) {
    if (kernel != to_string(named)) continue;
    if (tf32 && named != GemmKernel::cublas) {
      throw UsageError("--tf32 needs --kernel cublas: TF32 is cuBLAS's tensor-core path; the " + kernel +
                       " kernel computes in FP32");
    }
    return GemmChoice{named, tf32};
  }
  throw UsageError("--kernel takes one of naive|tiled|cublas, got '" + kernel + "'");
}

long long max_gemm_rows(GemmKernel kernel) {
  if (kernel == GemmKernel::naive) return kMaxGridY * kNaiveBlockDim;
  return kernel == GemmKernel::tiled ? kMaxGridY * kTiledTileM : 0;
}

}  // namespace csg
