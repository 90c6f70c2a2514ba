// Every sentence stage 04 prints that interprets its figures, each chosen by
// the figures with a stated threshold (report/conclusions.hpp: times within 3%
// are equal), including the branches where the article's claim does not hold
// at this size on this GPU. Plain arithmetic: the CPU tests feed each branch.
#pragma once

#include <optional>
#include <string>

namespace csg::graphs {

// (capture + instantiate) ÷ (stream issue time − graph launch time): the
// replays after which the graph's one-time cost is repaid in CPU time.
// Nothing when the graph launch does not cost the CPU less ("never").
std::optional<double> break_even_replays(double capture_ms, double instantiate_ms, double issue_streams_ms,
                                         double issue_graph_ms);
std::string break_even_text(double capture_ms, double instantiate_ms, double issue_streams_ms,
                            double issue_graph_ms);

// The GPU time of a replay against the same work issued on the pool, and why:
// when the host's time to issue the streams' run was at least the replay's
// whole time, the GPU waited for the host, which one launch removes.
std::string replay_text(double replay_ms, double pool_ms, double pool_issue_ms, int operations);

// The CPU time of one cudaGraphLaunch against issuing the work on streams.
std::string launch_cost_text(double graph_launch_ms, double stream_issue_ms);

// What a launch pays for: this graph's launch against one of a graph of
// kernel nodes only; well above it (more than 1.5x), the copy nodes are what
// costs, about (launch − kernels-only launch) ÷ copy nodes each.
inline constexpr double kCopyNodesDominate = 1.5;
std::string copy_node_text(double launch_ms, double kernels_only_launch_ms, int kernel_only_nodes, int copy_nodes);

// cudaGraphExecUpdate (after a new capture) against re-capture + instantiate.
std::string update_text(double capture_update_ms, double recapture_instantiate_ms);

// Per operation of many tiny ones: issued on a stream against as graph nodes.
std::string per_op_text(const std::string& what, double stream_us, double graph_us);

}  // namespace csg::graphs
