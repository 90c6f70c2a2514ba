#include "graph_inspect.hpp"

#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "base/output_file.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

GraphStructure inspect_graph(const Graph& graph) {
  GraphStructure s{.nodes = graph.node_count(), .edges = graph.edge_count()};
  for (cudaGraphNode_t node : nodes_of(graph)) {
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

Verdict structure_verdict(const GraphStructure& g) {
  Verdict verdict{.id = "graph.events",
                  .outcome = g.event_nodes == 0 ? "no_event_nodes" : "event_nodes",
                  .figures = {{"nodes", g.nodes}, {"event_nodes", g.event_nodes}, {"chains", g.chains}},
                  .sentence = "the captured graph: " + plural(g.nodes, "node") + " (" + std::to_string(g.kernel_nodes) +
                              " kernel, " + std::to_string(g.memcpy_nodes) + " memcpy, " +
                              std::to_string(g.event_nodes) + " event, " +
                              std::to_string(g.empty_nodes + g.other_nodes) + " other), " + plural(g.edges, "edge") +
                              ", " + plural(g.roots, "root") + ", " + plural(g.leaves, "leaf", "leaves")};
  if (g.chains > 0) verdict.sentence += ": " + plural(g.chains, "independent chain") + ", one per stream used";
  verdict.sentence += g.event_nodes == 0
                          ? ".\nthe fork and join events added no nodes: they only told CUDA which work depends on which."
                          : ".\nthe capture holds " + plural(g.event_nodes, "event node") +
                                ": events recorded or waited on as nodes, not only as the fork's and join's dependencies.";
  return verdict;
}

Verdict fork_join_verdict(const GraphStructure& g, int streams) {
  Verdict verdict{.id = "graph.chains",
                  .outcome = g.chains > 0 ? "chains" : "not_chains",
                  .figures = {{"streams", streams}, {"chains", g.chains}, {"max_in_degree", g.max_in_degree},
                              {"max_out_degree", g.max_out_degree}}};
  verdict.sentence =
      g.chains > 0
          ? "batch i was captured on stream i % " + std::to_string(streams) +
                ", so each stream's batches form one chain H2D -> kernel -> D2H -> H2D -> ...; the fork made each "
                "stream's first copy a root, and the join, capturing nothing after it, left each stream's last copy a leaf."
          : "the graph is not a set of chains: a node has up to " + std::to_string(g.max_in_degree) +
                " dependencies and up to " + std::to_string(g.max_out_degree) + " dependents.";
  return verdict;
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
