// The one table of stage 04's laboratory.
#include "laboratory.hpp"
#include "lesson.hpp"

namespace csg::lesson04 {

std::span<const Subcommand> laboratory() {
  static const Subcommand kLaboratory[] = {
      {"costs", "capture, instantiate, upload; replay vs streams: bounds, CPU issue; break-even",
       graphs::run_costs},
      {"node-updates", "the exec on new buffers: cudaGraphExecUpdate, node by node, or a new instantiate",
       graphs::run_node_updates},
      {"changing-shapes", "requests of random batch counts: streams, re-capture, exec update or buckets",
       graphs::run_changing_shapes},
      {"tiny-work", "where graphs win: many empty kernels and tiny GEMMs, launched vs replayed",
       graphs::run_tiny_work},
      {"launch-chains", "what one launch costs: chains of empty kernels, launches vs graph nodes, fitted",
       graphs::run_launch_chains},
      {"regime-map", "GEMM sizes x batch counts, the pool vs one replay: where the graph wins",
       graphs::run_regime_map},
      {"graph", "the captured graph: nodes by type, edges, the fork/join chains; --dot FILE",
       graphs::run_graph},
      {"skip-join", "the capture without step 4 (join): what cudaStreamEndCapture says; exit 1",
       graphs::run_skip_join},
      {"timeline", "one replay recorded with CUPTI, each node on its pool stream; --trace FILE",
       graphs::run_timeline},
  };
  return kLaboratory;
}

}  // namespace csg::lesson04
