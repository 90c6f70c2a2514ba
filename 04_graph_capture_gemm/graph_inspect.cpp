#include "graph_inspect.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "base/output_file.hpp"
#include "base/text.hpp"
#include "timeline/stage_timeline.hpp"

namespace csg::graphs {

GraphStructure inspect_graph(const Graph& graph) {
  GraphStructure s;
  s.nodes = graph.node_count();
  s.edges = graph.edge_count();
  std::vector<cudaGraphNode_t> nodes(s.nodes);
  std::size_t count = s.nodes;
  if (count > 0) CUDA_CHECK(cudaGraphGetNodes(graph.get(), nodes.data(), &count));
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    switch (type) {
      case cudaGraphNodeTypeKernel: ++s.kernel_nodes; break;
      case cudaGraphNodeTypeMemcpy: ++s.memcpy_nodes; break;
      case cudaGraphNodeTypeEventRecord:
      case cudaGraphNodeTypeWaitEvent: ++s.event_nodes; break;
      case cudaGraphNodeTypeEmpty: ++s.empty_nodes; break;
      default: ++s.other_nodes; break;
    }
    std::size_t in_degree = 0;
    std::size_t out_degree = 0;
    CUDA_CHECK(cudaGraphNodeGetDependencies(node, nullptr, nullptr, &in_degree));
    CUDA_CHECK(cudaGraphNodeGetDependentNodes(node, nullptr, nullptr, &out_degree));
    if (in_degree == 0) ++s.roots;
    if (out_degree == 0) ++s.leaves;
    s.max_in_degree = std::max(s.max_in_degree, in_degree);
    s.max_out_degree = std::max(s.max_out_degree, out_degree);
  }
  s.chains = (s.max_in_degree <= 1 && s.max_out_degree <= 1) ? s.roots : 0;
  return s;
}

std::string structure_text(const GraphStructure& g) {
  std::string text = "the captured graph: " + plural(g.nodes, "node") + " (" + std::to_string(g.kernel_nodes) +
                     " kernel, " + std::to_string(g.memcpy_nodes) + " memcpy, " + std::to_string(g.event_nodes) +
                     " event, " + std::to_string(g.empty_nodes + g.other_nodes) + " other), " +
                     plural(g.edges, "edge") + ", " + plural(g.roots, "root") + ", " +
                     plural(g.leaves, "leaf", "leaves");
  if (g.chains > 0) text += ": " + plural(g.chains, "independent chain") + ", one per stream used";
  text += ".\n";
  if (g.event_nodes == 0) {
    return text + "the fork and join events added no nodes: they only told CUDA which work depends on which.";
  }
  return text + "the capture holds " + plural(g.event_nodes, "event node") +
         ": events recorded or waited on as nodes, not only as the fork's and join's dependencies.";
}

std::string fork_join_text(const GraphStructure& g, int streams) {
  if (g.chains > 0) {
    return "batch i was captured on stream i % " + std::to_string(streams) +
           ", so each stream's batches form one chain H2D -> kernel -> D2H -> H2D -> ...; the fork made each "
           "stream's first copy a root, and the join, capturing nothing after it, left each stream's last copy a leaf.";
  }
  return "the graph is not a set of chains: a node has up to " + std::to_string(g.max_in_degree) +
         " dependencies and up to " + std::to_string(g.max_out_degree) + " dependents.";
}

void write_graph_dot(const Graph& graph, const std::string& path) {
  write_file_whole(path, [&graph](const std::string& temporary) {
    CUDA_CHECK(cudaGraphDebugDotPrint(graph.get(), temporary.c_str(), cudaGraphDebugDotFlagsVerbose));
  });
}

// Every count under its own name, so that a count added to GraphStructure
// and listed here reaches the JSON under the name the code uses.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GraphStructure, nodes, edges, kernel_nodes, memcpy_nodes, event_nodes, empty_nodes,
                                   other_nodes, roots, leaves, max_in_degree, max_out_degree, chains)

nlohmann::json to_json(const GraphStructure& structure) { return structure; }

}  // namespace csg::graphs

namespace csg::graphs {
namespace {

// The host address a memcpy node reads or writes: the pitched pointer plus the
// position offset (a 1-D copy captured from cudaMemcpyAsync has offset 0).
const void* host_address(const cudaPitchedPtr& ptr, const cudaPos& pos) {
  if (ptr.ptr == nullptr) return nullptr;
  return static_cast<const char*>(ptr.ptr) + pos.z * ptr.pitch * ptr.ysize + pos.y * ptr.pitch + pos.x;
}

std::vector<cudaGraphNode_t> nodes_of(const Graph& graph) {
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph.get(), nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) CUDA_CHECK(cudaGraphGetNodes(graph.get(), nodes.data(), &count));
  nodes.resize(count);
  return nodes;
}

std::vector<cudaGraphNode_t> dependencies_of(cudaGraphNode_t node) {
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphNodeGetDependencies(node, nullptr, nullptr, &count));
  std::vector<cudaGraphNode_t> dependencies(count);
  // Edge data asked for too: without it, an edge with non-default data makes
  // the call fail with cudaErrorLossyQuery (captured edges have none, but be safe).
  std::vector<cudaGraphEdgeData> edges(count);
  if (count > 0) CUDA_CHECK(cudaGraphNodeGetDependencies(node, dependencies.data(), edges.data(), &count));
  dependencies.resize(count);
  return dependencies;
}

}  // namespace

