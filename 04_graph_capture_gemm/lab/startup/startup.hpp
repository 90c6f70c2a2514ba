// 04_graph_capture_gemm startup: what a serving engine pays before its
// first request, as its bucket count grows. The declaration (startup.cpp)
// holds the plan in plain numbers, the options, the estimate, the report and
// the verdicts; startup_measure.cpp builds the graphs. Declared here for the
// CPU tests.
//
// A serving engine can't capture a graph per request (changing-shapes shows
// what that costs); it captures one graph per *bucket* of batch counts up
// front, and runs each request in the smallest bucket that holds it. More
// buckets waste less work on padding and cost more at startup: every bucket
// is one capture, one cudaGraphInstantiate and one cudaGraphUpload of the
// article's fork/join graph (3 nodes per batch), and device memory.
//
// Bucket layout: K buckets over batch counts 1..max, spaced evenly: bucket i
// (i = 1..K) holds ceil(i·max / K) batches (K = max: one graph per batch
// count; K = 8 of 256: 32, 64, ..., 256). The top bucket is always max.
//
// Request sizes, for the padding waste (deterministic from --seed):
//   uniform  b uniform in 1..max (changing-shapes' request_sequence)
//   skewed   b = ceil(max · u³), u uniform in (0, 1]: small requests common
//            (median max/8, mean max/4), as in serving, where most batches
//            are far from full
// Each request runs in the smallest bucket ≥ b; waste = padded batches /
// requested batches − 1.
//
// Napkin math (H200 reference figures, changing_shapes_plan.hpp): capture +
// instantiate cost about 21 µs per batch captured, so K evenly spaced buckets
// of up to 256 batches capture about 128·(K + 1) batches: K = 8 about 25 ms,
// K = 256 about 0.7 s, and the six default layouts about 1.4 s per way of
// holding the buffers.
// The two ways of holding the buffers:
//   shared    one pool of buffers sized for the top bucket (max batches),
//             allocated once; every graph captures batches 0..b-1 of it (the
//             graphs run one at a time, as a serving engine's do)
//   separate  each bucket its own buffers of b batches: what a graph costs
//             when nothing is shared
// Both use the article's layout, one device A and C per batch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "batches.hpp"
#include "cli/pool_options.hpp"
#include "experiment/experiment.hpp"
#include "measure/stats.hpp"

