// Stage 04's laboratory: the graph beyond the article, one subcommand each,
// listed in laboratory.cpp (the stage's --help prints that list). Each runs
// the article's steps as graph_steps.hpp writes them, checks its memory and
// its estimate before allocating, verifies every output, and writes its JSON
// with "subcommand": its name. Each subcommand's name, --help line and run
// function are defined together, in the file named here:
//   costs (costs.cpp): capture, instantiate, upload, first launch, relaunch; replay vs streams; break-even
//   node-updates (node_updates.cpp): an exec switched to new buffers: update, node by node, or a new instantiate
//   changing-shapes (changing_shapes.cpp): requests of changing batch counts, four ways
//   tiny-work (tiny_work.cpp): many empty kernels and tiny GEMMs: stream launches vs graph nodes
//   launch-chains (launch_chains.cpp): what one launch costs: chains of 10 to 10,000 empty kernels
//   launch-anatomy (launch_anatomy.cpp): a launch by node kind and shape; the article's graph five ways
//   regime-map (regime_map.cpp): GEMM sizes x batch counts: where the graph wins
//   graph (graph_structure.cpp): the captured graph's structure, and its DOT file
//   skip-join (skip_join.cpp): the capture without step 4: the error CUDA gives, exit 1
//   timeline (timeline.cpp): one replay recorded with CUPTI and drawn
// After the article: the graph features CUDA added since (12.x, 13):
//   device-launch (device_launch.cpp): graphs launched from the GPU: tail launch, fire-and-forget, a device scheduler
//   conditional (conditional.cpp): WHILE, IF and SWITCH nodes against the host's loops and choices
//   pdl (pdl.cpp): programmatic dependent launch: chains of dependent kernels, plain, PDL, graph
//   memory-nodes (memory_nodes.cpp): buffers allocated inside the graph vs preallocated: replay, footprint, trim
//   startup (startup.cpp): a serving engine's startup: 8 to 256 bucket graphs, time, memory, padding
#pragma once

#include "stage.hpp"

namespace csg::graphs {

extern const Subcommand kCosts;
extern const Subcommand kNodeUpdates;
extern const Subcommand kChangingShapes;
extern const Subcommand kTinyWork;
extern const Subcommand kLaunchChains;
extern const Subcommand kLaunchAnatomy;
extern const Subcommand kRegimeMap;
extern const Subcommand kGraph;
extern const Subcommand kSkipJoin;
extern const Subcommand kTimeline;
extern const Subcommand kDeviceLaunch;
extern const Subcommand kConditional;
extern const Subcommand kPdl;
extern const Subcommand kMemoryNodes;
extern const Subcommand kStartup;

}  // namespace csg::graphs
