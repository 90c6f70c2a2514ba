#include "graph_inspect.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace csg {

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

void write_graph_dot(const Graph& graph, const std::string& path) {
  namespace fs = std::filesystem;
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  const cudaError_t status = cudaGraphDebugDotPrint(graph.get(), temporary.c_str(), cudaGraphDebugDotFlagsVerbose);
  std::error_code ignored;
  if (status != cudaSuccess) {
    fs::remove(temporary, ignored);
    const std::string call = "cudaGraphDebugDotPrint(graph, \"" + temporary + "\", cudaGraphDebugDotFlagsVerbose)";
    throw_cuda_error(status, call.c_str(), __FILE__, __LINE__);
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    fs::remove(temporary, ignored);
    throw std::runtime_error("cannot rename " + temporary + " to " + path + ": " + error.message());
  }
}

nlohmann::json to_json(const GraphStructure& s) {
  return {
      {"nodes", s.nodes},
      {"edges", s.edges},
      {"kernel_nodes", s.kernel_nodes},
      {"memcpy_nodes", s.memcpy_nodes},
      {"event_nodes", s.event_nodes},
      {"empty_nodes", s.empty_nodes},
      {"other_nodes", s.other_nodes},
      {"roots", s.roots},
      {"leaves", s.leaves},
      {"max_in_degree", s.max_in_degree},
      {"max_out_degree", s.max_out_degree},
      {"chains", s.chains},
  };
}

}  // namespace csg
