// The costs subcommand: what the article's graph costs once (capture,
// instantiate, upload, first launch, relaunch) and what it saves at each
// replay, on the article's workload with any --kernel: the replay's GPU time
// against the same work issued on the pool, each with its bound, the CPU
// time to issue each, and after how many replays the graph has paid for
// itself (graph_costs.hpp measures; this file reports).
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "cli/pool_options.hpp"
#include "04_graph_capture_gemm/lab/graph_costs.hpp"
#include "04_graph_capture_gemm/graph_inspect.hpp"
#include "measure/estimate.hpp"
#include "report/result.hpp"
#include "stage.hpp"

namespace csg::graphs {

struct CostsRun {
  CommonOptions options;
  PoolConfig pool;
  GraphStructure structure;  // the graph the replays launch
  VerifyResult six_steps_check;  // the article's six steps, once, before any timing
  LifecycleCosts lifecycle;
  ReplayCosts replay;
  // The host time of one cudaGraphLaunch of the kernels-alone graph (the
  // same batches' kernel nodes, no copies), in the replay's rounds: what the
  // launch costs without the copy nodes.
  Summary kernels_graph_launch_cpu;
};

// Measurements: capture, instantiate, upload, first_launch, relaunch,
// launch_after_upload, graph_replay and stream_pool (each with its bound),
// issue_streams_cpu, issue_graph_cpu, issue_kernels_graph_cpu, the
// one-stream sums and first ops, resource_alone per resource and issue; bounds:
// break_even_replays, graph_replay_bound_ms, graph_replay_limited_by,
// graph_replay_percent_of_bound, the same three for stream_pool,
// stream_pool_host_issue_ms, replay_over_stream_pool, issue_graph_over_streams.
StageResult costs_result(const DeviceInfo& device, const CostsRun& run);
// subcommand_json(result, "costs") and "graph": the structure.
nlohmann::json costs_json(const StageResult& result, const CostsRun& run);
void print_costs(std::ostream& out, const StageResult& result, const CostsRun& run);

// Every round at `rates`: the three launches of the one-time costs, the
// replay and the pool's run, the two issue timings (each waited for), the
// one-stream sums, each resource alone on the streams and as a graph, and
// the kernels-alone graph's launch.
double costs_seconds(const CommonOptions& options, const Rates& rates);

}  // namespace csg::graphs
