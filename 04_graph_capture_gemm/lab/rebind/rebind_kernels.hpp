// The rebind subcommand's kernels (rebind.cu), behind the host calls that
// launch them or describe them to a graph: the thin GEMM (rebind.hpp), and
// the kernel that re-points device-updatable GEMM nodes.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace csg::graphs {

// The thin GEMM's parameters, in the kernel's order: their offsets are what
// a device-side update names (cudaGraphKernelNodeSetParam(node, offset, ...)).
struct ThinGemmParams {
  const float* a;
  const float* b;
  float* c;
  int m;
  int n;
  int k;
};
inline constexpr std::size_t kThinGemmOffsetA = offsetof(ThinGemmParams, a);
inline constexpr std::size_t kThinGemmOffsetC = offsetof(ThinGemmParams, c);

// Where one request's batch lies: the pointers a node is re-pointed to.
struct RebindTarget {
  const float* a;
  float* c;
};

// C (m x n) = A (m x k) B (k x n), one thread per element; the caller checks the launch.
void launch_thin_gemm(const ThinGemmParams& params, cudaStream_t stream);
// The same launch as a kernel node's parameters, for cudaGraphExecKernelNodeSetParams.
// `params` must outlive the call that reads the result (kernelParams points into it).
cudaKernelNodeParams thin_gemm_node(ThinGemmParams& params, void* (&arguments)[6]);
// Whether `node_params` (from cudaGraphKernelNodeGetParams) is a thin GEMM node.
bool is_thin_gemm(const cudaKernelNodeParams& node_params);

// One thread per node: node i gets targets[i]'s A and C. A call the device
// refuses adds 1 to `*failures`.
void launch_rebind_nodes(const cudaGraphDeviceNode_t* nodes, const RebindTarget* targets, int count,
                         unsigned* failures, cudaStream_t stream);

// A (count floats) filled with small integers 0..3 from `seed`, and the
// sums of its `rows` rows of `columns` each (exact in float below 2^24).
void launch_fill_small(float* a, std::size_t count, unsigned long long seed, cudaStream_t stream);
void launch_row_sums(const float* a, int rows, int columns, float* sums, cudaStream_t stream);

}  // namespace csg::graphs
