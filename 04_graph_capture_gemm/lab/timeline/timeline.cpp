// 04_graph_capture_gemm timeline: the graph's replay timed in rounds, then
// one more replay recorded with CUPTI and drawn, each node on the row of the
// pool stream its batch was captured on (graph_inspect.hpp labels the nodes
// through the exec's clones), then the replay re-timed with the recording
// over: recording must not change what the timed rounds measured.
#include <iostream>

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "base/progress.hpp"
#include "cli/pool_options.hpp"
#include "04_graph_capture_gemm/graph_inspect.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/laboratory.hpp"
#include "measure/estimate.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/device_info.hpp"
#include "stage.hpp"
#include "timeline/stage_timeline.hpp"

namespace csg::graphs {

// The first lines of its --help.
constexpr const char* kHelp =
    "The graph's replay timed, then one more replay recorded with CUPTI and drawn as a timeline (a row per pool "
    "stream: H copy in, K kernel, D copy out), then re-timed after the recording.";

namespace {

// The rounds before the recording and again after it, a replay each.
double timeline_seconds(const CommonOptions& options, const Rates& rates) {
  return 2.0 * (options.plan.warmup + options.plan.repeats) * pipeline_seconds(options, rates);
}

}  // namespace

int run_timeline(int argc, char** argv) {
  StageCli cli(subcommand_program(kStage, "timeline"), kHelp, pinned_defaults());
  add_timeline_options(cli);
  const std::optional<ArticleOptions> options = parse_article_options(cli, argc, argv);
  if (!options) return kExitOk;  // --help
  const CommonOptions& common = options->common;
  const Workload& work = common.work;

  const int device = require_device();
  const Gemm gemm(common.gemm);
  check_size(*options, gemm, article_memory(*options), timeline_seconds);
  ArticleWork article(*options, gemm);
  const StreamPool& pool = article.pool;
  BatchBuffers& buffers = article.buffers;
  const Graph graph = capture_batches(batch_ops(buffers, gemm), pool, work.batches);
  const GraphExec exec = instantiate(graph);
  // The six steps once before the timing: the first launch also uploads the exec.
  const VerifyResult six_steps_check = launch_and_verify(exec, pool, buffers, common.seed);

  progress("the graph's replay, timed");
  EventTimer timer;
  VerifyResult check;
  auto poison = [&] { buffers.poison_outputs(pool[0]); };
  auto verify = [&] { return buffers.verify(common.seed); };
  auto replay = [&](const GraphExec& e) {
    timer.start(pool[0]);
    launch(e, pool);
    return timer.stop();
  };
  const TimedVariant timed{.prepare = poison,
                           .run = [&] { return replay(exec); },
                           .after_last = [&] { check = verify(); }};
  const Summary graph_replay = measure_interleaved(common.plan, {timed}).front();

  // One more replay, untimed, with CUPTI timestamping every node, of a second
  // exec of the same graph whose nodes it can name by pool stream and batch;
  // then the timed exec re-timed with the recording over.
  progress("recording one more graph replay for the timeline");
  const GraphTimelineRun traced = prepare_graph_timeline(graph, buffers, pool);
  const StageTimeline timeline = record_stage_timeline(
      common.plan, {.plan = traced.plan, .notes = traced.notes, .poison = poison, .verify = verify,
                      .timed_run = [&] { return replay(exec); },
                      .recorded_run = [&] { static_cast<void>(replay(traced.exec)); },  // its time is not used
                      .timed = graph_replay});

  StageResult result = pool_result(query_device_info(device), common, options->pool);
  result.measurements = {checked("graph_replay", pool_params(options->pool, work.batches), graph_replay,
                                 work_of(work), check)};
  set_verdict(result, check, {&six_steps_check, &check});
  print_title(std::cout, result, "timeline");
  std::cout << pool_run_text(common, options->pool) << "\n\n";
  print_measurements(std::cout, result.measurements);
  print_verification(std::cout, result);
  std::cout << '\n';
  return finish_stage(std::cout, kStage, subcommand_json(result, "timeline"), result.verification.passed, timeline,
                      read_timeline_options(cli), common.json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // one replay on a timeline: timeline_04_graph_capture_gemm-timeline.png
    {.modes = "qfc", .args = "--trace {trace}"},
    {.modes = "t", .name = "tiny", .args = "--batches 10 --m 32 --n 16 --k 48 --streams 3 --warmup 0 --repeats 1 --timeline-batches 6"},
};

const Subcommand kTimeline{"timeline", "one replay recorded with CUPTI, each node on its pool stream; --trace FILE",
                           run_timeline, kRuns};

}  // namespace csg::graphs
