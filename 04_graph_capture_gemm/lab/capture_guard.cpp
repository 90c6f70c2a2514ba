#include "04_graph_capture_gemm/lab/capture_guard.hpp"

namespace csg::graphs {

bool any_capturing(const StreamPool& pool) {
  for (int i = 0; i < pool.size(); ++i) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    CUDA_CHECK(cudaStreamIsCapturing(pool[i], &status));
    if (status != cudaStreamCaptureStatusNone) return true;
  }
  return false;
}

void abandon_capture(const StreamPool& pool) noexcept {
  for (int i = 0; i < pool.size(); ++i) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(pool[i], &status) != cudaSuccess || status == cudaStreamCaptureStatusNone) continue;
    // On a stream that joined someone else's capture this fails with
    // cudaErrorStreamCaptureUnmatched; ending the origin (stream 0, first in
    // the loop) already took such streams out of capture.
    cudaGraph_t partial = nullptr;
    if (cudaStreamEndCapture(pool[i], &partial) == cudaSuccess && partial != nullptr) {
      CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(partial));
    }
  }
  // The failures above were expected and are not the error being reported.
  static_cast<void>(cudaGetLastError());
}

}  // namespace csg::graphs
