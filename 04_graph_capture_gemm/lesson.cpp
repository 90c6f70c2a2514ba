// Stage 04's lesson: its options, the check of its size, and the report of
// what main.cu measured, in the names the laboratory's `costs` uses, so that
// one report reads both.
#include "lesson.hpp"

#include <iostream>
#include <utility>

#include "cli/options.hpp"
#include "cli/pool_options.hpp"
#include "conclusions.hpp"
#include "graph_inspect.hpp"
#include "measure/estimate.hpp"
#include "report/conclusions.hpp"
#include "report/device_info.hpp"
#include "report/result.hpp"
#include "report/table.hpp"
#include "workload/gemm.hpp"

namespace csg::lesson04 {
namespace {

constexpr const char* kDescription =
    "Stage 03's stream pool captured into a CUDA Graph in the article's six steps (capture, fork, work, join, end "
    "capture and instantiate, launch), replayed against the same work on streams.";

// A host-timed figure: nothing to verify.
Measurement cost(const std::string& name, const nlohmann::json& params, const Samples& samples) {
  Measurement m{name, params, summarize(samples), Work{}, false};
  m.verifiable = false;
  return m;
}

// A run of the whole workload: its bytes and FLOPs, the host's time to issue it, and its check.
Measurement whole_run(const std::string& name, const nlohmann::json& params, const Workload& work,
                      const Samples& samples, const Samples& issued, const VerifyResult& check) {
  Measurement m{name, params, summarize(samples),
                Work{double(work.batches) * double(work.a_bytes() + work.c_bytes()),
                     double(work.batches) * work.flops_per_batch()},
                check.passed};
  m.host_issue = summarize(issued);
  m.digest = check.digest;
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

bool report(const Options& options, const Figures& f, const Graph& graph) {
  const Workload& w = options.work;
  const graphs::GraphStructure structure = graphs::inspect_graph(graph);
  StageResult result;
  result.stage = kStage;
  result.device = query_device_info(0);  // require_device chose it
  result.config = config_json(common_options(options, w, HostMemory::pinned));
  result.config["streams"] = options.streams;
  result.config["device_buffers"] = "per-batch";
  const nlohmann::json params = {{"batches", w.batches}, {"streams", options.streams}, {"device_buffers", "per-batch"}};
  result.measurements = {
      cost("capture", params, f.capture),
      cost("instantiate", params, f.instantiate),
      whole_run("graph_replay", params, w, f.replay, f.replay_issued, f.replay_check),
      whole_run("stream_pool", params, w, f.streams, f.streams_issued, f.streams_check),
      cost("issue_graph_cpu", params, f.replay_issued),
      cost("issue_streams_cpu", params, f.streams_issued),
  };
  const Measurement& capture = result.measurements[0];
  const Measurement& instantiate = result.measurements[1];
  const Measurement& replay = result.measurements[2];
  const Measurement& streams = result.measurements[3];
  const double launch_ms = replay.host_issue->median_ms;
  const double issue_ms = streams.host_issue->median_ms;
  const auto even =
      graphs::break_even_replays(capture.stats.median_ms, instantiate.stats.median_ms, issue_ms, launch_ms);
  result.bounds = {
      {"break_even_replays", even ? nlohmann::json(*even) : nlohmann::json(nullptr)},
      {"replay_over_stream_pool", replay.stats.median_ms / streams.stats.median_ms},
      {"issue_graph_over_streams", launch_ms / issue_ms},
  };
  // The first failure among the article's run and the two timed ones, else the article's.
  result.verification = f.six_steps_check;
  for (const VerifyResult* check : {&f.replay_check, &f.streams_check}) {
    if (result.verification.passed && !check->passed) result.verification = *check;
  }
  result.variants_verified = int(f.six_steps_check.passed) + int(f.replay_check.passed) + int(f.streams_check.passed);

  std::ostream& out = std::cout;
  const int operations = 3 * w.batches;
  out << kStage << ": stage 03's pool captured into a CUDA Graph in the article's six steps, replayed\n"
      << result.device.summary() << '\n'
      << describe_workload(w, GemmChoice{}) << "; " << options.streams
      << (options.streams == 1 ? " stream" : " streams") << "; median of " << options.repeats << " rounds after "
      << options.warmup << " warm-up\n\n"
      << "the graph (steps 1 to 5): " << structure.nodes << " nodes (" << structure.kernel_nodes << " kernels, "
      << structure.memcpy_nodes << " copies, " << structure.event_nodes << " event nodes: the fork and join make "
      << "none), " << structure.edges << " edges\n"
      << "  capture " << figure(capture.stats.median_ms, 3) << " ms, instantiate "
      << figure(instantiate.stats.median_ms, 3) << " ms of host time; the six steps once: "
      << f.six_steps_check.message() << "\n\n";
  Table table({"run", "GPU ms", "host ms to issue", "calls", "verified"});
  table.add_row({"graph replay (step 6)", fixed(replay.stats.median_ms, 2), figure(launch_ms, 3), "1",
                 f.replay_check.passed ? "yes" : "NO"});
  table.add_row({"stream pool (stage 03)", fixed(streams.stats.median_ms, 2), figure(issue_ms, 3),
                 std::to_string(operations + 3 * options.streams - 2), f.streams_check.passed ? "yes" : "NO"});
  table.print(out);
  out << '\n'
      << graphs::replay_text(replay.stats.median_ms, streams.stats.median_ms, issue_ms, operations) << '\n'
      << graphs::launch_cost_text(launch_ms, issue_ms) << '\n'
      << graphs::break_even_text(capture.stats.median_ms, instantiate.stats.median_ms, issue_ms, launch_ms) << '\n';
  nlohmann::json doc = to_json(result);
  doc["graph"] = graphs::to_json(structure);
  return finish_lesson(out, result, "the 3 runs (the six steps once, the replay, the streams)",
                       "--help lists the laboratory (each cost apart, the bounds, updates,\n"
                       "  changing shapes, tiny work, launch chains and anatomy, the regime map, the missing join, a\n"
                       "  timeline; after the article: device launch, conditional nodes, PDL, memory nodes, startup)",
                       std::move(doc), options.json_path);
}

}  // namespace csg::lesson04
