// The costs subcommand (kAbout in costs.cpp), declared here for the tests;
// graph_costs.hpp measures.
#pragma once

#include "04_graph_capture_gemm/graph_inspect.hpp"
#include "04_graph_capture_gemm/lab/graph_costs.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "experiment/lab.hpp"

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
// against its bound; more than its tolerance above 100%: the bound is wrong.
Verdict bound_verdict(const Measurement& m, int batches, int streams);

void report_costs(const ArticleOptions& options, const CostsFigures& figures, Report& report);

// Every round's runs at `rates`.
double costs_seconds(const CommonOptions& options, const Rates& rates);

}  // namespace csg::graphs