std::map<cudaGraphNode_t, NodeLabel> label_captured_nodes(const Graph& graph, BatchBuffers& buffers, int pool,
                                                          std::vector<std::string>& notes) {
  const int batches = buffers.work().batches;
  std::map<const void*, int> h2d_source;  // h_A[b] -> b
  std::map<const void*, int> d2h_target;  // h_C[b] -> b
  for (int batch = 0; batch < batches; ++batch) {
    h2d_source[buffers.host_a(batch)] = batch;
    d2h_target[buffers.host_c(batch)] = batch;
  }

  std::map<cudaGraphNode_t, NodeLabel> labels;
  std::map<cudaGraphNode_t, int> h2d_batch;
  std::vector<cudaGraphNode_t> kernels;
  int unknown = 0;
  // Copies first: their host pointers name the batch.
  for (const cudaGraphNode_t node : nodes_of(graph)) {
    cudaGraphNodeType type{};
    CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    if (type == cudaGraphNodeTypeKernel) {
      kernels.push_back(node);
      continue;
    }
    if (type != cudaGraphNodeTypeMemcpy) continue;  // the article's capture has no other nodes
    cudaMemcpy3DParms params{};
    CUDA_CHECK(cudaGraphMemcpyNodeGetParams(node, &params));
    if (const auto it = h2d_source.find(host_address(params.srcPtr, params.srcPos)); it != h2d_source.end()) {
      labels[node] = NodeLabel{it->second % pool, it->second};
      h2d_batch[node] = it->second;
    } else if (const auto jt = d2h_target.find(host_address(params.dstPtr, params.dstPos)); jt != d2h_target.end()) {
      labels[node] = NodeLabel{jt->second % pool, jt->second};
    } else {
      ++unknown;
    }
  }
  // Kernels: the batch of the one H2D they depend on.
  for (const cudaGraphNode_t kernel : kernels) {
    std::set<int> from;
    for (const cudaGraphNode_t dependency : dependencies_of(kernel)) {
      if (const auto it = h2d_batch.find(dependency); it != h2d_batch.end()) from.insert(it->second);
    }
    if (from.size() == 1) {
      labels[kernel] = NodeLabel{*from.begin() % pool, *from.begin()};
    } else {
      ++unknown;
    }
  }
  if (unknown > 0) {
    notes.push_back("the batch of " + plural(unknown, "captured node") + " could not be told from the "
                    "graph; rows follow the order in which the replay's streams started work");
    return {};
  }
  return labels;
}

GraphTimelineRun prepare_graph_timeline(const Graph& graph, BatchBuffers& buffers, const StreamPool& pool) {
  GraphTimelineRun out;
  out.plan.row_names = pool_row_names(pool.size());
  out.plan.batches = buffers.work().batches;
  out.plan.pool = pool.size();
  out.plan.flops_per_kernel = buffers.work().flops_per_batch();
  // plan.streams stays empty: a replay runs on the driver's streams, not the pool's.

  const std::map<cudaGraphNode_t, NodeLabel> labels = label_captured_nodes(graph, buffers, pool.size(), out.notes);
  std::map<std::uint64_t, cudaGraphNode_t> clone_to_original;
  bool watched = false;
  {
    const GraphNodeClones clones;  // on only while this exec is instantiated
    out.exec = GraphExec::instantiate(graph, {.flags = cudaGraphInstantiateFlagUpload, .upload_stream = pool[0]});
    CUDA_CHECK(cudaStreamSynchronize(pool[0]));
    clone_to_original = clones.clone_to_original();
    watched = clones.watching();
    if (!clones.watching() && !labels.empty()) {
      out.notes.push_back("no clone ids (" + clones.unavailable_reason() + "); trying the captured nodes' ids");
    }
  }
  if (labels.empty()) return out;

  // The exec's copies first: CUPTI's records of a replay carry their ids.
  for (const auto& [clone_id, original] : clone_to_original) {
    if (const auto it = labels.find(original); it != labels.end()) out.plan.graph_nodes[clone_id] = it->second;
  }
  if (watched && out.plan.graph_nodes.empty()) {
    out.notes.push_back("CUPTI reported no clone of a captured node while instantiating (" +
                        plural(static_cast<long long>(clone_to_original.size()), "clone") + " of other nodes)");
  }
  // And the captured nodes' own ids, in case a driver reports those instead.
  for (const auto& [node, label] : labels) {
    if (const std::optional<std::uint64_t> id = TimelineRecorder::graph_node_id(node)) {
      out.plan.graph_nodes.emplace(*id, label);
    }
  }
  return out;
}

}  // namespace csg::graphs
