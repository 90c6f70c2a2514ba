#include "04_graph_capture_gemm/lab/exec_update.hpp"

#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

// ---- the node-level switch --------------------------------------------------

// Where a pointer lies in one set of buffers (region -1: in none of them),
// and so the same place in another set.
struct Place {
  int region = -1;
  std::size_t offset = 0;
};

class BufferMap {
 public:
  explicit BufferMap(BatchBuffers& b) {
    const Workload& w = b.work();
    const std::size_t slots = std::size_t(b.device_slots());
    auto region = [](const float* p, std::size_t bytes) { return Region{reinterpret_cast<const char*>(p), bytes}; };
    regions_ = {region(b.host_a(0), w.batch_count() * w.a_bytes()), region(b.host_c(0), w.batch_count() * w.c_bytes()),
                region(b.device_a(0), slots * w.a_bytes()), region(b.device_b(), w.b_bytes()),
                region(b.device_c(0), slots * w.c_bytes())};
  }
  Place find(const void* p) const {
    const char* c = static_cast<const char*>(p);
    for (std::size_t r = 0; r < regions_.size(); ++r) {
      if (c >= regions_[r].base && c < regions_[r].base + regions_[r].bytes) {
        return {static_cast<int>(r), std::size_t(c - regions_[r].base)};
      }
    }
    return {};
  }
  void* at(Place place) const { return const_cast<char*>(regions_[std::size_t(place.region)].base) + place.offset; }

 private:
  struct Region {
    const char* base;
    std::size_t bytes;
  };
  std::vector<Region> regions_;
};

struct KernelNode {
  cudaGraphNode_t node;
  cudaKernelNodeParams params;  // func, grid, block, shared memory as instantiated
  Place a, b, c;                // the naive kernel's gemm_naive(a, b, c, m, n, k)
};

struct CopyNode {
  cudaGraphNode_t node;
  Place dst, src;
  std::size_t count;
  cudaMemcpyKind kind;
};

// Every node of the stage's graph, with its pointers as places in the first
// buffers: built once, untimed. Empty `problem` when every node is understood.
struct NodeTable {
  GemmShape shape;  // every kernel node's m, n, k
  std::vector<KernelNode> kernels;
  std::vector<CopyNode> copies;
  std::string problem;
};

NodeTable read_nodes(const Graph& graph, const BufferMap& first, const GemmShape& shape) {
  NodeTable table;
  table.shape = shape;
  for (cudaGraphNode_t node : nodes_of(graph)) {
    cudaGraphNodeType type{};
    CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    if (type == cudaGraphNodeTypeKernel) {
      KernelNode k{};
      k.node = node;
      CUDA_CHECK(cudaGraphKernelNodeGetParams(node, &k.params));
      if (k.params.kernelParams == nullptr) {
        table.problem = "a kernel node holds its arguments in the 'extra' format";
        return table;
      }
      // kernelParams[i] points at argument i (owned by the node): read the values.
      void** args = k.params.kernelParams;
      auto pointer = [&](int i) { return first.find(*static_cast<const float* const*>(args[i])); };
      auto value = [&](int i) { return *static_cast<const int*>(args[i]); };
      k.a = pointer(0);
      k.b = pointer(1);
      k.c = pointer(2);
      if (k.a.region < 0 || k.b.region < 0 || k.c.region < 0 || value(3) != shape.m || value(4) != shape.n ||
          value(5) != shape.k) {
        table.problem = "a kernel node's arguments are not the naive kernel's (a, b, c, m, n, k) on these buffers";
        return table;
      }
      k.params.kernelParams = nullptr;  // replaced by new argument storage at every switch
      k.params.extra = nullptr;
      table.kernels.push_back(k);
    } else if (type == cudaGraphNodeTypeMemcpy) {
      cudaMemcpy3DParms p{};
      CUDA_CHECK(cudaGraphMemcpyNodeGetParams(node, &p));
      // A captured cudaMemcpyAsync is a 1D copy: width = bytes, one row, one slice, no offsets.
      const bool one_dimensional = p.srcArray == nullptr && p.dstArray == nullptr && p.extent.height == 1 &&
                                   p.extent.depth == 1 && p.srcPos.x == 0 && p.srcPos.y == 0 && p.srcPos.z == 0 &&
                                   p.dstPos.x == 0 && p.dstPos.y == 0 && p.dstPos.z == 0;
      const CopyNode c{node, first.find(p.dstPtr.ptr), first.find(p.srcPtr.ptr), p.extent.width, p.kind};
      if (!one_dimensional || c.dst.region < 0 || c.src.region < 0) {
        table.problem = "a copy node is not a 1D copy between these buffers";
        return table;
      }
      table.copies.push_back(c);
    }
  }
  return table;
}

// Points every node of `exec` (instantiated from the table's graph) at the
// same places in `to`: new arguments for each kernel node, new pointers for
// each copy. Returns the first refusal, if any, and the call that refused.
struct NodeRefusal {
  cudaError_t status = cudaSuccess;
  const char* call = "";
};

