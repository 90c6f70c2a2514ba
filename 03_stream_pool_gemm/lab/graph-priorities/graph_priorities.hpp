// graph-priorities: does a CUDA graph keep a stream's priority? The
// priorities experiment's short kernels beside its flood, launched five
// ways: as kernels on a stream of the default and of the greatest priority
// (what `priorities` measures), and as graphs. Each short kernel is captured
// into a graph of one kernel node from a stream of the greatest priority,
// and its node given that priority (cudaLaunchAttributePriority, set
// explicitly: what the capture itself recorded is reported). The graph is
// then instantiated twice: plainly, where it runs at the priority of the
// stream it is launched on, and with cudaGraphInstantiateFlagUseNodePriority,
// where its nodes' own priorities rule. The plain graph is launched on the
// default-priority stream and on the greatest-priority one; the flagged one
// on the default-priority stream.
//
// Figures per way: the short kernels' latency (median, p95, p99; events on
// the launching stream before and after each launch) and the flood's
// throughput beside them. Verdicts: what the flag changes (the plain graph
// against the flagged one, both launched on the default-priority stream),
// and what the launching stream changes (the plain graph on the two streams).
#pragma once

#include "03_stream_pool_gemm/lab/competition.hpp"
#include "experiment/lab.hpp"

namespace csg::pool {

// --priority-samples at most here: each short kernel has its own graph,
// instantiated twice before the first round.
inline constexpr long long kMaxGraphPrioritySamples = 10000;

// The ways, in the table's order.
enum class GraphWay {
  idle,                 // kernels alone on an idle GPU: what they cost without waiting
  stream_default,       // kernels on a default-priority stream, beside the flood
  stream_greatest,      // kernels on a greatest-priority stream
  graph_plain,          // graphs instantiated without the flag, launched on the default-priority stream
  graph_node_priority,  // graphs instantiated with cudaGraphInstantiateFlagUseNodePriority, same stream
  graph_on_greatest,    // graphs without the flag, launched on the greatest-priority stream
};
inline constexpr int kGraphWays = 6;
std::string_view to_string(GraphWay way);  // "idle", "stream_default", ...
std::string_view label(GraphWay way);      // the table's words

struct GraphPriorityResult {
  PriorityConfig config;
  FloodDevice device;
  // cudaLaunchAttributePriority of the captured kernel node before it is
  // set: what stream capture records from a greatest-priority stream.
  int captured_node_priority = 0;
  std::array<PriorityMode, kGraphWays> ways;  // by GraphWay
  int flood_gaps = 0;
  bool verified = false;
  std::string failure;
  const PriorityMode& at(GraphWay way) const { return ways[static_cast<std::size_t>(way)]; }
};

// The median latency of `slow` over `fast` (0 when not measured).
double graph_speedup(const GraphPriorityResult& result, GraphWay slow, GraphWay fast);
FloodChecks flood_checks(const GraphPriorityResult& result);

// "graph_priorities.node_priority": the plain graph against the flagged one
// on the default-priority stream (helps: the flag gave the nodes their
// priority); the figures set both beside the streams' latencies.
Verdict node_priority_verdict(const GraphPriorityResult& result);
// "graph_priorities.launch_stream": the plain graph on the default-priority
// stream against on the greatest-priority one (helps: a graph without the
// flag takes the priority of the stream it is launched on).
Verdict launch_stream_verdict(const GraphPriorityResult& result);

// The table, the verdicts, the checks and the JSON ("graph_priorities").
void report_graph_priorities(const PriorityConfig& config, const GraphPriorityResult& result, Report& report);

GraphPriorityResult measure_graph_priorities(const PriorityConfig& config);

}  // namespace csg::pool
