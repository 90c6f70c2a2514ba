// The node-updates subcommand: when only the buffers change, what does it
// cost to point the instantiated graph at them? cudaGraphExecUpdate after a
// new capture, against re-capture + instantiate (and the update CUDA refuses
// when the batch count changes); then one exec switched node by node
// (cudaGraphExec*NodeSetParams), against the whole update and a new
// instantiate (exec_update.hpp measures; node_updates.cpp declares and reports).
#pragma once

#include <optional>
#include <string>

#include "04_graph_capture_gemm/lab/exec_update.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "experiment/report.hpp"

namespace csg::graphs {

struct NodeUpdatesFigures {
  UpdateCosts updates;           // a new capture + cudaGraphExecUpdate against re-capture + instantiate
  NodeUpdateCosts node_updates;  // one exec switched node by node, against the whole update and a new instantiate
};

// "node_updates.exec_update": cudaGraphExecUpdate (after a new capture)
// against re-capture + instantiate (comparison_verdict: faster, same, slower).
Verdict update_verdict(double capture_update_ms, double recapture_instantiate_ms);

// "node_updates.node_level": the three switches to new buffers: node by node
// "fastest" (faster than both others), "not_fastest", or "not_measured"
// (node_level_ms empty: `note` says why).
Verdict node_level_verdict(double whole_graph_ms, std::optional<double> node_level_ms, double recapture_ms,
                           std::size_t nodes, const std::string& note);

// Measurements: update_exec, update_call, recapture_instantiate and
// node_update once per switch (params {"how": "whole_graph" | "node_level" |
// "recapture_instantiate", "batches"}); every check is of the second
// buffers' result. "updates" (each cudaGraphExecUpdate tried: "change",
// "result", "allowed") and "changing_shapes" with its "node_updates"
// ({"batches", "kernel_nodes", "memcpy_nodes", "whole_graph_ms",
// "node_level_ms" (null with "node_level_note"), "recapture_instantiate_ms",
// "verified"}; the sequence null: changing-shapes').
void report_node_updates(const ArticleOptions& options, const NodeUpdatesFigures& figures, Report& report);

// Every round's captures, instantiates and updates of the whole graph (about
// 7 µs a node: capture 0.6 + instantiate 1.5 ms for 300 nodes), and the five
// launches that are verified.
double node_updates_seconds(const CommonOptions& options, const Rates& rates);

}  // namespace csg::graphs
