// graph-priorities: does a CUDA graph keep a stream's priority? The priorities experiment's short kernels
// beside its flood, as kernels on a default- and a greatest-priority stream, and as one-node graphs captured
// from the greatest-priority stream, their node given that priority (cudaLaunchAttributePriority, set
// explicitly: what the capture recorded is reported). Each graph is instantiated plainly, where it runs at
// the priority of the stream it is launched on, and with cudaGraphInstantiateFlagUseNodePriority, where its
// node's own priority rules. Verdicts: what the flag changes, and what the launching stream changes.
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

struct GraphPriorityResult : FloodRun {
  PriorityConfig config;
  // cudaLaunchAttributePriority of the captured kernel node before it is
  // set: what stream capture records from a greatest-priority stream.
  int captured_node_priority = 0;
  std::array<PriorityMode, kGraphWays> ways;  // by GraphWay
  const PriorityMode& at(GraphWay way) const { return ways[static_cast<std::size_t>(way)]; }
};

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
