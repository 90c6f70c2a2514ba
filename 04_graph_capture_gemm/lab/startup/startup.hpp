// The startup subcommand (kAbout in startup.cpp says what it measures;
// docs/startup.md explains the bucket layout, the two ways of holding the
// buffers and the napkin math), declared here for the CPU tests.
//
// Bucket i (i = 1..K) holds ceil(i·max / K) batches; each request runs in the
// smallest bucket ≥ its batch count; waste = padded batches / requested − 1.
#pragma once

#include "experiment/lab.hpp"

namespace csg::graphs {

// The request sizes, for the padding waste (deterministic from --seed):
//   uniform  b uniform in 1..max (changing-shapes' request_sequence)
//   skewed   b = ceil(max · u³), u uniform in (0, 1]: small requests common
//            (median max/8, mean max/4), as in serving, where most batches
//            are far from full
enum class RequestMix { uniform, skewed };

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

void startup_options(StageCli& cli);
// The bucket counts sorted, the common options' work the top bucket's.
// UsageError for a count above --startup-max-batches (it would hold empty buckets).
StartupConfig read_startup(const StageCli& cli, CommonOptions& common);

// Throws std::invalid_argument unless 1 <= buckets <= max_batches.
std::vector<int> even_buckets(int buckets, int max_batches);
// The batches the graphs of even_buckets(buckets, max_batches) capture together.
long long captured_batches(int buckets, int max_batches);

// From SplitMix64 of (seed, mix, index). Throws std::invalid_argument for
// requests < 0 or max_batches < 1.
std::vector<int> request_sizes(RequestMix mix, int requests, int max_batches, std::uint64_t seed);

// padded / requested − 1 (0.25: a quarter more batches computed than asked).
double padding_waste(const std::vector<int>& requests, const std::vector<int>& sizes);

// The first build and, every round, both ways of holding the buffers: every
// graph's batches built, launched once and verified at `per_batch_seconds`
// more each, and the separate buffers filled.
double startup_seconds(const StartupConfig& config, double per_batch_seconds);

// shared: one pool of buffers sized for the top bucket, allocated once, every
// graph on its first b batches; separate: each bucket its own buffers of b batches.
enum class BufferLayout { shared, separate };
inline constexpr BufferLayout kAllBufferLayouts[] = {BufferLayout::shared, BufferLayout::separate};
const char* to_string(BufferLayout layout);

// The startup budget is judged on this layout: the one a serving engine uses.
inline constexpr BufferLayout kBudgetLayout = BufferLayout::shared;
// Separate buffers are called dearer than the shared pool past this ratio of
// device memory (buffers + graphs); within it, about the same.
inline constexpr double kMemoryRatioThreshold = 1.1;

// One bucket count, one layout. Each Summary is over the rounds, each sample
// the sum of host time over the K graphs.
struct StartupCell {
  Summary capture;
  Summary instantiate;
  Summary upload;        // cudaGraphUpload + stream synchronise
  Summary total;         // the three together: what startup costs
  Summary launches;      // every graph launched once + synchronise (the verified run; not startup)
  // The buffers' device bytes, counted (shared: the one pool, allocated once
  // before everything). The execs' memory is the first build's (FirstBuild).
  std::int64_t buffer_bytes = 0;
  VerifyResult check;  // every graph's outputs, every round: passed, or the first failure
};

// The process's first build of the most buckets on the shared pool, before
// the rows, and its execs' device memory (cudaMemGetInfo; docs/startup.md says
// why only here: the driver keeps that memory for the graphs built later).
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
  std::vector<int> sizes;
  long long batches_captured = 0;
  double waste_uniform = 0.0;
  double waste_skewed = 0.0;
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

// The rows' padding waste and the mixes' means: pure, so made-up rows can be filled too.
void fill_padding(StartupFigures& figures);

// Where the budget falls on one layout's median startup: the first bucket
// count over it, and the row before it (the last row when none is over).
struct BudgetPlace {
  std::optional<std::size_t> first_over;
  std::optional<std::size_t> most_within;
};
BudgetPlace budget_place(const StartupFigures& figures, BufferLayout layout);

// The verdicts, each from the figures alone:
// startup.budget: the shared pool's totals against the budget.
Verdict budget_verdict(const StartupFigures& figures);
// startup.parts: the largest part of the largest bucket count's startup.
Verdict parts_verdict(const StartupFigures& figures);
// startup.first_build: the process's first build against the same graphs
// built again. Nothing without a first build.
std::optional<Verdict> first_build_verdict(const StartupFigures& figures);
// startup.memory: an exec's device memory, and separate buffers against the shared pool.
Verdict memory_verdict(const StartupFigures& figures);

void report_startup(const StartupConfig& config, const StartupFigures& figures, Report& report);

}  // namespace csg::graphs
