// The verdicts the lesson and the laboratory's costs draw from the same
// figures (report/verdict.hpp), each decided here once with a stated
// threshold, including the branches where the article's claim does not hold
// at this size on this GPU. Plain arithmetic: the CPU tests feed each branch.
#pragma once

#include <optional>

#include "report/verdict.hpp"

namespace csg::graphs {

// (capture + instantiate) ÷ (stream issue time − graph launch time): the
// replays after which the graph's one-time cost is repaid in CPU time.
// Nothing when the graph launch does not cost the CPU less ("never").
std::optional<double> break_even_replays(double capture_ms, double instantiate_ms, double issue_streams_ms,
                                         double issue_graph_ms);
// "graph.break_even": "pays_off" after break_even_replays, or "never".
Verdict break_even_verdict(double capture_ms, double instantiate_ms, double issue_streams_ms, double issue_graph_ms);

// "graph.replay": the GPU time of a replay against the same work on the
// pool: "same"; "faster_host_bound" when issuing the streams' run took the
// host at least the replay's whole time (the GPU waited for the host);
// "faster" otherwise (a graph's nodes start closer together); "slower".
Verdict replay_verdict(double replay_ms, double pool_ms, double pool_issue_ms, int operations);

// "graph.launch_cost": the CPU time of one cudaGraphLaunch against issuing
// the work on streams (comparison_verdict: faster, same, slower).
Verdict launch_cost_verdict(double graph_launch_ms, double stream_issue_ms);

// "graph.copy_nodes": what a launch pays for: this graph's launch against
// one of a graph of kernel nodes only; more than kCopyNodesDominate times
// it, the copy nodes are what costs ("copy_nodes_dominate"), about (launch −
// kernels-only launch) ÷ copy nodes each; else "copy_nodes_add_little".
inline constexpr double kCopyNodesDominate = 1.5;
Verdict copy_node_verdict(double launch_ms, double kernels_only_launch_ms, int kernel_only_nodes, int copy_nodes);

}  // namespace csg::graphs
