// 04_graph_capture_gemm changing-shapes: the article's "graphs suit stable
// work", measured. A seeded sequence of requests of random batch counts, each
// run four ways: issued on the streams, re-captured and instantiated, one
// exec updated (refused whenever the batch count changes), or launched from
// a bucket of graphs captured up front (changing_shapes_plan.hpp explains
// them, shape_requests.hpp measures them, changing_shapes_report.hpp reports).
#include <iostream>

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "base/progress.hpp"
#include "base/text.hpp"
#include "04_graph_capture_gemm/lab/changing_shapes_plan.hpp"
#include "04_graph_capture_gemm/lab/changing_shapes_report.hpp"
#include "cli/pool_options.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/laboratory.hpp"
#include "measure/estimate.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/device_info.hpp"
#include "04_graph_capture_gemm/lab/changing-shapes/shape_requests.hpp"
#include "stage.hpp"

namespace csg::graphs {

// The first lines of its --help.
constexpr const char* kHelp =
    "Requests of random batch counts, each run four ways: on the stream pool, re-captured and instantiated, one exec "
    "updated with cudaGraphExecUpdate, or launched from buckets of graphs captured up front (powers of two, the "
    "extra batches computed for nothing).";

namespace {

// The whole sequence at this GPU's rates: every batch of every request as
// one batch in a pipeline, and the host's poison and verification of it
// (about as long again).
double sequence_seconds(const ChangingShapesConfig& config, const CommonOptions& common, const Gemm& gemm) {
  const bool pageable = common.host_memory == HostMemory::pageable;
  const GemmShape& shape = common.work.shape;
  const WorkSeconds batch = work_seconds(Workload{1, shape}, measure_rates(gemm, shape), pageable);
  return changing_shapes_seconds(config, 2.0 * batch.overlapped());
}

}  // namespace

int run_changing_shapes(int argc, char** argv) {
  // The requests choose their batch counts, --shape-size their shape.
  StageCli cli(subcommand_program(kStage, "changing-shapes"), kHelp, own_workload_defaults());
  add_changing_shapes_options(cli);
  add_kernel_option(cli, GemmKernel::naive);
  std::optional<ArticleOptions> options = parse_article_options(cli, argc, argv);
  if (!options) return kExitOk;  // --help
  refuse_given(cli, {"warmup", "repeats"},
               "after " + std::to_string(kShapeWarmupRequests) +
                   " untimed requests the sequence runs --shape-rounds times, the median reported");
  const ChangingShapesConfig config = read_changing_shapes_options(cli);
  CommonOptions& common = options->common;
  common.work = changing_shapes_workload(config);  // the top bucket's batches, of the requests' shape
  read_kernel_option(cli, common);
  const PoolConfig& pool_config = options->pool;

  const int device = require_device();
  const Gemm gemm(common.gemm);
  check_fits(article_memory(*options), "try a smaller --shape-max-batches or --shape-size, or --device-buffers slots");
  check_estimate(sequence_seconds(config, common, gemm), common.max_minutes,
                 plural(config.requests, "request") + " of 1 to " + plural(config.max_batches, "batch") +
                     ", four ways");
  ArticleWork article(*options, gemm);  // the top bucket's batches: a padded request computes real ones

  progress("changing shapes: " + plural(config.requests, "request") + " of 1 to " +
           plural(config.max_batches, "batch") + ", four ways");
  ChangingShapesRun run;
  run.config = config;
  run.sequence =
      measure_changing_shapes(config, shape_request_steps(article.pool, gemm, article.buffers, common.seed));

  StageResult result = pool_result(query_device_info(device), common, pool_config);
  result.config["batches"] = nullptr;  // each request's own; the buffers hold the top bucket's
  result.measurements = changing_shapes_measurements(run);
  set_verdict(result, run.sequence->way(ShapeWay::streams).check, changing_shapes_checks(run));
  print_title(std::cout, result, "changing-shapes");
  std::cout << gemm.name() << " GEMMs, " << pool_text(common.host_memory, pool_config) << '\n';
  print_changing_shapes(std::cout, run);
  print_verification(std::cout, result);
  nlohmann::json doc = subcommand_json(result, "changing-shapes");
  doc["changing_shapes"] = changing_shapes_json(run);
  return finish(std::cout, doc, result.verification.passed, common.json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    {.modes = "qfc"},
    {.modes = "t", .name = "tiny", .args = "--shape-requests 5 --shape-max-batches 9 --shape-size 16 --shape-rounds 1 --streams 3"},
    {.modes = "s", .args = "--shape-requests 3 --shape-max-batches 4 --shape-size 8 --shape-rounds 1 --streams 2", .ctest = "api_errors_expected"},
};

const Subcommand kChangingShapes{"changing-shapes",
                                 "requests of random batch counts: streams, re-capture, exec update or buckets",
                                 run_changing_shapes, kRuns};

}  // namespace csg::graphs
