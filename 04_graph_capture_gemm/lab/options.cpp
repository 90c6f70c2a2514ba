#include "04_graph_capture_gemm/lab/options.hpp"

#include <algorithm>
#include <vector>

#include "base/errors.hpp"

namespace csg::graphs {
namespace {

constexpr int kDefaultTinyCount = 1000;  // tiny operations per run: enough that per-op costs dominate
constexpr int kMaxTinyCount = 10000;
constexpr int kDefaultTinySize = 64;  // 64³ GEMM: 0.5 MFLOP, a few µs of GPU work
constexpr int kMaxTinySize = 1024;
constexpr int kMaxChain = 100000;  // empty kernels in one launch-cost chain
constexpr int kDefaultLaunchRepeats = 31;
constexpr int kMinLaunchRepeats = 5;  // fewer, and a p95 means nothing

}  // namespace

CommonDefaults pinned_defaults() {
  CommonDefaults defaults;
  defaults.host_memory = HostMemory::pinned;
  return defaults;
}

std::optional<ArticleOptions> parse_article_options(StageCli& cli, int argc, char** argv) {
  add_pool_options(cli, /*with_sweep=*/false);
  const std::optional<CommonOptions> common = cli.parse_or_help(argc, argv);  // all checked before any CUDA call
  if (!common) return std::nullopt;
  return ArticleOptions{*common, read_pool_options(cli, *common, /*with_sweep=*/false)};
}

CommonDefaults own_workload_defaults() {
  CommonDefaults defaults = pinned_defaults();
  defaults.gemm_workload = false;
  return defaults;
}

CommonDefaults untimed_defaults() {
  CommonDefaults defaults = pinned_defaults();
  defaults.max_minutes = false;  // a capture or two and one launch
  return defaults;
}

void add_tiny_options(StageCli& cli) {
  cli.add_int("tiny-count", "Empty kernels in the chain, and tiny GEMMs", kDefaultTinyCount, 1, kMaxTinyCount);
  cli.add_int("tiny-size", "m = n = k of the tiny GEMMs", kDefaultTinySize, 1, kMaxTinySize);
  add_pool_options(cli, PoolFlags{.device_buffers = false});
}

TinyConfig read_tiny_options(const StageCli& cli, const CommonOptions& options) {
  return TinyConfig{static_cast<int>(cli.get_int("tiny-count")), static_cast<int>(cli.get_int("tiny-size")),
                    read_pool_options(cli, options, PoolFlags{.device_buffers = false}).streams,
                    options.host_memory, options.seed};
}

void add_launch_options(StageCli& cli) {
  cli.add_text("launch-chains", "Chain lengths of empty kernels, comma-separated, in [1, " +
                                    std::to_string(kMaxChain) + "]",
               "10,100,1000,10000", "LIST");
  cli.add_int("launch-repeats", "Timed repeats per chain length and figure (three times as many up to 1000 ops)",
              kDefaultLaunchRepeats, kMinLaunchRepeats, 10000);
}

LaunchCostConfig read_launch_options(const StageCli& cli) {
  LaunchCostConfig config;
  config.chains.clear();
  for (const long long ops : parse_distinct_int_list("launch-chains", cli.get_string("launch-chains"), 1, kMaxChain)) {
    config.chains.push_back(static_cast<int>(ops));
  }
  std::sort(config.chains.begin(), config.chains.end());
  config.repeats = static_cast<int>(cli.get_int("launch-repeats"));
  return config;
}

void refuse_given(const StageCli& cli, std::initializer_list<const char*> names, const std::string& why) {
  for (const char* name : names) {
    if (cli.given(name)) throw UsageError(std::string("--") + name + " does not apply here: " + why);
  }
}

}  // namespace csg::graphs
