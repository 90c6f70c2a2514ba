#include "conclusions.hpp"

#include "base/text.hpp"
#include "report/conclusions.hpp"
#include "report/table.hpp"

namespace csg::graphs {

std::optional<double> break_even_replays(double capture_ms, double instantiate_ms, double issue_streams_ms,
                                         double issue_graph_ms) {
  const double saved_per_launch_ms = issue_streams_ms - issue_graph_ms;
  if (!(saved_per_launch_ms > 0.0)) return std::nullopt;
  return (capture_ms + instantiate_ms) / saved_per_launch_ms;
}

std::string break_even_text(double capture_ms, double instantiate_ms, double issue_streams_ms,
                            double issue_graph_ms) {
  std::string text = "break-even: (capture " + fixed(capture_ms, 3) + " + instantiate " + fixed(instantiate_ms, 3) +
                     " ms) / (stream issue " + fixed(issue_streams_ms, 3) + " - graph launch " +
                     fixed(issue_graph_ms, 3) + " ms) = ";
  const auto even = break_even_replays(capture_ms, instantiate_ms, issue_streams_ms, issue_graph_ms);
  if (even) return text + fixed(*even, 1) + " replays before the graph has saved the CPU more than it cost.";
  return text + "never: launching the graph costs the CPU no less than issuing the work on streams.";
}

std::string replay_text(double replay_ms, double pool_ms, double pool_issue_ms, int operations) {
  const std::string head = "graph replay / stream pool = " + fixed(replay_ms / pool_ms, 2) + ": the replay was " +
                           compare_phrase(replay_ms, pool_ms) + " the streams";
  switch (compare_times(replay_ms, pool_ms)) {
    case Comparison::same:
      return head + ".\nThe GPU does the same work either way: a graph does not make copies or kernels faster.";
    case Comparison::faster:
      if (pool_issue_ms >= replay_ms) {
        return head + ".\nIssuing the streams' " + plural(operations, "operation") + " took the host " +
               fixed(pool_issue_ms, 2) + " ms, at least the replay's whole time: on streams the GPU waited for the\n"
               "host. One cudaGraphLaunch queues everything at once, so here the graph is faster on the GPU too.";
      }
      return head + ",\nthough issuing the streams' work took the host only " + fixed(pool_issue_ms, 2) +
             " ms: the driver starts a graph's nodes with less time between them than separate launches.";
    case Comparison::slower:
      break;
  }
  return head + ".\nOn this GPU the graph's nodes ran slower than the same work issued on streams.";
}

std::string launch_cost_text(double graph_launch_ms, double stream_issue_ms) {
  const std::string head = "graph launch / stream issue = " + fixed(graph_launch_ms / stream_issue_ms, 2);
  if (compare_times(graph_launch_ms, stream_issue_ms) == Comparison::faster) {
    return head + ": one cudaGraphLaunch cost the CPU " + fixed(stream_issue_ms / graph_launch_ms, 1) +
           "x less than issuing the same work on streams.";
  }
  return head + ": launching the graph cost the CPU no less than issuing the work on streams (within " +
         percent_text(kEqualWithin) + " or more).";
}

std::string copy_node_text(double launch_ms, double kernels_only_launch_ms, int kernel_only_nodes, int copy_nodes) {
  const std::string head = "for comparison, one cudaGraphLaunch of a graph of " + std::to_string(kernel_only_nodes) +
                           " kernel nodes and no copies took " + fixed(1000.0 * kernels_only_launch_ms, 1) + " us";
  if (copy_nodes > 0 && launch_ms > kCopyNodesDominate * kernels_only_launch_ms) {
    return head + ": this graph's launch pays for its " + std::to_string(copy_nodes) +
           " copy nodes of host memory, about " +
           fixed(1000.0 * (launch_ms - kernels_only_launch_ms) / copy_nodes, 2) + " us each, not for its kernels.";
  }
  return head + ", about what this graph's launch cost (" + fixed(1000.0 * launch_ms, 1) +
         " us): its copy nodes add little to a launch here.";
}

std::string update_text(double capture_update_ms, double recapture_instantiate_ms) {
  return "re-capture + cudaGraphExecUpdate took " + fixed(capture_update_ms, 3) + " ms, " +
         compare_phrase(capture_update_ms, recapture_instantiate_ms) + " re-capture + instantiate (" +
         fixed(recapture_instantiate_ms, 3) + " ms)" +
         (compare_times(capture_update_ms, recapture_instantiate_ms) == Comparison::faster
              ? ": when only pointers change, updating the exec saves the instantiate."
              : ": here updating the exec saved nothing over instantiating again.");
}

std::string per_op_text(const std::string& what, double stream_us, double graph_us) {
  std::string text = what + ": " + fixed(stream_us, 2) + " us each on a stream vs " + fixed(graph_us, 2) +
                     " us each as graph nodes: the graph was " + compare_phrase(graph_us, stream_us) + " the stream";
  if (compare_times(graph_us, stream_us) != Comparison::faster) text += " (no win for the graph at this size)";
  return text;
}

}  // namespace csg::graphs
