// 04_graph_capture_gemm tiny-work: many empty kernels and tiny GEMMs, each
// launched on streams and replayed as a graph: per operation, what a launch
// costs against what a graph node costs.
#include "base/text.hpp"
#include "04_graph_capture_gemm/lab/tiny-work/tiny_work.hpp"

#include <algorithm>
#include <iostream>

#include "base/progress.hpp"
#include "04_graph_capture_gemm/conclusions.hpp"
#include "04_graph_capture_gemm/lab/laboratory.hpp"
#include "04_graph_capture_gemm/lab/launch_costs.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/device_info.hpp"

namespace csg::graphs {

// The first lines of its --help.
constexpr const char* kHelp =
    "Where graphs win: a chain of empty kernels on one stream and tiny GEMMs on the pool (the article's naive "
    "kernel, no copies), each launched one by one and replayed as one graph.";

namespace {

// A launch on a stream costs the host about 4 µs (H200: 3.4-4.1 µs for an
// empty kernel), and no operation of a stream takes less on the GPU.
constexpr double kSecondsPerLaunch = 4e-6;

}  // namespace

StageResult tiny_result(const DeviceInfo& device, const TinyRun& run) {
  const TinyCosts& tiny = run.costs;
  const int count = run.config.count;
  const Workload gemms = tiny_gemm_workload(run.config);
  const Work tiny_flops{0.0, double(gemms.batches) * gemms.flops_per_batch()};
  const nlohmann::json empty_params = {{"kernels", count}};
  const nlohmann::json gemm_params = {{"gemms", count}, {"size", run.config.size}, {"streams", run.config.streams}};

  StageResult result;
  result.stage = kStage;
  result.device = device;
  result.config = config_json(run.options);
  result.config["streams"] = run.config.streams;
  result.config["tiny_count"] = count;
  result.config["tiny_size"] = run.config.size;
  result.measurements = {
      checked_without_digest("tiny_empty_streams", empty_params, tiny.empty_streams, Work{}, tiny.empty_checked),
      checked_without_digest("tiny_empty_graph", empty_params, tiny.empty_graph, Work{}, tiny.empty_checked),
      checked("tiny_gemm_streams", gemm_params, tiny.gemm_streams, tiny_flops, tiny.gemm_streams_check),
      checked("tiny_gemm_graph", gemm_params, tiny.gemm_graph, tiny_flops, tiny.gemm_graph_check),
      checked("tiny_gemm_graph_launch_cpu", gemm_params, tiny.gemm_graph_launch_cpu, Work{}, tiny.gemm_launch_check),
  };
  result.bounds = {
      {"tiny_empty_stream_us_per_launch", per_op_us(tiny.empty_streams, count)},
      {"tiny_empty_graph_us_per_node", per_op_us(tiny.empty_graph, count)},
      {"tiny_gemm_stream_us_per_gemm", per_op_us(tiny.gemm_streams, count)},
      {"tiny_gemm_graph_us_per_gemm", per_op_us(tiny.gemm_graph, count)},
      {"tiny_gemm_graph_launch_cpu_us", 1000.0 * tiny.gemm_graph_launch_cpu.median_ms},
  };
  set_verdict(result, tiny.gemm_streams_check,
              {&tiny.gemm_streams_check, &tiny.gemm_graph_check, &tiny.gemm_launch_check});
  add_failure(result, tiny.empty_checked, "empty-kernel counter: " + tiny.empty_failure);
  return result;
}

nlohmann::json tiny_json(const StageResult& result, const TinyRun& run) {
  nlohmann::json doc = subcommand_json(result, "tiny-work");
  doc["tiny"] = {{"count", run.config.count},
                 {"size", run.config.size},
                 {"empty_graph_nodes", run.costs.empty_graph_nodes},
                 {"gemm_graph_nodes", run.costs.gemm_graph_nodes}};
  if (!run.costs.empty_checked) doc["tiny"]["empty_failure"] = run.costs.empty_failure;
  return doc;
}

void print_tiny(std::ostream& out, const StageResult& result, const TinyRun& run) {
  const TinyCosts& tiny = run.costs;
  const int count = run.config.count;
  print_title(out, result, "tiny-work");
  out << plural(count, "empty kernel") << " (<<<1, 1>>>, no body) on one stream, and " << count << " naive "
      << run.config.size << "^3 " << noun(count, "GEMM") << " without copies on a pool of "
      << plural(run.config.streams, "stream") << "; each launched one by one and replayed as one graph; median of "
      << plural(run.options.plan.repeats, "run") << " after " << run.options.plan.warmup << " warm-up\n";
  out << "\nwhere graphs win: " << plural(count, "tiny operation") << " (GPU time, interleaved):\n";
  print_measurements(out, pick(result, {"tiny_empty_streams", "tiny_empty_graph", "tiny_gemm_streams",
                                        "tiny_gemm_graph", "tiny_gemm_graph_launch_cpu"}));
  out << per_op_text("empty kernels", per_op_us(tiny.empty_streams, count), per_op_us(tiny.empty_graph, count))
      << '\n'
      << per_op_text(std::to_string(run.config.size) + "^3 GEMMs", per_op_us(tiny.gemm_streams, count),
                     per_op_us(tiny.gemm_graph, count))
      << '\n';
  if (!tiny.empty_checked) out << "empty-kernel counter WRONG: " << tiny.empty_failure << '\n';
  print_verification(out, result);
}

double tiny_seconds(const TinyConfig& config, const RepeatPlan& plan, const Rates& rates) {
  const double launches = config.count * kSecondsPerLaunch;
  const double gemms = std::max(work_seconds(tiny_gemm_workload(config), rates, false).kernels, launches);
  return (plan.warmup + plan.repeats) * (2.0 * launches + 3.0 * gemms);
}

int run_tiny_work(int argc, char** argv) {
  // --tiny-count and --tiny-size set the work.
  StageCli cli(subcommand_program(kStage, "tiny-work"), kHelp, own_workload_defaults());
  add_tiny_options(cli);
  std::optional<CommonOptions> options = cli.parse_or_help(argc, argv);  // all checked before any CUDA call
  if (!options) return kExitOk;  // --help
  TinyRun run;
  run.config = read_tiny_options(cli, *options);
  options->work = tiny_gemm_workload(run.config);
  run.options = *options;

  const int device = require_device();
  const Gemm naive;  // whatever the article's work runs with: these GEMMs measure launch costs
  check_fits(memory_needs(options->work, options->host_memory, options->work.batches),
             "try a smaller --tiny-count or --tiny-size");
  check_estimate(tiny_seconds(run.config, options->plan, measure_rates(naive, options->work.shape)),
                 options->max_minutes, std::to_string(run.config.count) + " empty kernels and tiny GEMMs");
  const StreamPool pool(run.config.streams);
  progress("where graphs win: " + std::to_string(run.config.count) + " empty kernels and " +
           std::to_string(run.config.count) + " tiny GEMMs");
  run.costs = measure_launch_overhead(options->plan, pool, naive, run.config);

  const StageResult result = tiny_result(query_device_info(device), run);
  print_tiny(std::cout, result, run);
  return finish(std::cout, tiny_json(result, run), result.verification.passed, options->json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // where graphs win: many tiny operations: graph costs table, graph_costs.png
    {.modes = "qfc"},
    {.modes = "t", .name = "tiny", .args = "--tiny-count 20 --tiny-size 8 --streams 3 --warmup 1 --repeats 2"},
    {.modes = "s", .args = "--tiny-count 8 --tiny-size 16 --streams 3 --warmup 0 --repeats 1"},
};

const Subcommand kTinyWork{"tiny-work", "where graphs win: many empty kernels and tiny GEMMs, launched vs replayed",
                           run_tiny_work, kRuns};

}  // namespace csg::graphs
