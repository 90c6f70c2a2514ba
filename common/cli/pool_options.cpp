#include "cli/pool_options.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>

namespace csg {

std::string to_string(DeviceBuffers layout) { return layout == DeviceBuffers::slots ? "slots" : "per-batch"; }

void add_pool_options(StageCli& cli, bool with_sweep) { add_pool_options(cli, PoolFlags{.sweep = with_sweep}); }

void add_pool_options(StageCli& cli, const PoolFlags& flags) {
  cli.add_int("streams", "Streams in the pool; batch i runs on stream i % streams (the article: 8)", 8, 1,
              kMaxPoolStreams);
  if (flags.device_buffers) {
    cli.add_choice("device-buffers",
                   "Device A and C: one pair per stream, reused by its batches (slots), or one pair per batch "
                   "as in the article (per-batch)",
                   "slots", {"slots", "per-batch"});
  }
  if (flags.sweep) {
    cli.add_text("streams-sweep", "Pool sizes to time as well, comma-separated, or 'off'", flags.sweep_default,
                 "LIST");
  }
}

PoolConfig read_pool_options(const StageCli& cli, const CommonOptions& options, bool with_sweep) {
  return read_pool_options(cli, options, PoolFlags{.sweep = with_sweep});
}

PoolConfig read_pool_options(const StageCli& cli, const CommonOptions& options, const PoolFlags& flags) {
  PoolConfig config;
  config.streams = static_cast<int>(cli.get_int("streams"));
  if (flags.device_buffers && cli.get_string("device-buffers") == "per-batch") {
    config.device_buffers = DeviceBuffers::per_batch;
  }
  if (flags.sweep && cli.get_string("streams-sweep") != "off") {
    for (long long size :
         parse_distinct_int_list("streams-sweep", cli.get_string("streams-sweep"), 1, kMaxPoolStreams)) {
      config.sweep.push_back(static_cast<int>(size));
    }
  }
  const int batches = options.work.batches;
  if (config.streams > batches) {
    config.warnings.push_back("warning: --streams " + std::to_string(config.streams) + " is more than --batches " +
                              std::to_string(batches) + ": " + std::to_string(config.streams - batches) +
                              " stream(s) get no work");
  }
  return config;
}

int streams_running_gemms(const PoolConfig& config) {
  int streams = config.streams + 3;
  for (int size : config.sweep) streams += size;
  return streams;
}

int device_slots_for(const PoolConfig& config, int batches) {
  if (config.device_buffers == DeviceBuffers::per_batch) return batches;
  long long slots = config.streams;
  for (int size : config.sweep) {
    slots = std::lcm(slots, static_cast<long long>(size));
    if (slots >= batches) return batches;
  }
  return static_cast<int>(std::min<long long>(slots, batches));
}

std::optional<int> max_connections_env() {
  const char* value = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  if (value == nullptr || *value == '\0') return std::nullopt;
  char* end = nullptr;
  const long parsed = std::strtol(value, &end, 10);
  if (*end != '\0' || parsed < 1 || parsed > 32) return std::nullopt;
  return static_cast<int>(parsed);
}

}  // namespace csg
