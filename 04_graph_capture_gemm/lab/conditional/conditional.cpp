// 04_graph_capture_gemm conditional: conditional graph nodes. A WHILE node
// running a loop body until a device-side condition ends it, against host
// loops of kernel and graph launches, an unrolled graph, and the host deciding
// each iteration from a device value; then a SWITCH node choosing a request's
// shape bucket on the device, against the host choosing a graph per bucket
// (conditional.hpp measures, conditional_report.hpp reports).
#include <iostream>

#include "base/errors.hpp"
#include "base/progress.hpp"
#include "check.hpp"
#include "04_graph_capture_gemm/lab/conditional/conditional_report.hpp"
#include "04_graph_capture_gemm/lab/laboratory.hpp"
#include "measure/estimate.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "owners.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/device_info.hpp"

namespace csg::graphs {

// The first lines of its --help.
constexpr const char* kHelp =
    "Conditional graph nodes: a WHILE node running a loop body (a small GEMM and a counter step, or the step "
    "alone) until a device-side condition ends it, against a host loop of kernel launches, a host loop of graph "
    "launches, one unrolled graph, and the host deciding each iteration from a value it copies back; total and "
    "per-iteration cost for each N. Then a SWITCH node choosing each request's shape bucket on the device, against "
    "the host reading the size back and launching that bucket's graph. Needs CUDA 12.3 (WHILE) and 12.8 (SWITCH) "
    "in driver and runtime; exits 77 without them.";

int run_conditional(int argc, char** argv) {
  StageCli cli(subcommand_program(kStage, "conditional"), kHelp, own_workload_defaults());
  add_conditional_options(cli);
  std::optional<CommonOptions> options = cli.parse_or_help(argc, argv);  // all checked before any CUDA call
  if (!options) return kExitOk;  // --help
  refuse_given(cli, {"host-memory"},
               "its few small buffers are pinned, and so is the flag the host-decided loop reads back");
  const ConditionalConfig config = read_conditional_options(cli);
  options->work = Workload{1, GemmShape{config.size, config.size, config.size}};

  const int device = require_device();
  int driver = 0;
  int runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  if (const std::string missing = unsupported_reason(config, driver, runtime); !missing.empty()) {
    throw NoDeviceError(missing);
  }
  MemoryNeeds needs = memory_needs(options->work, HostMemory::pinned);
  for (const int size : config.buckets) {
    needs = combined(needs, memory_needs(Workload{1, GemmShape{size, size, size}}, HostMemory::pinned));
  }
  check_fits(needs, "try smaller --cond-size or --cond-buckets");
  const Gemm naive;
  const Rates rates = measure_rates(naive, options->work.shape);
  const double gemm_seconds = options->work.flops_per_batch() / rates.kernel_flops_per_s;
  check_estimate(conditional_seconds(config, options->plan, gemm_seconds), options->max_minutes,
                 "loops of up to " + std::to_string(config.iterations.back()) + " bodies, 5 ways, 2 bodies");

  const Stream stream;
  progress("WHILE node against host loops: N = " + std::to_string(config.iterations.front()) + " to " +
           std::to_string(config.iterations.back()) +
           (config.requests > 0 ? "; then SWITCH over " + std::to_string(config.requests) + " requests" : ""));
  const ConditionalCosts costs = measure_conditional(config, options->plan, options->seed, stream.get());

  const StageResult result = conditional_result(query_device_info(device), *options, config, costs);
  print_conditional(std::cout, result, *options, config, costs);
  return finish(std::cout, conditional_json(result, config, costs), result.verification.passed, options->json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // WHILE and SWITCH nodes; N to 1,000 by default, to 10,000 with --full
    {.modes = "q", .args = "--cond-iterations 10,100,1000 --warmup 1 --repeats 5"},
    {.modes = "fc"},
    {.modes = "t", .name = "tiny", .args = "--cond-iterations 1,3,20 --cond-size 17 --cond-unroll-max 3 --cond-buckets 8,24,33 --cond-requests 9 --warmup 1 --repeats 2"},
    {.modes = "t", .name = "while_only", .args = "--cond-iterations 2,7 --cond-size 8 --cond-unroll-max 0 --cond-requests 0 --warmup 0 --repeats 1"},
    {.modes = "s", .args = "--cond-iterations 1,4 --cond-size 8 --cond-buckets 4,8 --cond-requests 5 --warmup 0 --repeats 1"},
};

const Subcommand kConditional{"conditional",
                              "conditional nodes: a WHILE loop and a SWITCH bucket choice decided on the GPU",
                              run_conditional, kRuns};

}  // namespace csg::graphs
