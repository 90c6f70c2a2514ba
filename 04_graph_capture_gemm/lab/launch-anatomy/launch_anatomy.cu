#include "04_graph_capture_gemm/lab/launch-anatomy/launch_anatomy_kernels.hpp"

#include "check.hpp"

namespace csg::graphs {
namespace {

__global__ void add_one(int* counter) { *counter += 1; }

}  // namespace

void launch_add_one(int* counter, cudaStream_t stream) {
  add_one<<<1, 1, 0, stream>>>(counter);
  CUDA_CHECK_LAUNCH("add_one");
}

}  // namespace csg::graphs
