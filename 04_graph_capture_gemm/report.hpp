// Stage 04's results: one measurement per cost and variant in the shared
// schema, the graph's structure and the update outcomes as extra JSON
// objects, and the printed report (costs table, graph vs streams, break-even,
// updates, tiny work, the missing join).
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "check.hpp"
#include "graph_costs.hpp"
#include "graph_inspect.hpp"
#include "exec_update.hpp"
#include "changing_shapes_report.hpp"
#include "launch_costs.hpp"
#include "tiny_work.hpp"
#include "report/result.hpp"

namespace csg::graphs {

struct GraphStageRun {
  CommonOptions options;
  int streams = 8;
  std::string device_buffers;  // "slots" or "per-batch"
  std::string dot_path;        // empty: none written
  GraphStructure structure;
  VerifyResult article_check;  // the six steps, run once
  LifecycleCosts lifecycle;
  ReplayCosts replay;
  UpdateCosts updates;
  TinyConfig tiny_config;
  TinyCosts tiny;
  std::optional<LaunchCosts> launch;  // the launch-cost study, unless --launch-chains off
  ChangingShapesRun shapes;           // the changing shapes and node-level updates, where run
};

// The interleaved rounds' figures the launch-cost study compares itself with.
struct InterleavedIssue;
InterleavedIssue interleaved_issue(const GraphStageRun& run);

StageResult graph_stage_result(const std::string& stage, const DeviceInfo& device, const GraphStageRun& run);
// to_json(result) plus "graph" (structure), "updates", "tiny" and "launch_costs" objects.
nlohmann::json graph_stage_json(const StageResult& result, const GraphStageRun& run);
void print_graph_stage(std::ostream& out, const StageResult& result, const GraphStageRun& run);

// --skip-join: what cudaStreamEndCapture said, in plain words, and what
// happened to the streams afterwards.
void print_missing_join(std::ostream& out, const CudaError& error, int streams, bool still_capturing,
                        const GraphStructure& recaptured);

}  // namespace csg::graphs
