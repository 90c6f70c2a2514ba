// Changing shapes: the figures and what they say: the results of the changing-shapes
// sequence and of the node-level updates (shape_requests.hpp and exec_update.hpp
// measure them), the sentences chosen by those figures with stated thresholds
// (report/conclusions.hpp: times within 3% are equal), the printed section,
// its JSON object and its measurements in the shared schema. Plain
// arithmetic and text: the CPU tests feed every branch made-up figures.
//
// What the four ways' figures mean, per request, summed over the sequence:
//   total    end to end, the host's time from the request's first call until
//            its work is done: what a caller waits. A graph can't start
//            before it is captured and instantiated, so for the re-capture
//            ways the CPU's work and the GPU's add up here.
//   gpu      CUDA events on the origin stream around the work's issue or
//            launch: the device's time, including any wait for the host.
//   cpu      host time of everything the request issued: capture,
//            instantiate or update, and the launch or the stream calls.
//   prepare  the part of cpu spent on capture + instantiate / update.
#pragma once

#include <array>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "04_graph_capture_gemm/lab/changing_shapes_plan.hpp"
#include "measure/stats.hpp"
#include "report/result.hpp"
#include "batches.hpp"

namespace csg::graphs {

enum class ShapeWay { streams, recapture, exec_update, buckets };
inline constexpr int kShapeWays = 4;
inline constexpr std::array<ShapeWay, kShapeWays> kAllShapeWays = {ShapeWay::streams, ShapeWay::recapture,
                                                                   ShapeWay::exec_update, ShapeWay::buckets};
// "streams", "recapture", "exec_update", "buckets": the JSON's names.
std::string_view to_string(ShapeWay way);
// "streams", "re-capture", "exec update", "buckets": the printed names.
std::string_view label(ShapeWay way);

// One way over the whole sequence: each Summary is over the rounds, each
// sample the sum of one round's requests.
struct ShapeWayCosts {
  Summary total;
  Summary gpu;
  Summary cpu;
  Summary prepare;
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

// One instantiated exec of the article's graph switched to a second set of
// buffers three ways (host time, median over the run's repeats).
struct NodeUpdateCosts {
  int batches = 0;
  std::size_t kernel_nodes = 0;
  std::size_t memcpy_nodes = 0;
  Summary whole_graph;                // capture on the new buffers + cudaGraphExecUpdate
  std::optional<Summary> node_level;  // cudaGraphExec{Kernel,Memcpy}NodeSetParams per node; nothing: see note
  Summary recapture_instantiate;      // capture + cudaGraphInstantiateWithParams
  std::string node_level_note;        // why there is no node-level figure ("" when there is)
  VerifyResult whole_graph_check;     // each exec, launched after its switch: the new buffers' result
  std::optional<VerifyResult> node_level_check;
  VerifyResult recapture_check;
};

struct ChangingShapesRun {
  ChangingShapesConfig config;
  std::optional<ShapeSequenceCosts> sequence;   // the changing-shapes subcommand's
  std::optional<NodeUpdateCosts> node_updates;  // the node-updates subcommand's
};

// ---- conclusions ------------------------------------------------------------

// The way with the least total time (the first of equals, in kAllShapeWays order).
ShapeWay fastest_way(const std::array<double, kShapeWays>& total_ms);
// "fastest end to end over 50 requests: buckets, 12.30 ms; streams 17.20 ms (1.40x slower) ..."
std::string fastest_text(const std::array<double, kShapeWays>& total_ms, int requests);

// The article's claim, re-capturing every request against streams: it holds
// when re-capture + launch took longer end to end than the streams (beyond
// kEqualWithin), is borderline within it, and does not hold when faster.
enum class ClaimVerdict { holds, borderline, does_not_hold };
ClaimVerdict recapture_verdict(double recapture_total_ms, double streams_total_ms);
// What capture + instantiate cost (`recapture_prepare_ms`) against what the
// launched graphs saved on the streams (streams total − the re-capture
// way's total without its preparation), and the verdict in words.
std::string recapture_text(double recapture_total_ms, double recapture_prepare_ms, double streams_total_ms);

// The buckets' padding: computed / requested − 1, the GPU time it wasted
// (≈ the buckets' GPU time × padding / (1 + padding), at equal time per
// batch), the buckets' total against the streams', and after how many
// requests the up-front capture + instantiate is repaid when they win.
std::string bucket_text(long long requested, long long computed, double buckets_total_ms, double buckets_gpu_ms,
                        double streams_total_ms, double one_time_ms, int buckets, int requests);
// The GPU time spent on padded batches, at equal time per batch.
double wasted_gpu_ms(double buckets_gpu_ms, double padding);

// The exec-update way's counts, and its total against re-capture + instantiate.
std::string update_counts_text(const UpdateCounts& counts, double update_total_ms, double recapture_total_ms);

// The three switches to new buffers; node_level_ms empty: `note` says why.
std::string node_update_text(double whole_graph_ms, std::optional<double> node_level_ms, double recapture_ms,
                             std::size_t nodes, const std::string& note);

// ---- results ----------------------------------------------------------------

// Every sentence above for `run`, in print order.
std::vector<std::string> changing_shapes_conclusions(const ChangingShapesRun& run);

// The section as printed: the sequence and buckets, a table of the four
// ways, the update counts, the node-level switches, the conclusions.
void print_changing_shapes(std::ostream& out, const ChangingShapesRun& run);

// "changing_shapes": {"requests", "max_batches", "seed", "rounds", "node_updates_on", "shape",
//   "batch_counts", "batches_requested", "buckets": {"sizes", "capture_ms",
//   "instantiate_ms", "first_launch_ms", "batches_computed", "padding_percent",
//   "wasted_gpu_ms"}, "ways": {"<way>": {"total_ms", "gpu_ms", "cpu_ms",
//   "prepare_ms" (medians), "total_samples_ms", "batches_computed", "verified",
//   "batches_checked"}}, "updates": {...UpdateCounts}, "fastest",
//   "recapture_over_streams", "claim": "holds"|"borderline"|"does_not_hold",
//   "node_updates": {"batches", "kernel_nodes", "memcpy_nodes",
//   "whole_graph_ms", "node_level_ms" (null with "node_level_note"),
//   "recapture_instantiate_ms", "verified"}, "conclusions": [...]}.
// Parts that did not run are null.
nlohmann::json changing_shapes_json(const ChangingShapesRun& run);

// For StageResult::measurements: "changing_shapes" once per way (params
// {"way", "requests", "max_batches"}; stats: the total; work: the requested
// batches' FLOPs and bytes), "node_update" once per switch (params {"how":
// "whole_graph"|"node_level"|"recapture_instantiate", "batches"}).
std::vector<Measurement> changing_shapes_measurements(const ChangingShapesRun& run);

// Every check of the run, for the stage's verdict (each must pass).
std::vector<const VerifyResult*> changing_shapes_checks(const ChangingShapesRun& run);

}  // namespace csg::graphs
