// 04_graph_capture_gemm skip-join: the capture without step 4, the error
// CUDA gives, and exit 1.
#include "base/text.hpp"
#include "04_graph_capture_gemm/lab/skip-join/skip_join.hpp"

#include <iostream>

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "base/progress.hpp"
#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "cli/pool_options.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/laboratory.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/device_info.hpp"
#include "stage.hpp"

namespace csg::graphs {

// The first lines of its --help.
constexpr const char* kHelp =
    "The capture without step 4 (join): what cudaStreamEndCapture says, what becomes of the streams, the same "
    "capture with the join; then exit 1.";

void print_missing_join(std::ostream& out, const MissingJoin& run) {
  if (run.end_capture == cudaSuccess) {
    out << "skip-join: CUDA accepted a capture without the join on this system; expected "
           "cudaErrorStreamCaptureUnjoined.\n";
  } else {
    out << "skip-join: the capture was ended without step 4 (join).\n"
        << "cudaStreamEndCapture returned " << cudaGetErrorName(run.end_capture) << " ("
        << cudaGetErrorString(run.end_capture) << ").\n"
        << "In plain words: the forked streams were never joined back; CUDA refuses to end the capture: the graph "
           "does not 'exit early' as the article says. There is no graph at all, so nothing can be launched.\n"
        << "Afterwards: " << (run.still_capturing ? "a pool stream is STILL capturing" : "no pool stream is capturing")
        << " (cudaStreamIsCapturing on all " << run.streams << ")";
  }
  out << (run.end_capture == cudaSuccess ? "" : "; ") << "a new capture with the join on the same streams gave "
      << plural(run.recaptured.nodes, "node") << " and " << plural(run.recaptured.roots, "root") << ", and its launch: "
      << run.recaptured_check.message() << ".\n";
}

nlohmann::json to_json(const MissingJoin& run) {
  const bool refused = run.end_capture != cudaSuccess;
  return {{"end_capture_error", refused ? nlohmann::json(cudaGetErrorName(run.end_capture)) : nlohmann::json(nullptr)},
          {"end_capture_message",
           refused ? nlohmann::json(cudaGetErrorString(run.end_capture)) : nlohmann::json(nullptr)},
          {"still_capturing", run.still_capturing},
          {"recaptured", to_json(run.recaptured)},
          {"recaptured_verified", run.recaptured_check.passed}};
}

int run_skip_join(int argc, char** argv) {
  StageCli cli(subcommand_program(kStage, "skip-join"), kHelp, untimed_defaults());
  const std::optional<ArticleOptions> options = parse_article_options(cli, argc, argv);
  if (!options) return kExitOk;  // --help
  refuse_given(cli, {"warmup", "repeats"}, "the graph is captured twice and launched once, nothing is timed");
  if (options->pool.streams < 2) {
    throw UsageError("--streams " + std::to_string(options->pool.streams) +
                     ": skip-join needs 2 or more streams: with one stream nothing is forked, so there is nothing "
                     "to join");
  }
  const CommonOptions& common = options->common;

  const int device = require_device();
  const Gemm gemm(common.gemm);
  check_size(*options, gemm, article_memory(*options), nullptr);  // two captures and one launch: no estimate
  ArticleWork article(*options, gemm);
  const BatchOps ops = batch_ops(article.buffers, gemm);

  MissingJoin run;
  run.streams = options->pool.streams;
  progress("capturing without step 4 (join)");
  try {
    static_cast<void>(capture_batches(ops, article.pool, common.work.batches, Join::no));
  } catch (const CudaError& error) {
    if (error.code() != cudaErrorStreamCaptureUnjoined) throw;
    run.end_capture = error.code();
  }
  run.still_capturing = any_capturing(article.pool);
  const Graph recaptured = capture_batches(ops, article.pool, common.work.batches);
  run.recaptured = inspect_graph(recaptured);
  run.recaptured_check = launch_and_verify(instantiate(recaptured), article.pool, article.buffers, common.seed);

  StageResult result = pool_result(query_device_info(device), common, options->pool);
  set_verdict(result, run.recaptured_check, {&run.recaptured_check});
  print_title(std::cout, result, "skip-join");
  print_missing_join(std::cout, run);
  nlohmann::json doc = subcommand_json(result, "skip-join");
  doc["skip_join"] = to_json(run);
  static_cast<void>(finish(std::cout, doc, result.verification.passed, common.json_path));
  return kExitFailure;  // without the join there is no graph: that is what this subcommand shows
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // the capture without the join: CUDA's error, exit 1
    {.modes = "qfc", .args = "--batches 12 --streams 3", .exit = 1},
    {.modes = "t", .name = "tiny", .args = "--batches 7 --m 33 --n 17 --k 65 --streams 3", .exit = 1, .expect = "cudaStreamEndCapture returned cudaErrorStreamCaptureUnjoined"},
};

const Subcommand kSkipJoin{"skip-join", "the capture without step 4 (join): what cudaStreamEndCapture says; exit 1",
                           run_skip_join, kRuns};

}  // namespace csg::graphs
