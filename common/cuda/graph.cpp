#include "cuda/graph.hpp"

#include <string>

namespace csg {

std::size_t Graph::node_count() const {
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(get(), nullptr, &count));
  return count;
}

std::size_t Graph::edge_count() const {
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphGetEdges(get(), nullptr, nullptr, nullptr, &count));
  return count;
}

GraphExec GraphExec::instantiate(const Graph& graph, const InstantiateOptions& options) {
  cudaGraphInstantiateParams params{};
  params.flags = options.flags;
  params.uploadStream = options.upload_stream;
  cudaGraphExec_t exec = nullptr;
  const cudaError_t status = cudaGraphInstantiateWithParams(&exec, graph.get(), &params);
  return from_instantiation(exec, status, params);
}

GraphExec GraphExec::from_instantiation(cudaGraphExec_t exec, cudaError_t status,
                                        const cudaGraphInstantiateParams& params) {
  if (status != cudaSuccess || params.result_out != cudaGraphInstantiateSuccess) {
    std::string call = "cudaGraphInstantiateWithParams (result_out = ";
    call += to_string(params.result_out);
    if (params.errNode_out != nullptr) {
      cudaGraphNodeType type{};
      if (cudaGraphNodeGetType(params.errNode_out, &type) == cudaSuccess) {
        call += ", failing node: ";
        call += to_string(type);
      }
    }
    call += ')';
    if (exec != nullptr) CUDA_CHECK_NOEXCEPT(cudaGraphExecDestroy(exec));
    throw_cuda_error(status != cudaSuccess ? status : cudaErrorUnknown, call.c_str(), __FILE__, __LINE__);
  }
  return GraphExec(exec);
}

Graph end_capture(cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  const cudaError_t status = cudaStreamEndCapture(stream, &graph);
  if (status != cudaSuccess) {
    if (graph != nullptr) CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(graph));
    throw_cuda_error(status, "cudaStreamEndCapture(stream, &graph)", __FILE__, __LINE__);
  }
  return Graph(graph);
}

std::string_view to_string(cudaGraphInstantiateResult result) {
  switch (result) {
    case cudaGraphInstantiateSuccess: return "cudaGraphInstantiateSuccess";
    case cudaGraphInstantiateError: return "cudaGraphInstantiateError";
    case cudaGraphInstantiateInvalidStructure: return "cudaGraphInstantiateInvalidStructure";
    case cudaGraphInstantiateNodeOperationNotSupported: return "cudaGraphInstantiateNodeOperationNotSupported";
    case cudaGraphInstantiateMultipleDevicesNotSupported: return "cudaGraphInstantiateMultipleDevicesNotSupported";
    case cudaGraphInstantiateConditionalHandleUnused: return "cudaGraphInstantiateConditionalHandleUnused";
  }
  return "unknown cudaGraphInstantiateResult";
}

std::string_view to_string(cudaGraphNodeType type) {
  switch (type) {
    case cudaGraphNodeTypeKernel: return "kernel";
    case cudaGraphNodeTypeMemcpy: return "memcpy";
    case cudaGraphNodeTypeMemset: return "memset";
    case cudaGraphNodeTypeHost: return "host";
    case cudaGraphNodeTypeGraph: return "child graph";
    case cudaGraphNodeTypeEmpty: return "empty";
    case cudaGraphNodeTypeWaitEvent: return "wait event";
    case cudaGraphNodeTypeEventRecord: return "event record";
    case cudaGraphNodeTypeExtSemaphoreSignal: return "external semaphore signal";
    case cudaGraphNodeTypeExtSemaphoreWait: return "external semaphore wait";
    case cudaGraphNodeTypeMemAlloc: return "memory allocation";
    case cudaGraphNodeTypeMemFree: return "memory free";
    case cudaGraphNodeTypeConditional: return "conditional";
    default: return "other";
  }
}

}  // namespace csg
