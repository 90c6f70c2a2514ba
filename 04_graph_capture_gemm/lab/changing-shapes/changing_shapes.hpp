// The changing-shapes subcommand (kAbout in changing_shapes.cpp;
// changing_shapes_plan.hpp explains the four ways and the napkin math).
#pragma once

#include "04_graph_capture_gemm/lab/changing_shapes_plan.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/exec_update.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

enum class ShapeWay { streams, recapture, exec_update, buckets };
inline constexpr int kShapeWays = 4;
inline constexpr std::array<ShapeWay, kShapeWays> kAllShapeWays = {ShapeWay::streams, ShapeWay::recapture,
                                                                   ShapeWay::exec_update, ShapeWay::buckets};
std::string_view to_string(ShapeWay way);  // the JSON's names
std::string_view label(ShapeWay way);      // the printed names

// One way over the whole sequence: each Summary is over the rounds, each
// sample the sum of one round's requests. A graph can't start before it is
// captured and instantiated, so for the re-capture ways the CPU's work and
// the GPU's add up in total.
struct ShapeWayCosts {
  Summary total;    // end to end, host time from the request's first call until its work is done
  Summary gpu;      // events on the origin stream around the issue or launch, any wait for the host included
  Summary cpu;      // host time of all the request issued: capture, instantiate or update, launch or stream calls
  Summary prepare;  // the part of cpu spent on capture + instantiate / update
  long long batches_requested = 0;  // per round
  long long batches_computed = 0;   // per round (the buckets' include the padding)
  VerifyResult check;               // every request, every round: passed, or the first failure
};

// What cudaGraphExecUpdate made of the timed requests of the exec-update way.
struct UpdateCounts {
  int attempts = 0;
  int applied_same_batches = 0;   // the request before had the same batch count: same topology
  int applied_other_batches = 0;  // a different batch count: should never apply
  int refused = 0;                // then the exec was instantiated again
  int refused_same_batches = 0;   // should never happen either
  int instantiations = 0;         // in the timed rounds (one per refused update)
  std::string refused_result;     // the first refusal, e.g. "...: cudaGraphExecUpdateErrorTopologyChanged"
};

struct BucketSetup {
  std::vector<int> sizes;
  double capture_ms = 0.0;       // every bucket's capture, summed (host time)
  double instantiate_ms = 0.0;   // every bucket's instantiate, summed
  double first_launch_ms = 0.0;  // each exec's first launch (its upload) + synchronise, summed
  VerifyResult check;            // the outputs of those first launches
  double one_time_ms() const { return capture_ms + instantiate_ms; }
};

struct ShapeSequenceCosts {
  ChangingShapesConfig config;
  GemmShape shape;
  std::vector<int> sequence;  // each request's batch count
  std::array<ShapeWayCosts, kShapeWays> ways;  // in kAllShapeWays order
  UpdateCounts updates;
  BucketSetup buckets;
  const ShapeWayCosts& way(ShapeWay w) const { return ways[static_cast<std::size_t>(w)]; }
  ShapeWayCosts& way(ShapeWay w) { return ways[static_cast<std::size_t>(w)]; }
};

// ---- the verdicts -------------------------------------------------------------

// "changing_shapes.fastest": the way with the least total time (the first of equals).
ShapeWay fastest_way(const std::array<double, kShapeWays>& total_ms);
Verdict fastest_verdict(const std::array<double, kShapeWays>& total_ms, int requests);

// The article's claim: re-capturing every request is slower end to end than the streams.
enum class ClaimVerdict { holds, borderline, does_not_hold };
ClaimVerdict recapture_claim(double recapture_total_ms, double streams_total_ms);
// "changing_shapes.recapture", outcome the claim: what capture + instantiate
// cost against what the launched graphs saved on the streams.
Verdict recapture_verdict(double recapture_total_ms, double recapture_prepare_ms, double streams_total_ms);

// The GPU time spent on padded batches, at equal time per batch.
double wasted_gpu_ms(double buckets_gpu_ms, double padding);
// "changing_shapes.buckets": the buckets' padding and the GPU time it
// wasted, their total against the streams'.
Verdict bucket_verdict(long long requested, long long computed, double buckets_total_ms, double buckets_gpu_ms,
                       double streams_total_ms, double one_time_ms, int buckets, int requests);

// "changing_shapes.exec_update": the exec-update way's counts, and its total
// against re-capture + instantiate.
Verdict update_counts_verdict(const UpdateCounts& counts, double update_total_ms, double recapture_total_ms);

// The run's configuration: the pool's flags and the sequence's.
struct ChangingShapesOptions {
  ArticleOptions article;  // work: the top bucket's batches, of the requests' shape
  ChangingShapesConfig shapes;
};

void report_changing_shapes(const ChangingShapesOptions& options, const ShapeSequenceCosts& costs, Report& report);

// ---- the measurement ----------------------------------------------------------

// The article's steps, for the sequence.
struct ShapeRequestSteps : GraphCalls {
  std::function<void(BatchBuffers& buffers, int batches)> issue_on_streams;  // stage 03's loop
  // bucket_capacity(max_batches) batches (padding computes real batches of
  // them), inputs filled with `data_seed`.
  BatchBuffers* buffers = nullptr;
  std::uint64_t data_seed = 1;
  cudaStream_t stream = nullptr;  // the origin stream (pool stream 0): launches and events go here
};

// Each request the four ways in turn (interleaved per request, so a slow
// moment hits all four alike), the whole sequence config.rounds times after
// kShapeWarmupRequests untimed requests; before each request its batches get
// NaN outputs, after it every batch it computed (padding included) is
// verified. The buckets are built and launched once (verified) before the rounds.
// Throws std::invalid_argument when the buffers hold fewer than
// bucket_capacity(config.max_batches) batches or the sequence is off;
// std::runtime_error if cudaGraphExecUpdate refuses a graph of the same batch
// count; Interrupted (base/interrupt.hpp) between requests after a signal.
ShapeSequenceCosts measure_changing_shapes(const ChangingShapesConfig& config, const ShapeRequestSteps& steps);

// The steps as the laboratory binds them: graph_steps.hpp's on `pool` with `gemm`.
ShapeRequestSteps shape_request_steps(const StreamPool& pool, const Gemm& gemm, BatchBuffers& buffers,
                                      std::uint64_t data_seed);

}  // namespace csg::graphs
