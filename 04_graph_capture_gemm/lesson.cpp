// Stage 04's lesson: its options, the check of its size, and the report of
// what main.cu measured, in the names and verdicts the laboratory's `costs`
// uses, so that one report reads both; it ends as every run ends
// (experiment/report.hpp).
#include "lesson.hpp"

#include <iostream>

#include "04_graph_capture_gemm/lab/report.hpp"
#include "base/text.hpp"
#include "cli/options.hpp"
#include "cli/pool_options.hpp"
#include "conclusions.hpp"
#include "experiment/report.hpp"
#include "graph_inspect.hpp"
#include "measure/estimate.hpp"
#include "report/device_info.hpp"
#include "workload/gemm.hpp"

namespace csg::lesson04 {
namespace {

constexpr const char* kDescription =
    "Stage 03's stream pool captured into a CUDA Graph in the article's six steps (capture, fork, work, join, end "
    "capture and instantiate, launch), replayed against the same work on streams.";

// A run of the whole workload: its bytes and FLOPs, the host's time to issue it, and its check.
Measurement whole_run(const std::string& name, const nlohmann::json& params, const Workload& work,
                      const Samples& samples, const Samples& issued, const VerifyResult& check) {
  Measurement m = graphs::checked(name, params, summarize(samples), graphs::work_of(work), check);
  m.host_issue = summarize(issued);
  return m;
}

}  // namespace

std::optional<Options> parse_options(int argc, char** argv) {
  StageCli cli(kStage, kDescription, lesson_defaults(HostMemory::pinned));
  cli.add_int("streams", "Streams in the pool (the article's pool_size); batch i runs on stream i % streams", 8, 1,
              kMaxPoolStreams);
  const std::optional<CommonOptions> common = cli.parse_or_help(argc, argv, laboratory_help(kStage, laboratory()));
  if (!common) return std::nullopt;
  return Options{lesson_options(*common), common->work, static_cast<int>(cli.get_int("streams"))};
}

void check_size(const Options& options) {
  const Workload& w = options.work;
  check_fits(memory_needs(w, HostMemory::pinned), "try fewer --batches or smaller --m, --n, --k");
  // Per round: a replay and a run on the streams, each at best as long as the
  // longest kind of work and at worst the sum; take the sum.
  const Gemm naive;
  const WorkSeconds pinned = work_seconds(w, measure_rates(naive, w.shape), false);
  check_estimate(2.0 * pinned.serial() * (options.rounds() + 1), options.max_minutes,
                 describe_workload(w, GemmChoice{}));
}

bool report(const Options& options, const Figures& figures, const Graph& graph) {
  const int device = 0;  // require_device chose it
  return report(std::cout, options, query_device_info(device), figures, graphs::inspect_graph(graph));
}

bool report(std::ostream& out, const Options& options, const DeviceInfo& device, const Figures& f,
            const graphs::GraphStructure& structure) {
  const Workload& w = options.work;
  Report report(kStage, "", device);
  StageResult& result = report.result;
  result.config = config_json(common_options(options, w, HostMemory::pinned));
  result.config["streams"] = options.streams;
  result.config["device_buffers"] = "per-batch";
  const nlohmann::json params = {{"batches", w.batches}, {"streams", options.streams}, {"device_buffers", "per-batch"}};
  result.measurements = {
      graphs::cost("capture", params, summarize(f.capture)),
      graphs::cost("instantiate", params, summarize(f.instantiate)),
      whole_run("graph_replay", params, w, f.replay, f.replay_issued, f.replay_check),
      whole_run("stream_pool", params, w, f.streams, f.streams_issued, f.streams_check),
      graphs::cost("issue_graph_cpu", params, summarize(f.replay_issued)),
      graphs::cost("issue_streams_cpu", params, summarize(f.streams_issued)),
  };
  const double capture_ms = result.measurements[0].stats.median_ms;
  const double instantiate_ms = result.measurements[1].stats.median_ms;
  const double replay_ms = result.measurements[2].stats.median_ms;
  const double streams_ms = result.measurements[3].stats.median_ms;
  const double launch_ms = result.measurements[4].stats.median_ms;
  const double issue_ms = result.measurements[5].stats.median_ms;
  const auto even = graphs::break_even_replays(capture_ms, instantiate_ms, issue_ms, launch_ms);
  result.bounds = {
      {"break_even_replays", even ? nlohmann::json(*even) : nlohmann::json(nullptr)},
      {"replay_over_stream_pool", replay_ms / streams_ms},
      {"issue_graph_over_streams", launch_ms / issue_ms},
  };
  // The first failure among the article's run and the two timed ones, else the article's.
  graphs::set_verdict(result, f.six_steps_check, {&f.six_steps_check, &f.replay_check, &f.streams_check});
  report.sections["graph"] = graphs::to_json(structure);

  std::ostream& text = report.out();
  const int operations = 3 * w.batches;
  text << "stage 03's pool captured into a CUDA Graph in the article's six steps, replayed\n"
       << describe_workload(w, GemmChoice{}) << "; " << plural(options.streams, "stream") << "; median of "
       << options.repeats << " rounds after " << options.warmup << " warm-up\n\n"
       << "the graph (steps 1 to 5): " << structure.nodes << " nodes (" << structure.kernel_nodes << " kernels, "
       << structure.memcpy_nodes << " copies, " << structure.event_nodes << " event nodes: the fork and join make "
       << "none), " << structure.edges << " edges\n"
       << "  capture " << figure(capture_ms, 3) << " ms, instantiate " << figure(instantiate_ms, 3)
       << " ms of host time; the six steps once: " << f.six_steps_check.message() << "\n\n";
  struct Row {
    const char* run;
    const Measurement* m;
    int calls;
    const VerifyResult* check;
  };
  const std::vector<Row> rows = {{"graph replay (step 6)", &result.measurements[2], 1, &f.replay_check},
                                 {"stream pool (stage 03)", &result.measurements[3],
                                  operations + 3 * options.streams - 2, &f.streams_check}};
  report.table(table_of<Row>({{"run", [](const Row& r) { return std::string(r.run); }},
                              {"GPU ms", [](const Row& r) { return fixed(r.m->stats.median_ms, 2); }},
                              {"host ms to issue", [](const Row& r) { return figure(r.m->host_issue->median_ms, 3); }},
                              {"calls", [](const Row& r) { return std::to_string(r.calls); }},
                              {"verified", [](const Row& r) { return std::string(r.check->passed ? "yes" : "NO"); }}},
                             rows));
  text << '\n';
  report.verdict(graphs::replay_verdict(replay_ms, streams_ms, issue_ms, operations));
  report.verdict(graphs::launch_cost_verdict(launch_ms, issue_ms));
  report.verdict(graphs::break_even_verdict(capture_ms, instantiate_ms, issue_ms, launch_ms));
  text << "beyond the article: " << kStage
       << " --help lists the laboratory (each cost apart, the bounds, updates,\n"
          "  changing shapes, tiny work, launch chains and anatomy, the regime map, the missing join, a\n"
          "  timeline; after the article: device launch, conditional nodes, PDL, memory nodes, startup)\n";
  std::string runs = "in each of the 3 runs (the six steps once, the replay, the streams)";
  if (result.verification.passed && result.verification.digest) {
    runs += "; output digest " + digest_text(*result.verification.digest);
  }
  report.checked_runs(runs);
  return report.finish(out, options.json_path) == kExitOk;
}

}  // namespace csg::lesson04
