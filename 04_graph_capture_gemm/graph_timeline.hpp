// Stage 04's timeline: which pool stream and batch each node of a replay is.
//
// A graph replay runs on streams the driver picks, so the stage can't name
// them as stage 03 does. Instead, the captured graph itself says what each
// node is: a memcpy node's host pointer is h_A[b] (H2D) or h_C[b] (D2H) of
// exactly one batch b, and each kernel node depends on its batch's H2D (the
// capture put H2D -> kernel -> D2H on one stream). Batch b was captured on pool
// stream b % pool, which is its row. Walking the graph after the capture
// leaves the article's six steps in main.cu untouched.
//
// CUPTI's records of a replay carry the ids of the EXEC's nodes, which
// instantiation cloned from the captured ones; prepare_graph_timeline
// instantiates a second exec while GraphNodeClones watches, so each clone's id
// maps back to a captured node. The timed replays keep using the stage's own
// exec. If any of this fails (no clone callbacks under another CUPTI tool, a
// node whose batch can't be told), labelling falls back to the order in which
// the driver's streams started work, and a note says so.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "workload/batch_buffers.hpp"
#include "timeline/cupti_recorder.hpp"
#include "cuda/graph.hpp"
#include "workload/stream_pool.hpp"

namespace csg {

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

}  // namespace csg
