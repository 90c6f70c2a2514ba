// 04_graph_capture_gemm device-launch: graphs launched from the GPU. A
// kernel running in a graph launches graphs instantiated with
// cudaGraphInstantiateFlagDeviceLaunch (tail launch, fire-and-forget, a
// scheduler that picks the next graph from a value on the device), timed
// against the host's cudaGraphLaunch (device_launch_measure.hpp measures,
// device_launch_report.hpp reports).
#include <iostream>

#include "base/progress.hpp"
#include "04_graph_capture_gemm/lab/device-launch/device_launch_report.hpp"
#include "04_graph_capture_gemm/lab/laboratory.hpp"
#include "measure/estimate.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/device_info.hpp"
#include "stage.hpp"

namespace csg::graphs {

// The first lines of its --help.
constexpr const char* kHelp =
    "Graphs launched from the GPU: a one-kernel counting graph and the article's work (small) launched N times by "
    "the host, by a graph tail-launching itself and by a launcher kernel firing and forgetting; a scheduler kernel "
    "picking the next graph from a value on the device against the host copying it back, synchronising and "
    "launching; and what the device-launch flag costs a graph the host launches.";

void add_device_launch_options(StageCli& cli) {
  const DeviceLaunchConfig defaults;
  cli.add_int("launches", "Launches of the one-kernel counting graph, and decisions between two graphs",
              defaults.launches, 1, 1000000);
  cli.add_int("work-launches", "Launches of the article's work", defaults.work_launches, 1, 100000);
  cli.add_int("work-batches", "Batches (GEMMs) of the article's work", defaults.work_batches, 1, 1000);
  cli.add_int("work-size", "m = n = k of the article's GEMMs", defaults.work_size, 1, 4096);
  cli.add_int("fan-out", "Children a launcher kernel fires per execution (at most " + std::to_string(kMaxFanOut) +
                             ")",
              defaults.fan_out, 1, kMaxFanOut);
  cli.add_int("streams", "Streams of the article's pool", defaults.streams, 1, 64);
}

DeviceLaunchConfig read_device_launch_options(const StageCli& cli, const CommonOptions& options) {
  DeviceLaunchConfig config;
  config.launches = static_cast<int>(cli.get_int("launches"));
  config.work_launches = static_cast<int>(cli.get_int("work-launches"));
  config.work_batches = static_cast<int>(cli.get_int("work-batches"));
  config.work_size = static_cast<int>(cli.get_int("work-size"));
  config.fan_out = static_cast<int>(cli.get_int("fan-out"));
  config.streams = static_cast<int>(cli.get_int("streams"));
  config.host_memory = options.host_memory;
  config.seed = options.seed;
  return config;
}

namespace {

int run_device_launch(int argc, char** argv) {
  StageCli cli(subcommand_program(kStage, "device-launch"), kHelp, own_workload_defaults());
  add_device_launch_options(cli);
  std::optional<CommonOptions> options = cli.parse_or_help(argc, argv);  // all checked before any CUDA call
  if (!options) return kExitOk;  // --help
  DeviceLaunchRun run;
  run.config = read_device_launch_options(cli, *options);
  options->work = device_launch_workload(run.config);
  run.options = *options;

  const int device = require_device();
  const Gemm naive;  // the article's kernel: the only kind a device-launched graph is sure to take
  const Workload& work = options->work;
  check_fits(memory_needs(work, options->host_memory, work.batches), "try a smaller --work-batches or --work-size");
  const double one_run =
      work_seconds(work, measure_rates(naive, work.shape), options->host_memory == HostMemory::pageable).serial();
  check_estimate(device_launch_seconds(run.config, options->plan, one_run), options->max_minutes,
                 std::to_string(run.config.launches) + " launches and decisions, " +
                     std::to_string(run.config.work_launches) + " runs of the work");
  const StreamPool pool(run.config.streams);
  progress("graphs launched from the GPU: " + std::to_string(run.config.launches) + " launches three ways, " +
           std::to_string(run.config.work_launches) + " runs of the work, " + std::to_string(run.config.launches) +
           " decisions");
  run.figures = measure_device_launch(run.config, options->plan, pool, naive);

  const StageResult result = device_launch_result(query_device_info(device), run);
  print_device_launch(std::cout, result, run);
  return finish(std::cout, device_launch_json(result, run), result.verification.passed, options->json_path);
}

}  // namespace

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // graphs launched from the GPU: after-the-article table, after_article.png
    {.modes = "qfc"},
    {.modes = "t", .name = "tiny", .args = "--launches 7 --work-launches 3 --work-batches 5 --work-size 33 --fan-out 3 --streams 3 --warmup 1 --repeats 2"},
    {.modes = "t", .name = "pageable", .args = "--host-memory pageable --launches 5 --work-launches 2 --work-batches 3 --work-size 16 --fan-out 2 --streams 2 --warmup 0 --repeats 1"},
    {.modes = "s", .args = "--launches 5 --work-launches 2 --work-batches 3 --work-size 16 --fan-out 2 --streams 2 --warmup 0 --repeats 1"},
};

const Subcommand kDeviceLaunch{"device-launch",
                               "graphs launched from the GPU: tail, fire-and-forget, a scheduler, vs the host",
                               run_device_launch, kRuns};

}  // namespace csg::graphs
