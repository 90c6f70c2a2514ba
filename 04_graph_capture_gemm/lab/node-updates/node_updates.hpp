// The node-updates subcommand (kAbout in node_updates.cpp), declared here
// for the tests; exec_update.hpp measures.
#pragma once

#include "04_graph_capture_gemm/lab/exec_update.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

struct NodeUpdatesFigures {
  UpdateCosts updates;           // a new capture + cudaGraphExecUpdate against re-capture + instantiate
  NodeUpdateCosts node_updates;  // one exec switched node by node, against the whole update and a new instantiate
};

// "node_updates.exec_update": cudaGraphExecUpdate (after a new capture)
// against re-capture + instantiate.
Verdict update_verdict(double capture_update_ms, double recapture_instantiate_ms);

// "node_updates.node_level": node by node against the other two switches;
// node_level_ms empty: `note` says why.
Verdict node_level_verdict(double whole_graph_ms, std::optional<double> node_level_ms, double recapture_ms,
                           std::size_t nodes, const std::string& note);

void report_node_updates(const ArticleOptions& options, const NodeUpdatesFigures& figures, Report& report);

}  // namespace csg::graphs
