// 03_stream_pool_gemm priorities: "when kernels of several streams need more
// than the GPU has, the hardware queues them by priority". A stream of short
// kernels beside a flood of long ones that keeps every SM full, at the
// default and at the greatest stream priority, and alone on an idle GPU
// (priorities.hpp says how and why).
//   03_stream_pool_gemm priorities --priority-samples 1000
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
    "Stream priorities: short kernels launched one at a time beside a flood of long ones that keeps every SM full, "
    "on a stream of the default and of the greatest priority, and alone on an idle GPU; each round runs the three "
    "once.";

namespace {

// Host time around each short kernel beyond its own latency: the launch, two
// event records, the synchronise and the top-up of the flood (measured order
// of magnitude on an H200: tens of us).
constexpr double kHostPerSampleUs = 40.0;
// A short kernel's own run, for the estimate only (measured: a few us).
constexpr double kShortKernelUs = 5.0;

}  // namespace

void add_priority_options(StageCli& cli) {
  cli.add_int("priority-samples", "Short kernels per mode and round (fewer: a quicker, noisier run)",
              PriorityConfig{}.samples, 1, kMaxPrioritySamples);
}

PriorityConfig read_priority_options(const StageCli& cli, const CommonOptions& options) {
  PriorityConfig config;
  config.samples = static_cast<int>(cli.get_int("priority-samples"));
  config.plan = options.plan;
  config.seed = static_cast<std::uint32_t>(options.seed);  // the sequences' start; any value checks the same
  return config;
}

double priorities_seconds(const PriorityConfig& p) {
  const double flood_kernel_us = double(p.flood_waves) * p.flood_block_us;
  // At the default priority a short kernel waits, on average, for about
  // half of the flood kernels queued ahead of it (one per flood stream);
  // at the greatest, for about half a flood block.
  const double per_sample_us = kShortKernelUs + p.gap_us + kHostPerSampleUs;
  const double idle_us = p.samples * per_sample_us;
  const double same_us = p.samples * (per_sample_us + 0.5 * p.flood_streams * flood_kernel_us);
  const double high_us = p.samples * (per_sample_us + 0.5 * p.flood_block_us);
  // Each flooded run also fills the GPU before its first short kernel and
  // drains the queued flood after its last.
  const double fill_drain_us = 2.0 * (p.flood_depth + 1) * flood_kernel_us;
  return experiment_seconds(p.plan, idle_us + same_us + high_us + 2.0 * fill_drain_us);
}

int run_priorities(int argc, char** argv) {
  StageCli cli(subcommand_program(lesson03::kStage, "priorities"), kHelp, experiment_defaults());
  add_priority_options(cli);
  const std::optional<CommonOptions> options = cli.parse_or_help(argc, argv);
  if (!options) return kExitOk;
  const PriorityConfig config = read_priority_options(cli, *options);

  const int device = require_device();
  // Every short kernel's output, on the device and copied back: samples x blocks x threads words.
  const std::uint64_t output_bytes = std::uint64_t(config.samples) * std::uint64_t(config.short_blocks) *
                                     std::uint64_t(config.short_threads) * sizeof(std::uint32_t);
  check_fits({.device_bytes = output_bytes, .host_bytes = output_bytes, .host_kind = HostMemory::pageable},
             "try fewer --priority-samples");
  check_estimate(priorities_seconds(config), options->max_minutes,
                 std::to_string(config.samples) + " short kernels per mode and round beside a flood");
  progress("stream priorities: short kernels beside a flood of long ones");
  const PriorityResult result = measure_priorities(config);

  const DeviceInfo info = print_experiment_header(std::cout, "priorities", device);
  print_priorities(std::cout, result);
  nlohmann::json config_doc = {{"priority_samples", config.samples},
                               {"warmup", config.plan.warmup},
                               {"repeats", config.plan.repeats},
                               {"seed", options->seed}};
  return finish_experiment("priorities", info, std::move(config_doc), result.verified, result.failure,
                           "every short kernel's output and every flood block's count", "stream_priorities",
                           priorities_json(result), options->json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // short kernels beside a flood; shared memory  appendix
    {.modes = "qfc"},
    {.modes = "t", .name = "tiny", .args = "--priority-samples 20 --warmup 0 --repeats 1", .ctest = "whole_gpu"},
    {.modes = "s", .args = "--priority-samples 20 --warmup 0 --repeats 1"},
};

const Subcommand kPriorities{"priorities",
                             "short kernels beside a flood of long ones, at the default and greatest priority",
                             run_priorities, kRuns};

}  // namespace csg::pool
