// 03_stream_pool_gemm contention: two streams' kernels whose blocks need
// little or much shared memory. With little, blocks of both kernels share
// the SMs and the streams run side by side; with more than half an SM's
// shared memory per block, one kernel's blocks wait for the other's
// (priorities.hpp says how and why).
//   03_stream_pool_gemm contention --repeats 20
#include <iostream>

#include "base/progress.hpp"
#include "03_stream_pool_gemm/lab/laboratory.hpp"
#include "03_stream_pool_gemm/lesson.hpp"
#include "measure/estimate.hpp"
#include "03_stream_pool_gemm/lab/priorities/priorities.hpp"
#include "03_stream_pool_gemm/lab/priorities/priorities_report.hpp"
#include "report/device_info.hpp"
#include "stage.hpp"

namespace csg::pool {

// The first lines of its --help.
constexpr const char* kHelp =
    "Two streams, each launching one kernel of one block per SM that holds its SM for a fixed time: with little "
    "shared memory per block both kernels' blocks fit on an SM together, with more than half an SM's they queue. "
    "Each round times both alone and on two streams at once.";

namespace {

// Per timed or warm-up run of a contention variant: launch, events, the check.
constexpr double kContentionRunOverheadUs = 60.0;

}  // namespace

double concurrency(const ContentionVariant& variant) {
  if (variant.together.median_ms <= 0.0) return 0.0;
  return 2.0 * variant.alone.median_ms / variant.together.median_ms;
}

double contention_seconds(const ContentionConfig& c) {
  // Per round: each of the two variants alone (one kernel time) and on two
  // streams (up to two kernel times).
  return experiment_seconds(c.plan, 2.0 * (3.0 * c.kernel_us + 2.0 * kContentionRunOverheadUs));
}

int run_contention(int argc, char** argv) {
  StageCli cli(subcommand_program(lesson03::kStage, "contention"), kHelp, experiment_defaults());
  const std::optional<CommonOptions> options = cli.parse_or_help(argc, argv);
  if (!options) return kExitOk;
  ContentionConfig config;
  config.plan = options->plan;

  const int device = require_device();  // a few hundred bytes of markers: nothing to check for memory
  check_estimate(contention_seconds(config), options->max_minutes, "two streams' kernels, alone and together");
  progress("contention: two streams' kernels with small and with large shared memory per block");
  const ContentionResult result = measure_contention(config);

  const DeviceInfo info = print_experiment_header(std::cout, "contention", device);
  print_contention(std::cout, result);
  nlohmann::json config_doc = {{"kernel_us", config.kernel_us},
                               {"threads", config.threads},
                               {"warmup", config.plan.warmup},
                               {"repeats", config.plan.repeats}};
  return finish_experiment("contention", info, std::move(config_doc), result.verified, result.failure,
                           "every block's marker", "shared_memory_contention", contention_json(result),
                           options->json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    {.modes = "qfc"},
    {.modes = "t", .name = "tiny", .args = "--warmup 0 --repeats 2", .ctest = "whole_gpu"},
    {.modes = "s", .args = "--warmup 0 --repeats 1"},
};

const Subcommand kContention{"contention", "two streams' kernels with little and with much shared memory per block",
                             run_contention, kRuns};

}  // namespace csg::pool
