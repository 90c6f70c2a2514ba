#include "report.hpp"

#include <algorithm>
#include <cmath>

#include "report/table.hpp"

namespace csg::graphs {
namespace {

constexpr double kMicrosPerMilli = 1000.0;

Measurement cost(const std::string& name, const nlohmann::json& params, const Summary& stats) {
  Measurement m{name, params, stats, Work{}, false};
  m.verifiable = false;
  return m;
}

Measurement checked(const std::string& name, const nlohmann::json& params, const Summary& stats, Work work,
                    bool passed) {
  return Measurement{name, params, stats, work, passed};
}

double per_op_us(const Summary& s, int count) { return s.median_ms * kMicrosPerMilli / count; }

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

std::string ratio(double a, double b) { return b > 0.0 ? fixed(a / b, 2) : "-"; }

}  // namespace

std::optional<double> break_even_replays(double capture_ms, double instantiate_ms, double issue_streams_ms,
                                         double issue_graph_ms) {
  const double saved_per_launch_ms = issue_streams_ms - issue_graph_ms;
  if (!(saved_per_launch_ms > 0.0)) return std::nullopt;
  return (capture_ms + instantiate_ms) / saved_per_launch_ms;
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
      checked("first_launch", pool, life.first_launch, full, life.first_launch_check.passed),
      checked("relaunch", pool, life.relaunch, full, life.relaunch_check.passed),
      checked("launch_after_upload", pool, life.launch_after_upload, full, life.uploaded_check.passed),
      checked("graph_replay", pool, replay.graph_replay, full, replay.graph_check.passed),
      checked("stream_pool", pool, replay.stream_pool, full, replay.streams_check.passed),
      cost("issue_streams_cpu", pool, replay.issue_streams_cpu),
      cost("issue_graph_cpu", pool, replay.issue_graph_cpu),
      checked("update_exec", pool, upd.update_exec, Work{}, upd.updated_check.passed),
      cost("update_call", pool, upd.update_call),
      checked("recapture_instantiate", pool, upd.recapture_instantiate, Work{}, upd.reinstantiated_check.passed),
      checked("tiny_empty_streams", empty_params, tiny.empty_streams, Work{}, tiny.empty_checked),
      checked("tiny_empty_graph", empty_params, tiny.empty_graph, Work{}, tiny.empty_checked),
      checked("tiny_gemm_streams", gemm_params, tiny.gemm_streams, tiny_flops, tiny.gemm_streams_check.passed),
      checked("tiny_gemm_graph", gemm_params, tiny.gemm_graph, tiny_flops, tiny.gemm_graph_check.passed),
      checked("tiny_gemm_graph_launch_cpu", gemm_params, tiny.gemm_graph_launch_cpu, Work{},
              tiny.gemm_launch_check.passed),
  };

  const auto even = break_even_replays(life.capture.median_ms, life.instantiate.median_ms,
                                       replay.issue_streams_cpu.median_ms, replay.issue_graph_cpu.median_ms);
  result.bounds = {
      {"break_even_replays", even ? nlohmann::json(*even) : nlohmann::json(nullptr)},
      {"replay_over_stream_pool", replay.graph_replay.median_ms / replay.stream_pool.median_ms},
      {"issue_graph_over_streams", replay.issue_graph_cpu.median_ms / replay.issue_streams_cpu.median_ms},
      {"tiny_empty_stream_us_per_launch", per_op_us(tiny.empty_streams, run.tiny_config.count)},
      {"tiny_empty_graph_us_per_node", per_op_us(tiny.empty_graph, run.tiny_config.count)},
      {"tiny_gemm_stream_us_per_gemm", per_op_us(tiny.gemm_streams, run.tiny_config.count)},
      {"tiny_gemm_graph_us_per_gemm", per_op_us(tiny.gemm_graph, run.tiny_config.count)},
      {"tiny_gemm_graph_launch_cpu_us", 1000.0 * tiny.gemm_graph_launch_cpu.median_ms},
  };

