#include "04_graph_capture_gemm/lab/startup/startup_plan.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "base/errors.hpp"
#include "04_graph_capture_gemm/lab/changing_shapes_plan.hpp"

namespace csg::graphs {
namespace {

constexpr int kMaxBucketCount = 1024;
constexpr int kDefaultMaxBatches = 256;  // K = 256: one graph per batch count
constexpr int kMaxMaxBatches = 1024;     // 1024 buckets of up to 1024 batches: ~1.6 M nodes
constexpr int kDefaultSize = 64;         // 64³: a few µs per GEMM, so 256 graphs capture and verify in seconds
constexpr int kMaxSize = 1024;
constexpr int kDefaultBudgetMs = 250;  // between 128 and 256 buckets' startup on the H200 (0.2 and 0.35 s)
constexpr int kMaxBudgetMs = 10000000;
constexpr int kDefaultRequests = 10000;
constexpr int kMaxRequests = 10000000;
constexpr int kMaxRounds = 100;

// Per batch captured, per layout, everything a bucket costs the run: its
// buffers' allocation and fill, capture, instantiate, upload, one launch and
// the check of its outputs (the H200: 8.4 s for the defaults' 117,632
// batches built, both ways and the first build, about 71 µs each).
constexpr double kBuildSecondsPerBatch = 80e-6;
// Filling one batch's A on the host (hashing 4096 entries) for 64³, and its allocation.
constexpr double kFillSecondsPerElement = 2e-6 / (64.0 * 64.0);

}  // namespace

const char* to_string(RequestMix mix) { return mix == RequestMix::uniform ? "uniform" : "skewed"; }

std::string mix_text(RequestMix mix, int max_batches) {
  const std::string max = std::to_string(max_batches);
  if (mix == RequestMix::uniform) return "b uniform in 1.." + max;
  return "b = ceil(" + max + " * u^3), u uniform in (0, 1]";
}

void add_startup_options(StageCli& cli) {
  cli.add_text("startup-buckets",
               "Bucket counts to build, comma-separated, each at most --startup-max-batches; the buckets of each are "
               "spaced evenly over 1..max",
               "8,64,256", "LIST");
  cli.add_int("startup-max-batches", "Largest batch count of a request: the top bucket", kDefaultMaxBatches, 1,
              kMaxMaxBatches);
  cli.add_int("startup-size", "m = n = k of the GEMMs the graphs capture", kDefaultSize, 1, kMaxSize);
  cli.add_int("startup-budget-ms",
              "Startup budget: the conclusion names the first bucket count whose capture + instantiate + upload "
              "of all its graphs exceeds it",
              kDefaultBudgetMs, 1, kMaxBudgetMs);
  cli.add_int("startup-requests", "Request sizes drawn per mix (uniform, skewed) for the padding waste",
              kDefaultRequests, 1, kMaxRequests);
  cli.add_int("startup-rounds", "Times every layout is built; the median is reported", 1, 1, kMaxRounds);
}

StartupConfig read_startup_options(const StageCli& cli, std::uint64_t seed) {
  StartupConfig config;
  config.max_batches = static_cast<int>(cli.get_int("startup-max-batches"));
  config.bucket_counts.clear();
  for (const long long k :
       parse_distinct_int_list("startup-buckets", cli.get_string("startup-buckets"), 1, kMaxBucketCount)) {
    if (k > config.max_batches) {
      throw UsageError("--startup-buckets: " + std::to_string(k) + " buckets over 1.." +
                       std::to_string(config.max_batches) +
                       " batches would leave some empty; give counts up to --startup-max-batches");
    }
    config.bucket_counts.push_back(static_cast<int>(k));
  }
  std::sort(config.bucket_counts.begin(), config.bucket_counts.end());
  config.size = static_cast<int>(cli.get_int("startup-size"));
  config.budget_ms = double(cli.get_int("startup-budget-ms"));
  config.requests = static_cast<int>(cli.get_int("startup-requests"));
  config.rounds = static_cast<int>(cli.get_int("startup-rounds"));
  config.seed = seed;
  return config;
}

std::vector<int> even_buckets(int buckets, int max_batches) {
  if (buckets < 1 || buckets > max_batches) {
    throw std::invalid_argument("even_buckets: need 1 <= buckets <= max_batches");
  }
  std::vector<int> sizes;
  sizes.reserve(std::size_t(buckets));
  for (long long i = 1; i <= buckets; ++i) {
    // ceil(i * max / K) in integers; distinct because max / K >= 1.
    sizes.push_back(static_cast<int>((i * max_batches + buckets - 1) / buckets));
  }
  return sizes;
}

long long captured_batches(const std::vector<int>& sizes) {
  long long batches = 0;
  for (int size : sizes) batches += size;
  return batches;
}

std::vector<int> request_sizes(RequestMix mix, int requests, int max_batches, std::uint64_t seed) {
  if (mix == RequestMix::uniform) return request_sequence(requests, max_batches, seed);
  if (requests < 0) throw std::invalid_argument("request_sizes: requests must be >= 0");
  if (max_batches < 1) throw std::invalid_argument("request_sizes: max_batches must be >= 1");
  // A stream of its own, apart from the uniform mix's and the data's.
  const std::uint64_t key = splitmix64(seed ^ 0x5ca1ab1e5ca1ab1eull);
  std::vector<int> sizes;
  sizes.reserve(std::size_t(requests));
  for (int i = 0; i < requests; ++i) {
    // u in (0, 1] from the top 53 bits.
    const double u = double((splitmix64(key + std::uint64_t(i)) >> 11) + 1) / 9007199254740992.0;
    const int b = static_cast<int>(std::ceil(double(max_batches) * u * u * u));
    sizes.push_back(std::clamp(b, 1, max_batches));
  }
  return sizes;
}

double padding_waste(const std::vector<int>& requests, const std::vector<int>& sizes) {
  return padding_fraction(requested_batches(requests), padded_batches(requests, sizes));
}

Workload startup_workload(const StartupConfig& config, int batches) {
  return Workload{batches, GemmShape{config.size, config.size, config.size}};
}

double startup_seconds(const StartupConfig& config, double per_batch_seconds) {
  double batches = 0.0;
  for (int k : config.bucket_counts) batches += double(captured_batches(even_buckets(k, config.max_batches)));
  const double elements = double(config.size) * double(config.size);
  const double fill = batches * elements * kFillSecondsPerElement;  // the separate buffers only
  const double per_batch = kBuildSecondsPerBatch + per_batch_seconds;
  // The first build: the most buckets once more, on the shared pool.
  const double first = config.bucket_counts.empty()
                           ? 0.0
                           : double(captured_batches(even_buckets(config.bucket_counts.back(), config.max_batches)));
  return config.rounds * (2.0 * batches * per_batch + fill) + first * per_batch;
}

}  // namespace csg::graphs
