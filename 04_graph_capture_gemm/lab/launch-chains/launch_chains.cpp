// 04_graph_capture_gemm launch-chains: what one launch costs, measured the
// way cuda-samples' cudaGraphsPerfScaling and nvbench do: chains of empty
// kernels of growing length, each issued launch by launch and replayed as one
// graph, a line fitted through each figure (launch_costs.hpp measures,
// launch_report.hpp reports). Beside them, the article's work issued back to
// back and in interleaved rounds with the GPU busy: what may make a suite's
// launch figures differ from a plain program's.
#include <algorithm>
#include <iostream>

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "base/progress.hpp"
#include "04_graph_capture_gemm/lab/graph_costs.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/laboratory.hpp"
#include "04_graph_capture_gemm/lab/launch-chains/launch_report.hpp"
#include "measure/estimate.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/device_info.hpp"
#include "stage.hpp"

namespace csg::graphs {

// The first lines of its --help.
constexpr const char* kHelp =
    "What one launch costs: chains of empty kernels, each length timed back to back launch by launch and as one "
    "graph (host time, GPU time behind a latch, end to end), a line fitted through each; beside them the article's "
    "work issued back to back and in interleaved rounds.";

int run_launch_chains(int argc, char** argv) {
  StageCli cli(subcommand_program(kStage, "launch-chains"), kHelp, pinned_defaults());
  add_launch_options(cli);
  const std::optional<ArticleOptions> options = parse_article_options(cli, argc, argv);
  if (!options) return kExitOk;  // --help
  const LaunchCostConfig config = read_launch_options(cli);
  const CommonOptions& common = options->common;
  const Workload& work = common.work;

  const int device = require_device();
  const Gemm gemm(common.gemm);
  check_size(*options, gemm, article_memory(*options), nullptr);
  const double pipeline = pipeline_seconds(common, measure_rates(gemm, work.shape));
  check_estimate(launch_chains_seconds(config, common.plan, pipeline), common.max_minutes,
                 "chains of " + std::to_string(config.chains.front()) + " to " + std::to_string(config.chains.back()) +
                     " empty kernels");
  ArticleWork article(*options, gemm);
  const StreamPool& pool = article.pool;
  BatchBuffers& buffers = article.buffers;
  const BatchOps ops = batch_ops(buffers, gemm);
  const GraphExec exec = instantiate(capture_batches(ops, pool, work.batches));
  auto poison = [&] { buffers.poison_outputs(pool[0]); };
  auto verify = [&] { return buffers.verify(common.seed); };
  auto launch_step = [&pool](const GraphExec& e) { launch(e, pool); };
  auto issue_step = [&] { issue_on_streams(ops, pool, work.batches); };

  // The article's work in interleaved rounds, as the costs subcommand times
  // it, with a chain of empty kernels among them: the "interleaved" halves
  // of the pairs below.
  progress("the article's work in interleaved rounds, and a chain of empty kernels among them");
  EventTimer chain_timer;
  const int chain_ops = steady_chain_ops(config);
  const TimedVariant empty_chain{.prepare = nullptr,
                                 .run = [&] {
                                   chain_timer.start(pool[0]);
                                   issue_chain(chain_ops, pool[0]);
                                   return chain_timer.stop();
                                 },
                                 .after_last = nullptr};
  const ReplayCosts interleaved_runs = measure_replay_vs_streams(
      common.plan, {&exec, launch_step, issue_step, poison, verify, pool[0], {}, {}, {}, {empty_chain}});
  const InterleavedIssue interleaved{.graph_launch_cpu_ms = interleaved_runs.issue_graph_cpu.median_ms,
                                     .streams_issue_cpu_ms = interleaved_runs.issue_streams_cpu.median_ms,
                                     .empty_chain_end_to_end_ms = interleaved_runs.also.at(0).median_ms,
                                     .empty_chain_ops = chain_ops};

  progress("what one launch costs: chains of " + std::to_string(config.chains.front()) + " to " +
           std::to_string(config.chains.back()) + " empty kernels, back to back");
  const LaunchCosts costs = measure_launch_costs(config, {&exec, launch_step, issue_step, poison, verify, pool[0]});

  StageResult result = pool_result(query_device_info(device), common, options->pool);
  result.config["launch_chains"] = config.chains;
  result.config["launch_repeats"] = config.repeats;
  set_verdict(result, costs.steady.graph_check,
              {&costs.steady.graph_check, &costs.steady.streams_check, &interleaved_runs.graph_check,
               &interleaved_runs.streams_check});
  add_failure(result, costs.checked, "launch-cost study: " + costs.failure);
  print_title(std::cout, result, "launch-chains");
  std::cout << "beside the chains: " << pool_run_text(common, options->pool) << '\n';
  print_launch_costs(std::cout, costs, interleaved);
  print_verification(std::cout, result);
  nlohmann::json doc = subcommand_json(result, "launch-chains");
  doc["launch_costs"] = launch_costs_json(costs, interleaved);
  return finish(std::cout, doc, result.verification.passed, common.json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // what one launch costs: appendix
    {.modes = "q", .args = "--launch-chains 10,100,1000 --launch-repeats 11"},
    {.modes = "c", .args = "--launch-chains 10,100,1000"},
    // ... up to 10,000 kernels (--full)
    {.modes = "f"},
    // ... with every kernel loaded at start
    {.modes = "c", .name = "eager", .env = "CUDA_MODULE_LOADING=EAGER"},
    {.modes = "t", .name = "tiny", .args = "--launch-chains 3,30 --launch-repeats 5 --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1"},
    {.modes = "s", .args = "--launch-chains 3,30 --launch-repeats 5 --batches 3 --m 16 --n 16 --k 16 --streams 2 --warmup 0 --repeats 1"},
};

const Subcommand kLaunchChains{"launch-chains",
                               "what one launch costs: chains of empty kernels, launches vs graph nodes, fitted",
                               run_launch_chains, kRuns};

}  // namespace csg::graphs
