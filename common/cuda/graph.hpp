// Graph and GraphExec: move-only owners of cudaGraph_t and cudaGraphExec_t.
// A GraphExec exists only as the result of instantiating a Graph, through
// cudaGraphInstantiateWithParams, the CUDA 12+ call that reports why an
// instantiation failed (the article's five-argument cudaGraphInstantiate is
// the CUDA 11 form: on CUDA 12+ it silently drops the error node and log).
// Stage 04 writes that call itself and hands its outcome to
// GraphExec::from_instantiation; GraphExec::instantiate does the same for the
// experiments that need an exec of their own.
#pragma once

#include <cstddef>

#include "owners.hpp"

namespace csg {

struct GraphTraits {
  using Handle = cudaGraph_t;
  static void destroy(Handle graph) noexcept { CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(graph)); }
};
struct GraphExecTraits {
  using Handle = cudaGraphExec_t;
  static void destroy(Handle exec) noexcept { CUDA_CHECK_NOEXCEPT(cudaGraphExecDestroy(exec)); }
};

class Graph : public UniqueHandle<GraphTraits> {
 public:
  Graph() = default;
  // Takes ownership of a graph returned by cudaStreamEndCapture or cudaGraphCreate.
  explicit Graph(cudaGraph_t graph) noexcept : UniqueHandle(graph) {}

  std::size_t node_count() const;
  std::size_t edge_count() const;
};

struct InstantiateOptions {
  unsigned long long flags = 0;
  // With flags including cudaGraphInstantiateFlagUpload, the graph is uploaded
  // to the device on this stream during instantiation.
  cudaStream_t upload_stream = nullptr;
};

class GraphExec : public UniqueHandle<GraphExecTraits> {
 public:
  // The outcome of cudaGraphInstantiateWithParams(&exec, graph, &params):
  // owns `exec` when `status` and params.result_out say success; otherwise
  // destroys whatever `exec` holds and throws CudaError naming result_out and
  // the failing node's type.
  static GraphExec from_instantiation(cudaGraphExec_t exec, cudaError_t status,
                                      const cudaGraphInstantiateParams& params);
  // cudaGraphInstantiateWithParams with `options`, checked as above.
  static GraphExec instantiate(const Graph& graph, const InstantiateOptions& options = {});

  GraphExec() = default;

 private:
  explicit GraphExec(cudaGraphExec_t exec) noexcept : UniqueHandle(exec) {}
};

// Ends the capture begun on `stream` and owns the result. If the capture was
// invalidated (an illegal call during capture, an unjoined fork), throws the
// CudaError that cudaStreamEndCapture returned; the stream is no longer capturing.
Graph end_capture(cudaStream_t stream);

std::string_view to_string(cudaGraphInstantiateResult result);
std::string_view to_string(cudaGraphNodeType type);

}  // namespace csg
