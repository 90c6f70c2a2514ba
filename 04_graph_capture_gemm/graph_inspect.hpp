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
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cuda/graph.hpp"
#include "timeline/cupti_recorder.hpp"
#include "batches.hpp"
#include "cuda/stream_pool.hpp"

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

// What the structure says, in two lines: "the captured graph: 300 nodes (100
// kernel, 200 memcpy, 0 event, 0 other), 292 edges, 8 roots, 8 leaves: 8
// independent chains, one per stream used." and, by its event nodes, whether
// the fork and join events added nodes (a plain cudaEventRecord /
// cudaStreamWaitEvent during capture adds none).
std::string structure_text(const GraphStructure& structure);
// What the fork and join made of a capture on `streams` streams: one chain
// per stream used when the graph is a set of chains, else the degrees that
// say it is not (more than one dependency or dependent on some node).
std::string fork_join_text(const GraphStructure& structure, int streams);

// cudaGraphDebugDotPrint with every detail (cudaGraphDebugDotFlagsVerbose),
// written whole or not at all (a temporary file next to `path`, then rename).
void write_graph_dot(const Graph& graph, const std::string& path);

nlohmann::json to_json(const GraphStructure& structure);

}  // namespace csg::graphs

// ---- which pool stream and batch each node is -----------------------------
// Stage 04's timeline: which pool stream and batch each node of a replay is.
//
// A graph replay runs on streams the driver picks, so the stage can't name
// them as stage 03 does. Instead, the captured graph itself says what each
// node is: a memcpy node's host pointer is h_A[b] (H2D) or h_C[b] (D2H) of
// exactly one batch b, and each kernel node depends on its batch's H2D (the
// capture put H2D -> kernel -> D2H on one stream). Batch b was captured on pool
// stream b % pool, which is its row. Walking the graph after the capture
// leaves the article's six steps (graph_steps.hpp) untouched.
//
// CUPTI's records of a replay carry the ids of the EXEC's nodes, which
// instantiation cloned from the captured ones; prepare_graph_timeline
// instantiates a second exec while GraphNodeClones watches, so each clone's id
// maps back to a captured node. The timed replays keep using the stage's own
// exec. If any of this fails (no clone callbacks under another CUPTI tool, a
// node whose batch can't be told), labelling falls back to the order in which
// the driver's streams started work, and a note says so.
namespace csg::graphs {

// Row (b % pool) and batch of every memcpy and kernel node of a capture of
// the article's loop on `buffers`. Empty, with the reason in `notes`, if any
// copy or kernel node can't be matched to a batch.
std::map<cudaGraphNode_t, NodeLabel> label_captured_nodes(const Graph& graph, BatchBuffers& buffers, int pool,
                                                          std::vector<std::string>& notes);

struct GraphTimelineRun {
  GraphExec exec;                  // a second exec of the graph, instantiated and uploaded for the recording
  TimelineRun plan;                // rows "stream 0".., graph_nodes keyed by captured AND cloned node ids
  std::vector<std::string> notes;  // why labelling by node may fall back
};

// Labels the captured nodes, then instantiates (and uploads on pool[0]) a
// second exec of `graph` while CUPTI reports the clones.
GraphTimelineRun prepare_graph_timeline(const Graph& graph, BatchBuffers& buffers, const StreamPool& pool);

}  // namespace csg::graphs
