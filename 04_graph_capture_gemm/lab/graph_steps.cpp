#include "04_graph_capture_gemm/lab/graph_steps.hpp"

#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

void prepare_pool(const Gemm& gemm, const StreamPool& pool) {
  for (int s = 0; s < pool.size(); ++s) gemm.prepare(pool[s]);
}

BatchOps batch_ops(BatchBuffers& buffers, const Gemm& gemm) {
  BatchBuffers* b = &buffers;
  const Gemm* g = &gemm;
  return BatchOps{
      .h2d = [b](int i, cudaStream_t stream) {
        CUDA_CHECK(cudaMemcpyAsync(b->device_a(i), b->host_a(i), b->work().a_bytes(), cudaMemcpyHostToDevice, stream));
      },
      .compute = [b, g](int i, cudaStream_t stream) {
        g->run(b->device_a(i), b->device_b(), b->device_c(i), b->work().shape, stream);
      },
      .d2h = [b](int i, cudaStream_t stream) {
        CUDA_CHECK(cudaMemcpyAsync(b->host_c(i), b->device_c(i), b->work().c_bytes(), cudaMemcpyDeviceToHost, stream));
      }};
}

void issue_batches(const BatchOps& ops, const StreamPool& pool, int batches, BatchOrder order) {
  if (order == BatchOrder::depth_first) {
    for (int i = 0; i < batches; ++i) {
      const cudaStream_t stream = pool.for_batch(i);
      ops.h2d(i, stream);
      ops.compute(i, stream);
      ops.d2h(i, stream);
    }
    return;
  }
  for (int wave = 0; wave < batches; wave += pool.size()) {
    const int end = std::min(batches, wave + pool.size());
    for (int i = wave; i < end; ++i) ops.h2d(i, pool.for_batch(i));
    for (int i = wave; i < end; ++i) ops.compute(i, pool.for_batch(i));
    for (int i = wave; i < end; ++i) ops.d2h(i, pool.for_batch(i));
  }
}

void issue_on_streams(const BatchOps& ops, const StreamPool& pool, int batches) {
  csg::fork(pool);
  issue_batches(ops, pool, batches);
  csg::join(pool);
}

Graph capture_batches(const BatchOps& ops, const StreamPool& pool, int batches, Join with_join, BatchOrder order) {
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
