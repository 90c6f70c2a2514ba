// Stage 04's command line: the common flags, the pool's (--streams,
// --device-buffers, as in stage 03), the timeline's, and
//   --dot FILE        write the captured graph as Graphviz DOT
//   --skip-join       leave out step 4 (join): show the error CUDA gives, exit 1
//   --tiny-count N    empty kernels and tiny GEMMs in the where-graphs-win runs
//   --tiny-size N     m = n = k of the tiny GEMMs
// Everything is checked before any CUDA call.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "cli/pool_options.hpp"
#include "measure/estimate.hpp"
#include "regime_map_report.hpp"
#include "timeline/stage_timeline.hpp"
#include "changing_shapes_plan.hpp"
#include "launch_costs.hpp"
#include "tiny_work.hpp"

namespace csg::graphs {

struct GraphOptions {
  CommonOptions common;
  PoolConfig pool;
  std::string dot_path;  // empty: no DOT file
  bool skip_join = false;
  TinyConfig tiny;
  LaunchCostConfig launch;  // chains empty: --launch-chains off
  ChangingShapesConfig shapes;  // --shape-requests, --node-updates
  TimelineOptions timeline;
  RegimeMapConfig map;  // --regime-map, --map-sizes, --map-batches, --map-cell-seconds
};

// Adds the stage's options to `cli` (built with pinned memory as the default,
// like stage 03), parses and checks them; nothing after printing --help.
// Throws UsageError.
std::optional<GraphOptions> parse_options(StageCli& cli, int argc, const char* const* argv);

// Refuses (ResourceError, with both numbers) a run whose buffers would not
// fit: two sets of the workload's (the second for the update experiment) with
// `slots` device slots, the tiny GEMMs, and cuBLAS's workspaces.
void check_memory(const GraphOptions& options, int slots);

// The run's time at `rates` (measure/estimate.hpp): the one-time costs'
// launches, the replay and the streams with their bounds' runs, the updates'
// two launches, every round; the tiny work is small beside them.
double estimate_seconds(const GraphOptions& options, const Rates& rates);

}  // namespace csg::graphs
