// 04_graph_capture_gemm node-updates: one instantiated graph pointed at new
// buffers, by cudaGraphExecUpdate, node by node, or by a new instantiate.
#include "04_graph_capture_gemm/lab/node-updates/node_updates.hpp"

#include <iostream>

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "base/progress.hpp"
#include "04_graph_capture_gemm/conclusions.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/laboratory.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/device_info.hpp"

namespace csg::graphs {

// The first lines of its --help.
constexpr const char* kHelp =
    "When only the buffers change: cudaGraphExecUpdate after a new capture against re-capture + instantiate (and the "
    "update CUDA refuses for a new batch count), then one exec switched node by node (cudaGraphExec*NodeSetParams, "
    "naive kernel only).";

namespace {

// Capture 0.6 ms + instantiate 1.5 ms for the article's 300 nodes (H200): 7 µs a node.
constexpr double kGraphSecondsPerNode = 7e-6;

// The node-level half as the changing-shapes report prints and writes it.
ChangingShapesRun node_level_part(const NodeUpdatesRun& run) {
  ChangingShapesRun part;
  part.config.requests = 0;  // no sequence of requests here: the changing-shapes subcommand's
  part.node_updates = run.node_updates;
  return part;
}

}  // namespace

StageResult node_updates_result(const DeviceInfo& device, const NodeUpdatesRun& run) {
  const nlohmann::json pool = pool_params(run.pool, run.options.work.batches);
  const UpdateCosts& upd = run.updates;
  StageResult result = pool_result(device, run.options, run.pool);
  // The updated execs compute other data than the article's: no digest to compare.
  result.measurements = {
      checked_without_digest("update_exec", pool, upd.update_exec, Work{}, upd.updated_check.passed),
      cost("update_call", pool, upd.update_call),
      checked_without_digest("recapture_instantiate", pool, upd.recapture_instantiate, Work{},
                             upd.reinstantiated_check.passed),
  };
  const ChangingShapesRun part = node_level_part(run);
  for (Measurement& m : changing_shapes_measurements(part)) result.measurements.push_back(std::move(m));
  std::vector<const VerifyResult*> checks = {&upd.updated_check, &upd.reinstantiated_check};
  for (const VerifyResult* check : changing_shapes_checks(part)) checks.push_back(check);
  set_verdict(result, upd.updated_check, checks);
  return result;
}

nlohmann::json node_updates_json(const StageResult& result, const NodeUpdatesRun& run) {
  nlohmann::json doc = subcommand_json(result, "node-updates");
  nlohmann::json updates = nlohmann::json::array();
  updates.push_back({{"change", "new input/output pointers, same batch count"},
                     {"result", run.updates.new_pointers.describe()},
                     {"allowed", run.updates.new_pointers.applied()}});
  if (run.updates.smaller_batches) {
    updates.push_back({{"change", "batches " + std::to_string(run.options.work.batches) + " -> " +
                                      std::to_string(*run.updates.smaller_batches)},
                       {"result", run.updates.topology_change.describe()},
                       {"allowed", run.updates.topology_change.applied()}});
  }
  doc["updates"] = updates;
  doc["changing_shapes"] = changing_shapes_json(node_level_part(run));
  return doc;
}

void print_node_updates(std::ostream& out, const StageResult& result, const NodeUpdatesRun& run) {
  const UpdateCosts& upd = run.updates;
  print_title(out, result, "node-updates");
  out << pool_run_text(run.options, run.pool) << "; the exec is switched to a second set of buffers, other data\n";
  out << "\nwhen the work changes (host time; each needs a new capture first):\n";
  print_measurements(out, pick(result, {"update_exec", "update_call", "recapture_instantiate"}));
  out << "new input/output pointers, same batch count: cudaGraphExecUpdate -> " << upd.new_pointers.describe()
      << (upd.new_pointers.applied() ? " (allowed: same topology)" : "") << '\n';
  if (upd.smaller_batches) {
    out << "batch count " << run.options.work.batches << " -> " << *upd.smaller_batches << ": cudaGraphExecUpdate -> "
        << upd.topology_change.describe()
        << (upd.topology_change.applied() ? "" : " (refused: the topology changed; only a new instantiate helps)")
        << '\n';
  }
  out << update_text(upd.update_exec.median_ms, upd.recapture_instantiate.median_ms) << '\n';
  out << "the updated exec " << (upd.updated_check.passed ? "computed" : "did NOT compute")
      << " the new buffers' result (" << upd.updated_check.message() << ")\n";
  print_changing_shapes(out, node_level_part(run));
  print_verification(out, result);
}

double node_updates_seconds(const CommonOptions& options, const Rates& rates) {
  const double graph = 3.0 * options.work.batches * kGraphSecondsPerNode;  // one capture + instantiate
  // Per round: three switches of each experiment, each about one capture +
  // instantiate; after the rounds, five launches verified.
  return (options.plan.warmup + options.plan.repeats) * 6.0 * graph + 5.0 * pipeline_seconds(options, rates);
}

int run_node_updates(int argc, char** argv) {
  StageCli cli(subcommand_program(kStage, "node-updates"), kHelp, pinned_defaults());
  const std::optional<ArticleOptions> options = parse_article_options(cli, argc, argv);
  if (!options) return kExitOk;  // --help
  const CommonOptions& common = options->common;

  const int device = require_device();
  const Gemm gemm(common.gemm);
  check_size(*options, gemm, article_memory(*options, /*sets=*/2), node_updates_seconds);
  ArticleWork article(*options, gemm);  // the buffers the exec is instantiated for
  // The same workload at other addresses, with other data: an exec still on
  // the first buffers fails the check of the second.
  BatchBuffers second(common.work, common.host_memory, article.buffers.device_slots());
  const std::uint64_t second_seed = common.seed + 1;
  second.fill_inputs(second_seed);

  NodeUpdatesRun run;
  run.options = common;
  run.pool = options->pool;
  const UpdateExperiment experiment = update_experiment(article.pool, gemm, article.buffers, second, second_seed);
  progress("when the work changes: exec update vs re-capture + instantiate");
  run.updates = measure_updates(common.plan, experiment);
  progress("new buffers for the same exec: node by node vs a whole update vs a new instantiate");
  run.node_updates = measure_node_updates(common.plan, experiment, gemm.kernel());

  const StageResult result = node_updates_result(query_device_info(device), run);
  print_node_updates(std::cout, result, run);
  return finish(std::cout, node_updates_json(result, run), result.verification.passed, common.json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // exec update vs re-capture: graph costs table
    {.modes = "qfc"},
    {.modes = "t", .name = "tiny", .args = "--batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 2"},
    {.modes = "t", .name = "cublas_pageable", .args = "--kernel cublas --batches 5 --m 16 --n 24 --k 8 --streams 2 --host-memory pageable --warmup 0 --repeats 1"},
    {.modes = "s", .args = "--batches 5 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1", .ctest = "api_errors_expected"},
};

const Subcommand kNodeUpdates{"node-updates",
                              "the exec on new buffers: cudaGraphExecUpdate, node by node, or a new instantiate",
                              run_node_updates, kRuns};

}  // namespace csg::graphs
