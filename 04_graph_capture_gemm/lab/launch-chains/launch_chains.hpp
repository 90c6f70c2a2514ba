// The launch-chains subcommand's verdicts and report (launch_costs.hpp
// measures): plain C++, the CPU tests call these on made-up figures.
#pragma once

#include "04_graph_capture_gemm/lab/launch_costs.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

// A figure is called steady when its p95 is at most this multiple of its median.
inline constexpr double kSteadySpread = 1.3;

// What the interleaved comparison measured for the same things, for the
// "what changes the figures" pairs (nothing where it was not measured).
struct InterleavedIssue {
  double graph_launch_cpu_ms = 0.0;
  double streams_issue_cpu_ms = 0.0;
  std::optional<double> empty_chain_end_to_end_ms;  // the tiny runs' chain
  int empty_chain_ops = 0;
};

// "launch_chains.per_op": the per-launch and per-node costs, chosen by the
// fits: "graph_cheaper", "same", "graph_dearer" (against the article), or
// "too_few_lengths" (fewer than two), "no_node_cost" (a node's fit at or below 0).
Verdict launch_fit_verdict(const LaunchCosts& costs);
// "launch_chains.spread": "steady" (every p95 within kSteadySpread of its
// median, the widest named) or "noisy" (the noisiest named); "no_figures".
Verdict spread_verdict(const LaunchCosts& costs);
// "launch_chains.<id>": one thing measured two ways in this run, "a_ms a, b_ms b
// (the same within 3% | 1.20x faster than b)" (comparison_verdict of a against b).
Verdict pair_verdict(const std::string& id, const std::string& what, double a_ms, const std::string& a, double b_ms,
                     const std::string& b);
// "one graph launch of the stage's work takes 0.41 ms ...: graph / streams =
// 0.41 back to back (0.52 in the interleaved rounds above)"; "" without the streams' figure.
std::string launch_ratio_text(const LaunchCosts& costs, const InterleavedIssue& interleaved);

struct LaunchChainsConfig {
  ArticleOptions article;
  LaunchCostConfig chains;  // --launch-chains, --launch-repeats
};

// --launch-chains LIST (default 10,100,1000,10000), --launch-repeats N (31),
// and the pool's flags; read after parsing: the chain lengths sorted.
// Throws UsageError for an item out of [1, 100000], an empty item or a
// length given twice.
void add_launch_chains_options(StageCli& cli);
LaunchChainsConfig read_launch_chains_options(const StageCli& cli, CommonOptions& common);

struct LaunchChainsFigures {
  LaunchCosts costs;             // the chains, back to back, and the steady-state pairs
  InterleavedIssue interleaved;  // the article's work in interleaved rounds
  VerifyResult interleaved_graph_check, interleaved_streams_check;
};

// The chains' table (us per operation), the fits' table, the verdicts, the
// pairs; "launch_costs": {"chains", "fits", "warmup", "repeats",
// "module_loading", "checked", "failure", "steady", "interleaved",
// "conclusion", "spread"}; a failed study fails the run.
void report_launch_chains(const LaunchChainsConfig& config, const LaunchChainsFigures& figures, Report& report);

}  // namespace csg::graphs
