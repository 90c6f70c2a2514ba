// When the work changes: update the instantiated graph, or capture and
// instantiate again?
//
// cudaGraphExecUpdate(exec, graph, &info) copies the node parameters of a
// freshly captured `graph` into `exec` if the two have the same topology
// (nodes, types, edges). New input/output pointers keep it: allowed, and
// cheaper than instantiating. A different batch count changes the nodes:
// refused (cudaGraphExecUpdateErrorTopologyChanged), only a new
// instantiation helps. Either way the update saves the instantiate, not the
// capture. The article's steps come in as callbacks: the tests can hand their own.
#pragma once

#include "experiment/lab.hpp"

namespace csg::graphs {

struct ExecUpdateAttempt {
  cudaError_t status = cudaSuccess;
  cudaGraphExecUpdateResult result = cudaGraphExecUpdateSuccess;
  bool applied() const { return status == cudaSuccess && result == cudaGraphExecUpdateSuccess; }
  // "cudaGraphExecUpdateSuccess", or "cudaErrorGraphExecUpdateFailure: cudaGraphExecUpdateErrorTopologyChanged"
  std::string describe() const;
};

// cudaGraphExecUpdate with its result info (the CUDA 12+ signature). A refused
// update is returned, not thrown; any other failure throws CudaError.
ExecUpdateAttempt update_exec(const GraphExec& exec, const Graph& graph);

std::string_view to_string(cudaGraphExecUpdateResult result);

// The article's graph steps as the measuring loops take them.
struct GraphCalls {
  // Captures the per-batch work of batches 0 .. batches-1 of `buffers` (steps 1-5a).
  std::function<Graph(BatchBuffers& buffers, int batches)> capture;
  std::function<GraphExec(const Graph&)> instantiate;  // step 5b
  std::function<void(const GraphExec&)> launch;        // step 6, on pool stream 0
};
// graph_steps.hpp's calls on `pool` with `gemm`.
GraphCalls graph_calls(const StreamPool& pool, const Gemm& gemm);

struct UpdateExperiment : GraphCalls {
  BatchBuffers* first = nullptr;   // what the exec is instantiated for
  BatchBuffers* second = nullptr;  // the same workload at other addresses, other data
  std::uint64_t second_seed = 2;
  cudaStream_t stream = nullptr;   // the origin stream: launches go here
};

struct UpdateCosts {
  Summary recapture_instantiate;  // capture + cudaGraphInstantiateWithParams
  Summary update_exec;            // capture + cudaGraphExecUpdate
  Summary update_call;            // cudaGraphExecUpdate alone
  VerifyResult updated_check;     // the updated exec, launched: the second buffers' result
  VerifyResult reinstantiated_check;
  ExecUpdateAttempt new_pointers;          // the last pointer update (every one must apply)
  std::optional<int> smaller_batches;      // the batch count tried for a topology change
  ExecUpdateAttempt topology_change;       // its outcome: expected to be refused
};

// In interleaved rounds: re-capture for the first buffers + update of one
// exec, the update alone to the second buffers (captured untimed), and
// re-capture + instantiate for the second; so every update changes the
// pointers, and both execs end on the second buffers, then launched on
// poisoned outputs and verified. Then an update to batches - 1 is tried.
// Throws std::runtime_error if a same-topology update is refused.
UpdateCosts measure_updates(const RepeatPlan& plan, const UpdateExperiment& experiment);

// graph_calls from `first` to `second`.
UpdateExperiment update_experiment(const StreamPool& pool, const Gemm& gemm, BatchBuffers& first,
                                   BatchBuffers& second, std::uint64_t second_seed);

// One exec of the article's graph switched to the second buffers three ways
// (host time), each round starting from an exec on the first again (untimed):
//   whole graph  capture on `second` + cudaGraphExecUpdate(exec, graph, &info)
//   node level   every node of the instantiated graph re-pointed: kernel nodes
//                get new arguments (cudaGraphExecKernelNodeSetParams), copies
//                new pointers (cudaGraphExecMemcpyNodeSetParams1D). No capture
//                at all. The naive kernel only: its arguments (a, b, c, m, n,
//                k) are known, other kernels' nodes differ.
//   re-capture   capture on `second` + cudaGraphInstantiateWithParams
struct NodeUpdateCosts {
  int batches = 0;
  std::size_t kernel_nodes = 0;
  std::size_t memcpy_nodes = 0;
  Summary whole_graph;
  std::optional<Summary> node_level;  // nothing: node_level_note says why
  Summary recapture_instantiate;
  std::string node_level_note;
  VerifyResult whole_graph_check;     // each exec, launched after its switch: the new buffers' result
  std::optional<VerifyResult> node_level_check;
  VerifyResult recapture_check;
};

// A node the runtime refuses to re-point when first tried, untimed (e.g. a
// copy from pageable memory), is reported in the note, not thrown.
NodeUpdateCosts measure_node_updates(const RepeatPlan& plan, const UpdateExperiment& experiment, GemmKernel kernel);

}  // namespace csg::graphs
