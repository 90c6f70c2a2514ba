#include "04_graph_capture_gemm/lab/node-updates/node_updates.hpp"

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "04_graph_capture_gemm/lab/changing_shapes_plan.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
node-updates: the exec on new buffers: cudaGraphExecUpdate, node by node, or a new instantiate

When only the buffers change: cudaGraphExecUpdate after a new capture against re-capture +
instantiate (and the update CUDA refuses for a new batch count), then one exec switched node by node
(cudaGraphExec*NodeSetParams, naive kernel only).
)";

constexpr const char* kRuns = R"(
# exec update vs re-capture: graph costs table
fc   -
q    -  --warmup 1 --repeats 5
t    tiny             --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 2
t    cublas_pageable  --kernel cublas --batches 5 --m 16 --n 24 --k 8 --streams 2 --host-memory pageable --warmup 0 --repeats 1
m    -                ctest=api_errors_expected --batches 5 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1
)";

// Capture 0.6 ms + instantiate 1.5 ms for the article's 300 nodes (H200): 7 µs a node.
constexpr double kGraphSecondsPerNode = 7e-6;

// Per round: three switches of each experiment, each about one capture +
// instantiate; after the rounds, five launches verified.
double node_updates_seconds(const CommonOptions& options, const Rates& rates) {
  const double graph = 3.0 * options.work.batches * kGraphSecondsPerNode;  // one capture + instantiate
  return (options.plan.warmup + options.plan.repeats) * 6.0 * graph + 5.0 * pipeline_seconds(options, rates);
}

Needs needs(const ArticleOptions& options) { return article_needs(options, /*sets=*/2); }

Estimate estimate(const ArticleOptions& options, int) { return article_estimate(options, node_updates_seconds); }

NodeUpdatesFigures measure(const ArticleOptions& options) {
  const CommonOptions& common = options.common;
  const Gemm gemm(common.gemm);
  ArticleWork article(options, gemm);  // the buffers the exec is instantiated for
  // The same workload at other addresses, with other data: an exec still on
  // the first buffers fails the check of the second.
  BatchBuffers second(common.work, common.host_memory, article.buffers.device_slots());
  const std::uint64_t second_seed = common.seed + 1;
  second.fill_inputs(second_seed);
  const UpdateExperiment experiment = update_experiment(article.pool, gemm, article.buffers, second, second_seed);
  NodeUpdatesFigures f;
  progress("when the work changes: exec update vs re-capture + instantiate");
  f.updates = measure_updates(common.plan, experiment);
  progress("new buffers for the same exec: node by node vs a whole update vs a new instantiate");
  f.node_updates = measure_node_updates(common.plan, experiment, gemm.kernel());
  return f;
}

const Experiment<ArticleOptions, NodeUpdatesFigures> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = pinned_defaults(), .options = add_article_options, .read = read_article_options, .needs = needs,
    .estimate = estimate, .measure = measure, .report = report_node_updates};

}  // namespace

Verdict update_verdict(double capture_update_ms, double recapture_instantiate_ms) {
  return comparison_verdict(
      "node_updates.exec_update", capture_update_ms, recapture_instantiate_ms,
      "re-capture + cudaGraphExecUpdate took " + fixed(capture_update_ms, 3) + " ms, " +
          compare_phrase(capture_update_ms, recapture_instantiate_ms) + " re-capture + instantiate (" +
          fixed(recapture_instantiate_ms, 3) + " ms)" +
          (compare_times(capture_update_ms, recapture_instantiate_ms) == Comparison::faster
               ? ": when only pointers change, updating the exec saves the instantiate."
               : ": here updating the exec saved nothing over instantiating again."));
}

Verdict node_level_verdict(double whole_graph_ms, std::optional<double> node_level_ms, double recapture_ms,
                           std::size_t nodes, const std::string& note) {
  Verdict verdict{.id = "node_updates.node_level",
                  .figures = {{"whole_graph_ms", whole_graph_ms},
                              {"node_level_ms", node_level_ms ? nlohmann::json(*node_level_ms) : nlohmann::json()},
                              {"recapture_instantiate_ms", recapture_ms}, {"nodes", nodes}},
                  .threshold = kEqualWithin};
  if (!node_level_ms) {
    return decided(verdict, "not_measured",
                   note + "; capture + cudaGraphExecUpdate took " + fixed(whole_graph_ms, 3) + " ms, " +
                       compare_phrase(whole_graph_ms, recapture_ms) + " re-capture + instantiate (" +
                       fixed(recapture_ms, 3) + " ms).");
  }
  const double node_ms = *node_level_ms;
  const bool fastest = compare_times(node_ms, whole_graph_ms) == Comparison::faster &&
                       compare_times(node_ms, recapture_ms) == Comparison::faster;
  verdict.outcome = fastest ? "fastest" : "not_fastest";
  verdict.sentence =
      "switching the exec to new buffers node by node (" + std::to_string(nodes) + " SetParams calls, no capture) took " +
      fixed(node_ms, 3) + " ms, " + compare_phrase(node_ms, whole_graph_ms) + " capture + cudaGraphExecUpdate (" +
      fixed(whole_graph_ms, 3) + " ms) and " + compare_phrase(node_ms, recapture_ms) + " re-capture + instantiate (" +
      fixed(recapture_ms, 3) + " ms)" +
      (fastest ? ":\nwhen only pointers change and the nodes are known, setting them directly skips the capture."
               : ":\nhere one call per node cost as much as capturing the graph again.");
  return verdict;
}

