#include "graph_costs.hpp"

#include <optional>

#include "measure/timers.hpp"

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
  const std::vector<Summary> summaries = measure_interleaved(plan, rounds);
  costs.capture = summaries[0];
  costs.instantiate = summaries[1];
  costs.first_launch = summaries[2];
  costs.relaunch = summaries[3];
  costs.upload = summaries[4];
  costs.launch_after_upload = summaries[5];
  return costs;
}

ReplayCosts measure_replay_vs_streams(const RepeatPlan& plan, const ReplayComparison& c) {
  EventTimer timer;
  ReplayCosts costs;
  const std::vector<TimedVariant> variants = {
      {
          .prepare = c.poison,  // each replay must write every output again
          .run = [&] { timer.start(c.stream); c.launch(*c.exec); return timer.stop(); },
          .after_last = [&] { costs.graph_check = c.verify(); },
      },
      {
          .prepare = c.poison,
          .run = [&] { timer.start(c.stream); c.issue_on_streams(); return timer.stop(); },
          .after_last = [&] { costs.streams_check = c.verify(); },
      },
      {
          .prepare = nullptr,
          .run = [&] { return host_issue_time(c.stream, c.issue_on_streams); },
          .after_last = nullptr,
      },
      {
          .prepare = nullptr,
          .run = [&] { return host_issue_time(c.stream, [&] { c.launch(*c.exec); }); },
          .after_last = nullptr,
      },
  };
  const std::vector<Summary> summaries = measure_interleaved(plan, variants);
  costs.graph_replay = summaries[0];
  costs.stream_pool = summaries[1];
  costs.issue_streams_cpu = summaries[2];
  costs.issue_graph_cpu = summaries[3];
  return costs;
}

}  // namespace csg::graphs
