// The conditional subcommand (kAbout in conditional.cpp says what runs;
// docs/conditional.md the five WHILE variants, the SWITCH part and their
// checks). Every counter is checked after every run, every GEMM output verified.
#pragma once

#include "04_graph_capture_gemm/lab/launch_costs.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

struct ConditionalConfig {
  CommonOptions common;  // the plan and --seed; work: one GEMM of the body's size
  std::vector<int> iterations = {10, 100, 1000, 10000};  // --cond-iterations: N, ascending
  int size = 64;                                          // --cond-size: m = n = k of the body's GEMM
  int unroll_max = 10000;                                 // --cond-unroll-max: longest unrolled graph
  std::vector<int> buckets = {32, 64, 128, 256};          // --cond-buckets: square GEMM sizes, ascending
  int requests = 200;                                     // --cond-requests: per SWITCH run; 0: no SWITCH part
};

enum class LoopBody { empty, gemm };
inline constexpr int kLoopBodies = 2;
const char* to_string(LoopBody body);  // "empty", "gemm"

enum LoopVariant { kWhileNode, kKernelLoop, kGraphLoop, kUnrolled, kHostDecided, kLoopVariants };
inline constexpr const char* kLoopVariantNames[kLoopVariants] = {"while_node", "kernel_loop", "graph_loop",
                                                                 "unrolled", "host_decided"};

// One N of one body: each variant's GPU time for the whole loop (events
// around it, median of the runs), and the unrolled graph's instantiation.
struct LoopPoint {
  int iterations = 0;
  Summary variant[kLoopVariants];
  bool unrolled_measured = false;   // false: N above --cond-unroll-max
  double unrolled_instantiate_ms = 0.0;  // capture and instantiate, host time, once
};

struct LoopFigures {
  LoopBody body = LoopBody::empty;
  std::vector<LoopPoint> points;  // one per N, ascending
};

struct SwitchFigures {
  bool measured = false;
  int requests = 0;
  Summary device_chosen;  // SWITCH node: one graph launch per request
  Summary host_chosen;    // copy back, synchronise, launch the bucket's graph
  std::vector<int> per_bucket;  // requests each bucket served in one run
};

struct ConditionalCosts {
  LoopFigures loops[kLoopBodies];
  SwitchFigures switch_node;
  // The GEMM outputs, one check per verified variant run (every bucket's included).
  std::vector<VerifyResult> gemm_checks;
  int counter_checks = 0;  // runs whose counters were read and compared
  bool checked = true;     // every counter right, every unused bucket untouched
  std::string failure;     // the first failed counter check
};

// The bucket a request of `size` goes to: the first of `buckets` (ascending)
// that holds it; -1 when none does.
int bucket_of(int size, const std::vector<int>& buckets);
// The sizes of `count` requests, 1..buckets.back(), from `seed`.
std::vector<int> request_sizes(int count, int largest, std::uint64_t seed);

// Driver and runtime versions (1000 x major + 10 x minor) a part needs.
inline constexpr int kWhileNeedsVersion = 12030;
inline constexpr int kSwitchNeedsVersion = 12080;
// "" when `driver` and `runtime` run the parts the config asks for, else the
// one line of what is missing ("SWITCH nodes need CUDA 12.8 or newer: the
// driver supports 12.4").
std::string unsupported_reason(const ConditionalConfig& config, int driver, int runtime);

// Seconds for the whole run at `gemm_seconds` per body GEMM (each bucket's
// at its own size scaled by the cube of the ratio) with the plan's rounds.
double conditional_seconds(const ConditionalConfig& config, double gemm_seconds);

// The --cond-* options ConditionalConfig names, with its defaults.
void conditional_options(StageCli& cli);
// After parsing: lists sorted, the common options' work one GEMM of the
// body's size. Throws UsageError for an empty or repeated item, a value out
// of range, or more buckets than kMaxBuckets (conditional_kernels.hpp).
ConditionalConfig read_conditional(const StageCli& cli, CommonOptions& common);

// Runs both parts on a stream of its own. Throws CudaError for a CUDA failure.
ConditionalCosts measure_conditional(const ConditionalConfig& config);

// A difference counts when one side is this many times the other (10%).
inline constexpr double kClearMargin = 1.10;

// "conditional.<body>.<rival>": the WHILE node against `rival` over every N
// where both were measured, a clear difference at kClearMargin (its outcomes:
// docs/conditional.md).
Verdict versus_verdict(const LoopFigures& figures, LoopVariant rival);
// "conditional.switch": the SWITCH node choosing a request's bucket against
// the host's choice: "wins", "costs_more", "even", or "not_run" (--cond-requests 0).
Verdict switch_verdict(const SwitchFigures& figures);

// fixed + per-iteration x N through a variant's points (fit_line).
LineFit loop_fit(const LoopFigures& figures, LoopVariant variant);

// The measurements, bounds, tables, verdicts and the section "conditional"
// that docs/conditional.md lists.
void report_conditional(const ConditionalConfig& config, const ConditionalCosts& costs, Report& report);

}  // namespace csg::graphs