NodeRefusal point_nodes_at(const GraphExec& exec, const NodeTable& table, const BufferMap& to) {
  for (const KernelNode& k : table.kernels) {
    auto* a = static_cast<const float*>(to.at(k.a));
    auto* b = static_cast<const float*>(to.at(k.b));
    auto* c = static_cast<float*>(to.at(k.c));
    int m = table.shape.m, n = table.shape.n, kk = table.shape.k;
    void* arg_pointers[] = {&a, &b, &c, &m, &n, &kk};
    cudaKernelNodeParams params = k.params;
    params.kernelParams = arg_pointers;  // copied by the call: the storage may end with this iteration
    const cudaError_t status = cudaGraphExecKernelNodeSetParams(exec.get(), k.node, &params);
    if (status != cudaSuccess) return {status, "cudaGraphExecKernelNodeSetParams"};
  }
  for (const CopyNode& c : table.copies) {
    const cudaError_t status =
        cudaGraphExecMemcpyNodeSetParams1D(exec.get(), c.node, to.at(c.dst), to.at(c.src), c.count, c.kind);
    if (status != cudaSuccess) return {status, "cudaGraphExecMemcpyNodeSetParams1D"};
  }
  return {};
}

void point_nodes_or_throw(const GraphExec& exec, const NodeTable& table, const BufferMap& to) {
  const NodeRefusal refusal = point_nodes_at(exec, table, to);
  if (refusal.status != cudaSuccess) {
    throw_cuda_error(refusal.status, (std::string(refusal.call) + " (it applied when first tried)").c_str(),
                     __FILE__, __LINE__);
  }
}

// An update between graphs of the same topology, which must apply.
ExecUpdateAttempt same_topology_update(const GraphExec& exec, const Graph& graph) {
  const ExecUpdateAttempt attempt = update_exec(exec, graph);
  if (!attempt.applied()) {
    throw std::runtime_error("cudaGraphExecUpdate refused new pointers with the same topology: " + attempt.describe());
  }
  return attempt;
}

// `exec` launched on the second buffers' poisoned outputs, and every batch
// verified: poisoned outputs prove the exec wrote the second buffers' result.
VerifyResult launch_on_second(const UpdateExperiment& ex, const GraphExec& exec) {
  ex.second->poison_outputs(ex.stream);
  ex.launch(exec);
  CUDA_CHECK(cudaStreamSynchronize(ex.stream));
  return ex.second->verify(ex.second_seed);
}

// Re-capture for the second buffers + a new instantiation into `exec`, timed;
// the exec of the round before is destroyed outside the timed region.
TimedVariant recapture_variant(const UpdateExperiment& ex, int batches, GraphExec& exec) {
  return {.prepare = [&exec] { exec = GraphExec(); },
          .run = [&ex, batches, &exec] {
            const HostTimer timer;
            const Graph graph = ex.capture(*ex.second, batches);
            exec = ex.instantiate(graph);
            return timer.elapsed();
          },
          .after_last = nullptr};
}

}  // namespace

std::string_view to_string(cudaGraphExecUpdateResult result) {
  return name_of(result,
                 {"cudaGraphExecUpdateSuccess", "cudaGraphExecUpdateError", "cudaGraphExecUpdateErrorTopologyChanged",
                  "cudaGraphExecUpdateErrorNodeTypeChanged", "cudaGraphExecUpdateErrorFunctionChanged",
                  "cudaGraphExecUpdateErrorParametersChanged", "cudaGraphExecUpdateErrorNotSupported",
                  "cudaGraphExecUpdateErrorUnsupportedFunctionChange", "cudaGraphExecUpdateErrorAttributesChanged"},
                 "unknown cudaGraphExecUpdateResult");
}

std::string ExecUpdateAttempt::describe() const {
  const std::string name(to_string(result));
  return status == cudaSuccess ? name : std::string(cudaGetErrorName(status)) + ": " + name;
}

ExecUpdateAttempt update_exec(const GraphExec& exec, const Graph& graph) {
  cudaGraphExecUpdateResultInfo info{};
  ExecUpdateAttempt attempt;
  attempt.status = cudaGraphExecUpdate(exec.get(), graph.get(), &info);
  attempt.result = info.result;
  if (attempt.status == cudaErrorGraphExecUpdateFailure) {
    static_cast<void>(cudaGetLastError());  // a refused update is an answer, not an error
  } else if (attempt.status != cudaSuccess) {
    throw_cuda_error(attempt.status, "cudaGraphExecUpdate(exec, graph, &info)", __FILE__, __LINE__);
  }
  return attempt;
}

