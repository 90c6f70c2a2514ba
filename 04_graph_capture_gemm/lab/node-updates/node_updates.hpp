// The node-updates subcommand: when only the buffers change, what does it
// cost to point the instantiated graph at them? cudaGraphExecUpdate after a
// new capture, against re-capture + instantiate (and the update CUDA refuses
// when the batch count changes); then one exec switched node by node
// (cudaGraphExec*NodeSetParams), against the whole update and a new
// instantiate (exec_update.hpp measures; this file reports).
#pragma once

#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "04_graph_capture_gemm/lab/changing_shapes_report.hpp"
#include "cli/pool_options.hpp"
#include "04_graph_capture_gemm/lab/exec_update.hpp"
#include "measure/estimate.hpp"
#include "report/result.hpp"
#include "stage.hpp"

namespace csg::graphs {

struct NodeUpdatesRun {
  CommonOptions options;
  PoolConfig pool;
  UpdateCosts updates;           // a new capture + cudaGraphExecUpdate against re-capture + instantiate
  NodeUpdateCosts node_updates;  // one exec switched node by node, against the whole update and a new instantiate
};

// Measurements: update_exec, update_call, recapture_instantiate and
// node_update once per switch (params {"how": "whole_graph" | "node_level" |
// "recapture_instantiate", "batches"}); every check is of the second
// buffers' result.
StageResult node_updates_result(const DeviceInfo& device, const NodeUpdatesRun& run);
// subcommand_json(result, "node-updates"), "updates" (each cudaGraphExecUpdate
// tried: "change", "result", "allowed") and "changing_shapes" with its
// "node_updates" (changing_shapes_json; the sequence null).
nlohmann::json node_updates_json(const StageResult& result, const NodeUpdatesRun& run);
void print_node_updates(std::ostream& out, const StageResult& result, const NodeUpdatesRun& run);

// Every round's captures, instantiates and updates of the whole graph (about
// 7 µs a node: capture 0.6 + instantiate 1.5 ms for 300 nodes), and the five
// launches that are verified.
double node_updates_seconds(const CommonOptions& options, const Rates& rates);

}  // namespace csg::graphs