namespace csg::graphs {


enum class RequestMix { uniform, skewed };
inline constexpr RequestMix kAllRequestMixes[] = {RequestMix::uniform, RequestMix::skewed};
// "uniform", "skewed"
const char* to_string(RequestMix mix);
// "b uniform in 1..256", "b = ceil(256 * u^3), u uniform in (0, 1]"
std::string mix_text(RequestMix mix, int max_batches);

struct StartupConfig {
  CommonOptions common;  // host memory, --seed (the request sizes and the data); work: the top bucket's
  PoolConfig pool;       // --streams
  std::vector<int> bucket_counts{8, 64, 256};  // --startup-buckets, ascending
  int max_batches = 256;     // --startup-max-batches: requests of 1..max batches
  int size = 64;             // --startup-size: m = n = k of the GEMMs
  double budget_ms = 250.0;  // --startup-budget-ms: capture + instantiate + upload of all buckets
  int requests = 10000;      // --startup-requests: per request mix, for the padding waste
  int rounds = 1;            // --startup-rounds: every layout built this many times, the median reported
};

// --startup-buckets LIST (default 8,64,256), --startup-max-batches N
// (256), --startup-size N (64), --startup-budget-ms N (250),
// --startup-requests N (10000), --startup-rounds N (1), and the pool's --streams.
void startup_options(StageCli& cli);
// After parsing: the bucket counts sorted, the common options' work the top
// bucket's. Throws UsageError for an item out of [1, 1024], an empty item, a
// count given twice, a count above --startup-max-batches (it would hold
// empty buckets), or --warmup or --repeats (every layout is built
// --startup-rounds times, after one untimed graph of 1 batch).
StartupConfig read_startup(const StageCli& cli, CommonOptions& common);

// The K evenly spaced bucket sizes over 1..max_batches, ascending, the last
// max_batches. Throws std::invalid_argument unless 1 <= buckets <= max_batches.
std::vector<int> even_buckets(int buckets, int max_batches);
// The batches every graph of a layout captures together.
long long captured_batches(const std::vector<int>& sizes);

// `requests` request sizes in 1..max_batches of `mix`, from SplitMix64 of
// (seed, mix, index). Throws std::invalid_argument for requests < 0 or max_batches < 1.
std::vector<int> request_sizes(RequestMix mix, int requests, int max_batches, std::uint64_t seed);

// The padding waste of `sizes` (each request in the smallest bucket ≥ it):
// padded / requested − 1 (0.25: a quarter more batches computed than asked).
double padding_waste(const std::vector<int>& requests, const std::vector<int>& sizes);

// The workload the graphs capture: `batches` batches of size³.
Workload startup_workload(const StartupConfig& config, int batches);

// A rough estimate of the whole run, refused over --max-minutes: the first build (the
// most buckets, once) and, every round, both ways of holding the buffers,
// every graph's batches captured, instantiated
// and uploaded (~25 µs each) and launched once and verified at
// `per_batch_seconds` (one batch's GPU time plus the host's poison and check),
// and the separate buffers filled (~2 µs per batch of 64³, scaled with the size).
double startup_seconds(const StartupConfig& config, double per_batch_seconds);

enum class BufferLayout { shared, separate };
inline constexpr BufferLayout kAllBufferLayouts[] = {BufferLayout::shared, BufferLayout::separate};
// "shared", "separate": the JSON's names.
const char* to_string(BufferLayout layout);

// The startup budget is judged on this layout: the one a serving engine uses.
inline constexpr BufferLayout kBudgetLayout = BufferLayout::shared;
// Separate buffers are called dearer than the shared pool past this ratio of
// device memory (buffers + graphs); within it, about the same.
inline constexpr double kMemoryRatioThreshold = 1.1;

// One bucket count, one layout. Each Summary is over the rounds, each sample
// the sum over the K graphs of host time (steady_clock).
struct StartupCell {
  Summary capture;       // cudaStreamBeginCapture ... cudaStreamEndCapture
  Summary instantiate;   // cudaGraphInstantiateWithParams
  Summary upload;        // cudaGraphUpload + stream synchronise
  Summary total;         // the three together: what startup costs
  Summary launches;      // every graph launched once + synchronise (the verified run; not startup)
  // The buffers' device bytes, counted (shared: the one pool, allocated once
  // before everything). The execs' memory is the first build's (FirstBuild).
  std::int64_t buffer_bytes = 0;
  VerifyResult check;  // every graph's outputs, every round: passed, or the first failure
};

// The process's first build of the most buckets on the shared pool, before
// the rows: host ms of its parts summed over its graphs, and the device
// memory its execs took (cudaMemGetInfo: free memory before its first
// instantiate minus after its last upload). The driver keeps that memory for
// the graphs built later, so the rows read none of their own.
struct FirstBuild {
  int buckets = 0;
  long long batches_captured = 0;
  double capture_ms = 0.0;
  double instantiate_ms = 0.0;
  double upload_ms = 0.0;
  std::int64_t graph_bytes = 0;
  VerifyResult check;
  double total_ms() const { return capture_ms + instantiate_ms + upload_ms; }
};
// The first build is called dearer (or cheaper) than the same graphs built
// again past this ratio either way; within it, about the same.
inline constexpr double kFirstBuildRatioThreshold = 1.1;

struct StartupRow {
  int buckets = 0;
  std::vector<int> sizes;           // even_buckets(buckets, max_batches)
  long long batches_captured = 0;   // captured_batches(sizes)
  double waste_uniform = 0.0;       // padding_waste of the uniform mix
  double waste_skewed = 0.0;        // and of the skewed one
  StartupCell shared;
  StartupCell separate;
  const StartupCell& cell(BufferLayout layout) const { return layout == BufferLayout::shared ? shared : separate; }
  StartupCell& cell(BufferLayout layout) { return layout == BufferLayout::shared ? shared : separate; }
};

struct StartupFigures {
  StartupConfig config;
  FirstBuild first;              // of config.bucket_counts.back() buckets
  std::vector<StartupRow> rows;  // ascending bucket counts
  double mean_uniform = 0.0;     // the mixes' mean request, in batches
  double mean_skewed = 0.0;
};

// The rows' padding waste (and the mixes' means) from config's request mixes:
// pure, so made-up rows can be filled too.
void fill_padding(StartupFigures& figures);

// What building K bucket graphs costs, measured. First, untimed, one graph
// of 1 batch built, launched and verified: the process's first capture and
// launch (module loading) are out of the figures. Then the first build: the
// largest bucket count's graphs on the shared pool, timed as below, with the
// device memory its execs take (cudaMemGetInfo after a device synchronise,
// before the first instantiate and after the last upload). The driver keeps
// that memory for the graphs built after them, so every row after it starts
// from the same state, and the first build is what a fresh process pays.
// Then, for each bucket count of the config, in each round, the shared
// pool's K graphs and then the separate buffers' K graphs (interleaved per
// bucket count, so a slow moment of the machine hits both alike). For each
// layout, one bucket after the other, as an engine's startup loop does:
//   capture      capture_batches (graph_steps.hpp) of the bucket's b batches
//   instantiate  instantiate (cudaGraphInstantiateWithParams); the graph is
//                destroyed after it, untimed
//   upload       cudaGraphUpload on pool stream 0 and a synchronise
// each host-timed (steady_clock) and summed over the K graphs. Then every
// graph is launched once from its bucket's own outputs poisoned (batches
// 0..b-1, device and host), waited for and its b batches verified; those
// launches are timed too (not part of startup). The padding waste is filled
// in last (fill_padding). Throws Interrupted (base/interrupt.hpp) between
// bucket counts after a signal.
//   Cost at the defaults (K = 8, 64, 256 over 1..256 batches of 64³, one
//   round) on an H200: ~42,000 batches captured per layout, and 33,000 more
//   by the first build, at ~10-20 µs each, launched and verified, plus the
//   separate buffers' allocation: 8.4 s in all.
StartupFigures measure_startup(const StartupConfig& config);

// Where the budget falls, on one layout's total (median) startup: the first
// (smallest) bucket count over it, and the most buckets within it below that
// one (the row before it; the last row when none is over).
struct BudgetPlace {
  std::optional<std::size_t> first_over;
  std::optional<std::size_t> most_within;
};
BudgetPlace budget_place(const StartupFigures& figures, BufferLayout layout);

// The verdicts, each from the figures alone:
// startup.budget: on the shared pool's totals, "none_over" (no bucket count
//   exceeded the budget), "first_over" (the first bucket count over it, and
//   the most buckets within it) or "all_over" (even the fewest exceed it),
//   with the padding waste of the layout chosen and the separate buffers'
//   first over it in brackets.
Verdict budget_verdict(const StartupFigures& figures);
// startup.parts: which of capture, instantiate, upload takes the largest
//   share of the largest bucket count's startup (shared pool), with all three
//   shares: "capture", "instantiate", "upload", or "nothing_timed".
Verdict parts_verdict(const StartupFigures& figures);
// startup.first_build: the process's first build against the same graphs
//   built again (the last row's shared pool), in total and in the part that
//   moved most: "dearer" or "cheaper" past kFirstBuildRatioThreshold, else
//   "same"; "not_timed" when either took no time. Nothing without a first build.
std::optional<Verdict> first_build_verdict(const StartupFigures& figures);
// startup.memory: the device memory of an exec from the first build (or
//   "below what cudaMemGetInfo resolves" when the delta is 0 or less), and
//   separate buffers against the shared pool at the largest bucket count, the
//   same graphs' memory added to both: "separate_dearer" past
//   kMemoryRatioThreshold, else "same".
Verdict memory_verdict(const StartupFigures& figures);

// The measurements, per row and layout: startup_capture, startup_instantiate,
// startup_upload, startup_total (costs) and startup_launches (checked), params
// {"buckets", "layout", "batches_captured"}, and startup_first_build (a cost
// of one sample), params {"buckets", "layout": "shared", "batches_captured"};
// the checks: the first build's, then every cell's, in row order, shared
// before separate; bounds "startup_<layout>_ms_per_graph_k<K>" and
// "startup_<layout>_us_per_batch_k<K>". The table, the verdicts, and the
// "startup" section: the config (layout "even", the mixes
// as text, the budget and its layout), the first build (its parts, graph
// bytes, verified), each row (sizes, padding waste, each layout's medians, per
// graph and per batch, buffer bytes, verified), the budget's bucket counts
// per layout (first over and most within, or null) and the verdicts' sentences.
void report_startup(const StartupConfig& config, const StartupFigures& figures, Report& report);

}  // namespace csg::graphs
