// Stage 04's laboratory: the graph beyond the article, one subcommand each,
// listed in laboratory.cpp (the stage's --help prints that list). Each runs
// the article's steps as graph_steps.hpp writes them, checks its memory and
// its estimate before allocating, verifies every output, and writes its JSON
// with "subcommand": its name.
//   costs            capture, instantiate, upload, first launch, relaunch; replay vs streams; break-even
//   node-updates     an exec switched to new buffers: update, node by node, or a new instantiate
//   changing-shapes  requests of changing batch counts, four ways
//   tiny-work        many empty kernels and tiny GEMMs: stream launches vs graph nodes
//   launch-chains    what one launch costs: chains of 10 to 10,000 empty kernels
//   regime-map       GEMM sizes x batch counts: where the graph wins
//   graph            the captured graph's structure, and its DOT file
//   skip-join        the capture without step 4: the error CUDA gives, exit 1
//   timeline         one replay recorded with CUPTI and drawn
#pragma once

namespace csg::graphs {

int run_costs(int argc, char** argv);            // costs.cpp
int run_node_updates(int argc, char** argv);     // node_updates.cpp
int run_changing_shapes(int argc, char** argv);  // changing_shapes.cpp
int run_tiny_work(int argc, char** argv);        // tiny_work.cpp
int run_launch_chains(int argc, char** argv);    // launch_chains.cpp
int run_regime_map(int argc, char** argv);       // regime_map.cpp
int run_graph(int argc, char** argv);            // graph_structure.cpp
int run_skip_join(int argc, char** argv);        // skip_join.cpp
int run_timeline(int argc, char** argv);         // timeline.cpp

}  // namespace csg::graphs
