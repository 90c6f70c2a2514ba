// Stage 04's launch-cost study in words, table and JSON (launch_costs.hpp
// measures it). Pure C++: the CPU tests call these on synthetic figures.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "04_graph_capture_gemm/lab/launch_costs.hpp"

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

// The per-launch and per-node costs in one sentence each, chosen by the fits:
// "a graph node costs 0.68 µs of GPU time once queued; a stream launch 2.4 µs
// of host time: the graph's per-operation cost is 3.5x lower".
std::string launch_fit_text(const LaunchCosts& costs);
// The steadiest and the noisiest figure: "every figure steady (p95 within
// 1.3x of the median)" or "noisy: stream_cpu at 10 ops, p95 2.1x its median".
std::string spread_text(const LaunchCosts& costs);
// "graph launch / stream issue = 0.41 back to back (0.52 interleaved)".
std::string launch_ratio_text(const LaunchCosts& costs, const InterleavedIssue& interleaved);

void print_launch_costs(std::ostream& out, const LaunchCosts& costs, const InterleavedIssue& interleaved);
nlohmann::json launch_costs_json(const LaunchCosts& costs, const InterleavedIssue& interleaved);

}  // namespace csg::graphs
