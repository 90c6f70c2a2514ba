// What a serving engine pays before its first request: the plan of the
// startup experiment, in plain numbers (no CUDA call here, so the CPU tests
// check it).
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
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "batches.hpp"
#include "cli/options.hpp"

namespace csg::graphs {

enum class RequestMix { uniform, skewed };
inline constexpr RequestMix kAllRequestMixes[] = {RequestMix::uniform, RequestMix::skewed};
// "uniform", "skewed"
const char* to_string(RequestMix mix);
// "b uniform in 1..256", "b = ceil(256 * u^3), u uniform in (0, 1]"
std::string mix_text(RequestMix mix, int max_batches);

struct StartupConfig {
  std::vector<int> bucket_counts{8, 64, 256};  // --startup-buckets, ascending
  int max_batches = 256;     // --startup-max-batches: requests of 1..max batches
  int size = 64;             // --startup-size: m = n = k of the GEMMs
  double budget_ms = 250.0;  // --startup-budget-ms: capture + instantiate + upload of all buckets
  int requests = 10000;      // --startup-requests: per request mix, for the padding waste
  int rounds = 1;            // --startup-rounds: every layout built this many times, the median reported
  std::uint64_t seed = 1;    // --seed: the request sizes (and the data)
};

// --startup-buckets LIST (default 8,64,256), --startup-max-batches N
// (256), --startup-size N (64), --startup-budget-ms N (250),
// --startup-requests N (10000), --startup-rounds N (1).
void add_startup_options(StageCli& cli);
// After cli.parse(): the bucket counts sorted. Throws UsageError for an item
// out of [1, 1024], an empty item, a count given twice, or a count above
// --startup-max-batches (it would hold empty buckets).
StartupConfig read_startup_options(const StageCli& cli, std::uint64_t seed);

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

// A rough estimate of the whole run, for check_estimate: the first build (the
// most buckets, once) and, every round, both ways of holding the buffers,
// every graph's batches captured, instantiated
// and uploaded (~25 µs each) and launched once and verified at
// `per_batch_seconds` (one batch's GPU time plus the host's poison and check),
// and the separate buffers filled (~2 µs per batch of 64³, scaled with the size).
double startup_seconds(const StartupConfig& config, double per_batch_seconds);

}  // namespace csg::graphs
