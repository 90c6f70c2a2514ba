// What a graph costs, each part measured on its own, and what it saves. The
// article's steps (graph_steps.hpp) come in as callbacks, timed in
// interleaved rounds, so a slow moment of the machine hits every variant alike.
#pragma once

#include "experiment/lab.hpp"
#include "measure/stage_sums.hpp"

namespace csg::graphs {

// The article's steps.
struct GraphSteps {
  std::function<Graph()> capture;                       // steps 1-5a: begin, fork, work, join, end capture
  std::function<GraphExec(const Graph&)> instantiate;   // step 5b: cudaGraphInstantiateWithParams
  std::function<void(const GraphExec&)> launch;         // step 6: cudaGraphLaunch on `stream`
  cudaStream_t stream = nullptr;                        // where the capture began: launches go here
};

struct GraphLifecycle {
  GraphSteps steps;
  std::function<void()> poison;  // NaN into every output, device and host
  std::function<VerifyResult()> verify;
};

// Per round, host-timed: a fresh capture and instantiate, the first launch
// of that exec (which also uploads it), a second launch, and a second exec
// whose upload is timed apart from its first launch. "Launch": launch and wait.
struct LifecycleCosts {
  Summary capture;
  Summary instantiate;
  Summary first_launch;         // first cudaGraphLaunch of a new exec + synchronise
  Summary relaunch;             // the next launch of the same exec + synchronise
  Summary upload;               // cudaGraphUpload of another new exec + synchronise
  Summary launch_after_upload;  // that exec's first launch + synchronise
  VerifyResult first_launch_check;
  VerifyResult relaunch_check;
  VerifyResult uploaded_check;
};

LifecycleCosts measure_graph_lifecycle(const RepeatPlan& plan, const GraphLifecycle& lifecycle);

// The resources of a bound, in the order resource_variants gives them.
inline constexpr int kResources = 4;  // kernels, H2D, D2H, both ways

struct ReplayComparison {
  const GraphExec* exec = nullptr;
  std::function<void(const GraphExec&)> launch;  // step 6
  // Fork, the per-batch work and join on the pool, without capture (stage 03's loop).
  std::function<void()> issue_on_streams;
  std::function<void()> poison;
  std::function<VerifyResult()> verify;
  cudaStream_t stream = nullptr;  // the origin stream: pool stream 0
  std::vector<TimedVariant> one_stream_sums;              // H2D, kernels, D2H (stage_sum_variants), then
                                                          // optionally batch 0's three ops (first_op_variants)
  std::vector<TimedVariant> stream_resources;             // resource_variants, issued as the pool issues its run
  std::vector<const GraphExec*> graph_resources;          // the same four, captured from the pool
  std::vector<TimedVariant> also;                         // timed last in each round, summarised in ReplayCosts::also
  // The pool's busiest stream's batches alone on one stream, for the pool's
  // bound; not measured where its run is empty.
  TimedVariant busiest_stream{};
};

// The GPU variants poison the outputs first, are verified after their last
// run and read the host's issue time of the same runs; the CPU variants time
// only the issue. In the same rounds, what each bound needs: the one-stream
// sums, and each resource's work alone, on the streams and as graph replays.
struct ReplayCosts {
  Summary graph_replay;                 // GPU time of one cudaGraphLaunch
  Summary stream_pool;                  // GPU time of the same work issued on the pool (stage 03)
  Summary issue_streams_cpu;            // host time to issue fork + 3·batches operations + join
  Summary issue_graph_cpu;              // host time of the one cudaGraphLaunch call
  std::optional<Summary> replay_issue;  // the host's time of the launch inside each timed replay
  std::optional<Summary> pool_issue;    // the host's time to issue each timed pool run
  StageSums sums;
  std::vector<Summary> stream_alone;    // kResources, on the streams
  std::vector<Summary> graph_alone;     // kResources, as graph replays
  std::vector<Summary> also;            // ReplayComparison::also, in its order
  std::optional<Summary> busiest_stream;  // ReplayComparison::busiest_stream, where measured
  VerifyResult graph_check;
  VerifyResult streams_check;
};

// What a bound is made of: each resource's work alone (kResources, in
// resource_variants' order), the one-stream sums, and where measured the
// host's issue in the variant's own runs and its busiest stream alone.
struct BoundRuns {
  const std::vector<Summary>& alone;
  const StageSums& sums;
  const Summary* issue = nullptr;
  const Summary* busiest_stream = nullptr;
};
// The bound (pipeline_bound.hpp); `streams` 0 for a variant without the
// pool's stream order. std::logic_error where `alone` lacks a resource.
PipelineBound bound_of(const BoundRuns& runs, int batches, int streams);
// The noise the bound is allowed on `run`: the run's own spread and the
// limiting path's (bound_tolerance; the stream order's is the noisiest sum's).
double tolerance_of(const PipelineBound& bound, const Summary& run, const BoundRuns& runs);

// The bounds of the two GPU variants, from their own resource runs; the
// stream pool's with the stream order of its `streams` (pipeline_bound.hpp).
PipelineBound replay_bound(const ReplayCosts& costs, int batches);
PipelineBound stream_pool_bound(const ReplayCosts& costs, int batches, int streams);

ReplayCosts measure_replay_vs_streams(const RepeatPlan& plan, const ReplayComparison& comparison);

}  // namespace csg::graphs