  // The overall verdict: the first failed check, else the article's run (every batch).
  const std::vector<const VerifyResult*> checks = {
      &run.article_check,        &life.first_launch_check, &life.relaunch_check,     &life.uploaded_check,
      &replay.graph_check,       &replay.streams_check,    &upd.updated_check,        &upd.reinstantiated_check,
      &tiny.gemm_streams_check,  &tiny.gemm_graph_check, &tiny.gemm_launch_check};
  result.verification = run.article_check;
  for (const VerifyResult* check : checks) {
    if (check->passed) {
      ++result.variants_verified;
    } else if (result.verification.passed) {
      result.verification = *check;
    }
  }
  if (!tiny.empty_checked && result.verification.passed) {
    result.verification.passed = false;
    result.verification.first_failure.reset();
    result.verification.method = "empty-kernel counter: " + tiny.empty_failure;
  }
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
  out << "graph replay / stream pool = " << ratio(replay.graph_replay.median_ms, replay.stream_pool.median_ms)
      << ": the GPU does the same work either way; a graph does not make copies or kernels faster.\n";

  out << "\nCPU time to issue the work (" << 3 * work.batches << " operations + fork/join on the streams, "
      << "or one cudaGraphLaunch):\n";
  print_measurements(out, pick(result, {"issue_streams_cpu", "issue_graph_cpu"}));
  out << "graph launch / stream issue = "
      << ratio(replay.issue_graph_cpu.median_ms, replay.issue_streams_cpu.median_ms) << '\n';
  // Where a launch's host time goes: the tiny-GEMM graph has only kernel
  // nodes; this graph adds 2 copy nodes of host memory per batch.
  const double kernels_only_ms = run.tiny.gemm_graph_launch_cpu.median_ms;
  const int copy_nodes = 2 * work.batches;
  out << "for comparison, one cudaGraphLaunch of a graph of " << run.tiny_config.count
      << " kernel nodes and no copies (the tiny GEMMs below) took " << fixed(1000.0 * kernels_only_ms, 1)
      << " us: the launch pays for the " << copy_nodes << " copy nodes of host memory, about "
      << fixed(1000.0 * (replay.issue_graph_cpu.median_ms - kernels_only_ms) / copy_nodes, 2)
      << " us each, not for the kernels.\n";
  const auto even = break_even_replays(life.capture.median_ms, life.instantiate.median_ms,
                                       replay.issue_streams_cpu.median_ms, replay.issue_graph_cpu.median_ms);
  out << "break-even: (capture " << fixed(life.capture.median_ms, 3) << " + instantiate "
      << fixed(life.instantiate.median_ms, 3) << " ms) / (stream issue " << fixed(replay.issue_streams_cpu.median_ms, 3)
      << " - graph launch " << fixed(replay.issue_graph_cpu.median_ms, 3) << " ms) = ";
  if (even) {
    out << fixed(*even, 1) << " replays before the graph has saved the CPU more than it cost.\n";
  } else {
    out << "never: launching the graph costs the CPU no less than issuing the work on streams.\n";
  }

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
  out << "the updated exec " << (upd.updated_check.passed ? "computed" : "did NOT compute")
      << " the new buffers' result (" << upd.updated_check.message() << ")\n";

  const TinyCosts& tiny = run.tiny;
  const int count = run.tiny_config.count;
  out << "\nwhere graphs win: " << count << " tiny operations (GPU time, interleaved):\n";
  print_measurements(out, pick(result, {"tiny_empty_streams", "tiny_empty_graph", "tiny_gemm_streams",
                                        "tiny_gemm_graph", "tiny_gemm_graph_launch_cpu"}));
  const double stream_us = per_op_us(tiny.empty_streams, count);
  const double node_us = per_op_us(tiny.empty_graph, count);
  out << "empty kernels: " << fixed(stream_us, 2) << " us per launch on a stream vs " << fixed(node_us, 2)
      << " us per graph node (" << ratio(stream_us, node_us) << "x)\n"
      << run.tiny_config.size << "^3 GEMMs: " << fixed(per_op_us(tiny.gemm_streams, count), 2) << " vs "
      << fixed(per_op_us(tiny.gemm_graph, count), 2) << " us per GEMM on streams vs graph\n";
  if (!tiny.empty_checked) out << "empty-kernel counter WRONG: " << tiny.empty_failure << '\n';

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