UpdateCosts measure_updates(const RepeatPlan& plan, const UpdateExperiment& ex) {
  const int batches = ex.first->work().batches;
  UpdateCosts costs;
  GraphExec exec = ex.instantiate(ex.capture(*ex.first, batches));
  GraphExec reinstantiated;
  Graph to_second;  // captured untimed for the update-alone variant
  auto update = [&](const Graph& graph) { costs.new_pointers = same_topology_update(exec, graph); };
  // Each timed region holds the calls it names and nothing else: graphs and
  // execs of the round before are destroyed outside it (a captured graph
  // lives until after the timer has been read).
  const std::vector<TimedVariant> rounds = {
      {.prepare = nullptr,
       .run = [&] {
         const HostTimer timer;
         const Graph graph = ex.capture(*ex.first, batches);
         update(graph);
         return timer.elapsed();
       },
       .after_last = nullptr},
      {.prepare = [&] { to_second = Graph(); to_second = ex.capture(*ex.second, batches); },
       .run = [&] { const HostTimer timer; update(to_second); return timer.elapsed(); },
       .after_last = nullptr},
      recapture_variant(ex, batches, reinstantiated),
  };
  measure_interleaved_into(plan, rounds, {&costs.update_exec, &costs.update_call, &costs.recapture_instantiate});

  // Both must now compute the second buffers' result.
  costs.updated_check = launch_on_second(ex, exec);
  costs.reinstantiated_check = launch_on_second(ex, reinstantiated);

  // A different batch count: fewer nodes, so a different topology. The exec
  // is not launched after this attempt.
  if (batches >= 2) {
    costs.smaller_batches = batches - 1;
    costs.topology_change = update_exec(exec, ex.capture(*ex.first, batches - 1));
  }
  return costs;
}

GraphCalls graph_calls(const StreamPool& pool, const Gemm& gemm) {
  return {[&pool, &gemm](BatchBuffers& b, int batches) { return capture_batches(batch_ops(b, gemm), pool, batches); },
          instantiate, [&pool](const GraphExec& exec) { launch(exec, pool); }};
}

UpdateExperiment update_experiment(const StreamPool& pool, const Gemm& gemm, BatchBuffers& first,
                                   BatchBuffers& second, std::uint64_t second_seed) {
  return {graph_calls(pool, gemm), &first, &second, second_seed, pool[0]};
}

NodeUpdateCosts measure_node_updates(const RepeatPlan& plan, const UpdateExperiment& ex, GemmKernel kernel) {
  BatchBuffers& first = *ex.first;
  BatchBuffers& second = *ex.second;
  const int batches = first.work().batches;
  NodeUpdateCosts costs;
  costs.batches = batches;

  // The article's graph on the first buffers, and an exec of it for each switch.
  const Graph original = ex.capture(first, batches);
  GraphExec whole_exec = ex.instantiate(original);
  GraphExec node_exec;  // only ever changed node by node: its nodes stay those of `original`
  GraphExec recaptured;
  const BufferMap first_map(first);
  const BufferMap second_map(second);
  NodeTable table;
  if (kernel != GemmKernel::naive) {
    costs.node_level_note = "node-level update: naive kernel only (this run's kernel is " +
                            std::string(csg::to_string(kernel)) + ", whose nodes' arguments differ)";
  } else {
    table = read_nodes(original, first_map, first.work().shape);
    if (!table.problem.empty()) costs.node_level_note = "node-level update not tried: " + table.problem;
  }
  costs.kernel_nodes = table.kernels.size();
  costs.memcpy_nodes = table.copies.size();
  bool node_level = costs.node_level_note.empty();
  if (node_level) {
    node_exec = ex.instantiate(original);
    // Tried once untimed: a refusal (e.g. of a copy from pageable memory) is
    // an answer, the note, not a failure of the stage.
    const NodeRefusal refusal = point_nodes_at(node_exec, table, second_map);
    if (refusal.status != cudaSuccess) {
      static_cast<void>(cudaGetLastError());
      costs.node_level_note = std::string("node-level update refused: ") + refusal.call + " returned " +
                              cudaGetErrorName(refusal.status) + " (" + cudaGetErrorString(refusal.status) + ")";
      node_level = false;
    }
  }

  auto whole_update = [&](const Graph& graph) { static_cast<void>(same_topology_update(whole_exec, graph)); };
  std::vector<TimedVariant> variants = {
      {.prepare = [&] { whole_update(original); },  // back on the first buffers
       .run = [&] {
         const HostTimer timer;
         const Graph graph = ex.capture(second, batches);
         whole_update(graph);
         return timer.elapsed();  // before `graph` is destroyed
       },
       .after_last = nullptr},
      recapture_variant(ex, batches, recaptured),
  };
  if (node_level) {
    variants.push_back({.prepare = [&] { point_nodes_or_throw(node_exec, table, first_map); },
                        .run = [&] {
                          const HostTimer timer;
                          point_nodes_or_throw(node_exec, table, second_map);
                          return timer.elapsed();
                        },
                        .after_last = nullptr});
  }
  const std::vector<Summary> summaries = measure_interleaved(plan, variants);
  costs.whole_graph = summaries[0];
  costs.recapture_instantiate = summaries[1];
  if (node_level) costs.node_level = summaries[2];

  // Every exec must now compute the second buffers' result.
  costs.whole_graph_check = launch_on_second(ex, whole_exec);
  if (node_level) costs.node_level_check = launch_on_second(ex, node_exec);
  costs.recapture_check = launch_on_second(ex, recaptured);
  return costs;
}

}  // namespace csg::graphs
