#include "04_graph_capture_gemm/lab/graph_steps.hpp"

#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

void prepare_pool(const Gemm& gemm, const StreamPool& pool) {
  for (int s = 0; s < pool.size(); ++s) gemm.prepare(pool[s]);
}

void issue_on_streams(const BatchOps& ops, const StreamPool& pool, int batches) {
  csg::fork(pool);
  issue_batches(ops, pool, batches);
  csg::join(pool);
}

Graph capture_batches(const BatchOps& ops, const StreamPool& pool, int batches, Join with_join, IssueOrder order) {
  // step 1: capture, on stream 0, which becomes the graph's entry
  CUDA_CHECK(cudaStreamBeginCapture(pool[0], cudaStreamCaptureModeGlobal));
  const CaptureGuard guard(pool);  // a throw before step 5 ends the capture and drops it
  csg::fork(pool);                 // step 2: the other streams join the capture
  issue_batches(ops, pool, batches, order);  // step 3
  if (with_join == Join::yes) csg::join(pool);  // step 4
  // step 5: end the capture ...
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamEndCapture(pool[0], &graph));
  return Graph(graph);
}

GraphExec instantiate(const Graph& graph) {
  // step 5: ... and instantiate, with the call that reports why it failed
  cudaGraphInstantiateParams params{};
  cudaGraphExec_t exec = nullptr;
  const cudaError_t status = cudaGraphInstantiateWithParams(&exec, graph.get(), &params);
  return GraphExec::from_instantiation(exec, status, params);
}

void launch(const GraphExec& exec, const StreamPool& pool) {
  CUDA_CHECK(cudaGraphLaunch(exec.get(), pool[0]));  // step 6
}

std::vector<cudaGraphNode_t> nodes_of(const Graph& graph) {
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph.get(), nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) CUDA_CHECK(cudaGraphGetNodes(graph.get(), nodes.data(), &count));
  nodes.resize(count);
  return nodes;
}

VerifyResult launch_and_verify(const GraphExec& exec, const StreamPool& pool, BatchBuffers& buffers,
                               std::uint64_t seed) {
  buffers.poison_outputs(pool[0]);  // an output the graph does not write can't pass
  launch(exec, pool);
  CUDA_CHECK(cudaStreamSynchronize(pool[0]));
  return buffers.verify(seed);
}

}  // namespace csg::graphs
