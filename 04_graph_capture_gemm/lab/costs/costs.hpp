// The costs subcommand: what the article's graph costs once (capture,
// instantiate, upload, first launch, relaunch) and what it saves at each
// replay, on the article's workload with any --kernel: the replay's GPU time
// against the same work issued on the pool, each with its bound, the CPU
// time to issue each, and after how many replays the graph has paid for
// itself (graph_costs.hpp measures; costs.cpp declares and reports).
#pragma once

#include "04_graph_capture_gemm/graph_inspect.hpp"
#include "04_graph_capture_gemm/lab/graph_costs.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "experiment/report.hpp"
#include "measure/estimate.hpp"

namespace csg::graphs {

struct CostsFigures {
  GraphStructure structure;      // the graph the replays launch
  VerifyResult six_steps_check;  // the article's six steps, once, before any timing
  LifecycleCosts lifecycle;
  ReplayCosts replay;
  // The host time of one cudaGraphLaunch of the kernels-alone graph (the
  // same batches' kernel nodes, no copies), in the replay's rounds: what the
  // launch costs without the copy nodes.
  Summary kernels_graph_launch_cpu;
};

// "costs.graph_replay.bound", "costs.stream_pool.bound": a GPU variant
// against its bound: "within_bound", or "faster_than_bound" (more than its
// tolerance above 100%: the bound is wrong). The pool's sentence, when its
// bound is its stream order, says why the replay's has none.
Verdict bound_verdict(const Measurement& m, int batches, int streams);

// Measurements: capture, instantiate, upload, first_launch, relaunch,
// launch_after_upload, graph_replay and stream_pool (each with its bound),
// issue_streams_cpu, issue_graph_cpu, issue_kernels_graph_cpu, the
// one-stream sums and first ops, resource_alone per resource and issue;
// bounds: break_even_replays, the bound, its path and the percent of it of
// each GPU variant, stream_pool_host_issue_ms, replay_over_stream_pool,
// issue_graph_over_streams; "graph": the structure. Verdicts: graph.events,
// graph.replay, the two bounds, graph.launch_cost, graph.copy_nodes, graph.break_even.
void report_costs(const ArticleOptions& options, const CostsFigures& figures, Report& report);

// Every round at `rates`: the three launches of the one-time costs, the
// replay and the pool's run, the two issue timings (each waited for), the
// one-stream sums, each resource alone on the streams and as a graph, and
// the kernels-alone graph's launch.
double costs_seconds(const CommonOptions& options, const Rates& rates);

}  // namespace csg::graphs
