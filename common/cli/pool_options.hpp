// The options of the stream-pool stages (03, 04): pool size, a sweep of pool
// sizes, and where the device buffers live. Parsed and validated with the
// other options, before any CUDA call.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"

namespace csg {

// slots:     one device A and C per stream, reused by that stream's batches
//            (safe: a stream runs its batches in order). Device memory:
//            pool × (A + C) + B, whatever the batch count.
// per_batch: the article's layout, one device A and C per batch:
//            batches × (A + C) + B.
enum class DeviceBuffers { slots, per_batch };

std::string to_string(DeviceBuffers layout);

struct PoolConfig {
  int streams = 8;
  std::vector<int> sweep;  // pool sizes to time besides `streams`; empty: no sweep
  DeviceBuffers device_buffers = DeviceBuffers::slots;
  std::vector<std::string> warnings;  // printed with the results, e.g. streams that get no work
};

inline constexpr int kMaxPoolStreams = 1024;

// Which of the pool's options a run offers besides --streams: --device-buffers
// (otherwise `slots`), and --streams-sweep with its default.
struct PoolFlags {
  bool device_buffers = true;
  bool sweep = false;
  const char* sweep_default = "1,2,4,8,16,32";
};

// --streams N, --device-buffers slots|per-batch and, with `with_sweep`,
// --streams-sweep LIST|off (default "1,2,4,8,16,32").
void add_pool_options(StageCli& cli, bool with_sweep);
void add_pool_options(StageCli& cli, const PoolFlags& flags);

// Reads them after cli.parse(); UsageError for a bad list. A pool larger than
// the batch count is allowed (its extra streams get no work) and noted in `warnings`.
PoolConfig read_pool_options(const StageCli& cli, const CommonOptions& options, bool with_sweep);
PoolConfig read_pool_options(const StageCli& cli, const CommonOptions& options, const PoolFlags& flags);

// How many device slots (A and C pairs) the run allocates: with per_batch one
// per batch; with slots the least common multiple of every pool size timed (so
// that in every pool the batches sharing a slot share a stream), at most one per batch.
int device_slots_for(const PoolConfig& config, int batches);

// How many streams run GEMMs in stage 03 (each needs its own cuBLAS handle and
// workspace, workload/gemm.hpp): the pool, every swept pool, the compute stream
// of the engine streams, the stream of the isolated kernel sum and the legacy
// default stream of the serial baselines.
int streams_running_gemms(const PoolConfig& config);

// CUDA_DEVICE_MAX_CONNECTIONS as the process sees it (the driver reads it at
// context creation); nothing when unset (the driver's default is 8).
std::optional<int> max_connections_env();

}  // namespace csg
