// The article's "graphs suit stable work": the plan of the changing-shapes
// experiment, in plain numbers (no CUDA call here, so the CPU tests check it).
//
// The article captures its 100 GEMMs once and replays them. A serving system
// can't: every request brings its own batch count. This experiment sends a
// seeded sequence of requests, batch counts uniform in 1..max_batches, and
// runs each request four ways (changing-shapes/changing_shapes.hpp):
//   streams      issue the work on the pool every time (stage 03)
//   re-capture   capture + instantiate a graph for this request, launch it
//   exec update  capture, then cudaGraphExecUpdate one exec: refused whenever
//                the batch count (so the topology) differs, then instantiated again
//   buckets      one exec per power of two up to the first ≥ max_batches,
//                made up front; a request of b batches launches the smallest
//                bucket ≥ b and computes the padding for nothing, the way LLM
//                serving engines capture one decode graph per batch bucket.
// Napkin math (H200 reference figures): capture + instantiate cost about
// 21 µs per batch, one graph launch saves about 4 µs per batch of CPU: re-
// capturing every request costs ~5x what the graph saves. Buckets pay nothing
// per request but compute ~45% more batches than asked (1..100 padded to
// powers of two): they win where the work per batch is small beside the
// launch costs, and lose where it is large.
#pragma once

#include "experiment/lab.hpp"

namespace csg::graphs {

struct ChangingShapesConfig {
  int requests = 50;       // --shape-requests; 0 (in made-up runs only): no sequence
  int max_batches = 100;   // --shape-max-batches (the article's count): batch counts are uniform in 1..max_batches
  std::uint64_t seed = 1;  // --shape-seed: the sequence of batch counts (the data use --seed)
  // --shape-size: m = n = k of the experiment's GEMMs; 0: the article's shape. 256³: ~6 µs of naive
  // kernel per batch, about one launch's cost.
  int size = 256;
  int rounds = 3;          // --shape-rounds: the whole sequence this many times, the median reported
  bool sequence_on() const { return requests > 0; }
};

void add_changing_shapes_options(StageCli& cli);
ChangingShapesConfig read_changing_shapes_options(const StageCli& cli);

// Uniform in 1..max_batches from SplitMix64 of (seed, request index): the
// same seed gives the same sequence on every machine; another `salt` draws
// a stream of its own (conditional's request sizes). Throws
// std::invalid_argument for requests < 0 or max_batches < 1.
std::vector<int> request_sequence(int requests, int max_batches, std::uint64_t seed,
                                  std::uint64_t salt = 0x5eb5eb5eb5eb5eb5ull);
std::vector<int> request_sequence(const ChangingShapesConfig& config);

// 1, 2, 4, ... up to the first power of two ≥ max_batches (1..128 for 100).
std::vector<int> bucket_sizes(int max_batches);
// The largest bucket: how many batches the experiment's buffers must hold,
// because a padded request computes real batches of them.
int bucket_capacity(int max_batches);
// The smallest bucket ≥ batches. Throws std::out_of_range when none is.
int bucket_for(int batches, const std::vector<int>& buckets);

long long padded_batches(const std::vector<int>& sequence, const std::vector<int>& buckets);
long long requested_batches(const std::vector<int>& sequence);
// computed / requested − 1: the share of the buckets' work that nobody asked
// for (0.45 = 45% more batches). 0 when nothing was requested.
double padding_fraction(long long requested, long long computed);

// bucket_capacity(max_batches) batches of size³, or of `article_shape` when size is 0.
Workload changing_shapes_workload(const ChangingShapesConfig& config, GemmShape article_shape = {});

// Every round and the warm-up, the four ways, each batch computed at
// `per_batch_seconds` (at least the streams' 3 calls of ~4 µs), and the
// re-capture ways' ~21 µs per batch captured and instantiated. 0 when the
// sequence is off.
double changing_shapes_seconds(const ChangingShapesConfig& config, double per_batch_seconds);

// The "changing_shapes" section that changing-shapes and node-updates both
// write: the sequence's settings, its figures (null without a sequence), the
// node updates' (null without them) and the conclusions.
nlohmann::json changing_shapes_section(const ChangingShapesConfig& config, nlohmann::json sequence,
                                       nlohmann::json node_updates, nlohmann::json conclusions);

// Requests of each way run untimed (and verified) before the timed rounds:
// the update way's exec exists from then on, and the first instantiations
// and launches of a new batch count are out of the timings.
inline constexpr int kShapeWarmupRequests = 2;

}  // namespace csg::graphs
