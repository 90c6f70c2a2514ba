// What one launch costs, measured as cuda-samples' cudaGraphsPerfScaling and
// nvbench do: chains of L empty kernels, issued launch by launch and as one
// graph of L nodes. Three figures per chain answer three questions:
//   cpu         host time of the calls (the stream idle before, synchronised after)
//   queued      GPU time while a latch kernel held the stream until everything
//               was queued: what the GPU needs per launch or node, the host out of the way
//   end_to_end  events around the chain without a latch: the GPU waits for
//               the host, so for stream launches this is the host's pace
// A least-squares line fixed + per-op × L through each gives the per-launch
// and per-node costs. Each length is timed back to back (steady state), so
// the host's caches and the GPU's clocks are those of a program that only
// launches. Every figure is checked: each graph has L kernel nodes, a counting
// twin of each chain must count L, the latch must be released by the host.
#pragma once

#include "04_graph_capture_gemm/lab/graph_costs.hpp"
#include "04_graph_capture_gemm/lab/launch_costs_kernels.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

struct LaunchCostConfig {
  std::vector<int> chains = {10, 100, 1000, 10000};  // --launch-chains: the lengths, ascending
  int warmup = 3;
  int repeats = 31;          // per chain and figure: enough for a p95 to mean something
  int latched_max_ops = 1000;  // longest stream chain held behind the latch (the launch queue is finite)
};

// The chain of empty launches timed beside the article's work (SteadyIssue
// and its interleaved rounds): the longest of config.chains up to kShortChain,
// or the shortest where all are longer, so that one chain of the table matches it.
int steady_chain_ops(const LaunchCostConfig& config);

// Chains up to this long are timed with three times the repeats: they are
// cheap, and a host figure of a few microseconds is noisy.
inline constexpr int kShortChain = 1000;
int repeats_for(const LaunchCostConfig& config, int ops);

// A line fixed + per_op × ops through (ops, median) points.
struct LineFit {
  double fixed_us = 0.0;
  double per_op_us = 0.0;
  double r2 = 0.0;  // 1: the points lie on the line
  int points = 0;
};
// Least squares; fewer than two distinct x give points = 0 (no fit).
LineFit fit_line(const std::vector<double>& ops, const std::vector<double>& us);
// Whether the fit has a fixed part worth printing: not without a fit, nor
// with an intercept below zero (smaller than the fit resolves; the slope stands).
inline bool has_fixed_part(const LineFit& fit) { return fit.points > 0 && fit.fixed_us >= 0.0; }

struct ChainFigures {
  int ops = 0;
  Summary stream_cpu, stream_queued, stream_end_to_end;
  Summary graph_cpu, graph_queued, graph_end_to_end;
  bool stream_queued_measured = false;  // false: longer than latched_max_ops
};

// The six figures' fits, in the order kLaunchFigures names them.
inline constexpr const char* kLaunchFigures[] = {"stream_cpu",   "stream_queued", "stream_end_to_end",
                                                 "graph_cpu",    "graph_queued",  "graph_end_to_end"};
inline constexpr int kLaunchFigureCount = 6;

// The article's work issued back to back (steady state), and a stream chain
// on a non-blocking stream: the pairs for "what changes the figures".
struct SteadyIssue {
  Summary graph_launch_cpu;   // one cudaGraphLaunch of the stage's graph
  Summary streams_issue_cpu;  // fork, 3 x batches operations, join
  VerifyResult graph_check, streams_check;
  Summary blocking_chain_cpu;      // chain_ops empty launches on the pool's (blocking) stream 0
  Summary non_blocking_chain_cpu;  // the same on a cudaStreamNonBlocking stream
  int chain_ops = 0;               // steady_chain_ops(config)
};

struct LaunchCosts {
  LaunchCostConfig config;
  std::vector<ChainFigures> chains;
  LineFit fits[kLaunchFigureCount];
  SteadyIssue steady;
  bool checked = true;
  std::string failure;            // the first failed check, if any
  std::string module_loading;     // CUDA_MODULE_LOADING as set, or "LAZY (default)"
};

// `article`: the stage's article work, for the steady-state pairs (its
// stream is pool stream 0, blocking, as the article creates it).
LaunchCosts measure_launch_costs(const LaunchCostConfig& config, const ReplayComparison& article);

// The launch-chains subcommand's whole run, for its estimate, when one run of
// the article's work takes `pipeline_seconds`: every chain's figures, the
// steady-state pairs, and `plan`'s interleaved rounds.
double launch_chains_seconds(const LaunchCostConfig& config, const RepeatPlan& plan, double pipeline_seconds);

// Median of a figure of a chain, in µs per operation.
double per_op_us(const Summary& summary, int ops);
// Whether `chain` has figure `figure` (stream_queued only where measured).
bool has_figure(const ChainFigures& chain, int figure);
// The fit of one figure over every chain that has it.
LineFit fit_figure(const std::vector<ChainFigures>& chains, int figure);
const Summary& figure_of(const ChainFigures& chain, int figure);

}  // namespace csg::graphs
