#include "04_graph_capture_gemm/lab/graph_costs.hpp"

#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

LifecycleCosts measure_graph_lifecycle(const RepeatPlan& plan, const GraphLifecycle& life) {
  const GraphSteps& steps = life.steps;
  const cudaStream_t stream = steps.stream;
  LifecycleCosts costs;
  // What one round hands from one step to the next: each round captures a new
  // graph, instantiates it, launches it twice, then uploads a second exec.
  // The previous round's graph and execs are destroyed in the untimed
  // prepare steps: a timed region holds only the call it times.
  Graph graph;
  std::optional<GraphExec> exec;
  std::optional<GraphExec> uploaded;
  auto launched = [&](const GraphExec& e) { return host_synchronised(stream, [&] { steps.launch(e); }); };
  const std::vector<TimedVariant> rounds = {
      {.prepare = [&] { graph = Graph(); },
       .run = [&] { const HostTimer timer; graph = steps.capture(); return timer.elapsed(); },
       .after_last = nullptr},
      {.prepare = [&] { exec.reset(); },
       .run = [&] { const HostTimer timer; exec.emplace(steps.instantiate(graph)); return timer.elapsed(); },
       .after_last = nullptr},
      {.prepare = life.poison,
       .run = [&] { return launched(*exec); },
       .after_last = [&] { costs.first_launch_check = life.verify(); }},
      {.prepare = life.poison,
       .run = [&] { return launched(*exec); },
       .after_last = [&] { costs.relaunch_check = life.verify(); }},
      {.prepare = [&] { uploaded.reset(); uploaded.emplace(steps.instantiate(graph)); life.poison(); },
       .run = [&] { return host_synchronised(stream, [&] { CUDA_CHECK(cudaGraphUpload(uploaded->get(), stream)); }); },
       .after_last = nullptr},
      {.prepare = nullptr,
       .run = [&] { return launched(*uploaded); },
       .after_last = [&] { costs.uploaded_check = life.verify(); }},
  };
  measure_interleaved_into(plan, rounds, {&costs.capture, &costs.instantiate, &costs.first_launch, &costs.relaunch,
                                          &costs.upload, &costs.launch_after_upload});
  return costs;
}

ReplayCosts measure_replay_vs_streams(const RepeatPlan& plan, const ReplayComparison& c) {
  EventTimer timer;
  ReplayCosts costs;
  Millis issued{};  // the host's time to issue the last timed run
  std::vector<TimedVariant> variants = {
      {.prepare = c.poison,  // each replay must write every output again
       .run = [&] { return gpu_and_issue_time(timer, c.stream, issued, [&] { c.launch(*c.exec); }); },
       .after_last = [&] { costs.graph_check = c.verify(); },
       .side = [&] { return issued; }},
      {.prepare = c.poison,
       .run = [&] { return gpu_and_issue_time(timer, c.stream, issued, c.issue_on_streams); },
       .after_last = [&] { costs.streams_check = c.verify(); },
       .side = [&] { return issued; }},
      {.prepare = nullptr, .run = [&] { return host_issue_time(c.stream, c.issue_on_streams); }, .after_last = nullptr},
      {.prepare = nullptr,
       .run = [&] { return host_issue_time(c.stream, [&] { c.launch(*c.exec); }); },
       .after_last = nullptr},
  };
  const std::size_t first_sum = variants.size();
  variants.insert(variants.end(), c.one_stream_sums.begin(), c.one_stream_sums.end());
  const std::size_t first_stream_resource = variants.size();
  variants.insert(variants.end(), c.stream_resources.begin(), c.stream_resources.end());
  const std::size_t first_graph_resource = variants.size();
  for (const GraphExec* exec : c.graph_resources) {
    variants.push_back({.prepare = nullptr,
                        .run = [&timer, &c, exec] { return gpu_time(timer, c.stream, [&] { c.launch(*exec); }); },
                        .after_last = nullptr});
  }
  const std::size_t first_also = variants.size();
  variants.insert(variants.end(), c.also.begin(), c.also.end());
  const std::size_t busiest = variants.size();
  if (c.busiest_stream.run) variants.push_back(c.busiest_stream);
  std::vector<Measured> results = measure_rounds(plan, variants);
  costs.graph_replay = results[0].primary;
  costs.replay_issue = results[0].side;
  costs.stream_pool = results[1].primary;
  costs.pool_issue = results[1].side;
  costs.issue_streams_cpu = results[2].primary;
  costs.issue_graph_cpu = results[3].primary;
  if (c.one_stream_sums.size() >= 3) {
    costs.sums = StageSums{results[first_sum].primary, results[first_sum + 1].primary, results[first_sum + 2].primary};
  }
  if (c.one_stream_sums.size() == 6) {  // and batch 0's op of each kind alone (first_op_variants)
    costs.sums.h2d_first = results[first_sum + 3].primary;
    costs.sums.kernel_first = results[first_sum + 4].primary;
    costs.sums.d2h_first = results[first_sum + 5].primary;
  }
  auto primaries = [&results](std::size_t from, std::size_t to) {
    std::vector<Summary> out;
    for (std::size_t i = from; i < to; ++i) out.push_back(results[i].primary);
    return out;
  };
  costs.stream_alone = primaries(first_stream_resource, first_graph_resource);
  costs.graph_alone = primaries(first_graph_resource, first_also);
  costs.also = primaries(first_also, busiest);
  if (c.busiest_stream.run) costs.busiest_stream = results[busiest].primary;
  return costs;
}

