// The memory-nodes subcommand in words, table and JSON (memory_nodes.cpp
// measures): the article's graph with its device A and C allocated inside
// the graph (captured cudaMallocAsync / cudaFreeAsync, memory nodes) against
// the same graph on preallocated buffers. Plain C++: the CPU tests call
// these on made-up figures, one test per branch of every conclusion.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/pool_options.hpp"
#include "report/result.hpp"

namespace csg::graphs {

// What cudaDeviceGetGraphMemAttribute reports for the device (bytes), and
// cudaMemGetInfo's free device memory at the same moment.
struct GraphMemory {
  std::uint64_t used_current = 0;      // cudaGraphMemAttrUsedMemCurrent: associated with graphs now
  std::uint64_t used_high = 0;         // cudaGraphMemAttrUsedMemHigh (reset to 0 at the baseline)
  std::uint64_t reserved_current = 0;  // cudaGraphMemAttrReservedMemCurrent: held by the graph allocator
  std::uint64_t reserved_high = 0;     // cudaGraphMemAttrReservedMemHigh (reset to 0 at the baseline)
  std::uint64_t device_free = 0;       // cudaMemGetInfo
};

// The moments the footprint is read, in the order the run reaches them.
enum class Moment {
  baseline,             // after cudaDeviceGraphMemTrim, high-water marks reset
  instantiated,         // the memory graph instantiated
  uploaded,             // ... and cudaGraphUpload-ed
  first_launch,         // ... launched once
  replays,              // ... after the timed replays
  second_uploaded,      // a second capture of the same work instantiated and uploaded
  second_launched,      // ... launched once
  both_launched,        // the first then the second, back to back on one stream
  destroyed,            // both execs and graphs destroyed
  trimmed,              // after cudaDeviceGraphMemTrim
};
inline constexpr int kMomentCount = 10;
const char* to_string(Moment moment);  // "baseline", "first_launch", ... (the JSON's names)

struct Footprint {
  std::array<GraphMemory, kMomentCount> at{};
  const GraphMemory& operator[](Moment m) const { return at[static_cast<std::size_t>(m)]; }
  GraphMemory& operator[](Moment m) { return at[static_cast<std::size_t>(m)]; }
};

// The bytes to compare the graph allocator's with.
struct MemorySizes {
  int batches = 0;
  int slots = 0;                          // device A/C pairs of the preallocated graph
  std::uint64_t pair_bytes = 0;           // one batch's A + C
  std::uint64_t allocations_bytes() const { return std::uint64_t(batches) * pair_bytes; }  // the memory graph's
  std::uint64_t preallocated_bytes() const { return std::uint64_t(slots) * pair_bytes; }  // the other graph's A, C
};

// Everything the run measured.
struct MemoryNodesFigures {
  MemorySizes sizes;
  Summary memory_replay;             // GPU time of one replay (events), interleaved with ...
  Summary preallocated_replay;       // ... the preallocated graph's
  Summary memory_launch_cpu;         // host time of cudaGraphLaunch, in the same runs
  Summary preallocated_launch_cpu;
  Summary memory_instantiate;        // host time of cudaGraphInstantiateWithParams, interleaved
  Summary preallocated_instantiate;
  std::size_t memory_nodes = 0;      // nodes of the memory graph (allocations and frees among them)
  std::size_t preallocated_nodes = 0;
  Footprint footprint;
  // Every output checked after every run: the first failure of each, else the last check.
  VerifyResult memory_check;         // the timed replays (inputs alternate; the last on --seed's)
  VerifyResult preallocated_check;
  VerifyResult first_launch_check;   // the memory graph's first launch
  VerifyResult second_check;         // the second graph alone, then both back to back
};

// ---- conclusions: pure functions of the figures, each branch tested ----------

// Two medians are told apart only beyond this relative difference, or the
// larger of the two runs' own spreads ((median - min) / median) when larger.
inline constexpr double kMinReplayNoise = 0.02;
// Two byte counts are "about the same" within this share of the larger.
inline constexpr double kSameBytes = 0.10;

enum class ReplayVerdict { slower, faster, same };
double replay_noise(const Summary& memory, const Summary& preallocated);
ReplayVerdict replay_verdict(const Summary& memory, const Summary& preallocated);
std::string replay_text(const Summary& memory, const Summary& preallocated);

// The memory graph's reserved bytes after its replays against the
// preallocated graph's device A and C.
enum class FootprintVerdict { smaller, same, larger, none };
FootprintVerdict footprint_verdict(std::uint64_t reserved, std::uint64_t preallocated);
std::string footprint_text(std::uint64_t reserved, const MemorySizes& sizes);

// Reserved against the sum of every allocation of the graph: did the driver
// give a batch's freed A and C to a later batch inside the graph?
enum class ReuseVerdict { reused, not_reused, none };
ReuseVerdict reuse_verdict(std::uint64_t reserved, std::uint64_t allocations);
std::string reuse_text(std::uint64_t reserved, const MemorySizes& sizes);

// Reserved with both graphs launched against one graph's.
enum class SharingVerdict { shared, partly, separate, none };
SharingVerdict sharing_verdict(std::uint64_t one, std::uint64_t two);
std::string sharing_text(std::uint64_t one, std::uint64_t two);

// What destroying the execs left reserved, and what the trim gave back.
enum class TrimVerdict { all, part, nothing, nothing_to_trim };
TrimVerdict trim_verdict(std::uint64_t before, std::uint64_t after);
std::string destroy_text(const GraphMemory& live, const GraphMemory& destroyed);
std::string trim_text(const GraphMemory& destroyed, const GraphMemory& trimmed);

// ---- result, JSON, screen --------------------------------------------------

// Measurements: memory_graph_replay, preallocated_graph_replay (checked),
// memory_graph_launch_cpu, preallocated_graph_launch_cpu,
// memory_graph_instantiate, preallocated_graph_instantiate (costs); bounds:
// replay_memory_over_preallocated, reserved_after_replays_bytes,
// reserved_two_graphs_bytes, preallocated_bytes, allocations_bytes.
StageResult memory_nodes_result(const DeviceInfo& device, const CommonOptions& options, const PoolConfig& pool,
                                const MemoryNodesFigures& figures);
// subcommand_json(result, "memory-nodes") and "memory_nodes": sizes, node
// counts, "footprint" (one object per moment), and "verdicts".
nlohmann::json memory_nodes_json(const StageResult& result, const MemoryNodesFigures& figures);
void print_memory_nodes(std::ostream& out, const StageResult& result, const CommonOptions& options,
                        const PoolConfig& pool, const MemoryNodesFigures& figures);

}  // namespace csg::graphs
