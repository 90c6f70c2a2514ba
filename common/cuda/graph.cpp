#include "cuda/graph.hpp"

namespace csg {

Graph end_capture(cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  const cudaError_t status = cudaStreamEndCapture(stream, &graph);
  if (status != cudaSuccess) {
    if (graph != nullptr) CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(graph));
    throw_cuda_error(status, "cudaStreamEndCapture(stream, &graph)", __FILE__, __LINE__);
  }
  return Graph(graph);
}

}  // namespace csg
