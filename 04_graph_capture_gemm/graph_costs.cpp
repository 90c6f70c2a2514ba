#include "graph_costs.hpp"

#include <vector>

#include "measure/timers.hpp"

namespace csg {
namespace {

// Host time of `body` followed by a synchronise of `stream`, both inside the timer.
template <class Body>
Millis host_synchronised(cudaStream_t stream, Body&& body) {
  const HostTimer timer;
  body();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return timer.elapsed();
}

}  // namespace

LifecycleCosts measure_graph_lifecycle(const RepeatPlan& plan, const GraphLifecycle& life) {
  std::vector<Millis> capture, instantiate, first_launch, relaunch, upload, launch_after_upload;
  LifecycleCosts costs;
  const int rounds = plan.warmup + plan.repeats;
  for (int round = 0; round < rounds; ++round) {
    const bool timed = round >= plan.warmup;
    const bool last = round + 1 == rounds;
    life.poison();

    HostTimer timer;
    const Graph graph = life.capture();
    const Millis capture_ms = timer.elapsed();

    timer.restart();
    const GraphExec exec = GraphExec::instantiate(graph);
    const Millis instantiate_ms = timer.elapsed();

    const Millis first_ms = host_synchronised(life.stream, [&] { exec.launch(life.stream); });
    if (last) costs.first_launch_check = life.verify();

    life.poison();
    const Millis relaunch_ms = host_synchronised(life.stream, [&] { exec.launch(life.stream); });
    if (last) costs.relaunch_check = life.verify();

    // A second exec of the same graph: upload it on its own, then launch it.
    const GraphExec uploaded = GraphExec::instantiate(graph);
    life.poison();
    const Millis upload_ms = host_synchronised(life.stream, [&] { uploaded.upload(life.stream); });
    const Millis after_upload_ms = host_synchronised(life.stream, [&] { uploaded.launch(life.stream); });
    if (last) costs.uploaded_check = life.verify();

    if (timed) {
      capture.push_back(capture_ms);
      instantiate.push_back(instantiate_ms);
      first_launch.push_back(first_ms);
      relaunch.push_back(relaunch_ms);
      upload.push_back(upload_ms);
      launch_after_upload.push_back(after_upload_ms);
    }
  }
  costs.capture = summarize(capture);
  costs.instantiate = summarize(instantiate);
  costs.first_launch = summarize(first_launch);
  costs.relaunch = summarize(relaunch);
  costs.upload = summarize(upload);
  costs.launch_after_upload = summarize(launch_after_upload);
  return costs;
}

ReplayCosts measure_replay_vs_streams(const RepeatPlan& plan, const ReplayComparison& c) {
  EventTimer timer;
  ReplayCosts costs;
  const std::vector<TimedVariant> variants = {
      {
          .prepare = c.poison,  // each replay must write every output again
          .run = [&] { timer.start(c.stream); c.exec->launch(c.stream); return timer.stop(); },
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
          .run = [&] { return host_issue_time(c.stream, [&] { c.exec->launch(c.stream); }); },
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

}  // namespace csg
