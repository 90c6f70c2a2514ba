#include "conclusions.hpp"

#include "experiment/lab.hpp"

namespace csg::graphs {

std::optional<double> break_even_replays(double capture_ms, double instantiate_ms, double issue_streams_ms,
                                         double issue_graph_ms) {
  const double saved_per_launch_ms = issue_streams_ms - issue_graph_ms;
  if (!(saved_per_launch_ms > 0.0)) return std::nullopt;
  return (capture_ms + instantiate_ms) / saved_per_launch_ms;
}

Verdict break_even_verdict(double capture_ms, double instantiate_ms, double issue_streams_ms, double issue_graph_ms) {
  const auto even = break_even_replays(capture_ms, instantiate_ms, issue_streams_ms, issue_graph_ms);
  Verdict verdict{.id = "graph.break_even",
                  .outcome = even ? "pays_off" : "never",
                  .figures = {{"capture_ms", capture_ms}, {"instantiate_ms", instantiate_ms},
                              {"issue_streams_ms", issue_streams_ms}, {"issue_graph_ms", issue_graph_ms},
                              {"replays", even ? nlohmann::json(*even) : nlohmann::json(nullptr)}},
                  .sentence = "break-even: (capture " + fixed(capture_ms, 3) + " + instantiate " +
                              fixed(instantiate_ms, 3) + " ms) / (stream issue " + fixed(issue_streams_ms, 3) +
                              " - graph launch " + fixed(issue_graph_ms, 3) + " ms) = "};
  verdict.sentence += even ? fixed(*even, 1) + " replays before the graph has saved the CPU more than it cost."
                           : "never: launching the graph costs the CPU no less than issuing the work on streams.";
  return verdict;
}

Verdict replay_verdict(double replay_ms, double pool_ms, double pool_issue_ms, int operations) {
  Verdict verdict = comparison_verdict(
      "graph.replay", replay_ms, pool_ms,
      "graph replay / stream pool = " + fixed(replay_ms / pool_ms, 2) + ": the replay was " +
          compare_phrase(replay_ms, pool_ms) + " the streams");
  verdict.figures["pool_issue_ms"] = pool_issue_ms;
  std::string& text = verdict.sentence;
  switch (compare_times(replay_ms, pool_ms)) {
    case Comparison::same:
      text += ".\nThe GPU does the same work either way: a graph does not make copies or kernels faster.";
      break;
    case Comparison::faster:
      if (pool_issue_ms >= replay_ms) {
        verdict.outcome = "faster_host_bound";
        text += ".\nIssuing the streams' " + plural(operations, "operation") + " took the host " +
                fixed(pool_issue_ms, 2) + " ms, at least the replay's whole time: on streams the GPU waited for the\n"
                "host. One cudaGraphLaunch queues everything at once, so here the graph is faster on the GPU too.";
      } else {
        text += ",\nthough issuing the streams' work took the host only " + fixed(pool_issue_ms, 2) +
                " ms: the driver starts a graph's nodes with less time between them than separate launches.";
      }
      break;
    case Comparison::slower:
      text += ".\nOn this GPU the graph's nodes ran slower than the same work issued on streams.";
      break;
  }
  return verdict;
}

Verdict launch_cost_verdict(double graph_launch_ms, double stream_issue_ms) {
  std::string text = "graph launch / stream issue = " + fixed(graph_launch_ms / stream_issue_ms, 2);
  text += compare_times(graph_launch_ms, stream_issue_ms) == Comparison::faster
              ? ": one cudaGraphLaunch cost the CPU " + fixed(stream_issue_ms / graph_launch_ms, 1) +
                    "x less than issuing the same work on streams."
              : ": launching the graph cost the CPU no less than issuing the work on streams (within " +
                    percent_text(kEqualWithin) + " or more).";
  return comparison_verdict("graph.launch_cost", graph_launch_ms, stream_issue_ms, std::move(text));
}

Verdict copy_node_verdict(double launch_ms, double kernels_only_launch_ms, int kernel_only_nodes, int copy_nodes) {
  const bool dominate = copy_nodes > 0 && launch_ms > kCopyNodesDominate * kernels_only_launch_ms;
  Verdict verdict{.id = "graph.copy_nodes",
                  .outcome = dominate ? "copy_nodes_dominate" : "copy_nodes_add_little",
                  .figures = {{"launch_ms", launch_ms}, {"kernels_only_launch_ms", kernels_only_launch_ms},
                              {"kernel_nodes", kernel_only_nodes}, {"copy_nodes", copy_nodes}},
                  .threshold = kCopyNodesDominate,
                  .sentence = "for comparison, one cudaGraphLaunch of a graph of " + std::to_string(kernel_only_nodes) +
                              " kernel nodes and no copies took " + fixed(1000.0 * kernels_only_launch_ms, 1) + " us"};
  verdict.sentence += dominate ? ": this graph's launch pays for its " + std::to_string(copy_nodes) +
                                     " copy nodes of host memory, about " +
                                     fixed(1000.0 * (launch_ms - kernels_only_launch_ms) / copy_nodes, 2) +
                                     " us each, not for its kernels."
                               : ", about what this graph's launch cost (" + fixed(1000.0 * launch_ms, 1) +
                                     " us): its copy nodes add little to a launch here.";
  return verdict;
}

}  // namespace csg::graphs
