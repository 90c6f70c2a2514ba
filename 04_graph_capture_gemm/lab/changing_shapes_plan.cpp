#include "04_graph_capture_gemm/lab/changing_shapes_plan.hpp"

#include <climits>
#include <numeric>

namespace csg::graphs {
namespace {

// Per batch, the costs that do not shrink with the shape (H200 reference figures).
constexpr double kStreamIssueSecondsPerBatch = 3 * 4e-6;             // 3 calls of ~4 µs
constexpr double kCaptureInstantiateSecondsPerBatch = 2.1e-3 / 100;  // (0.6 + 1.5) ms per 100 batches

}  // namespace

void add_changing_shapes_options(StageCli& cli) {
  const ChangingShapesConfig defaults;
  cli.add_int("shape-requests",
              "Requests, each of a random batch count, run four ways (streams, re-capture, exec update, buckets)",
              defaults.requests, 1, 100000);
  // A top bucket of 1024 batches: 3072 nodes per graph.
  cli.add_int("shape-max-batches", "Largest batch count of a request: counts are uniform in 1..N",
              defaults.max_batches, 1, 1024);
  cli.add_int("shape-seed", "Seed of the sequence of batch counts", 1, 0, LLONG_MAX);
  // 16 · 4096 < 2^24: results stay exact.
  cli.add_int("shape-size", "m = n = k of the requests' GEMMs; 0: the article's 1024x1024x512", defaults.size, 0,
              4096);
  cli.add_int("shape-rounds", "Times the whole sequence is run; the median is reported", defaults.rounds, 1, 1000);
}

ChangingShapesConfig read_changing_shapes_options(const StageCli& cli) {
  auto get = [&cli](const char* name) { return static_cast<int>(cli.get_int(name)); };
  return {get("shape-requests"), get("shape-max-batches"), static_cast<std::uint64_t>(cli.get_int("shape-seed")),
          get("shape-size"), get("shape-rounds")};
}

std::vector<int> request_sequence(int requests, int max_batches, std::uint64_t seed, std::uint64_t salt) {
  if (requests < 0) throw std::invalid_argument("request_sequence: requests must be >= 0");
  if (max_batches < 1) throw std::invalid_argument("request_sequence: max_batches must be >= 1");
  // A stream of its own, apart from the data's (which hash (seed, matrix id)).
  const std::uint64_t key = splitmix64(seed ^ salt);
  std::vector<int> sequence;
  sequence.reserve(static_cast<std::size_t>(requests));
  for (int i = 0; i < requests; ++i) {
    // The modulo's bias is below max_batches / 2^64: nothing a test could see.
    sequence.push_back(1 + static_cast<int>(splitmix64(key + std::uint64_t(i)) % std::uint64_t(max_batches)));
  }
  return sequence;
}

std::vector<int> request_sequence(const ChangingShapesConfig& config) {
  return request_sequence(config.requests, config.max_batches, config.seed);
}

std::vector<int> bucket_sizes(int max_batches) {
  if (max_batches < 1) throw std::invalid_argument("bucket_sizes: max_batches must be >= 1");
  std::vector<int> sizes{1};
  while (sizes.back() < max_batches) sizes.push_back(2 * sizes.back());
  return sizes;
}

int bucket_capacity(int max_batches) { return bucket_sizes(max_batches).back(); }

int bucket_for(int batches, const std::vector<int>& buckets) {
  // buckets ascend, so the first one ≥ batches is the smallest.
  const auto it = std::find_if(buckets.begin(), buckets.end(), [&](int size) { return size >= batches; });
  if (it == buckets.end()) throw std::out_of_range("bucket_for: no bucket holds " + plural(batches, "batch"));
  return *it;
}

long long padded_batches(const std::vector<int>& sequence, const std::vector<int>& buckets) {
  long long computed = 0;
  for (int batches : sequence) computed += bucket_for(batches, buckets);
  return computed;
}

long long requested_batches(const std::vector<int>& sequence) {
  return std::accumulate(sequence.begin(), sequence.end(), 0LL);
}

double padding_fraction(long long requested, long long computed) {
  return requested > 0 ? double(computed) / double(requested) - 1.0 : 0.0;
}

Workload changing_shapes_workload(const ChangingShapesConfig& config, GemmShape article_shape) {
  return {bucket_capacity(config.max_batches),
          config.size > 0 ? GemmShape{config.size, config.size, config.size} : article_shape};
}

double changing_shapes_seconds(const ChangingShapesConfig& config, double per_batch_seconds) {
  if (!config.sequence_on()) return 0.0;
  const std::vector<int> sequence = request_sequence(config);
  const std::vector<int> buckets = bucket_sizes(config.max_batches);
  const double requested = double(requested_batches(sequence));
  const double padded = double(padded_batches(sequence, buckets));
  const double per_batch = std::max(per_batch_seconds, kStreamIssueSecondsPerBatch);
  // Three ways compute the requested batches, the buckets the padded ones;
  // two ways capture (and mostly instantiate) every request's graph.
  const double round = (3.0 * requested + padded) * per_batch + 2.0 * requested * kCaptureInstantiateSecondsPerBatch;
  const double warmup_share = std::min(1.0, double(kShapeWarmupRequests) / config.requests);
  double bucket_setup = 0.0;  // each bucket captured, instantiated and launched once
  for (int size : buckets) bucket_setup += size * (per_batch + kCaptureInstantiateSecondsPerBatch);
  return (config.rounds + warmup_share) * round + bucket_setup;
}

nlohmann::json changing_shapes_section(const ChangingShapesConfig& config, nlohmann::json sequence,
                                       nlohmann::json node_updates, nlohmann::json conclusions) {
  return {{"requests", config.requests},
          {"max_batches", config.max_batches},
          {"seed", config.seed},
          {"rounds", config.rounds},
          {"node_updates_on", !node_updates.is_null()},  // read before the list moves it, left to right
          {"sequence", std::move(sequence)},
          {"node_updates", std::move(node_updates)},
          {"conclusions", std::move(conclusions)}};
}

}  // namespace csg::graphs
