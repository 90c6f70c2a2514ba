// 04_graph_capture_gemm startup: what a serving engine pays before its first
// request, as its bucket count grows: K graphs of the article's fork/join
// work, one per bucket of batch counts, captured, instantiated and uploaded,
// with one shared pool of buffers and with separate buffers per bucket; the
// device memory they hold, and the padding each layout wastes on requests
// (startup_plan.hpp explains the layouts and the request mixes,
// startup_graphs.hpp measures, startup_report.hpp reports).
#include <algorithm>
#include <iostream>

#include "base/progress.hpp"
#include "base/text.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/laboratory.hpp"
#include "measure/estimate.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/device_info.hpp"
#include "04_graph_capture_gemm/lab/startup/startup_graphs.hpp"
#include "04_graph_capture_gemm/lab/startup/startup_plan.hpp"
#include "04_graph_capture_gemm/lab/startup/startup_report.hpp"
#include "stage.hpp"

namespace csg::graphs {

// The first lines of its --help.
constexpr const char* kHelp =
    "What a serving engine pays before its first request: for K buckets of batch counts (8 to 256 by default, spaced "
    "evenly over 1..max), K graphs of the article's fork/join GEMMs captured, instantiated and uploaded, in total and "
    "per graph, with their device memory, with one shared pool of buffers and with separate buffers per bucket; the "
    "padding each layout wastes on uniform and skewed request sizes; and the first K whose startup exceeds a budget.";

namespace {

// The run's estimate at this GPU's rates: one batch's GPU time in a pipeline
// and about as long again for the host's poison and check, with a floor of a
// few µs per batch for the check of a tiny GEMM.
double run_seconds(const StartupConfig& config, const CommonOptions& common, const Gemm& gemm) {
  const bool pageable = common.host_memory == HostMemory::pageable;
  const GemmShape shape{config.size, config.size, config.size};
  const WorkSeconds batch = work_seconds(Workload{1, shape}, measure_rates(gemm, shape), pageable);
  return startup_seconds(config, 2.0 * batch.overlapped() + 5e-6);
}

// The shared pool, and the largest bucket count's separate buffers beside it.
MemoryNeeds startup_memory(const StartupConfig& config, HostMemory host) {
  long long most = 0;
  for (int k : config.bucket_counts) most = std::max(most, captured_batches(even_buckets(k, config.max_batches)));
  const MemoryNeeds shared = memory_needs(startup_workload(config, config.max_batches), host, 0);
  MemoryNeeds separate = memory_needs(startup_workload(config, int(std::min<long long>(most, 1 << 30))), host, 0);
  // Each bucket's buffers hold their own B.
  separate.device_bytes += std::uint64_t(config.bucket_counts.back()) * startup_workload(config, 1).b_bytes();
  return combined(shared, separate);
}

}  // namespace

int run_startup(int argc, char** argv) {
  // --startup-size sets the shape, the buckets the batch counts.
  StageCli cli(subcommand_program(kStage, "startup"), kHelp, own_workload_defaults());
  add_startup_options(cli);
  add_pool_options(cli, PoolFlags{.device_buffers = false});
  std::optional<CommonOptions> options = cli.parse_or_help(argc, argv);  // all checked before any CUDA call
  if (!options) return kExitOk;  // --help
  refuse_given(cli, {"warmup", "repeats"},
               "a graph is built once per round (--startup-rounds), after one untimed graph of 1 batch");
  const StartupConfig config = read_startup_options(cli, options->seed);
  options->work = startup_workload(config, config.max_batches);
  const PoolConfig pool_config = read_pool_options(cli, *options, PoolFlags{.device_buffers = false});

  const int device = require_device();
  const Gemm naive;  // the article's kernel: the graphs' node count is what startup pays for
  check_fits(startup_memory(config, options->host_memory),
             "try a smaller --startup-max-batches, --startup-size or fewer --startup-buckets");
  check_estimate(run_seconds(config, *options, naive), options->max_minutes,
                 "graphs of " + plural(static_cast<long long>(config.bucket_counts.size()), "bucket count") + " over 1.." +
                     plural(config.max_batches, "batch") + ", two ways");
  const StreamPool pool(pool_config.streams);
  prepare_pool(naive, pool);
  BatchBuffers shared(options->work, options->host_memory, 0);  // one device slot per batch
  // What the pool allocated, counted (cudaMemGetInfo sees every process on the GPU).
  const auto shared_bytes =
      static_cast<std::int64_t>(memory_needs(options->work, options->host_memory, 0).device_bytes);
  progress("filling " + plural(config.max_batches, "batch"));
  shared.fill_inputs(config.seed);

  StartupFigures figures = measure_startup(config, pool, naive, shared, shared_bytes);
  fill_padding(figures);

  StageResult result = pool_result(query_device_info(device), *options, pool_config);
  result.config["device_buffers"] = "per-batch";
  result.measurements = startup_measurements(figures);
  result.bounds = startup_bounds(figures);
  const std::vector<const VerifyResult*> checks = startup_checks(figures);
  set_verdict(result, *checks.front(), checks);
  print_title(std::cout, result, "startup");
  std::cout << naive.name() << " GEMMs, " << to_string(options->host_memory) << " host memory, a pool of "
            << plural(pool_config.streams, "stream") << ", one device A and C per batch; every graph launched once "
            << "and verified\n";
  print_startup(std::cout, figures);
  print_verification(std::cout, result);
  nlohmann::json doc = subcommand_json(result, "startup");
  doc["startup"] = startup_json(figures);
  return finish(std::cout, doc, result.verification.passed, options->json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // a serving engine's startup, 8 to 256 bucket graphs   after-the-article table, after_article.png
    {.modes = "qfc"},
    {.modes = "t", .name = "tiny", .args = "--startup-buckets 2,9 --startup-max-batches 9 --startup-size 16 --startup-requests 500 --streams 3"},
    {.modes = "t", .name = "tiny_budget_pageable", .args = "--startup-buckets 1,3 --startup-max-batches 3 --startup-size 33 --startup-budget-ms 1 --startup-rounds 2 --host-memory pageable --streams 2"},
    {.modes = "s", .args = "--startup-buckets 2,4 --startup-max-batches 4 --startup-size 8 --startup-requests 100 --streams 2"},
};

const Subcommand kStartup{"startup",
                          "K bucket graphs before the first request: capture, instantiate, upload, memory",
                          run_startup, kRuns};

}  // namespace csg::graphs