void report_node_updates(const ArticleOptions& options, const NodeUpdatesFigures& f, Report& report) {
  const int batches = options.common.work.batches;
  const nlohmann::json pool = pool_params(options.pool, batches);
  const UpdateCosts& upd = f.updates;
  const NodeUpdateCosts& n = f.node_updates;
  StageResult& result = report.result;
  result = pool_result(result.device, options.common, options.pool);
  // The updated execs compute other data than the article's: no digest to compare.
  result.measurements = {
      checked_without_digest("update_exec", pool, upd.update_exec, Work{}, upd.updated_check.passed),
      cost("update_call", pool, upd.update_call),
      checked_without_digest("recapture_instantiate", pool, upd.recapture_instantiate, Work{},
                             upd.reinstantiated_check.passed),
  };
  struct Switch {
    const char* how;
    const char* name;
    const Summary* stats;
    const VerifyResult* check;
  };
  std::vector<Switch> switches = {{"whole_graph", "capture + cudaGraphExecUpdate", &n.whole_graph, &n.whole_graph_check}};
  if (n.node_level && n.node_level_check) {
    switches.push_back({"node_level", "node by node (SetParams)", &*n.node_level, &*n.node_level_check});
  }
  switches.push_back({"recapture_instantiate", "re-capture + instantiate", &n.recapture_instantiate, &n.recapture_check});
  std::vector<const VerifyResult*> checks = {&upd.updated_check, &upd.reinstantiated_check};
  for (const Switch& s : switches) {
    result.measurements.push_back(
        checked_without_digest("node_update", {{"how", s.how}, {"batches", n.batches}}, *s.stats, {}, s.check->passed));
    checks.push_back(s.check);
  }
  set_verdict(result, upd.updated_check, checks);
  count_checked_runs(report);

  std::ostream& out = report.out();
  out << pool_run_text(options.common, options.pool) << "; the exec is switched to a second set of buffers, other data\n"
      << "\nwhen the work changes (host time; each needs a new capture first):\n";
  print_measurements(out, pick(result, {"update_exec", "update_call", "recapture_instantiate"}));
  // Each update tried: its line, and its entry in the section "updates".
  nlohmann::json updates = nlohmann::json::array();
  auto tried = [&](const std::string& change, const std::string& line, const ExecUpdateAttempt& a, const char* why) {
    updates.push_back({{"change", change}, {"result", a.describe()}, {"allowed", a.applied()}});
    out << line << ": cudaGraphExecUpdate -> " << a.describe() << why << '\n';
  };
  const std::string pointers = "new input/output pointers, same batch count";
  tried(pointers, pointers, upd.new_pointers, upd.new_pointers.applied() ? " (allowed: same topology)" : "");
  if (upd.smaller_batches) {
    const std::string counts = std::to_string(batches) + " -> " + std::to_string(*upd.smaller_batches);
    tried("batches " + counts, "batch count " + counts, upd.topology_change,
          upd.topology_change.applied() ? "" : " (refused: the topology changed; only a new instantiate helps)");
  }
  report.sections["updates"] = updates;
  report.verdict(update_verdict(upd.update_exec.median_ms, upd.recapture_instantiate.median_ms));
  out << "the updated exec " << (upd.updated_check.passed ? "computed" : "did NOT compute")
      << " the new buffers' result (" << upd.updated_check.message() << ")\n"
      << "\nswitching one exec of the " << n.batches << "-batch graph to a second set of buffers (host time):\n";
  report.table(table_of<Switch>({{"switch", [](const Switch& s) { return std::string(s.name); }},
                                 {"median ms", [](const Switch& s) { return fixed(s.stats->median_ms, 3); }},
                                 {"min ms", [](const Switch& s) { return fixed(s.stats->min_ms, 3); }},
                                 {"max ms", [](const Switch& s) { return fixed(s.stats->max_ms, 3); }},
                                 {"verified", [](const Switch& s) { return std::string(s.check->passed ? "yes" : "NO"); }}},
                                switches));
  const std::string node_level = report.verdict(node_level_verdict(
      n.whole_graph.median_ms, n.node_level ? std::optional<double>(n.node_level->median_ms) : std::nullopt,
      n.recapture_instantiate.median_ms, n.kernel_nodes + n.memcpy_nodes, n.node_level_note)).sentence;
  for (const Switch& s : switches) {
    if (!s.check->passed) out << "FAILED: " << s.check->message() << '\n';
  }

  // The section changing-shapes writes, with only its node-level part: no sequence of requests here.
  ChangingShapesConfig shapes;
  shapes.requests = 0;
  report.sections["changing_shapes"] = changing_shapes_section(
      shapes, nullptr,
      {{"batches", n.batches},
       {"kernel_nodes", n.kernel_nodes},
       {"memcpy_nodes", n.memcpy_nodes},
       {"whole_graph_ms", n.whole_graph.median_ms},
       {"node_level_ms", n.node_level ? nlohmann::json(n.node_level->median_ms) : nlohmann::json(nullptr)},
       {"node_level_note", n.node_level_note},
       {"recapture_instantiate_ms", n.recapture_instantiate.median_ms},
       {"verified", n.whole_graph_check.passed && n.recapture_check.passed &&
                        (!n.node_level_check || n.node_level_check->passed)}},
      nlohmann::json::array({node_level}));
}

extern const Subcommand kNodeUpdates = make_subcommand<kExperiment>();

}  // namespace csg::graphs
