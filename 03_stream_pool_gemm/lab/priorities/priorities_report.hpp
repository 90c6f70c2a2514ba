// What the two experiments of priorities.hpp mean, in words chosen by their
// own figures with stated thresholds, including the branches where the
// article's claim does not hold on this GPU: for the priorities, whether
// the greatest stream priority cut the short kernels' latency beside a full
// GPU; for the contention, whether two streams' kernels ran side by side with
// little shared memory per block and one after the other with much. Then the
// tables and the JSON. Plain arithmetic on the results: the CPU tests feed
// each branch made-up figures.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "03_stream_pool_gemm/lab/priorities/priorities.hpp"
#include "report/device_info.hpp"

namespace csg::pool {

// The short kernels' median latencies at the two priorities within this
// fraction of each other are called equal: priority made no difference.
inline constexpr double kPriorityWithin = 0.10;
// Below this share of the GPU's block slots kept busy by the flood (at the
// default priority) the GPU was not full: short kernels found free slots at
// any priority, and the run says nothing about priorities.
inline constexpr double kFloodFull = 0.75;

enum class PriorityVerdict {
  not_verified,   // a check failed: no conclusion
  flood_gaps,     // a flood stream ran dry during the run: no conclusion
  one_level,      // the device offers a single priority: nothing to compare
  gpu_not_full,   // the flood kept too few slots busy: no conclusion
  helps,          // greatest priority cut the median latency by more than kPriorityWithin
  no_difference,  // within kPriorityWithin: the claim does not hold here
  worse,          // greatest priority made the median latency worse: the claim does not hold here
};
std::string_view to_string(PriorityVerdict verdict);
PriorityVerdict judge_priorities(const PriorityResult& result);
// The median latency at the default priority over the one at the greatest
// (above 1: priority helped); 0 when not measured.
double priority_speedup(const PriorityResult& result);
std::string priority_conclusion(const PriorityResult& result);

// Concurrency (2 x alone / together) at or above kSideBySide: the two
// streams' kernels ran side by side; at or below kSerialised: one after the
// other; between: partly overlapped.
inline constexpr double kSideBySide = 1.7;
inline constexpr double kSerialised = 1.3;

enum class Overlap { side_by_side, partly, serialised };
Overlap classify_concurrency(double concurrency);

enum class ContentionVerdict {
  not_verified,    // a check failed: no conclusion
  not_exclusive,   // the large kernel still fits two or more blocks per SM: no limit to show
  no_concurrency,  // even the small kernels did not run side by side: something else serialised them
  holds,           // small side by side, large one after the other: the claim holds
  partly,          // small side by side, large partly overlapped
  not_seen,        // large side by side too: the claim does not hold here
};
std::string_view to_string(ContentionVerdict verdict);
ContentionVerdict judge_contention(const ContentionResult& result);
std::string contention_conclusion(const ContentionResult& result);

// A table of the runs, the conclusion, and a line that says whether every
// output was verified (or which check failed, as a failure).
void print_priorities(std::ostream& out, const PriorityResult& result);
void print_contention(std::ostream& out, const ContentionResult& result);

// The JSON of each: config, device figures (priority range, SM count,
// occupancies, shared memory), every summary in ms (median, min, max, p95,
// samples), the derived ratios, "verified", "failure", "verdict" and "conclusion".
nlohmann::json priorities_json(const PriorityResult& result);
nlohmann::json contention_json(const ContentionResult& result);

// What both subcommands share around their experiment: the StageCli
// defaults (no GEMM workload: spin kernels of known length; no host memory
// choice), the estimate of `round_us` of work in every round of `plan`
// (warm-up or timed) plus setting up, and the header of the output.
CommonDefaults experiment_defaults();
double experiment_seconds(const RepeatPlan& plan, double round_us);
DeviceInfo print_experiment_header(std::ostream& out, const char* subcommand, int device);

// The end of either subcommand: its results JSON (the schema, the stage,
// "subcommand", the device, `config`, no measurements, the verification of
// `what_checked`, and `figures` under `key`), written to `json_path` when
// given; returns kExitOk when `verified`, else kExitFailure.
int finish_experiment(const char* subcommand, const DeviceInfo& device, nlohmann::json config, bool verified,
                      const std::string& failure, const std::string& what_checked, const char* key,
                      nlohmann::json figures, const std::string& json_path);

}  // namespace csg::pool
