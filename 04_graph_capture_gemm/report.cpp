#include "report.hpp"

#include "launch_report.hpp"

#include <algorithm>
#include <cmath>

#include "conclusions.hpp"
#include "report/table.hpp"

namespace csg::graphs {
namespace {


Measurement cost(const std::string& name, const nlohmann::json& params, const Summary& stats) {
  Measurement m{name, params, stats, Work{}, false};
  m.verifiable = false;
  return m;
}

Measurement checked(const std::string& name, const nlohmann::json& params, const Summary& stats, Work work,
                    bool passed, std::optional<std::uint64_t> digest = std::nullopt) {
  Measurement m{name, params, stats, work, passed};
  m.digest = digest;
  return m;
}

// A variant checked by verifying every batch: its verdict and its outputs' digest.
Measurement checked(const std::string& name, const nlohmann::json& params, const Summary& stats, Work work,
                    const VerifyResult& check) {
  return checked(name, params, stats, work, check.passed, check.digest);
}

const Measurement& find(const StageResult& result, const std::string& name) {
  for (const auto& m : result.measurements) {
    if (m.name == name) return m;
  }
  throw std::logic_error("no measurement named " + name);
}

std::vector<Measurement> pick(const StageResult& result, std::initializer_list<const char*> names) {
  std::vector<Measurement> out;
  for (const char* name : names) out.push_back(find(result, name));
  return out;
}

// A GPU variant with its bound, the host's issue time read in its own runs,
// and the noise the bound is allowed (its own spread and its limiting path's).
Measurement with_bound(Measurement m, const PipelineBound& bound, const std::optional<Summary>& issue,
                       const std::vector<Summary>& alone, const StageSums& sums) {
  m.bound = bound;
  m.host_issue = issue;
  // The stream order is made of the three one-stream sums: the noisiest of them.
  const Summary* path = bound.limited_by == BoundPath::kernels     ? &alone.at(0)
                        : bound.limited_by == BoundPath::h2d       ? &alone.at(1)
                        : bound.limited_by == BoundPath::d2h       ? &alone.at(2)
                        : bound.limited_by == BoundPath::both_ways  ? &alone.at(3)
                        : bound.limited_by == BoundPath::stream_order ? &sums.noisiest()
                        : issue                              ? &*issue
                                                             : nullptr;
  m.bound_tolerance = bound_tolerance(m.stats.median_ms, m.stats.min_ms, path ? path->median_ms : 0.0,
                                      path ? path->min_ms : 0.0);
  return m;
}

}  // namespace

InterleavedIssue interleaved_issue(const GraphStageRun& run) {
  return {.graph_launch_cpu_ms = run.replay.issue_graph_cpu.median_ms,
          .streams_issue_cpu_ms = run.replay.issue_streams_cpu.median_ms,
          .empty_chain_end_to_end_ms = run.tiny.empty_streams.median_ms,
          .empty_chain_ops = run.tiny_config.count};
}

StageResult graph_stage_result(const std::string& stage, const DeviceInfo& device, const GraphStageRun& run) {
  const Workload& work = run.options.work;
  const double batches = double(work.batches);
  const Work full{batches * double(work.a_bytes() + work.c_bytes()), batches * work.flops_per_batch()};
  const nlohmann::json pool = {{"streams", run.streams}, {"batches", work.batches},
                               {"device_buffers", run.device_buffers}};
  const Workload tiny_work = tiny_gemm_workload(run.tiny_config);
  const Work tiny_flops{0.0, double(tiny_work.batches) * tiny_work.flops_per_batch()};
  const nlohmann::json empty_params = {{"kernels", run.tiny_config.count}};
  const nlohmann::json gemm_params = {{"gemms", run.tiny_config.count}, {"size", run.tiny_config.size},
                                      {"streams", run.streams}};
  const LifecycleCosts& life = run.lifecycle;
  const ReplayCosts& replay = run.replay;
  const UpdateCosts& upd = run.updates;
  const TinyCosts& tiny = run.tiny;

  StageResult result;
  result.stage = stage;
  result.device = device;
  result.config = config_json(run.options);
  result.config["streams"] = run.streams;
  result.config["device_buffers"] = run.device_buffers;
  result.config["tiny_count"] = run.tiny_config.count;
  result.config["tiny_size"] = run.tiny_config.size;
  result.measurements = {
      cost("capture", pool, life.capture),
      cost("instantiate", pool, life.instantiate),
      cost("upload", pool, life.upload),
      checked("first_launch", pool, life.first_launch, full, life.first_launch_check),
      checked("relaunch", pool, life.relaunch, full, life.relaunch_check),
      checked("launch_after_upload", pool, life.launch_after_upload, full, life.uploaded_check),
      with_bound(checked("graph_replay", pool, replay.graph_replay, full, replay.graph_check),
                 replay_bound(replay, work.batches), replay.replay_issue, replay.graph_alone,
                 replay.sums),
      with_bound(checked("stream_pool", pool, replay.stream_pool, full, replay.streams_check),
                 stream_pool_bound(replay, work.batches, run.streams), replay.pool_issue, replay.stream_alone,
                 replay.sums),
      cost("issue_streams_cpu", pool, replay.issue_streams_cpu),
      cost("issue_graph_cpu", pool, replay.issue_graph_cpu),
      checked("update_exec", pool, upd.update_exec, Work{}, upd.updated_check.passed),  // other data: no digest to compare
      cost("update_call", pool, upd.update_call),
      checked("recapture_instantiate", pool, upd.recapture_instantiate, Work{}, upd.reinstantiated_check.passed),
      checked("tiny_empty_streams", empty_params, tiny.empty_streams, Work{}, tiny.empty_checked),
      checked("tiny_empty_graph", empty_params, tiny.empty_graph, Work{}, tiny.empty_checked),
      checked("tiny_gemm_streams", gemm_params, tiny.gemm_streams, tiny_flops, tiny.gemm_streams_check),
      checked("tiny_gemm_graph", gemm_params, tiny.gemm_graph, tiny_flops, tiny.gemm_graph_check),
      checked("tiny_gemm_graph_launch_cpu", gemm_params, tiny.gemm_graph_launch_cpu, Work{},
              tiny.gemm_launch_check),
  };
  // What the two bounds are made of: the one-stream sums, and each resource alone.
  const nlohmann::json one_stream = {{"streams", 1}};
  for (const auto& [name, stats] :
       {std::pair{"h2d_sum", &replay.sums.h2d}, std::pair{"kernel_sum", &replay.sums.kernel},
        std::pair{"d2h_sum", &replay.sums.d2h}, std::pair{"h2d_first_op", &replay.sums.h2d_first},
        std::pair{"kernel_first_op", &replay.sums.kernel_first}, std::pair{"d2h_first_op", &replay.sums.d2h_first}}) {
    if (stats->samples > 0) result.measurements.push_back(cost(name, one_stream, *stats));
  }
  static constexpr const char* kResourceNames[] = {"kernels", "h2d", "d2h", "both_ways"};
  for (const auto& [as, alone] : {std::pair{"streams", &replay.stream_alone}, std::pair{"graph", &replay.graph_alone}}) {
    for (std::size_t r = 0; r < alone->size(); ++r) {
      result.measurements.push_back(cost(
          "resource_alone", {{"resource", kResourceNames[r]}, {"streams", run.streams}, {"as", as}}, (*alone)[r]));
    }
  }

  for (Measurement& m : changing_shapes_measurements(run.shapes)) result.measurements.push_back(std::move(m));

  const auto even = break_even_replays(life.capture.median_ms, life.instantiate.median_ms,
                                       replay.issue_streams_cpu.median_ms, replay.issue_graph_cpu.median_ms);
  const PipelineBound graph_bound = replay_bound(replay, work.batches);
  const PipelineBound streams_bound = stream_pool_bound(replay, work.batches, run.streams);
  result.bounds = {
      {"break_even_replays", even ? nlohmann::json(*even) : nlohmann::json(nullptr)},
      {"graph_replay_bound_ms", graph_bound.bound_ms},
      {"graph_replay_limited_by", to_string(graph_bound.limited_by)},
      {"graph_replay_percent_of_bound", percent_of_bound(graph_bound, replay.graph_replay.median_ms)},
      {"stream_pool_bound_ms", streams_bound.bound_ms},
      {"stream_pool_limited_by", to_string(streams_bound.limited_by)},
      {"stream_pool_percent_of_bound", percent_of_bound(streams_bound, replay.stream_pool.median_ms)},
      {"stream_pool_host_issue_ms",
       replay.pool_issue ? nlohmann::json(replay.pool_issue->median_ms) : nlohmann::json(nullptr)},
      {"replay_over_stream_pool", replay.graph_replay.median_ms / replay.stream_pool.median_ms},
      {"issue_graph_over_streams", replay.issue_graph_cpu.median_ms / replay.issue_streams_cpu.median_ms},
      {"tiny_empty_stream_us_per_launch", per_op_us(tiny.empty_streams, run.tiny_config.count)},
      {"tiny_empty_graph_us_per_node", per_op_us(tiny.empty_graph, run.tiny_config.count)},
      {"tiny_gemm_stream_us_per_gemm", per_op_us(tiny.gemm_streams, run.tiny_config.count)},
      {"tiny_gemm_graph_us_per_gemm", per_op_us(tiny.gemm_graph, run.tiny_config.count)},
      {"tiny_gemm_graph_launch_cpu_us", 1000.0 * tiny.gemm_graph_launch_cpu.median_ms},
  };

  // The overall verdict: the first failed check, else the article's run (every batch).
  std::vector<const VerifyResult*> checks = {
      &run.article_check,        &life.first_launch_check, &life.relaunch_check,     &life.uploaded_check,
      &replay.graph_check,       &replay.streams_check,    &upd.updated_check,        &upd.reinstantiated_check,
      &tiny.gemm_streams_check,  &tiny.gemm_graph_check, &tiny.gemm_launch_check};
  for (const VerifyResult* check : changing_shapes_checks(run.shapes)) checks.push_back(check);
  result.verification = run.article_check;
  for (const VerifyResult* check : checks) {
    if (check->passed) {
      ++result.variants_verified;
    } else if (result.verification.passed) {
      result.verification = *check;
    }
  }
  if (run.launch) {
    for (const VerifyResult* check : {&run.launch->steady.graph_check, &run.launch->steady.streams_check}) {
      if (check->passed) ++result.variants_verified;
    }
  }
  auto count_failure = [&result](bool passed, const std::string& what) {
    if (passed || !result.verification.passed) return;
    result.verification.passed = false;
    result.verification.first_failure.reset();
    result.verification.method = what;
  };
  count_failure(tiny.empty_checked, "empty-kernel counter: " + tiny.empty_failure);
  if (run.launch) count_failure(run.launch->checked, "launch-cost study: " + run.launch->failure);
  return result;
}

nlohmann::json graph_stage_json(const StageResult& result, const GraphStageRun& run) {
  nlohmann::json doc = to_json(result);
  doc["graph"] = to_json(run.structure);
  if (!run.dot_path.empty()) doc["graph"]["dot_file"] = run.dot_path;
  nlohmann::json updates = nlohmann::json::array();
  updates.push_back({{"change", "new input/output pointers, same batch count"},
                     {"result", run.updates.new_pointers.describe()},
                     {"allowed", run.updates.new_pointers.applied()}});
  if (run.updates.smaller_batches) {
    updates.push_back({{"change", "batches " + std::to_string(run.options.work.batches) + " -> " +
                                      std::to_string(*run.updates.smaller_batches)},
                       {"result", run.updates.topology_change.describe()},
                       {"allowed", run.updates.topology_change.applied()}});
  }
  doc["updates"] = updates;
  doc["tiny"] = {{"count", run.tiny_config.count},
                 {"size", run.tiny_config.size},
                 {"empty_graph_nodes", run.tiny.empty_graph_nodes},
                 {"gemm_graph_nodes", run.tiny.gemm_graph_nodes}};
  if (!run.tiny.empty_checked) doc["tiny"]["empty_failure"] = run.tiny.empty_failure;
  doc["changing_shapes"] = changing_shapes_json(run.shapes);
  doc["launch_costs"] = run.launch ? launch_costs_json(*run.launch, interleaved_issue(run)) : nlohmann::json(nullptr);
  return doc;
}

void print_graph_stage(std::ostream& out, const StageResult& result, const GraphStageRun& run) {
  const Workload& work = run.options.work;
  const GraphStructure& g = run.structure;
  const LifecycleCosts& life = run.lifecycle;
  const ReplayCosts& replay = run.replay;
  out << result.stage << " on " << result.device.summary() << '\n'
      << describe_workload(work, run.options.gemm) << ", " << to_string(run.options.host_memory) << " host memory, a pool of "
      << run.streams << " streams, device buffers: " << run.device_buffers << "; median of "
      << run.options.plan.repeats << " runs after " << run.options.plan.warmup << " warm-up\n\n";

  out << "the captured graph: " << g.nodes << " nodes (" << g.kernel_nodes << " kernel, " << g.memcpy_nodes
      << " memcpy, " << g.event_nodes << " event, " << g.empty_nodes + g.other_nodes << " other), " << g.edges
      << " edges, " << g.roots << " roots, " << g.leaves << " leaves";
  if (g.chains > 0) out << ": " << g.chains << " independent chains, one per stream used";
  out << ".\nthe fork and join events added no nodes: they only told CUDA which work depends on which.\n";
  if (!run.dot_path.empty()) out << "DOT file written to " << run.dot_path << " (render: dot -Tsvg)\n";

  out << "\none-time costs of the graph (host time; launches include waiting for the work):\n";
  print_measurements(out, pick(result, {"capture", "instantiate", "upload", "first_launch", "relaunch",
                                        "launch_after_upload"}));

  out << "\nGPU time of the same work, measured in interleaved rounds in this process:\n";
  print_measurements(out, pick(result, {"graph_replay", "stream_pool"}));
  const double pool_issue_ms = replay.pool_issue ? replay.pool_issue->median_ms : 0.0;
  out << replay_text(replay.graph_replay.median_ms, replay.stream_pool.median_ms, pool_issue_ms, 3 * work.batches)
      << '\n';
  for (const char* name : {"graph_replay", "stream_pool"}) {
    const Measurement& m = find(result, name);
    const double percent = percent_of_bound(*m.bound, m.stats.median_ms);
    const std::string why =
        m.bound->limited_by == BoundPath::stream_order
            ? "the busiest stream's " + std::to_string(busiest_stream_batches(work.batches, run.streams)) +
                  " batches one after another, each H2D, kernel, D2H"
            : "each resource's work alone, issued as this variant issues it";
    out << name << ": bound " << fixed(m.bound->bound_ms, 2) << " ms, limited by " << to_string(m.bound->limited_by) << " ("
        << why << "), " << fixed(percent, 1) << "% of it"
        << (percent > 100.0 * (1.0 + m.bound_tolerance) ? ": FASTER THAN ITS BOUND, the bound is wrong" : "") << '\n';
  }
  if (const Measurement& pool_m = find(result, "stream_pool"); pool_m.bound->limited_by == BoundPath::stream_order) {
    out << "  the replay's bound has no stream order: that path is made of ops launched one by one from the host, and\n"
        << "  a graph starts its nodes with less time between them. So it reads low here, though the replay runs the\n"
        << "  same chains as the streams: compare it with the streams' stream order, "
        << fixed(pool_m.bound->stream_order_ms, 2) << " ms.\n";
  }

  out << "\nCPU time to issue the work (" << 3 * work.batches << " operations + fork/join on the streams, "
      << "or one cudaGraphLaunch):\n";
  print_measurements(out, pick(result, {"issue_streams_cpu", "issue_graph_cpu"}));
  out << launch_cost_text(replay.issue_graph_cpu.median_ms, replay.issue_streams_cpu.median_ms) << '\n'
      << copy_node_text(replay.issue_graph_cpu.median_ms, run.tiny.gemm_graph_launch_cpu.median_ms,
                        run.tiny_config.count, 2 * work.batches)
      << '\n'
      << break_even_text(life.capture.median_ms, life.instantiate.median_ms, replay.issue_streams_cpu.median_ms,
                         replay.issue_graph_cpu.median_ms)
      << '\n';

  const UpdateCosts& upd = run.updates;
  out << "\nwhen the work changes (host time; each needs a new capture first):\n";
  print_measurements(out, pick(result, {"update_exec", "update_call", "recapture_instantiate"}));
  out << "new input/output pointers, same batch count: cudaGraphExecUpdate -> " << upd.new_pointers.describe()
      << (upd.new_pointers.applied() ? " (allowed: same topology)" : "") << '\n';
  if (upd.smaller_batches) {
    out << "batch count " << work.batches << " -> " << *upd.smaller_batches << ": cudaGraphExecUpdate -> "
        << upd.topology_change.describe()
        << (upd.topology_change.applied() ? "" : " (refused: the topology changed; only a new instantiate helps)")
        << '\n';
  }
  out << update_text(upd.update_exec.median_ms, upd.recapture_instantiate.median_ms) << '\n';
  out << "the updated exec " << (upd.updated_check.passed ? "computed" : "did NOT compute")
      << " the new buffers' result (" << upd.updated_check.message() << ")\n";

  const TinyCosts& tiny = run.tiny;
  const int count = run.tiny_config.count;
  out << "\nwhere graphs win: " << count << " tiny operations (GPU time, interleaved):\n";
  print_measurements(out, pick(result, {"tiny_empty_streams", "tiny_empty_graph", "tiny_gemm_streams",
                                        "tiny_gemm_graph", "tiny_gemm_graph_launch_cpu"}));
  out << per_op_text("empty kernels", per_op_us(tiny.empty_streams, count), per_op_us(tiny.empty_graph, count))
      << '\n'
      << per_op_text(std::to_string(run.tiny_config.size) + "^3 GEMMs", per_op_us(tiny.gemm_streams, count),
                     per_op_us(tiny.gemm_graph, count))
      << '\n';
  if (!tiny.empty_checked) out << "empty-kernel counter WRONG: " << tiny.empty_failure << '\n';
  print_changing_shapes(out, run.shapes);
  if (run.launch) print_launch_costs(out, *run.launch, interleaved_issue(run));

  out << '\n' << result.verification.message() << " (" << result.variants_verified
      << " runs checked, each after poisoning the outputs)\n";
}

void print_missing_join(std::ostream& out, const CudaError& error, int streams, bool still_capturing,
                        const GraphStructure& recaptured) {
  out << "--skip-join: the capture was ended without step 4 (join).\n"
      << "cudaStreamEndCapture returned " << cudaGetErrorName(error.code()) << " (" << cudaGetErrorString(error.code())
      << ").\n"
      << "In plain words: the forked streams were never joined back; CUDA refuses to end the capture: the graph "
         "does not 'exit early' as the article says. There is no graph at all, so nothing can be launched.\n"
      << "Afterwards: " << (still_capturing ? "a pool stream is STILL capturing" : "no pool stream is capturing")
      << " (cudaStreamIsCapturing on all " << streams << "); a new capture with the join on the same streams "
      << "gave " << recaptured.nodes << " nodes and " << recaptured.roots << " roots.\n";
}

}  // namespace csg::graphs
