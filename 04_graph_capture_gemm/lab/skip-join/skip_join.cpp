#include "04_graph_capture_gemm/lab/skip-join/skip_join.hpp"

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
skip-join: the capture without step 4 (join): what cudaStreamEndCapture says; exit 1

The capture without step 4 (join): what cudaStreamEndCapture says, what becomes of the streams, the
same capture with the join; then exit 1.
)";

constexpr const char* kRuns = R"(
# the capture without the join: CUDA's error, exit 1
qfc  -     exit=1 --batches 12 --streams 3
t    tiny  exit=1 expect=cudaErrorStreamCaptureUnjoined --batches 7 --m 33 --n 17 --k 65 --streams 3
)";

ArticleOptions read(const StageCli& cli, CommonOptions& common) {
  ArticleOptions options = read_article_options(cli, common);
  if (options.pool.streams < 2) {
    throw UsageError("--streams " + std::to_string(options.pool.streams) +
                     ": skip-join needs 2 or more streams: with one stream nothing is forked, so there is nothing "
                     "to join");
  }
  return options;
}

Needs needs(const ArticleOptions& options) { return article_needs(options); }

Estimate estimate(const ArticleOptions& options, int) { return article_estimate(options, nullptr); }

MissingJoin measure(const ArticleOptions& options) {
  const CommonOptions& common = options.common;
  const Gemm gemm(common.gemm);
  ArticleWork article(options, gemm);
  const BatchOps ops = batch_ops(article.buffers, gemm);
  MissingJoin run;
  run.streams = options.pool.streams;
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
  return run;
}

const Experiment<ArticleOptions, MissingJoin> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = untimed_defaults(), .options = add_article_options, .read = read, .needs = needs, .estimate = estimate,
    .measure = measure, .report = report_skip_join};

}  // namespace

Verdict end_capture_verdict(const MissingJoin& run) {
  const bool refused = run.end_capture != cudaSuccess;
  Verdict verdict{.id = "skip_join.end_capture",
                  .outcome = refused ? "refused" : "accepted",
                  .figures = {{"end_capture_error", refused ? nlohmann::json(cudaGetErrorName(run.end_capture))
                                                            : nlohmann::json(nullptr)},
                              {"still_capturing", run.still_capturing},
                              {"streams", run.streams}}};
  std::string& text = verdict.sentence;
  if (!refused) {
    text = "skip-join: CUDA accepted a capture without the join on this system; expected "
           "cudaErrorStreamCaptureUnjoined.\n";
  } else {
    text = std::string("skip-join: the capture was ended without step 4 (join).\ncudaStreamEndCapture returned ") +
           cudaGetErrorName(run.end_capture) + " (" + cudaGetErrorString(run.end_capture) +
           ").\nIn plain words: the forked streams were never joined back; CUDA refuses to end the capture: the graph "
           "does not 'exit early' as the article says. There is no graph at all, so nothing can be launched.\n"
           "Afterwards: " +
           (run.still_capturing ? "a pool stream is STILL capturing" : "no pool stream is capturing") +
           " (cudaStreamIsCapturing on all " + std::to_string(run.streams) + "); ";
  }
  text += "a new capture with the join on the same streams gave " + plural(run.recaptured.nodes, "node") + " and " +
          plural(run.recaptured.roots, "root") + ", and its launch: " + run.recaptured_check.message() + ".";
  return verdict;
}

void report_skip_join(const ArticleOptions& options, const MissingJoin& run, Report& report) {
  report.result = pool_result(report.result.device, options.common, options.pool);
  set_verdict(report.result, run.recaptured_check, {&run.recaptured_check});
  count_checked_runs(report);
  const bool refused = run.end_capture != cudaSuccess;
  report.sections["skip_join"] = {
      {"end_capture_error", refused ? nlohmann::json(cudaGetErrorName(run.end_capture)) : nlohmann::json(nullptr)},
      {"end_capture_message", refused ? nlohmann::json(cudaGetErrorString(run.end_capture)) : nlohmann::json(nullptr)},
      {"still_capturing", run.still_capturing},
      {"recaptured", to_json(run.recaptured)},
      {"recaptured_verified", run.recaptured_check.passed}};
  report.verdict(end_capture_verdict(run));
  // Without the join there is no graph: that is what this subcommand shows.
  report.fail(refused ? "skip-join exits 1 by design: the capture without the join gave no graph to launch"
                      : "skip-join exits 1: CUDA was expected to refuse the capture without the join");
}

extern const Subcommand kSkipJoin = make_subcommand<kExperiment>();

}  // namespace csg::graphs
