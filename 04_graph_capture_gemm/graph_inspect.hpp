// What CUDA actually built from a capture: node and edge counts, nodes by
// type, roots (no dependencies) and leaves (no dependents), and whether the
// graph is a set of independent chains (every node at most one in, one out).
//
// For the article's capture with a pool of P streams and B ≥ P batches this
// is P chains H2D → kernel → D2H → H2D → ... : 3·B nodes, 3·B − P edges,
// P roots and P leaves, and no event nodes. A plain cudaEventRecord /
// cudaStreamWaitEvent during capture creates no node; it only hands the
// recording stream's current leaves to the waiting stream as dependencies.
// Step 2's fork event is recorded before anything was captured (no leaves),
// so each stream's first copy becomes a root; step 4's join leaves stream 0
// depending on every stream's last D2H, but nothing is captured after it, so
// those D2H copies stay leaves. The join adds no node, it is what lets
// cudaStreamEndCapture accept the graph.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "cuda/graph.hpp"
#include "report/verdict.hpp"

namespace csg::graphs {

struct GraphStructure {
  std::size_t nodes = 0;
  std::size_t edges = 0;
  std::size_t kernel_nodes = 0;
  std::size_t memcpy_nodes = 0;
  std::size_t event_nodes = 0;  // event record and wait event nodes
  std::size_t empty_nodes = 0;
  std::size_t other_nodes = 0;
  std::size_t roots = 0;
  std::size_t leaves = 0;
  std::size_t max_in_degree = 0;
  std::size_t max_out_degree = 0;
  // Independent chains: the roots, when no node has more than one dependency
  // or dependent; 0 when the graph is not a set of chains.
  std::size_t chains = 0;
};

GraphStructure inspect_graph(const Graph& graph);

// "graph.events": the structure in two lines ("the captured graph: 300 nodes
// (100 kernel, 200 memcpy, 0 event, 0 other), 292 edges, ...") and whether
// the fork and join events added nodes ("event_nodes") or not ("no_event_nodes").
Verdict structure_verdict(const GraphStructure& structure);
// "graph.chains": what the fork and join made of a capture on `streams`
// streams: one chain per stream used when the graph is a set of chains
// ("chains"), else the degrees that say it is not ("not_chains").
Verdict fork_join_verdict(const GraphStructure& structure, int streams);

// cudaGraphDebugDotPrint with every detail (cudaGraphDebugDotFlagsVerbose),
// written whole or not at all (a temporary file next to `path`, then rename).
void write_graph_dot(const Graph& graph, const std::string& path);

nlohmann::json to_json(const GraphStructure& structure);

}  // namespace csg::graphs
