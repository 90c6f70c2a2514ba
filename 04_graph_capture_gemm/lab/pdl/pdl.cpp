// 04_graph_capture_gemm pdl: programmatic dependent launch on Hopper. Two
// chains of dependent kernels (the workload's batches as chained GEMMs, and
// a ping/pong pair of one-thread kernels), each launched plainly, with
// programmatic stream serialization, and as graphs of both; per kernel, the
// time and the gap between kernels each way (pdl_chains.hpp measures,
// pdl_report.hpp reports).
#include <iostream>
#include <string>

#include "base/progress.hpp"
#include "04_graph_capture_gemm/lab/laboratory.hpp"
#include "measure/estimate.hpp"
#include "04_graph_capture_gemm/lab/pdl/pdl_chains.hpp"
#include "04_graph_capture_gemm/lab/pdl/pdl_report.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/device_info.hpp"

namespace csg::graphs {

// The first lines of its --help.
constexpr const char* kHelp =
    "Programmatic dependent launch (compute capability 9.0+): a chain of dependent GEMMs (the workload's batches, "
    "C_i = A_i B + C_{i-1} mod 8) and a ping/pong chain of one-thread kernels, each launched plainly, with "
    "cudaLaunchKernelEx and programmatic stream serialization, and captured into graphs of both (programmatic "
    "edges counted): time per kernel and the gap between kernels each way, every output checked.";

int run_pdl(int argc, char** argv) {
  StageCli cli(subcommand_program(kStage, "pdl"), kHelp, pdl_defaults());
  add_pdl_options(cli);
  const std::optional<CommonOptions> options = cli.parse_or_help(argc, argv);  // all checked before any CUDA call
  if (!options) return kExitOk;  // --help
  PdlRun run;
  run.options = *options;
  run.config = read_pdl_options(cli, *options);

  const int device = require_device();
  require_pdl(device);
  check_fits(memory_needs(run.config.work, HostMemory::pageable), "try fewer --batches or smaller --m, --n, --k");
  const Rates rates = measure_rates(Gemm{}, run.config.work.shape);
  const double gemm_seconds =
      rates.kernel_flops_per_s > 0.0 ? run.config.work.flops_per_batch() / rates.kernel_flops_per_s : 0.0;
  check_estimate(pdl_seconds(run.config, gemm_seconds), options->max_minutes,
                 "a chain of " + std::to_string(run.config.work.batches) + " GEMMs and one of " +
                     std::to_string(run.config.empty_kernels()) + " empty kernels, four ways each");
  progress("programmatic dependent launch: a chain of " + std::to_string(run.config.empty_kernels()) +
           " one-thread kernels and one of " + std::to_string(run.config.work.batches) + " GEMMs, four ways each");
  run.costs = measure_pdl(run.config);

  const StageResult result = pdl_result(query_device_info(device), run);
  print_pdl(std::cout, result, run);
  return finish(std::cout, pdl_json(result, run), result.verification.passed, options->json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // programmatic dependent launch: after-the-article table, after_article.png
    {.modes = "q", .args = "--warmup 1 --repeats 5"},
    {.modes = "fc"},
    {.modes = "t", .name = "tiny", .args = "--batches 6 --m 33 --n 17 --k 65 --pdl-pairs 5 --warmup 1 --repeats 2"},
    {.modes = "t", .name = "one_batch", .args = "--batches 1 --m 32 --n 32 --k 32 --pdl-pairs 1 --warmup 0 --repeats 1"},
    {.modes = "s", .args = "--batches 3 --m 33 --n 17 --k 65 --pdl-pairs 2 --warmup 0 --repeats 1"},
};

const Subcommand kPdl{"pdl", "programmatic dependent launch (9.0+): chained GEMMs, empty kernels, plain vs PDL",
                      run_pdl, kRuns};

}  // namespace csg::graphs