PipelineBound bound_of(const BoundRuns& runs, int batches, int streams) {
  if (runs.alone.size() != std::size_t(kResources)) throw std::logic_error("a bound needs all four resources alone");
  return pipeline_bound({.kernels_ms = runs.alone[0].median_ms,
                         .h2d_ms = runs.alone[1].median_ms,
                         .d2h_ms = runs.alone[2].median_ms,
                         .both_ways_ms = runs.alone[3].median_ms,
                         .host_issue_ms = runs.issue != nullptr ? runs.issue->median_ms : 0.0,
                         .busiest_stream_ms = runs.busiest_stream != nullptr ? runs.busiest_stream->median_ms : 0.0},
                        runs.sums.medians(), batches, streams);
}

double tolerance_of(const PipelineBound& bound, const Summary& run, const BoundRuns& runs) {
  const Summary* path = nullptr;
  switch (bound.limited_by) {
    case BoundPath::kernels: path = &runs.alone.at(0); break;
    case BoundPath::h2d: path = &runs.alone.at(1); break;
    case BoundPath::d2h: path = &runs.alone.at(2); break;
    case BoundPath::both_ways: path = &runs.alone.at(3); break;
    case BoundPath::stream_order: path = &runs.sums.noisiest(); break;  // made of the three sums
    case BoundPath::host_issue: path = runs.issue; break;
    case BoundPath::busiest_stream: path = runs.busiest_stream; break;
  }
  return bound_tolerance(run.median_ms, run.min_ms, path != nullptr ? path->median_ms : 0.0,
                         path != nullptr ? path->min_ms : 0.0);
}

PipelineBound replay_bound(const ReplayCosts& costs, int batches) {
  // No stream order: its shares come from ops launched one by one from the
  // host, and a graph starts its nodes with less time between them, so at
  // tiny ops they are no floor for a replay.
  return bound_of({costs.graph_alone, costs.sums, costs.replay_issue ? &*costs.replay_issue : nullptr}, batches, 0);
}

PipelineBound stream_pool_bound(const ReplayCosts& costs, int batches, int streams) {
  return bound_of({costs.stream_alone, costs.sums, costs.pool_issue ? &*costs.pool_issue : nullptr,
                   costs.busiest_stream ? &*costs.busiest_stream : nullptr},
                  batches, streams);
}

}  // namespace csg::graphs
